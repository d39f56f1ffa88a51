// Flash attention on the CPU executor, end to end: a small Llama-like network (grouped KV heads,
// RMSNorm, SwiGLU, no positions, no biases, untied head) and a small GPT-3-like one (learned
// positions, LayerNorm, GELU, biases, tied head), both with causal flash attention over more
// tokens than one tile of the kernel, run under none / full / every:2 / sqrt / selective /
// optimal with tracked live bytes equal to the prediction after every instruction and gradients
// bit for bit those of plan none, in fp32 and mixed bf16; the same network with eager attention
// gives the same losses and gradients up to fp32 rounding (the two compute one function); and a
// flash network gives the same bits with 1 and 3 threads. Nothing here times anything.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler.h"
#include "cpu/cpu_backend.h"
#include "device.h"
#include "lower.h"
#include "model_file.h"
#include "program_driver.h"
#include "simulator.h"
#include "strategy.h"
#include "verification.h"

using namespace remat;

namespace {

// 80 tokens: more than one of the kernel's 64-row tiles (a full tile and a short one, the
// causal mask cutting the second key tile), so the online softmax really rescales.
std::string llamaJson(const char* attention, int tokens) {
    return std::string(R"({"format": "remat-model/1", "name": "llama-like",
        "input": {"tokens": )") + std::to_string(tokens) + R"(, "vocab": 40},
        "tie_embeddings": false,
        "layers": [{"kind": "embedding", "dim": 32, "positions": 0, "dropout": 0.0},
                   {"kind": "transformer_block", "repeat": 2, "heads": 4, "kv_heads": 2,
                    "mlp_hidden": 48, "activation": "silu", "gated": true, "norm": "rmsnorm",
                    "dropout": 0.0, "attention": ")" + attention + R"(", "causal": true,
                    "bias": false},
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

// The GPT-3-like network has dropout (on the embedding and the blocks' outputs: flash attention
// has none inside) unless `dropout` is off, as the comparison with eager attention needs.
std::string networkJson(const QString& name, const char* attention = "flash", bool dropout = true) {
    return name == "llama" ? llamaJson(attention, 80)
                           : gpt3Json(attention, 80, dropout ? "0.1" : "0.0");
}

ModelFile parse(const std::string& json) {
    auto m = parseModel(json, "test");
    if (!m) qFatal("%s", m.error().message.c_str());
    return *m;
}

Graph lowerOrDie(const ModelFile& m, Precision precision) {
    auto g = lower(m.network, precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    return std::move(*g);
}

Program compileOrDie(const Graph& g, const Plan& plan, const TrainingConfig& cfg) {
    auto p = compile(g, plan, cfg, CompileOptions{});
    if (!p) qFatal("%s", p.error().message.c_str());
    return std::move(*p);
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
