// Dropout forward and backward. The keep decision for element i is rng::dropoutKeep(stream, i,
// p) from gpu/counter_rng.h — a pure function of (seed, op id, rng draw, element index), no
// generator state — so a recompute that passes the forward's draw rebuilds the same mask, and
// the CPU reference draws the identical mask from the same constexpr code.

#include "counter_rng.h"
#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

// ---- kernels -------------------------------------------------------------------------------

template <typename T>
__global__ void dropoutForwardKernel(const T* x, T* y, std::uint8_t* mask, std::int64_t n, float p,
                                     float scale, std::uint64_t stream) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        const bool keep = rng::dropoutKeep(stream, std::uint64_t(i), p);
        mask[i] = keep ? 1 : 0;
        y[i] = fromFloat<T>(keep ? toFloat(x[i]) * scale : 0.0f);
    }
}

template <typename T>
__global__ void dropoutBackwardKernel(const std::uint8_t* mask, const T* dy, T* dx, std::int64_t n,
                                      float scale) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        if (mask[i]) dx[i] = fromFloat<T>(toFloat(dx[i]) + toFloat(dy[i]) * scale);
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void dropoutForward(DType t, const void* x, void* y, std::uint8_t* mask, std::int64_t n, float p,
                    std::uint64_t stream, cudaStream_t s) {
    REMAT_REQUIRE(p >= 0.0f && p < 1.0f, "dropoutForward: p in [0, 1)");
    REMAT_REQUIRE(n >= 0 && (n == 0 || (x && y && mask)), "dropoutForward");
    if (n == 0) return;
    dispatchFloat(t, "dropoutForward", [&](auto tag) {
        using T = decltype(tag);
        dropoutForwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(x), static_cast<T*>(y), mask, n, p, rng::dropoutScale(p), stream);
    });
    REMAT_LAUNCH_CHECK("dropoutForwardKernel");
}

void dropoutBackward(DType t, const std::uint8_t* mask, const void* dy, void* dx, std::int64_t n,
                     float p, cudaStream_t s) {
    REMAT_REQUIRE(p >= 0.0f && p < 1.0f, "dropoutBackward: p in [0, 1)");
    REMAT_REQUIRE(n >= 0 && (n == 0 || (mask && dy && dx)), "dropoutBackward");
    if (n == 0) return;
    dispatchFloat(t, "dropoutBackward", [&](auto tag) {
        using T = decltype(tag);
        dropoutBackwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            mask, static_cast<const T*>(dy), static_cast<T*>(dx), n, rng::dropoutScale(p));
    });
    REMAT_LAUNCH_CHECK("dropoutBackwardKernel");
}

}  // namespace remat::gpu::cuda
