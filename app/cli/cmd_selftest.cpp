// `remat selftest --backend cuda`: every op the backend runs, forward and backward, checked
// against the CPU reference backend on small random operands, with a stated tolerance per op
// and dtype. The ops come from three small lowered networks (a dense stack with every
// activation and both norms; a GPT block with causal attention, dropout and a tied head; a
// grouped-KV block with SwiGLU and RMSNorm) in fp32, bf16 and fp16, plus the four optimizers.
// Both backends receive identical bytes: the forward's operands, and for backward the
// reference's forward results as saved tensors, random output gradients and random values
// already in the gradient buffers (backward must accumulate). The GPU machine has no Qt, so
// this check lives in the CLI; `--backend cpu` runs the same harness CPU against CPU, which is
// how the test suite exercises it on machines without a GPU.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backends.h"
#include "commands.h"
#include "common.h"
#include "counter_rng.h"
#include "initial_values.h"
#include "lower.h"
#include "table.h"

namespace remat::cli {

namespace {

constexpr std::int64_t kMicroBatch = 2;
constexpr std::uint32_t kRngDraw = 3;
constexpr float kLossGradScale = 0.5f;  // as with two accumulation steps
constexpr std::int64_t kOptimizerElements = 1000;
constexpr std::int64_t kOptimizerStep = 3;

struct SelftestOptions {
    std::string backend = "cuda";
    std::string dtypes = "all";
    std::uint64_t seed = 7;
    bool json = false;
    std::string perturb;  // harness self-check: corrupt the subject's results for this op kind
};

// Error measure: max |subject - reference| over the elements, divided by the largest
// |reference| (at least 1e-3), so one tolerance serves tensors of any scale. Infinities (masked
// attention scores) must match exactly; a NaN on either side is a failure.
double tolerance(std::string_view kind, DType t) {
    if (t == DType::BF16) return 1.6e-2;  // bf16 keeps 8 bits: two ulps plus accumulation order
    if (t == DType::F16) return 2e-3;     // fp16 keeps 11 bits: four ulps
    if (t == DType::U8) return 0.0;       // dropout masks: identical
    // fp32: reductions and GEMMs sum in a different order (cuBLAS tiles, warp trees, double
    // accumulation on the CPU); elementwise ops differ only in libm/intrinsic rounding.
    static const char* const kReducing[] = {
        "linear",        "softmax", "layernorm", "rmsnorm", "attention_scores", "attention_context",
        "cross_entropy", "mse",     "embedding"};
    for (const char* k : kReducing)
        if (kind == k) return 1e-4;
    return 2e-5;
}

struct Row {
    std::string network;
    std::string op;    // op name in its network
    std::string kind;  // op kind spelling, or the optimizer
    std::string direction;
    std::string dtype;
    std::string tensor;  // worst tensor
    double error = 0.0;
    double tolerance = 0.0;
    bool pass = true;
    std::string failure;  // a backend error, instead of an error figure
};

struct TensorError {
    double error = 0.0;
    std::string failure;
};

TensorError compareBytes(const std::vector<std::uint8_t>& ref, const std::vector<std::uint8_t>& sub,
                         DType t) {
    TensorError e;
    if (ref.size() != sub.size()) {
        e.failure = "sizes differ";
        return e;
    }
    if (t == DType::U8) {
        std::size_t bad = 0;
        for (std::size_t i = 0; i < ref.size(); ++i) bad += ref[i] != sub[i];
        e.error = double(bad) / double(std::max<std::size_t>(1, ref.size()));
        return e;
    }
    if (t == DType::I64) {
        e.error = ref == sub ? 0.0 : 1.0;
        return e;
    }
    const std::vector<float> a = decodeFloats(ref, t), b = decodeFloats(sub, t);
    double maxRef = 1e-3, maxDiff = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            e.error = INFINITY;
            e.failure = "NaN at element " + std::to_string(i);
            return e;
        }
        if (std::isinf(a[i]) || std::isinf(b[i])) {
            if (a[i] != b[i]) {
                e.error = INFINITY;
                e.failure = "infinity mismatch at element " + std::to_string(i);
                return e;
            }
            continue;
        }
        maxRef = std::max(maxRef, double(std::fabs(a[i])));
        maxDiff = std::max(maxDiff, double(std::fabs(a[i] - b[i])));
    }
    e.error = maxDiff / maxRef;
    return e;
}

// Deterministic operand data from the seed and a label.
std::vector<float> randomFloats(std::uint64_t seed, const std::string& label, std::int64_t n,
                                float lo, float hi) {
    const std::uint64_t stream = rng::mix64(seed ^ rng::hashName(label));
    std::vector<float> v(std::size_t(std::max<std::int64_t>(n, 0)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = lo + (hi - lo) * rng::uniform01(stream, i);
    return v;
}

std::vector<std::uint8_t> randomInts(std::uint64_t seed, const std::string& label, std::int64_t n,
                                     std::int64_t classes) {
    const std::uint64_t stream = rng::mix64(seed ^ rng::hashName(label));
    std::vector<std::int64_t> v(std::size_t(std::max<std::int64_t>(n, 0)));
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = std::min<std::int64_t>(classes - 1,
                                      std::int64_t(rng::uniform01(stream, i) * float(classes)));
    std::vector<std::uint8_t> bytes(v.size() * 8);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
}

std::int64_t elementsOf(const Shape& s) {
    std::int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
}

// One operand held on both backends: the same shape, dtype and (when uploaded) bytes.
struct Twin {
    DeviceBlock ref, sub;
    DType dtype = DType::F32;
    Shape shape;
    TensorRef refView() const { return ref.data ? TensorRef{ref.data, dtype, shape} : TensorRef{}; }
    TensorRef subView() const { return sub.data ? TensorRef{sub.data, dtype, shape} : TensorRef{}; }
    std::int64_t bytes() const { return elementsOf(shape) * dtypeBytes(dtype); }
};

// Blocks on both backends for one case; everything is released when the case ends.
class TwinSet {
public:
    TwinSet(Backend& ref, Backend& sub) : m_ref(ref), m_sub(sub) {}
    ~TwinSet() {
        for (auto& t : m_twins) {
            if (t->ref.data) m_ref.release(t->ref);
            if (t->sub.data) m_sub.release(t->sub);
        }
    }
    TwinSet(const TwinSet&) = delete;
    TwinSet& operator=(const TwinSet&) = delete;

    Result<Twin*> make(DType dtype, const Shape& shape) {
        auto t = std::make_unique<Twin>();
        t->dtype = dtype;
        t->shape = shape;
        const std::int64_t bytes = std::max<std::int64_t>(1, t->bytes());
        auto r = m_ref.allocate(bytes);
        if (!r) return makeError("reference: " + r.error().message);
        t->ref = *r;
        m_twins.push_back(std::move(t));
        auto s = m_sub.allocate(bytes);
        if (!s) return makeError("subject: " + s.error().message);
        m_twins.back()->sub = *s;
        return m_twins.back().get();
    }
    Status upload(const Twin& t, const std::vector<std::uint8_t>& bytes) {
        if (auto st = m_ref.upload(t.ref, bytes.data(), std::int64_t(bytes.size())); !st)
            return makeError("reference: " + st.error().message);
        if (auto st = m_sub.upload(t.sub, bytes.data(), std::int64_t(bytes.size())); !st)
            return makeError("subject: " + st.error().message);
        return Ok{};
    }
    Result<std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>>> download(
        const Twin& t) {
        std::vector<std::uint8_t> a(std::size_t(t.bytes())), b(std::size_t(t.bytes()));
        if (auto st = m_ref.download(t.ref, a.data(), t.bytes()); !st)
            return makeError("reference: " + st.error().message);
        if (auto st = m_sub.download(t.sub, b.data(), t.bytes()); !st)
            return makeError("subject: " + st.error().message);
        return std::pair{std::move(a), std::move(b)};
    }

private:
    Backend& m_ref;
    Backend& m_sub;
    std::vector<std::unique_ptr<Twin>> m_twins;
};

Status dispatch(Backend& b, const OpCall& c, bool forward) {
    switch (c.op->kind) {
        case OpKind::Linear:
            return forward ? b.linearForward(c) : b.linearBackward(c);
        case OpKind::Relu:
            return forward ? b.reluForward(c) : b.reluBackward(c);
        case OpKind::Gelu:
            return forward ? b.geluForward(c) : b.geluBackward(c);
        case OpKind::Silu:
            return forward ? b.siluForward(c) : b.siluBackward(c);
        case OpKind::Tanh:
            return forward ? b.tanhForward(c) : b.tanhBackward(c);
        case OpKind::Sigmoid:
            return forward ? b.sigmoidForward(c) : b.sigmoidBackward(c);
        case OpKind::Softmax:
            return forward ? b.softmaxForward(c) : b.softmaxBackward(c);
        case OpKind::LayerNorm:
            return forward ? b.layerNormForward(c) : b.layerNormBackward(c);
        case OpKind::RmsNorm:
            return forward ? b.rmsNormForward(c) : b.rmsNormBackward(c);
        case OpKind::Dropout:
            return forward ? b.dropoutForward(c) : b.dropoutBackward(c);
        case OpKind::Mul:
            return forward ? b.mulForward(c) : b.mulBackward(c);
        case OpKind::Add:
            return forward ? b.addForward(c) : b.addBackward(c);
        case OpKind::Embedding:
            return forward ? b.embeddingForward(c) : b.embeddingBackward(c);
        case OpKind::AttnScores:
            return forward ? b.attnScoresForward(c) : b.attnScoresBackward(c);
        case OpKind::AttnContext:
            return forward ? b.attnContextForward(c) : b.attnContextBackward(c);
        case OpKind::ExpandKv:
            return forward ? b.expandKvForward(c) : b.expandKvBackward(c);
        case OpKind::CrossEntropy:
            return forward ? b.crossEntropyForward(c) : b.crossEntropyBackward(c);
        case OpKind::Mse:
            return forward ? b.mseForward(c) : b.mseBackward(c);
        default:
            break;
    }
    return makeError("the harness has no entry for " + std::string(opKindName(c.op->kind)));
}

bool isFloatType(DType t) {
    return t == DType::F32 || t == DType::BF16 || t == DType::F16;
}
bool isLossKind(OpKind k) {
    return k == OpKind::CrossEntropy || k == OpKind::Mse;
}

// The three small networks whose ops are checked.
std::vector<Network> testNetworks() {
    std::vector<Network> nets;
    {
        Network n;
        n.name = "dense";
        n.input.shape = {48};
        auto lin = [](std::int64_t out, bool bias) {
            Layer l;
            l.kind = LayerKind::Linear;
            l.out = out;
            l.bias = bias;
            return l;
        };
        auto simple = [](LayerKind k) {
            Layer l;
            l.kind = k;
            return l;
        };
        n.layers = {lin(40, true),
                    simple(LayerKind::Relu),
                    lin(36, true),
                    simple(LayerKind::Gelu),
                    lin(32, true),
                    simple(LayerKind::Silu),
                    lin(28, false),
                    simple(LayerKind::Tanh),
                    lin(24, true),
                    simple(LayerKind::Sigmoid),
                    simple(LayerKind::LayerNorm),
                    simple(LayerKind::RmsNorm),
                    simple(LayerKind::Softmax)};
        Layer drop;
        drop.kind = LayerKind::Dropout;
        drop.p = 0.25;
        n.layers.push_back(drop);
        n.layers.push_back(simple(LayerKind::Mse));
        nets.push_back(n);
    }
    auto tokenNet = [](const std::string& name, bool gqa) {
        Network n;
        n.name = name;
        n.input.tokens = 16;
        n.input.vocab = 64;
        n.tieEmbeddings = !gqa;
        Layer emb;
        emb.kind = LayerKind::Embedding;
        emb.dim = 32;
        emb.positions = gqa ? 0 : 16;
        emb.dropout = gqa ? 0.0 : 0.1;
        Layer blk;
        blk.kind = LayerKind::TransformerBlock;
        blk.heads = 4;
        blk.kvHeads = gqa ? 2 : 0;
        blk.mlpHidden = gqa ? 48 : 64;
        blk.activation = gqa ? Activation::Silu : Activation::Gelu;
        blk.gated = gqa;
        blk.norm = gqa ? NormKind::RmsNorm : NormKind::LayerNorm;
        blk.dropout = gqa ? 0.0 : 0.1;
        blk.causal = !gqa;  // the grouped-KV case covers unmasked scores
        blk.bias = !gqa;
        Layer norm;
        norm.kind = gqa ? LayerKind::RmsNorm : LayerKind::LayerNorm;
        Layer head;
        head.kind = LayerKind::Linear;
        head.out = 64;
        head.bias = false;
        Layer ce;
        ce.kind = LayerKind::CrossEntropy;
        n.layers = {emb, blk, norm, head, ce};
        return n;
    };
    nets.push_back(tokenNet("gpt", false));
    nets.push_back(tokenNet("gqa", true));
    return nets;
}

class Harness {
public:
    Harness(Backend& ref, Backend& sub, const SelftestOptions& o)
        : m_ref(ref), m_sub(sub), m_o(o) {}

    std::vector<Row> rows;

    void checkOp(const std::string& network, const Graph& g, OpId id) {
        const Op& op = g.op(id);
        const DType dt = computeDType(g.precision);
        Row base;
        base.network = network;
        base.op = op.name;
        base.kind = std::string(opKindName(op.kind));
        base.dtype = std::string(dtypeName(dt));
        if (!m_sub.supports(op.kind) || !m_ref.supports(op.kind)) return;

        if (auto st = m_ref.beginStep(0); !st) return fail(base, "forward", st.error().message);
        if (auto st = m_sub.beginStep(0); !st) return fail(base, "forward", st.error().message);
        {
            TwinSet twins(m_ref, m_sub);
            runOp(twins, g, id, base);
        }
        Status e1 = m_ref.endStep(), e2 = m_sub.endStep();
        if (!e1) fail(base, "teardown", e1.error().message);
        if (!e2) fail(base, "teardown", e2.error().message);
    }

    void checkOptimizer(Optimizer opt, DType dt) {
        Row base;
        base.network = "optimizer";
        base.op = std::string(optimizerName(opt));
        base.kind = "optimizer_" + std::string(optimizerName(opt));
        base.dtype = std::string(dtypeName(dt));
        base.direction = "step";
        if (auto st = m_ref.beginStep(0); !st) return fail(base, "step", st.error().message);
        if (auto st = m_sub.beginStep(0); !st) return fail(base, "step", st.error().message);
        {
            TwinSet twins(m_ref, m_sub);
            runOptimizer(twins, opt, dt, base);
        }
        Status e1 = m_ref.endStep(), e2 = m_sub.endStep();
        if (!e1) fail(base, "teardown", e1.error().message);
        if (!e2) fail(base, "teardown", e2.error().message);
    }

private:
    void fail(const Row& base, const std::string& direction, const std::string& message) {
        Row r = base;
        r.direction = direction;
        r.pass = false;
        r.error = INFINITY;
        r.failure = message;
        rows.push_back(std::move(r));
    }

    Shape shapeOf(const Graph& g, TensorId t) const {
        const Tensor& tt = g.tensor(t);
        Shape s;
        if (tt.batched) s.push_back(kMicroBatch);
        s.insert(s.end(), tt.shape.begin(), tt.shape.end());
        return s;
    }

    // Fills a twin with the case's random data for tensor `t` (role-appropriate values).
    Status fill(TwinSet& twins, Twin& tw, const Graph& g, TensorId t, const std::string& label) {
        const std::int64_t n = elementsOf(tw.shape);
        if (tw.dtype == DType::I64) {
            std::int64_t classes = integerInputClasses(g, t);
            if (classes <= 0) classes = 2;
            return twins.upload(tw, randomInts(m_o.seed, label, n, classes));
        }
        if (!isFloatType(tw.dtype))
            return twins.upload(tw, std::vector<std::uint8_t>(std::size_t(tw.bytes()), 1));
        return twins.upload(tw,
                            encodeFloats(randomFloats(m_o.seed, label, n, -1.0f, 1.0f), tw.dtype));
    }

    void perturbIfAsked(const std::string& kind, std::vector<std::uint8_t>& bytes, DType t) {
        if (m_o.perturb.empty() || m_o.perturb != kind || !isFloatType(t) || bytes.empty()) return;
        std::vector<float> v = decodeFloats(bytes, t);
        v[0] += 1.0f;
        bytes = encodeFloats(v, t);
    }

    // Compares the twins and records the worst one as the row.
    void record(Row row, const std::string& direction,
                const std::vector<std::pair<std::string, Twin*>>& compared, TwinSet& twins) {
        row.direction = direction;
        row.error = 0.0;
        row.tolerance = 0.0;
        double worstRatio = -1.0;
        for (const auto& [name, tw] : compared) {
            auto bytes = twins.download(*tw);
            if (!bytes) return fail(row, direction, bytes.error().message);
            perturbIfAsked(row.kind, bytes->second, tw->dtype);
            const TensorError e = compareBytes(bytes->first, bytes->second, tw->dtype);
            const double tol = tolerance(row.kind, tw->dtype);
            const double ratio = e.error / std::max(tol, 1e-30);
            if (!e.failure.empty() || e.error > tol) row.pass = false;
            if (ratio > worstRatio || !e.failure.empty()) {
                worstRatio = ratio;
                row.error = e.error;
                row.tolerance = tol;
                row.tensor = name;
                if (!e.failure.empty()) row.failure = name + ": " + e.failure;
            }
        }
        rows.push_back(std::move(row));
    }

    void runOp(TwinSet& twins, const Graph& g, OpId id, const Row& base) {
        const Op& op = g.op(id);
        OpCall rc, sc;
        for (OpCall* c : {&rc, &sc}) {
            c->op = &op;
            c->opId = id;
            c->microBatch = kMicroBatch;
            c->seed = m_o.seed;
            c->rngDraw = kRngDraw;
            c->lossGradScale = kLossGradScale;
        }
        std::map<std::uint32_t, Twin*> byTensor;  // forward operands by tensor id
        const std::string prefix = base.network + "/" + base.dtype + "/" + op.name;

        // ---- forward ----
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            const TensorId t = op.inputs[i];
            auto tw = twins.make(g.tensor(t).dtype, shapeOf(g, t));
            if (!tw) return fail(base, "forward", tw.error().message);
            if (auto st = fill(twins, **tw, g, t, prefix + "/in" + std::to_string(i)); !st)
                return fail(base, "forward", st.error().message);
            byTensor[t.value] = *tw;
            rc.inputs.push_back((*tw)->refView());
            sc.inputs.push_back((*tw)->subView());
        }
        for (std::size_t i = 0; i < op.params.size(); ++i) {
            const TensorId t = op.params[i];
            auto tw = twins.make(g.tensor(t).dtype, shapeOf(g, t));
            if (!tw) return fail(base, "forward", tw.error().message);
            if (auto st = fill(twins, **tw, g, t, prefix + "/param" + std::to_string(i)); !st)
                return fail(base, "forward", st.error().message);
            rc.params.push_back((*tw)->refView());
            sc.params.push_back((*tw)->subView());
        }
        std::vector<std::pair<std::string, Twin*>> outputs;
        for (std::size_t i = 0; i < op.outputs.size(); ++i) {
            const TensorId t = op.outputs[i];
            Twin* tw = nullptr;
            if (i == 0 && op.inPlaceInput >= 0) {
                tw = byTensor.at(op.inputs[std::size_t(op.inPlaceInput)].value);
            } else {
                auto made = twins.make(g.tensor(t).dtype, shapeOf(g, t));
                if (!made) return fail(base, "forward", made.error().message);
                tw = *made;
            }
            byTensor[t.value] = tw;
            rc.outputs.push_back(tw->refView());
            sc.outputs.push_back(tw->subView());
            outputs.emplace_back("output " + std::to_string(i), tw);
        }
        const std::int64_t wsForward = op.workspaceForward.at(kMicroBatch);
        if (wsForward > 0) {
            auto tw = twins.make(DType::U8, {wsForward});
            if (!tw) return fail(base, "forward", tw.error().message);
            rc.workspace = (*tw)->refView();
            sc.workspace = (*tw)->subView();
        }
        if (auto st = dispatch(m_ref, rc, true); !st)
            return fail(base, "forward", "reference: " + st.error().message);
        if (auto st = dispatch(m_sub, sc, true); !st)
            return fail(base, "forward", st.error().message);
        record(base, "forward", outputs, twins);

        // ---- backward: saved tensors are the reference's forward results on both sides ----
        for (const auto& [name, tw] : outputs) {
            auto bytes = twins.download(*tw);
            if (!bytes) return fail(base, "backward", bytes.error().message);
            if (auto st = twins.upload(*tw, bytes->first); !st)
                return fail(base, "backward", st.error().message);
        }
        OpCall rb = rc, sb = sc;
        for (OpCall* c : {&rb, &sb}) {
            c->inputs.clear();
            c->outputs.clear();
            c->workspace = TensorRef{};
        }
        for (TensorId t : op.saved) {
            auto it = byTensor.find(t.value);
            if (it == byTensor.end()) it = byTensor.find(g.storageOf(t).value);
            if (it == byTensor.end())
                return fail(
                    base, "backward",
                    "saved tensor '" + g.tensor(t).name + "' is neither an input nor an output");
            rb.saved.push_back(it->second->refView());
            sb.saved.push_back(it->second->subView());
        }
        for (std::size_t i = 0; i < op.outputs.size(); ++i) {
            const Tensor& t = g.tensor(op.outputs[i]);
            if (isLossKind(op.kind) || !t.requiresGrad || !isFloatType(t.dtype)) {
                rb.gradOutputs.emplace_back();
                sb.gradOutputs.emplace_back();
                continue;
            }
            auto tw = twins.make(t.dtype, shapeOf(g, op.outputs[i]));
            if (!tw) return fail(base, "backward", tw.error().message);
            if (auto st = fill(twins, **tw, g, op.outputs[i], prefix + "/dout" + std::to_string(i));
                !st)
                return fail(base, "backward", st.error().message);
            rb.gradOutputs.push_back((*tw)->refView());
            sb.gradOutputs.push_back((*tw)->subView());
        }
        std::vector<std::pair<std::string, Twin*>> grads;
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            const Tensor& t = g.tensor(op.inputs[i]);
            if (!t.requiresGrad || !isFloatType(t.dtype)) {
                rb.gradInputs.emplace_back();
                sb.gradInputs.emplace_back();
                continue;
            }
            auto tw = twins.make(t.dtype, shapeOf(g, op.inputs[i]));
            if (!tw) return fail(base, "backward", tw.error().message);
            if (auto st = fill(twins, **tw, g, op.inputs[i], prefix + "/din" + std::to_string(i));
                !st)
                return fail(base, "backward", st.error().message);
            rb.gradInputs.push_back((*tw)->refView());
            sb.gradInputs.push_back((*tw)->subView());
            grads.emplace_back("input gradient " + std::to_string(i), *tw);
        }
        for (std::size_t i = 0; i < op.params.size(); ++i) {
            const TensorId t = op.params[i];
            auto tw = twins.make(g.tensor(t).dtype, shapeOf(g, t));
            if (!tw) return fail(base, "backward", tw.error().message);
            if (auto st = fill(twins, **tw, g, t, prefix + "/dparam" + std::to_string(i)); !st)
                return fail(base, "backward", st.error().message);
            rb.paramGrads.push_back((*tw)->refView());
            sb.paramGrads.push_back((*tw)->subView());
            grads.emplace_back("gradient of " + g.tensor(t).name, *tw);
        }
        const std::int64_t wsBackward = op.workspaceBackward.at(kMicroBatch);
        if (wsBackward > 0) {
            auto tw = twins.make(DType::U8, {wsBackward});
            if (!tw) return fail(base, "backward", tw.error().message);
            rb.workspace = (*tw)->refView();
            sb.workspace = (*tw)->subView();
        }
        if (grads.empty()) return;  // nothing flows back through this op
        if (auto st = dispatch(m_ref, rb, false); !st)
            return fail(base, "backward", "reference: " + st.error().message);
        if (auto st = dispatch(m_sub, sb, false); !st)
            return fail(base, "backward", st.error().message);
        record(base, "backward", grads, twins);
    }

    void runOptimizer(TwinSet& twins, Optimizer opt, DType dt, const Row& base) {
        const Shape shape{kOptimizerElements};
        const std::string prefix = "optimizer/" + base.op + "/" + base.dtype;
        const std::vector<float> weights =
            randomFloats(m_o.seed, prefix + "/w", kOptimizerElements, -1.0f, 1.0f);
        OptimizerCall rc, sc;
        rc.optimizer = sc.optimizer = opt;
        rc.step = sc.step = kOptimizerStep;
        std::vector<std::pair<std::string, Twin*>> compared;
        auto add = [&](const std::string& name, DType t, const std::vector<float>& values,
                       TensorRef OptimizerCall::*slot) -> Status {
            auto tw = twins.make(t, shape);
            if (!tw) return tw.error();
            if (auto st = twins.upload(**tw, encodeFloats(values, t)); !st) return st;
            rc.*slot = (*tw)->refView();
            sc.*slot = (*tw)->subView();
            if (name != "gradient") compared.emplace_back(name, *tw);
            return Ok{};
        };
        Status st = add("parameter", dt, weights, &OptimizerCall::param);
        if (st)
            st = add("gradient", dt,
                     randomFloats(m_o.seed, prefix + "/g", kOptimizerElements, -1.0f, 1.0f),
                     &OptimizerCall::grad);
        if (st && dt != DType::F32)
            st = add("master weight", DType::F32, weights, &OptimizerCall::master);
        if (st && optimizerStateCount(opt) >= 1)
            st = add("state 1", DType::F32,
                     randomFloats(m_o.seed, prefix + "/m", kOptimizerElements, -0.1f, 0.1f),
                     &OptimizerCall::state1);
        if (st && optimizerStateCount(opt) >= 2)
            st = add("state 2", DType::F32,
                     randomFloats(m_o.seed, prefix + "/v", kOptimizerElements, 0.0f, 0.01f),
                     &OptimizerCall::state2);
        if (!st) return fail(base, "step", st.error().message);
        if (auto r = m_ref.optimizerStep(rc); !r)
            return fail(base, "step", "reference: " + r.error().message);
        if (auto r = m_sub.optimizerStep(sc); !r) return fail(base, "step", r.error().message);
        record(base, "step", compared, twins);
    }

    Backend& m_ref;
    Backend& m_sub;
    const SelftestOptions& m_o;
};

std::string formatError(double e) {
    if (std::isinf(e)) return "inf";
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << e;
    return s.str();
}

int runSelftest(const SelftestOptions& o) {
    auto subject = makeBackend(o.backend);
    if (!subject) {
        std::cerr << "remat selftest: " << subject.error().message << "\n";
        return 2;
    }
    auto reference = makeBackend("cpu");
    if (!reference) return userError(reference.error().message);

    std::vector<Precision> precisions;
    if (o.dtypes == "all" || o.dtypes == "fp32") precisions.push_back(Precision::Fp32);
    if (o.dtypes == "all" || o.dtypes == "bf16") precisions.push_back(Precision::MixedBf16);
    if (o.dtypes == "all" || o.dtypes == "fp16") precisions.push_back(Precision::MixedFp16);
    if (precisions.empty()) return userError("--dtype: expected all, fp32, bf16 or fp16");

    Harness h(**reference, **subject, o);
    for (Precision p : precisions) {
        for (const Network& net : testNetworks()) {
            auto g = lower(net, p);
            if (!g) return userError("selftest network '" + net.name + "': " + g.error().message);
            for (std::size_t i = 0; i < g->ops.size(); ++i) {
                if (g->ops[i].kind == OpKind::Flatten) continue;
                h.checkOp(net.name, *g, OpId(std::uint32_t(i)));
            }
        }
        for (Optimizer opt :
             {Optimizer::Sgd, Optimizer::Momentum, Optimizer::Adam, Optimizer::AdamW})
            h.checkOptimizer(opt, computeDType(p));
    }

    std::size_t failed = 0;
    for (const Row& r : h.rows) failed += !r.pass;

    if (o.json) {
        nlohmann::json cases = nlohmann::json::array();
        for (const Row& r : h.rows) {
            nlohmann::json j = {{"network", r.network},     {"op", r.op},
                                {"kind", r.kind},           {"direction", r.direction},
                                {"dtype", r.dtype},         {"tensor", r.tensor},
                                {"tolerance", r.tolerance}, {"pass", r.pass}};
            j["error"] = std::isinf(r.error) ? nlohmann::json(nullptr) : nlohmann::json(r.error);
            if (!r.failure.empty()) j["failure"] = r.failure;
            cases.push_back(std::move(j));
        }
        nlohmann::json out = {
            {"backend", o.backend},
            {"reference", "cpu"},
            {"device", (*subject)->deviceName()},
            {"seed", o.seed},
            {"micro_batch", kMicroBatch},
            {"error_measure", "max |subject - reference| / max(max |reference|, 1e-3)"},
            {"cases", cases},
            {"passed", h.rows.size() - failed},
            {"failed", failed}};
        std::cout << out.dump(2) << "\n";
        return failed == 0 ? 0 : 1;
    }

    // One line per op kind, dtype and direction: the worst instance.
    struct Worst {
        Row row;
        std::size_t count = 0;
        bool pass = true;
    };
    std::vector<std::string> order;
    std::map<std::string, Worst> worst;
    for (const Row& r : h.rows) {
        const std::string key = r.kind + "|" + r.dtype + "|" + r.direction;
        auto [it, inserted] = worst.try_emplace(key);
        if (inserted) order.push_back(key);
        Worst& w = it->second;
        ++w.count;
        // Show a failing instance before a passing one, then the largest error / tolerance.
        const double ratio = r.tolerance > 0 ? r.error / r.tolerance : r.error;
        const double old = w.row.tolerance > 0 ? w.row.error / w.row.tolerance : w.row.error;
        const bool worse = w.count == 1 || (!r.pass && w.pass) || (r.pass == w.pass && ratio > old);
        w.pass = w.pass && r.pass;
        if (worse) w.row = r;
    }
    std::cout << "selftest: " << (*subject)->deviceName() << " (" << o.backend
              << ") against the CPU reference; error = max|diff| / max(max|ref|, 1e-3)\n\n";
    TextTable table({"op", "dtype", "direction", "instances", "worst error", "tolerance", "result",
                     "worst instance"});
    for (const std::string& key : order) {
        const Worst& w = worst[key];
        table.addRow({w.row.kind, w.row.dtype, w.row.direction, std::to_string(w.count),
                      formatError(w.row.error), formatError(w.row.tolerance),
                      w.pass ? "ok" : "FAIL",
                      w.row.op + (w.row.tensor.empty() ? "" : " (" + w.row.tensor + ")")});
    }
    std::cout << table.render();
    for (const Row& r : h.rows)
        if (!r.pass)
            std::cout << "FAIL " << r.network << " " << r.op << " " << r.dtype << " " << r.direction
                      << ": "
                      << (r.failure.empty() ? "error " + formatError(r.error) + " > " +
                                                  formatError(r.tolerance) + " in " + r.tensor
                                            : r.failure)
                      << "\n";
    std::cout << "\n" << (h.rows.size() - failed) << " of " << h.rows.size() << " checks passed\n";
    return failed == 0 ? 0 : 1;
}

}  // namespace

void addSelftest(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "selftest", "check every op of a backend, forward and backward, against the CPU reference");
    auto o = std::make_shared<SelftestOptions>();
    cmd->add_option("--backend", o->backend, "cuda | cpu (cpu checks the harness itself)")
        ->capture_default_str();
    cmd->add_option("--dtype", o->dtypes, "all | fp32 | bf16 | fp16")->capture_default_str();
    cmd->add_option("--seed", o->seed, "seed of the random operands")->capture_default_str();
    cmd->add_flag("--json", o->json, "print one JSON object");
    cmd->add_option("--selfcheck-perturb", o->perturb,
                    "harness self-check: corrupt the subject's results for this op kind, which "
                    "must then fail")
        ->group("");
    cmd->callback([o, &exitCode] { exitCode = runSelftest(*o); });
}

}  // namespace remat::cli
