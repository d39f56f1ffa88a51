// The float64 reference of flash attention (reference_ops.h), written from the definition of
// attention rather than from the tiled algorithm: for every (sample, head) the whole score
// matrix S = Q K^T / sqrt(D) with the causal mask, its row-wise softmax P, the context
// O = P V with the heads merged, and the log-sum-exp of every score row. Backward recomputes
// S and P from q and k alone (it does not trust the saved output or log-sum-exp) and takes the
// textbook gradients: dV = P^T dO, dP = dO V^T, dS = P (dP - rowsum(P dP)),
// dQ = dS K / sqrt(D), dK = dS^T Q / sqrt(D); query heads of one KV head add into its dK, dV.
// With dropout the context is O = (P M / (1 - p)) V, M the keep decisions of counter_rng.h at
// the flat index ((b H + h) T + i) T + j of the draw forward writes to its third output; then
// dV = (P M / (1 - p))^T dO, dP = (dO V^T) M / (1 - p) and rowsum(P dP) as above.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "counter_rng.h"
#include "reference_ops.h"

namespace remat::reference {

namespace {

struct FlashShape {
    std::int64_t batch = 0, tokens = 0, heads = 0, kvHeads = 0, dim = 0;
    std::int64_t width() const { return (heads + 2 * kvHeads) * dim; }
    std::int64_t q(std::int64_t b, std::int64_t i, std::int64_t h, std::int64_t d) const {
        return (b * tokens + i) * width() + h * dim + d;
    }
    // K (which 0) or V (which 1) of query head h.
    std::int64_t kv(int which, std::int64_t b, std::int64_t j, std::int64_t h,
                    std::int64_t d) const {
        return (b * tokens + j) * width() + (heads + which * kvHeads + h / (heads / kvHeads)) * dim + d;
    }
    std::int64_t o(std::int64_t b, std::int64_t i, std::int64_t h, std::int64_t d) const {
        return (b * tokens + i) * heads * dim + h * dim + d;
    }
};

Result<FlashShape> flashShape(const Call& c, std::int64_t qkvElements) {
    FlashShape g;
    g.batch = c.microBatch;
    g.tokens = c.op->attrs.tokens;
    g.heads = c.op->attrs.heads;
    g.kvHeads = c.op->attrs.kvHeads > 0 ? c.op->attrs.kvHeads : g.heads;
    g.dim = c.op->attrs.headDim;
    if (g.batch <= 0 || g.tokens <= 0 || g.heads <= 0 || g.dim <= 0 || g.heads % g.kvHeads != 0)
        return makeError("flash_attention: invalid heads/tokens attributes");
    if (c.op->attrs.keyTokens != 0 && c.op->attrs.keyTokens != g.tokens)
        return makeError("flash_attention: context parallelism has no reference");
    if (qkvElements != g.batch * g.tokens * g.width())
        return makeError("flash_attention: the qkv operand does not match the attributes");
    return g;
}

// The probabilities of (b, h): P[i][j], and the log-sum-exp of each row.
void probabilities(const Call& c, const FlashShape& g, const Values& qkv, std::int64_t b,
                   std::int64_t h, std::vector<double>& p, std::vector<double>& lse) {
    const std::int64_t t = g.tokens;
    const double scale = 1.0 / std::sqrt(double(g.dim));
    p.assign(std::size_t(t * t), 0.0);
    lse.assign(std::size_t(t), 0.0);
    for (std::int64_t i = 0; i < t; ++i) {
        const std::int64_t last = c.op->attrs.causal ? i : t - 1;
        double mx = -INFINITY;
        for (std::int64_t j = 0; j <= last; ++j) {
            double dot = 0.0;
            for (std::int64_t d = 0; d < g.dim; ++d) dot += qkv[g.q(b, i, h, d)] * qkv[g.kv(0, b, j, h, d)];
            p[std::size_t(i * t + j)] = dot * scale;
            mx = std::max(mx, dot * scale);
        }
        double sum = 0.0;
        for (std::int64_t j = 0; j <= last; ++j) sum += std::exp(p[std::size_t(i * t + j)] - mx);
        for (std::int64_t j = 0; j <= last; ++j)
            p[std::size_t(i * t + j)] = std::exp(p[std::size_t(i * t + j)] - mx) / sum;
        lse[std::size_t(i)] = mx + std::log(sum);
    }
}

// The dropout factor of (b, h, i, j): 0 or 1 / (1 - p); 1 without dropout.
struct Dropped {
    double p = 0.0;
    std::uint64_t stream = 0;
    double factor(const FlashShape& g, std::int64_t b, std::int64_t h, std::int64_t i,
                  std::int64_t j) const {
        if (p <= 0.0) return 1.0;
        const float pf = float(p);
        const std::uint64_t index = std::uint64_t(((b * g.heads + h) * g.tokens + i) * g.tokens + j);
        return rng::uniform01(stream, index) >= pf ? 1.0 / (1.0 - double(pf)) : 0.0;
    }
};

Dropped dropped(const Call& c, double draw) {
    Dropped d;
    d.p = c.op->attrs.p;
    if (d.p > 0.0) d.stream = rng::dropoutStream(c.seed, c.opId.value, std::uint32_t(draw));
    return d;
}

}  // namespace

Status flashForward(Call& c) {
    const bool withDropout = c.op->attrs.p > 0.0;
    if (c.inputs.empty() || c.outputs.size() < (withDropout ? 3u : 2u))
        return makeError("flash_attention: missing operands");
    auto geo = flashShape(c, c.inputs[0].elements());
    if (!geo) return geo.error();
    const FlashShape& g = *geo;
    if (withDropout) c.outputs[2][0] = double(c.rngDraw);
    const Dropped drop = dropped(c, double(c.rngDraw));
    const std::int64_t t = g.tokens;
    std::vector<double> p, lse;
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t h = 0; h < g.heads; ++h) {
            probabilities(c, g, c.inputs[0], b, h, p, lse);
            for (std::int64_t i = 0; i < t; ++i) {
                c.outputs[1][(b * g.heads + h) * t + i] = lse[std::size_t(i)];
                for (std::int64_t d = 0; d < g.dim; ++d) {
                    double acc = 0.0;
                    for (std::int64_t j = 0; j < t; ++j)
                        acc += p[std::size_t(i * t + j)] * drop.factor(g, b, h, i, j) *
                               c.inputs[0][g.kv(1, b, j, h, d)];
                    c.outputs[0][g.o(b, i, h, d)] = acc;
                }
            }
        }
    return Ok{};
}

Status flashBackward(Call& c) {
    const bool withDropout = c.op->attrs.p > 0.0;
    if (c.saved.size() < (withDropout ? 4u : 3u) || c.gradOutputs.empty() || c.gradInputs.empty())
        return makeError("flash_attention: missing operands");
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const Values& qkv = c.saved[0];
    auto geo = flashShape(c, qkv.elements());
    if (!geo) return geo.error();
    const FlashShape& g = *geo;
    const std::int64_t t = g.tokens;
    const double scale = 1.0 / std::sqrt(double(g.dim));
    const Values& dO = c.gradOutputs[0];
    Values& dqkv = c.gradInputs[0];
    const Dropped drop = dropped(c, withDropout ? c.saved[3][0] : 0.0);
    std::vector<double> p, lse, dp(std::size_t(t * t));
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t h = 0; h < g.heads; ++h) {
            probabilities(c, g, qkv, b, h, p, lse);
            for (std::int64_t i = 0; i < t; ++i) {
                double rowDot = 0.0;  // rowsum(P dP)
                for (std::int64_t j = 0; j < t; ++j) {
                    double acc = 0.0;
                    for (std::int64_t d = 0; d < g.dim; ++d)
                        acc += dO[g.o(b, i, h, d)] * qkv[g.kv(1, b, j, h, d)];
                    dp[std::size_t(i * t + j)] = acc * drop.factor(g, b, h, i, j);
                    rowDot += p[std::size_t(i * t + j)] * dp[std::size_t(i * t + j)];
                }
                for (std::int64_t j = 0; j < t; ++j) {
                    const double pij = p[std::size_t(i * t + j)];
                    const double ds = pij * (dp[std::size_t(i * t + j)] - rowDot) * scale;
                    const double pDropped = pij * drop.factor(g, b, h, i, j);
                    for (std::int64_t d = 0; d < g.dim; ++d) {
                        dqkv[g.kv(1, b, j, h, d)] += pDropped * dO[g.o(b, i, h, d)];
                        dqkv[g.q(b, i, h, d)] += ds * qkv[g.kv(0, b, j, h, d)];
                        dqkv[g.kv(0, b, j, h, d)] += ds * qkv[g.q(b, i, h, d)];
                    }
                }
            }
        }
    return Ok{};
}

}  // namespace remat::reference
