// Rotary position embeddings on the CPU (sim/lower.cpp, Layer::rotary): the op rotates the q
// and k heads of the qkv linear's output [B, T, (H + 2 KV) D] in place, by the position of
// each token in the sequence (rotary_math.h), and leaves v as it is. It saves nothing: backward
// needs only the positions, and applies the inverse rotation to the gradient of the q and k
// heads (v's gradient passes through). One task per (sample, token) row; every element is
// computed by the same operations whatever the thread count.
#include <cmath>
#include <string>
#include <vector>

#include "cpu_kernels.h"
#include "rotary_math.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

struct RotaryShape {
    std::int64_t batch = 0, tokens = 0, heads = 0, kvHeads = 0, headDim = 0, dims = 0;
    std::int64_t width() const { return (heads + 2 * kvHeads) * headDim; }
};

Result<RotaryShape> rotaryShape(const OpCall& c, const TensorRef& qkv) {
    const OpAttrs& a = c.op->attrs;
    RotaryShape g;
    g.batch = c.microBatch;
    g.tokens = a.tokens;
    g.heads = a.heads;
    g.kvHeads = a.kvHeads > 0 ? a.kvHeads : a.heads;
    g.headDim = a.headDim;
    g.dims = a.rotaryDims;
    if (g.batch <= 0 || g.tokens <= 0 || g.heads <= 0 || g.headDim <= 0)
        return makeError("rotary: invalid heads/tokens attributes");
    if (g.dims < 2 || g.dims % 2 != 0 || g.dims > g.headDim)
        return makeError("rotary: it rotates " + std::to_string(g.dims) + " of " +
                         std::to_string(g.headDim) +
                         " dimensions per head; it must be an even number from 2 to the head size");
    if (a.keyTokens != 0 && a.keyTokens != a.tokens)
        return makeError("rotary embeddings of one rank's part of the sequence (context "
                         "parallelism) are simulated only");
    if (qkv.elements() != g.batch * g.tokens * g.width())
        return makeError("rotary: the qkv operand does not match the attributes");
    return g;
}

// cos and sin of every (position, pair), fp32 [T, dims / 2] each.
void angles(const RotaryShape& g, double base, std::vector<float>& cosT, std::vector<float>& sinT) {
    const std::int64_t half = g.dims / 2;
    cosT.resize(std::size_t(g.tokens * half));
    sinT.resize(std::size_t(g.tokens * half));
    for (std::int64_t t = 0; t < g.tokens; ++t)
        for (std::int64_t i = 0; i < half; ++i) {
            const double a = rotary::angle(t, i, g.dims, base);
            cosT[std::size_t(t * half + i)] = float(std::cos(a));
            sinT[std::size_t(t * half + i)] = float(std::sin(a));
        }
}

// Every row (sample, token) of a qkv-shaped tensor: the first `dims` dimensions of each q and k
// head turned by `turn` (rotate or unrotate) pair by pair, the rest of the row — v, the
// dimensions not rotated — passed through; `put` stores (forward) or accumulates (backward).
template <class Turn, class Put>
void eachRow(Scratch& s, const RotaryShape& g, const std::vector<float>& cosT,
             const std::vector<float>& sinT, const float* in, float* out, Turn turn, Put put) {
    const std::int64_t half = g.dims / 2, width = g.width();
    s.pool().run(g.batch * g.tokens, [&](std::int64_t row) {
        const std::int64_t t = row % g.tokens;
        const float* ir = in + row * width;
        float* orow = out + row * width;
        const float* cr = cosT.data() + t * half;
        const float* sr = sinT.data() + t * half;
        for (std::int64_t h = 0; h < g.heads + g.kvHeads; ++h) {
            const float* ih = ir + h * g.headDim;
            float* oh = orow + h * g.headDim;
            for (std::int64_t i = 0; i < half; ++i) {
                float a = ih[i], b = ih[i + half];
                turn(a, b, cr[i], sr[i]);
                put(oh[i], a);
                put(oh[i + half], b);
            }
            for (std::int64_t e = g.dims; e < g.headDim; ++e) put(oh[e], ih[e]);
        }
        for (std::int64_t e = (g.heads + g.kvHeads) * g.headDim; e < width; ++e) put(orow[e], ir[e]);
    });
}

}  // namespace

Status rotaryForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 0); !st) return st;
    auto geo = rotaryShape(c, c.inputs[0]);
    if (!geo) return geo.error();
    const RotaryShape& g = *geo;
    if (c.outputs[0].elements() != c.inputs[0].elements())
        return makeError("rotary: the output does not match the input");
    std::vector<float> cosT, sinT;
    angles(g, c.op->attrs.rotaryBase, cosT, sinT);
    // In place: x and y are the same memory in fp32; in 16 bits each is its own fp32 staging,
    // so every element of y is written, v and the dimensions not rotated included.
    ReadF32 x(s, c.inputs[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    eachRow(s, g, cosT, sinT, x.data(), y.data(), rotary::rotate,
            [](float& out, float v) { out = v; });
    return Ok{};
}

Status rotaryBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 0, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    auto geo = rotaryShape(c, c.gradInputs[0]);
    if (!geo) return geo.error();
    const RotaryShape& g = *geo;
    if (c.gradOutputs[0].elements() != c.gradInputs[0].elements())
        return makeError("rotary: gradient shapes do not match");
    std::vector<float> cosT, sinT;
    angles(g, c.op->attrs.rotaryBase, cosT, sinT);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    eachRow(s, g, cosT, sinT, dy.data(), dx.data(), rotary::unrotate,
            [](float& out, float v) { out += v; });
    return Ok{};
}

}  // namespace remat::cpu
