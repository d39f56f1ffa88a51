// Row softmax over the last dimension, forward and backward: one warp per row, an online
// (max, sum) pass in fp32 followed by a write pass. Masked attention scores arrive as -inf and
// leave as probability 0; a row masked entirely (never produced by a causal mask, whose
// diagonal is kept) leaves as zeros rather than NaN.

#include "launchers.h"
#include "reduce.cuh"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;

// ---- kernels -------------------------------------------------------------------------------

template <typename T>
__global__ void softmaxForwardKernel(const T* x, T* y, std::int64_t rows, std::int64_t cols) {
    const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* xr = x + row * cols;
    T* yr = y + row * cols;
    MaxSum ms;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float v = toFloat(xr[c]);
        if (v != -INFINITY) ms = push(ms, v);
    }
    ms = warpMaxSum(ms);
    const float inv = ms.sum > 0.0f ? 1.0f / ms.sum : 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float v = toFloat(xr[c]);
        yr[c] = fromFloat<T>(v == -INFINITY ? 0.0f : expf(v - ms.max) * inv);
    }
}

template <typename T>
__global__ void softmaxBackwardKernel(const T* y, const T* dy, T* dx, std::int64_t rows,
                                      std::int64_t cols) {
    const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const T* yr = y + row * cols;
    const T* dyr = dy + row * cols;
    T* dxr = dx + row * cols;
    float dot = 0.0f;
    for (std::int64_t c = lane; c < cols; c += 32) dot += toFloat(yr[c]) * toFloat(dyr[c]);
    dot = warpSum(dot);
    for (std::int64_t c = lane; c < cols; c += 32) {
        const float yv = toFloat(yr[c]);
        dxr[c] = fromFloat<T>(toFloat(dxr[c]) + yv * (toFloat(dyr[c]) - dot));
    }
}

unsigned rowBlocks(std::int64_t rows) {
    const std::int64_t b = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    REMAT_REQUIRE(b <= 0x7fffffff, "softmax: too many rows");
    return unsigned(b);
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void softmaxForward(DType t, const void* x, void* y, std::int64_t rows, std::int64_t cols,
                    cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && (rows == 0 || (x && y)), "softmaxForward");
    if (rows == 0) return;
    dispatchFloat(t, "softmaxForward", [&](auto tag) {
        using T = decltype(tag);
        softmaxForwardKernel<T><<<rowBlocks(rows), kWarpsPerBlock * 32, 0, s>>>(
            static_cast<const T*>(x), static_cast<T*>(y), rows, cols);
    });
    REMAT_LAUNCH_CHECK("softmaxForwardKernel");
}

void softmaxBackward(DType t, const void* y, const void* dy, void* dx, std::int64_t rows,
                     std::int64_t cols, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && cols > 0 && (rows == 0 || (y && dy && dx)), "softmaxBackward");
    if (rows == 0) return;
    dispatchFloat(t, "softmaxBackward", [&](auto tag) {
        using T = decltype(tag);
        softmaxBackwardKernel<T><<<rowBlocks(rows), kWarpsPerBlock * 32, 0, s>>>(
            static_cast<const T*>(y), static_cast<const T*>(dy), static_cast<T*>(dx), rows, cols);
    });
    REMAT_LAUNCH_CHECK("softmaxBackwardKernel");
}

}  // namespace remat::gpu::cuda
