// Flash attention on the GPU (the FlashAttn op of sim/lower.cpp): the fused op reads Q, K and V
// in place from the qkv tensor [B, T, (H + 2 KV) D] and writes the context with the heads merged
// [B, T, H D] and the fp32 log-sum-exp of every score row [B, H, T]. Nothing of size T x T is
// ever stored: the kernels stream tiles of keys (forward, dQ) or of queries (dK, dV) through
// shared memory and keep one row's running state in registers and local memory.
//
// - forward: one thread per query row (b, h, i); the block's threads share each tile of K and V.
//   Online softmax: a running maximum m and sum l; when a score raises m the partial context is
//   rescaled by exp(m_old - m_new). O = acc / l, lse = m + log l.
// - backward, dQ: one thread per query row; P = exp(S - lse) recomputed from q, k and the saved
//   log-sum-exp, dP = dO V^T, dS = P (dP - delta) with delta = rowsum(dO O), dQ += dS K / sqrt(D).
// - backward, dK and dV: one thread per key row (b, kv, j), looping over the KV head's query
//   heads in ascending order and over the queries, tiles of them shared by the block:
//   dV += P^T dO, dK += dS^T Q / sqrt(D).
// Dropout on the probabilities (attrs.p > 0) is decided inside the kernels by the counter-based
// RNG of counter_rng.h at the flat index ((b H + h) T + i) T + j, the same decisions as the
// CPU kernel: forward adds only kept probabilities (scaled by 1 / (1 - p)) into the context and
// writes the draw to the op's int64 RNG state; the backward kernels read the draw from that
// saved state on the device and regenerate the decisions: dV += P M s dO, dP = (dO V^T) M s.
// Every gradient element is summed by one thread in a fixed order and added once to the
// (accumulating) gradient buffer, so results repeat bit for bit without atomics. Correctness
// over speed: no tensor cores; a head dimension up to kMaxHeadDim.

#include <string>

#include "counter_rng.h"
#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kRowsPerBlock = 64;
constexpr int kTile = 16;  // rows of the streamed operand per shared-memory tile

struct FlashDims {
    std::int64_t batch, tokens, heads, kvHeads, headDim;
    bool causal;
    float scale;
    // Dropout: probability (0: none), 1 / (1 - p), and the stream's inputs but the draw.
    float dropP, dropScale;
    std::uint64_t seed;
    std::uint32_t opId;
    __device__ std::int64_t width() const { return (heads + 2 * kvHeads) * headDim; }
    __device__ std::int64_t group() const { return heads / kvHeads; }
    // The kept probability of (b, h, i, j) given the stream of the draw.
    __device__ float dropped(float p, std::uint64_t stream, std::int64_t b, std::int64_t h,
                             std::int64_t i, std::int64_t j) const {
        if (dropP <= 0.0f) return p;
        const std::uint64_t index = std::uint64_t(((b * heads + h) * tokens + i) * tokens + j);
        return rng::dropoutKeep(stream, index, dropP) ? p * dropScale : 0.0f;
    }
};

// The stream of the draw a backward kernel reads from the saved RNG state (none: 0).
__device__ std::uint64_t savedStream(const FlashDims& g, const std::int64_t* rngState) {
    return g.dropP > 0.0f ? rng::dropoutStream(g.seed, g.opId, std::uint32_t(*rngState)) : 0;
}

// Keys and values j0 .. j0+bc-1 of KV head `kv` of one sample (`base`: its qkv rows) into the
// shared tiles, by all the block's threads (the caller synchronises around it).
template <typename T>
__device__ void loadKvTile(float* kt, float* vt, const T* base, std::int64_t j0, std::int64_t bc,
                           std::int64_t kv, const FlashDims& g) {
    const std::int64_t D = g.headDim, W = g.width();
    for (std::int64_t e = threadIdx.x; e < bc * D; e += blockDim.x) {
        const std::int64_t r = e / D, d = e % D;
        kt[e] = toFloat(base[(j0 + r) * W + (g.heads + kv) * D + d]);
        vt[e] = toFloat(base[(j0 + r) * W + (g.heads + g.kvHeads + kv) * D + d]);
    }
}

// Forward: block (x: query tile, y: b * heads + h).
template <typename T>
__global__ void flashForwardKernel(const T* qkv, T* out, float* lse, std::int64_t* rngState,
                                   std::uint32_t draw, FlashDims g) {
    extern __shared__ float tile[];  // K tile then V tile, kTile x headDim each
    const std::int64_t D = g.headDim, W = g.width(), T_ = g.tokens;
    const std::int64_t b = blockIdx.y / g.heads, h = blockIdx.y % g.heads, kv = h / g.group();
    const std::int64_t i = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x;
    const bool active = i < T_;
    float q[kMaxHeadDim], acc[kMaxHeadDim];
    const T* base = qkv + b * T_ * W;
    const std::uint64_t stream = g.dropP > 0.0f ? rng::dropoutStream(g.seed, g.opId, draw) : 0;
    if (rngState && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
        *rngState = std::int64_t(draw);
    if (active)
        for (std::int64_t d = 0; d < D; ++d) {
            q[d] = toFloat(base[i * W + h * D + d]);
            acc[d] = 0.0f;
        }
    float m = -INFINITY, l = 0.0f;
    // Keys this block needs: up to its last query under the causal mask.
    const std::int64_t lastRow = min(T_, std::int64_t(blockIdx.x + 1) * kRowsPerBlock) - 1;
    const std::int64_t keyEnd = g.causal ? lastRow + 1 : T_;
    float* kt = tile;
    float* vt = tile + kTile * D;
    for (std::int64_t j0 = 0; j0 < keyEnd; j0 += kTile) {
        const std::int64_t bc = min(std::int64_t(kTile), T_ - j0);
        __syncthreads();
        loadKvTile(kt, vt, base, j0, bc, kv, g);
        __syncthreads();
        if (!active) continue;
        for (std::int64_t r = 0; r < bc; ++r) {
            const std::int64_t j = j0 + r;
            if (g.causal && j > i) break;
            float s = 0.0f;
            for (std::int64_t d = 0; d < D; ++d) s += q[d] * kt[r * D + d];
            s *= g.scale;
            if (s > m) {
                const float rescale = expf(m - s);
                l *= rescale;
                for (std::int64_t d = 0; d < D; ++d) acc[d] *= rescale;
                m = s;
            }
            const float p = expf(s - m);
            l += p;
            const float pd = g.dropped(p, stream, b, h, i, j);
            for (std::int64_t d = 0; d < D; ++d) acc[d] += pd * vt[r * D + d];
        }
    }
    if (!active) return;
    const float inv = 1.0f / l;
    T* o = out + (b * T_ + i) * g.heads * D + h * D;
    for (std::int64_t d = 0; d < D; ++d) o[d] = fromFloat<T>(acc[d] * inv);
    lse[(b * g.heads + h) * T_ + i] = m + logf(l);
}

// Backward, dQ: block (x: query tile, y: b * heads + h).
template <typename T>
__global__ void flashBackwardDqKernel(const T* qkv, const T* out, const float* lse,
                                      const std::int64_t* rngState, const T* dOut, T* dQkv,
                                      FlashDims g) {
    extern __shared__ float tile[];
    const std::int64_t D = g.headDim, W = g.width(), T_ = g.tokens, HD = g.heads * D;
    const std::int64_t b = blockIdx.y / g.heads, h = blockIdx.y % g.heads, kv = h / g.group();
    const std::int64_t i = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x;
    const bool active = i < T_;
    float q[kMaxHeadDim], dO[kMaxHeadDim], dq[kMaxHeadDim];
    const T* base = qkv + b * T_ * W;
    const std::uint64_t stream = savedStream(g, rngState);
    float delta = 0.0f, rowLse = 0.0f;
    if (active) {
        for (std::int64_t d = 0; d < D; ++d) {
            q[d] = toFloat(base[i * W + h * D + d]);
            dO[d] = toFloat(dOut[(b * T_ + i) * HD + h * D + d]);
            delta += dO[d] * toFloat(out[(b * T_ + i) * HD + h * D + d]);
            dq[d] = 0.0f;
        }
        rowLse = lse[(b * g.heads + h) * T_ + i];
    }
    const std::int64_t lastRow = min(T_, std::int64_t(blockIdx.x + 1) * kRowsPerBlock) - 1;
    const std::int64_t keyEnd = g.causal ? lastRow + 1 : T_;
    float* kt = tile;
    float* vt = tile + kTile * D;
    for (std::int64_t j0 = 0; j0 < keyEnd; j0 += kTile) {
        const std::int64_t bc = min(std::int64_t(kTile), T_ - j0);
        __syncthreads();
        loadKvTile(kt, vt, base, j0, bc, kv, g);
        __syncthreads();
        if (!active) continue;
        for (std::int64_t r = 0; r < bc; ++r) {
            const std::int64_t j = j0 + r;
            if (g.causal && j > i) break;
            float s = 0.0f, dp = 0.0f;
            for (std::int64_t d = 0; d < D; ++d) {
                s += q[d] * kt[r * D + d];
                dp += dO[d] * vt[r * D + d];
            }
            const float p = expf(s * g.scale - rowLse);
            dp = g.dropped(dp, stream, b, h, i, j);
            const float ds = p * (dp - delta) * g.scale;
            for (std::int64_t d = 0; d < D; ++d) dq[d] += ds * kt[r * D + d];
        }
    }
    if (!active) return;
    T* dst = dQkv + (b * T_ + i) * W + h * D;
    for (std::int64_t d = 0; d < D; ++d) dst[d] = fromFloat<T>(toFloat(dst[d]) + dq[d]);
}

// Backward, dK and dV: block (x: key tile, y: b * kvHeads + kv). The streamed tile holds, per
// query row, q, dO and (in the last float) delta - the softmax term - computed by the loader.
template <typename T>
__global__ void flashBackwardDkvKernel(const T* qkv, const T* out, const float* lse,
                                       const std::int64_t* rngState, const T* dOut, T* dQkv,
                                       FlashDims g) {
    extern __shared__ float tile[];  // kTile rows of [q (D), dO (D)], then kTile lse, kTile delta
    const std::int64_t D = g.headDim, W = g.width(), T_ = g.tokens, HD = g.heads * D;
    const std::int64_t b = blockIdx.y / g.kvHeads, kv = blockIdx.y % g.kvHeads;
    const std::int64_t j = std::int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x;
    const bool active = j < T_;
    float k[kMaxHeadDim], v[kMaxHeadDim], dk[kMaxHeadDim], dv[kMaxHeadDim];
    const T* base = qkv + b * T_ * W;
    const std::uint64_t stream = savedStream(g, rngState);
    if (active)
        for (std::int64_t d = 0; d < D; ++d) {
            k[d] = toFloat(base[j * W + (g.heads + kv) * D + d]);
            v[d] = toFloat(base[j * W + (g.heads + g.kvHeads + kv) * D + d]);
            dk[d] = dv[d] = 0.0f;
        }
    float* qt = tile;
    float* dot = tile + kTile * D;
    float* lt = tile + 2 * kTile * D;
    float* delt = lt + kTile;
    // Queries this block needs: from its first key on under the causal mask.
    const std::int64_t firstKey = std::int64_t(blockIdx.x) * kRowsPerBlock;
    const std::int64_t queryBegin = g.causal ? (firstKey / kTile) * kTile : 0;
    for (std::int64_t h = kv * g.group(); h < (kv + 1) * g.group(); ++h) {
        for (std::int64_t i0 = queryBegin; i0 < T_; i0 += kTile) {
            const std::int64_t br = min(std::int64_t(kTile), T_ - i0);
            __syncthreads();
            for (std::int64_t e = threadIdx.x; e < br * D; e += blockDim.x) {
                const std::int64_t r = e / D, d = e % D;
                qt[e] = toFloat(base[(i0 + r) * W + h * D + d]);
                dot[e] = toFloat(dOut[(b * T_ + i0 + r) * HD + h * D + d]);
            }
            for (std::int64_t r = threadIdx.x; r < br; r += blockDim.x) {
                lt[r] = lse[(b * g.heads + h) * T_ + i0 + r];
                float s = 0.0f;
                for (std::int64_t d = 0; d < D; ++d)
                    s += toFloat(dOut[(b * T_ + i0 + r) * HD + h * D + d]) *
                         toFloat(out[(b * T_ + i0 + r) * HD + h * D + d]);
                delt[r] = s;
            }
            __syncthreads();
            if (!active) continue;
            for (std::int64_t r = 0; r < br; ++r) {
                const std::int64_t i = i0 + r;
                if (g.causal && j > i) continue;
                float s = 0.0f, dp = 0.0f;
                for (std::int64_t d = 0; d < D; ++d) {
                    s += qt[r * D + d] * k[d];
                    dp += dot[r * D + d] * v[d];
                }
                const float p = expf(s * g.scale - lt[r]);
                const float pd = g.dropped(p, stream, b, h, i, j);
                dp = g.dropped(dp, stream, b, h, i, j);
                const float ds = p * (dp - delt[r]) * g.scale;
                for (std::int64_t d = 0; d < D; ++d) {
                    dv[d] += pd * dot[r * D + d];
                    dk[d] += ds * qt[r * D + d];
                }
            }
        }
    }
    if (!active) return;
    T* row = dQkv + (b * T_ + j) * W;
    for (std::int64_t d = 0; d < D; ++d) {
        T& kd = row[(g.heads + kv) * D + d];
        T& vd = row[(g.heads + g.kvHeads + kv) * D + d];
        kd = fromFloat<T>(toFloat(kd) + dk[d]);
        vd = fromFloat<T>(toFloat(vd) + dv[d]);
    }
}

FlashDims dims(const AttnShape& a, const FlashDropout& drop) {
    REMAT_REQUIRE(a.tokens > 0 && a.heads > 0 && a.kvHeads > 0 && a.heads % a.kvHeads == 0 &&
                      a.headDim > 0,
                  "flash attention: invalid heads/tokens attributes");
    REMAT_REQUIRE(a.headDim <= kMaxHeadDim,
                  "flash attention: head dimension " + std::to_string(a.headDim) +
                      " is above the kernel's " + std::to_string(kMaxHeadDim));
    REMAT_REQUIRE(drop.p >= 0.0f && drop.p < 1.0f,
                  "flash attention: dropout probability outside [0, 1)");
    return FlashDims{a.batch,
                     a.tokens,
                     a.heads,
                     a.kvHeads,
                     a.headDim,
                     a.causal,
                     1.0f / sqrtf(float(a.headDim)),
                     drop.p,
                     drop.p > 0.0f ? rng::dropoutScale(drop.p) : 1.0f,
                     drop.seed,
                     drop.opId};
}

unsigned tilesOf(std::int64_t tokens) {
    return unsigned((tokens + kRowsPerBlock - 1) / kRowsPerBlock);
}

}  // namespace

void flashAttnForward(DType t, const void* qkv, void* out, float* lse, std::int64_t* rngState,
                      const AttnShape& a, const FlashDropout& drop, cudaStream_t s) {
    if (a.batch == 0) return;
    const FlashDims g = dims(a, drop);
    REMAT_REQUIRE(qkv && out && lse, "flashAttnForward operands");
    REMAT_REQUIRE(drop.p <= 0.0f || rngState, "flashAttnForward: dropout without its RNG state");
    const dim3 grid(tilesOf(a.tokens), unsigned(a.batch * a.heads));
    const std::size_t shared = 2 * kTile * std::size_t(a.headDim) * sizeof(float);
    dispatchFloat(t, "flashAttnForward", [&](auto tag) {
        using T = decltype(tag);
        flashForwardKernel<T><<<grid, kRowsPerBlock, shared, s>>>(
            static_cast<const T*>(qkv), static_cast<T*>(out), lse, rngState, drop.draw, g);
    });
    REMAT_LAUNCH_CHECK("flashForwardKernel");
}

void flashAttnBackward(DType t, const void* qkv, const void* out, const float* lse,
                       const std::int64_t* rngState, const void* dOut, void* dQkv,
                       const AttnShape& a, const FlashDropout& drop, cudaStream_t s) {
    if (a.batch == 0 || !dQkv || !dOut) return;
    const FlashDims g = dims(a, drop);
    REMAT_REQUIRE(qkv && out && lse, "flashAttnBackward operands");
    REMAT_REQUIRE(drop.p <= 0.0f || rngState, "flashAttnBackward: dropout without its RNG state");
    const std::size_t dqShared = 2 * kTile * std::size_t(a.headDim) * sizeof(float);
    const std::size_t dkvShared = (2 * kTile * std::size_t(a.headDim) + 2 * kTile) * sizeof(float);
    dispatchFloat(t, "flashAttnBackward", [&](auto tag) {
        using T = decltype(tag);
        flashBackwardDqKernel<T>
            <<<dim3(tilesOf(a.tokens), unsigned(a.batch * a.heads)), kRowsPerBlock, dqShared, s>>>(
                static_cast<const T*>(qkv), static_cast<const T*>(out), lse, rngState,
                static_cast<const T*>(dOut), static_cast<T*>(dQkv), g);
    });
    REMAT_LAUNCH_CHECK("flashBackwardDqKernel");
    dispatchFloat(t, "flashAttnBackward", [&](auto tag) {
        using T = decltype(tag);
        flashBackwardDkvKernel<T>
            <<<dim3(tilesOf(a.tokens), unsigned(a.batch * a.kvHeads)), kRowsPerBlock, dkvShared, s>>>(
                static_cast<const T*>(qkv), static_cast<const T*>(out), lse, rngState,
                static_cast<const T*>(dOut), static_cast<T*>(dQkv), g);
    });
    REMAT_LAUNCH_CHECK("flashBackwardDkvKernel");
}

}  // namespace remat::gpu::cuda
