// Rotary position embeddings on the GPU (the Rotary op of sim/lower.cpp): the q and k heads of
// the qkv tensor [B, T, (H + 2 KV) D] rotated in place by their token's position, in the
// "rotate half" layout of rotary_math.h, which the CPU kernel shares (same angles, same fp32
// cosines and sines). One thread per element: the thread of a pair's first element reads both,
// rotates them and writes both, so the op can run in place; v and the dimensions past the
// rotated ones are copied (forward) or passed through (backward).

#include <string>

#include "launchers.h"
#include "rotary_math.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

struct RotaryDims {
    std::int64_t tokens, rotatedHeads, headDim, width, dims;
    double base;
};

template <typename T>
__global__ void rotaryKernel(const T* src, T* dst, std::int64_t n, RotaryDims g, bool backward) {
    const std::int64_t half = g.dims / 2;
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t row = e / g.width, col = e % g.width;
        const std::int64_t head = col / g.headDim, k = col % g.headDim;
        if (head >= g.rotatedHeads || k >= g.dims) {
            dst[e] = backward ? fromFloat<T>(toFloat(dst[e]) + toFloat(src[e])) : src[e];
            continue;
        }
        if (k >= half) continue;  // the pair's first element's thread writes it
        const double a = rotary::angle(row % g.tokens, k, g.dims, g.base);
        const float c = float(::cos(a)), s = float(::sin(a));
        float x1 = toFloat(src[e]), x2 = toFloat(src[e + half]);
        if (backward) {
            rotary::unrotate(x1, x2, c, s);
            dst[e] = fromFloat<T>(toFloat(dst[e]) + x1);
            dst[e + half] = fromFloat<T>(toFloat(dst[e + half]) + x2);
        } else {
            rotary::rotate(x1, x2, c, s);
            dst[e] = fromFloat<T>(x1);
            dst[e + half] = fromFloat<T>(x2);
        }
    }
}

RotaryDims dims(const RotaryShape& r) {
    REMAT_REQUIRE(r.tokens > 0 && r.heads > 0 && r.kvHeads > 0 && r.headDim > 0 && r.dims >= 2 &&
                      r.dims % 2 == 0 && r.dims <= r.headDim,
                  "rotary: invalid attributes");
    return RotaryDims{r.tokens, r.heads + r.kvHeads, r.headDim, (r.heads + 2 * r.kvHeads) * r.headDim,
                      r.dims, r.base};
}

void launch(DType t, const void* src, void* dst, const RotaryShape& r, bool backward,
            cudaStream_t s, const char* name) {
    if (r.batch == 0) return;
    const RotaryDims g = dims(r);
    REMAT_REQUIRE(src && dst, std::string(name) + " operands");
    const std::int64_t n = r.batch * r.tokens * g.width;
    dispatchFloat(t, name, [&](auto tag) {
        using T = decltype(tag);
        rotaryKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(static_cast<const T*>(src),
                                                             static_cast<T*>(dst), n, g, backward);
    });
    REMAT_LAUNCH_CHECK("rotaryKernel");
}

}  // namespace

void rotaryForward(DType t, const void* x, void* y, const RotaryShape& r, cudaStream_t s) {
    launch(t, x, y, r, false, s, "rotaryForward");
}

void rotaryBackward(DType t, const void* dy, void* dx, const RotaryShape& r, cudaStream_t s) {
    launch(t, dy, dx, r, true, s, "rotaryBackward");
}

}  // namespace remat::gpu::cuda
