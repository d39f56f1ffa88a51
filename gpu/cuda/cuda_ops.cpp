// CudaBackend's op entries: each checks the operands the program bound (count, dtype,
// shape), derives the sizes the launcher needs from the buffers' shapes and the op's attributes,
// and enqueues the launcher on the backend's stream. Backward entries accumulate into the
// gradients they are given and skip those left unbound.

#include <cmath>

#include "counter_rng.h"
#include "cuda_backend.h"
#include "cuda_state.h"
#include "launchers.h"

namespace remat {

namespace cu = gpu::cuda;

namespace {

constexpr float kNormEps = 1e-5f;  // LayerNorm and RMSNorm (gpu/README.md)

bool isFloat(DType t) {
    return t == DType::F32 || t == DType::BF16 || t == DType::F16;
}

// Collects the first operand problem of a call, named after the op.
class Check {
public:
    explicit Check(const OpCall& c) : m_c(c) {}

    Check& count(const char* list, const std::vector<TensorRef>& v, std::size_t atLeast) {
        if (ok() && v.size() < atLeast)
            fail(std::string(list) + ": expected " + std::to_string(atLeast) + " operands, got " +
                 std::to_string(v.size()));
        return *this;
    }
    Check& bound(const char* what, const TensorRef& t) {
        if (ok() && !t.bound()) fail(std::string(what) + " is not bound");
        return *this;
    }
    Check& dtype(const char* what, const TensorRef& t, DType want) {
        if (ok() && t.bound() && t.dtype != want)
            fail(std::string(what) + " is " + std::string(dtypeName(t.dtype)) + ", expected " +
                 std::string(dtypeName(want)));
        return *this;
    }
    Check& floating(const char* what, const TensorRef& t) {
        if (ok() && t.bound() && !isFloat(t.dtype))
            fail(std::string(what) + " must be fp32, bf16 or fp16, not " +
                 std::string(dtypeName(t.dtype)));
        return *this;
    }
    Check& elements(const char* what, const TensorRef& t, std::int64_t want) {
        if (ok() && t.bound() && t.elements() != want)
            fail(std::string(what) + " has " + std::to_string(t.elements()) +
                 " elements, expected " + std::to_string(want));
        return *this;
    }
    Check& that(bool cond, const std::string& what) {
        if (ok() && !cond) fail(what);
        return *this;
    }
    bool ok() const { return m_error.empty(); }
    Status status() const {
        if (ok()) return Ok{};
        return makeError(std::string(opKindName(m_c.op->kind)) + " '" + m_c.op->name +
                         "': " + m_error);
    }

private:
    void fail(std::string e) { m_error = std::move(e); }
    const OpCall& m_c;
    std::string m_error;
};

// The pointer of an optional operand: null when absent or unbound.
void* opt(const std::vector<TensorRef>& v, std::size_t i) {
    return i < v.size() ? v[i].data : nullptr;
}

std::int64_t lastDim(const TensorRef& t) {
    return t.shape.empty() ? 1 : t.shape.back();
}

cu::AttnShape attnShape(const OpCall& c, const TensorRef& qkv) {
    const OpAttrs& a = c.op->attrs;
    cu::AttnShape s;
    s.tokens = a.tokens;
    s.heads = a.heads;
    s.kvHeads = a.kvHeads > 0 ? a.kvHeads : a.heads;
    s.headDim = a.headDim;
    s.causal = a.causal;
    const std::int64_t perSample = a.tokens * (s.heads + 2 * s.kvHeads) * a.headDim;
    s.batch = perSample > 0 ? qkv.elements() / perSample : 0;
    return s;
}

Status checkAttn(const OpCall& c, const TensorRef& qkv, const cu::AttnShape& s) {
    const std::int64_t perSample = s.tokens * (s.heads + 2 * s.kvHeads) * s.headDim;
    return Check(c)
        .that(s.tokens > 0 && s.heads > 0 && s.headDim > 0 && s.heads % s.kvHeads == 0,
              "attention attributes (tokens, heads, kv heads, head size) are inconsistent")
        .that(perSample > 0 && qkv.elements() == s.batch * perSample && s.batch > 0,
              "qkv does not hold whole samples of [tokens, (heads + 2 kv heads) head size]")
        .floating("qkv", qkv)
        .status();
}

}  // namespace

// ---- linear -----------------------------------------------------------------------------------

Status CudaBackend::linearForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 1).count("params", c.params, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0], &w = c.params[0];
        const std::int64_t in = c.op->attrs.in, out = c.op->attrs.out;
        const bool bias = c.op->attrs.bias;
        k.bound("input", x).bound("output", y).bound("weight", w).floating("input", x);
        k.dtype("output", y, x.dtype).dtype("weight", w, x.dtype);
        k.that(in > 0 && out > 0 && x.elements() % in == 0, "input is not a multiple of `in`");
        k.elements("weight", w, in * out)
            .elements("output", y, x.elements() / std::max<std::int64_t>(in, 1) * out);
        if (bias)
            k.count("params", c.params, 2)
                .bound("bias", c.params[1])
                .elements("bias", c.params[1], out)
                .dtype("bias", c.params[1], x.dtype);
        if (!k.ok()) return k.status();
        cu::linearForward(m_state->blas, x.dtype, x.data, w.data, bias ? c.params[1].data : nullptr,
                          y.data, x.elements() / in, in, out, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::linearBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 1)
            .count("params", c.params, 1)
            .count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.saved[0], &w = c.params[0], &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};  // no gradient reaches this op
        const std::int64_t in = c.op->attrs.in, out = c.op->attrs.out;
        k.bound("saved input", x)
            .floating("saved input", x)
            .dtype("weight", w, x.dtype)
            .dtype("output gradient", dy, x.dtype);
        k.that(in > 0 && out > 0 && x.elements() % in == 0, "input is not a multiple of `in`");
        const std::int64_t rows = in > 0 ? x.elements() / in : 0;
        k.elements("output gradient", dy, rows * out);
        void* dx = opt(c.gradInputs, 0);
        void* dw = opt(c.paramGrads, 0);
        void* db = c.op->attrs.bias ? opt(c.paramGrads, 1) : nullptr;
        if (dx)
            k.elements("input gradient", c.gradInputs[0], x.elements())
                .dtype("input gradient", c.gradInputs[0], x.dtype);
        if (dw)
            k.dtype("weight gradient", c.paramGrads[0], x.dtype)
                .elements("weight gradient", c.paramGrads[0], in * out);
        if (db)
            k.dtype("bias gradient", c.paramGrads[1], x.dtype)
                .elements("bias gradient", c.paramGrads[1], out);
        if (!k.ok()) return k.status();
        cu::linearBackward(m_state->blas, x.dtype, x.data, w.data, dy.data, dx, dw, db, rows, in,
                           out, m_state->stream);
        return Ok{};
    });
}

// ---- activations --------------------------------------------------------------------------------

Status CudaBackend::activationForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0];
        k.bound("input", x)
            .bound("output", y)
            .floating("input", x)
            .dtype("output", y, x.dtype)
            .elements("output", y, x.elements());
        if (!k.ok()) return k.status();
        cu::activationForward(c.op->kind, x.dtype, x.data, y.data, x.elements(), m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::activationBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 1).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &saved = c.saved[0], &dy = c.gradOutputs[0];
        void* dx = opt(c.gradInputs, 0);
        if (!dy.bound() || !dx) return Ok{};
        k.bound("saved tensor", saved)
            .floating("saved tensor", saved)
            .dtype("output gradient", dy, saved.dtype)
            .elements("output gradient", dy, saved.elements())
            .dtype("input gradient", c.gradInputs[0], saved.dtype)
            .elements("input gradient", c.gradInputs[0], saved.elements());
        if (!k.ok()) return k.status();
        cu::activationBackward(c.op->kind, saved.dtype, saved.data, dy.data, dx, saved.elements(),
                               m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::reluForward(const OpCall& c) {
    return activationForward(c);
}
Status CudaBackend::reluBackward(const OpCall& c) {
    return activationBackward(c);
}
Status CudaBackend::geluForward(const OpCall& c) {
    return activationForward(c);
}
Status CudaBackend::geluBackward(const OpCall& c) {
    return activationBackward(c);
}
Status CudaBackend::siluForward(const OpCall& c) {
    return activationForward(c);
}
Status CudaBackend::siluBackward(const OpCall& c) {
    return activationBackward(c);
}
Status CudaBackend::tanhForward(const OpCall& c) {
    return activationForward(c);
}
Status CudaBackend::tanhBackward(const OpCall& c) {
    return activationBackward(c);
}
Status CudaBackend::sigmoidForward(const OpCall& c) {
    return activationForward(c);
}
Status CudaBackend::sigmoidBackward(const OpCall& c) {
    return activationBackward(c);
}

// ---- softmax and norms
// ----------------------------------------------------------------------------

Status CudaBackend::softmaxForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0];
        k.bound("input", x)
            .bound("output", y)
            .floating("input", x)
            .dtype("output", y, x.dtype)
            .elements("output", y, x.elements());
        if (!k.ok()) return k.status();
        const std::int64_t cols = lastDim(x);
        cu::softmaxForward(x.dtype, x.data, y.data, x.elements() / cols, cols, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::softmaxBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 1).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &y = c.saved[0], &dy = c.gradOutputs[0];
        void* dx = opt(c.gradInputs, 0);
        if (!dy.bound() || !dx) return Ok{};
        k.bound("saved output", y)
            .floating("saved output", y)
            .dtype("output gradient", dy, y.dtype)
            .elements("output gradient", dy, y.elements())
            .dtype("input gradient", c.gradInputs[0], y.dtype)
            .elements("input gradient", c.gradInputs[0], y.elements());
        if (!k.ok()) return k.status();
        const std::int64_t cols = lastDim(y);
        cu::softmaxBackward(y.dtype, y.data, dy.data, dx, y.elements() / cols, cols,
                            m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::layerNormForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 3).count("params", c.params, 2);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0], &mean = c.outputs[1],
                        &rstd = c.outputs[2];
        const std::int64_t cols = lastDim(x), rows = x.elements() / std::max<std::int64_t>(cols, 1);
        k.bound("input", x)
            .bound("output", y)
            .bound("mean", mean)
            .bound("rstd", rstd)
            .floating("input", x)
            .dtype("output", y, x.dtype)
            .dtype("mean", mean, DType::F32)
            .dtype("rstd", rstd, DType::F32)
            .elements("mean", mean, rows)
            .elements("rstd", rstd, rows)
            .elements("weight", c.params[0], cols)
            .elements("bias", c.params[1], cols)
            .dtype("weight", c.params[0], x.dtype)
            .dtype("bias", c.params[1], x.dtype);
        if (!k.ok()) return k.status();
        cu::layerNormForward(x.dtype, x.data, c.params[0].data, c.params[1].data, y.data,
                             static_cast<float*>(mean.data), static_cast<float*>(rstd.data), rows,
                             cols, kNormEps, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::layerNormBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 3)
            .count("params", c.params, 2)
            .count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.saved[0], &mean = c.saved[1], &rstd = c.saved[2],
                        &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        const std::int64_t cols = lastDim(x), rows = x.elements() / std::max<std::int64_t>(cols, 1);
        k.bound("saved input", x)
            .floating("saved input", x)
            .dtype("mean", mean, DType::F32)
            .dtype("rstd", rstd, DType::F32)
            .elements("mean", mean, rows)
            .elements("rstd", rstd, rows)
            .dtype("output gradient", dy, x.dtype)
            .elements("output gradient", dy, x.elements())
            .dtype("weight", c.params[0], x.dtype)
            .elements("weight", c.params[0], cols);
        if (!k.ok()) return k.status();
        cu::layerNormBackward(x.dtype, x.data, static_cast<const float*>(mean.data),
                              static_cast<const float*>(rstd.data), c.params[0].data, dy.data,
                              opt(c.gradInputs, 0), opt(c.paramGrads, 0), opt(c.paramGrads, 1),
                              rows, cols, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::rmsNormForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 2).count("params", c.params, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0], &rstd = c.outputs[1];
        const std::int64_t cols = lastDim(x), rows = x.elements() / std::max<std::int64_t>(cols, 1);
        k.bound("input", x)
            .bound("output", y)
            .bound("rstd", rstd)
            .floating("input", x)
            .dtype("output", y, x.dtype)
            .dtype("rstd", rstd, DType::F32)
            .elements("rstd", rstd, rows)
            .elements("weight", c.params[0], cols)
            .dtype("weight", c.params[0], x.dtype);
        if (!k.ok()) return k.status();
        cu::rmsNormForward(x.dtype, x.data, c.params[0].data, y.data,
                           static_cast<float*>(rstd.data), rows, cols, kNormEps, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::rmsNormBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 2)
            .count("params", c.params, 1)
            .count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.saved[0], &rstd = c.saved[1], &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        const std::int64_t cols = lastDim(x), rows = x.elements() / std::max<std::int64_t>(cols, 1);
        k.bound("saved input", x)
            .floating("saved input", x)
            .dtype("rstd", rstd, DType::F32)
            .elements("rstd", rstd, rows)
            .dtype("output gradient", dy, x.dtype)
            .elements("output gradient", dy, x.elements())
            .dtype("weight", c.params[0], x.dtype);
        if (!k.ok()) return k.status();
        cu::rmsNormBackward(x.dtype, x.data, static_cast<const float*>(rstd.data), c.params[0].data,
                            dy.data, opt(c.gradInputs, 0), opt(c.paramGrads, 0), rows, cols,
                            m_state->stream);
        return Ok{};
    });
}

// ---- dropout, mul, add --------------------------------------------------------------------------

Status CudaBackend::dropoutForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 2);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0], &mask = c.outputs[1];
        const float p = float(c.op->attrs.p);
        k.bound("input", x)
            .bound("output", y)
            .bound("mask", mask)
            .floating("input", x)
            .dtype("output", y, x.dtype)
            .dtype("mask", mask, DType::U8)
            .elements("output", y, x.elements())
            .elements("mask", mask, x.elements())
            .that(p >= 0.0f && p < 1.0f, "p must be in [0, 1)");
        if (!k.ok()) return k.status();
        const std::uint64_t stream = rng::dropoutStream(c.seed, c.opId.value, c.rngDraw);
        cu::dropoutForward(x.dtype, x.data, y.data, static_cast<std::uint8_t*>(mask.data),
                           x.elements(), p, stream, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::dropoutBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 1).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &mask = c.saved[0], &dy = c.gradOutputs[0];
        void* dx = opt(c.gradInputs, 0);
        if (!dy.bound() || !dx) return Ok{};
        k.bound("mask", mask)
            .dtype("mask", mask, DType::U8)
            .floating("output gradient", dy)
            .elements("output gradient", dy, mask.elements())
            .dtype("input gradient", c.gradInputs[0], dy.dtype)
            .elements("input gradient", c.gradInputs[0], mask.elements());
        if (!k.ok()) return k.status();
        cu::dropoutBackward(dy.dtype, static_cast<const std::uint8_t*>(mask.data), dy.data, dx,
                            mask.elements(), float(c.op->attrs.p), m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::mulForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 2).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &a = c.inputs[0], &b = c.inputs[1], &y = c.outputs[0];
        k.bound("a", a)
            .bound("b", b)
            .bound("output", y)
            .floating("a", a)
            .dtype("b", b, a.dtype)
            .dtype("output", y, a.dtype)
            .elements("b", b, a.elements())
            .elements("output", y, a.elements());
        if (!k.ok()) return k.status();
        cu::mulForward(a.dtype, a.data, b.data, y.data, a.elements(), m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::mulBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 2).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &a = c.saved[0], &b = c.saved[1], &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        void* da = opt(c.gradInputs, 0);
        void* db = opt(c.gradInputs, 1);
        k.bound("a", a)
            .bound("b", b)
            .floating("a", a)
            .dtype("b", b, a.dtype)
            .dtype("output gradient", dy, a.dtype)
            .elements("b", b, a.elements())
            .elements("output gradient", dy, a.elements());
        if (da)
            k.dtype("gradient of a", c.gradInputs[0], a.dtype)
                .elements("gradient of a", c.gradInputs[0], a.elements());
        if (db)
            k.dtype("gradient of b", c.gradInputs[1], a.dtype)
                .elements("gradient of b", c.gradInputs[1], a.elements());
        if (!k.ok()) return k.status();
        cu::mulBackward(a.dtype, a.data, b.data, dy.data, da, db, a.elements(), m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::addForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 2).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &a = c.inputs[0], &b = c.inputs[1], &y = c.outputs[0];
        k.bound("a", a)
            .bound("b", b)
            .bound("output", y)
            .floating("a", a)
            .dtype("b", b, a.dtype)
            .dtype("output", y, a.dtype)
            .elements("b", b, a.elements())
            .elements("output", y, a.elements());
        if (!k.ok()) return k.status();
        cu::addForward(a.dtype, a.data, b.data, y.data, a.elements(), m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::addBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef& dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        k.floating("output gradient", dy);
        for (std::size_t i = 0; i < c.gradInputs.size() && i < 2; ++i)
            if (c.gradInputs[i].bound())
                k.dtype("input gradient", c.gradInputs[i], dy.dtype)
                    .elements("input gradient", c.gradInputs[i], dy.elements());
        if (!k.ok()) return k.status();
        // Two separate accumulations, so a gradient bound to both inputs (x + x) gets both.
        for (std::size_t i = 0; i < c.gradInputs.size() && i < 2; ++i)
            if (c.gradInputs[i].bound())
                cu::accumulate(dy.dtype, dy.data, c.gradInputs[i].data, dy.elements(),
                               m_state->stream);
        return Ok{};
    });
}

// ---- embedding
// ------------------------------------------------------------------------------------

Status CudaBackend::embeddingForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 1).count("params", c.params, 1);
        if (!k.ok()) return k.status();
        const TensorRef &tok = c.inputs[0], &y = c.outputs[0], &wte = c.params[0];
        const OpAttrs& a = c.op->attrs;
        const TensorRef* wpe = c.params.size() > 1 && c.params[1].bound() ? &c.params[1] : nullptr;
        const std::int64_t batch = a.tokens > 0 ? tok.elements() / a.tokens : 0;
        k.bound("token ids", tok)
            .dtype("token ids", tok, DType::I64)
            .bound("output", y)
            .floating("output", y)
            .dtype("wte", wte, y.dtype)
            .that(a.tokens > 0 && a.out > 0 && a.vocab > 0 && tok.elements() == batch * a.tokens,
                  "token ids do not hold whole samples")
            .elements("wte", wte, a.vocab * a.out)
            .elements("output", y, tok.elements() * a.out);
        if (wpe)
            k.dtype("wpe", *wpe, y.dtype)
                .that(a.positions >= a.tokens, "fewer positions than tokens")
                .elements("wpe", *wpe, a.positions * a.out);
        if (!k.ok()) return k.status();
        cu::embeddingForward(y.dtype, static_cast<const std::int64_t*>(tok.data), wte.data,
                             wpe ? wpe->data : nullptr, y.data, batch, a.tokens, a.out, a.vocab,
                             m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::embeddingBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 1).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &tok = c.saved[0], &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        const OpAttrs& a = c.op->attrs;
        const std::int64_t batch = a.tokens > 0 ? tok.elements() / a.tokens : 0;
        void* dwte = opt(c.paramGrads, 0);
        void* dwpe = opt(c.paramGrads, 1);
        k.bound("token ids", tok)
            .dtype("token ids", tok, DType::I64)
            .floating("output gradient", dy)
            .that(a.tokens > 0 && a.out > 0 && a.vocab > 0 && tok.elements() == batch * a.tokens,
                  "token ids do not hold whole samples")
            .elements("output gradient", dy, tok.elements() * a.out);
        if (dwte)
            k.dtype("wte gradient", c.paramGrads[0], dy.dtype)
                .elements("wte gradient", c.paramGrads[0], a.vocab * a.out);
        if (dwpe)
            k.dtype("wpe gradient", c.paramGrads[1], dy.dtype)
                .elements("wpe gradient", c.paramGrads[1], a.positions * a.out)
                .that(a.positions >= a.tokens, "fewer positions than tokens");
        if (!k.ok()) return k.status();
        cu::embeddingBackward(dy.dtype, static_cast<const std::int64_t*>(tok.data), dy.data, dwte,
                              dwpe, batch, a.tokens, a.out, a.vocab, m_state->stream);
        return Ok{};
    });
}

// ---- attention
// ------------------------------------------------------------------------------------

Status CudaBackend::attnScoresForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &qkv = c.inputs[0], &s = c.outputs[0];
        const TensorRef* kExp = c.inputs.size() > 1 ? &c.inputs[1] : nullptr;
        const cu::AttnShape a = attnShape(c, qkv);
        if (auto st = checkAttn(c, qkv, a); !st) return st;
        k.bound("scores", s)
            .dtype("scores", s, qkv.dtype)
            .elements("scores", s, a.batch * a.heads * a.tokens * a.tokens);
        if (kExp)
            k.bound("expanded K", *kExp)
                .dtype("expanded K", *kExp, qkv.dtype)
                .elements("expanded K", *kExp, a.batch * a.heads * a.tokens * a.headDim);
        if (!k.ok()) return k.status();
        cu::attnScoresForward(m_state->blas, qkv.dtype, qkv.data, kExp ? kExp->data : nullptr,
                              s.data, a, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::attnScoresBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 1).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &qkv = c.saved[0], &ds = c.gradOutputs[0];
        if (!ds.bound()) return Ok{};
        const TensorRef* kExp = c.saved.size() > 1 ? &c.saved[1] : nullptr;
        const cu::AttnShape a = attnShape(c, qkv);
        if (auto st = checkAttn(c, qkv, a); !st) return st;
        void* dQkv = opt(c.gradInputs, 0);
        void* dKExp = kExp ? opt(c.gradInputs, 1) : nullptr;
        k.dtype("scores gradient", ds, qkv.dtype)
            .elements("scores gradient", ds, a.batch * a.heads * a.tokens * a.tokens);
        if (kExp)
            k.bound("expanded K", *kExp)
                .elements("expanded K", *kExp, a.batch * a.heads * a.tokens * a.headDim);
        if (dQkv)
            k.dtype("qkv gradient", c.gradInputs[0], qkv.dtype)
                .elements("qkv gradient", c.gradInputs[0], qkv.elements());
        if (dKExp)
            k.dtype("expanded K gradient", c.gradInputs[1], qkv.dtype)
                .elements("expanded K gradient", c.gradInputs[1], kExp->elements());
        if (!k.ok()) return k.status();
        cu::attnScoresBackward(m_state->blas, qkv.dtype, qkv.data, kExp ? kExp->data : nullptr,
                               ds.data, dQkv, dKExp, a, m_state->stream);
        return Ok{};
    });
}

// The context's second input is the qkv tensor ([B, T, (H + 2 KV) D]) or, with grouped KV
// heads, the expanded V ([B, H, T, D]): told apart by rank, as the CPU reference does.
Status CudaBackend::attnContextForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 2).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &p = c.inputs[0], &src = c.inputs[1], &y = c.outputs[0];
        const OpAttrs& at = c.op->attrs;
        const bool expanded = src.shape.size() == 4;
        cu::AttnShape a;
        a.tokens = at.tokens;
        a.heads = at.heads;
        a.kvHeads = at.kvHeads > 0 ? at.kvHeads : at.heads;
        a.headDim = at.headDim;
        const std::int64_t perSample = at.heads * at.tokens * at.tokens;
        a.batch = perSample > 0 ? p.elements() / perSample : 0;
        k.bound("probabilities", p)
            .bound("values", src)
            .bound("output", y)
            .floating("probabilities", p)
            .dtype("values", src, p.dtype)
            .dtype("output", y, p.dtype)
            .that(a.batch > 0 && p.elements() == a.batch * perSample,
                  "probabilities do not hold whole samples")
            .that(a.heads % a.kvHeads == 0 && a.headDim > 0,
                  "attention attributes are inconsistent")
            .elements("values", src,
                      expanded ? a.batch * a.heads * a.tokens * a.headDim
                               : a.batch * a.tokens * (a.heads + 2 * a.kvHeads) * a.headDim)
            .elements("output", y, a.batch * a.tokens * a.heads * a.headDim);
        if (!k.ok()) return k.status();
        cu::attnContextForward(m_state->blas, p.dtype, p.data, expanded ? nullptr : src.data,
                               expanded ? src.data : nullptr, y.data, a, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::attnContextBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 2).count("gradOutputs", c.gradOutputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &p = c.saved[0], &src = c.saved[1], &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        const OpAttrs& at = c.op->attrs;
        const bool expanded = src.shape.size() == 4;
        cu::AttnShape a;
        a.tokens = at.tokens;
        a.heads = at.heads;
        a.kvHeads = at.kvHeads > 0 ? at.kvHeads : at.heads;
        a.headDim = at.headDim;
        const std::int64_t perSample = at.heads * at.tokens * at.tokens;
        a.batch = perSample > 0 ? p.elements() / perSample : 0;
        void* dP = opt(c.gradInputs, 0);
        void* dSrc = opt(c.gradInputs, 1);
        k.bound("probabilities", p)
            .bound("values", src)
            .floating("probabilities", p)
            .dtype("values", src, p.dtype)
            .dtype("output gradient", dy, p.dtype)
            .that(a.batch > 0 && p.elements() == a.batch * perSample,
                  "probabilities do not hold whole samples")
            .that(a.heads % a.kvHeads == 0 && a.headDim > 0,
                  "attention attributes are inconsistent")
            .elements("output gradient", dy, a.batch * a.tokens * a.heads * a.headDim);
        if (dP)
            k.dtype("probabilities gradient", c.gradInputs[0], p.dtype)
                .elements("probabilities gradient", c.gradInputs[0], p.elements());
        if (dSrc)
            k.dtype("values gradient", c.gradInputs[1], p.dtype)
                .elements("values gradient", c.gradInputs[1], src.elements());
        if (!k.ok()) return k.status();
        cu::attnContextBackward(m_state->blas, p.dtype, p.data, expanded ? nullptr : src.data,
                                expanded ? src.data : nullptr, dy.data, dP,
                                expanded ? nullptr : dSrc, expanded ? dSrc : nullptr, a,
                                m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::expandKvForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 2);
        if (!k.ok()) return k.status();
        const TensorRef &qkv = c.inputs[0], &kx = c.outputs[0], &vx = c.outputs[1];
        const cu::AttnShape a = attnShape(c, qkv);
        if (auto st = checkAttn(c, qkv, a); !st) return st;
        const std::int64_t n = a.batch * a.heads * a.tokens * a.headDim;
        k.bound("expanded K", kx)
            .bound("expanded V", vx)
            .dtype("expanded K", kx, qkv.dtype)
            .dtype("expanded V", vx, qkv.dtype)
            .elements("expanded K", kx, n)
            .elements("expanded V", vx, n);
        if (!k.ok()) return k.status();
        cu::expandKvForward(qkv.dtype, qkv.data, kx.data, vx.data, a, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::expandKvBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("gradOutputs", c.gradOutputs, 2).count("gradInputs", c.gradInputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef& dQkv = c.gradInputs[0];
        if (!dQkv.bound()) return Ok{};
        const cu::AttnShape a = attnShape(c, dQkv);
        if (auto st = checkAttn(c, dQkv, a); !st) return st;
        const std::int64_t n = a.batch * a.heads * a.tokens * a.headDim;
        for (int i = 0; i < 2; ++i)
            k.dtype("expanded gradient", c.gradOutputs[std::size_t(i)], dQkv.dtype)
                .elements("expanded gradient", c.gradOutputs[std::size_t(i)], n);
        if (!k.ok()) return k.status();
        cu::expandKvBackward(dQkv.dtype, c.gradOutputs[0].data, c.gradOutputs[1].data, dQkv.data, a,
                             m_state->stream);
        return Ok{};
    });
}

// ---- losses
// ---------------------------------------------------------------------------------------

// For 16-bit logits the program declares an fp32 copy of them as workspace (PyTorch's
// logits.float()); the fused log-softmax reads the 16-bit logits directly, so that workspace
// is allocated as the program says and left unused (likewise backward's).
Status CudaBackend::crossEntropyForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 2).count("outputs", c.outputs, 2);
        if (!k.ok()) return k.status();
        const TensorRef &logits = c.inputs[0], &targets = c.inputs[1], &loss = c.outputs[0],
                        &logp = c.outputs[1];
        const std::int64_t vocab = lastDim(logits),
                           rows = logits.elements() / std::max<std::int64_t>(vocab, 1);
        k.bound("logits", logits)
            .floating("logits", logits)
            .bound("targets", targets)
            .dtype("targets", targets, DType::I64)
            .elements("targets", targets, rows)
            .bound("loss", loss)
            .dtype("loss", loss, DType::F32)
            .elements("loss", loss, 1)
            .bound("log-probabilities", logp)
            .dtype("log-probabilities", logp, DType::F32)
            .elements("log-probabilities", logp, logits.elements());
        if (!k.ok()) return k.status();
        cu::crossEntropyForward(logits.dtype, logits.data,
                                static_cast<const std::int64_t*>(targets.data),
                                static_cast<float*>(logp.data), static_cast<float*>(loss.data),
                                rows, vocab, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::crossEntropyBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 2);
        if (!k.ok()) return k.status();
        const TensorRef &logp = c.saved[0], &targets = c.saved[1];
        void* dLogits = opt(c.gradInputs, 0);
        if (!dLogits) return Ok{};
        const TensorRef& dl = c.gradInputs[0];
        const std::int64_t vocab = lastDim(logp),
                           rows = logp.elements() / std::max<std::int64_t>(vocab, 1);
        k.bound("log-probabilities", logp)
            .dtype("log-probabilities", logp, DType::F32)
            .bound("targets", targets)
            .dtype("targets", targets, DType::I64)
            .elements("targets", targets, rows)
            .floating("logits gradient", dl)
            .elements("logits gradient", dl, logp.elements());
        if (!k.ok()) return k.status();
        cu::crossEntropyBackward(dl.dtype, static_cast<const float*>(logp.data),
                                 static_cast<const std::int64_t*>(targets.data), dLogits, rows,
                                 vocab, c.lossGradScale, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::mseForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 2).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &t = c.inputs[1], &loss = c.outputs[0];
        k.bound("input", x)
            .bound("target", t)
            .floating("input", x)
            .dtype("target", t, x.dtype)
            .elements("target", t, x.elements())
            .bound("loss", loss)
            .dtype("loss", loss, DType::F32)
            .elements("loss", loss, 1);
        if (!k.ok()) return k.status();
        cu::mseForward(x.dtype, x.data, t.data, static_cast<float*>(loss.data), x.elements(),
                       m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::mseBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 2);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.saved[0], &t = c.saved[1];
        void* dx = opt(c.gradInputs, 0);
        if (!dx) return Ok{};
        k.bound("input", x)
            .bound("target", t)
            .floating("input", x)
            .dtype("target", t, x.dtype)
            .elements("target", t, x.elements())
            .dtype("input gradient", c.gradInputs[0], x.dtype)
            .elements("input gradient", c.gradInputs[0], x.elements());
        if (!k.ok()) return k.status();
        cu::mseBackward(x.dtype, x.data, t.data, dx, x.elements(), c.lossGradScale,
                        m_state->stream);
        return Ok{};
    });
}

// ---- optimizer
// ------------------------------------------------------------------------------------

Status CudaBackend::optimizerStep(const OptimizerCall& c) {
    return m_state->guard("optimizer step", [&]() -> Status {
        const TensorRef &p = c.param, &g = c.grad;
        const std::int64_t n = p.elements();
        auto err = [](const std::string& m) { return makeError("optimizer step: " + m); };
        if (!p.bound() || !g.bound()) return err("parameter and gradient must be bound");
        if (!isFloat(p.dtype) || g.dtype != p.dtype || g.elements() != n)
            return err("gradient does not match the parameter");
        if (c.master.bound() && (c.master.dtype != DType::F32 || c.master.elements() != n))
            return err("the master weight must be fp32 with the parameter's size");
        if (p.dtype != DType::F32 && !c.master.bound())
            return err("a 16-bit parameter needs an fp32 master weight");
        const int states = optimizerStateCount(c.optimizer);
        for (int i = 0; i < states; ++i) {
            const TensorRef& s = i == 0 ? c.state1 : c.state2;
            if (!s.bound() || s.dtype != DType::F32 || s.elements() != n)
                return err("optimizer state " + std::to_string(i + 1) +
                           " must be fp32 with the parameter's size");
        }
        cu::optimizerStep(c.optimizer, p.dtype, p.data, g.data, static_cast<float*>(c.master.data),
                          static_cast<float*>(c.state1.data), static_cast<float*>(c.state2.data), n,
                          c.hyper, c.step, m_state->stream);
        return Ok{};
    });
}

// ---- flash attention
// ------------------------------------------------------------------------------

namespace {

// The checks both directions share: attributes the kernels run, qkv, context and log-sum-exp.
Status checkFlash(const OpCall& c, const TensorRef& qkv, const TensorRef& out,
                  const TensorRef& lse, const cu::AttnShape& a) {
    const OpAttrs& at = c.op->attrs;
    if (auto st = checkAttn(c, qkv, a); !st) return st;
    return Check(c)
        .that(at.p >= 0.0 && at.p < 1.0, "dropout probability outside [0, 1)")
        .that(at.keyTokens == 0 || at.keyTokens == at.tokens,
              "flash attention over another rank's keys (context parallelism) is simulated only")
        .that(a.headDim <= cu::kMaxHeadDim,
              "head size " + std::to_string(a.headDim) + " is above the flash kernel's " +
                  std::to_string(cu::kMaxHeadDim))
        .bound("output", out)
        .bound("log-sum-exp", lse)
        .dtype("output", out, qkv.dtype)
        .dtype("log-sum-exp", lse, DType::F32)
        .elements("output", out, a.batch * a.tokens * a.heads * a.headDim)
        .elements("log-sum-exp", lse, a.batch * a.heads * a.tokens)
        .status();
}

// Dropout's RNG state (an int64 [1]), when the op has dropout.
Status checkRngState(const OpCall& c, const std::vector<TensorRef>& list, std::size_t index) {
    if (c.op->attrs.p <= 0.0) return Ok{};
    Check k(c);
    k.count("RNG state", list, index + 1);
    if (!k.ok()) return k.status();
    return k.bound("RNG state", list[index])
        .dtype("RNG state", list[index], DType::I64)
        .elements("RNG state", list[index], 1)
        .status();
}

cu::FlashDropout flashDropout(const OpCall& c) {
    cu::FlashDropout d;
    d.p = float(c.op->attrs.p);
    d.seed = c.seed;
    d.opId = c.opId.value;
    d.draw = c.rngDraw;
    return d;
}

}  // namespace

Status CudaBackend::flashAttnForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 2);
        if (!k.ok()) return k.status();
        const TensorRef &qkv = c.inputs[0], &out = c.outputs[0], &lse = c.outputs[1];
        const cu::AttnShape a = attnShape(c, qkv);
        if (auto st = checkFlash(c, qkv, out, lse, a); !st) return st;
        if (auto st = checkRngState(c, c.outputs, 2); !st) return st;
        auto* rng = c.op->attrs.p > 0.0 ? static_cast<std::int64_t*>(c.outputs[2].data) : nullptr;
        cu::flashAttnForward(qkv.dtype, qkv.data, out.data, static_cast<float*>(lse.data), rng, a,
                             flashDropout(c), m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::flashAttnBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("saved", c.saved, 3).count("gradOutputs", c.gradOutputs, 1).count(
            "gradInputs", c.gradInputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &qkv = c.saved[0], &out = c.saved[1], &lse = c.saved[2];
        const TensorRef &dOut = c.gradOutputs[0], &dQkv = c.gradInputs[0];
        if (!dOut.bound() || !dQkv.bound()) return Ok{};
        const cu::AttnShape a = attnShape(c, qkv);
        if (auto st = checkFlash(c, qkv, out, lse, a); !st) return st;
        k.dtype("output gradient", dOut, qkv.dtype)
            .elements("output gradient", dOut, out.elements())
            .dtype("qkv gradient", dQkv, qkv.dtype)
            .elements("qkv gradient", dQkv, qkv.elements());
        if (!k.ok()) return k.status();
        if (auto st = checkRngState(c, c.saved, 3); !st) return st;
        const auto* rng =
            c.op->attrs.p > 0.0 ? static_cast<const std::int64_t*>(c.saved[3].data) : nullptr;
        cu::flashAttnBackward(qkv.dtype, qkv.data, out.data, static_cast<const float*>(lse.data),
                              rng, dOut.data, dQkv.data, a, flashDropout(c), m_state->stream);
        return Ok{};
    });
}

// ---- rotary embeddings
// ------------------------------------------------------------------------------

namespace {

Result<cu::RotaryShape> rotaryShape(const OpCall& c, const TensorRef& qkv) {
    const OpAttrs& a = c.op->attrs;
    cu::RotaryShape r;
    r.tokens = a.tokens;
    r.heads = a.heads;
    r.kvHeads = a.kvHeads > 0 ? a.kvHeads : a.heads;
    r.headDim = a.headDim;
    r.dims = a.rotaryDims;
    r.base = a.rotaryBase;
    const std::int64_t perSample = r.tokens * (r.heads + 2 * r.kvHeads) * r.headDim;
    r.batch = perSample > 0 ? qkv.elements() / perSample : 0;
    Check k(c);
    k.that(r.tokens > 0 && r.heads > 0 && r.headDim > 0 && r.heads % r.kvHeads == 0,
           "invalid heads/tokens attributes")
        .that(r.dims >= 2 && r.dims % 2 == 0 && r.dims <= r.headDim,
              "it rotates " + std::to_string(r.dims) + " of " + std::to_string(r.headDim) +
                  " dimensions per head; it must be an even number from 2 to the head size")
        .that(a.keyTokens == 0 || a.keyTokens == a.tokens,
              "rotary embeddings of one rank's part of the sequence (context parallelism) are "
              "simulated only")
        .bound("qkv", qkv)
        .floating("qkv", qkv)
        .that(perSample > 0 && qkv.elements() == r.batch * perSample,
              "the qkv operand does not match the attributes");
    if (!k.ok()) return k.status().error();
    return r;
}

}  // namespace

Status CudaBackend::rotaryForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("inputs", c.inputs, 1).count("outputs", c.outputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &x = c.inputs[0], &y = c.outputs[0];
        auto r = rotaryShape(c, x);
        if (!r) return r.error();
        k.bound("output", y).dtype("output", y, x.dtype).elements("output", y, x.elements());
        if (!k.ok()) return k.status();
        cu::rotaryForward(x.dtype, x.data, y.data, *r, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::rotaryBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        Check k(c);
        k.count("gradOutputs", c.gradOutputs, 1).count("gradInputs", c.gradInputs, 1);
        if (!k.ok()) return k.status();
        const TensorRef &dy = c.gradOutputs[0], &dx = c.gradInputs[0];
        if (!dy.bound() || !dx.bound()) return Ok{};
        auto r = rotaryShape(c, dx);
        if (!r) return r.error();
        k.dtype("output gradient", dy, dx.dtype).elements("output gradient", dy, dx.elements());
        if (!k.ok()) return k.status();
        cu::rotaryBackward(dx.dtype, dy.data, dx.data, *r, m_state->stream);
        return Ok{};
    });
}

}  // namespace remat
