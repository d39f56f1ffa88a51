// `remat selftest --backend cuda|cpu`: every op the backend runs, forward and backward, and
// the four optimizers, checked against the independent float64 reference (gpu/reference/)
// on small random operands, with a stated tolerance per op and dtype. The ops come from six
// small lowered networks (a dense stack with every activation and both norms; a GPT block
// with causal attention, dropout and a tied head; a grouped-KV block with SwiGLU, RMSNorm and
// rotary embeddings on half of each head; two blocks with flash attention and dropout on its
// probabilities, causal with grouped KV heads and rotary embeddings, and unmasked; a small ResNet
// with convolutions — strided, padded, dilated, grouped and depthwise — batch norm, both
// poolings and both residual blocks)
// in fp32, bf16 and fp16. The backend and the reference receive identical values: the
// forward's operands, and for backward the reference's forward results stored in the
// operand's dtype as saved tensors, random output gradients (zero where the scores are
// masked, as softmax's backward makes them) and random values already in the gradient
// buffers (backward must accumulate). The GPU machine has no Qt, so this check lives in the
// CLI; the test suite runs it on the CPU backend everywhere.
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
#include "reference_ops.h"
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
// attention scores) must match exactly; a NaN on either side is a failure; dropout masks must
// be identical.
//
// Tolerances per op and dtype (docs/executors.md lists them beside the largest errors
// measured on the CPU backend). A 16-bit result is the fp32 result rounded once: off by at
// most half an ulp, 2^-8 (bf16) or 2^-11 (fp16) of the largest element, which is what the CPU
// reaches; the table allows twice that for element-wise ops and four times where a sum over a
// row or a reduction dimension may round differently on another backend.
// fp32 results differ from float64 by fp32 rounding along the computation (the CPU's worst is
// 6.0e-7); the table allows 4e-6 for element-wise ops and 1e-5 for GEMMs and row
// reductions, room for a GPU's summation orders (warp trees, other GEMM tilings) and its
// libm (expf, tanhf within two ulps).
struct OpTolerance {
    const char* kind;
    double fp32, bf16, fp16;
};
constexpr double kElementwise32 = 4e-6, kReducing32 = 1e-5;
constexpr double kElementwise16[2] = {8e-3, 1e-3};  // bf16, fp16: twice the rounding bound
constexpr double kReducing16[2] = {1.6e-2, 2e-3};   // four times
constexpr OpTolerance elementwise(const char* kind) {
    return {kind, kElementwise32, kElementwise16[0], kElementwise16[1]};
}
constexpr OpTolerance reducing(const char* kind) {
    return {kind, kReducing32, kReducing16[0], kReducing16[1]};
}
constexpr OpTolerance kTolerances[] = {
    reducing("linear"),           elementwise("relu"),
    elementwise("gelu"),          elementwise("silu"),
    elementwise("tanh"),          elementwise("sigmoid"),
    reducing("softmax"),          reducing("layernorm"),
    reducing("rmsnorm"),          elementwise("dropout"),
    elementwise("mul"),           elementwise("add"),
    elementwise("embedding"),     reducing("attention_scores"),
    reducing("attention_context"), elementwise("expand_kv"),
    reducing("cross_entropy"),    reducing("mse"),
    reducing("conv2d"),           reducing("batchnorm2d"),
    elementwise("maxpool2d"),     reducing("global_avg_pool"),
    reducing("flash_attention"),  elementwise("rotary"),
    elementwise("optimizer_sgd"), elementwise("optimizer_momentum"),
    elementwise("optimizer_adam"), elementwise("optimizer_adamw"),
};

// `t` is the compared tensor's dtype; statistics and log-probabilities are fp32 in every
// precision, and are held to the fp32 figure.
double tolerance(std::string_view kind, DType t) {
    if (t == DType::U8 || t == DType::I64) return 0.0;  // masks, pooling indices: identical
    for (const OpTolerance& o : kTolerances)
        if (kind == o.kind) return t == DType::BF16 ? o.bf16 : t == DType::F16 ? o.fp16 : o.fp32;
    return 0.0;
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

// The subject's bytes of one tensor against the reference's values (error measure above).
TensorError compareValues(const std::vector<std::uint8_t>& subject, DType t,
                          const reference::Values& ref) {
    TensorError e;
    if (t == DType::I64) {
        std::vector<std::int64_t> ids(subject.size() / 8);
        std::memcpy(ids.data(), subject.data(), ids.size() * 8);
        if (std::int64_t(ids.size()) != ref.elements()) {
            e.failure = "sizes differ";
            return e;
        }
        std::size_t bad = 0;
        for (std::size_t i = 0; i < ids.size(); ++i) bad += double(ids[i]) != ref.v[i];
        e.error = double(bad) / double(std::max<std::size_t>(1, ids.size()));
        return e;
    }
    if (t == DType::U8) {
        if (std::int64_t(subject.size()) != ref.elements()) {
            e.failure = "sizes differ";
            return e;
        }
        std::size_t bad = 0;
        for (std::size_t i = 0; i < subject.size(); ++i)
            bad += double(subject[i] != 0) != ref.v[i];
        e.error = double(bad) / double(std::max<std::size_t>(1, subject.size()));
        return e;
    }
    const std::vector<float> sub = decodeFloats(subject, t);
    if (std::int64_t(sub.size()) != ref.elements()) {
        e.failure = "sizes differ";
        return e;
    }
    double maxRef = 1e-3, maxDiff = 0.0;
    for (std::size_t i = 0; i < sub.size(); ++i) {
        const double a = ref.v[i], b = sub[i];
        if (std::isnan(a) || std::isnan(b)) {
            e.error = INFINITY;
            e.failure = "NaN at element " + std::to_string(i);
            return e;
        }
        if (std::isinf(a) || std::isinf(b)) {
            if (a != b) {
                e.error = INFINITY;
                e.failure = "infinity mismatch at element " + std::to_string(i);
                return e;
            }
            continue;
        }
        maxRef = std::max(maxRef, std::fabs(a));
        maxDiff = std::max(maxDiff, std::fabs(a - b));
    }
    e.error = maxDiff / maxRef;
    return e;
}

// Bytes of a tensor as float64 values: floats decoded, integers exact, masks 0 or 1.
std::vector<double> toDoubles(const std::vector<std::uint8_t>& bytes, DType t) {
    std::vector<double> v;
    if (t == DType::I64) {
        std::vector<std::int64_t> ints(bytes.size() / 8);
        std::memcpy(ints.data(), bytes.data(), ints.size() * 8);
        v.assign(ints.begin(), ints.end());
    } else if (t == DType::U8) {
        for (std::uint8_t b : bytes) v.push_back(b != 0 ? 1.0 : 0.0);
    } else {
        const std::vector<float> f = decodeFloats(bytes, t);
        v.assign(f.begin(), f.end());
    }
    return v;
}

// Float64 values stored in a tensor's dtype (floats rounded, masks as bytes, indices exact).
std::vector<std::uint8_t> fromDoubles(const std::vector<double>& v, DType t) {
    if (t == DType::I64) {
        std::vector<std::int64_t> ids(v.begin(), v.end());
        std::vector<std::uint8_t> bytes(ids.size() * 8);
        std::memcpy(bytes.data(), ids.data(), bytes.size());
        return bytes;
    }
    if (t == DType::U8) {
        std::vector<std::uint8_t> bytes;
        for (double x : v) bytes.push_back(x != 0.0 ? 1 : 0);
        return bytes;
    }
    return encodeFloats(std::vector<float>(v.begin(), v.end()), t);
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

// One operand: the subject's block and the values the reference sees — the same values,
// decoded, once uploaded.
struct Operand {
    DeviceBlock block;
    bool owned = true;  // false: an in-place output sharing its input's block
    DType dtype = DType::F32;
    Shape shape;
    reference::Values values;

    TensorRef view() const { return block.data ? TensorRef{block.data, dtype, shape} : TensorRef{}; }
    std::int64_t bytes() const { return elementsOf(shape) * dtypeBytes(dtype); }
};

// The operands of one case on the subject; everything is released when the case ends.
class OperandSet {
public:
    explicit OperandSet(Backend& subject) : m_sub(subject) {}
    ~OperandSet() {
        for (auto& o : m_operands)
            if (o->owned && o->block.data) m_sub.release(o->block);
    }
    OperandSet(const OperandSet&) = delete;
    OperandSet& operator=(const OperandSet&) = delete;

    Result<Operand*> make(DType dtype, const Shape& shape, const Operand* sharing = nullptr) {
        auto o = std::make_unique<Operand>();
        o->dtype = dtype;
        o->shape = shape;
        o->values = reference::Values(shape);
        if (sharing) {
            o->block = sharing->block;
            o->owned = false;
        } else {
            auto b = m_sub.allocate(std::max<std::int64_t>(1, o->bytes()));
            if (!b) return makeError(b.error().message);
            o->block = *b;
        }
        m_operands.push_back(std::move(o));
        return m_operands.back().get();
    }
    // The subject gets the bytes; the reference, their values.
    Status upload(Operand& o, const std::vector<std::uint8_t>& bytes) {
        if (auto st = m_sub.upload(o.block, bytes.data(), std::int64_t(bytes.size())); !st)
            return st;
        o.values.v = toDoubles(bytes, o.dtype);
        return Ok{};
    }
    Result<std::vector<std::uint8_t>> download(const Operand& o) {
        std::vector<std::uint8_t> bytes(std::size_t(o.bytes()));
        if (auto st = m_sub.download(o.block, bytes.data(), o.bytes()); !st) return st.error();
        return bytes;
    }

private:
    Backend& m_sub;
    std::vector<std::unique_ptr<Operand>> m_operands;
};

bool isFloatType(DType t) {
    return t == DType::F32 || t == DType::BF16 || t == DType::F16;
}
bool isLossKind(OpKind k) {
    return k == OpKind::CrossEntropy || k == OpKind::Mse;
}

// The five small networks whose ops are checked.
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
        // Rotary embeddings on half of each head (GPT-NeoX's rotary_pct), another base.
        blk.rotary = gqa;
        blk.rotaryFraction = 0.5;
        blk.rotaryBase = 500.0;
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
    // Flash attention over 80 tokens: two query and two key tiles of the CPU kernel (64 + 16),
    // so the online softmax rescales, the causal mask cuts a tile and the last tile is short;
    // causal with grouped KV heads and rotary embeddings (Llama), and unmasked with one KV head
    // per query head; both with dropout inside the kernel.
    auto flashNet = [](const std::string& name, bool causal, std::int64_t kvHeads) {
        Network n;
        n.name = name;
        n.input.tokens = 80;
        n.input.vocab = 48;
        Layer emb;
        emb.kind = LayerKind::Embedding;
        emb.dim = 32;
        emb.positions = causal ? 0 : 80;
        Layer blk;
        blk.kind = LayerKind::TransformerBlock;
        blk.heads = 4;
        blk.kvHeads = kvHeads;
        blk.mlpHidden = 48;
        blk.activation = causal ? Activation::Silu : Activation::Gelu;
        blk.gated = causal;
        blk.norm = causal ? NormKind::RmsNorm : NormKind::LayerNorm;
        blk.attention = AttentionImpl::Flash;
        blk.causal = causal;
        blk.bias = !causal;
        blk.rotary = causal;  // Llama: rotary over the whole head
        blk.dropout = 0.1;    // on the probabilities, inside the kernel
        Layer head;
        head.kind = LayerKind::Linear;
        head.out = 48;
        head.bias = false;
        Layer ce;
        ce.kind = LayerKind::CrossEntropy;
        n.layers = {emb, blk, head, ce};
        return n;
    };
    nets.push_back(flashNet("flash-gqa", true, 2));
    nets.push_back(flashNet("flash", false, 0));
    {
        // A small ResNet: a strided, padded stem with a bias, batch norm, in-place ReLU and a
        // padded max pool; a dilated convolution in two groups and a depthwise one with a
        // bias; a basic block with a projection shortcut (6 -> 8 channels) and a
        // strided bottleneck block (its 1x1, 3x3 and projection convolutions, in-place add);
        // global average pooling, flatten and a classifier.
        Network n;
        n.name = "resnet";
        n.input.shape = {3, 9, 9};
        Layer stem;
        stem.kind = LayerKind::Conv2d;
        stem.outChannels = 6;
        stem.kernel = 3;
        stem.stride = 2;
        stem.padding = 1;
        stem.bias = true;
        Layer bn;
        bn.kind = LayerKind::BatchNorm2d;
        Layer relu;
        relu.kind = LayerKind::Relu;
        relu.inplace = true;
        Layer pool;
        pool.kind = LayerKind::MaxPool2d;
        pool.kernel = 3;
        pool.stride = 2;
        pool.padding = 1;
        Layer dilated;
        dilated.kind = LayerKind::Conv2d;
        dilated.outChannels = 6;
        dilated.kernel = 3;
        dilated.padding = 2;
        dilated.dilation = 2;
        dilated.groups = 2;
        dilated.bias = false;
        Layer depthwise;
        depthwise.kind = LayerKind::Conv2d;
        depthwise.outChannels = 6;
        depthwise.kernel = 3;
        depthwise.padding = 1;
        depthwise.groups = 6;
        depthwise.bias = true;
        Layer basic;
        basic.kind = LayerKind::ResidualBlock;
        basic.variant = ResidualVariant::Basic;
        basic.channels = 8;
        Layer bottleneck;
        bottleneck.kind = LayerKind::ResidualBlock;
        bottleneck.variant = ResidualVariant::Bottleneck;
        bottleneck.channels = 4;
        bottleneck.stride = 2;
        Layer gap;
        gap.kind = LayerKind::GlobalAvgPool;
        Layer flat;
        flat.kind = LayerKind::Flatten;
        Layer fc;
        fc.kind = LayerKind::Linear;
        fc.out = 10;
        Layer ce;
        ce.kind = LayerKind::CrossEntropy;
        n.layers = {stem, bn, relu, pool, dilated, depthwise, basic, bottleneck, gap, flat, fc, ce};
        nets.push_back(n);
    }
    return nets;
}

class Harness {
public:
    Harness(Backend& sub, const SelftestOptions& o) : m_sub(sub), m_o(o) {}

    std::vector<Row> rows;

    void checkOp(const std::string& network, const Graph& g, OpId id) {
        const Op& op = g.op(id);
        const DType dt = computeDType(g.precision);
        Row base;
        base.network = network;
        base.op = op.name;
        base.kind = std::string(opKindName(op.kind));
        base.dtype = std::string(dtypeName(dt));
        if (!m_sub.supports(op.kind)) return;

        if (auto st = m_sub.beginStep(0); !st) return fail(base, "forward", st.error().message);
        {
            OperandSet operands(m_sub);
            runOp(operands, g, id, base);
        }
        if (Status e = m_sub.endStep(); !e) fail(base, "teardown", e.error().message);
    }

    void checkOptimizer(Optimizer opt, DType dt) {
        Row base;
        base.network = "optimizer";
        base.op = std::string(optimizerName(opt));
        base.kind = "optimizer_" + std::string(optimizerName(opt));
        base.dtype = std::string(dtypeName(dt));
        base.direction = "step";
        if (auto st = m_sub.beginStep(0); !st) return fail(base, "step", st.error().message);
        {
            OperandSet operands(m_sub);
            runOptimizer(operands, opt, dt, base);
        }
        if (Status e = m_sub.endStep(); !e) fail(base, "teardown", e.error().message);
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

    // Fills an operand with the case's random data for tensor `t` (role-appropriate values).
    Status fill(OperandSet& set, Operand& o, const Graph& g, TensorId t, const std::string& label) {
        const std::int64_t n = elementsOf(o.shape);
        if (o.dtype == DType::I64) {
            std::int64_t classes = integerInputClasses(g, t);
            if (classes <= 0) classes = 2;
            return set.upload(o, randomInts(m_o.seed, label, n, classes));
        }
        if (!isFloatType(o.dtype))
            return set.upload(o, std::vector<std::uint8_t>(std::size_t(o.bytes()), 1));
        return set.upload(o, encodeFloats(randomFloats(m_o.seed, label, n, -1.0f, 1.0f), o.dtype));
    }

    void perturbIfAsked(const std::string& kind, std::vector<std::uint8_t>& bytes, DType t) {
        if (m_o.perturb.empty() || m_o.perturb != kind || !isFloatType(t) || bytes.empty()) return;
        std::vector<float> v = decodeFloats(bytes, t);
        v[0] += 1.0f;
        bytes = encodeFloats(v, t);
    }

    // Compares the subject's operands with the reference's values and records the worst one
    // as the row.
    struct Compared {
        std::string name;
        const Operand* subject;
        const reference::Values* expected;
    };
    void record(Row row, const std::string& direction, const std::vector<Compared>& compared,
                OperandSet& set) {
        row.direction = direction;
        row.error = 0.0;
        row.tolerance = 0.0;
        double worstRatio = -1.0;
        for (const Compared& c : compared) {
            auto bytes = set.download(*c.subject);
            if (!bytes) return fail(row, direction, bytes.error().message);
            perturbIfAsked(row.kind, *bytes, c.subject->dtype);
            const TensorError e = compareValues(*bytes, c.subject->dtype, *c.expected);
            const double tol = tolerance(row.kind, c.subject->dtype);
            const double ratio = e.error / std::max(tol, 1e-30);
            if (!e.failure.empty() || e.error > tol) row.pass = false;
            if (ratio > worstRatio || !e.failure.empty()) {
                worstRatio = ratio;
                row.error = e.error;
                row.tolerance = tol;
                row.tensor = c.name;
                if (!e.failure.empty()) row.failure = c.name + ": " + e.failure;
            }
        }
        rows.push_back(std::move(row));
    }

    void runOp(OperandSet& set, const Graph& g, OpId id, const Row& base) {
        const Op& op = g.op(id);
        OpCall sc;
        reference::Call rc;
        sc.op = rc.op = &op;
        sc.opId = rc.opId = id;
        sc.microBatch = rc.microBatch = kMicroBatch;
        sc.seed = rc.seed = m_o.seed;
        sc.rngDraw = rc.rngDraw = kRngDraw;
        sc.lossGradScale = kLossGradScale;
        rc.lossGradScale = kLossGradScale;
        std::map<std::uint32_t, Operand*> byTensor;  // forward operands by tensor id
        const std::string prefix = base.network + "/" + base.dtype + "/" + op.name;

        // ---- forward ----
        std::vector<Operand*> inputs, params, outputs;
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            const TensorId t = op.inputs[i];
            auto o = set.make(g.tensor(t).dtype, shapeOf(g, t));
            if (!o) return fail(base, "forward", o.error().message);
            if (auto st = fill(set, **o, g, t, prefix + "/in" + std::to_string(i)); !st)
                return fail(base, "forward", st.error().message);
            byTensor[t.value] = *o;
            inputs.push_back(*o);
            sc.inputs.push_back((*o)->view());
            rc.inputs.push_back((*o)->values);
        }
        for (std::size_t i = 0; i < op.params.size(); ++i) {
            const TensorId t = op.params[i];
            auto o = set.make(g.tensor(t).dtype, shapeOf(g, t));
            if (!o) return fail(base, "forward", o.error().message);
            if (auto st = fill(set, **o, g, t, prefix + "/param" + std::to_string(i)); !st)
                return fail(base, "forward", st.error().message);
            params.push_back(*o);
            sc.params.push_back((*o)->view());
            rc.params.push_back((*o)->values);
        }
        for (std::size_t i = 0; i < op.outputs.size(); ++i) {
            const TensorId t = op.outputs[i];
            const Operand* sharing =
                i == 0 && op.inPlaceInput >= 0 ? inputs.at(std::size_t(op.inPlaceInput)) : nullptr;
            auto o = set.make(g.tensor(t).dtype, shapeOf(g, t), sharing);
            if (!o) return fail(base, "forward", o.error().message);
            byTensor[t.value] = *o;
            outputs.push_back(*o);
            sc.outputs.push_back((*o)->view());
            rc.outputs.push_back((*o)->values);
        }
        const std::int64_t wsForward = op.workspaceForward.at(kMicroBatch);
        if (wsForward > 0) {
            auto o = set.make(DType::U8, {wsForward});
            if (!o) return fail(base, "forward", o.error().message);
            sc.workspace = (*o)->view();
        }
        if (auto st = reference::forward(rc); !st)
            return fail(base, "forward", "reference: " + st.error().message);
        if (auto st = remat::runOp(m_sub, sc, false); !st)
            return fail(base, "forward", st.error().message);
        std::vector<Compared> forwardCompared;
        for (std::size_t i = 0; i < outputs.size(); ++i)
            forwardCompared.push_back({"output " + std::to_string(i), outputs[i], &rc.outputs[i]});
        record(base, "forward", forwardCompared, set);

        // ---- backward: saved tensors are the reference's forward results in their dtype ----
        for (std::size_t i = 0; i < outputs.size(); ++i)
            if (auto st = set.upload(*outputs[i], fromDoubles(rc.outputs[i].v, outputs[i]->dtype));
                !st)
                return fail(base, "backward", st.error().message);
        OpCall sb = sc;
        sb.inputs.clear();
        sb.outputs.clear();
        sb.workspace = TensorRef{};
        reference::Call rb;
        rb.op = &op;
        rb.opId = id;
        rb.microBatch = kMicroBatch;
        rb.seed = m_o.seed;
        rb.rngDraw = kRngDraw;
        rb.lossGradScale = kLossGradScale;
        rb.params = rc.params;
        for (TensorId t : op.saved) {
            auto it = byTensor.find(t.value);
            if (it == byTensor.end()) it = byTensor.find(g.storageOf(t).value);
            if (it == byTensor.end())
                return fail(
                    base, "backward",
                    "saved tensor '" + g.tensor(t).name + "' is neither an input nor an output");
            sb.saved.push_back(it->second->view());
            rb.saved.push_back(it->second->values);
        }
        for (std::size_t i = 0; i < op.outputs.size(); ++i) {
            const Tensor& t = g.tensor(op.outputs[i]);
            if (isLossKind(op.kind) || !t.requiresGrad || !isFloatType(t.dtype)) {
                sb.gradOutputs.emplace_back();
                rb.gradOutputs.emplace_back();
                continue;
            }
            auto o = set.make(t.dtype, shapeOf(g, op.outputs[i]));
            if (!o) return fail(base, "backward", o.error().message);
            std::vector<float> upstream =
                randomFloats(m_o.seed, prefix + "/dout" + std::to_string(i),
                             elementsOf((*o)->shape), -1.0f, 1.0f);
            // A masked score is a constant: in a network its gradient is zero (softmax's
            // backward makes it so), and no backend is asked to handle anything else.
            for (std::size_t k = 0; k < upstream.size(); ++k)
                if (std::isinf(rc.outputs[i].v[k])) upstream[k] = 0.0f;
            if (auto st = set.upload(**o, encodeFloats(upstream, t.dtype)); !st)
                return fail(base, "backward", st.error().message);
            sb.gradOutputs.push_back((*o)->view());
            rb.gradOutputs.push_back((*o)->values);
        }
        std::vector<std::pair<std::string, Operand*>> grads;
        std::vector<std::size_t> gradSlot;  // where each compared gradient sits in rb
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            const Tensor& t = g.tensor(op.inputs[i]);
            if (!t.requiresGrad || !isFloatType(t.dtype)) {
                sb.gradInputs.emplace_back();
                rb.gradInputs.emplace_back();
                continue;
            }
            auto o = set.make(t.dtype, shapeOf(g, op.inputs[i]));
            if (!o) return fail(base, "backward", o.error().message);
            if (auto st = fill(set, **o, g, op.inputs[i], prefix + "/din" + std::to_string(i)); !st)
                return fail(base, "backward", st.error().message);
            sb.gradInputs.push_back((*o)->view());
            rb.gradInputs.push_back((*o)->values);
            grads.emplace_back("input gradient " + std::to_string(i), *o);
            gradSlot.push_back(i);
        }
        for (std::size_t i = 0; i < op.params.size(); ++i) {
            const TensorId t = op.params[i];
            auto o = set.make(g.tensor(t).dtype, shapeOf(g, t));
            if (!o) return fail(base, "backward", o.error().message);
            if (auto st = fill(set, **o, g, t, prefix + "/dparam" + std::to_string(i)); !st)
                return fail(base, "backward", st.error().message);
            sb.paramGrads.push_back((*o)->view());
            rb.paramGrads.push_back((*o)->values);
            grads.emplace_back("gradient of " + g.tensor(t).name, *o);
            gradSlot.push_back(op.inputs.size() + i);
        }
        const std::int64_t wsBackward = op.workspaceBackward.at(kMicroBatch);
        if (wsBackward > 0) {
            auto o = set.make(DType::U8, {wsBackward});
            if (!o) return fail(base, "backward", o.error().message);
            sb.workspace = (*o)->view();
        }
        if (grads.empty()) return;  // nothing flows back through this op
        if (auto st = reference::backward(rb); !st)
            return fail(base, "backward", "reference: " + st.error().message);
        if (auto st = remat::runOp(m_sub, sb, true); !st)
            return fail(base, "backward", st.error().message);
        std::vector<Compared> backwardCompared;
        for (std::size_t k = 0; k < grads.size(); ++k) {
            const std::size_t slot = gradSlot[k];
            const reference::Values& expected = slot < op.inputs.size()
                                                    ? rb.gradInputs[slot]
                                                    : rb.paramGrads[slot - op.inputs.size()];
            backwardCompared.push_back({grads[k].first, grads[k].second, &expected});
        }
        record(base, "backward", backwardCompared, set);
    }

    void runOptimizer(OperandSet& set, Optimizer opt, DType dt, const Row& base) {
        const Shape shape{kOptimizerElements};
        const std::string prefix = "optimizer/" + base.op + "/" + base.dtype;
        const std::vector<float> weights =
            randomFloats(m_o.seed, prefix + "/w", kOptimizerElements, -1.0f, 1.0f);
        OptimizerCall sc;
        sc.optimizer = opt;
        sc.step = kOptimizerStep;
        std::vector<std::pair<std::string, Operand*>> compared;
        auto add = [&](const std::string& name, DType t, const std::vector<float>& values,
                       TensorRef OptimizerCall::*slot) -> Result<Operand*> {
            auto o = set.make(t, shape);
            if (!o) return o.error();
            if (auto st = set.upload(**o, encodeFloats(values, t)); !st) return st.error();
            sc.*slot = (*o)->view();
            if (name != "gradient") compared.emplace_back(name, *o);
            return *o;
        };
        reference::OptimizerValues rv;
        rv.optimizer = opt;
        rv.step = kOptimizerStep;
        const OptimizerHyperParams& hp = kOptimizerHyperParams;
        rv.learningRate = hp.learningRate;
        rv.momentum = hp.momentum;
        rv.beta1 = hp.beta1;
        rv.beta2 = hp.beta2;
        rv.epsilon = hp.epsilon;
        rv.weightDecay = hp.weightDecay;
        auto param = add("parameter", dt, weights, &OptimizerCall::param);
        if (!param) return fail(base, "step", param.error().message);
        rv.param = (*param)->values.v;
        auto grad = add("gradient", dt,
                        randomFloats(m_o.seed, prefix + "/g", kOptimizerElements, -1.0f, 1.0f),
                        &OptimizerCall::grad);
        if (!grad) return fail(base, "step", grad.error().message);
        rv.grad = (*grad)->values.v;
        if (dt != DType::F32) {
            auto master = add("master weight", DType::F32, weights, &OptimizerCall::master);
            if (!master) return fail(base, "step", master.error().message);
            rv.master = (*master)->values.v;
        }
        if (optimizerStateCount(opt) >= 1) {
            auto m = add("state 1", DType::F32,
                         randomFloats(m_o.seed, prefix + "/m", kOptimizerElements, -0.1f, 0.1f),
                         &OptimizerCall::state1);
            if (!m) return fail(base, "step", m.error().message);
            rv.state1 = (*m)->values.v;
        }
        if (optimizerStateCount(opt) >= 2) {
            auto v = add("state 2", DType::F32,
                         randomFloats(m_o.seed, prefix + "/v", kOptimizerElements, 0.0f, 0.01f),
                         &OptimizerCall::state2);
            if (!v) return fail(base, "step", v.error().message);
            rv.state2 = (*v)->values.v;
        }
        reference::optimizerStep(rv);
        if (auto r = m_sub.optimizerStep(sc); !r) return fail(base, "step", r.error().message);
        // The expected values, in the order `compared` lists the operands.
        std::vector<reference::Values> expected;
        for (const auto& [name, o] : compared) {
            reference::Values v(o->shape);
            v.v = name == "parameter"       ? rv.param
                  : name == "master weight" ? rv.master
                  : name == "state 1"       ? rv.state1
                                            : rv.state2;
            expected.push_back(std::move(v));
        }
        std::vector<Compared> list;
        for (std::size_t k = 0; k < compared.size(); ++k)
            list.push_back({compared[k].first, compared[k].second, &expected[k]});
        record(base, "step", list, set);
    }

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

    std::vector<Precision> precisions;
    if (o.dtypes == "all" || o.dtypes == "fp32") precisions.push_back(Precision::Fp32);
    if (o.dtypes == "all" || o.dtypes == "bf16") precisions.push_back(Precision::MixedBf16);
    if (o.dtypes == "all" || o.dtypes == "fp16") precisions.push_back(Precision::MixedFp16);
    if (precisions.empty()) return userError("--dtype: expected all, fp32, bf16 or fp16");

    Harness h(**subject, o);
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
            {"reference", "float64"},
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
              << ") against the float64 reference; error = max|diff| / max(max|ref|, 1e-3)\n\n";
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
        "selftest",
        "check every op of a backend, forward and backward, against the float64 reference");
    auto o = std::make_shared<SelftestOptions>();
    cmd->add_option("--backend", o->backend, "cuda | cpu")
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
