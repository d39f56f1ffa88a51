// The float64 reference of rotary position embeddings (reference_ops.h), written from the
// definition rather than from the backends' kernels: HF Llama's rotate_half form,
// y = x cos(theta) + rotate_half(x) sin(theta) over a head's first `dims` dimensions, with
// theta_i = position / base^(2i / dims) for pair i and rotate_half(x) = (-x2, x1). Backward is
// the transpose: dx = dy cos(theta) - rotate_half^T(dy) sin(theta), i.e. the inverse rotation.
// v and the dimensions past `dims` pass through. Cosines and sines are double here.
#include <cmath>
#include <string>

#include "reference_ops.h"

namespace remat::reference {

namespace {

struct RotaryGeometry {
    std::int64_t batch = 0, tokens = 0, rotatedHeads = 0, width = 0, headDim = 0, dims = 0;
    double base = 10000.0;
};

Result<RotaryGeometry> geometry(const Call& c, std::int64_t elements) {
    const OpAttrs& a = c.op->attrs;
    RotaryGeometry g;
    const std::int64_t kv = a.kvHeads > 0 ? a.kvHeads : a.heads;
    g.batch = c.microBatch;
    g.tokens = a.tokens;
    g.rotatedHeads = a.heads + kv;
    g.width = (a.heads + 2 * kv) * a.headDim;
    g.headDim = a.headDim;
    g.dims = a.rotaryDims;
    g.base = a.rotaryBase;
    if (g.batch <= 0 || g.tokens <= 0 || a.heads <= 0 || g.headDim <= 0 || g.dims < 2 ||
        g.dims % 2 != 0 || g.dims > g.headDim)
        return makeError("rotary: invalid attributes");
    if (elements != g.batch * g.tokens * g.width)
        return makeError("rotary: the qkv operand does not match the attributes");
    return g;
}

// y = R(theta) x (forward) or R(theta)^T x (backward, `transpose`), written to `out` or
// added to it (`accumulate`).
void apply(const RotaryGeometry& g, const Values& x, Values& out, bool transpose, bool accumulate) {
    const std::int64_t half = g.dims / 2;
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t t = 0; t < g.tokens; ++t) {
            const std::int64_t row = (b * g.tokens + t) * g.width;
            for (std::int64_t e = 0; e < g.width; ++e) {
                const std::int64_t head = e / g.headDim, k = e % g.headDim;
                double y = x[row + e];
                if (head < g.rotatedHeads && k < g.dims) {
                    const std::int64_t i = k < half ? k : k - half;
                    const double theta = double(t) / std::pow(g.base, 2.0 * double(i) / double(g.dims));
                    // rotate_half(x)[k] = -x[k + half] for k < half, x[k - half] otherwise;
                    // its transpose flips the sign.
                    const double partner = k < half ? -x[row + e + half] : x[row + e - half];
                    y = x[row + e] * std::cos(theta) + (transpose ? -partner : partner) * std::sin(theta);
                }
                if (accumulate)
                    out[row + e] += y;
                else
                    out[row + e] = y;
            }
        }
}

}  // namespace

Status rotaryForward(Call& c) {
    if (c.inputs.empty() || c.outputs.empty()) return makeError("rotary: missing operands");
    auto g = geometry(c, c.inputs[0].elements());
    if (!g) return g.error();
    const Values x = c.inputs[0];  // a copy: the output may be the same values in place
    apply(*g, x, c.outputs[0], false, false);
    return Ok{};
}

Status rotaryBackward(Call& c) {
    if (c.gradOutputs.empty() || c.gradInputs.empty()) return makeError("rotary: missing operands");
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    auto g = geometry(c, c.gradInputs[0].elements());
    if (!g) return g.error();
    apply(*g, c.gradOutputs[0], c.gradInputs[0], true, true);
    return Ok{};
}

}  // namespace remat::reference
