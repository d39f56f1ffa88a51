// Convolution, batch norm (training mode) and pooling, NCHW, forward and backward. The
// convolution is im2col + cuBLAS GEMM (conv_plan.h): per sample, a kernel writes the columns
// (one thread per entry), one strided-batched GEMM over the groups writes the output, and
// backward runs, per sample in order, the columns and the weight-gradient GEMM, then the
// input-gradient GEMM into the same columns buffer and col2im as a gather (one thread per input
// element, its taps in (ki, kj) order) — no atomics, so every bit is reproducible. The columns
// come from the backend's scratch (cuda_conv_ops.cpp). Batch norm: one block per channel,
// fixed-shape block reductions (reduce.cuh), so every statistic is bit-reproducible; a forward
// that is not a recompute folds the batch's mean and unbiased variance into the running
// statistics. Max pooling keeps the first maximum of each window and its flat index in the
// input plane; its backward gathers, per input element, the output gradients whose index
// names it. Global average pooling: one thread per plane.

#include "launchers.h"
#include "reduce.cuh"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

// ---- kernels -------------------------------------------------------------------------------

// columns[row, col] of one sample (xn: its first element), all groups.
template <typename T>
__global__ void im2colKernel(const T* xn, T* columns, ConvShape g) {
    const std::int64_t cols = g.colCols(), total = g.c * g.k * g.k * cols;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t src = convColumnSource(g, i / cols, i % cols);
        columns[i] = src >= 0 ? xn[src] : fromFloat<T>(0.0f);
    }
}

// dxn[ci, ih, iw] += Σ over taps (ki, kj) of dcolumns[(ci, ki, kj), column the tap reads it at].
template <typename T>
__global__ void col2imKernel(const T* dcolumns, T* dxn, ConvShape g) {
    const std::int64_t cols = g.colCols(), total = g.c * g.h * g.w;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t iw = i % g.w, ih = (i / g.w) % g.h, ci = i / (g.w * g.h);
        float acc = 0.0f;
        for (std::int64_t ki = 0; ki < g.k; ++ki)
            for (std::int64_t kj = 0; kj < g.k; ++kj) {
                const std::int64_t col = convTapColumn(g, ih, iw, ki, kj);
                if (col >= 0) acc += toFloat(dcolumns[((ci * g.k + ki) * g.k + kj) * cols + col]);
            }
        dxn[i] = fromFloat<T>(toFloat(dxn[i]) + acc);
    }
}

// y[n, o, p] = b[o]: the bias the forward GEMM then accumulates onto (beta = 1), so the sum is
// rounded once.
template <typename T>
__global__ void channelBroadcastKernel(const T* b, T* y, std::int64_t total, std::int64_t c,
                                       std::int64_t plane) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x)
        y[i] = b[(i / plane) % c];
}

template <typename T>
__global__ void convBiasGradKernel(const T* dy, T* db, ConvShape g) {
    for (std::int64_t o = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; o < g.o;
         o += std::int64_t(gridDim.x) * blockDim.x) {
        float acc = 0.0f;
        const std::int64_t plane = g.ho * g.wo;
        for (std::int64_t n = 0; n < g.n; ++n)
            for (std::int64_t p = 0; p < plane; ++p) acc += toFloat(dy[(n * g.o + o) * plane + p]);
        db[o] = fromFloat<T>(toFloat(db[o]) + acc);
    }
}

// Element j of channel ch over (n, position): the batch's values of one channel.
__device__ __forceinline__ std::int64_t channelAt(std::int64_t j, std::int64_t ch, std::int64_t c,
                                                  std::int64_t plane) {
    return ((j / plane) * c + ch) * plane + j % plane;
}

template <typename T>
__global__ void batchNormForwardKernel(const T* x, const T* w, const T* b, T* y, float* mean,
                                       float* invstd, float* runMean, float* runVar,
                                       float momentum, std::int64_t n, std::int64_t c,
                                       std::int64_t plane, float eps) {
    __shared__ float scratch[32];
    const std::int64_t ch = blockIdx.x, count = n * plane;
    float sum = 0.0f;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x)
        sum += toFloat(x[channelAt(j, ch, c, plane)]);
    const float m = blockSum(sum, scratch) / float(count);
    float sq = 0.0f;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
        const float d = toFloat(x[channelAt(j, ch, c, plane)]) - m;
        sq += d * d;
    }
    const float var = blockSum(sq, scratch) / float(count);
    const float rs = rsqrtf(var + eps);
    const float scale = rs * toFloat(w[ch]), shift = toFloat(b[ch]);
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
        const std::int64_t at = channelAt(j, ch, c, plane);
        y[at] = fromFloat<T>((toFloat(x[at]) - m) * scale + shift);
    }
    if (threadIdx.x == 0) {
        mean[ch] = m;
        invstd[ch] = rs;
        if (runMean && runVar) {  // PyTorch's update: unbiased variance, momentum
            const float unbiased = count > 1 ? var * float(count) / float(count - 1) : var;
            runMean[ch] = (1.0f - momentum) * runMean[ch] + momentum * m;
            runVar[ch] = (1.0f - momentum) * runVar[ch] + momentum * unbiased;
        }
    }
}

// dx = w·invstd·(dy − mean(dy) − x̂·mean(dy·x̂)), dw = Σ dy·x̂, db = Σ dy.
template <typename T>
__global__ void batchNormBackwardKernel(const T* x, const float* mean, const float* invstd,
                                        const T* w, const T* dy, T* dx, T* dw, T* db,
                                        std::int64_t n, std::int64_t c, std::int64_t plane) {
    __shared__ float scratch[32];
    const std::int64_t ch = blockIdx.x, count = n * plane;
    const float m = mean[ch], rs = invstd[ch];
    float sDy = 0.0f, sDyX = 0.0f;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
        const std::int64_t at = channelAt(j, ch, c, plane);
        const float g = toFloat(dy[at]);
        sDy += g;
        sDyX += g * ((toFloat(x[at]) - m) * rs);
    }
    sDy = blockSum(sDy, scratch);
    sDyX = blockSum(sDyX, scratch);
    if (threadIdx.x == 0) {
        if (dw) dw[ch] = fromFloat<T>(toFloat(dw[ch]) + sDyX);
        if (db) db[ch] = fromFloat<T>(toFloat(db[ch]) + sDy);
    }
    if (!dx) return;
    const float meanDy = sDy / float(count), meanDyX = sDyX / float(count);
    const float k = toFloat(w[ch]) * rs;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
        const std::int64_t at = channelAt(j, ch, c, plane);
        const float xhat = (toFloat(x[at]) - m) * rs;
        dx[at] = fromFloat<T>(toFloat(dx[at]) + k * (toFloat(dy[at]) - meanDy - xhat * meanDyX));
    }
}

template <typename T>
__global__ void maxPoolForwardKernel(const T* x, T* y, std::int64_t* idx, PoolShape g) {
    const std::int64_t total = g.planes * g.ho * g.wo;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t ow = i % g.wo, oh = (i / g.wo) % g.ho, pl = i / (g.wo * g.ho);
        const T* in = x + pl * g.h * g.w;
        float best = -INFINITY;
        std::int64_t at = -1;
        for (std::int64_t kh = 0; kh < g.k; ++kh) {
            const std::int64_t ih = oh * g.stride - g.pad + kh;
            if (ih < 0 || ih >= g.h) continue;
            for (std::int64_t kw = 0; kw < g.k; ++kw) {
                const std::int64_t iw = ow * g.stride - g.pad + kw;
                if (iw < 0 || iw >= g.w) continue;
                const float v = toFloat(in[ih * g.w + iw]);
                if (at < 0 || v > best || (isnan(v) && !isnan(best))) {
                    best = v;
                    at = ih * g.w + iw;
                }
            }
        }
        y[i] = fromFloat<T>(best);
        idx[i] = at;
    }
}

template <typename T>
__global__ void maxPoolBackwardKernel(const std::int64_t* idx, const T* dy, T* dx, PoolShape g) {
    const std::int64_t total = g.planes * g.h * g.w;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t iw = i % g.w, ih = (i / g.w) % g.h, pl = i / (g.w * g.h);
        const std::int64_t self = ih * g.w + iw;
        // Output rows and columns whose window contains (ih, iw), in ascending order.
        const std::int64_t oh0 = max(std::int64_t(0), (ih + g.pad - g.k + g.stride) / g.stride);
        const std::int64_t oh1 = min(g.ho - 1, (ih + g.pad) / g.stride);
        const std::int64_t ow0 = max(std::int64_t(0), (iw + g.pad - g.k + g.stride) / g.stride);
        const std::int64_t ow1 = min(g.wo - 1, (iw + g.pad) / g.stride);
        float acc = 0.0f;
        for (std::int64_t oh = oh0; oh <= oh1; ++oh)
            for (std::int64_t ow = ow0; ow <= ow1; ++ow) {
                const std::int64_t o = (pl * g.ho + oh) * g.wo + ow;
                if (idx[o] == self) acc += toFloat(dy[o]);
            }
        dx[i] = fromFloat<T>(toFloat(dx[i]) + acc);
    }
}

template <typename T>
__global__ void avgPoolForwardKernel(const T* x, T* y, std::int64_t planes, std::int64_t plane) {
    for (std::int64_t p = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; p < planes;
         p += std::int64_t(gridDim.x) * blockDim.x) {
        float sum = 0.0f;
        for (std::int64_t i = 0; i < plane; ++i) sum += toFloat(x[p * plane + i]);
        y[p] = fromFloat<T>(sum / float(plane));
    }
}

template <typename T>
__global__ void avgPoolBackwardKernel(const T* dy, T* dx, std::int64_t planes, std::int64_t plane) {
    const std::int64_t total = planes * plane;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x)
        dx[i] = fromFloat<T>(toFloat(dx[i]) + toFloat(dy[i / plane]) / float(plane));
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void conv2dForward(cublasHandle_t h, DType t, const void* x, const void* w, const void* b,
                   void* y, void* columns, const ConvShape& g, cudaStream_t s) {
    const char* problem = convShapeProblem(g);
    REMAT_REQUIRE(!problem, problem ? problem : "conv2dForward");
    REMAT_REQUIRE(x && w && y && (g.direct() || columns), "conv2dForward operands");
    if (g.n == 0) return;
    const std::int64_t es = dtypeBytes(t);
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::X)] = const_cast<void*>(x);
    ops[std::size_t(GemmOperand::W)] = const_cast<void*>(w);
    ops[std::size_t(GemmOperand::Y)] = y;
    ops[std::size_t(GemmOperand::Columns)] = columns;
    dispatchFloat(t, "conv2dForward", [&](auto tag) {
        using T = decltype(tag);
        if (b) {
            const std::int64_t total = g.n * g.o * g.colCols();
            channelBroadcastKernel<T><<<gridFor(total, kBlock), kBlock, 0, s>>>(
                static_cast<const T*>(b), static_cast<T*>(y), total, g.o, g.colCols());
            REMAT_LAUNCH_CHECK("channelBroadcastKernel");
        }
        const std::int64_t colElems = convColumnElements(g);
        for (std::int64_t n = 0; n < g.n; ++n) {
            if (colElems > 0) {
                im2colKernel<T><<<gridFor(colElems, kBlock), kBlock, 0, s>>>(
                    reinterpret_cast<const T*>(static_cast<const char*>(x) +
                                               n * g.c * g.h * g.w * es),
                    static_cast<T*>(columns), g);
                REMAT_LAUNCH_CHECK("im2colKernel");
            }
            runGemms(h, t, convForwardGemms(g, n, b != nullptr), ops);
        }
    });
}

void conv2dBackward(cublasHandle_t h, DType t, const void* x, const void* w, const void* dy,
                    void* dx, void* dw, void* db, void* columns, const ConvShape& g,
                    cudaStream_t s) {
    const char* problem = convShapeProblem(g);
    REMAT_REQUIRE(!problem, problem ? problem : "conv2dBackward");
    REMAT_REQUIRE(dy && (!dw || x) && (!dx || w) && (g.direct() || columns || (!dx && !dw)),
                  "conv2dBackward operands");
    if (g.n == 0) return;
    const std::int64_t es = dtypeBytes(t);
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::X)] = const_cast<void*>(x);
    ops[std::size_t(GemmOperand::W)] = const_cast<void*>(w);
    ops[std::size_t(GemmOperand::DY)] = const_cast<void*>(dy);
    ops[std::size_t(GemmOperand::DX)] = dx;
    ops[std::size_t(GemmOperand::DW)] = dw;
    ops[std::size_t(GemmOperand::Columns)] = columns;
    ops[std::size_t(GemmOperand::DColumns)] = columns;  // reused once the weight gradient ran
    dispatchFloat(t, "conv2dBackward", [&](auto tag) {
        using T = decltype(tag);
        if (db) {
            convBiasGradKernel<T><<<gridFor(g.o, kBlock), kBlock, 0, s>>>(
                static_cast<const T*>(dy), static_cast<T*>(db), g);
            REMAT_LAUNCH_CHECK("convBiasGradKernel");
        }
        const std::int64_t colElems = convColumnElements(g);
        for (std::int64_t n = 0; n < g.n; ++n) {
            if (dw) {
                if (colElems > 0) {
                    im2colKernel<T><<<gridFor(colElems, kBlock), kBlock, 0, s>>>(
                        reinterpret_cast<const T*>(static_cast<const char*>(x) +
                                                   n * g.c * g.h * g.w * es),
                        static_cast<T*>(columns), g);
                    REMAT_LAUNCH_CHECK("im2colKernel");
                }
                runGemms(h, t, convWeightGradGemms(g, n), ops);
            }
            if (dx) {
                runGemms(h, t, convInputGradGemms(g, n), ops);
                if (colElems > 0) {
                    const std::int64_t plane = g.c * g.h * g.w;
                    col2imKernel<T><<<gridFor(plane, kBlock), kBlock, 0, s>>>(
                        static_cast<const T*>(columns),
                        reinterpret_cast<T*>(static_cast<char*>(dx) + n * plane * es), g);
                    REMAT_LAUNCH_CHECK("col2imKernel");
                }
            }
        }
    });
}

void batchNorm2dForward(DType t, const void* x, const void* w, const void* b, void* y, float* mean,
                        float* invstd, float* runMean, float* runVar, float momentum,
                        std::int64_t n, std::int64_t c, std::int64_t plane, float eps,
                        cudaStream_t s) {
    REMAT_REQUIRE(x && w && b && y && mean && invstd && n * plane > 0 && c > 0 && eps > 0,
                  "batchNorm2dForward");
    dispatchFloat(t, "batchNorm2dForward", [&](auto tag) {
        using T = decltype(tag);
        batchNormForwardKernel<T><<<rowGrid(c), kBlock, 0, s>>>(
            static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(b),
            static_cast<T*>(y), mean, invstd, runMean, runVar, momentum, n, c, plane, eps);
    });
    REMAT_LAUNCH_CHECK("batchNormForwardKernel");
}

void batchNorm2dBackward(DType t, const void* x, const float* mean, const float* invstd,
                         const void* w, const void* dy, void* dx, void* dw, void* db,
                         std::int64_t n, std::int64_t c, std::int64_t plane, cudaStream_t s) {
    REMAT_REQUIRE(x && mean && invstd && w && dy && n * plane > 0 && c > 0, "batchNorm2dBackward");
    dispatchFloat(t, "batchNorm2dBackward", [&](auto tag) {
        using T = decltype(tag);
        batchNormBackwardKernel<T><<<rowGrid(c), kBlock, 0, s>>>(
            static_cast<const T*>(x), mean, invstd, static_cast<const T*>(w),
            static_cast<const T*>(dy), static_cast<T*>(dx), static_cast<T*>(dw),
            static_cast<T*>(db), n, c, plane);
    });
    REMAT_LAUNCH_CHECK("batchNormBackwardKernel");
}

void maxPool2dForward(DType t, const void* x, void* y, std::int64_t* indices, const PoolShape& g,
                      cudaStream_t s) {
    REMAT_REQUIRE(x && y && indices && g.k > 0 && g.stride > 0 && g.pad >= 0 && 2 * g.pad <= g.k,
                  "maxPool2dForward");
    const std::int64_t total = g.planes * g.ho * g.wo;
    if (total == 0) return;
    dispatchFloat(t, "maxPool2dForward", [&](auto tag) {
        using T = decltype(tag);
        maxPoolForwardKernel<T><<<gridFor(total, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(x), static_cast<T*>(y), indices, g);
    });
    REMAT_LAUNCH_CHECK("maxPoolForwardKernel");
}

void maxPool2dBackward(DType t, const std::int64_t* indices, const void* dy, void* dx,
                       const PoolShape& g, cudaStream_t s) {
    REMAT_REQUIRE(indices && dy && dx && g.k > 0 && g.stride > 0, "maxPool2dBackward");
    const std::int64_t total = g.planes * g.h * g.w;
    if (total == 0) return;
    dispatchFloat(t, "maxPool2dBackward", [&](auto tag) {
        using T = decltype(tag);
        maxPoolBackwardKernel<T><<<gridFor(total, kBlock), kBlock, 0, s>>>(
            indices, static_cast<const T*>(dy), static_cast<T*>(dx), g);
    });
    REMAT_LAUNCH_CHECK("maxPoolBackwardKernel");
}

void globalAvgPoolForward(DType t, const void* x, void* y, std::int64_t planes, std::int64_t plane,
                          cudaStream_t s) {
    REMAT_REQUIRE(x && y && plane > 0, "globalAvgPoolForward");
    if (planes == 0) return;
    dispatchFloat(t, "globalAvgPoolForward", [&](auto tag) {
        using T = decltype(tag);
        avgPoolForwardKernel<T><<<gridFor(planes, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(x), static_cast<T*>(y), planes, plane);
    });
    REMAT_LAUNCH_CHECK("avgPoolForwardKernel");
}

void globalAvgPoolBackward(DType t, const void* dy, void* dx, std::int64_t planes,
                           std::int64_t plane, cudaStream_t s) {
    REMAT_REQUIRE(dy && dx && plane > 0, "globalAvgPoolBackward");
    if (planes == 0) return;
    dispatchFloat(t, "globalAvgPoolBackward", [&](auto tag) {
        using T = decltype(tag);
        avgPoolBackwardKernel<T><<<gridFor(planes * plane, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(dy), static_cast<T*>(dx), planes, plane);
    });
    REMAT_LAUNCH_CHECK("avgPoolBackwardKernel");
}

}  // namespace remat::gpu::cuda
