// Flash attention on the CPU executor, end to end: a small Llama-like network (grouped KV heads,
// RMSNorm, SwiGLU, rotary positions, no biases, untied head) and a small GPT-3-like one (learned
// positions, LayerNorm, GELU, biases, tied head, dropout inside flash attention and after the
// blocks' projections), both with causal flash attention over more
// tokens than one tile of the kernel, run under none / full / every:2 / sqrt / selective /
// optimal with tracked live bytes equal to the prediction after every instruction and gradients
// bit for bit those of plan none, in fp32 and mixed bf16; the same network with eager attention
// gives the same losses and gradients up to fp32 rounding (the two compute one function); and a
// flash network gives the same bits with 1 and 3 threads. The op alone, forward and backward,
// equals the float64 reference over sequence lengths around the kernel's 64-row tiles (1, 63,
// 64, 65, 130, 200), causal or not, with one, some or all KV heads per query head, with and
// without dropout; a forward with another RNG draw drops other probabilities, and a plan whose
// recompute does not preserve the RNG state is reported unsafe and gets other gradients.
// Nothing here times anything.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "compiler.h"
#include "cpu/cpu_backend.h"
#include "device.h"
#include "executor_test_support.h"
#include "lower.h"
#include "model_file.h"
#include "program_driver.h"
#include "reference_ops.h"
#include "simulator.h"
#include "strategy.h"
#include "verification.h"

using namespace remat;
using namespace remat::test;

namespace {

// 80 tokens: more than one of the kernel's 64-row tiles (a full tile and a short one, the
// causal mask cutting the second key tile), so the online softmax really rescales.
std::string llamaJson(const char* attention, int tokens) {
    return std::string(R"({"format": "remat-model/3", "name": "llama-like",
        "input": {"tokens": )") + std::to_string(tokens) + R"(, "vocab": 40},
        "tie_embeddings": false,
        "layers": [{"kind": "embedding", "dim": 32, "positions": 0, "dropout": 0.0},
                   {"kind": "transformer_block", "repeat": 2, "heads": 4, "kv_heads": 2,
                    "mlp_hidden": 48, "activation": "silu", "gated": true, "norm": "rmsnorm",
                    "dropout": 0.0, "attention": ")" + attention + R"(", "causal": true,
                    "bias": false, "rotary": true},
                   {"kind": "rmsnorm"}, {"kind": "linear", "out": 40, "bias": false},
                   {"kind": "cross_entropy"}],
        "training": {"micro_batch": 2, "accumulation_steps": 1, "optimizer": "adamw"}})";
}

std::string gpt3Json(const char* attention, int tokens, const char* dropout) {
    return std::string(R"({"format": "remat-model/1", "name": "gpt3-like",
        "input": {"tokens": )") + std::to_string(tokens) + R"(, "vocab": 40},
        "tie_embeddings": true,
        "layers": [{"kind": "embedding", "dim": 32, "positions": )" + std::to_string(tokens) +
           R"(, "dropout": )" + dropout + R"(},
                   {"kind": "transformer_block", "repeat": 2, "heads": 4, "mlp_hidden": 64,
                    "activation": "gelu", "gated": false, "norm": "layernorm", "dropout": )" + dropout +
           R"(, "attention": ")" + attention + R"(", "causal": true, "bias": true},
                   {"kind": "layernorm"}, {"kind": "linear", "out": 40, "bias": false},
                   {"kind": "cross_entropy"}],
        "training": {"micro_batch": 2, "accumulation_steps": 2, "optimizer": "adam"}})";
}

// The GPT-3-like network has dropout (on the embedding, the blocks' outputs and inside flash
// attention) unless `dropout` is off, as the comparison with eager attention needs.
std::string networkJson(const QString& name, const char* attention = "flash", bool dropout = true) {
    return name == "llama" ? llamaJson(attention, 80)
                           : gpt3Json(attention, 80, dropout ? "0.1" : "0.0");
}

const DeviceSpec& device() {
    static const DeviceSpec d = [] {
        auto r = findDevice("a100-80gb");
        if (!r) qFatal("no a100-80gb profile");
        DeviceSpec spec = *r;
        spec.gemmWorkspaceBytes = 0;
        return spec;
    }();
    return d;
}

Plan planOrDie(const Graph& g, const std::string& strategy, const TrainingConfig& cfg) {
    auto s = parseStrategy(strategy);
    if (!s) qFatal("%s", s.error().message.c_str());
    PlanContext ctx;
    ctx.training = &cfg;
    ctx.device = &device();
    auto plan = makePlan(g, *s, ctx);
    if (!plan) qFatal("%s: %s", strategy.c_str(), plan.error().message.c_str());
    return *plan;
}

// optimal needs a budget: halfway between the peaks of full and none, which it must meet.
std::string optimalStrategy(const Graph& g, const TrainingConfig& cfg) {
    const std::int64_t none =
        simulate(g, compileOrDie(g, Plan{"none", {}}, cfg), device()).peakBytes;
    const std::int64_t full =
        simulate(g, compileOrDie(g, planOrDie(g, "full", cfg), cfg), device()).peakBytes;
    return "optimal:" + std::to_string((none + full) / 2);
}

Measurement runOrDie(Executor& ex, const Graph& g, const Program& p, ExecuteOptions o = {}) {
    auto m = ex.execute(g, p, o);
    if (!m) qFatal("execute: %s", m.error().message.c_str());
    return std::move(*m);
}

std::int64_t flashOps(const Graph& g) {
    return std::count_if(g.ops.begin(), g.ops.end(),
                         [](const Op& op) { return op.kind == OpKind::FlashAttn; });
}

// max |a - b| / max(max |b|, 1e-3), as the selftest measures.
double relativeError(const std::vector<float>& a, const std::vector<double>& b) {
    double maxRef = 1e-3, maxDiff = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i])) return INFINITY;
        maxRef = std::max(maxRef, std::fabs(b[i]));
        maxDiff = std::max(maxDiff, std::fabs(double(a[i]) - b[i]));
    }
    return maxDiff / maxRef;
}

std::vector<float> uniform(std::mt19937& rng, std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

}  // namespace

class TestCpuFlash : public QObject {
    Q_OBJECT

private slots:
    void everyStrategyMatchesPredictionAndNone_data() {
        QTest::addColumn<QString>("network");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<QString>("strategy");
        for (const char* net : {"llama", "gpt3"}) {
            for (const char* s : {"none", "full", "every:2", "sqrt", "selective:attention_core",
                                  "selective:attention,mlp", "optimal"})
                QTest::addRow("%s/fp32/%s", net, s) << net << "fp32" << s;
            for (const char* s : {"full", "sqrt", "optimal"})
                QTest::addRow("%s/bf16/%s", net, s) << net << "mixed-bf16" << s;
        }
    }

    void everyStrategyMatchesPredictionAndNone() {
        QFETCH(QString, network);
        QFETCH(QString, precision);
        QFETCH(QString, strategy);
        ModelFile model = parse(networkJson(network));
        model.training.precision = *parsePrecision(precision.toStdString());
        const Graph g = lowerOrDie(model, model.training.precision);
        QCOMPARE(flashOps(g), std::int64_t(2));
        std::string s = strategy.toStdString();
        if (s == "optimal") s = optimalStrategy(g, model.training);
        const Program p = compileOrDie(g, planOrDie(g, s, model.training), model.training);
        QVERIFY2(!p.unsafe(), p.unsafe() ? p.unsafeReasons.front().c_str() : "");
        if (strategy != "none" && !strategy.startsWith("selective"))
            QVERIFY(!p.plan.regions.empty());
        // Plans that recompute attention must recompute the flash op itself.
        if (strategy == "full" || strategy == "selective:attention_core") {
            std::int64_t recomputed = 0;
            for (const auto& ins : p.instructions)
                if (ins.kind == InstrKind::Recompute && g.op(ins.op).kind == OpKind::FlashAttn)
                    ++recomputed;
            QVERIFY(recomputed > 0);
        }

        ProgramDriver ex(std::make_unique<CpuBackend>());
        ExecuteOptions o;
        o.seed = 11;
        const Measurement m = runOrDie(ex, g, p, o);
        const Timeline t = simulate(g, p, device());
        const LiveBytesDifference d = compareLiveBytes(t, m);
        QVERIFY(d.sameLength);
        if (d.maxAbsBytes != 0 || d.maxAbsCategoryBytes != 0)
            QFAIL(qPrintable(QString("live bytes differ by %1 at instruction %2 (%3)")
                                 .arg(d.maxAbsBytes)
                                 .arg(d.instruction)
                                 .arg(QString::fromStdString(
                                     describeInstruction(g, p, d.instruction)))));
        QCOMPARE(m.peakBytes, t.peakBytes);
        QCOMPARE(m.peakInstruction, t.peakInstruction);
        for (float l : m.losses) QVERIFY2(std::isfinite(l), "loss is not finite");

        const Measurement ref = runOrDie(ex, g, compileOrDie(g, Plan{"none", {}}, model.training), o);
        auto c = compareGradients(ref, m);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->parameters, g.parameters.size());
        if (!c->bitwiseEqual)
            QFAIL(qPrintable(QString("gradients differ from plan none: max |diff| %1 in %2")
                                 .arg(c->maxAbsDiff)
                                 .arg(QString::fromStdString(c->worstParameter))));
        QCOMPARE(m.losses.size(), ref.losses.size());
        QVERIFY(std::memcmp(m.losses.data(), ref.losses.data(), m.losses.size() * 4) == 0);
        for (const auto& gv : m.gradients)
            for (float v : gv.values) QVERIFY2(std::isfinite(v), gv.name.c_str());
    }

    // Flash and eager attention compute one function (without dropout, which eager attention
    // would also apply to the probabilities): the same network either way gives the same losses and gradients up to fp32 rounding (different summation orders), and the flash
    // program holds less memory at its peak (no T x T scores or probabilities).
    void flashEqualsEagerUpToRounding_data() {
        QTest::addColumn<QString>("network");
        QTest::newRow("llama") << "llama";
        QTest::newRow("gpt3") << "gpt3";
    }

    void flashEqualsEagerUpToRounding() {
        QFETCH(QString, network);
        const ModelFile flash = parse(networkJson(network, "flash", false));
        const ModelFile eager = parse(networkJson(network, "eager", false));
        const Graph gf = lowerOrDie(flash, Precision::Fp32);
        const Graph ge = lowerOrDie(eager, Precision::Fp32);
        QCOMPARE(gf.parameters.size(), ge.parameters.size());
        ProgramDriver ex(std::make_unique<CpuBackend>());
        ExecuteOptions o;
        o.seed = 5;
        const Measurement mf = runOrDie(ex, gf, compileOrDie(gf, Plan{"none", {}}, flash.training), o);
        const Measurement me = runOrDie(ex, ge, compileOrDie(ge, Plan{"none", {}}, eager.training), o);
        QVERIFY(mf.peakBytes < me.peakBytes);
        QCOMPARE(mf.losses.size(), me.losses.size());
        for (std::size_t i = 0; i < mf.losses.size(); ++i)
            QVERIFY2(std::fabs(mf.losses[i] - me.losses[i]) <= 1e-5 * std::fabs(me.losses[i]),
                     qPrintable(QString("loss %1 vs %2").arg(mf.losses[i]).arg(me.losses[i])));
        // Gradients: per parameter, max |diff| within 1e-4 of the largest |gradient| (fp32
        // rounding through two blocks; measured at most 1e-6 relative).
        QCOMPARE(mf.gradients.size(), me.gradients.size());
        double worst = 0.0;
        for (std::size_t k = 0; k < mf.gradients.size(); ++k) {
            const auto& a = mf.gradients[k];
            const auto& b = me.gradients[k];
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.values.size(), b.values.size());
            double maxRef = 1e-12, maxDiff = 0.0;
            for (std::size_t i = 0; i < a.values.size(); ++i) {
                maxRef = std::max(maxRef, double(std::fabs(b.values[i])));
                maxDiff = std::max(maxDiff, double(std::fabs(a.values[i] - b.values[i])));
            }
            worst = std::max(worst, maxDiff / maxRef);
            QVERIFY2(maxDiff <= 1e-4 * maxRef,
                     qPrintable(QString("%1: max |diff| %2, max |g| %3")
                                    .arg(QString::fromStdString(a.name))
                                    .arg(maxDiff)
                                    .arg(maxRef)));
        }
        qInfo("worst relative gradient difference flash vs eager: %.3g", worst);
    }

    // The op alone against the float64 reference (definition: the whole score matrix, its
    // softmax, P V; backward from P recomputed), in fp32: forward output and log-sum-exp, and
    // the qkv gradient accumulated onto values already in the buffer.
    void opEqualsFloat64Reference_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("headDim");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<double>("p");
        QTest::newRow("T1 causal") << 1 << 1 << 2 << 1 << 4 << true << 0.0;
        QTest::newRow("T63 gqa causal") << 2 << 63 << 4 << 2 << 8 << true << 0.0;
        QTest::newRow("T64 mha") << 1 << 64 << 2 << 2 << 16 << false << 0.0;
        QTest::newRow("T65 mqa causal") << 2 << 65 << 4 << 1 << 8 << true << 0.0;
        QTest::newRow("T130 mha odd dim") << 1 << 130 << 3 << 3 << 5 << false << 0.0;
        QTest::newRow("T200 gqa causal") << 1 << 200 << 4 << 2 << 32 << true << 0.0;
        QTest::newRow("T65 gqa causal dropout") << 2 << 65 << 4 << 2 << 8 << true << 0.1;
        QTest::newRow("T130 mha dropout") << 1 << 130 << 3 << 3 << 5 << false << 0.3;
    }

    void opEqualsFloat64Reference() {
        QFETCH(int, batch);
        QFETCH(int, tokens);
        QFETCH(int, heads);
        QFETCH(int, kvHeads);
        QFETCH(int, headDim);
        QFETCH(bool, causal);
        QFETCH(double, p);
        Op op;
        op.kind = OpKind::FlashAttn;
        op.name = "flash";
        op.attrs.tokens = tokens;
        op.attrs.heads = heads;
        op.attrs.kvHeads = kvHeads;
        op.attrs.headDim = headDim;
        op.attrs.causal = causal;
        op.attrs.p = p;
        const bool dropout = p > 0.0;
        constexpr std::uint64_t kSeed = 21;
        constexpr std::uint32_t kDraw = 4;
        std::int64_t rngState = -1;
        const std::int64_t b = batch, t = tokens, h = heads, d = headDim;
        const std::int64_t width = (h + 2 * kvHeads) * d;
        std::mt19937 rng(std::uint32_t(tokens * 131 + heads * 7 + kvHeads));
        // Scores of a few units: the softmax is neither uniform nor one-hot.
        std::vector<float> qkv = uniform(rng, std::size_t(b * t * width), -1.5f, 1.5f);
        std::vector<float> out(std::size_t(b * t * h * d)), lse(std::size_t(b * h * t));
        std::vector<float> dOut = uniform(rng, out.size(), -1.0f, 1.0f);
        std::vector<float> dQkv = uniform(rng, qkv.size(), -0.5f, 0.5f);
        const Shape qkvShape{b, t, width}, outShape{b, t, h * d}, lseShape{b, h, t};

        CpuBackend cpu(2);
        QVERIFY(cpu.beginStep(0).ok());
        OpCall fc;
        fc.op = &op;
        fc.microBatch = b;
        fc.inputs = {TensorRef{qkv.data(), DType::F32, qkvShape}};
        fc.outputs = {TensorRef{out.data(), DType::F32, outShape},
                      TensorRef{lse.data(), DType::F32, lseShape}};
        fc.seed = kSeed;
        fc.rngDraw = kDraw;
        if (dropout) fc.outputs.push_back(TensorRef{&rngState, DType::I64, Shape{1}});
        auto st = cpu.flashAttnForward(fc);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
        if (dropout) QCOMPARE(rngState, std::int64_t(kDraw));

        reference::Call rc;
        rc.op = &op;
        rc.microBatch = b;
        rc.seed = kSeed;
        rc.rngDraw = kDraw;
        reference::Values in(qkvShape);
        in.v.assign(qkv.begin(), qkv.end());
        rc.inputs = {in};
        rc.outputs = {reference::Values(outShape), reference::Values(lseShape)};
        if (dropout) rc.outputs.push_back(reference::Values(Shape{1}));
        QVERIFY(reference::forward(rc).ok());
        const double outError = relativeError(out, rc.outputs[0].v);
        const double lseError = relativeError(lse, rc.outputs[1].v);
        QVERIFY2(outError < 1e-5, qPrintable(QString("output error %1").arg(outError)));
        QVERIFY2(lseError < 1e-5, qPrintable(QString("log-sum-exp error %1").arg(lseError)));

        if (dropout) {
            // Another draw drops other probabilities: another context, the same log-sum-exp.
            std::vector<float> other(out.size()), otherLse(lse.size());
            std::int64_t otherState = -1;
            OpCall oc = fc;
            oc.rngDraw = kDraw + 1;
            oc.outputs = {TensorRef{other.data(), DType::F32, outShape},
                          TensorRef{otherLse.data(), DType::F32, lseShape},
                          TensorRef{&otherState, DType::I64, Shape{1}}};
            QVERIFY(cpu.flashAttnForward(oc).ok());
            QCOMPARE(otherState, std::int64_t(kDraw + 1));
            QVERIFY(std::memcmp(other.data(), out.data(), out.size() * 4) != 0);
            QVERIFY(std::memcmp(otherLse.data(), lse.data(), lse.size() * 4) == 0);
        }

        OpCall bc;
        bc.op = &op;
        bc.microBatch = b;
        bc.seed = kSeed;
        bc.rngDraw = 0;  // backward reads the draw from the saved RNG state
        bc.saved = {fc.inputs[0], fc.outputs[0], fc.outputs[1]};
        if (dropout) bc.saved.push_back(fc.outputs[2]);
        bc.gradOutputs = {TensorRef{dOut.data(), DType::F32, outShape}, TensorRef{}};
        bc.gradInputs = {TensorRef{dQkv.data(), DType::F32, qkvShape}};
        reference::Call rb;
        rb.op = &op;
        rb.microBatch = b;
        rb.seed = kSeed;
        rb.saved = {in, rc.outputs[0], rc.outputs[1]};
        if (dropout) rb.saved.push_back(rc.outputs[2]);
        reference::Values dy(outShape), dx(qkvShape);
        dy.v.assign(dOut.begin(), dOut.end());
        dx.v.assign(dQkv.begin(), dQkv.end());
        rb.gradOutputs = {dy, reference::Values()};
        rb.gradInputs = {dx};
        st = cpu.flashAttnBackward(bc);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
        QVERIFY(reference::backward(rb).ok());
        const double gradError = relativeError(dQkv, rb.gradInputs[0].v);
        QVERIFY2(gradError < 1e-5, qPrintable(QString("qkv gradient error %1").arg(gradError)));
        QVERIFY(cpu.endStep().ok());
    }

    // Dropout inside flash attention draws its mask from the RNG: a plan that recomputes the
    // op without preserving the RNG state is reported unsafe, naming the flash op, and its
    // gradients differ from plan none's (the recompute dropped other probabilities), while the
    // same plan preserving the state reproduces them bit for bit (everyStrategy... above).
    void recomputeWithoutRngStateDrawsAnotherMask() {
        ModelFile model = parse(networkJson("gpt3"));
        const Graph g = lowerOrDie(model, Precision::Fp32);
        QCOMPARE(flashOps(g), std::int64_t(2));
        std::int64_t withDropout = 0;
        for (const Op& op : g.ops)
            if (op.kind == OpKind::FlashAttn) {
                QVERIFY(op.attrs.p > 0.0);
                QCOMPARE(op.outputs.size(), std::size_t(3));
                QCOMPARE(op.saved.size(), std::size_t(4));
                ++withDropout;
            }
        QCOMPARE(withDropout, std::int64_t(2));
        model.training.preserveRngState = false;
        const Program p =
            compileOrDie(g, planOrDie(g, "selective:attention_core", model.training), model.training);
        QVERIFY(p.unsafe());
        bool namesFlash = false;
        for (const auto& why : p.unsafeReasons)
            namesFlash = namesFlash || why.find("attention_core/flash'") != std::string::npos;
        QVERIFY2(namesFlash, p.unsafeReasons.front().c_str());
        ProgramDriver ex(std::make_unique<CpuBackend>());
        ExecuteOptions o;
        o.seed = 11;
        const Measurement ref = runOrDie(ex, g, compileOrDie(g, Plan{"none", {}}, model.training), o);
        o.allowUnsafe = true;
        const Measurement m = runOrDie(ex, g, p, o);
        // The forward is the same (the loss), the recomputed mask is not (the gradients).
        QVERIFY(std::memcmp(m.losses.data(), ref.losses.data(), m.losses.size() * 4) == 0);
        auto c = compareGradients(ref, m);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QVERIFY(!c->bitwiseEqual);
    }

    // The bits do not depend on the thread count: the kernel cuts its work by (sample, head)
    // and (sample, KV head) with fixed tiles.
    void threadCountChangesNoBit() {
        const ModelFile model = parse(networkJson("llama"));
        const Graph g = lowerOrDie(model, Precision::Fp32);
        const Program p = compileOrDie(g, planOrDie(g, "full", model.training), model.training);
        ProgramDriver one(std::make_unique<CpuBackend>(1));
        ProgramDriver three(std::make_unique<CpuBackend>(3));
        const Measurement a = runOrDie(one, g, p);
        const Measurement b = runOrDie(three, g, p);
        auto c = compareGradients(a, b);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QVERIFY(c->bitwiseEqual);
        QVERIFY(std::memcmp(a.losses.data(), b.losses.data(), a.losses.size() * 4) == 0);
    }
};

QTEST_GUILESS_MAIN(TestCpuFlash)
#include "tst_cpu_flash.moc"
