// Eager attention on cuBLAS: scores S = Q K^T / sqrt(D) with the causal mask, context
// Y = P V with heads merged, both directions, plus the grouped-KV expansion (repeat_interleave
// of K and V per query head) and its reduction. Heads are never copied out of the qkv tensor:
// a head is a column-major [D, T] matrix with leading dimension (H + 2 KV) D, so each product
// is one cublasGemmStridedBatchedEx per sample, batched over heads, and the context's head
// merge is the output's leading dimension H D.
//
// Without an expansion (kExp / vExp null) a kv head serves H / KV query heads; the heads of one
// group then run as separate batches in order, so gradients summed into a shared kv head are
// accumulated deterministically rather than raced.

#include <cmath>

#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

// ---- kernels -------------------------------------------------------------------------------

template <typename T>
__global__ void causalMaskKernel(T* scores, std::int64_t n, std::int64_t tokens) {
    for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < n;
         idx += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t j = idx % tokens, i = (idx / tokens) % tokens;
        if (j > i) scores[idx] = fromFloat<T>(-INFINITY);
    }
}

// K_exp[b, h, t, :] = K[b, t, h / g, :], and the same for V.
template <typename T>
__global__ void expandKvForwardKernel(const T* qkv, T* kExp, T* vExp, std::int64_t batch,
                                      std::int64_t tokens, std::int64_t heads,
                                      std::int64_t kvHeads, std::int64_t headDim) {
    const std::int64_t width = (heads + 2 * kvHeads) * headDim;
    const std::int64_t group = heads / kvHeads;
    const std::int64_t n = batch * heads * tokens * headDim;
    for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < n;
         idx += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t d = idx % headDim;
        const std::int64_t t = (idx / headDim) % tokens;
        const std::int64_t h = (idx / (headDim * tokens)) % heads;
        const std::int64_t b = idx / (headDim * tokens * heads);
        const T* row = qkv + (b * tokens + t) * width;
        const std::int64_t kv = h / group;
        kExp[idx] = row[(heads + kv) * headDim + d];
        vExp[idx] = row[(heads + kvHeads + kv) * headDim + d];
    }
}

// dK[b, t, kv, :] += sum over the group's heads r of dK_exp[b, kv g + r, t, :], in head order.
template <typename T>
__global__ void expandKvBackwardKernel(const T* dKExp, const T* dVExp, T* dQkv,
                                       std::int64_t batch, std::int64_t tokens,
                                       std::int64_t heads, std::int64_t kvHeads,
                                       std::int64_t headDim) {
    const std::int64_t width = (heads + 2 * kvHeads) * headDim;
    const std::int64_t group = heads / kvHeads;
    const std::int64_t n = batch * tokens * kvHeads * headDim;
    for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < n;
         idx += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t d = idx % headDim;
        const std::int64_t kv = (idx / headDim) % kvHeads;
        const std::int64_t t = (idx / (headDim * kvHeads)) % tokens;
        const std::int64_t b = idx / (headDim * kvHeads * tokens);
        float sk = 0.0f, sv = 0.0f;
        for (std::int64_t r = 0; r < group; ++r) {
            const std::int64_t e = ((b * heads + kv * group + r) * tokens + t) * headDim + d;
            if (dKExp) sk += toFloat(dKExp[e]);
            if (dVExp) sv += toFloat(dVExp[e]);
        }
        T* row = dQkv + (b * tokens + t) * width;
        T& k = row[(heads + kv) * headDim + d];
        T& v = row[(heads + kvHeads + kv) * headDim + d];
        if (dKExp) k = fromFloat<T>(toFloat(k) + sk);
        if (dVExp) v = fromFloat<T>(toFloat(v) + sv);
    }
}

// ---- layout of one sample's heads ------------------------------------------------------------

// Where K (or V) of head-batch entry k lives for sample b, and how query heads map to it: the
// expanded tensor has one [T, D] block per query head; the qkv tensor one column block per kv
// head shared by `group` query heads.
struct KvSource {
    const char* base = nullptr;  // sample 0, kv entry 0
    std::int64_t ld = 0;         // leading dimension (elements)
    std::int64_t headStride = 0; // between kv entries (elements)
    std::int64_t sampleStride = 0;
    std::int64_t entries = 0;    // kv entries per sample
    std::int64_t group = 1;      // query heads per kv entry
};

struct Layout {
    std::int64_t es = 0;     // element bytes
    std::int64_t width = 0;  // (H + 2 KV) D
    std::int64_t t = 0, h = 0, kv = 0, d = 0, b = 0;
};

Layout layoutOf(DType t, const AttnShape& a) {
    REMAT_REQUIRE(a.batch >= 0 && a.tokens > 0 && a.heads > 0 && a.kvHeads > 0 && a.headDim > 0,
                  "attention: shape");
    REMAT_REQUIRE(a.heads % a.kvHeads == 0, "attention: heads must be a multiple of kv heads");
    return {dtypeBytes(t), (a.heads + 2 * a.kvHeads) * a.headDim, a.tokens, a.heads, a.kvHeads,
            a.headDim, a.batch};
}

// `which` 0 = K, 1 = V.
KvSource kvSource(const Layout& l, const void* qkv, const void* expanded, int which) {
    KvSource s;
    if (expanded) {
        s.base = static_cast<const char*>(expanded);
        s.ld = l.d;
        s.headStride = l.t * l.d;
        s.sampleStride = l.h * l.t * l.d;
        s.entries = l.h;
        s.group = 1;
    } else {
        s.base = static_cast<const char*>(qkv) + (l.h + which * l.kv) * l.d * l.es;
        s.ld = l.width;
        s.headStride = l.d;
        s.sampleStride = l.t * l.width;
        s.entries = l.kv;
        s.group = l.h / l.kv;
    }
    return s;
}

// Calls f(sample b, group member r) for every batched product, samples and group members in
// order; the query head of kv entry k and member r is k * group + r.
template <typename F>
void forEachBatch(const Layout& l, const KvSource& src, F&& f) {
    for (std::int64_t b = 0; b < l.b; ++b)
        for (std::int64_t r = 0; r < src.group; ++r) f(b, r);
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void attnScoresForward(cublasHandle_t hd, DType t, const void* qkv, const void* kExp,
                       void* scores, const AttnShape& a, cudaStream_t s) {
    const Layout l = layoutOf(t, a);
    if (l.b == 0) return;
    REMAT_REQUIRE(qkv && scores, "attnScoresForward operands");
    const KvSource k = kvSource(l, qkv, kExp, 0);
    const float scale = 1.0f / std::sqrt(float(l.d));
    const char* q = static_cast<const char*>(qkv);
    char* sc = static_cast<char*>(scores);
    // Column-major: S^T[j, i] = sum_d K[j, d] Q[i, d]  (A = K^T stored [D, T], transposed).
    forEachBatch(l, k, [&](std::int64_t b, std::int64_t r) {
        gemmStridedBatched(hd, t, true, false, l.t, l.t, l.d, scale,
                           k.base + (b * k.sampleStride) * l.es, k.ld, k.headStride,
                           q + (b * l.t * l.width + r * l.d) * l.es, l.width, k.group * l.d, 0.0f,
                           sc + ((b * l.h + r) * l.t * l.t) * l.es, l.t, k.group * l.t * l.t,
                           k.entries);
    });
    if (a.causal) {
        const std::int64_t n = l.b * l.h * l.t * l.t;
        dispatchFloat(t, "causalMask", [&](auto tag) {
            using T = decltype(tag);
            causalMaskKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(static_cast<T*>(scores), n,
                                                                      l.t);
        });
        REMAT_LAUNCH_CHECK("causalMaskKernel");
    }
}

void attnScoresBackward(cublasHandle_t hd, DType t, const void* qkv, const void* kExp,
                        const void* dScores, void* dQkv, void* dKExp, const AttnShape& a,
                        cudaStream_t) {
    const Layout l = layoutOf(t, a);
    if (l.b == 0) return;
    REMAT_REQUIRE(qkv && dScores, "attnScoresBackward operands");
    const KvSource k = kvSource(l, qkv, kExp, 0);
    const float scale = 1.0f / std::sqrt(float(l.d));
    const char* q = static_cast<const char*>(qkv);
    const char* ds = static_cast<const char*>(dScores);
    // dQ^T[d, i] += scale sum_j K^T[d, j] dS^T[j, i]   (B = dS stored as [T(j), T(i)]).
    if (dQkv) {
        char* dq = static_cast<char*>(dQkv);
        forEachBatch(l, k, [&](std::int64_t b, std::int64_t r) {
            gemmStridedBatched(hd, t, false, false, l.d, l.t, l.t, scale,
                               k.base + (b * k.sampleStride) * l.es, k.ld, k.headStride,
                               ds + ((b * l.h + r) * l.t * l.t) * l.es, l.t, k.group * l.t * l.t,
                               1.0f, dq + (b * l.t * l.width + r * l.d) * l.es, l.width,
                               k.group * l.d, k.entries);
        });
    }
    // dK^T[d, j] += scale sum_i Q^T[d, i] dS[i, j]   (B = dS^T stored, transposed on use).
    void* dkTarget = kExp ? dKExp : dQkv;
    if (dkTarget) {
        const KvSource dk = kvSource(l, dkTarget, kExp ? dKExp : nullptr, 0);
        char* dkBase = const_cast<char*>(dk.base);
        forEachBatch(l, k, [&](std::int64_t b, std::int64_t r) {
            gemmStridedBatched(hd, t, false, true, l.d, l.t, l.t, scale,
                               q + (b * l.t * l.width + r * l.d) * l.es, l.width, k.group * l.d,
                               ds + ((b * l.h + r) * l.t * l.t) * l.es, l.t, k.group * l.t * l.t,
                               1.0f, dkBase + (b * dk.sampleStride) * l.es, dk.ld, dk.headStride,
                               k.entries);
        });
    }
}

void attnContextForward(cublasHandle_t hd, DType t, const void* probs, const void* qkv,
                        const void* vExp, void* y, const AttnShape& a, cudaStream_t) {
    const Layout l = layoutOf(t, a);
    if (l.b == 0) return;
    REMAT_REQUIRE(probs && (qkv || vExp) && y, "attnContextForward operands");
    const KvSource v = kvSource(l, qkv, vExp, 1);
    const char* p = static_cast<const char*>(probs);
    char* out = static_cast<char*>(y);
    const std::int64_t outWidth = l.h * l.d;
    // Y^T[d, i] = sum_j V^T[d, j] P^T[j, i]   (P stored [T(j), T(i)] column-major).
    forEachBatch(l, v, [&](std::int64_t b, std::int64_t r) {
        gemmStridedBatched(hd, t, false, false, l.d, l.t, l.t, 1.0f,
                           v.base + (b * v.sampleStride) * l.es, v.ld, v.headStride,
                           p + ((b * l.h + r) * l.t * l.t) * l.es, l.t, v.group * l.t * l.t, 0.0f,
                           out + (b * l.t * outWidth + r * l.d) * l.es, outWidth, v.group * l.d,
                           v.entries);
    });
}

void attnContextBackward(cublasHandle_t hd, DType t, const void* probs, const void* qkv,
                         const void* vExp, const void* dy, void* dProbs, void* dQkv,
                         void* dVExp, const AttnShape& a, cudaStream_t) {
    const Layout l = layoutOf(t, a);
    if (l.b == 0) return;
    REMAT_REQUIRE(probs && (qkv || vExp) && dy, "attnContextBackward operands");
    const KvSource v = kvSource(l, qkv, vExp, 1);
    const char* p = static_cast<const char*>(probs);
    const char* g = static_cast<const char*>(dy);
    const std::int64_t outWidth = l.h * l.d;
    // dP^T[j, i] += sum_d V[j, d] dY^T[d, i]   (A = V^T stored [D, T], transposed).
    if (dProbs) {
        char* dp = static_cast<char*>(dProbs);
        forEachBatch(l, v, [&](std::int64_t b, std::int64_t r) {
            gemmStridedBatched(hd, t, true, false, l.t, l.t, l.d, 1.0f,
                               v.base + (b * v.sampleStride) * l.es, v.ld, v.headStride,
                               g + (b * l.t * outWidth + r * l.d) * l.es, outWidth, v.group * l.d,
                               1.0f, dp + ((b * l.h + r) * l.t * l.t) * l.es, l.t,
                               v.group * l.t * l.t, v.entries);
        });
    }
    // dV^T[d, j] += sum_i dY^T[d, i] P[i, j]   (B = P^T stored, transposed on use).
    void* dvTarget = vExp ? dVExp : dQkv;
    if (dvTarget) {
        const KvSource dv = kvSource(l, dvTarget, vExp ? dVExp : nullptr, 1);
        char* dvBase = const_cast<char*>(dv.base);
        forEachBatch(l, v, [&](std::int64_t b, std::int64_t r) {
            gemmStridedBatched(hd, t, false, true, l.d, l.t, l.t, 1.0f,
                               g + (b * l.t * outWidth + r * l.d) * l.es, outWidth, v.group * l.d,
                               p + ((b * l.h + r) * l.t * l.t) * l.es, l.t, v.group * l.t * l.t,
                               1.0f, dvBase + (b * dv.sampleStride) * l.es, dv.ld, dv.headStride,
                               v.entries);
        });
    }
}

void expandKvForward(DType t, const void* qkv, void* kExp, void* vExp, const AttnShape& a,
                     cudaStream_t s) {
    const Layout l = layoutOf(t, a);
    if (l.b == 0) return;
    REMAT_REQUIRE(qkv && kExp && vExp, "expandKvForward operands");
    const std::int64_t n = l.b * l.h * l.t * l.d;
    dispatchFloat(t, "expandKvForward", [&](auto tag) {
        using T = decltype(tag);
        expandKvForwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(qkv), static_cast<T*>(kExp), static_cast<T*>(vExp), l.b, l.t,
            l.h, l.kv, l.d);
    });
    REMAT_LAUNCH_CHECK("expandKvForwardKernel");
}

void expandKvBackward(DType t, const void* dKExp, const void* dVExp, void* dQkv,
                      const AttnShape& a, cudaStream_t s) {
    const Layout l = layoutOf(t, a);
    if (l.b == 0 || !dQkv || (!dKExp && !dVExp)) return;
    const std::int64_t n = l.b * l.t * l.kv * l.d;
    dispatchFloat(t, "expandKvBackward", [&](auto tag) {
        using T = decltype(tag);
        expandKvBackwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(dKExp), static_cast<const T*>(dVExp), static_cast<T*>(dQkv),
            l.b, l.t, l.h, l.kv, l.d);
    });
    REMAT_LAUNCH_CHECK("expandKvBackwardKernel");
}

}  // namespace remat::gpu::cuda
