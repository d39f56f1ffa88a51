// The float64 reference of the convolutional ops (reference_ops.h), NCHW, each written from
// its definition as a direct sum: conv2d (square kernel, stride, zero padding, dilation, channel groups) with its input,
// weight and bias gradients; batch norm in training mode (biased variance, eps 1e-5) with the
// gradient from the saved input and statistics; max pooling (first maximum of each window,
// -inf padding, indices h * W + w in the input plane) and global average pooling.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "reference_ops.h"

namespace remat::reference {

Status convForward(Call& c);
Status convBackward(Call& c);

namespace {

constexpr double kEps = 1e-5;

bool fourDims(const Values& v) {
    return v.shape.size() == 4;
}

Status missing(const Call& c) {
    return makeError(std::string(opKindName(c.op->kind)) + ": missing or misshapen operands");
}

Status conv2dForward(Call& c) {
    if (c.inputs.empty() || c.outputs.empty() || c.params.empty() || !fourDims(c.inputs[0]) ||
        !fourDims(c.outputs[0]))
        return missing(c);
    const Values& x = c.inputs[0];
    Values& y = c.outputs[0];
    const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::int64_t O = y.shape[1], Ho = y.shape[2], Wo = y.shape[3];
    const std::int64_t k = c.op->attrs.kernel, s = c.op->attrs.stride, p = c.op->attrs.padding;
    const std::int64_t d = c.op->attrs.dilation, G = c.op->attrs.groups;
    if (G < 1 || C % G != 0 || O % G != 0) return missing(c);
    const std::int64_t Cg = C / G, Og = O / G;
    if (c.params[0].elements() != O * Cg * k * k) return missing(c);
    const bool bias = c.params.size() > 1 && c.params[1].bound();
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t oh = 0; oh < Ho; ++oh)
                for (std::int64_t ow = 0; ow < Wo; ++ow) {
                    double sum = bias ? c.params[1][o] : 0.0;
                    // Output channel o reads the Cg input channels of its group.
                    for (std::int64_t cl = 0; cl < Cg; ++cl)
                        for (std::int64_t kh = 0; kh < k; ++kh)
                            for (std::int64_t kw = 0; kw < k; ++kw) {
                                const std::int64_t ci = o / Og * Cg + cl;
                                const std::int64_t ih = oh * s - p + kh * d;
                                const std::int64_t iw = ow * s - p + kw * d;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                sum += c.params[0][((o * Cg + cl) * k + kh) * k + kw] *
                                       x[((n * C + ci) * H + ih) * W + iw];
                            }
                    y[((n * O + o) * Ho + oh) * Wo + ow] = sum;
                }
    return Ok{};
}

Status conv2dBackward(Call& c) {
    if (c.saved.empty() || c.gradOutputs.empty() || c.gradInputs.empty() || c.params.empty() ||
        c.paramGrads.empty() || !fourDims(c.saved[0]))
        return missing(c);
    if (!c.gradOutputs[0].bound()) return Ok{};
    const Values& x = c.saved[0];
    const Values& dy = c.gradOutputs[0];
    if (!fourDims(dy)) return missing(c);
    const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::int64_t O = dy.shape[1], Ho = dy.shape[2], Wo = dy.shape[3];
    const std::int64_t k = c.op->attrs.kernel, s = c.op->attrs.stride, p = c.op->attrs.padding;
    const std::int64_t d = c.op->attrs.dilation, G = c.op->attrs.groups;
    if (G < 1 || C % G != 0 || O % G != 0) return missing(c);
    const std::int64_t Cg = C / G, Og = O / G;
    Values& dx = c.gradInputs[0];
    Values& dw = c.paramGrads[0];
    Values* db = c.paramGrads.size() > 1 && c.paramGrads[1].bound() ? &c.paramGrads[1] : nullptr;
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t oh = 0; oh < Ho; ++oh)
                for (std::int64_t ow = 0; ow < Wo; ++ow) {
                    const double g = dy[((n * O + o) * Ho + oh) * Wo + ow];
                    if (db) (*db)[o] += g;
                    for (std::int64_t cl = 0; cl < Cg; ++cl)
                        for (std::int64_t kh = 0; kh < k; ++kh)
                            for (std::int64_t kw = 0; kw < k; ++kw) {
                                const std::int64_t ci = o / Og * Cg + cl;
                                const std::int64_t ih = oh * s - p + kh * d;
                                const std::int64_t iw = ow * s - p + kw * d;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                const std::int64_t xi = ((n * C + ci) * H + ih) * W + iw;
                                const std::int64_t wi = ((o * Cg + cl) * k + kh) * k + kw;
                                if (dw.bound()) dw[wi] += g * x[xi];
                                if (dx.bound()) dx[xi] += g * c.params[0][wi];
                            }
                }
    return Ok{};
}

Status batchNormForward(Call& c) {
    if (c.inputs.empty() || c.outputs.size() < 3 || c.params.size() < 2 || !fourDims(c.inputs[0]))
        return missing(c);
    const Values& x = c.inputs[0];
    const std::int64_t N = x.shape[0], C = x.shape[1], P = x.shape[2] * x.shape[3];
    const double count = double(N * P);
    for (std::int64_t ch = 0; ch < C; ++ch) {
        double mean = 0.0;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t i = 0; i < P; ++i) mean += x[(n * C + ch) * P + i];
        mean /= count;
        double var = 0.0;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t i = 0; i < P; ++i) {
                const double d = x[(n * C + ch) * P + i] - mean;
                var += d * d;
            }
        var /= count;
        const double invstd = 1.0 / std::sqrt(var + kEps);
        c.outputs[1][ch] = mean;
        c.outputs[2][ch] = invstd;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t i = 0; i < P; ++i) {
                const std::int64_t at = (n * C + ch) * P + i;
                c.outputs[0][at] = (x[at] - mean) * invstd * c.params[0][ch] + c.params[1][ch];
            }
    }
    return Ok{};
}

// y = w·x̂ + b with x̂ = (x − μ)·σ⁻¹ over M = N·H·W values per channel:
// dx = w·σ⁻¹·(dy − mean(dy) − x̂·mean(dy·x̂)), dw = Σ dy·x̂, db = Σ dy.
Status batchNormBackward(Call& c) {
    if (c.saved.size() < 3 || c.gradOutputs.empty() || c.gradInputs.empty() ||
        c.params.size() < 2 || c.paramGrads.size() < 2 || !fourDims(c.saved[0]))
        return missing(c);
    if (!c.gradOutputs[0].bound()) return Ok{};
    const Values& x = c.saved[0];
    const Values& dy = c.gradOutputs[0];
    const std::int64_t N = x.shape[0], C = x.shape[1], P = x.shape[2] * x.shape[3];
    const double count = double(N * P);
    for (std::int64_t ch = 0; ch < C; ++ch) {
        const double mean = c.saved[1][ch], invstd = c.saved[2][ch];
        double sumDy = 0.0, sumDyXhat = 0.0;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t i = 0; i < P; ++i) {
                const std::int64_t at = (n * C + ch) * P + i;
                sumDy += dy[at];
                sumDyXhat += dy[at] * (x[at] - mean) * invstd;
            }
        if (c.paramGrads[0].bound()) c.paramGrads[0][ch] += sumDyXhat;
        if (c.paramGrads[1].bound()) c.paramGrads[1][ch] += sumDy;
        if (!c.gradInputs[0].bound()) continue;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t i = 0; i < P; ++i) {
                const std::int64_t at = (n * C + ch) * P + i;
                const double xhat = (x[at] - mean) * invstd;
                c.gradInputs[0][at] +=
                    c.params[0][ch] * invstd * (dy[at] - sumDy / count - xhat * sumDyXhat / count);
            }
    }
    return Ok{};
}

Status maxPoolForward(Call& c) {
    if (c.inputs.empty() || c.outputs.size() < 2 || !fourDims(c.inputs[0]) ||
        !fourDims(c.outputs[0]))
        return missing(c);
    const Values& x = c.inputs[0];
    const std::int64_t planes = x.shape[0] * x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::int64_t Ho = c.outputs[0].shape[2], Wo = c.outputs[0].shape[3];
    const std::int64_t k = c.op->attrs.kernel, s = c.op->attrs.stride, p = c.op->attrs.padding;
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t oh = 0; oh < Ho; ++oh)
            for (std::int64_t ow = 0; ow < Wo; ++ow) {
                double best = -std::numeric_limits<double>::infinity();
                std::int64_t at = -1;
                for (std::int64_t kh = 0; kh < k; ++kh)
                    for (std::int64_t kw = 0; kw < k; ++kw) {
                        const std::int64_t ih = oh * s - p + kh, iw = ow * s - p + kw;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                        const double v = x[(pl * H + ih) * W + iw];
                        if (at < 0 || v > best) {
                            best = v;
                            at = ih * W + iw;
                        }
                    }
                const std::int64_t o = (pl * Ho + oh) * Wo + ow;
                c.outputs[0][o] = best;
                c.outputs[1][o] = double(at);
            }
    return Ok{};
}

Status maxPoolBackward(Call& c) {
    if (c.saved.size() < 2 || c.gradOutputs.empty() || c.gradInputs.empty() ||
        !fourDims(c.saved[0]))
        return missing(c);
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const Values& x = c.saved[0];
    const std::int64_t planes = x.shape[0] * x.shape[1], P = x.shape[2] * x.shape[3];
    const std::int64_t outPlane = c.gradOutputs[0].elements() / std::max<std::int64_t>(1, planes);
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t o = 0; o < outPlane; ++o) {
            const auto at = std::int64_t(c.saved[1][pl * outPlane + o]);
            if (at < 0 || at >= P) return makeError("maxpool2d: index outside its plane");
            c.gradInputs[0][pl * P + at] += c.gradOutputs[0][pl * outPlane + o];
        }
    return Ok{};
}

Status avgPoolForward(Call& c) {
    if (c.inputs.empty() || c.outputs.empty() || !fourDims(c.inputs[0])) return missing(c);
    const Values& x = c.inputs[0];
    const std::int64_t planes = x.shape[0] * x.shape[1], P = x.shape[2] * x.shape[3];
    for (std::int64_t pl = 0; pl < planes; ++pl) {
        double sum = 0.0;
        for (std::int64_t i = 0; i < P; ++i) sum += x[pl * P + i];
        c.outputs[0][pl] = sum / double(P);
    }
    return Ok{};
}

Status avgPoolBackward(Call& c) {
    if (c.saved.empty() || c.gradOutputs.empty() || c.gradInputs.empty() || !fourDims(c.saved[0]))
        return missing(c);
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const Values& x = c.saved[0];
    const std::int64_t planes = x.shape[0] * x.shape[1], P = x.shape[2] * x.shape[3];
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t i = 0; i < P; ++i)
            c.gradInputs[0][pl * P + i] += c.gradOutputs[0][pl] / double(P);
    return Ok{};
}

}  // namespace

Status convForward(Call& c) {
    switch (c.op->kind) {
        case OpKind::Conv2d:
            return conv2dForward(c);
        case OpKind::BatchNorm2d:
            return batchNormForward(c);
        case OpKind::MaxPool2d:
            return maxPoolForward(c);
        case OpKind::GlobalAvgPool:
            return avgPoolForward(c);
        default:
            return makeError("not a convolutional op");
    }
}

Status convBackward(Call& c) {
    switch (c.op->kind) {
        case OpKind::Conv2d:
            return conv2dBackward(c);
        case OpKind::BatchNorm2d:
            return batchNormBackward(c);
        case OpKind::MaxPool2d:
            return maxPoolBackward(c);
        case OpKind::GlobalAvgPool:
            return avgPoolBackward(c);
        default:
            return makeError("not a convolutional op");
    }
}

}  // namespace remat::reference
