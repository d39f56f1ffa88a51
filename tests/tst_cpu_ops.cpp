// The CPU backend's ops one by one: every op in scope is checked against central finite
// differences of its own forward (tolerance stated per op in the table of checkGradients),
// backward accumulates (+=) rather than overwrites, 16-bit storage equals rounding the fp32
// result, the dropout mask is the shared counter-RNG formula, and the fp32 <-> bf16/fp16
// conversions round to nearest even (checked against an independent nearest-value search).
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "counter_rng.h"
#include "cpu/cpu_backend.h"
#include "float16.h"

using namespace remat;

namespace {

struct HostTensor {
    DType dtype = DType::F32;
    Shape shape;
    std::vector<std::uint8_t> bytes;

    HostTensor() = default;
    HostTensor(DType t, Shape s) : dtype(t), shape(std::move(s)) {
        bytes.assign(std::size_t(elements() * dtypeBytes(dtype)), 0);
    }
    std::int64_t elements() const {
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
    TensorRef ref() { return TensorRef{bytes.data(), dtype, shape}; }
    float get(std::int64_t i) const {
        TensorRef r{const_cast<std::uint8_t*>(bytes.data()), dtype, shape};
        return cpu::loadElement(r, i);
    }
    void set(std::int64_t i, float v) { cpu::storeElement(ref(), i, v); }
    std::int64_t* ints() { return reinterpret_cast<std::int64_t*>(bytes.data()); }
};

HostTensor randomTensor(DType t, Shape s, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
    HostTensor h(t, std::move(s));
    std::uniform_real_distribution<float> d(lo, hi);
    for (std::int64_t i = 0; i < h.elements(); ++i) h.set(i, d(rng));
    return h;
}

// One op with host operands. Tensor ids in op.inputs/outputs/params/saved are synthetic:
// inputs 0.., outputs next, params next, so op.saved can name what the real lowering saves.
struct Fixture {
    Op op;
    std::int64_t microBatch = 1;
    std::vector<HostTensor> inputs, outputs, params;
    std::vector<bool> inputGrad;   // differentiable inputs
    std::vector<bool> outputGrad;  // outputs that receive an upstream gradient
    bool loss = false;             // the objective is outputs[0] itself

    TensorId inputId(int k) const { return TensorId(std::uint32_t(k)); }
    TensorId outputId(int k) const { return TensorId(std::uint32_t(inputs.size() + std::size_t(k))); }
    void wire(const std::vector<TensorId>& saved) {
        op.inputs.clear();
        op.outputs.clear();
        op.params.clear();
        for (std::size_t k = 0; k < inputs.size(); ++k) op.inputs.push_back(inputId(int(k)));
        for (std::size_t k = 0; k < outputs.size(); ++k) op.outputs.push_back(outputId(int(k)));
        for (std::size_t k = 0; k < params.size(); ++k)
            op.params.push_back(TensorId(std::uint32_t(inputs.size() + outputs.size() + k)));
        op.saved = saved;
        if (inputGrad.empty()) inputGrad.assign(inputs.size(), true);
        if (outputGrad.empty()) outputGrad.assign(outputs.size(), false), outputGrad[0] = !loss;
    }
    HostTensor& byId(TensorId id) {
        std::size_t i = id.index();
        if (i < inputs.size()) return inputs[i];
        i -= inputs.size();
        if (i < outputs.size()) return outputs[i];
        return params[i - outputs.size()];
    }
};

constexpr std::uint64_t kSeed = 11;
constexpr std::uint32_t kDraw = 2;

void forward(CpuBackend& b, Fixture& f) {
    OpCall c;
    c.op = &f.op;
    c.opId = OpId(5);
    c.microBatch = f.microBatch;
    c.seed = kSeed;
    c.rngDraw = kDraw;
    for (auto& t : f.inputs) c.inputs.push_back(t.ref());
    for (auto& t : f.outputs) c.outputs.push_back(t.ref());
    for (auto& t : f.params) c.params.push_back(t.ref());
    auto st = runOp(b, c, false);
    if (!st) qFatal("forward: %s", st.error().message.c_str());
}

// The objective: sum over gradient-receiving outputs of upstream * output, skipping entries
// that are constant -inf (masked scores), or the loss itself.
double objective(Fixture& f, const std::vector<HostTensor>& upstream) {
    if (f.loss) return f.outputs[0].get(0);
    double sum = 0.0;
    for (std::size_t k = 0; k < f.outputs.size(); ++k) {
        if (!f.outputGrad[k]) continue;
        for (std::int64_t i = 0; i < f.outputs[k].elements(); ++i) {
            const float v = f.outputs[k].get(i);
            if (std::isfinite(v)) sum += double(upstream[k].get(i)) * v;
        }
    }
    return sum;
}

struct GradResult {
    std::vector<HostTensor> inputGrads, paramGrads;
};

constexpr float kPrefill = 0.25f;  // gradients start here: backward must add, not overwrite

GradResult backward(CpuBackend& b, Fixture& f, std::vector<HostTensor>& upstream) {
    GradResult r;
    OpCall c;
    c.op = &f.op;
    c.opId = OpId(5);
    c.microBatch = f.microBatch;
    c.seed = kSeed;
    c.rngDraw = kDraw;
    c.lossGradScale = 1.0f;
    for (TensorId s : f.op.saved) c.saved.push_back(f.byId(s).ref());
    for (auto& t : f.params) c.params.push_back(t.ref());
    for (std::size_t k = 0; k < f.outputs.size(); ++k)
        c.gradOutputs.push_back(f.outputGrad[k] ? upstream[k].ref() : TensorRef{});
    r.inputGrads.resize(f.inputs.size());
    for (std::size_t k = 0; k < f.inputs.size(); ++k) {
        if (!f.inputGrad[k]) continue;
        r.inputGrads[k] = HostTensor(f.inputs[k].dtype, f.inputs[k].shape);
        for (std::int64_t i = 0; i < r.inputGrads[k].elements(); ++i) r.inputGrads[k].set(i, kPrefill);
    }
    for (std::size_t k = 0; k < f.inputs.size(); ++k)
        c.gradInputs.push_back(f.inputGrad[k] ? r.inputGrads[k].ref() : TensorRef{});
    for (auto& p : f.params) {
        HostTensor g(p.dtype, p.shape);
        for (std::int64_t i = 0; i < g.elements(); ++i) g.set(i, kPrefill);
        r.paramGrads.push_back(std::move(g));
    }
    for (auto& g : r.paramGrads) c.paramGrads.push_back(g.ref());
    auto st = runOp(b, c, true);
    if (!st) qFatal("backward: %s", st.error().message.c_str());
    return r;
}

struct Tolerance {
    double step = 1e-2;      // finite-difference step
    double absolute = 1e-3;  // |fd - analytic| <= absolute + relative * |analytic|
    double relative = 1e-2;
};

// Checks every differentiable input and parameter (up to 40 sampled elements each) against
// central differences; returns the largest |fd - analytic| seen.
double checkGradients(Fixture f, const Tolerance& tol, const char* what) {
    CpuBackend backend;
    std::mt19937 rng(1234);
    forward(backend, f);
    std::vector<HostTensor> upstream;
    for (std::size_t k = 0; k < f.outputs.size(); ++k) {
        HostTensor u = randomTensor(DType::F32, f.outputs[k].shape, rng);
        for (std::int64_t i = 0; i < u.elements(); ++i)
            if (!std::isfinite(f.outputs[k].get(i))) u.set(i, 0.0f);  // masked: no gradient
        upstream.push_back(std::move(u));
    }
    const GradResult g = backward(backend, f, upstream);

    double worst = 0.0;
    auto probe = [&](HostTensor& x, const HostTensor& grad, const char* name) {
        const std::int64_t n = x.elements();
        const std::int64_t samples = std::min<std::int64_t>(n, 40);
        for (std::int64_t s = 0; s < samples; ++s) {
            const std::int64_t i = n <= 40 ? s : (s * 7919) % n;
            const float orig = x.get(i);
            x.set(i, float(orig + tol.step));
            forward(backend, f);
            const double plus = objective(f, upstream);
            x.set(i, float(orig - tol.step));
            forward(backend, f);
            const double minus = objective(f, upstream);
            x.set(i, orig);
            const double fd = (plus - minus) / (2.0 * tol.step);
            const double an = double(grad.get(i)) - kPrefill;
            const double err = std::fabs(fd - an);
            worst = std::max(worst, err);
            if (err > tol.absolute + tol.relative * std::fabs(an))
                QFAIL(qPrintable(QString("%1: d/d%2[%3]: finite difference %4, backward %5")
                                     .arg(what).arg(name).arg(i).arg(fd).arg(an)));
        }
    };
    for (std::size_t k = 0; k < f.inputs.size(); ++k)
        if (f.inputGrad[k]) probe(f.inputs[k], g.inputGrads[k], ("input" + std::to_string(k)).c_str());
    for (std::size_t k = 0; k < f.params.size(); ++k)
        probe(f.params[k], g.paramGrads[k], ("param" + std::to_string(k)).c_str());
    forward(backend, f);
    return worst;
}

// ---- fixtures mirroring sim/lower.cpp -------------------------------------------------------
Fixture unaryFixture(OpKind kind, std::mt19937& rng) {
    Fixture f;
    f.op.kind = kind;
    f.inputs.push_back(randomTensor(DType::F32, {3, 7}, rng, -2.0f, 2.0f));
    if (kind == OpKind::Relu)  // keep clear of the kink, farther than the step
        for (std::int64_t i = 0; i < f.inputs[0].elements(); ++i)
            if (std::fabs(f.inputs[0].get(i)) < 0.1f) f.inputs[0].set(i, 0.5f);
    f.outputs.emplace_back(DType::F32, Shape{3, 7});
    const bool savesOutput = kind == OpKind::Relu || kind == OpKind::Tanh ||
                             kind == OpKind::Sigmoid || kind == OpKind::Softmax;
    f.wire({savesOutput ? f.outputId(0) : f.inputId(0)});
    return f;
}

Fixture linearFixture(std::mt19937& rng, bool bias) {
    Fixture f;
    f.op.kind = OpKind::Linear;
    f.op.attrs.in = 5;
    f.op.attrs.out = 4;
    f.op.attrs.bias = bias;
    f.microBatch = 2;
    f.inputs.push_back(randomTensor(DType::F32, {2, 3, 5}, rng));
    f.outputs.emplace_back(DType::F32, Shape{2, 3, 4});
    f.params.push_back(randomTensor(DType::F32, {4, 5}, rng));
    if (bias) f.params.push_back(randomTensor(DType::F32, {4}, rng));
    f.wire({f.inputId(0)});
    return f;
}

Fixture normFixture(OpKind kind, std::mt19937& rng) {
    Fixture f;
    f.op.kind = kind;
    f.op.attrs.in = 6;
    f.inputs.push_back(randomTensor(DType::F32, {2, 3, 6}, rng, -2.0f, 2.0f));
    f.outputs.emplace_back(DType::F32, Shape{2, 3, 6});
    f.outputs.emplace_back(DType::F32, Shape{2, 3});
    if (kind == OpKind::LayerNorm) f.outputs.emplace_back(DType::F32, Shape{2, 3});
    f.params.push_back(randomTensor(DType::F32, {6}, rng, 0.5f, 1.5f));
    if (kind == OpKind::LayerNorm) f.params.push_back(randomTensor(DType::F32, {6}, rng));
    if (kind == OpKind::LayerNorm) f.wire({f.inputId(0), f.outputId(1), f.outputId(2)});
    else f.wire({f.inputId(0), f.outputId(1)});
    return f;
}

Fixture dropoutFixture(std::mt19937& rng) {
    Fixture f;
    f.op.kind = OpKind::Dropout;
    f.op.attrs.p = 0.3;
    f.inputs.push_back(randomTensor(DType::F32, {4, 9}, rng));
    f.outputs.emplace_back(DType::F32, Shape{4, 9});
    f.outputs.emplace_back(DType::U8, Shape{4, 9});
    f.wire({f.outputId(1)});
    return f;
}

Fixture binaryFixture(OpKind kind, std::mt19937& rng) {
    Fixture f;
    f.op.kind = kind;
    f.inputs.push_back(randomTensor(DType::F32, {3, 5}, rng));
    f.inputs.push_back(randomTensor(DType::F32, {3, 5}, rng));
    f.outputs.emplace_back(DType::F32, Shape{3, 5});
    if (kind == OpKind::Mul) f.wire({f.inputId(0), f.inputId(1)});
    else f.wire({});
    return f;
}

// `types` > 0 adds a token-type table of that many rows (BERT's segments, every id 0).
Fixture embeddingFixture(std::mt19937& rng, bool positions, std::int64_t types = 0) {
    Fixture f;
    f.op.kind = OpKind::Embedding;
    f.op.attrs.vocab = 7;
    f.op.attrs.positions = positions ? 5 : 0;
    f.op.attrs.tokenTypes = types;
    f.op.attrs.tokens = 4;
    f.op.attrs.out = 3;
    f.microBatch = 2;
    HostTensor tokens(DType::I64, {2, 4});
    // Repeated ids: their gradient rows must accumulate.
    const std::int64_t ids[] = {1, 3, 1, 6, 0, 3, 3, 2};
    std::memcpy(tokens.ints(), ids, sizeof ids);
    f.inputs.push_back(tokens);
    f.inputGrad = {false};
    f.outputs.emplace_back(DType::F32, Shape{2, 4, 3});
    f.params.push_back(randomTensor(DType::F32, {7, 3}, rng));
    if (positions) f.params.push_back(randomTensor(DType::F32, {5, 3}, rng));
    if (types > 0) f.params.push_back(randomTensor(DType::F32, {types, 3}, rng));
    f.wire({f.inputId(0)});
    return f;
}

OpAttrs attentionAttrs(std::int64_t heads, std::int64_t kvHeads) {
    OpAttrs a;
    a.tokens = 4;
    a.heads = heads;
    a.kvHeads = kvHeads;
    a.headDim = 3;
    a.causal = true;
    return a;
}

Fixture scoresFixture(std::mt19937& rng, bool expanded) {
    Fixture f;
    f.op.kind = OpKind::AttnScores;
    f.op.attrs = attentionAttrs(2, expanded ? 1 : 2);
    f.microBatch = 2;
    const std::int64_t w = (2 + 2 * f.op.attrs.kvHeads) * 3;
    f.inputs.push_back(randomTensor(DType::F32, {2, 4, w}, rng));
    if (expanded) f.inputs.push_back(randomTensor(DType::F32, {2, 2, 4, 3}, rng));
    f.outputs.emplace_back(DType::F32, Shape{2, 2, 4, 4});
    f.wire(expanded ? std::vector<TensorId>{f.inputId(0), f.inputId(1)}
                    : std::vector<TensorId>{f.inputId(0)});
    return f;
}

Fixture contextFixture(std::mt19937& rng, bool expanded) {
    Fixture f;
    f.op.kind = OpKind::AttnContext;
    f.op.attrs = attentionAttrs(2, expanded ? 1 : 2);
    f.microBatch = 2;
    f.inputs.push_back(randomTensor(DType::F32, {2, 2, 4, 4}, rng, 0.0f, 0.5f));
    if (expanded) f.inputs.push_back(randomTensor(DType::F32, {2, 2, 4, 3}, rng));
    else f.inputs.push_back(randomTensor(DType::F32, {2, 4, 18}, rng));
    f.outputs.emplace_back(DType::F32, Shape{2, 4, 6});
    f.wire({f.inputId(0), f.inputId(1)});
    return f;
}

Fixture expandFixture(std::mt19937& rng) {
    Fixture f;
    f.op.kind = OpKind::ExpandKv;
    f.op.attrs = attentionAttrs(4, 2);
    f.microBatch = 2;
    f.inputs.push_back(randomTensor(DType::F32, {2, 4, (4 + 2 * 2) * 3}, rng));
    f.outputs.emplace_back(DType::F32, Shape{2, 4, 4, 3});
    f.outputs.emplace_back(DType::F32, Shape{2, 4, 4, 3});
    f.outputGrad = {true, true};
    f.wire({});
    return f;
}

Fixture crossEntropyFixture(std::mt19937& rng) {
    Fixture f;
    f.op.kind = OpKind::CrossEntropy;
    f.op.attrs.vocab = 6;
    f.loss = true;
    f.microBatch = 2;
    f.inputs.push_back(randomTensor(DType::F32, {2, 3, 6}, rng, -2.0f, 2.0f));
    HostTensor targets(DType::I64, {2, 3});
    const std::int64_t t[] = {0, 5, 2, 2, 1, 4};
    std::memcpy(targets.ints(), t, sizeof t);
    f.inputs.push_back(targets);
    f.inputGrad = {true, false};
    f.outputs.emplace_back(DType::F32, Shape{});
    f.outputs.emplace_back(DType::F32, Shape{2, 3, 6});
    f.wire({f.outputId(1), f.inputId(1)});
    return f;
}

Fixture mseFixture(std::mt19937& rng) {
    Fixture f;
    f.op.kind = OpKind::Mse;
    f.loss = true;
    f.inputs.push_back(randomTensor(DType::F32, {3, 4}, rng));
    f.inputs.push_back(randomTensor(DType::F32, {3, 4}, rng));
    f.inputGrad = {true, false};
    f.outputs.emplace_back(DType::F32, Shape{});
    f.wire({f.inputId(0), f.inputId(1)});
    return f;
}

// Nearest representable value with ties to the even encoding, by search over every finite
// value of the 16-bit format: an independent reference for the bit-twiddling conversions.
struct HalfTable {
    std::vector<std::pair<double, std::uint16_t>> finite;  // ascending, positive only
    HalfTable(bool bf16) {
        for (std::uint32_t h = 0; h < 0x8000u; ++h) {
            const float v = bf16 ? bf16ToFloat(std::uint16_t(h)) : fp16ToFloat(std::uint16_t(h));
            if (std::isfinite(v)) finite.emplace_back(double(v), std::uint16_t(h));
        }
        std::sort(finite.begin(), finite.end());
    }
    // Magnitude only; returns the encoding, or 0xFFFF for "overflows to infinity".
    std::uint16_t nearest(double x, double overflowAt) const {
        if (x >= overflowAt) return 0xFFFF;
        auto it = std::lower_bound(finite.begin(), finite.end(), std::make_pair(x, std::uint16_t(0)));
        if (it == finite.end()) return finite.back().second;
        if (it->first == x || it == finite.begin()) return it->second;
        auto lo = it - 1;
        const double dl = x - lo->first, dh = it->first - x;
        if (dl < dh) return lo->second;
        if (dh < dl) return it->second;
        return (lo->second & 1u) == 0 ? lo->second : it->second;
    }
};

}  // namespace

class TestCpuOps : public QObject {
    Q_OBJECT

private slots:
    void finiteDifferences_data();
    void finiteDifferences();
    void sixteenBitStorageIsRoundedFp32_data();
    void sixteenBitStorageIsRoundedFp32();
    void causalMaskAndSoftmaxRows();
    void dropoutMaskIsTheSharedFormula();
    void crossEntropyMatchesDefinition();
    void bf16RoundsToNearestEven();
    void fp16RoundsToNearestEven();
    void halfRoundTripsExactly();
};

void TestCpuOps::finiteDifferences_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<double>("step");
    QTest::addColumn<double>("absolute");
    QTest::addColumn<double>("relative");
    // Per-op tolerance: |fd - backward| <= absolute + relative x |backward|, central
    // differences with `step` on an fp32 forward. The error is the forward's rounding
    // (~1e-7 x |objective| / step) plus truncation (~step^2 x third derivative); the
    // tolerances sit about 10x above the largest error measured (docs/executors.md).
    struct Row {
        const char* op;
        double step, absolute, relative;
    };
    const Row rows[] = {
        {"linear", 1e-2, 2e-4, 1e-3},         {"linear_nobias", 1e-2, 2e-4, 1e-3},
        {"relu", 1e-2, 2e-5, 1e-4},           {"gelu", 1e-2, 2e-4, 1e-3},
        {"silu", 1e-2, 1e-4, 1e-3},           {"tanh", 1e-2, 2e-4, 1e-3},
        {"sigmoid", 1e-2, 1e-4, 1e-3},        {"softmax", 1e-2, 2e-5, 1e-3},
        {"layernorm", 3e-3, 6e-4, 1e-3},      {"rmsnorm", 3e-3, 4e-4, 1e-3},
        {"dropout", 1e-2, 5e-5, 1e-4},        {"mul", 1e-2, 3e-5, 1e-4},
        {"add", 1e-2, 3e-5, 1e-4},            {"embedding", 1e-2, 3e-5, 1e-4},
        {"embedding_nopos", 1e-2, 3e-5, 1e-4}, {"embedding_types", 1e-2, 3e-5, 1e-4},
        {"embedding_types_nopos", 1e-2, 3e-5, 1e-4}, {"attn_scores", 1e-2, 3e-5, 1e-4},
        {"attn_scores_expanded", 1e-2, 3e-5, 1e-4}, {"attn_context", 1e-2, 3e-5, 1e-4},
        {"attn_context_expanded", 1e-2, 3e-5, 1e-4}, {"expand_kv", 1e-2, 3e-5, 1e-4},
        {"cross_entropy", 1e-2, 1e-4, 1e-3},  {"mse", 1e-2, 3e-5, 1e-4},
    };
    for (const Row& r : rows) QTest::newRow(r.op) << QString(r.op) << r.step << r.absolute << r.relative;
}

void TestCpuOps::finiteDifferences() {
    QFETCH(QString, op);
    QFETCH(double, step);
    QFETCH(double, absolute);
    QFETCH(double, relative);
    std::mt19937 rng(42);
    const std::string name = op.toStdString();
    Fixture f;
    const Tolerance tol{step, absolute, relative};
    if (name == "linear") f = linearFixture(rng, true);
    else if (name == "linear_nobias") f = linearFixture(rng, false);
    else if (name == "relu") f = unaryFixture(OpKind::Relu, rng);
    else if (name == "gelu") f = unaryFixture(OpKind::Gelu, rng);
    else if (name == "silu") f = unaryFixture(OpKind::Silu, rng);
    else if (name == "tanh") f = unaryFixture(OpKind::Tanh, rng);
    else if (name == "sigmoid") f = unaryFixture(OpKind::Sigmoid, rng);
    else if (name == "softmax") f = unaryFixture(OpKind::Softmax, rng);
    else if (name == "layernorm") f = normFixture(OpKind::LayerNorm, rng);
    else if (name == "rmsnorm") f = normFixture(OpKind::RmsNorm, rng);
    else if (name == "dropout") f = dropoutFixture(rng);
    else if (name == "mul") f = binaryFixture(OpKind::Mul, rng);
    else if (name == "add") f = binaryFixture(OpKind::Add, rng);
    else if (name == "embedding") f = embeddingFixture(rng, true);
    else if (name == "embedding_nopos") f = embeddingFixture(rng, false);
    else if (name == "embedding_types") f = embeddingFixture(rng, true, 2);
    else if (name == "embedding_types_nopos") f = embeddingFixture(rng, false, 1);
    else if (name == "attn_scores") f = scoresFixture(rng, false);
    else if (name == "attn_scores_expanded") f = scoresFixture(rng, true);
    else if (name == "attn_context") f = contextFixture(rng, false);
    else if (name == "attn_context_expanded") f = contextFixture(rng, true);
    else if (name == "expand_kv") f = expandFixture(rng);
    else if (name == "cross_entropy") f = crossEntropyFixture(rng);
    else if (name == "mse") f = mseFixture(rng);
    const double worst = checkGradients(f, tol, name.c_str());
    qInfo("%s: max |finite difference - backward| = %.3g", name.c_str(), worst);
}

void TestCpuOps::sixteenBitStorageIsRoundedFp32_data() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("bf16") << int(DType::BF16);
    QTest::newRow("fp16") << int(DType::F16);
}

void TestCpuOps::sixteenBitStorageIsRoundedFp32() {
    QFETCH(int, dtype);
    const DType half = DType(dtype);
    std::mt19937 rng(7);
    // Run each op once with 16-bit floating operands and once in fp32 on the same (rounded)
    // values: the 16-bit outputs must be exactly the rounded fp32 outputs.
    std::vector<Fixture> cases = {linearFixture(rng, true), unaryFixture(OpKind::Gelu, rng),
                                  normFixture(OpKind::LayerNorm, rng), unaryFixture(OpKind::Softmax, rng),
                                  scoresFixture(rng, true), contextFixture(rng, false),
                                  binaryFixture(OpKind::Mul, rng)};
    CpuBackend backend;
    for (Fixture& f32 : cases) {
        Fixture f16 = f32;
        auto toHalf = [&](std::vector<HostTensor>& ts, std::vector<HostTensor>& mirror) {
            for (std::size_t k = 0; k < ts.size(); ++k) {
                if (ts[k].dtype != DType::F32) continue;
                HostTensor h(half, ts[k].shape);
                for (std::int64_t i = 0; i < h.elements(); ++i) h.set(i, ts[k].get(i));
                for (std::int64_t i = 0; i < h.elements(); ++i) mirror[k].set(i, h.get(i));
                ts[k] = std::move(h);
            }
        };
        toHalf(f16.inputs, f32.inputs);
        toHalf(f16.params, f32.params);
        // Main outputs are 16-bit; norm statistics stay fp32, as the lowering makes them.
        f16.outputs[0] = HostTensor(half, f16.outputs[0].shape);
        forward(backend, f32);
        forward(backend, f16);
        for (std::int64_t i = 0; i < f32.outputs[0].elements(); ++i) {
            const float ref = f32.outputs[0].get(i);
            const float expected = half == DType::BF16 ? bf16ToFloat(floatToBf16(ref))
                                                       : fp16ToFloat(floatToFp16(ref));
            const float got = f16.outputs[0].get(i);
            if (!(got == expected || (std::isinf(got) && std::isinf(expected))))
                QFAIL(qPrintable(QString("%1 output %2: %3, expected %4")
                                     .arg(QString::fromLatin1(opKindName(f32.op.kind).data()))
                                     .arg(i).arg(got).arg(expected)));
        }
    }
    QVERIFY(backend.memoryStats().scratchPeakBytes > 0);
}

void TestCpuOps::causalMaskAndSoftmaxRows() {
    std::mt19937 rng(3);
    Fixture scores = scoresFixture(rng, false);
    CpuBackend backend;
    forward(backend, scores);
    const HostTensor& s = scores.outputs[0];
    for (std::int64_t bh = 0; bh < 4; ++bh)
        for (std::int64_t i = 0; i < 4; ++i)
            for (std::int64_t j = 0; j < 4; ++j) {
                const float v = s.get((bh * 4 + i) * 4 + j);
                QCOMPARE(std::isinf(v) && v < 0, j > i);
            }
    // Softmax over a masked row: zeros where masked, rows sum to one.
    Fixture soft;
    soft.op.kind = OpKind::Softmax;
    soft.inputs.push_back(s);
    soft.outputs.emplace_back(DType::F32, s.shape);
    soft.wire({soft.outputId(0)});
    forward(backend, soft);
    for (std::int64_t row = 0; row < 16; ++row) {
        double sum = 0.0;
        for (std::int64_t j = 0; j < 4; ++j) {
            const float p = soft.outputs[0].get(row * 4 + j);
            if (j > row % 4) QCOMPARE(p, 0.0f);
            sum += p;
        }
        QVERIFY(std::fabs(sum - 1.0) < 1e-6);
    }
}

void TestCpuOps::dropoutMaskIsTheSharedFormula() {
    std::mt19937 rng(5);
    Fixture f = dropoutFixture(rng);
    f.inputs[0] = HostTensor(DType::F32, {200, 500});
    for (std::int64_t i = 0; i < f.inputs[0].elements(); ++i) f.inputs[0].set(i, 1.0f);
    f.outputs[0] = HostTensor(DType::F32, {200, 500});
    f.outputs[1] = HostTensor(DType::U8, {200, 500});
    CpuBackend backend;
    forward(backend, f);
    const float p = float(f.op.attrs.p);
    const std::uint64_t stream = rng::dropoutStream(kSeed, 5, kDraw);
    std::int64_t kept = 0;
    for (std::int64_t i = 0; i < f.inputs[0].elements(); ++i) {
        const bool keep = f.outputs[1].bytes[std::size_t(i)] == 1;
        QCOMPARE(keep, rng::dropoutKeep(stream, std::uint64_t(i), p));
        QCOMPARE(f.outputs[0].get(i), keep ? 1.0f / (1.0f - p) : 0.0f);
        kept += keep;
    }
    const double keptFraction = double(kept) / double(f.inputs[0].elements());
    QVERIFY2(std::fabs(keptFraction - (1.0 - p)) < 0.005, qPrintable(QString::number(keptFraction)));
    // Another draw (a recompute without RNG preservation) gives another mask.
    QVERIFY(rng::dropoutStream(kSeed, 5, kDraw) != rng::dropoutStream(kSeed, 5, kDraw + 1));
    std::int64_t same = 0;
    const std::uint64_t other = rng::dropoutStream(kSeed, 5, kDraw + 1);
    for (std::int64_t i = 0; i < 10000; ++i)
        same += rng::dropoutKeep(stream, std::uint64_t(i), p) == rng::dropoutKeep(other, std::uint64_t(i), p);
    QVERIFY(same < 9000);  // independent masks agree on ~58% of elements at p = 0.3
    // uniform01 stays in [0, 1) with 24-bit resolution.
    for (std::uint64_t i = 0; i < 100000; ++i) {
        const float u = rng::uniform01(stream, i);
        QVERIFY(u >= 0.0f && u < 1.0f);
        QCOMPARE(u * 16777216.0f, std::floor(u * 16777216.0f));
    }
}

void TestCpuOps::crossEntropyMatchesDefinition() {
    std::mt19937 rng(9);
    Fixture f = crossEntropyFixture(rng);
    CpuBackend backend;
    forward(backend, f);
    double expected = 0.0;
    const std::int64_t* t = f.inputs[1].ints();
    for (std::int64_t r = 0; r < 6; ++r) {
        double z = 0.0;
        for (std::int64_t j = 0; j < 6; ++j) z += std::exp(double(f.inputs[0].get(r * 6 + j)));
        expected += std::log(z) - double(f.inputs[0].get(r * 6 + t[r]));
        for (std::int64_t j = 0; j < 6; ++j)
            QVERIFY(std::fabs(f.outputs[1].get(r * 6 + j) -
                              (double(f.inputs[0].get(r * 6 + j)) - std::log(z))) < 1e-6);
    }
    expected /= 6.0;
    QVERIFY(std::fabs(f.outputs[0].get(0) - expected) < 1e-6);
}

void TestCpuOps::bf16RoundsToNearestEven() {
    QCOMPARE(bf16ToFloat(floatToBf16(1.0f + 0x1p-8f)), 1.0f);                // tie: to even
    QCOMPARE(bf16ToFloat(floatToBf16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);  // tie: up to even
    QCOMPARE(bf16ToFloat(floatToBf16(1.0f + 0x1p-8f + 0x1p-20f)), 1.0f + 0x1p-7f);
    QVERIFY(std::isnan(bf16ToFloat(floatToBf16(NAN))));
    QVERIFY(std::isinf(bf16ToFloat(floatToBf16(INFINITY))));
    const HalfTable table(true);
    const double overflow = double(0x1.FEp127f) + std::ldexp(1.0, 127 - 8);  // halfway past max
    std::mt19937 rng(17);
    std::uniform_int_distribution<std::uint32_t> bits(0, 0x7F7FFFFFu);
    for (int n = 0; n < 300000; ++n) {
        const float x = std::bit_cast<float>(bits(rng));
        const std::uint16_t ref = table.nearest(double(x), overflow);
        const std::uint16_t got = floatToBf16(x);
        if (ref == 0xFFFF) QCOMPARE(got, std::uint16_t(0x7F80));
        else if (got != ref) QFAIL(qPrintable(QString("bf16(%1) = %2, expected %3").arg(double(x)).arg(got).arg(ref)));
        QCOMPARE(floatToBf16(-x), std::uint16_t(got | 0x8000u));
    }
}

void TestCpuOps::fp16RoundsToNearestEven() {
    QCOMPARE(fp16ToFloat(floatToFp16(1.0f + 0x1p-11f)), 1.0f);
    QCOMPARE(fp16ToFloat(floatToFp16(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);
    QCOMPARE(fp16ToFloat(floatToFp16(65504.0f)), 65504.0f);
    QCOMPARE(fp16ToFloat(floatToFp16(65519.0f)), 65504.0f);
    QVERIFY(std::isinf(fp16ToFloat(floatToFp16(65520.0f))));
    QCOMPARE(fp16ToFloat(floatToFp16(0x1p-24f)), 0x1p-24f);       // smallest subnormal
    QCOMPARE(fp16ToFloat(floatToFp16(0x1p-25f)), 0.0f);            // tie: to even (zero)
    QCOMPARE(fp16ToFloat(floatToFp16(0x1.8p-24f)), 0x1p-23f);      // tie: up to even
    QCOMPARE(fp16ToFloat(floatToFp16(0x1.0p-25f + 0x1p-40f)), 0x1p-24f);
    QCOMPARE(fp16ToFloat(floatToFp16(0x1.FFCp-15f)), 0x1p-14f);    // subnormal rounds up to normal
    const HalfTable table(false);
    std::mt19937 rng(19);
    // Exponents around fp16's range, where the interesting cases are.
    std::uniform_int_distribution<std::uint32_t> bits(0x30000000u, 0x48000000u);
    for (int n = 0; n < 300000; ++n) {
        const float x = std::bit_cast<float>(bits(rng));
        const std::uint16_t ref = table.nearest(double(x), 65520.0);
        const std::uint16_t got = floatToFp16(x);
        if (ref == 0xFFFF) QCOMPARE(got, std::uint16_t(0x7C00));
        else if (got != ref) QFAIL(qPrintable(QString("fp16(%1) = %2, expected %3").arg(double(x)).arg(got).arg(ref)));
        QCOMPARE(floatToFp16(-x), std::uint16_t(got | 0x8000u));
    }
}

void TestCpuOps::halfRoundTripsExactly() {
    for (std::uint32_t h = 0; h < 0x10000u; ++h) {
        const float b = bf16ToFloat(std::uint16_t(h));
        if (!std::isnan(b)) QCOMPARE(floatToBf16(b), std::uint16_t(h));
        const float f = fp16ToFloat(std::uint16_t(h));
        if (!std::isnan(f)) QCOMPARE(floatToFp16(f), std::uint16_t(h));
        else QVERIFY(std::isnan(fp16ToFloat(floatToFp16(f))));
    }
}

QTEST_GUILESS_MAIN(TestCpuOps)
#include "tst_cpu_ops.moc"
