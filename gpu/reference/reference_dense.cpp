// The float64 reference of the dense ops (reference_ops.h): linear, activations, softmax,
// the norms, dropout, mul, add, embedding and the losses, each written from its definition.
#include <algorithm>
#include <cmath>
#include <string>

#include "counter_rng.h"
#include "reference_ops.h"

namespace remat::reference {

// Attention lives in reference_attention.cpp.
Status attentionForward(Call& c);
Status attentionBackward(Call& c);
// Convolution, batch norm and pooling live in reference_conv.cpp.
Status convForward(Call& c);
Status convBackward(Call& c);
// Flash attention, in reference_flash.cpp.
Status flashForward(Call& c);
Status flashBackward(Call& c);
Status rotaryForward(Call& c);   // reference_rotary.cpp
Status rotaryBackward(Call& c);

namespace {

constexpr double kEps = 1e-5;  // LayerNorm and RMSNorm
constexpr double kPi = 3.14159265358979323846;

Status need(const Call& c, std::size_t inputs, std::size_t outputs, std::size_t params) {
    if (c.inputs.size() < inputs || c.outputs.size() < outputs || c.params.size() < params)
        return makeError(std::string(opKindName(c.op->kind)) + ": missing operands");
    return Ok{};
}
Status needBackward(const Call& c, std::size_t saved, std::size_t gradInputs,
                    std::size_t gradOutputs, std::size_t params) {
    if (c.saved.size() < saved || c.gradInputs.size() < gradInputs ||
        c.gradOutputs.size() < gradOutputs || c.params.size() < params ||
        c.paramGrads.size() < params)
        return makeError(std::string(opKindName(c.op->kind)) + ": missing operands");
    return Ok{};
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double geluTanh(double x) {
    const double k = std::sqrt(2.0 / kPi);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double geluTanhDerivative(double x) {
    const double k = std::sqrt(2.0 / kPi);
    const double u = k * (x + 0.044715 * x * x * x);
    const double t = std::tanh(u);
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
}

double unary(OpKind kind, double x) {
    switch (kind) {
        case OpKind::Relu: return x > 0.0 ? x : 0.0;
        case OpKind::Gelu: return geluTanh(x);
        case OpKind::Silu: return x * sigmoid(x);
        case OpKind::Tanh: return std::tanh(x);
        default: return sigmoid(x);
    }
}
// From what each op saves: the output for relu, tanh and sigmoid, the input for gelu, silu.
double unaryDerivative(OpKind kind, double s) {
    switch (kind) {
        case OpKind::Relu: return s > 0.0 ? 1.0 : 0.0;
        case OpKind::Gelu: return geluTanhDerivative(s);
        case OpKind::Silu: return sigmoid(s) + s * sigmoid(s) * (1.0 - sigmoid(s));
        case OpKind::Tanh: return 1.0 - s * s;
        default: return s * (1.0 - s);
    }
}

std::int64_t lastDim(const Values& t) { return t.shape.empty() ? 1 : t.shape.back(); }

Status linearForward(Call& c) {
    if (auto st = need(c, 1, 1, 1); !st) return st;
    const std::int64_t in = c.op->attrs.in, out = c.op->attrs.out;
    const Values& x = c.inputs[0];
    const Values& w = c.params[0];
    if (in <= 0 || out <= 0 || x.elements() % in != 0 || w.elements() != in * out)
        return makeError("linear: operands do not match in/out features");
    const std::int64_t rows = x.elements() / in;
    Values& y = c.outputs[0];
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t o = 0; o < out; ++o) {
            double acc = c.params.size() > 1 ? c.params[1][o] : 0.0;
            for (std::int64_t i = 0; i < in; ++i) acc += x[r * in + i] * w[o * in + i];
            y[r * out + o] = acc;
        }
    return Ok{};
}

Status linearBackward(Call& c) {
    if (auto st = needBackward(c, 1, 1, 1, 1); !st) return st;
    const Values& dy = c.gradOutputs[0];
    if (!dy.bound()) return Ok{};
    const std::int64_t in = c.op->attrs.in, out = c.op->attrs.out;
    const Values& x = c.saved[0];
    const Values& w = c.params[0];
    const std::int64_t rows = x.elements() / in;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t o = 0; o < out; ++o) {
            const double g = dy[r * out + o];
            if (c.gradInputs[0].bound())
                for (std::int64_t i = 0; i < in; ++i) c.gradInputs[0][r * in + i] += g * w[o * in + i];
            if (c.paramGrads[0].bound())
                for (std::int64_t i = 0; i < in; ++i) c.paramGrads[0][o * in + i] += g * x[r * in + i];
            if (c.paramGrads.size() > 1 && c.paramGrads[1].bound()) c.paramGrads[1][o] += g;
        }
    return Ok{};
}

Status softmaxForward(Call& c) {
    if (auto st = need(c, 1, 1, 0); !st) return st;
    const Values& x = c.inputs[0];
    const std::int64_t width = lastDim(x), rows = x.elements() / width;
    for (std::int64_t r = 0; r < rows; ++r) {
        double mx = -INFINITY;
        for (std::int64_t j = 0; j < width; ++j) mx = std::max(mx, x[r * width + j]);
        double z = 0.0;
        for (std::int64_t j = 0; j < width; ++j) z += std::exp(x[r * width + j] - mx);
        for (std::int64_t j = 0; j < width; ++j)
            c.outputs[0][r * width + j] = std::exp(x[r * width + j] - mx) / z;
    }
    return Ok{};
}

Status softmaxBackward(Call& c) {
    if (auto st = needBackward(c, 1, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const Values& y = c.saved[0];
    const Values& dy = c.gradOutputs[0];
    const std::int64_t width = lastDim(y), rows = y.elements() / width;
    for (std::int64_t r = 0; r < rows; ++r) {
        double dot = 0.0;
        for (std::int64_t j = 0; j < width; ++j) dot += y[r * width + j] * dy[r * width + j];
        for (std::int64_t j = 0; j < width; ++j)
            c.gradInputs[0][r * width + j] += y[r * width + j] * (dy[r * width + j] - dot);
    }
    return Ok{};
}

Status layerNormForward(Call& c) {
    if (auto st = need(c, 1, 3, 2); !st) return st;
    const Values& x = c.inputs[0];
    const std::int64_t width = lastDim(x), rows = x.elements() / width;
    for (std::int64_t r = 0; r < rows; ++r) {
        double mean = 0.0;
        for (std::int64_t j = 0; j < width; ++j) mean += x[r * width + j];
        mean /= double(width);
        double var = 0.0;
        for (std::int64_t j = 0; j < width; ++j) var += (x[r * width + j] - mean) * (x[r * width + j] - mean);
        var /= double(width);
        const double rstd = 1.0 / std::sqrt(var + kEps);
        c.outputs[1][r] = mean;
        c.outputs[2][r] = rstd;
        for (std::int64_t j = 0; j < width; ++j)
            c.outputs[0][r * width + j] =
                (x[r * width + j] - mean) * rstd * c.params[0][j] + c.params[1][j];
    }
    return Ok{};
}

// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy w, xhat = (x - mean) rstd, with the
// saved statistics.
Status layerNormBackward(Call& c) {
    if (auto st = needBackward(c, 3, 1, 1, 2); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const Values &x = c.saved[0], &mean = c.saved[1], &rstd = c.saved[2], &dy = c.gradOutputs[0];
    const Values& w = c.params[0];
    const std::int64_t width = lastDim(x), rows = x.elements() / width;
    for (std::int64_t r = 0; r < rows; ++r) {
        double meanG = 0.0, meanGX = 0.0;
        for (std::int64_t j = 0; j < width; ++j) {
            const double xhat = (x[r * width + j] - mean[r]) * rstd[r];
            meanG += dy[r * width + j] * w[j];
            meanGX += dy[r * width + j] * w[j] * xhat;
        }
        meanG /= double(width);
        meanGX /= double(width);
        for (std::int64_t j = 0; j < width; ++j) {
            const double xhat = (x[r * width + j] - mean[r]) * rstd[r];
            if (c.gradInputs[0].bound())
                c.gradInputs[0][r * width + j] +=
                    rstd[r] * (dy[r * width + j] * w[j] - meanG - xhat * meanGX);
            if (c.paramGrads[0].bound()) c.paramGrads[0][j] += dy[r * width + j] * xhat;
            if (c.paramGrads[1].bound()) c.paramGrads[1][j] += dy[r * width + j];
        }
    }
    return Ok{};
}

Status rmsNormForward(Call& c) {
    if (auto st = need(c, 1, 2, 1); !st) return st;
    const Values& x = c.inputs[0];
    const std::int64_t width = lastDim(x), rows = x.elements() / width;
    for (std::int64_t r = 0; r < rows; ++r) {
        double ms = 0.0;
        for (std::int64_t j = 0; j < width; ++j) ms += x[r * width + j] * x[r * width + j];
        const double rstd = 1.0 / std::sqrt(ms / double(width) + kEps);
        c.outputs[1][r] = rstd;
        for (std::int64_t j = 0; j < width; ++j)
            c.outputs[0][r * width + j] = x[r * width + j] * rstd * c.params[0][j];
    }
    return Ok{};
}

// y = x rstd w with rstd = (mean(x^2) + eps)^-1/2: dx = rstd g - x rstd^3 mean(g x), g = dy w.
Status rmsNormBackward(Call& c) {
    if (auto st = needBackward(c, 2, 1, 1, 1); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const Values &x = c.saved[0], &rstd = c.saved[1], &dy = c.gradOutputs[0], &w = c.params[0];
    const std::int64_t width = lastDim(x), rows = x.elements() / width;
    for (std::int64_t r = 0; r < rows; ++r) {
        double meanGX = 0.0;
        for (std::int64_t j = 0; j < width; ++j)
            meanGX += dy[r * width + j] * w[j] * x[r * width + j];
        meanGX /= double(width);
        const double rs = rstd[r];
        for (std::int64_t j = 0; j < width; ++j) {
            if (c.gradInputs[0].bound())
                c.gradInputs[0][r * width + j] +=
                    rs * dy[r * width + j] * w[j] - x[r * width + j] * rs * rs * rs * meanGX;
            if (c.paramGrads[0].bound()) c.paramGrads[0][j] += dy[r * width + j] * x[r * width + j] * rs;
        }
    }
    return Ok{};
}

Status dropoutForward(Call& c) {
    if (auto st = need(c, 1, 2, 0); !st) return st;
    const float p = float(c.op->attrs.p);  // the mask compares a float draw with p as float
    const std::uint64_t stream = rng::dropoutStream(c.seed, c.opId.value, c.rngDraw);
    const double scale = 1.0 / (1.0 - double(p));
    for (std::int64_t i = 0; i < c.inputs[0].elements(); ++i) {
        const bool keep = rng::uniform01(stream, std::uint64_t(i)) >= p;
        c.outputs[1][i] = keep ? 1.0 : 0.0;
        c.outputs[0][i] = keep ? c.inputs[0][i] * scale : 0.0;
    }
    return Ok{};
}

Status dropoutBackward(Call& c) {
    if (auto st = needBackward(c, 1, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const double scale = 1.0 / (1.0 - double(float(c.op->attrs.p)));
    for (std::int64_t i = 0; i < c.gradInputs[0].elements(); ++i)
        c.gradInputs[0][i] += c.saved[0][i] != 0.0 ? c.gradOutputs[0][i] * scale : 0.0;
    return Ok{};
}

Status embeddingForward(Call& c) {
    if (auto st = need(c, 1, 1, 1); !st) return st;
    const Values &ids = c.inputs[0], &wte = c.params[0];
    const std::int64_t vocab = wte.shape.at(0), width = wte.shape.at(1), seq = lastDim(ids);
    // Parameters: tokens, positions (attrs.positions > 0), token types (attrs.tokenTypes > 0;
    // every token's type id is 0).
    const bool positions = c.op->attrs.positions > 0 || (c.op->attrs.tokenTypes == 0 && c.params.size() > 1);
    const bool types = c.op->attrs.tokenTypes > 0;
    const std::size_t typeIndex = positions ? 2 : 1;
    if (types && c.params.size() <= typeIndex) return makeError("embedding: the token-type table is missing");
    for (std::int64_t i = 0; i < ids.elements(); ++i) {
        const auto id = std::int64_t(ids[i]);
        if (id < 0 || id >= vocab) return makeError("embedding: token id out of range");
        for (std::int64_t j = 0; j < width; ++j)
            c.outputs[0][i * width + j] =
                wte[id * width + j] + (positions ? c.params[1][(i % seq) * width + j] : 0.0) +
                (types ? c.params[typeIndex][j] : 0.0);
    }
    return Ok{};
}

Status embeddingBackward(Call& c) {
    if (auto st = needBackward(c, 1, 1, 1, 1); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const Values &ids = c.saved[0], &dy = c.gradOutputs[0];
    const std::int64_t width = c.params[0].shape.at(1), seq = lastDim(ids);
    const bool positions = c.op->attrs.positions > 0 || (c.op->attrs.tokenTypes == 0 && c.params.size() > 1);
    const std::size_t typeIndex = positions ? 2 : 1;
    const bool types = c.op->attrs.tokenTypes > 0 && c.paramGrads.size() > typeIndex &&
                       c.paramGrads[typeIndex].bound();
    for (std::int64_t i = 0; i < ids.elements(); ++i) {
        const auto id = std::int64_t(ids[i]);
        for (std::int64_t j = 0; j < width; ++j) {
            if (c.paramGrads[0].bound()) c.paramGrads[0][id * width + j] += dy[i * width + j];
            if (positions && c.paramGrads.size() > 1 && c.paramGrads[1].bound())
                c.paramGrads[1][(i % seq) * width + j] += dy[i * width + j];
            if (types) c.paramGrads[typeIndex][j] += dy[i * width + j];
        }
    }
    return Ok{};
}

Status crossEntropyForward(Call& c) {
    if (auto st = need(c, 2, 2, 0); !st) return st;
    const Values &x = c.inputs[0], &t = c.inputs[1];
    const std::int64_t classes = lastDim(x), rows = x.elements() / classes;
    double loss = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) {
        double mx = -INFINITY;
        for (std::int64_t j = 0; j < classes; ++j) mx = std::max(mx, x[r * classes + j]);
        double z = 0.0;
        for (std::int64_t j = 0; j < classes; ++j) z += std::exp(x[r * classes + j] - mx);
        const double lse = mx + std::log(z);
        for (std::int64_t j = 0; j < classes; ++j) c.outputs[1][r * classes + j] = x[r * classes + j] - lse;
        const auto target = std::int64_t(t[r]);
        if (target < 0 || target >= classes) return makeError("cross_entropy: target out of range");
        loss -= c.outputs[1][r * classes + target];
    }
    c.outputs[0][0] = loss / double(rows);
    return Ok{};
}

// d(mean loss)/dx = (softmax(x) - onehot) / rows, softmax from the saved log-probabilities.
Status crossEntropyBackward(Call& c) {
    if (auto st = needBackward(c, 2, 1, 0, 0); !st) return st;
    if (!c.gradInputs[0].bound()) return Ok{};
    const Values &logp = c.saved[0], &t = c.saved[1];
    const std::int64_t classes = lastDim(logp), rows = logp.elements() / classes;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < classes; ++j)
            c.gradInputs[0][r * classes + j] +=
                (std::exp(logp[r * classes + j]) - (j == std::int64_t(t[r]) ? 1.0 : 0.0)) *
                c.lossGradScale / double(rows);
    return Ok{};
}

Status mseForward(Call& c) {
    if (auto st = need(c, 2, 1, 0); !st) return st;
    double sum = 0.0;
    for (std::int64_t i = 0; i < c.inputs[0].elements(); ++i) {
        const double d = c.inputs[0][i] - c.inputs[1][i];
        sum += d * d;
    }
    c.outputs[0][0] = sum / double(c.inputs[0].elements());
    return Ok{};
}

Status mseBackward(Call& c) {
    if (auto st = needBackward(c, 2, 1, 0, 0); !st) return st;
    if (!c.gradInputs[0].bound()) return Ok{};
    const double n = double(c.saved[0].elements());
    for (std::int64_t i = 0; i < c.saved[0].elements(); ++i)
        c.gradInputs[0][i] += 2.0 * (c.saved[0][i] - c.saved[1][i]) * c.lossGradScale / n;
    return Ok{};
}

}  // namespace

Status forward(Call& c) {
    switch (c.op->kind) {
        case OpKind::Linear: return linearForward(c);
        case OpKind::Relu:
        case OpKind::Gelu:
        case OpKind::Silu:
        case OpKind::Tanh:
        case OpKind::Sigmoid:
            if (auto st = need(c, 1, 1, 0); !st) return st;
            for (std::int64_t i = 0; i < c.inputs[0].elements(); ++i)
                c.outputs[0][i] = unary(c.op->kind, c.inputs[0][i]);
            return Ok{};
        case OpKind::Softmax: return softmaxForward(c);
        case OpKind::LayerNorm: return layerNormForward(c);
        case OpKind::RmsNorm: return rmsNormForward(c);
        case OpKind::Dropout: return dropoutForward(c);
        case OpKind::Mul:
        case OpKind::Add:
            if (auto st = need(c, 2, 1, 0); !st) return st;
            for (std::int64_t i = 0; i < c.outputs[0].elements(); ++i)
                c.outputs[0][i] = c.op->kind == OpKind::Mul ? c.inputs[0][i] * c.inputs[1][i]
                                                            : c.inputs[0][i] + c.inputs[1][i];
            return Ok{};
        case OpKind::Embedding: return embeddingForward(c);
        case OpKind::AttnScores:
        case OpKind::AttnContext:
        case OpKind::ExpandKv: return attentionForward(c);
        case OpKind::FlashAttn: return flashForward(c);
        case OpKind::Rotary: return rotaryForward(c);
        case OpKind::CrossEntropy: return crossEntropyForward(c);
        case OpKind::Mse: return mseForward(c);
        case OpKind::Conv2d:
        case OpKind::BatchNorm2d:
        case OpKind::MaxPool2d:
        case OpKind::GlobalAvgPool: return convForward(c);
        default: break;
    }
    return makeError("the float64 reference has no " + std::string(opKindName(c.op->kind)));
}

Status backward(Call& c) {
    switch (c.op->kind) {
        case OpKind::Linear: return linearBackward(c);
        case OpKind::Relu:
        case OpKind::Gelu:
        case OpKind::Silu:
        case OpKind::Tanh:
        case OpKind::Sigmoid:
            if (auto st = needBackward(c, 1, 1, 1, 0); !st) return st;
            if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
            for (std::int64_t i = 0; i < c.gradInputs[0].elements(); ++i)
                c.gradInputs[0][i] += c.gradOutputs[0][i] * unaryDerivative(c.op->kind, c.saved[0][i]);
            return Ok{};
        case OpKind::Softmax: return softmaxBackward(c);
        case OpKind::LayerNorm: return layerNormBackward(c);
        case OpKind::RmsNorm: return rmsNormBackward(c);
        case OpKind::Dropout: return dropoutBackward(c);
        case OpKind::Mul:
            if (auto st = needBackward(c, 2, 2, 1, 0); !st) return st;
            if (!c.gradOutputs[0].bound()) return Ok{};
            for (std::int64_t i = 0; i < c.gradOutputs[0].elements(); ++i) {
                if (c.gradInputs[0].bound()) c.gradInputs[0][i] += c.gradOutputs[0][i] * c.saved[1][i];
                if (c.gradInputs[1].bound()) c.gradInputs[1][i] += c.gradOutputs[0][i] * c.saved[0][i];
            }
            return Ok{};
        case OpKind::Add:
            if (auto st = needBackward(c, 0, 2, 1, 0); !st) return st;
            if (!c.gradOutputs[0].bound()) return Ok{};
            for (auto& g : c.gradInputs)
                if (g.bound())
                    for (std::int64_t i = 0; i < g.elements(); ++i) g[i] += c.gradOutputs[0][i];
            return Ok{};
        case OpKind::Embedding: return embeddingBackward(c);
        case OpKind::AttnScores:
        case OpKind::AttnContext:
        case OpKind::ExpandKv: return attentionBackward(c);
        case OpKind::FlashAttn: return flashBackward(c);
        case OpKind::Rotary: return rotaryBackward(c);
        case OpKind::CrossEntropy: return crossEntropyBackward(c);
        case OpKind::Mse: return mseBackward(c);
        case OpKind::Conv2d:
        case OpKind::BatchNorm2d:
        case OpKind::MaxPool2d:
        case OpKind::GlobalAvgPool: return convBackward(c);
        default: break;
    }
    return makeError("the float64 reference has no " + std::string(opKindName(c.op->kind)));
}

void optimizerStep(OptimizerValues& o) {
    const bool mixed = !o.master.empty();
    for (std::size_t i = 0; i < o.param.size(); ++i) {
        const double g = o.grad[i];
        double w = mixed ? o.master[i] : o.param[i];
        switch (o.optimizer) {
            case Optimizer::Sgd: w -= o.learningRate * g; break;
            case Optimizer::Momentum:
                o.state1[i] = o.momentum * o.state1[i] + g;
                w -= o.learningRate * o.state1[i];
                break;
            case Optimizer::AdamW: w -= o.learningRate * o.weightDecay * w; [[fallthrough]];
            case Optimizer::Adam: {
                o.state1[i] = o.beta1 * o.state1[i] + (1.0 - o.beta1) * g;
                o.state2[i] = o.beta2 * o.state2[i] + (1.0 - o.beta2) * g * g;
                const double mhat = o.state1[i] / (1.0 - std::pow(o.beta1, double(o.step)));
                const double vhat = o.state2[i] / (1.0 - std::pow(o.beta2, double(o.step)));
                w -= o.learningRate * mhat / (std::sqrt(vhat) + o.epsilon);
                break;
            }
        }
        if (mixed) o.master[i] = w;
        o.param[i] = w;
    }
}

}  // namespace remat::reference
