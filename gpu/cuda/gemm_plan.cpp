// The GEMM plans of gemm_plan.h. Each attention plan is one strided-batched call per sample and
// per member of a kv group: without an expansion, H / KV query heads share a kv head, and
// running the group's members as separate calls in order keeps the gradients summed into a
// shared kv head deterministic (a batched call writing one C twice would race).

#include "gemm_plan.h"

#include <cmath>

namespace remat::gpu::cuda {

namespace {

using Op = GemmOperand;

// Where K (which = 0) or V (which = 1) of kv entry k lives for sample 0, and how query heads
// map onto entries: the expanded tensor has one [T, D] block per query head; qkv one column
// block per kv head, shared by `group` query heads.
struct KvLayout {
    std::int64_t offset = 0;  // to entry 0 of sample 0
    std::int64_t ld = 0;
    std::int64_t entryStride = 0;   // between kv entries
    std::int64_t sampleStride = 0;  // between samples
    std::int64_t entries = 0;
    std::int64_t group = 1;  // query heads per entry
};

struct Dims {
    std::int64_t t, h, kv, d, width, outWidth;
};

Dims dimsOf(const AttnShape& s) {
    return {
        s.tokens,           s.heads, s.kvHeads, s.headDim, (s.heads + 2 * s.kvHeads) * s.headDim,
        s.heads * s.headDim};
}

KvLayout kvLayout(const Dims& d, bool expanded, int which) {
    if (expanded) return {0, d.d, d.t * d.d, d.h * d.t * d.d, d.h, 1};
    return {(d.h + which * d.kv) * d.d, d.width, d.d, d.t * d.width, d.kv, d.h / d.kv};
}

float scaleOf(const AttnShape& s) {
    return 1.0f / std::sqrt(float(s.headDim));
}

// Query-head matrices for sample b, group member r: stride between kv entries is group heads.
GemmMatrix queryColumns(Op op, const Dims& d, const KvLayout& kv, std::int64_t b, std::int64_t r,
                        std::int64_t ld, std::int64_t sampleStride) {
    return {op, b * sampleStride + r * d.d, ld, kv.group * d.d};
}
GemmMatrix headSquares(Op op, const Dims& d, const KvLayout& kv, std::int64_t b, std::int64_t r) {
    return {op, (b * d.h + r) * d.t * d.t, d.t, kv.group * d.t * d.t};
}
GemmMatrix kvMatrix(Op op, const KvLayout& kv, std::int64_t b) {
    return {op, kv.offset + b * kv.sampleStride, kv.ld, kv.entryStride};
}

}  // namespace

const char* attnShapeProblem(const AttnShape& s) {
    if (s.batch < 0 || s.tokens <= 0 || s.heads <= 0 || s.kvHeads <= 0 || s.headDim <= 0)
        return "attention shape must be positive";
    if (s.heads % s.kvHeads != 0) return "heads must be a multiple of kv heads";
    return nullptr;
}

std::vector<GemmCall> linearForwardGemms(std::int64_t rows, std::int64_t in, std::int64_t out,
                                         bool accumulate) {
    // y^T [out, rows] = (W^T stored [in, out])^T . x^T [in, rows]
    GemmCall g;
    g.transA = true;
    g.m = out;
    g.n = rows;
    g.k = in;
    g.beta = accumulate ? 1.0f : 0.0f;
    g.a = {Op::W, 0, in, 0};
    g.b = {Op::X, 0, in, 0};
    g.c = {Op::Y, 0, out, 0};
    return {g};
}

std::vector<GemmCall> linearBackwardGemms(std::int64_t rows, std::int64_t in, std::int64_t out,
                                          bool wantDx, bool wantDw) {
    std::vector<GemmCall> calls;
    if (wantDx) {
        // dx^T [in, rows] += W^T [in, out] . dy^T [out, rows]
        GemmCall g;
        g.m = in;
        g.n = rows;
        g.k = out;
        g.beta = 1.0f;
        g.a = {Op::W, 0, in, 0};
        g.b = {Op::DY, 0, out, 0};
        g.c = {Op::DX, 0, in, 0};
        calls.push_back(g);
    }
    if (wantDw) {
        // dW^T [in, out] += x^T [in, rows] . (dy^T stored [out, rows])^T
        GemmCall g;
        g.transB = true;
        g.m = in;
        g.n = out;
        g.k = rows;
        g.beta = 1.0f;
        g.a = {Op::X, 0, in, 0};
        g.b = {Op::DY, 0, out, 0};
        g.c = {Op::DW, 0, in, 0};
        calls.push_back(g);
    }
    return calls;
}

std::vector<GemmCall> attnScoresForwardGemms(const AttnShape& s, bool kExpanded) {
    const Dims d = dimsOf(s);
    const KvLayout k = kvLayout(d, kExpanded, 0);
    std::vector<GemmCall> calls;
    for (std::int64_t b = 0; b < s.batch; ++b)
        for (std::int64_t r = 0; r < k.group; ++r) {
            // S^T[j, i] = sum_d K[j, d] Q[i, d]: A = K^T stored [D, T], transposed.
            GemmCall g;
            g.transA = true;
            g.m = d.t;
            g.n = d.t;
            g.k = d.d;
            g.alpha = scaleOf(s);
            g.a = kvMatrix(kExpanded ? Op::KExp : Op::Qkv, k, b);
            g.b = queryColumns(Op::Qkv, d, k, b, r, d.width, d.t * d.width);
            g.c = headSquares(Op::Scores, d, k, b, r);
            g.batch = k.entries;
            calls.push_back(g);
        }
    return calls;
}

std::vector<GemmCall> attnScoresBackwardGemms(const AttnShape& s, bool kExpanded, bool wantDq,
                                              bool wantDk) {
    const Dims d = dimsOf(s);
    const KvLayout k = kvLayout(d, kExpanded, 0);
    std::vector<GemmCall> calls;
    for (std::int64_t b = 0; b < s.batch; ++b)
        for (std::int64_t r = 0; r < k.group; ++r) {
            if (wantDq) {
                // dQ^T[d, i] += scale sum_j K^T[d, j] dS^T[j, i]  (dS stored as [T(j), T(i)]).
                GemmCall g;
                g.m = d.d;
                g.n = d.t;
                g.k = d.t;
                g.alpha = scaleOf(s);
                g.beta = 1.0f;
                g.a = kvMatrix(kExpanded ? Op::KExp : Op::Qkv, k, b);
                g.b = headSquares(Op::DScores, d, k, b, r);
                g.c = queryColumns(Op::DQkv, d, k, b, r, d.width, d.t * d.width);
                g.batch = k.entries;
                calls.push_back(g);
            }
            if (wantDk) {
                // dK^T[d, j] += scale sum_i Q^T[d, i] dS[i, j]  (dS^T stored, transposed).
                GemmCall g;
                g.transB = true;
                g.m = d.d;
                g.n = d.t;
                g.k = d.t;
                g.alpha = scaleOf(s);
                g.beta = 1.0f;
                g.a = queryColumns(Op::Qkv, d, k, b, r, d.width, d.t * d.width);
                g.b = headSquares(Op::DScores, d, k, b, r);
                g.c = kvMatrix(kExpanded ? Op::DKExp : Op::DQkv, k, b);
                g.batch = k.entries;
                calls.push_back(g);
            }
        }
    return calls;
}

std::vector<GemmCall> attnContextForwardGemms(const AttnShape& s, bool vExpanded) {
    const Dims d = dimsOf(s);
    const KvLayout v = kvLayout(d, vExpanded, 1);
    std::vector<GemmCall> calls;
    for (std::int64_t b = 0; b < s.batch; ++b)
        for (std::int64_t r = 0; r < v.group; ++r) {
            // Y^T[d, i] = sum_j V^T[d, j] P^T[j, i]  (P stored as [T(j), T(i)]).
            GemmCall g;
            g.m = d.d;
            g.n = d.t;
            g.k = d.t;
            g.a = kvMatrix(vExpanded ? Op::VExp : Op::Qkv, v, b);
            g.b = headSquares(Op::Probs, d, v, b, r);
            g.c = queryColumns(Op::Context, d, v, b, r, d.outWidth, d.t * d.outWidth);
            g.batch = v.entries;
            calls.push_back(g);
        }
    return calls;
}

std::vector<GemmCall> attnContextBackwardGemms(const AttnShape& s, bool vExpanded, bool wantDp,
                                               bool wantDv) {
    const Dims d = dimsOf(s);
    const KvLayout v = kvLayout(d, vExpanded, 1);
    std::vector<GemmCall> calls;
    for (std::int64_t b = 0; b < s.batch; ++b)
        for (std::int64_t r = 0; r < v.group; ++r) {
            if (wantDp) {
                // dP^T[j, i] += sum_d V[j, d] dY^T[d, i]  (A = V^T stored [D, T], transposed).
                GemmCall g;
                g.transA = true;
                g.m = d.t;
                g.n = d.t;
                g.k = d.d;
                g.beta = 1.0f;
                g.a = kvMatrix(vExpanded ? Op::VExp : Op::Qkv, v, b);
                g.b = queryColumns(Op::DContext, d, v, b, r, d.outWidth, d.t * d.outWidth);
                g.c = headSquares(Op::DProbs, d, v, b, r);
                g.batch = v.entries;
                calls.push_back(g);
            }
            if (wantDv) {
                // dV^T[d, j] += sum_i dY^T[d, i] P[i, j]  (P^T stored, transposed).
                GemmCall g;
                g.transB = true;
                g.m = d.d;
                g.n = d.t;
                g.k = d.t;
                g.beta = 1.0f;
                g.a = queryColumns(Op::DContext, d, v, b, r, d.outWidth, d.t * d.outWidth);
                g.b = headSquares(Op::Probs, d, v, b, r);
                g.c = kvMatrix(vExpanded ? Op::DVExp : Op::DQkv, v, b);
                g.batch = v.entries;
                calls.push_back(g);
            }
        }
    return calls;
}

}  // namespace remat::gpu::cuda
