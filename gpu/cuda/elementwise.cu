// Elementwise kernels: the activations (relu, gelu with the tanh approximation, silu, tanh,
// sigmoid) forward and backward, residual add, the SwiGLU product, gradient accumulation, bias
// add, the deterministic column sum used for bias gradients, and fp32 <-> 16-bit casts. All
// compute in fp32 whatever the storage dtype; backward kernels accumulate into dx.

#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;
constexpr float kGeluK = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluC = 0.044715f;

// ---- kernels -------------------------------------------------------------------------------

enum class Act { Relu, Gelu, Silu, Tanh, Sigmoid };

__device__ __forceinline__ float sigmoidf(float x) {
    return 1.0f / (1.0f + expf(-x));
}

template <Act A>
__device__ __forceinline__ float actForward(float x) {
    if constexpr (A == Act::Relu) return x > 0.0f ? x : 0.0f;
    if constexpr (A == Act::Gelu) {
        const float u = kGeluK * (x + kGeluC * x * x * x);
        return 0.5f * x * (1.0f + tanhf(u));
    }
    if constexpr (A == Act::Silu) return x * sigmoidf(x);
    if constexpr (A == Act::Tanh) return tanhf(x);
    if constexpr (A == Act::Sigmoid) return sigmoidf(x);
    return x;
}

// Derivative from what the op saved: its output (relu, tanh, sigmoid) or its input (gelu, silu).
template <Act A>
__device__ __forceinline__ float actDerivative(float saved) {
    if constexpr (A == Act::Relu) return saved > 0.0f ? 1.0f : 0.0f;
    if constexpr (A == Act::Tanh) return 1.0f - saved * saved;
    if constexpr (A == Act::Sigmoid) return saved * (1.0f - saved);
    if constexpr (A == Act::Gelu) {
        const float x = saved;
        const float u = kGeluK * (x + kGeluC * x * x * x);
        const float th = tanhf(u);
        const float du = kGeluK * (1.0f + 3.0f * kGeluC * x * x);
        return 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * du;
    }
    if constexpr (A == Act::Silu) {
        const float sg = sigmoidf(saved);
        return sg * (1.0f + saved * (1.0f - sg));
    }
    return 1.0f;
}

template <Act A, typename T>
__global__ void activationForwardKernel(const T* x, T* y, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        y[i] = fromFloat<T>(actForward<A>(toFloat(x[i])));
}

template <Act A, typename T>
__global__ void activationBackwardKernel(const T* saved, const T* dy, T* dx, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        dx[i] = fromFloat<T>(toFloat(dx[i]) + actDerivative<A>(toFloat(saved[i])) * toFloat(dy[i]));
}

template <typename T>
__global__ void addKernel(const T* a, const T* b, T* y, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        y[i] = fromFloat<T>(toFloat(a[i]) + toFloat(b[i]));
}

template <typename T>
__global__ void mulKernel(const T* a, const T* b, T* y, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        y[i] = fromFloat<T>(toFloat(a[i]) * toFloat(b[i]));
}

template <typename T>
__global__ void mulBackwardKernel(const T* a, const T* b, const T* dy, T* da, T* db,
                                  std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const float g = toFloat(dy[i]);
        // Read both operands before writing: da may be the same buffer as db (x * x).
        const float av = toFloat(a[i]), bv = toFloat(b[i]);
        if (da) da[i] = fromFloat<T>(toFloat(da[i]) + g * bv);
        if (db) db[i] = fromFloat<T>(toFloat(db[i]) + g * av);
    }
}

template <typename T>
__global__ void accumulateKernel(const T* src, T* dst, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        dst[i] = fromFloat<T>(toFloat(dst[i]) + toFloat(src[i]));
}

// Row-wise kernels: blocks stride over rows, threads over columns, so no element index is
// divided (64-bit division costs dozens of instructions per element on the GPU).
template <typename T>
__global__ void biasAddKernel(T* y, const T* bias, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x)
            y[r * cols + c] = fromFloat<T>(toFloat(y[r * cols + c]) + toFloat(bias[c]));
}

template <typename T>
__global__ void rowBroadcastKernel(const T* row, T* y, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x)
        for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) y[r * cols + c] = row[c];
}

// One block covers 32 columns; its 8 row lanes each sum every 8th row in order, and the lanes
// are combined in a fixed order, so the result does not depend on scheduling.
constexpr int kSumCols = 32, kSumLanes = 8;
template <typename T>
__global__ void columnSumKernel(const T* x, T* dst, std::int64_t rows, std::int64_t cols) {
    __shared__ float part[kSumLanes][kSumCols];
    const std::int64_t c = blockIdx.x * std::int64_t(kSumCols) + threadIdx.x;
    float acc = 0.0f;
    if (c < cols)
        for (std::int64_t r = threadIdx.y; r < rows; r += kSumLanes)
            acc += toFloat(x[r * cols + c]);
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        float sum = 0.0f;
        for (int l = 0; l < kSumLanes; ++l) sum += part[l][threadIdx.x];
        dst[c] = fromFloat<T>(toFloat(dst[c]) + sum);
    }
}

template <typename T>
__global__ void castFromF32Kernel(const float* src, T* dst, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        dst[i] = fromFloat<T>(src[i]);
}

template <typename T>
__global__ void castToF32Kernel(const T* src, float* dst, std::int64_t n) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        dst[i] = toFloat(src[i]);
}

template <typename F>
void dispatchAct(OpKind kind, F&& f) {
    switch (kind) {
        case OpKind::Relu:
            f(std::integral_constant<Act, Act::Relu>{});
            return;
        case OpKind::Gelu:
            f(std::integral_constant<Act, Act::Gelu>{});
            return;
        case OpKind::Silu:
            f(std::integral_constant<Act, Act::Silu>{});
            return;
        case OpKind::Tanh:
            f(std::integral_constant<Act, Act::Tanh>{});
            return;
        case OpKind::Sigmoid:
            f(std::integral_constant<Act, Act::Sigmoid>{});
            return;
        default:
            break;
    }
    REMAT_REQUIRE(
        false, std::string("activation: not an activation op: ") + std::string(opKindName(kind)));
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

cudaError_t probeKernelImage() {
    cudaFuncAttributes attr{};
    return cudaFuncGetAttributes(&attr, accumulateKernel<float>);
}

void activationForward(OpKind kind, DType t, const void* x, void* y, std::int64_t n,
                       cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (x && y)), "activationForward");
    if (n == 0) return;
    dispatchAct(kind, [&](auto a) {
        dispatchFloat(t, "activationForward", [&](auto tag) {
            using T = decltype(tag);
            activationForwardKernel<decltype(a)::value, T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
                static_cast<const T*>(x), static_cast<T*>(y), n);
        });
    });
    REMAT_LAUNCH_CHECK("activationForwardKernel");
}

void activationBackward(OpKind kind, DType t, const void* saved, const void* dy, void* dx,
                        std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (saved && dy && dx)), "activationBackward");
    if (n == 0) return;
    dispatchAct(kind, [&](auto a) {
        dispatchFloat(t, "activationBackward", [&](auto tag) {
            using T = decltype(tag);
            activationBackwardKernel<decltype(a)::value, T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
                static_cast<const T*>(saved), static_cast<const T*>(dy), static_cast<T*>(dx), n);
        });
    });
    REMAT_LAUNCH_CHECK("activationBackwardKernel");
}

void addForward(DType t, const void* a, const void* b, void* y, std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (a && b && y)), "addForward");
    if (n == 0) return;
    dispatchFloat(t, "addForward", [&](auto tag) {
        using T = decltype(tag);
        addKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n);
    });
    REMAT_LAUNCH_CHECK("addKernel");
}

void mulForward(DType t, const void* a, const void* b, void* y, std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (a && b && y)), "mulForward");
    if (n == 0) return;
    dispatchFloat(t, "mulForward", [&](auto tag) {
        using T = decltype(tag);
        mulKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n);
    });
    REMAT_LAUNCH_CHECK("mulKernel");
}

void mulBackward(DType t, const void* a, const void* b, const void* dy, void* da, void* db,
                 std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (a && b && dy)), "mulBackward");
    if (n == 0 || (!da && !db)) return;
    dispatchFloat(t, "mulBackward", [&](auto tag) {
        using T = decltype(tag);
        mulBackwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), static_cast<const T*>(dy),
            static_cast<T*>(da), static_cast<T*>(db), n);
    });
    REMAT_LAUNCH_CHECK("mulBackwardKernel");
}

void accumulate(DType t, const void* src, void* dst, std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (src && dst)), "accumulate");
    if (n == 0) return;
    dispatchFloat(t, "accumulate", [&](auto tag) {
        using T = decltype(tag);
        accumulateKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(static_cast<const T*>(src),
                                                                  static_cast<T*>(dst), n);
    });
    REMAT_LAUNCH_CHECK("accumulateKernel");
}

void biasAdd(DType t, void* y, const void* bias, std::int64_t rows, std::int64_t cols,
             cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && y && bias, "biasAdd");
    if (rows == 0) return;
    dispatchFloat(t, "biasAdd", [&](auto tag) {
        using T = decltype(tag);
        biasAddKernel<T><<<rowGrid(rows), kBlock, 0, s>>>(static_cast<T*>(y),
                                                          static_cast<const T*>(bias), rows, cols);
    });
    REMAT_LAUNCH_CHECK("biasAddKernel");
}

void rowBroadcast(DType t, const void* row, void* y, std::int64_t rows, std::int64_t cols,
                  cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && row && y, "rowBroadcast");
    if (rows == 0) return;
    dispatchFloat(t, "rowBroadcast", [&](auto tag) {
        using T = decltype(tag);
        rowBroadcastKernel<T><<<rowGrid(rows), kBlock, 0, s>>>(static_cast<const T*>(row),
                                                               static_cast<T*>(y), rows, cols);
    });
    REMAT_LAUNCH_CHECK("rowBroadcastKernel");
}

void columnSum(DType t, const void* x, void* dst, std::int64_t rows, std::int64_t cols,
               cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && x && dst, "columnSum");
    REMAT_REQUIRE((cols + kSumCols - 1) / kSumCols <= 0x7fffffff, "columnSum: too many columns");
    dispatchFloat(t, "columnSum", [&](auto tag) {
        using T = decltype(tag);
        const dim3 block(kSumCols, kSumLanes);
        const unsigned grid = unsigned((cols + kSumCols - 1) / kSumCols);
        columnSumKernel<T>
            <<<grid, block, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(dst), rows, cols);
    });
    REMAT_LAUNCH_CHECK("columnSumKernel");
}

void castFromF32(DType t, const float* src, void* dst, std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (src && dst)), "castFromF32");
    if (n == 0) return;
    dispatchFloat(t, "castFromF32", [&](auto tag) {
        using T = decltype(tag);
        castFromF32Kernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(src, static_cast<T*>(dst), n);
    });
    REMAT_LAUNCH_CHECK("castFromF32Kernel");
}

void castToF32(DType t, const void* src, float* dst, std::int64_t n, cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && (n == 0 || (src && dst)), "castToF32");
    if (n == 0) return;
    dispatchFloat(t, "castToF32", [&](auto tag) {
        using T = decltype(tag);
        castToF32Kernel<T>
            <<<gridFor(n, kBlock), kBlock, 0, s>>>(static_cast<const T*>(src), dst, n);
    });
    REMAT_LAUNCH_CHECK("castToF32Kernel");
}

}  // namespace remat::gpu::cuda
