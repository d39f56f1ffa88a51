// The float64 reference of eager attention (reference_ops.h): scores S = Q K^T / sqrt(D)
// with the causal mask, context Y = P V with the heads merged, and the grouped-KV expansion,
// indexing Q, K and V in the qkv projection's output [B, T, (H + 2 KV) D] or in expanded
// [B, H, T, D] tensors, element by element.
#include <cmath>
#include <string>

#include "reference_ops.h"

namespace remat::reference {

namespace {

struct Heads {
    std::int64_t batch = 0, tokens = 0, heads = 0, kvHeads = 0, dim = 0;

    std::int64_t qkvWidth() const { return (heads + 2 * kvHeads) * dim; }
    std::int64_t kvOf(std::int64_t h) const { return h / (heads / kvHeads); }
    // Element d of token i of query head h in qkv.
    std::int64_t q(std::int64_t b, std::int64_t i, std::int64_t h, std::int64_t d) const {
        return (b * tokens + i) * qkvWidth() + h * dim + d;
    }
    // Of K (which 0) or V (which 1) seen by query head h, in qkv or expanded.
    std::int64_t kv(bool expanded, int which, std::int64_t b, std::int64_t i, std::int64_t h,
                    std::int64_t d) const {
        if (expanded) return ((b * heads + h) * tokens + i) * dim + d;
        return (b * tokens + i) * qkvWidth() + (heads + which * kvHeads + kvOf(h)) * dim + d;
    }
    std::int64_t score(std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t j) const {
        return ((b * heads + h) * tokens + i) * tokens + j;
    }
};

Result<Heads> heads(const Call& c) {
    Heads g;
    g.batch = c.microBatch;
    g.tokens = c.op->attrs.tokens;
    g.heads = c.op->attrs.heads;
    g.kvHeads = c.op->attrs.kvHeads > 0 ? c.op->attrs.kvHeads : g.heads;
    g.dim = c.op->attrs.headDim;
    if (g.batch <= 0 || g.tokens <= 0 || g.heads <= 0 || g.dim <= 0 || g.heads % g.kvHeads != 0)
        return makeError(std::string(opKindName(c.op->kind)) + ": invalid heads/tokens attributes");
    return g;
}

bool masked(const Call& c, std::int64_t i, std::int64_t j) { return c.op->attrs.causal && j > i; }

}  // namespace

Status attentionForward(Call& c) {
    auto geo = heads(c);
    if (!geo) return geo.error();
    const Heads& g = *geo;
    const OpKind kind = c.op->kind;
    if (kind == OpKind::AttnScores) {
        if (c.inputs.empty() || c.outputs.empty()) return makeError("attention_scores: missing operands");
        const bool expanded = c.inputs.size() > 1;
        const Values& qkv = c.inputs[0];
        const Values& keys = expanded ? c.inputs[1] : c.inputs[0];
        const double scale = 1.0 / std::sqrt(double(g.dim));
        for (std::int64_t b = 0; b < g.batch; ++b)
            for (std::int64_t h = 0; h < g.heads; ++h)
                for (std::int64_t i = 0; i < g.tokens; ++i)
                    for (std::int64_t j = 0; j < g.tokens; ++j) {
                        double dot = 0.0;
                        for (std::int64_t d = 0; d < g.dim; ++d)
                            dot += qkv[g.q(b, i, h, d)] * keys[g.kv(expanded, 0, b, j, h, d)];
                        c.outputs[0][g.score(b, h, i, j)] = masked(c, i, j) ? -INFINITY : dot * scale;
                    }
        return Ok{};
    }
    if (kind == OpKind::AttnContext) {
        if (c.inputs.size() < 2 || c.outputs.empty()) return makeError("attention_context: missing operands");
        const bool expanded = c.inputs[1].shape.size() == 4;
        const Values &p = c.inputs[0], &v = c.inputs[1];
        for (std::int64_t b = 0; b < g.batch; ++b)
            for (std::int64_t h = 0; h < g.heads; ++h)
                for (std::int64_t i = 0; i < g.tokens; ++i)
                    for (std::int64_t d = 0; d < g.dim; ++d) {
                        double acc = 0.0;
                        for (std::int64_t j = 0; j < g.tokens; ++j)
                            acc += p[g.score(b, h, i, j)] * v[g.kv(expanded, 1, b, j, h, d)];
                        c.outputs[0][(b * g.tokens + i) * g.heads * g.dim + h * g.dim + d] = acc;
                    }
        return Ok{};
    }
    if (c.inputs.empty() || c.outputs.size() < 2) return makeError("expand_kv: missing operands");
    for (int which = 0; which < 2; ++which)
        for (std::int64_t b = 0; b < g.batch; ++b)
            for (std::int64_t h = 0; h < g.heads; ++h)
                for (std::int64_t i = 0; i < g.tokens; ++i)
                    for (std::int64_t d = 0; d < g.dim; ++d)
                        c.outputs[std::size_t(which)][g.kv(true, which, b, i, h, d)] =
                            c.inputs[0][g.kv(false, which, b, i, h, d)];
    return Ok{};
}

Status attentionBackward(Call& c) {
    auto geo = heads(c);
    if (!geo) return geo.error();
    const Heads& g = *geo;
    const OpKind kind = c.op->kind;
    if (kind == OpKind::AttnScores) {
        const bool expanded = c.saved.size() > 1;
        if (c.saved.empty() || c.gradOutputs.empty() || c.gradInputs.size() < c.saved.size())
            return makeError("attention_scores: missing operands");
        if (!c.gradOutputs[0].bound()) return Ok{};
        const Values& qkv = c.saved[0];
        const Values& keys = expanded ? c.saved[1] : c.saved[0];
        Values& dq = c.gradInputs[0];
        Values& dk = expanded ? c.gradInputs[1] : c.gradInputs[0];
        const double scale = 1.0 / std::sqrt(double(g.dim));
        for (std::int64_t b = 0; b < g.batch; ++b)
            for (std::int64_t h = 0; h < g.heads; ++h)
                for (std::int64_t i = 0; i < g.tokens; ++i)
                    for (std::int64_t j = 0; j < g.tokens; ++j) {
                        if (masked(c, i, j)) continue;  // a constant: no gradient
                        const double ds = c.gradOutputs[0][g.score(b, h, i, j)] * scale;
                        for (std::int64_t d = 0; d < g.dim; ++d) {
                            if (dq.bound()) dq[g.q(b, i, h, d)] += ds * keys[g.kv(expanded, 0, b, j, h, d)];
                            if (dk.bound()) dk[g.kv(expanded, 0, b, j, h, d)] += ds * qkv[g.q(b, i, h, d)];
                        }
                    }
        return Ok{};
    }
    if (kind == OpKind::AttnContext) {
        if (c.saved.size() < 2 || c.gradOutputs.empty() || c.gradInputs.size() < 2)
            return makeError("attention_context: missing operands");
        if (!c.gradOutputs[0].bound()) return Ok{};
        const bool expanded = c.saved[1].shape.size() == 4;
        const Values &p = c.saved[0], &v = c.saved[1], &dy = c.gradOutputs[0];
        for (std::int64_t b = 0; b < g.batch; ++b)
            for (std::int64_t h = 0; h < g.heads; ++h)
                for (std::int64_t i = 0; i < g.tokens; ++i)
                    for (std::int64_t j = 0; j < g.tokens; ++j)
                        for (std::int64_t d = 0; d < g.dim; ++d) {
                            const double gy = dy[(b * g.tokens + i) * g.heads * g.dim + h * g.dim + d];
                            const std::int64_t vi = g.kv(expanded, 1, b, j, h, d);
                            if (c.gradInputs[0].bound()) c.gradInputs[0][g.score(b, h, i, j)] += gy * v[vi];
                            if (c.gradInputs[1].bound()) c.gradInputs[1][vi] += p[g.score(b, h, i, j)] * gy;
                        }
        return Ok{};
    }
    if (c.gradInputs.empty() || c.gradOutputs.size() < 2) return makeError("expand_kv: missing operands");
    if (!c.gradInputs[0].bound()) return Ok{};
    for (int which = 0; which < 2; ++which) {
        const Values& dx = c.gradOutputs[std::size_t(which)];
        if (!dx.bound()) continue;
        for (std::int64_t b = 0; b < g.batch; ++b)
            for (std::int64_t h = 0; h < g.heads; ++h)
                for (std::int64_t i = 0; i < g.tokens; ++i)
                    for (std::int64_t d = 0; d < g.dim; ++d)
                        c.gradInputs[0][g.kv(false, which, b, i, h, d)] += dx[g.kv(true, which, b, i, h, d)];
    }
    return Ok{};
}

}  // namespace remat::reference
