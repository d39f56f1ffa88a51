// Elementwise and row-wise kernels of the CPU backend: activations, softmax, dropout, the
// SwiGLU product, the residual add and the embedding lookup. Element-wise work runs in fixed
// chunks, softmax by rows, and the embedding's gradient rows are summed column by column in
// token order, so the thread count never changes a bit (cpu_kernels.h).
#include <cmath>
#include <string>

#include "counter_rng.h"
#include "cpu_kernels.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

constexpr float kGeluK = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluC = 0.044715f;

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

float applyUnary(Unary kind, float x) {
    switch (kind) {
        case Unary::Relu: return x > 0.0f ? x : 0.0f;
        case Unary::Gelu: {
            const float u = kGeluK * (x + kGeluC * x * x * x);
            return 0.5f * x * (1.0f + std::tanh(u));
        }
        case Unary::Silu: return x * sigmoid(x);
        case Unary::Tanh: return std::tanh(x);
        case Unary::Sigmoid: return sigmoid(x);
    }
    return x;
}

// d(out)/d(in) from the saved tensor: the output for relu, tanh and sigmoid, the input for
// gelu and silu (what each op saves, docs/memory-model.md).
float unaryDerivative(Unary kind, float s) {
    switch (kind) {
        case Unary::Relu: return s > 0.0f ? 1.0f : 0.0f;
        case Unary::Tanh: return 1.0f - s * s;
        case Unary::Sigmoid: return s * (1.0f - s);
        case Unary::Gelu: {
            const float u = kGeluK * (s + kGeluC * s * s * s);
            const float t = std::tanh(u);
            const float du = kGeluK * (1.0f + 3.0f * kGeluC * s * s);
            return 0.5f * (1.0f + t) + 0.5f * s * (1.0f - t * t) * du;
        }
        case Unary::Silu: {
            const float sg = sigmoid(s);
            return sg * (1.0f + s * (1.0f - sg));
        }
    }
    return 0.0f;
}

// body(i) for every i in [0, n), in fixed chunks over the pool.
template <typename Body>
void eachElement(Scratch& s, std::int64_t n, Body&& body) {
    forEachChunk(s.pool(), n, kElementChunk, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) body(i);
    });
}

// body(r) for every row r in [0, rows) of `width` elements, in fixed chunks of rows.
template <typename Body>
void eachRow(Scratch& s, std::int64_t rows, std::int64_t width, Body&& body) {
    forEachChunk(s.pool(), rows, rowChunk(width), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t r = b; r < e; ++r) body(r);
    });
}

// Columns of an embedding gradient one task sums (every token in order, per column).
constexpr std::int64_t kColumnChunk = 64;

}  // namespace

Status unaryForward(Scratch& s, Unary kind, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 0); !st) return st;
    ReadF32 x(s, c.inputs[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    const std::int64_t n = c.outputs[0].elements();
    eachElement(s, n, [&](std::int64_t i) { y[i] = applyUnary(kind, x[i]); });
    return Ok{};
}

Status unaryBackward(Scratch& s, Unary kind, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    ReadF32 saved(s, c.saved[0]);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    const std::int64_t n = c.gradInputs[0].elements();
    eachElement(s, n, [&](std::int64_t i) { dx[i] += dy[i] * unaryDerivative(kind, saved[i]); });
    return Ok{};
}

Status softmaxForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 0); !st) return st;
    const std::int64_t width = c.inputs[0].shape.back();
    const std::int64_t rows = c.inputs[0].elements() / width;
    ReadF32 x(s, c.inputs[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    eachRow(s, rows, width, [&](std::int64_t r) {
        const float* xr = x.data() + r * width;
        float* yr = y.data() + r * width;
        float mx = -INFINITY;
        for (std::int64_t j = 0; j < width; ++j) mx = std::fmax(mx, xr[j]);
        double sum = 0.0;
        for (std::int64_t j = 0; j < width; ++j) {
            yr[j] = std::exp(xr[j] - mx);
            sum += yr[j];
        }
        const float inv = float(1.0 / sum);
        for (std::int64_t j = 0; j < width; ++j) yr[j] *= inv;
    });
    return Ok{};
}

Status softmaxBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const std::int64_t width = c.saved[0].shape.back();
    const std::int64_t rows = c.saved[0].elements() / width;
    ReadF32 y(s, c.saved[0]);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    eachRow(s, rows, width, [&](std::int64_t r) {
        const float* yr = y.data() + r * width;
        const float* dyr = dy.data() + r * width;
        float* dxr = dx.data() + r * width;
        double dot = 0.0;
        for (std::int64_t j = 0; j < width; ++j) dot += double(yr[j]) * dyr[j];
        const float d = float(dot);
        for (std::int64_t j = 0; j < width; ++j) dxr[j] += yr[j] * (dyr[j] - d);
    });
    return Ok{};
}

Status dropoutForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 2, 0); !st) return st;
    if (c.outputs[1].dtype != DType::U8) return makeError("dropout: the mask must be u8");
    const float p = float(c.op->attrs.p);
    const float scale = rng::dropoutScale(p);
    const std::uint64_t stream = rng::dropoutStream(c.seed, c.opId.value, c.rngDraw);
    ReadF32 x(s, c.inputs[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    auto* mask = static_cast<std::uint8_t*>(c.outputs[1].data);
    const std::int64_t n = c.outputs[0].elements();
    eachElement(s, n, [&](std::int64_t i) {
        const bool keep = rng::dropoutKeep(stream, std::uint64_t(i), p);
        mask[i] = keep ? 1 : 0;
        y[i] = keep ? x[i] * scale : 0.0f;
    });
    return Ok{};
}

Status dropoutBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    const float scale = rng::dropoutScale(float(c.op->attrs.p));
    const auto* mask = static_cast<const std::uint8_t*>(c.saved[0].data);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    const std::int64_t n = c.gradInputs[0].elements();
    eachElement(s, n, [&](std::int64_t i) {
        if (mask[i]) dx[i] += dy[i] * scale;
    });
    return Ok{};
}

Status mulForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 2, 1, 0); !st) return st;
    ReadF32 a(s, c.inputs[0]);
    ReadF32 b(s, c.inputs[1]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    const std::int64_t n = c.outputs[0].elements();
    eachElement(s, n, [&](std::int64_t i) { y[i] = a[i] * b[i]; });
    return Ok{};
}

Status mulBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 2, 2, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    ReadF32 a(s, c.saved[0]);
    ReadF32 b(s, c.saved[1]);
    ReadF32 dy(s, c.gradOutputs[0]);
    const std::int64_t n = c.saved[0].elements();
    if (c.gradInputs[0].bound()) {
        WriteF32 da(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
        eachElement(s, n, [&](std::int64_t i) { da[i] += dy[i] * b[i]; });
    }
    if (c.gradInputs[1].bound()) {
        WriteF32 db(s, c.gradInputs[1], WriteF32::Mode::Accumulate);
        eachElement(s, n, [&](std::int64_t i) { db[i] += dy[i] * a[i]; });
    }
    return Ok{};
}

Status addForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 2, 1, 0); !st) return st;
    ReadF32 a(s, c.inputs[0]);
    ReadF32 b(s, c.inputs[1]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    const std::int64_t n = c.outputs[0].elements();
    eachElement(s, n, [&](std::int64_t i) { y[i] = a[i] + b[i]; });
    return Ok{};
}

Status addBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 0, 2, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    ReadF32 dy(s, c.gradOutputs[0]);
    const std::int64_t n = c.gradOutputs[0].elements();
    for (int k = 0; k < 2; ++k) {
        if (!c.gradInputs[std::size_t(k)].bound()) continue;
        WriteF32 d(s, c.gradInputs[std::size_t(k)], WriteF32::Mode::Accumulate);
        eachElement(s, n, [&](std::int64_t i) { d[i] += dy[i]; });
    }
    return Ok{};
}

Status embeddingForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 1); !st) return st;
    const TensorRef& tokens = c.inputs[0];
    if (tokens.dtype != DType::I64) return makeError("embedding: token ids must be int64");
    const std::int64_t vocab = c.params[0].shape[0], width = c.params[0].shape[1];
    const std::int64_t seq = tokens.shape.back();
    const std::int64_t count = tokens.elements();
    // Parameters: the token table, the position table when attrs.positions > 0, the
    // token-type table when attrs.tokenTypes > 0 (its row 0: every token's type id is 0).
    const bool positions = c.op->attrs.positions > 0 || (c.op->attrs.tokenTypes == 0 && c.params.size() > 1);
    const bool types = c.op->attrs.tokenTypes > 0;
    const std::size_t typeIndex = positions ? 2 : 1;
    if (positions && c.params[1].shape[0] < seq)
        return makeError("embedding: sequence longer than the learned positions");
    if (types && c.params.size() <= typeIndex)
        return makeError("embedding: the token-type table is missing");
    const auto* ids = static_cast<const std::int64_t*>(tokens.data);
    for (std::int64_t i = 0; i < count; ++i)
        if (ids[i] < 0 || ids[i] >= vocab)
            return makeError("embedding: token id " + std::to_string(ids[i]) + " outside [0, " +
                             std::to_string(vocab) + ")");
    ReadF32 wte(s, c.params[0]);
    ReadF32 wpe(s, positions ? c.params[1] : TensorRef{});
    ReadF32 wtt(s, types ? c.params[typeIndex] : TensorRef{});
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    eachRow(s, count, width, [&](std::int64_t i) {
        const float* row = wte.data() + ids[i] * width;
        float* out = y.data() + i * width;
        if (positions) {
            const float* pos = wpe.data() + (i % seq) * width;
            for (std::int64_t j = 0; j < width; ++j) out[j] = row[j] + pos[j];
        } else {
            for (std::int64_t j = 0; j < width; ++j) out[j] = row[j];
        }
        if (types)
            for (std::int64_t j = 0; j < width; ++j) out[j] += wtt.data()[j];
    });
    return Ok{};
}

Status embeddingBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 1); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const TensorRef& tokens = c.saved[0];
    const std::int64_t vocab = c.params[0].shape[0], width = c.params[0].shape[1];
    const std::int64_t seq = tokens.shape.back();
    const std::int64_t count = tokens.elements();
    const auto* ids = static_cast<const std::int64_t*>(tokens.data);
    for (std::int64_t i = 0; i < count; ++i)
        if (ids[i] < 0 || ids[i] >= vocab) return makeError("embedding: token id out of range");
    ReadF32 dy(s, c.gradOutputs[0]);
    // Repeated ids add into one row: each task owns a range of columns and visits the
    // tokens in order, so every element sums its contributions in token order.
    {
        WriteF32 dwte(s, c.paramGrads[0], WriteF32::Mode::Accumulate);
        forEachChunk(s.pool(), width, kColumnChunk, [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t i = 0; i < count; ++i) {
                float* g = dwte.data() + ids[i] * width;
                const float* d = dy.data() + i * width;
                for (std::int64_t j = j0; j < j1; ++j) g[j] += d[j];
            }
        });
    }
    const bool positions = c.op->attrs.positions > 0 || (c.op->attrs.tokenTypes == 0 && c.params.size() > 1);
    const std::size_t typeIndex = positions ? 2 : 1;
    if (c.op->attrs.tokenTypes > 0 && c.paramGrads.size() > typeIndex && c.paramGrads[typeIndex].bound()) {
        // Every token has type 0: row 0 gathers every token's gradient, in token order.
        WriteF32 dwtt(s, c.paramGrads[typeIndex], WriteF32::Mode::Accumulate);
        forEachChunk(s.pool(), width, kColumnChunk, [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t i = 0; i < count; ++i) {
                const float* d = dy.data() + i * width;
                for (std::int64_t j = j0; j < j1; ++j) dwtt.data()[j] += d[j];
            }
        });
    }
    if (positions && c.paramGrads.size() > 1 && c.paramGrads[1].bound()) {
        WriteF32 dwpe(s, c.paramGrads[1], WriteF32::Mode::Accumulate);
        forEachChunk(s.pool(), width, kColumnChunk, [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t i = 0; i < count; ++i) {
                float* g = dwpe.data() + (i % seq) * width;
                const float* d = dy.data() + i * width;
                for (std::int64_t j = j0; j < j1; ++j) g[j] += d[j];
            }
        });
    }
    return Ok{};
}

}  // namespace remat::cpu
