// The GEMMs of the linear layer and of eager attention, planned on the host as plain data: for
// each cuBLAS call, which operands (by role), at which element offsets, with which leading
// dimensions, strides, transposes and batch count. attention.cu and gemm.cu execute a plan
// with cublasGemmEx / cublasGemmStridedBatchedEx; a test executes the same plan with a host
// GEMM and compares with the CPU reference backend, which checks the index arithmetic — the
// part of the CUDA backend most likely to be wrong — on machines without a GPU. No CUDA header
// is included.
//
// cuBLAS is column-major: a row-major [r, c] matrix with row stride ld is a column-major
// [c, r] matrix with leading dimension ld. Every plan below is written in those terms.
#pragma once

#include <cstdint>
#include <vector>

namespace remat::gpu::cuda {

// Per sample, qkv is [tokens, (heads + 2 kvHeads) headDim]: Q columns first (head h at
// h*headDim), then K, then V. Expanded K/V are [heads, tokens, headDim]; scores and
// probabilities [heads, tokens, tokens]; the context output [tokens, heads headDim].
struct AttnShape {
    std::int64_t batch = 1, tokens = 0, heads = 0, kvHeads = 0, headDim = 0;
    bool causal = false;
};

enum class GemmOperand : int {
    Qkv,       // attention: the qkv activation (Q, and K/V when not expanded)
    KExp,      // expanded K
    VExp,      // expanded V
    Scores,    // scores S (forward output)
    DScores,   // gradient of S
    Probs,     // probabilities P (after softmax and dropout)
    DProbs,    // gradient of P
    Context,   // context output Y
    DContext,  // gradient of Y
    DQkv,      // gradient of qkv
    DKExp,     // gradient of expanded K
    DVExp,     // gradient of expanded V
    X,         // linear: input [rows, in]
    W,         // linear: weight [out, in]
    Y,         // linear: output [rows, out]
    DX,
    DW,
    DY,
    Columns,   // convolution: one sample's im2col columns (conv_plan.h)
    DColumns,  // convolution: their gradient, scattered into DX by col2im
    Count
};
inline constexpr int kGemmOperandCount = int(GemmOperand::Count);

struct GemmMatrix {
    GemmOperand operand = GemmOperand::Qkv;
    std::int64_t offset = 0;  // elements from the operand's start to batch entry 0
    std::int64_t ld = 0;      // leading dimension (elements)
    std::int64_t stride = 0;  // elements between batch entries
};

// C = alpha op(A) op(B) + beta C, column-major, op(A) m x k, op(B) k x n, C m x n, for `batch`
// entries (batch 1: a plain GEMM).
struct GemmCall {
    bool transA = false, transB = false;
    std::int64_t m = 0, n = 0, k = 0;
    float alpha = 1.0f, beta = 0.0f;
    GemmMatrix a, b, c;
    std::int64_t batch = 1;
};

// Linear x [rows, in] . W[out, in]^T (+ b, added by the caller before, with beta = 1).
std::vector<GemmCall> linearForwardGemms(std::int64_t rows, std::int64_t in, std::int64_t out,
                                         bool accumulate);
// dX += dY W; dW += dY^T X (each only when wanted).
std::vector<GemmCall> linearBackwardGemms(std::int64_t rows, std::int64_t in, std::int64_t out,
                                          bool wantDx, bool wantDw);

// S = Q K^T / sqrt(D) per head (the causal mask is a separate kernel).
std::vector<GemmCall> attnScoresForwardGemms(const AttnShape& s, bool kExpanded);
// dQ += dS K / sqrt(D) into DQkv; dK += dS^T Q / sqrt(D) into DKExp or the K columns of DQkv.
std::vector<GemmCall> attnScoresBackwardGemms(const AttnShape& s, bool kExpanded, bool wantDq,
                                              bool wantDk);
// Y = P V per head, heads merged into Y's columns.
std::vector<GemmCall> attnContextForwardGemms(const AttnShape& s, bool vExpanded);
// dP += dY V^T; dV += P^T dY into DVExp or the V columns of DQkv.
std::vector<GemmCall> attnContextBackwardGemms(const AttnShape& s, bool vExpanded, bool wantDp,
                                               bool wantDv);

// Why a shape cannot be planned, or empty.
const char* attnShapeProblem(const AttnShape& s);

}  // namespace remat::gpu::cuda
