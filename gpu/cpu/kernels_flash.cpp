// Flash attention on the CPU (sim/lower.cpp, AttentionImpl::Flash): the fused op reads Q, K and
// V in place from the qkv linear's output [B, T, (H + 2 KV) D] and writes the context with the
// heads merged [B, T, H D] and the log-sum-exp of every score row [B, H, T] (fp32). No
// T x T matrix is ever formed: queries and keys go in tiles of kFlashTile rows, the scores of
// one tile pair are a kFlashTile x kFlashTile block, and the softmax is the online one (a
// running row maximum and sum, the partial context rescaled when the maximum grows). Backward
// reads only what the op saves — q, k, v (the qkv tensor), the output and the log-sum-exp —
// and recomputes each score block from them: P = exp(S - lse), dP = dO V^T,
// dS = P (dP - rowsum(dO O)), dQ += dS K / sqrt(D), dK += dS^T Q / sqrt(D), dV += P^T dO.
//
// Dropout (attrs.p > 0) applies to the probabilities inside the kernel, as PyTorch's flash
// kernels do: each (sample, head, query, key) is kept or dropped by the counter-based RNG
// (counter_rng.h) at the flat index it would have in a [B, H, T, T] probability tensor, so no
// mask is stored. Forward writes the RNG draw it used to the op's third output (int64 [1]),
// which the op saves; backward regenerates the same decisions from it: O = (P * M / (1 - p)) V
// with the log-sum-exp of the undropped scores, dV = (P * M / (1 - p))^T dO,
// dP = (dO V^T) * M / (1 - p), and dS = P (dP - rowsum(dO O)) as before. A recompute that
// preserves the RNG state gets the forward's draw, hence the same mask bit for bit.
//
// Determinism: forward runs one task per (sample, head), backward one per (sample, KV head)
// taking its query heads in ascending order (they all add into that KV head's dK and dV); the
// tiles are fixed by the shape, every GEMM is one single-threaded sgemm of a fixed shape and
// the accumulation order is fixed, so the bits are the same with any thread count and in every
// plan. A task's tile buffers (a few kFlashTile x (kFlashTile + D) blocks) are its own host
// memory: a GPU holds them in shared memory and registers, and the program does not show them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "counter_rng.h"
#include "cpu_kernels.h"
#include "gemm.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

constexpr std::int64_t kFlashTile = 64;

struct FlashGeometry {
    std::int64_t batch = 0, tokens = 0, heads = 0, kvHeads = 0, headDim = 0;
    std::int64_t qkvWidth() const { return (heads + 2 * kvHeads) * headDim; }
    std::int64_t group() const { return heads / kvHeads; }
    // Offsets in qkv of token 0 of query head h / of K and V of KV head kv, sample b.
    std::int64_t q(std::int64_t b, std::int64_t h) const {
        return b * tokens * qkvWidth() + h * headDim;
    }
    std::int64_t k(std::int64_t b, std::int64_t kv) const {
        return b * tokens * qkvWidth() + (heads + kv) * headDim;
    }
    std::int64_t v(std::int64_t b, std::int64_t kv) const {
        return b * tokens * qkvWidth() + (heads + kvHeads + kv) * headDim;
    }
    // Offset in the output [B, T, H D] of token 0 of head h.
    std::int64_t o(std::int64_t b, std::int64_t h) const {
        return b * tokens * heads * headDim + h * headDim;
    }
    std::int64_t lse(std::int64_t b, std::int64_t h) const { return (b * heads + h) * tokens; }
};

Result<FlashGeometry> flashGeometry(const OpCall& c, const TensorRef& qkv, const TensorRef& out,
                                    const TensorRef& lse) {
    const OpAttrs& a = c.op->attrs;
    FlashGeometry g;
    g.batch = c.microBatch;
    g.tokens = a.tokens;
    g.heads = a.heads;
    g.kvHeads = a.kvHeads > 0 ? a.kvHeads : a.heads;
    g.headDim = a.headDim;
    if (g.batch <= 0 || g.tokens <= 0 || g.heads <= 0 || g.headDim <= 0 || g.heads % g.kvHeads != 0)
        return makeError("flash attention: invalid heads/tokens attributes");
    if (a.keyTokens != 0 && a.keyTokens != a.tokens)
        return makeError("flash attention over " + std::to_string(a.keyTokens) +
                         " keys (context parallelism) is simulated only");
    if (!(a.p >= 0.0 && a.p < 1.0))
        return makeError("flash attention: dropout probability " + std::to_string(a.p) +
                         " is outside [0, 1)");
    if (qkv.elements() != g.batch * g.tokens * g.qkvWidth())
        return makeError("flash attention: the qkv operand does not match the attributes");
    if (out.bound() && out.elements() != g.batch * g.tokens * g.heads * g.headDim)
        return makeError("flash attention: the output does not match the attributes");
    if (lse.bound() && (lse.dtype != DType::F32 || lse.elements() != g.batch * g.heads * g.tokens))
        return makeError("flash attention: the log-sum-exp must be fp32 [B, H, T]");
    return g;
}

// Key tiles [0, end) a query tile [i0, i1) attends to: all of them, or under the causal mask
// those starting at or before its last query.
std::int64_t keyEnd(bool causal, std::int64_t i1, std::int64_t tokens) {
    return causal ? std::min(tokens, i1) : tokens;
}

// The dropout of one op call: the stream of its draw and the flat index of (b, h, i, j).
struct FlashDropout {
    bool on = false;
    float p = 0.0f, scale = 1.0f;
    std::uint64_t stream = 0;
    bool keep(const FlashGeometry& g, std::int64_t b, std::int64_t h, std::int64_t i,
              std::int64_t j) const {
        const std::int64_t index = ((b * g.heads + h) * g.tokens + i) * g.tokens + j;
        return rng::dropoutKeep(stream, std::uint64_t(index), p);
    }
};

Result<FlashDropout> flashDropout(const OpCall& c, std::uint32_t draw) {
    FlashDropout fd;
    if (c.op->attrs.p <= 0.0) return fd;
    fd.on = true;
    fd.p = float(c.op->attrs.p);
    fd.scale = rng::dropoutScale(fd.p);
    fd.stream = rng::dropoutStream(c.seed, c.opId.value, draw);
    return fd;
}

Status checkRngState(const TensorRef& t) {
    if (!t.bound() || t.dtype != DType::I64 || t.elements() != 1)
        return makeError("flash attention with dropout: the RNG state must be int64 [1]");
    return Ok{};
}

}  // namespace

Status flashAttnForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, c.op->attrs.p > 0.0 ? 3 : 2, 0); !st) return st;
    auto geo = flashGeometry(c, c.inputs[0], c.outputs[0], c.outputs[1]);
    if (!geo) return geo.error();
    const FlashGeometry& g = *geo;
    auto dropout = flashDropout(c, c.rngDraw);
    if (!dropout) return dropout.error();
    const FlashDropout& fd = *dropout;
    if (fd.on) {
        if (auto st = checkRngState(c.outputs[2]); !st) return st;
        *static_cast<std::int64_t*>(c.outputs[2].data) = std::int64_t(c.rngDraw);
    }
    const std::int64_t t = g.tokens, d = g.headDim, width = g.heads * d, ld = g.qkvWidth();
    const bool causal = c.op->attrs.causal;
    const float scale = 1.0f / std::sqrt(float(d));
    ReadF32 qkv(s, c.inputs[0]);
    WriteF32 out(s, c.outputs[0], WriteF32::Mode::Overwrite);
    float* lse = static_cast<float*>(c.outputs[1].data);
    s.pool().run(g.batch * g.heads, [&](std::int64_t task) {
        const std::int64_t b = task / g.heads, h = task % g.heads, kv = h / g.group();
        const float* q = qkv.data() + g.q(b, h);
        const float* k = qkv.data() + g.k(b, kv);
        const float* v = qkv.data() + g.v(b, kv);
        float* o = out.data() + g.o(b, h);
        float* rowLse = lse + g.lse(b, h);
        std::vector<float> sc(std::size_t(kFlashTile * kFlashTile));
        std::vector<float> acc(std::size_t(kFlashTile * d));
        std::vector<float> m(static_cast<std::size_t>(kFlashTile));
        std::vector<float> l(static_cast<std::size_t>(kFlashTile));
        for (std::int64_t i0 = 0; i0 < t; i0 += kFlashTile) {
            const std::int64_t br = std::min(kFlashTile, t - i0);
            std::fill(acc.begin(), acc.end(), 0.0f);
            std::fill(m.begin(), m.end(), -INFINITY);
            std::fill(l.begin(), l.end(), 0.0f);
            const std::int64_t jEnd = keyEnd(causal, i0 + br, t);
            for (std::int64_t j0 = 0; j0 < jEnd; j0 += kFlashTile) {
                const std::int64_t bc = std::min(kFlashTile, t - j0);
                // S = Q_i K_j^T / sqrt(D), then the causal mask.
                sgemm(Transpose::No, Transpose::Yes, br, bc, d, scale, q + i0 * ld, ld,
                      k + j0 * ld, ld, 0.0f, sc.data(), bc);
                for (std::int64_t r = 0; r < br; ++r) {
                    float* row = sc.data() + r * bc;
                    if (causal)
                        for (std::int64_t col = std::max<std::int64_t>(0, i0 + r + 1 - j0);
                             col < bc; ++col)
                            row[col] = -INFINITY;
                    float mx = m[std::size_t(r)];
                    for (std::int64_t col = 0; col < bc; ++col) mx = std::max(mx, row[col]);
                    // Row r has a finite maximum from the first key tile on (key 0 is never
                    // masked), so the rescale factor below is finite.
                    const float rescale = std::exp(m[std::size_t(r)] - mx);
                    double sum = 0.0;
                    for (std::int64_t col = 0; col < bc; ++col) {
                        row[col] = std::exp(row[col] - mx);
                        sum += row[col];
                    }
                    l[std::size_t(r)] = l[std::size_t(r)] * rescale + float(sum);
                    m[std::size_t(r)] = mx;
                    // The normaliser sums every probability; only the kept ones reach V.
                    if (fd.on)
                        for (std::int64_t col = 0; col < bc; ++col)
                            row[col] = fd.keep(g, b, h, i0 + r, j0 + col) ? row[col] * fd.scale
                                                                           : 0.0f;
                    float* a = acc.data() + r * d;
                    for (std::int64_t e = 0; e < d; ++e) a[e] *= rescale;
                }
                // acc += P V_j
                sgemm(Transpose::No, Transpose::No, br, d, bc, 1.0f, sc.data(), bc, v + j0 * ld,
                      ld, 1.0f, acc.data(), d);
            }
            for (std::int64_t r = 0; r < br; ++r) {
                const float inv = 1.0f / l[std::size_t(r)];
                float* dst = o + (i0 + r) * width;
                const float* a = acc.data() + r * d;
                for (std::int64_t e = 0; e < d; ++e) dst[e] = a[e] * inv;
                rowLse[i0 + r] = m[std::size_t(r)] + std::log(l[std::size_t(r)]);
            }
        }
    });
    return Ok{};
}

Status flashAttnBackward(Scratch& s, const OpCall& c) {
    const bool withDropout = c.op->attrs.p > 0.0;
    if (auto st = expectBackward(c, withDropout ? 4 : 3, 1, 2, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    auto geo = flashGeometry(c, c.saved[0], c.saved[1], c.saved[2]);
    if (!geo) return geo.error();
    const FlashGeometry& g = *geo;
    std::uint32_t draw = 0;
    if (withDropout) {
        if (auto st = checkRngState(c.saved[3]); !st) return st;
        const std::int64_t saved = *static_cast<const std::int64_t*>(c.saved[3].data);
        if (saved < 0 || saved > std::int64_t(std::numeric_limits<std::uint32_t>::max()))
            return makeError("flash attention with dropout: the saved RNG draw " +
                             std::to_string(saved) + " is not one a forward writes");
        draw = std::uint32_t(saved);
    }
    auto dropout = flashDropout(c, draw);
    if (!dropout) return dropout.error();
    const FlashDropout& fd = *dropout;
    if (c.gradOutputs[0].elements() != c.saved[1].elements() ||
        c.gradInputs[0].elements() != c.saved[0].elements())
        return makeError("flash attention: gradient shapes do not match the saved tensors");
    const std::int64_t t = g.tokens, d = g.headDim, width = g.heads * d, ld = g.qkvWidth();
    const bool causal = c.op->attrs.causal;
    const float scale = 1.0f / std::sqrt(float(d));
    ReadF32 qkv(s, c.saved[0]);
    ReadF32 out(s, c.saved[1]);
    const float* lse = static_cast<const float*>(c.saved[2].data);
    ReadF32 dOut(s, c.gradOutputs[0]);
    WriteF32 dqkv(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    s.pool().run(g.batch * g.kvHeads, [&](std::int64_t task) {
        const std::int64_t b = task / g.kvHeads, kv = task % g.kvHeads;
        const float* k = qkv.data() + g.k(b, kv);
        const float* v = qkv.data() + g.v(b, kv);
        float* dk = dqkv.data() + g.k(b, kv);
        float* dv = dqkv.data() + g.v(b, kv);
        std::vector<float> p(std::size_t(kFlashTile * kFlashTile));
        std::vector<float> dp(std::size_t(kFlashTile * kFlashTile));
        std::vector<float> delta(static_cast<std::size_t>(t));
        for (std::int64_t h = kv * g.group(); h < (kv + 1) * g.group(); ++h) {
            const float* q = qkv.data() + g.q(b, h);
            float* dq = dqkv.data() + g.q(b, h);
            const float* o = out.data() + g.o(b, h);
            const float* dO = dOut.data() + g.o(b, h);
            const float* rowLse = lse + g.lse(b, h);
            // delta_i = rowsum(dO_i O_i) = sum_j P_ij dP_ij, softmax's backward term.
            for (std::int64_t i = 0; i < t; ++i) {
                double sum = 0.0;
                for (std::int64_t e = 0; e < d; ++e)
                    sum += double(dO[i * width + e]) * double(o[i * width + e]);
                delta[std::size_t(i)] = float(sum);
            }
            for (std::int64_t i0 = 0; i0 < t; i0 += kFlashTile) {
                const std::int64_t br = std::min(kFlashTile, t - i0);
                const std::int64_t jEnd = keyEnd(causal, i0 + br, t);
                for (std::int64_t j0 = 0; j0 < jEnd; j0 += kFlashTile) {
                    const std::int64_t bc = std::min(kFlashTile, t - j0);
                    // P = exp(Q_i K_j^T / sqrt(D) - lse_i), zero where masked.
                    sgemm(Transpose::No, Transpose::Yes, br, bc, d, scale, q + i0 * ld, ld,
                          k + j0 * ld, ld, 0.0f, p.data(), bc);
                    for (std::int64_t r = 0; r < br; ++r) {
                        float* row = p.data() + r * bc;
                        const std::int64_t firstMasked =
                            causal ? std::clamp<std::int64_t>(i0 + r + 1 - j0, 0, bc) : bc;
                        for (std::int64_t col = 0; col < firstMasked; ++col)
                            row[col] = std::exp(row[col] - rowLse[i0 + r]);
                        for (std::int64_t col = firstMasked; col < bc; ++col) row[col] = 0.0f;
                    }
                    // dP = dO_i V_j^T (times the mask); dS = P (dP - delta_i), the scale
                    // folded into the GEMMs.
                    sgemm(Transpose::No, Transpose::Yes, br, bc, d, 1.0f, dO + i0 * width, width,
                          v + j0 * ld, ld, 0.0f, dp.data(), bc);
                    for (std::int64_t r = 0; r < br; ++r) {
                        const float dl = delta[std::size_t(i0 + r)];
                        float* ds = dp.data() + r * bc;
                        float* pr = p.data() + r * bc;
                        if (!fd.on) {
                            for (std::int64_t col = 0; col < bc; ++col)
                                ds[col] = pr[col] * (ds[col] - dl);
                            continue;
                        }
                        // P becomes the dropped probabilities for dV below.
                        for (std::int64_t col = 0; col < bc; ++col) {
                            const bool keep = fd.keep(g, b, h, i0 + r, j0 + col);
                            ds[col] = pr[col] * ((keep ? ds[col] * fd.scale : 0.0f) - dl);
                            pr[col] = keep ? pr[col] * fd.scale : 0.0f;
                        }
                    }
                    // dV_j += P^T dO_i
                    sgemm(Transpose::Yes, Transpose::No, bc, d, br, 1.0f, p.data(), bc,
                          dO + i0 * width, width, 1.0f, dv + j0 * ld, ld);
                    // dQ_i += dS K_j / sqrt(D); dK_j += dS^T Q_i / sqrt(D)
                    sgemm(Transpose::No, Transpose::No, br, d, bc, scale, dp.data(), bc,
                          k + j0 * ld, ld, 1.0f, dq + i0 * ld, ld);
                    sgemm(Transpose::Yes, Transpose::No, bc, d, br, scale, dp.data(), bc,
                          q + i0 * ld, ld, 1.0f, dk + j0 * ld, ld);
                }
            }
        }
    });
    return Ok{};
}

}  // namespace remat::cpu
