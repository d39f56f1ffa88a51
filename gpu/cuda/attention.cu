// Eager attention: scores S = Q K^T / sqrt(D) with the causal mask, context Y = P V with heads
// merged, both directions, as cuBLAS strided-batched GEMMs planned in gemm_plan.cpp (heads are
// never copied out of the qkv tensor: a head is a column-major [D, T] matrix with leading
// dimension (H + 2 KV) D, and the context's head merge is the output's leading dimension H D);
// plus the kernels around them: the causal mask, and the grouped-KV expansion
// (repeat_interleave of K and V per query head) with its deterministic reduction.

#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

// ---- kernels -------------------------------------------------------------------------------

// One block per score row (b, h, i): only its masked tail j > i is written.
template <typename T>
__global__ void causalMaskKernel(T* scores, std::int64_t rows, std::int64_t tokens) {
    for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const std::int64_t i = row % tokens;
        T* s = scores + row * tokens;
        for (std::int64_t j = i + 1 + threadIdx.x; j < tokens; j += blockDim.x)
            s[j] = fromFloat<T>(-INFINITY);
    }
}

// K_exp[b, h, t, :] = K[b, t, h / g, :], and the same for V.
template <typename T>
__global__ void expandKvForwardKernel(const T* qkv, T* kExp, T* vExp, std::int64_t batch,
                                      std::int64_t tokens, std::int64_t heads, std::int64_t kvHeads,
                                      std::int64_t headDim) {
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
__global__ void expandKvBackwardKernel(const T* dKExp, const T* dVExp, T* dQkv, std::int64_t batch,
                                       std::int64_t tokens, std::int64_t heads,
                                       std::int64_t kvHeads, std::int64_t headDim) {
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

void requireShape(const AttnShape& a) {
    const char* problem = attnShapeProblem(a);
    REMAT_REQUIRE(problem == nullptr, std::string("attention: ") + (problem ? problem : ""));
}

void* mut(const void* p) {
    return const_cast<void*>(p);
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void attnScoresForward(cublasHandle_t hd, DType t, const void* qkv, const void* kExp, void* scores,
                       const AttnShape& a, cudaStream_t s) {
    requireShape(a);
    if (a.batch == 0) return;
    REMAT_REQUIRE(qkv && scores, "attnScoresForward operands");
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::Qkv)] = mut(qkv);
    ops[std::size_t(GemmOperand::KExp)] = mut(kExp);
    ops[std::size_t(GemmOperand::Scores)] = scores;
    runGemms(hd, t, attnScoresForwardGemms(a, kExp != nullptr), ops);
    if (a.causal) {
        const std::int64_t rows = a.batch * a.heads * a.tokens;
        dispatchFloat(t, "causalMask", [&](auto tag) {
            using T = decltype(tag);
            causalMaskKernel<T>
                <<<rowGrid(rows), kBlock, 0, s>>>(static_cast<T*>(scores), rows, a.tokens);
        });
        REMAT_LAUNCH_CHECK("causalMaskKernel");
    }
}

void attnScoresBackward(cublasHandle_t hd, DType t, const void* qkv, const void* kExp,
                        const void* dScores, void* dQkv, void* dKExp, const AttnShape& a,
                        cudaStream_t) {
    requireShape(a);
    if (a.batch == 0) return;
    REMAT_REQUIRE(qkv && dScores, "attnScoresBackward operands");
    // Masked entries need no special case: softmax's backward gave them a zero gradient.
    const bool expanded = kExp != nullptr;
    const bool wantDk = expanded ? dKExp != nullptr : dQkv != nullptr;
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::Qkv)] = mut(qkv);
    ops[std::size_t(GemmOperand::KExp)] = mut(kExp);
    ops[std::size_t(GemmOperand::DScores)] = mut(dScores);
    ops[std::size_t(GemmOperand::DQkv)] = dQkv;
    ops[std::size_t(GemmOperand::DKExp)] = dKExp;
    runGemms(hd, t, attnScoresBackwardGemms(a, expanded, dQkv != nullptr, wantDk), ops);
}

void attnContextForward(cublasHandle_t hd, DType t, const void* probs, const void* qkv,
                        const void* vExp, void* y, const AttnShape& a, cudaStream_t) {
    requireShape(a);
    if (a.batch == 0) return;
    REMAT_REQUIRE(probs && (qkv || vExp) && y, "attnContextForward operands");
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::Probs)] = mut(probs);
    ops[std::size_t(GemmOperand::Qkv)] = mut(qkv);
    ops[std::size_t(GemmOperand::VExp)] = mut(vExp);
    ops[std::size_t(GemmOperand::Context)] = y;
    runGemms(hd, t, attnContextForwardGemms(a, vExp != nullptr), ops);
}

void attnContextBackward(cublasHandle_t hd, DType t, const void* probs, const void* qkv,
                         const void* vExp, const void* dy, void* dProbs, void* dQkv, void* dVExp,
                         const AttnShape& a, cudaStream_t) {
    requireShape(a);
    if (a.batch == 0) return;
    REMAT_REQUIRE(probs && (qkv || vExp) && dy, "attnContextBackward operands");
    const bool expanded = vExp != nullptr;
    const bool wantDv = expanded ? dVExp != nullptr : dQkv != nullptr;
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::Probs)] = mut(probs);
    ops[std::size_t(GemmOperand::Qkv)] = mut(qkv);
    ops[std::size_t(GemmOperand::VExp)] = mut(vExp);
    ops[std::size_t(GemmOperand::DContext)] = mut(dy);
    ops[std::size_t(GemmOperand::DProbs)] = dProbs;
    ops[std::size_t(GemmOperand::DQkv)] = dQkv;
    ops[std::size_t(GemmOperand::DVExp)] = dVExp;
    runGemms(hd, t, attnContextBackwardGemms(a, expanded, dProbs != nullptr, wantDv), ops);
}

void expandKvForward(DType t, const void* qkv, void* kExp, void* vExp, const AttnShape& a,
                     cudaStream_t s) {
    requireShape(a);
    if (a.batch == 0) return;
    REMAT_REQUIRE(qkv && kExp && vExp, "expandKvForward operands");
    const std::int64_t n = a.batch * a.heads * a.tokens * a.headDim;
    dispatchFloat(t, "expandKvForward", [&](auto tag) {
        using T = decltype(tag);
        expandKvForwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(qkv), static_cast<T*>(kExp), static_cast<T*>(vExp), a.batch,
            a.tokens, a.heads, a.kvHeads, a.headDim);
    });
    REMAT_LAUNCH_CHECK("expandKvForwardKernel");
}

void expandKvBackward(DType t, const void* dKExp, const void* dVExp, void* dQkv, const AttnShape& a,
                      cudaStream_t s) {
    requireShape(a);
    if (a.batch == 0 || !dQkv || (!dKExp && !dVExp)) return;
    const std::int64_t n = a.batch * a.tokens * a.kvHeads * a.headDim;
    dispatchFloat(t, "expandKvBackward", [&](auto tag) {
        using T = decltype(tag);
        expandKvBackwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(dKExp), static_cast<const T*>(dVExp), static_cast<T*>(dQkv),
            a.batch, a.tokens, a.heads, a.kvHeads, a.headDim);
    });
    REMAT_LAUNCH_CHECK("expandKvBackwardKernel");
}

}  // namespace remat::gpu::cuda
