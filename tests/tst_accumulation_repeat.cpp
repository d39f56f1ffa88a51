// Gradient accumulation as a compact repeat (program.h): for G in {1, 2, 3, 4, 7} on small
// networks with dropout, RNG-preserving and non-preserving plans, mixed precision and AdamW,
// the compact program written out by expandProgram() equals the flat compile exactly; simulated,
// it has the flat program's peak, breakdown at the peak, saved activations, largest micro-batch,
// live bytes after every instruction and (to rounding) FLOPs and times per phase; run on the
// CPU executor it gives the flat program's gradients, losses and updated parameters bit for bit
// with the same tracked live bytes. G = 1024 on gpt2-small and G = 10^6 on a small model compile
// to three micro-steps and their step time grows linearly with G. validateProgram refuses a body
// that does not free what it allocates; expandProgram() refuses a flat program past the limit;
// RNG draws that would overflow their 32 bits are refused by name.
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler.h"
#include "cpu/cpu_backend.h"
#include "cpu/host_budget.h"
#include "lower.h"
#include "model_file.h"
#include "program_driver.h"
#include "simulator.h"
#include "strategy.h"
#include "verification.h"

using namespace remat;

namespace {

// 0 linear, 1 relu, 2 dropout, 3 linear, 4 gelu, 5 dropout, 6 linear, 7 mse
const char* kDropoutMlp = R"({"format": "remat-model/1", "name": "dropout-mlp",
    "input": {"shape": [12]},
    "layers": [{"kind": "linear", "out": 16}, {"kind": "relu"}, {"kind": "dropout", "p": 0.25},
               {"kind": "linear", "out": 16}, {"kind": "gelu"}, {"kind": "dropout", "p": 0.5},
               {"kind": "linear", "out": 6}, {"kind": "mse"}],
    "training": {"micro_batch": 3, "optimizer": "adamw"}})";

// 0 embedding, 1-2 blocks, 3 layernorm, 4 head, 5 cross_entropy
const char* kTransformer = R"({"format": "remat-model/1", "name": "transformer",
    "input": {"tokens": 8, "vocab": 24},
    "layers": [{"kind": "embedding", "dim": 16, "positions": 8, "dropout": 0.1},
               {"kind": "transformer_block", "repeat": 2, "heads": 2, "mlp_hidden": 32,
                "activation": "gelu", "dropout": 0.1, "attention": "eager", "causal": true},
               {"kind": "layernorm"}, {"kind": "linear", "out": 24, "bias": false},
               {"kind": "cross_entropy"}],
    "training": {"micro_batch": 2, "optimizer": "adamw"}})";

DeviceSpec device() {
    DeviceSpec d;
    d.id = d.name = "unit";
    d.memoryBytes = std::int64_t{1} << 40;
    d.peakFp32 = d.peakTf32 = d.peakBf16 = d.peakFp16 = 1e12;
    d.bandwidthBytesPerS = 1e12;
    d.launchOverheadS = 3e-6;
    d.gemmWorkspaceBytes = 4096;
    return d;
}

struct Case {
    ModelFile model;
    Graph graph;
    Plan plan;
};

Case makeCase(const std::string& json, const std::string& strategy, bool preserveRng,
              Precision precision) {
    Case c;
    auto m = json.front() == '{' ? parseModel(json, "test") : loadModel(json);
    if (!m) qFatal("%s", m.error().message.c_str());
    c.model = *m;
    c.model.training.precision = precision;
    auto g = lower(c.model.network, precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    c.graph = std::move(*g);
    auto s = parseStrategy(strategy);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto plan = makePlan(c.graph, *s);
    if (!plan) qFatal("%s", plan.error().message.c_str());
    c.plan = *plan;
    for (Region& r : c.plan.regions) r.preserveRng = preserveRng;
    return c;
}

Program compileOrDie(const Case& c, std::int64_t accum, bool flat) {
    TrainingConfig cfg = c.model.training;
    cfg.accumulationSteps = accum;
    CompileOptions o;
    o.gemmWorkspaceBytes = device().gemmWorkspaceBytes;
    o.expandAccumulation = flat;
    auto p = compile(c.graph, c.plan, cfg, o);
    if (!p) qFatal("compile: %s", p.error().message.c_str());
    return std::move(*p);
}

bool sameLists(const BufferList& a, const BufferList& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// Field by field; the first difference is named.
QString programDifference(const Program& a, const Program& b) {
    if (a.buffers.size() != b.buffers.size())
        return QString("buffer count %1 vs %2").arg(a.buffers.size()).arg(b.buffers.size());
    for (std::size_t i = 0; i < a.buffers.size(); ++i) {
        const Buffer &x = a.buffers[i], &y = b.buffers[i];
        if (x.role != y.role || x.category != y.category || x.tensor != y.tensor ||
            x.dtype != y.dtype || x.shape != y.shape || x.batched != y.batched ||
            x.bytes.perSample != y.bytes.perSample || x.bytes.fixed != y.bytes.fixed ||
            x.microStep != y.microStep || x.zeroInit != y.zeroInit || x.op != y.op ||
            x.recomputed != y.recomputed || x.backward != y.backward || x.moment != y.moment)
            return QString("buffer %1 differs").arg(i);
    }
    if (a.instructions.size() != b.instructions.size())
        return QString("instruction count %1 vs %2")
            .arg(a.instructions.size())
            .arg(b.instructions.size());
    for (std::size_t i = 0; i < a.instructions.size(); ++i) {
        const Instruction &x = a.instructions[i], &y = b.instructions[i];
        if (x.kind != y.kind || x.phase != y.phase || x.microStep != y.microStep ||
            x.op != y.op || x.buffer != y.buffer || x.parameter != y.parameter ||
            x.regionDepth != y.regionDepth || x.rngDraw != y.rngDraw ||
            !sameLists(x.inputs, y.inputs) || !sameLists(x.outputs, y.outputs) ||
            !sameLists(x.params, y.params) || !sameLists(x.saved, y.saved) ||
            !sameLists(x.gradOutputs, y.gradOutputs) || !sameLists(x.gradInputs, y.gradInputs) ||
            !sameLists(x.paramGrads, y.paramGrads) || !sameLists(x.state, y.state) ||
            x.workspace != y.workspace)
            return QString("instruction %1 differs (micro-step %2 vs %3, draw %4 vs %5)")
                .arg(i)
                .arg(x.microStep)
                .arg(y.microStep)
                .arg(x.rngDraw)
                .arg(y.rngDraw);
    }
    if (a.gemmWorkspace != b.gemmWorkspace) return "GEMM workspace differs";
    if (a.unsafeReasons != b.unsafeReasons) return "unsafe reasons differ";
    if (a.repeat || b.repeat) return "a repeat is left";
    return {};
}

// The flat index of compact instruction i in the body's first iteration (or outside the body).
std::size_t flatIndex(const Program& p, std::size_t i) {
    if (!p.repeat || i < p.repeat->end) return i;
    return i + std::size_t(p.repeat->times - 1) * (p.repeat->end - p.repeat->begin);
}

bool close(double a, double b) {
    return std::fabs(a - b) <= 1e-12 * std::max({std::fabs(a), std::fabs(b), 1e-30});
}

std::unique_ptr<ProgramDriver> cpuExecutor() {
    return std::make_unique<ProgramDriver>(std::make_unique<CpuBackend>());
}

Measurement runOrDie(const Graph& g, const Program& p, const ExecuteOptions& o) {
    auto m = cpuExecutor()->execute(g, p, o);
    if (!m) qFatal("execute: %s", m.error().message.c_str());
    return std::move(*m);
}

bool bitwiseEqual(const std::vector<ParameterValues>& a, const std::vector<ParameterValues>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].parameter != b[i].parameter || a[i].values.size() != b[i].values.size() ||
            std::memcmp(a[i].values.data(), b[i].values.data(),
                        a[i].values.size() * sizeof(float)) != 0)
            return false;
    return true;
}

void addCases() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<bool>("preserveRng");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("accum");
    struct Row {
        const char* name;
        const char* json;
        const char* strategy;
        bool preserve;
        const char* precision;
    };
    const Row rows[] = {
        {"dropout-mlp/full", kDropoutMlp, "full", true, "fp32"},
        {"dropout-mlp/every:2/rng-not-preserved", kDropoutMlp, "every:2", false, "fp32"},
        {"dropout-mlp/none/bf16", kDropoutMlp, "none", true, "mixed-bf16"},
        {"transformer/sqrt/fp16", kTransformer, "sqrt", true, "mixed-fp16"},
        {"transformer/full/rng-not-preserved", kTransformer, "full", false, "fp32"},
    };
    for (const Row& r : rows)
        for (int g : {1, 2, 3, 4, 7})
            QTest::addRow("%s/G=%d", r.name, g)
                << QString(r.json) << QString(r.strategy) << r.preserve << QString(r.precision)
                << g;
}

}  // namespace

class TestAccumulationRepeat : public QObject {
    Q_OBJECT

private slots:
    void compactEqualsFlat_data() { addCases(); }
    void compactEqualsFlat() {
        QFETCH(QString, model);
        QFETCH(QString, strategy);
        QFETCH(bool, preserveRng);
        QFETCH(QString, precision);
        QFETCH(int, accum);
        const Case c = makeCase(model.toStdString(), strategy.toStdString(), preserveRng,
                                *parsePrecision(precision.toStdString()));
        const Program compact = compileOrDie(c, accum, false);
        const Program flat = compileOrDie(c, accum, true);
        QVERIFY(validateProgram(c.graph, compact).ok());
        QCOMPARE(compact.unsafe(), !preserveRng && strategy != "none");
        if (accum >= kCompactAccumulationFrom) {
            QVERIFY(compact.repeat.has_value());
            QCOMPARE(compact.repeat->times, std::int64_t(accum - 2));
            QCOMPARE(compact.executedInstructions(), std::int64_t(flat.instructions.size()));
            QVERIFY(compact.instructions.size() < flat.instructions.size());
        } else {
            QVERIFY(!compact.repeat.has_value());
        }
        QVERIFY(!flat.repeat.has_value());

        auto expanded = expandProgram(compact);
        QVERIFY(expanded.ok());
        const QString diff = programDifference(*expanded, flat);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        const Timeline tc = simulate(c.graph, compact, device());
        const Timeline tf = simulate(c.graph, flat, device());
        QCOMPARE(tc.peakBytes, tf.peakBytes);
        QCOMPARE(flatIndex(compact, tc.peakInstruction), tf.peakInstruction);
        QVERIFY(tc.breakdownAtPeak == tf.breakdownAtPeak);
        QCOMPARE(tc.savedActivationBytes, tf.savedActivationBytes);
        QCOMPARE(tc.maxMicroBatch, tf.maxMicroBatch);
        QCOMPARE(tc.fits, tf.fits);
        QCOMPARE(tc.samplesPerStep, tf.samplesPerStep);
        for (std::size_t i = 0; i < compact.instructions.size(); ++i)
            QVERIFY2(tc.live[i] == tf.live[flatIndex(compact, i)],
                     qPrintable(QString("live bytes differ after instruction %1").arg(i)));
        // Per category, the most each holds and what it holds at the end of the step.
        for (std::size_t k = 0; k < kCategoryCount; ++k) {
            std::int64_t mc = 0, mf = 0;
            for (const auto& l : tc.live) mc = std::max(mc, l[k]);
            for (const auto& l : tf.live) mf = std::max(mf, l[k]);
            QCOMPARE(mc, mf);
        }
        for (auto [a, b] : {std::pair{tc.flops.forward, tf.flops.forward},
                            std::pair{tc.flops.recompute, tf.flops.recompute},
                            std::pair{tc.flops.backward, tf.flops.backward},
                            std::pair{tc.timeS.forward, tf.timeS.forward},
                            std::pair{tc.timeS.recompute, tf.timeS.recompute},
                            std::pair{tc.timeS.backward, tf.timeS.backward},
                            std::pair{tc.timeS.optimizer, tf.timeS.optimizer},
                            std::pair{tc.endS.back(), tf.endS.back()}})
            QVERIFY2(close(a, b), qPrintable(QString("%1 vs %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
        // The time axis stays honest: the last micro-step starts when the flat one does.
        for (std::size_t i = 0; i < compact.instructions.size(); ++i)
            QVERIFY(close(tc.endS[i] + 1.0, tf.endS[flatIndex(compact, i)] + 1.0) ||
                    compact.inRepeat(i));
        // The host allocator's replay sees the same peak looping the body once.
        QCOMPARE(cpuAllocatorPeakBytes(compact), cpuAllocatorPeakBytes(flat));
    }

    void cpuRunEqualsFlat_data() { addCases(); }
    void cpuRunEqualsFlat() {
        QFETCH(QString, model);
        QFETCH(QString, strategy);
        QFETCH(bool, preserveRng);
        QFETCH(QString, precision);
        QFETCH(int, accum);
        const Case c = makeCase(model.toStdString(), strategy.toStdString(), preserveRng,
                                *parsePrecision(precision.toStdString()));
        const Program compact = compileOrDie(c, accum, false);
        const Program flat = compileOrDie(c, accum, true);
        ExecuteOptions o;
        o.seed = 11;
        o.allowUnsafe = true;
        o.collectParameters = true;
        std::size_t calls = 0, lastDone = 0, total = 0;
        o.progress = [&](std::size_t done, std::size_t count) {
            ++calls;
            lastDone = done;
            total = count;
        };
        const Measurement mc = runOrDie(c.graph, compact, o);
        QCOMPARE(std::int64_t(calls), compact.executedInstructions());
        QCOMPARE(lastDone, total);
        QCOMPARE(std::int64_t(total), std::int64_t(flat.instructions.size()));
        o.progress = nullptr;
        const Measurement mf = runOrDie(c.graph, flat, o);
        QVERIFY(bitwiseEqual(mc.gradients, mf.gradients));
        QVERIFY(bitwiseEqual(mc.parameters, mf.parameters));
        QCOMPARE(mc.gradients.size(), c.graph.parameters.size());
        QCOMPARE(mc.losses.size(), std::size_t(accum));
        QVERIFY(std::memcmp(mc.losses.data(), mf.losses.data(), mc.losses.size() * 4) == 0);
        // Every micro-step saw its own data: no two losses are the same.
        for (std::size_t i = 1; i < mc.losses.size(); ++i) QVERIFY(mc.losses[i] != mc.losses[0]);
        QCOMPARE(mc.peakBytes, mf.peakBytes);
        QVERIFY(mc.breakdownAtPeak == mf.breakdownAtPeak);
        QCOMPARE(mc.live.size(), compact.instructions.size());
        for (std::size_t i = 0; i < compact.instructions.size(); ++i)
            QVERIFY(mc.live[i] == mf.live[flatIndex(compact, i)]);
        // Measured against the compact program's own prediction, exactly.
        const LiveBytesDifference d =
            compareLiveBytes(simulate(c.graph, compact, device()), mc);
        QVERIFY(d.sameLength);
        QCOMPARE(d.maxAbsBytes, std::int64_t(0));
    }

    void cancelInsideTheBodyReleasesEverything() {
        const Case c = makeCase(kDropoutMlp, "full", true, Precision::Fp32);
        const Program p = compileOrDie(c, 7, false);
        QVERIFY(p.repeat.has_value());
        std::atomic<bool> cancel{false};
        // Stop in the body's third iteration: micro-step 3 counted from 0, shown as 4.
        const std::size_t len = p.repeat->end - p.repeat->begin;
        const std::size_t stopAfter = p.repeat->begin + 2 * len + 3;
        ExecuteOptions o;
        o.cancel = &cancel;
        o.progress = [&](std::size_t done, std::size_t) {
            if (done == stopAfter) cancel = true;
        };
        auto ex = cpuExecutor();
        auto m = ex->execute(c.graph, p, o);
        QVERIFY(!m.ok());
        const QString msg = QString::fromStdString(m.error().message);
        QVERIFY2(msg.contains("cancelled at instruction " +
                              QString::number(p.repeat->begin + 3) + " of ") &&
                     msg.contains("micro-step 4"),
                 qPrintable(msg));
        QCOMPARE(ex->backend().memoryStats().inUseBytes, std::int64_t(0));
    }

    // G = 1024 on gpt2-small and G = 10^6 on a small model: three micro-steps written, the
    // same program size as G = 4, and a step time that grows by the same amount per micro-step.
    void largeAccumulationIsCompactAndLinear_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("accum");
        QTest::newRow("gpt2-small/1024") << "gpt2-small" << 1024;
        QTest::newRow("mlp-3x1024/1000000") << "mlp-3x1024" << 1000000;
    }
    void largeAccumulationIsCompactAndLinear() {
        QFETCH(QString, model);
        QFETCH(int, accum);
        auto m = loadModel(model.toStdString());
        QVERIFY(m.ok());
        const Case c = makeCase(model.toStdString(), "full", true, m->training.precision);
        const DeviceSpec d = device();
        const Program p4 = compileOrDie(c, 4, false);
        const Program p7 = compileOrDie(c, 7, false);
        const Program big = compileOrDie(c, accum, false);
        QCOMPARE(big.instructions.size(), p4.instructions.size());
        QCOMPARE(big.repeat->times, std::int64_t(accum - 2));
        // At most three micro-steps: what a flat G = 3 program holds.
        QCOMPARE(big.instructions.size(), compileOrDie(c, 3, false).instructions.size());
        const Timeline t4 = simulate(c.graph, p4, d), t7 = simulate(c.graph, p7, d),
                       tb = simulate(c.graph, big, d);
        QCOMPARE(tb.peakBytes, t4.peakBytes);
        QCOMPARE(tb.samplesPerStep, m->training.microBatch * accum);
        const double perStep = (t7.timeS.total() - t4.timeS.total()) / 3.0;
        const double expected = t4.timeS.total() + perStep * double(accum - 4);
        QVERIFY2(std::fabs(tb.timeS.total() - expected) <= 1e-9 * expected,
                 qPrintable(QString("%1 vs %2").arg(tb.timeS.total()).arg(expected)));
        QVERIFY(std::fabs(tb.flops.forward / double(accum) - t4.flops.forward / 4.0) <=
                1e-12 * tb.flops.forward);
        // Writing it all out is refused with the count, not attempted.
        auto flat = expandProgram(big);
        if (std::int64_t(big.executedInstructions()) > kMaxProgramInstructions) {
            QVERIFY(!flat.ok());
            QVERIFY(QString::fromStdString(flat.error().message)
                        .contains(QString::number(kMaxProgramInstructions)));
        }
    }

    void validationRefusesABodyThatLeaksOrFreesOutside() {
        const Case c = makeCase(kDropoutMlp, "full", true, Precision::Fp32);
        const Program good = compileOrDie(c, 5, false);
        QVERIFY(validateProgram(c.graph, good).ok());
        const Repeat r = *good.repeat;

        // The body's last free left outside it: the buffer outlives its iteration.
        Program leaks = good;
        std::size_t lastFree = r.end - 1;
        while (leaks.instructions[lastFree].kind != InstrKind::Free) --lastFree;
        leaks.repeat->end = lastFree;
        auto st = validateProgram(c.graph, leaks);
        QVERIFY(!st.ok());
        QVERIFY2(QString::fromStdString(st.error().message).contains("not freed in it"),
                 st.error().message.c_str());

        Program widened = good;  // the body now takes in a free of micro-step 0's
        std::size_t before = r.begin - 1;
        while (widened.instructions[before].kind != InstrKind::Free) --before;
        widened.repeat->begin = before;
        st = validateProgram(c.graph, widened);
        QVERIFY(!st.ok());
        QVERIFY2(QString::fromStdString(st.error().message).contains("did not allocate"),
                 st.error().message.c_str());

        Program outOfRange = good;
        outOfRange.repeat->end = good.instructions.size() + 1;
        QVERIFY(!validateProgram(c.graph, outOfRange).ok());
        Program never = good;
        never.repeat->times = 0;
        QVERIFY(!validateProgram(c.graph, never).ok());
    }

    // Each non-preserving region draws once per micro-step; numbered past 2^32 they would
    // repeat masks, so the compile is refused with the count.
    void rngDrawOverflowIsRefused() {
        std::string json = R"({"format": "remat-model/1", "input": {"shape": [4]}, "layers": [)";
        for (int i = 0; i < 1000; ++i)
            json += R"({"kind": "mlp", "mlp_hidden": 4, "activation": "relu"},)";
        json += R"({"kind": "mse"}]})";
        Case c = makeCase(json, "none", true, Precision::Fp32);
        // A binary tree of nested regions over every op, none preserving the RNG state.
        std::vector<std::pair<std::uint32_t, std::uint32_t>> todo{
            {0, std::uint32_t(c.graph.ops.size() - 1)}};
        while (!todo.empty()) {
            auto [a, b] = todo.back();
            todo.pop_back();
            c.plan.regions.push_back(Region{a, b, "r", false});
            if (a == b) continue;
            const std::uint32_t mid = a + (b - a) / 2;
            todo.push_back({a, mid});
            todo.push_back({mid + 1, b});
        }
        const auto fresh = std::int64_t(c.plan.regions.size());
        QVERIFY(fresh > 4295);  // a million micro-steps then draw more than 2^32 times
        TrainingConfig cfg = c.model.training;
        cfg.accumulationSteps = 1000000;
        auto p = compile(c.graph, c.plan, cfg);
        QVERIFY(!p.ok());
        const QString msg = QString::fromStdString(p.error().message);
        QVERIFY2(msg.contains(QString::number(fresh) +
                              " checkpointed regions that do not preserve the RNG state") &&
                     msg.contains("more than 2^32"),
                 qPrintable(msg));
        // The most micro-steps whose draws all fit: accepted, and the last draw is in range.
        cfg.accumulationSteps = std::int64_t(std::numeric_limits<std::uint32_t>::max()) / (fresh + 1);
        auto fits = compile(c.graph, c.plan, cfg);
        QVERIFY2(fits.ok(), fits.ok() ? "" : fits.error().message.c_str());
        std::uint32_t maxDraw = 0;
        for (const Instruction& ins : fits->instructions) maxDraw = std::max(maxDraw, ins.rngDraw);
        // The last draw, G x (fresh + 1), is the leaf region of op 0, recomputed last. Op 0 is
        // a linear, which saves only its input: the early stop comes before its kernel, so
        // that recompute runs no instruction and the highest draw an instruction carries is
        // the one before.
        QCOMPARE(c.graph.ops[0].kind, OpKind::Linear);
        QCOMPARE(std::int64_t(maxDraw), cfg.accumulationSteps * (fresh + 1) - 1);
    }
};

QTEST_APPLESS_MAIN(TestAccumulationRepeat)
#include "tst_accumulation_repeat.moc"
