// LayerNorm and RMSNorm over the last dimension, forward and backward. Forward: one warp per
// row, fp32 statistics (mean and rstd for LayerNorm, rstd for RMSNorm) written for backward.
// Backward: one warp per row for the input gradient, then a column kernel for the weight and
// bias gradients that sums rows in a fixed order (no atomics, bit-reproducible; the program
// declares no scratch for these ops, so there is no two-stage reduction buffer either).

#include "launchers.h"
#include "reduce.cuh"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kColTile = 32, kRowLanes = 16;

// ---- kernels -------------------------------------------------------------------------------

template <typename T>
__global__ void layerNormForwardKernel(const T* x, const T* w, const T* b, T* y, float* mean,
                                       float* rstd, std::int64_t rows, std::int64_t cols,
                                       float eps) {
    const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* xr = x + row * cols;
    float sum = 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32) sum += toFloat(xr[c]);
    const float m = warpSum(sum) / float(cols);
    float sq = 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float d = toFloat(xr[c]) - m;
        sq += d * d;
    }
    const float rs = rsqrtf(warpSum(sq) / float(cols) + eps);
    T* yr = y + row * cols;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float v = (toFloat(xr[c]) - m) * rs;
        yr[c] = fromFloat<T>(v * toFloat(w[c]) + toFloat(b[c]));
    }
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = rs;
    }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w.
template <typename T>
__global__ void layerNormBackwardInputKernel(const T* x, const float* mean, const float* rstd,
                                             const T* w, const T* dy, T* dx, std::int64_t rows,
                                             std::int64_t cols) {
    const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* xr = x + row * cols;
    const T* dyr = dy + row * cols;
    const float m = mean[row], rs = rstd[row];
    float sg = 0.0f, sgx = 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float g = toFloat(dyr[c]) * toFloat(w[c]);
        sg += g;
        sgx += g * (toFloat(xr[c]) - m) * rs;
    }
    const float mg = warpSum(sg) / float(cols), mgx = warpSum(sgx) / float(cols);
    T* dxr = dx + row * cols;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float g = toFloat(dyr[c]) * toFloat(w[c]);
        const float xh = (toFloat(xr[c]) - m) * rs;
        dxr[c] = fromFloat<T>(toFloat(dxr[c]) + rs * (g - mg - xh * mgx));
    }
}

// dw[c] += sum_r dy * xhat, db[c] += sum_r dy. mean is null for RMSNorm (xhat = x * rstd).
template <typename T>
__global__ void normBackwardParamsKernel(const T* x, const float* mean, const float* rstd,
                                         const T* dy, T* dw, T* db, std::int64_t rows,
                                         std::int64_t cols) {
    __shared__ float partW[kRowLanes][kColTile];
    __shared__ float partB[kRowLanes][kColTile];
    const std::int64_t c = blockIdx.x * std::int64_t(kColTile) + threadIdx.x;
    float aw = 0.0f, ab = 0.0f;
    if (c < cols)
        for (std::int64_t r = threadIdx.y; r < rows; r += kRowLanes) {
            const float g = toFloat(dy[r * cols + c]);
            const float m = mean ? mean[r] : 0.0f;
            aw += g * (toFloat(x[r * cols + c]) - m) * rstd[r];
            ab += g;
        }
    partW[threadIdx.y][threadIdx.x] = aw;
    partB[threadIdx.y][threadIdx.x] = ab;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        float sw = 0.0f, sb = 0.0f;
        for (int l = 0; l < kRowLanes; ++l) {
            sw += partW[l][threadIdx.x];
            sb += partB[l][threadIdx.x];
        }
        if (dw) dw[c] = fromFloat<T>(toFloat(dw[c]) + sw);
        if (db) db[c] = fromFloat<T>(toFloat(db[c]) + sb);
    }
}

template <typename T>
__global__ void rmsNormForwardKernel(const T* x, const T* w, T* y, float* rstd, std::int64_t rows,
                                     std::int64_t cols, float eps) {
    const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* xr = x + row * cols;
    float sq = 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float v = toFloat(xr[c]);
        sq += v * v;
    }
    const float rs = rsqrtf(warpSum(sq) / float(cols) + eps);
    T* yr = y + row * cols;
    for (std::int64_t c = lane; c < cols; c += 32)
        yr[c] = fromFloat<T>(toFloat(xr[c]) * rs * toFloat(w[c]));
    if (lane == 0) rstd[row] = rs;
}

// dx = rstd * (g - xhat * mean(g * xhat)) with g = dy * w, xhat = x * rstd.
template <typename T>
__global__ void rmsNormBackwardInputKernel(const T* x, const float* rstd, const T* w, const T* dy,
                                           T* dx, std::int64_t rows, std::int64_t cols) {
    const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* xr = x + row * cols;
    const T* dyr = dy + row * cols;
    const float rs = rstd[row];
    float sgx = 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32)
        sgx += toFloat(dyr[c]) * toFloat(w[c]) * toFloat(xr[c]) * rs;
    const float mgx = warpSum(sgx) / float(cols);
    T* dxr = dx + row * cols;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float g = toFloat(dyr[c]) * toFloat(w[c]);
        const float xh = toFloat(xr[c]) * rs;
        dxr[c] = fromFloat<T>(toFloat(dxr[c]) + rs * (g - xh * mgx));
    }
}

unsigned rowBlocks(std::int64_t rows) {
    const std::int64_t b = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    REMAT_REQUIRE(b <= 0x7fffffff, "norm: too many rows");
    return unsigned(b);
}

unsigned colBlocks(std::int64_t cols) {
    return unsigned((cols + kColTile - 1) / kColTile);
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void layerNormForward(DType t, const void* x, const void* w, const void* b, void* y, float* mean,
                      float* rstd, std::int64_t rows, std::int64_t cols, float eps,
                      cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && eps > 0, "layerNormForward");
    REMAT_REQUIRE(rows == 0 || (x && w && b && y && mean && rstd), "layerNormForward operands");
    if (rows == 0) return;
    dispatchFloat(t, "layerNormForward", [&](auto tag) {
        using T = decltype(tag);
        layerNormForwardKernel<T><<<rowBlocks(rows), kWarpsPerBlock * 32, 0, s>>>(
            static_cast<const T*>(x), static_cast<const T*>(w), static_cast<const T*>(b),
            static_cast<T*>(y), mean, rstd, rows, cols, eps);
    });
    REMAT_LAUNCH_CHECK("layerNormForwardKernel");
}

void layerNormBackward(DType t, const void* x, const float* mean, const float* rstd, const void* w,
                       const void* dy, void* dx, void* dw, void* db, std::int64_t rows,
                       std::int64_t cols, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0, "layerNormBackward");
    REMAT_REQUIRE(rows == 0 || (x && mean && rstd && w && dy), "layerNormBackward operands");
    if (rows == 0) return;
    dispatchFloat(t, "layerNormBackward", [&](auto tag) {
        using T = decltype(tag);
        if (dx) {
            layerNormBackwardInputKernel<T><<<rowBlocks(rows), kWarpsPerBlock * 32, 0, s>>>(
                static_cast<const T*>(x), mean, rstd, static_cast<const T*>(w),
                static_cast<const T*>(dy), static_cast<T*>(dx), rows, cols);
            REMAT_LAUNCH_CHECK("layerNormBackwardInputKernel");
        }
        if (dw || db) {
            normBackwardParamsKernel<T><<<colBlocks(cols), dim3(kColTile, kRowLanes), 0, s>>>(
                static_cast<const T*>(x), mean, rstd, static_cast<const T*>(dy),
                static_cast<T*>(dw), static_cast<T*>(db), rows, cols);
            REMAT_LAUNCH_CHECK("normBackwardParamsKernel");
        }
    });
}

void rmsNormForward(DType t, const void* x, const void* w, void* y, float* rstd, std::int64_t rows,
                    std::int64_t cols, float eps, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && eps > 0, "rmsNormForward");
    REMAT_REQUIRE(rows == 0 || (x && w && y && rstd), "rmsNormForward operands");
    if (rows == 0) return;
    dispatchFloat(t, "rmsNormForward", [&](auto tag) {
        using T = decltype(tag);
        rmsNormForwardKernel<T><<<rowBlocks(rows), kWarpsPerBlock * 32, 0, s>>>(
            static_cast<const T*>(x), static_cast<const T*>(w), static_cast<T*>(y), rstd, rows,
            cols, eps);
    });
    REMAT_LAUNCH_CHECK("rmsNormForwardKernel");
}

void rmsNormBackward(DType t, const void* x, const float* rstd, const void* w, const void* dy,
                     void* dx, void* dw, std::int64_t rows, std::int64_t cols, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0, "rmsNormBackward");
    REMAT_REQUIRE(rows == 0 || (x && rstd && w && dy), "rmsNormBackward operands");
    if (rows == 0) return;
    dispatchFloat(t, "rmsNormBackward", [&](auto tag) {
        using T = decltype(tag);
        if (dx) {
            rmsNormBackwardInputKernel<T><<<rowBlocks(rows), kWarpsPerBlock * 32, 0, s>>>(
                static_cast<const T*>(x), rstd, static_cast<const T*>(w), static_cast<const T*>(dy),
                static_cast<T*>(dx), rows, cols);
            REMAT_LAUNCH_CHECK("rmsNormBackwardInputKernel");
        }
        if (dw) {
            normBackwardParamsKernel<T><<<colBlocks(cols), dim3(kColTile, kRowLanes), 0, s>>>(
                static_cast<const T*>(x), nullptr, rstd, static_cast<const T*>(dy),
                static_cast<T*>(dw), nullptr, rows, cols);
            REMAT_LAUNCH_CHECK("normBackwardParamsKernel");
        }
    });
}

}  // namespace remat::gpu::cuda
