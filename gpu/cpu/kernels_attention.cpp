// Eager attention on the CPU (sim/lower.cpp attention()): scores S = Q K^T / sqrt(D) with the
// causal mask, context Y = P V with heads merged, and the grouped-KV expansion. Q, K and V are
// read in place from the qkv linear's output (row stride (H + 2 KV) D) or from the expanded
// [B, H, T, D] tensors, one single-threaded sgemm per (sample, head). The pool runs one task
// per (sample, head), or per (sample, KV head) where query heads add into one KV head's
// gradient — that task takes its query heads in order, so each element's sum has the same
// order whatever the thread count.
#include <cmath>

#include "cpu_kernels.h"
#include "gemm.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

struct Geometry {
    std::int64_t batch = 0, tokens = 0, heads = 0, kvHeads = 0, headDim = 0;
    std::int64_t qkvWidth() const { return (heads + 2 * kvHeads) * headDim; }
    std::int64_t kvHeadOf(std::int64_t h) const { return h / (heads / kvHeads); }
    std::int64_t groupSize() const { return heads / kvHeads; }
};

// body(b, h) for every (sample, head), one task each.
template <typename Body>
void eachHead(Scratch& s, const Geometry& g, Body&& body) {
    s.pool().run(g.batch * g.heads, [&](std::int64_t i) { body(i / g.heads, i % g.heads); });
}

// body(b, h) for every (sample, head), one task per (sample, KV head) running that KV head's
// query heads in ascending order: for gradients that several query heads add into.
template <typename Body>
void eachKvGroup(Scratch& s, const Geometry& g, Body&& body) {
    s.pool().run(g.batch * g.kvHeads, [&](std::int64_t i) {
        const std::int64_t b = i / g.kvHeads, kv = i % g.kvHeads;
        for (std::int64_t h = kv * g.groupSize(); h < (kv + 1) * g.groupSize(); ++h) body(b, h);
    });
}

Result<Geometry> geometry(const OpCall& c, const TensorRef& qkvLike) {
    Geometry g;
    g.tokens = c.op->attrs.tokens;
    g.heads = c.op->attrs.heads;
    g.kvHeads = c.op->attrs.kvHeads > 0 ? c.op->attrs.kvHeads : g.heads;
    g.headDim = c.op->attrs.headDim;
    g.batch = c.microBatch;
    if (g.tokens <= 0 || g.heads <= 0 || g.headDim <= 0 || g.heads % g.kvHeads != 0)
        return makeError("attention: invalid heads/tokens attributes");
    if (qkvLike.elements() != g.batch * g.tokens * g.qkvWidth())
        return makeError("attention: the qkv operand does not match the attributes");
    return g;
}

// A [T, D] matrix inside a bigger buffer: its first element and its row stride.
struct Slice {
    std::int64_t offset = 0;
    std::int64_t stride = 0;
};

Slice querySlice(const Geometry& g, std::int64_t b, std::int64_t h) {
    return {b * g.tokens * g.qkvWidth() + h * g.headDim, g.qkvWidth()};
}
// K (which = 0) or V (which = 1) of query head h: in qkv, or in an expanded [B, H, T, D].
Slice kvSlice(const Geometry& g, bool expanded, int which, std::int64_t b, std::int64_t h) {
    if (expanded) return {(b * g.heads + h) * g.tokens * g.headDim, g.headDim};
    const std::int64_t col = (g.heads + std::int64_t(which) * g.kvHeads + g.kvHeadOf(h)) * g.headDim;
    return {b * g.tokens * g.qkvWidth() + col, g.qkvWidth()};
}

}  // namespace

Status attnScoresForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 0); !st) return st;
    auto geo = geometry(c, c.inputs[0]);
    if (!geo) return geo.error();
    const Geometry& g = *geo;
    const bool expanded = c.inputs.size() > 1;
    const std::int64_t t = g.tokens, d = g.headDim;
    const float scale = 1.0f / std::sqrt(float(d));
    ReadF32 qkv(s, c.inputs[0]);
    ReadF32 kx(s, expanded ? c.inputs[1] : TensorRef{});
    WriteF32 out(s, c.outputs[0], WriteF32::Mode::Overwrite);
    eachHead(s, g, [&](std::int64_t b, std::int64_t h) {
        const Slice q = querySlice(g, b, h);
        const Slice k = kvSlice(g, expanded, 0, b, h);
        const float* kBase = (expanded ? kx.data() : qkv.data()) + k.offset;
        float* sc = out.data() + (b * g.heads + h) * t * t;
        sgemm(Transpose::No, Transpose::Yes, t, t, d, scale, qkv.data() + q.offset, q.stride,
              kBase, k.stride, 0.0f, sc, t);
        if (c.op->attrs.causal)
            for (std::int64_t i = 0; i < t; ++i)
                for (std::int64_t j = i + 1; j < t; ++j) sc[i * t + j] = -INFINITY;
    });
    return Ok{};
}

Status attnScoresBackward(Scratch& s, const OpCall& c) {
    const bool expanded = c.saved.size() > 1;
    if (auto st = expectBackward(c, expanded ? 2 : 1, expanded ? 2 : 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    auto geo = geometry(c, c.saved[0]);
    if (!geo) return geo.error();
    const Geometry& g = *geo;
    const std::int64_t t = g.tokens, d = g.headDim;
    const float scale = 1.0f / std::sqrt(float(d));
    ReadF32 qkv(s, c.saved[0]);
    ReadF32 kx(s, expanded ? c.saved[1] : TensorRef{});
    ReadF32 dS(s, c.gradOutputs[0]);
    WriteF32 dqkv(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    WriteF32 dkx(s, expanded ? c.gradInputs[1] : TensorRef{}, WriteF32::Mode::Accumulate);
    float* dkBuf = expanded ? dkx.data() : dqkv.data();
    eachKvGroup(s, g, [&](std::int64_t b, std::int64_t h) {
        const Slice q = querySlice(g, b, h);
        const Slice k = kvSlice(g, expanded, 0, b, h);
        const float* kBase = (expanded ? kx.data() : qkv.data()) + k.offset;
        const float* ds = dS.data() + (b * g.heads + h) * t * t;
        if (dqkv.bound())  // dQ += scale dS K
            sgemm(Transpose::No, Transpose::No, t, d, t, scale, ds, t, kBase, k.stride, 1.0f,
                  dqkv.data() + q.offset, q.stride);
        if (dkBuf)  // dK += scale dS^T Q
            sgemm(Transpose::Yes, Transpose::No, t, d, t, scale, ds, t, qkv.data() + q.offset,
                  q.stride, 1.0f, dkBuf + k.offset, k.stride);
    });
    return Ok{};
}

Status attnContextForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 2, 1, 0); !st) return st;
    const bool expanded = c.inputs[1].shape.size() == 4;
    Geometry g;
    g.tokens = c.op->attrs.tokens;
    g.heads = c.op->attrs.heads;
    g.kvHeads = c.op->attrs.kvHeads > 0 ? c.op->attrs.kvHeads : g.heads;
    g.headDim = c.op->attrs.headDim;
    g.batch = c.microBatch;
    if (g.tokens <= 0 || g.heads <= 0 || g.headDim <= 0 || g.heads % g.kvHeads != 0)
        return makeError("attention context: invalid heads/tokens attributes");
    if (!expanded) {
        auto geo = geometry(c, c.inputs[1]);
        if (!geo) return geo.error();
    }
    const std::int64_t t = g.tokens, d = g.headDim, width = g.heads * d;
    if (c.inputs[0].elements() != g.batch * g.heads * t * t ||
        c.outputs[0].elements() != g.batch * t * width)
        return makeError("attention context: operand shapes do not match the attributes");
    ReadF32 p(s, c.inputs[0]);
    ReadF32 v(s, c.inputs[1]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    eachHead(s, g, [&](std::int64_t b, std::int64_t h) {
        const Slice vs = kvSlice(g, expanded, 1, b, h);
        sgemm(Transpose::No, Transpose::No, t, d, t, 1.0f, p.data() + (b * g.heads + h) * t * t,
              t, v.data() + vs.offset, vs.stride, 0.0f, y.data() + b * t * width + h * d, width);
    });
    return Ok{};
}

Status attnContextBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 2, 2, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const bool expanded = c.saved[1].shape.size() == 4;
    Geometry g;
    g.tokens = c.op->attrs.tokens;
    g.heads = c.op->attrs.heads;
    g.kvHeads = c.op->attrs.kvHeads > 0 ? c.op->attrs.kvHeads : g.heads;
    g.headDim = c.op->attrs.headDim;
    g.batch = c.microBatch;
    if (g.tokens <= 0 || g.heads <= 0 || g.headDim <= 0 || g.heads % g.kvHeads != 0)
        return makeError("attention context: invalid heads/tokens attributes");
    const std::int64_t t = g.tokens, d = g.headDim, width = g.heads * d;
    ReadF32 p(s, c.saved[0]);
    ReadF32 v(s, c.saved[1]);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dp(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    WriteF32 dv(s, c.gradInputs[1], WriteF32::Mode::Accumulate);
    eachKvGroup(s, g, [&](std::int64_t b, std::int64_t h) {
        const Slice vs = kvSlice(g, expanded, 1, b, h);
        const float* dyh = dy.data() + b * t * width + h * d;
        const std::int64_t pOff = (b * g.heads + h) * t * t;
        if (dp.bound())  // dP += dY V^T
            sgemm(Transpose::No, Transpose::Yes, t, t, d, 1.0f, dyh, width, v.data() + vs.offset,
                  vs.stride, 1.0f, dp.data() + pOff, t);
        if (dv.bound())  // dV += P^T dY
            sgemm(Transpose::Yes, Transpose::No, t, d, t, 1.0f, p.data() + pOff, t, dyh, width,
                  1.0f, dv.data() + vs.offset, vs.stride);
    });
    return Ok{};
}

Status expandKvForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 2, 0); !st) return st;
    auto geo = geometry(c, c.inputs[0]);
    if (!geo) return geo.error();
    const Geometry& g = *geo;
    ReadF32 qkv(s, c.inputs[0]);
    WriteF32 kx(s, c.outputs[0], WriteF32::Mode::Overwrite);
    WriteF32 vx(s, c.outputs[1], WriteF32::Mode::Overwrite);
    eachHead(s, g, [&](std::int64_t b, std::int64_t h) {
        for (int which = 0; which < 2; ++which) {
            const Slice src = kvSlice(g, false, which, b, h);
            float* dst =
                (which == 0 ? kx.data() : vx.data()) + (b * g.heads + h) * g.tokens * g.headDim;
            for (std::int64_t i = 0; i < g.tokens; ++i)
                for (std::int64_t j = 0; j < g.headDim; ++j)
                    dst[i * g.headDim + j] = qkv[src.offset + i * src.stride + j];
        }
    });
    return Ok{};
}

Status expandKvBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 0, 1, 2, 0); !st) return st;
    if (!c.gradInputs[0].bound()) return Ok{};
    auto geo = geometry(c, c.gradInputs[0]);
    if (!geo) return geo.error();
    const Geometry& g = *geo;
    WriteF32 dqkv(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    for (int which = 0; which < 2; ++which) {
        if (!c.gradOutputs[std::size_t(which)].bound()) continue;
        ReadF32 dx(s, c.gradOutputs[std::size_t(which)]);
        eachKvGroup(s, g, [&](std::int64_t b, std::int64_t h) {
            const Slice dst = kvSlice(g, false, which, b, h);
            const float* src = dx.data() + (b * g.heads + h) * g.tokens * g.headDim;
            for (std::int64_t i = 0; i < g.tokens; ++i)
                for (std::int64_t j = 0; j < g.headDim; ++j)
                    dqkv[dst.offset + i * dst.stride + j] += src[i * g.headDim + j];
        });
    }
    return Ok{};
}

}  // namespace remat::cpu
