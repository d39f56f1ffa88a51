// The CPU reference executor run end to end through the shared program driver: for small
// networks of every op mix under every strategy, tracked live bytes equal the simulator's
// prediction after every instruction, exactly, and gradients equal the no-checkpoint run's
// bit for bit; unsafe programs (RNG not preserved, an in-place op overwriting a saved
// tensor) are refused and, when allowed, really change the gradients; accumulation, mixed
// precision, the optimizers, refusals, cancellation, faults injected mid-run (out of memory,
// a kernel error: the message names what failed, the pool is empty afterwards and the next
// run succeeds), the host-memory estimate against the allocator's measured figures, and the
// presets; and a whole model gives the same gradients, losses and tracked memory bit for bit
// with 1 and 3 threads under several plans. Nothing here times anything:
// tests/bench/bench_executor.cpp does.
#include <QtTest>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>

#include "backends.h"
#include "compiler.h"
#include "cpu/cpu_backend.h"
#include "cpu/host_budget.h"
#include "device.h"
#include "executor_test_support.h"
#include "fault_injection.h"
#include "float16.h"
#include "initial_values.h"
#include "lower.h"
#include "model_file.h"
#include "program_driver.h"
#include "simulator.h"
#include "strategy.h"
#include "verification.h"

using namespace remat;
using namespace remat::test;

namespace {

// Small networks of every op mix (layer indices in the comments are the manual plans').
struct NetworkCase {
    const char* name;
    const char* json;
    std::vector<RegionSpec> manual;  // nested regions, one of them around the loss
};

RegionSpec layers(std::int64_t first, std::int64_t last) { return {false, first, last, {}}; }
RegionSpec path(const char* p) { return {true, 0, 0, p}; }

std::string mlpJson(const char* act) {
    return std::string(R"({"format": "remat-model/1", "name": "mlp-)") + act +
           R"(", "input": {"shape": [12]}, "layers": [
        {"kind": "linear", "out": 16}, {"kind": ")" + act + R"("},
        {"kind": "linear", "out": 16}, {"kind": ")" + act + R"("},
        {"kind": "linear", "out": 6}, {"kind": "mse"}],
        "training": {"micro_batch": 3, "accumulation_steps": 2, "optimizer": "adam"}})";
}

const std::map<std::string, std::string>& networkJson() {
    static const std::map<std::string, std::string> m = [] {
        std::map<std::string, std::string> j;
        for (const char* act : {"relu", "gelu", "silu", "tanh", "sigmoid"})
            j[std::string("mlp-") + act] = mlpJson(act);
        // 0 linear, 1 layernorm, 2 gelu, 3 linear, 4 rmsnorm, 5 tanh, 6 linear, 7 softmax, 8 mse
        j["norms"] = R"({"format": "remat-model/1", "name": "norms", "input": {"shape": [12]},
            "layers": [{"kind": "linear", "out": 16}, {"kind": "layernorm"}, {"kind": "gelu"},
                       {"kind": "linear", "out": 16}, {"kind": "rmsnorm"}, {"kind": "tanh"},
                       {"kind": "linear", "out": 6}, {"kind": "softmax"}, {"kind": "mse"}],
            "training": {"micro_batch": 3, "accumulation_steps": 2, "optimizer": "momentum"}})";
        // 0 linear, 1 relu, 2 dropout, 3 linear, 4 sigmoid, 5 dropout, 6 linear, 7 mse
        j["dropout"] = R"({"format": "remat-model/1", "name": "dropout", "input": {"shape": [12]},
            "layers": [{"kind": "linear", "out": 16}, {"kind": "relu"},
                       {"kind": "dropout", "p": 0.25}, {"kind": "linear", "out": 16},
                       {"kind": "sigmoid"}, {"kind": "dropout", "p": 0.5},
                       {"kind": "linear", "out": 6}, {"kind": "mse"}],
            "training": {"micro_batch": 3, "accumulation_steps": 2, "optimizer": "sgd"}})";
        // 0 embedding, 1-2 blocks, 3 layernorm, 4 head, 5 cross_entropy
        j["transformer"] = R"({"format": "remat-model/1", "name": "transformer",
            "input": {"tokens": 8, "vocab": 24},
            "layers": [{"kind": "embedding", "dim": 16, "positions": 8, "dropout": 0.1},
                       {"kind": "transformer_block", "repeat": 2, "heads": 2, "mlp_hidden": 32,
                        "activation": "gelu", "dropout": 0.1, "attention": "eager", "causal": true},
                       {"kind": "layernorm"}, {"kind": "linear", "out": 24, "bias": false},
                       {"kind": "cross_entropy"}],
            "training": {"micro_batch": 2, "accumulation_steps": 2, "optimizer": "adamw"}})";
        // grouped KV heads (4 query heads, 2 kv heads), RMSNorm, gated SiLU MLP
        j["gqa"] = R"({"format": "remat-model/1", "name": "gqa", "input": {"tokens": 8, "vocab": 24},
            "layers": [{"kind": "embedding", "dim": 16, "positions": 0},
                       {"kind": "transformer_block", "repeat": 2, "heads": 4, "kv_heads": 2,
                        "mlp_hidden": 24, "gated": true, "activation": "silu", "norm": "rmsnorm",
                        "dropout": 0.1, "attention": "eager", "causal": true, "bias": false},
                       {"kind": "rmsnorm"}, {"kind": "linear", "out": 24, "bias": false},
                       {"kind": "cross_entropy"}],
            "training": {"micro_batch": 2, "accumulation_steps": 1, "optimizer": "adam"}})";
        // the head reuses the token embedding: 0 embedding, 1 block, 2 layernorm, 3 head, 4 loss
        j["tied"] = R"({"format": "remat-model/1", "name": "tied", "input": {"tokens": 8, "vocab": 24},
            "tie_embeddings": true,
            "layers": [{"kind": "embedding", "dim": 16, "positions": 8},
                       {"kind": "transformer_block", "heads": 2, "mlp_hidden": 32,
                        "activation": "relu", "attention": "eager", "causal": true},
                       {"kind": "layernorm"}, {"kind": "linear", "out": 24, "bias": false},
                       {"kind": "cross_entropy"}],
            "training": {"micro_batch": 2, "accumulation_steps": 3, "optimizer": "sgd"}})";
        return j;
    }();
    return m;
}

std::vector<RegionSpec> manualPlanFor(const std::string& net) {
    if (net.rfind("mlp-", 0) == 0) return {layers(0, 3), layers(1, 2), layers(2, 2), layers(4, 5)};
    if (net == "norms") return {layers(0, 5), layers(1, 2), layers(4, 4), layers(6, 8)};
    if (net == "dropout") return {layers(0, 5), layers(2, 3), layers(6, 7)};
    if (net == "transformer")
        return {layers(1, 2), path("1/attention"), path("1/attention/attention_core"),
                layers(2, 2), layers(3, 5)};
    if (net == "gqa")
        return {layers(0, 1), path("1/attention/attention_core"), path("2/mlp"), layers(3, 4)};
    return {layers(0, 1), path("1/mlp"), layers(2, 4)};  // tied
}

Plan planFor(const Graph& g, const std::string& strategy, const std::vector<RegionSpec>& manual) {
    auto s = parseStrategy(strategy);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto plan = makePlan(g, *s, manual);
    if (!plan) qFatal("%s", plan.error().message.c_str());
    return *plan;
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

std::unique_ptr<ProgramDriver> cpuExecutor() {
    return std::make_unique<ProgramDriver>(std::make_unique<CpuBackend>());
}

Measurement runOrDie(Executor& ex, const Graph& g, const Program& p, ExecuteOptions o = {}) {
    auto m = ex.execute(g, p, o);
    if (!m) qFatal("execute: %s", m.error().message.c_str());
    return std::move(*m);
}

bool bitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The figures every executed program must satisfy against its prediction and reference.
void checkAgainstPrediction(const Graph& g, const Program& p, const Measurement& m) {
    const Timeline t = simulate(g, p, device());
    const LiveBytesDifference d = compareLiveBytes(t, m);
    QVERIFY(d.sameLength);
    QCOMPARE(m.live.size(), p.instructions.size());
    if (d.maxAbsBytes != 0 || d.maxAbsCategoryBytes != 0)
        QFAIL(qPrintable(QString("live bytes differ by %1 at instruction %2 (%3)")
                             .arg(d.maxAbsBytes)
                             .arg(d.instruction)
                             .arg(QString::fromStdString(describeInstruction(g, p, d.instruction)))));
    QCOMPARE(m.peakBytes, t.peakBytes);
    QCOMPARE(m.peakInstruction, t.peakInstruction);
    // Device level: rounding and caching only ever add.
    QVERIFY(m.device.usedPeakBytes >= m.peakBytes);
    QVERIFY(m.device.reservedPeakBytes >= m.device.usedPeakBytes);
    for (float l : m.losses) QVERIFY2(std::isfinite(l), "loss is not finite");
}

void checkGradientsEqual(const Measurement& reference, const Measurement& run) {
    auto c = compareGradients(reference, run);
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    QVERIFY(c->parameters > 0);
    if (!c->bitwiseEqual)
        QFAIL(qPrintable(QString("gradients differ from plan none: max |diff| %1 in %2")
                             .arg(c->maxAbsDiff)
                             .arg(QString::fromStdString(c->worstParameter))));
    QVERIFY(bitwiseEqual(reference.losses, run.losses));
    for (const auto& gv : run.gradients)
        for (float v : gv.values) QVERIFY2(std::isfinite(v), gv.name.c_str());
}

std::int64_t instructionsOfKind(const Graph& g, const Program& p, InstrKind kind, OpKind op) {
    std::int64_t n = 0;
    for (const auto& ins : p.instructions)
        if (ins.kind == kind && g.op(ins.op).kind == op) ++n;
    return n;
}

}  // namespace

class TestCpuExecutor : public QObject {
    Q_OBJECT

private slots:
    void everyStrategyMatchesPredictionAndNone_data();
    void everyStrategyMatchesPredictionAndNone();
    void mixedPrecisionMatchesPrediction_data();
    void mixedPrecisionMatchesPrediction();
    void dropoutMaskReproducedOnRecompute();
    void recomputeCountFollowsImplementation_data();
    void recomputeCountFollowsImplementation();
    void rngNotPreservedIsRefusedAndChangesGradients();
    void inPlaceOverwritingSavedTensorIsRefused();
    void inPlaceReluIsSafeAndExact();
    void accumulationGivesGradientOfMeanLoss();
    void optimizersUpdateParameters_data();
    void optimizersUpdateParameters();
    void mixedPrecisionOptimizerUsesMasterWeights();
    void formerlyRefusedOpsRun();
    void cancelStopsAndReleasesEverything();
    void outOfMemoryMidRunReleasesEverything_data();
    void outOfMemoryMidRunReleasesEverything();
    void kernelErrorMidRunReleasesEverything();
    void faultInReferenceRunIsNamed();
    void cancelInsideAKernelStopsAtTheNextInstruction();
    void allocatorEstimateEqualsMeasurement_data();
    void allocatorEstimateEqualsMeasurement();
    void hostEstimateCoversWhatTheRunUses();
    void availableHostMemoryIsRead();
    void progressAndWarmup();
    void deterministicAcrossExecutors();
    void threadCountChangesNoBit();
    void crossEntropyLossAtInitialisation();
    void factoryAnswersNoGpu();
    void presetMlp();
    void presetGpt2Tiny();
};

void TestCpuExecutor::everyStrategyMatchesPredictionAndNone_data() {
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("strategy");
    for (const auto& [name, json] : networkJson())
        for (const char* s : {"none", "full", "every:2", "sqrt", "selective:attention_core",
                              "selective:attention,mlp", "manual"})
            QTest::addRow("%s/%s", name.c_str(), s) << QString::fromStdString(name) << QString(s);
}

void TestCpuExecutor::everyStrategyMatchesPredictionAndNone() {
    QFETCH(QString, network);
    QFETCH(QString, strategy);
    const ModelFile model = parse(networkJson().at(network.toStdString()));
    const Graph g = lowerOrDie(model, model.training.precision);
    const Plan plan = planFor(g, strategy.toStdString(), manualPlanFor(network.toStdString()));
    const Program p = compileOrDie(g, plan, model.training);
    QVERIFY2(!p.unsafe(), p.unsafe() ? p.unsafeReasons.front().c_str() : "");
    if (strategy != "none" && !strategy.startsWith("selective"))
        QVERIFY(!p.plan.regions.empty());

    auto ex = cpuExecutor();
    ExecuteOptions o;
    o.seed = 7;
    const Measurement m = runOrDie(*ex, g, p, o);
    checkAgainstPrediction(g, p, m);
    if (QTest::currentTestFailed()) return;

    const Program none = compileOrDie(g, Plan{"none", {}}, model.training);
    const Measurement ref = runOrDie(*ex, g, none, o);
    checkGradientsEqual(ref, m);
    QCOMPARE(m.losses.size(), std::size_t(model.training.accumulationSteps));
    QCOMPARE(m.gradients.size(), g.parameters.size());
}

void TestCpuExecutor::mixedPrecisionMatchesPrediction_data() {
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<QString>("strategy");
    for (const char* net : {"transformer", "gqa", "norms"})
        for (const char* s : {"none", "full", "sqrt", "manual"})
            QTest::addRow("%s/bf16/%s", net, s) << net << "mixed-bf16" << s;
    QTest::addRow("transformer/fp16/full") << "transformer" << "mixed-fp16" << "full";
    QTest::addRow("dropout/fp16/every:2") << "dropout" << "mixed-fp16" << "every:2";
}

void TestCpuExecutor::mixedPrecisionMatchesPrediction() {
    QFETCH(QString, network);
    QFETCH(QString, precision);
    QFETCH(QString, strategy);
    ModelFile model = parse(networkJson().at(network.toStdString()));
    model.training.precision = *parsePrecision(precision.toStdString());
    const Graph g = lowerOrDie(model, model.training.precision);
    const Program p = compileOrDie(
        g, planFor(g, strategy.toStdString(), manualPlanFor(network.toStdString())), model.training);
    auto ex = cpuExecutor();
    const Measurement m = runOrDie(*ex, g, p);
    checkAgainstPrediction(g, p, m);
    // 16-bit operands are staged into fp32 scratch, which shows at device level only.
    QVERIFY(m.device.scratchPeakBytes > 0);
    const Measurement ref = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, model.training));
    checkGradientsEqual(ref, m);
    // The stored values really are 16-bit: every gradient is representable in the format.
    for (const auto& gv : m.gradients)
        for (float v : gv.values) {
            const float back = precision == "mixed-bf16" ? bf16ToFloat(floatToBf16(v))
                                                         : fp16ToFloat(floatToFp16(v));
            QCOMPARE(back, v);
        }
}

void TestCpuExecutor::dropoutMaskReproducedOnRecompute() {
    const ModelFile model = parse(networkJson().at("dropout"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program full = compileOrDie(g, planFor(g, "full", {}), model.training);
    // Every dropout runs again inside its region's backward ...
    QCOMPARE(instructionsOfKind(g, full, InstrKind::Recompute, OpKind::Dropout),
             2 * model.training.accumulationSteps);
    auto ex = cpuExecutor();
    const Measurement m = runOrDie(*ex, g, full);
    const Measurement ref = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, model.training));
    // ... and draws the forward's mask: gradients are bit for bit those of plan none.
    checkGradientsEqual(ref, m);
    // A different seed draws different masks (and weights): the gradients depend on them.
    ExecuteOptions other;
    other.seed = 99;
    const Measurement m2 = runOrDie(*ex, g, full, other);
    QVERIFY(!compareGradients(ref, m2)->bitwiseEqual);
}

void TestCpuExecutor::recomputeCountFollowsImplementation_data() {
    QTest::addColumn<QString>("impl");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("perBlock");
    // A block is ln1, qkv, scores, softmax, context, proj, add1, ln2, fc1, act, fc2, add2 (12
    // ops). Reentrant checkpoints (PyTorch's use_reentrant=True, Megatron-LM) recompute all of
    // them. PyTorch's non-reentrant one stops once the last saved tensor is packed again: fc2
    // saves only its input, packed before its kernel runs, so neither fc2 nor add2 runs (10).
    // The core attention is scores, softmax, context: context saves only its inputs (the
    // probabilities and V), so the early stop comes after softmax (2).
    QTest::newRow("pytorch full") << "pytorch" << "full" << 10;
    QTest::newRow("pytorch-reentrant full") << "pytorch-reentrant" << "full" << 12;
    QTest::newRow("megatron full") << "megatron" << "full" << 12;
    QTest::newRow("pytorch selective") << "pytorch" << "selective:attention_core" << 2;
    QTest::newRow("pytorch-reentrant selective")
        << "pytorch-reentrant" << "selective:attention_core" << 3;
    QTest::newRow("megatron selective") << "megatron" << "selective:attention_core" << 3;
}

void TestCpuExecutor::recomputeCountFollowsImplementation() {
    QFETCH(QString, impl);
    QFETCH(QString, strategy);
    QFETCH(int, perBlock);
    const ModelFile model = parse(R"({"format": "remat-model/1", "name": "no-dropout",
        "input": {"tokens": 8, "vocab": 24},
        "layers": [{"kind": "embedding", "dim": 16, "positions": 8},
                   {"kind": "transformer_block", "repeat": 2, "heads": 2, "mlp_hidden": 32,
                    "activation": "relu", "attention": "eager", "causal": true},
                   {"kind": "layernorm"}, {"kind": "linear", "out": 24, "bias": false},
                   {"kind": "cross_entropy"}],
        "training": {"micro_batch": 2, "accumulation_steps": 2, "optimizer": "sgd"}})");
    const Graph g = lowerOrDie(model, Precision::Fp32);
    TrainingConfig cfg = model.training;
    cfg.recomputeImpl = *parseRecomputeImpl(impl.toStdString());
    const Program p = compileOrDie(g, planFor(g, strategy.toStdString(), {}), cfg);
    QVERIFY(!p.repeat);  // two micro-steps: every instruction written out, run once
    // Count the recompute instructions the executor really runs, as its progress reports them.
    std::int64_t executed = 0;
    bool fc2Recomputed = false;
    ExecuteOptions options;
    options.progress = [&](std::size_t done, std::size_t) {
        const Instruction& ins = p.instructions[done - 1];
        if (ins.kind != InstrKind::Recompute) return;
        ++executed;
        fc2Recomputed = fc2Recomputed || g.op(ins.op).name.ends_with("/mlp/fc2");
    };
    auto ex = cpuExecutor();
    const Measurement m = runOrDie(*ex, g, p, options);
    QCOMPARE(executed, std::int64_t(perBlock) * 2 * cfg.accumulationSteps);
    QCOMPARE(fc2Recomputed, impl != "pytorch" && strategy == "full");
    checkAgainstPrediction(g, p, m);
    const Measurement ref = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, cfg));
    checkGradientsEqual(ref, m);
}

void TestCpuExecutor::rngNotPreservedIsRefusedAndChangesGradients() {
    for (const char* net : {"dropout", "transformer"}) {
        const ModelFile model = parse(networkJson().at(net));
        const Graph g = lowerOrDie(model, Precision::Fp32);
        Plan plan = planFor(g, "full", {});
        for (Region& r : plan.regions) r.preserveRng = false;
        const Program p = compileOrDie(g, plan, model.training);
        QVERIFY(p.unsafe());
        auto ex = cpuExecutor();
        auto refused = ex->execute(g, p, {});
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("does not preserve the RNG state") != std::string::npos,
                 refused.error().message.c_str());
        QVERIFY(refused.error().message.find("--allow-unsafe") != std::string::npos);

        ExecuteOptions o;
        o.allowUnsafe = true;
        const Measurement m = runOrDie(*ex, g, p, o);
        checkAgainstPrediction(g, p, m);  // memory is still exactly as predicted
        const Measurement ref = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, model.training));
        auto c = compareGradients(ref, m);
        QVERIFY(c.ok());
        QVERIFY2(!c->bitwiseEqual && c->maxAbsDiff > 1e-4, net);
        // The forward pass was the same: only backward used the wrong masks.
        QVERIFY(bitwiseEqual(ref.losses, m.losses));
    }
}

void TestCpuExecutor::inPlaceOverwritingSavedTensorIsRefused() {
    auto json = [](bool inplace) {
        return std::string(R"({"format": "remat-model/1", "name": "inplace-gelu",
            "input": {"shape": [12]}, "layers": [{"kind": "linear", "out": 16},
            {"kind": "gelu", "inplace": )") +
               (inplace ? "true" : "false") + R"(}, {"kind": "linear", "out": 6}, {"kind": "mse"}],
            "training": {"micro_batch": 3}})";
    };
    const ModelFile model = parse(json(true));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, Plan{"none", {}}, model.training);
    QVERIFY(p.unsafe());
    QVERIFY(p.unsafeReasons.front().find("overwrites") != std::string::npos);
    auto ex = cpuExecutor();
    auto refused = ex->execute(g, p, {});
    QVERIFY(!refused.ok());
    QVERIFY(refused.error().message.find("unsafe") != std::string::npos);

    ExecuteOptions o;
    o.allowUnsafe = true;
    const Measurement m = runOrDie(*ex, g, p, o);
    checkAgainstPrediction(g, p, m);
    // Against the same network computed out of place: same forward, wrong backward (gelu's
    // backward read gelu(x) where it needed x).
    const ModelFile safeModel = parse(json(false));
    const Graph safe = lowerOrDie(safeModel, Precision::Fp32);
    const Measurement ref = runOrDie(*ex, safe, compileOrDie(safe, Plan{"none", {}}, safeModel.training));
    QVERIFY(bitwiseEqual(ref.losses, m.losses));
    auto c = compareGradients(ref, m);
    QVERIFY(c.ok());
    QVERIFY(!c->bitwiseEqual && c->maxAbsDiff > 1e-4);
}

void TestCpuExecutor::inPlaceReluIsSafeAndExact() {
    auto json = [](bool inplace) {
        return std::string(R"({"format": "remat-model/1", "name": "inplace-relu",
            "input": {"shape": [12]}, "layers": [{"kind": "linear", "out": 16},
            {"kind": "relu", "inplace": )") +
               (inplace ? "true" : "false") + R"(}, {"kind": "linear", "out": 6}, {"kind": "mse"}],
            "training": {"micro_batch": 3}})";
    };
    const ModelFile a = parse(json(true)), b = parse(json(false));
    const Graph ga = lowerOrDie(a, Precision::Fp32), gb = lowerOrDie(b, Precision::Fp32);
    const Program pa = compileOrDie(ga, Plan{"none", {}}, a.training);
    const Program pb = compileOrDie(gb, Plan{"none", {}}, b.training);
    QVERIFY(!pa.unsafe());
    auto ex = cpuExecutor();
    const Measurement ma = runOrDie(*ex, ga, pa), mb = runOrDie(*ex, gb, pb);
    checkAgainstPrediction(ga, pa, ma);
    checkGradientsEqual(mb, ma);
    // relu_ never holds its input and output at once: right after its forward, one
    // activation (3 x 16 fp32) fewer is live; the peak is never higher.
    auto liveAfterRelu = [](const Graph& g, const Program& p, const Measurement& m) {
        for (std::size_t i = 0; i < p.instructions.size(); ++i)
            if (p.instructions[i].kind == InstrKind::Forward &&
                g.op(p.instructions[i].op).kind == OpKind::Relu)
                return totalBytes(m.live[i]);
        return std::int64_t{-1};
    };
    QCOMPARE(liveAfterRelu(gb, pb, mb) - liveAfterRelu(ga, pa, ma), std::int64_t{3 * 16 * 4});
    QVERIFY(ma.peakBytes <= mb.peakBytes);
}

void TestCpuExecutor::accumulationGivesGradientOfMeanLoss() {
    // No dropout here: its masks are drawn per micro-step, not per batch of data.
    ModelFile model = parse(networkJson().at("norms"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    auto ex = cpuExecutor();
    model.training.accumulationSteps = 3;
    const Program three = compileOrDie(g, planFor(g, "sqrt", {}), model.training);
    const Measurement m3 = runOrDie(*ex, g, three);
    model.training.accumulationSteps = 1;
    const Program one = compileOrDie(g, planFor(g, "sqrt", {}), model.training);
    std::vector<Measurement> singles;
    for (std::uint32_t batch = 0; batch < 3; ++batch) {
        ExecuteOptions o;
        o.firstBatch = batch;
        singles.push_back(runOrDie(*ex, g, one, o));
        // Micro-step k of the accumulated step saw the same data as this single step.
        QVERIFY(singles.back().losses.at(0) == m3.losses.at(batch));
    }
    // The accumulated gradient is the gradient of the mean of the three losses. Not bitwise:
    // the three-step run scales each micro-step by 1/3 before summing. Tolerance: 1e-6
    // relative to the largest gradient of the parameter, plus 1e-7 absolute.
    double worst = 0.0;
    for (const auto& gv : m3.gradients) {
        double scale = 0.0;
        for (float v : gv.values) scale = std::max(scale, double(std::fabs(v)));
        QVERIFY(scale > 0.0);
        for (std::size_t i = 0; i < gv.values.size(); ++i) {
            double mean = 0.0;
            for (const auto& s : singles) mean += s.gradient(gv.parameter)->values[i];
            mean /= 3.0;
            const double err = std::fabs(mean - gv.values[i]);
            worst = std::max(worst, err / scale);
            QVERIFY2(err <= 1e-6 * scale + 1e-7, gv.name.c_str());
        }
    }
    qInfo("accumulation 3 vs mean of 3 single steps: max relative difference %.3g", worst);
}

void TestCpuExecutor::optimizersUpdateParameters_data() {
    QTest::addColumn<QString>("optimizer");
    for (const char* o : {"sgd", "momentum", "adam", "adamw"}) QTest::newRow(o) << QString(o);
}

void TestCpuExecutor::optimizersUpdateParameters() {
    QFETCH(QString, optimizer);
    ModelFile model = parse(networkJson().at("mlp-tanh"));
    model.training.optimizer = *parseOptimizer(optimizer.toStdString());
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "full", {}), model.training);
    auto ex = cpuExecutor();
    ExecuteOptions o;
    o.seed = 3;
    o.collectParameters = true;
    const Measurement m = runOrDie(*ex, g, p, o);
    QCOMPARE(m.parameters.size(), g.parameters.size());
    const OptimizerHyperParams hp = kOptimizerHyperParams;
    for (const auto& after : m.parameters) {
        const auto before = parameterInitialValues(g.tensor(after.parameter), o.seed);
        const auto& grad = m.gradient(after.parameter)->values;
        for (std::size_t i = 0; i < before.size(); ++i) {
            // One step from zero state, written out the long way.
            float w = before[i];
            const float gr = grad[i];
            switch (model.training.optimizer) {
                case Optimizer::Sgd: w -= hp.learningRate * gr; break;
                case Optimizer::Momentum: w -= hp.learningRate * gr; break;
                case Optimizer::AdamW: w -= hp.learningRate * hp.weightDecay * w; [[fallthrough]];
                case Optimizer::Adam: {
                    const float mhat = ((1 - hp.beta1) * gr) / (1 - hp.beta1);
                    const float vhat = ((1 - hp.beta2) * gr * gr) / (1 - hp.beta2);
                    w -= hp.learningRate * mhat / (std::sqrt(vhat) + hp.epsilon);
                    break;
                }
            }
            QVERIFY2(std::fabs(w - after.values[i]) <= 1e-6f * (1 + std::fabs(w)), after.name.c_str());
            if (gr != 0.0f) QVERIFY(after.values[i] != before[i]);
        }
    }
}

void TestCpuExecutor::mixedPrecisionOptimizerUsesMasterWeights() {
    ModelFile model = parse(networkJson().at("mlp-gelu"));
    model.training.optimizer = Optimizer::Sgd;
    model.training.precision = Precision::MixedBf16;
    const Graph g = lowerOrDie(model, model.training.precision);
    const Program p = compileOrDie(g, Plan{"none", {}}, model.training);
    auto ex = cpuExecutor();
    ExecuteOptions o;
    o.collectParameters = true;
    const Measurement m = runOrDie(*ex, g, p, o);
    for (const auto& after : m.parameters) {
        // The fp32 master starts from the unrounded initial value and is updated in fp32;
        // the bf16 parameter is the rounded master.
        const auto master = parameterInitialValues(g.tensor(after.parameter), o.seed);
        const auto& grad = m.gradient(after.parameter)->values;
        for (std::size_t i = 0; i < master.size(); ++i) {
            const float expected = bf16ToFloat(floatToBf16(master[i] - kOptimizerHyperParams.learningRate * grad[i]));
            QVERIFY2(after.values[i] == expected, after.name.c_str());
        }
    }
}

void TestCpuExecutor::formerlyRefusedOpsRun() {
    // Convolutions and flash attention were refused by name before the executors ran them.
    auto ex = cpuExecutor();
    const ModelFile conv = parse(R"({"format": "remat-model/1", "name": "conv",
        "input": {"shape": [3, 8, 8]},
        "layers": [{"kind": "conv2d", "out_channels": 4, "kernel": 3, "padding": 1},
                   {"kind": "relu"}, {"kind": "flatten"}, {"kind": "linear", "out": 4},
                   {"kind": "mse"}]})");
    const Graph g = lowerOrDie(conv, Precision::Fp32);
    const Program p = compileOrDie(g, Plan{"none", {}}, conv.training);
    checkAgainstPrediction(g, p, runOrDie(*ex, g, p));
    const ModelFile flash = parse(R"({"format": "remat-model/1", "name": "flash",
        "input": {"tokens": 8, "vocab": 16},
        "layers": [{"kind": "embedding", "dim": 8},
                   {"kind": "transformer_block", "heads": 2, "mlp_hidden": 16, "attention": "flash"},
                   {"kind": "linear", "out": 16}, {"kind": "cross_entropy"}]})");
    const Graph gf = lowerOrDie(flash, Precision::Fp32);
    const Program pf = compileOrDie(gf, Plan{"none", {}}, flash.training);
    checkAgainstPrediction(gf, pf, runOrDie(*ex, gf, pf));
}

void TestCpuExecutor::cancelStopsAndReleasesEverything() {
    const ModelFile model = parse(networkJson().at("transformer"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "full", {}), model.training);
    auto backend = std::make_unique<CpuBackend>();
    const CpuBackend* raw = backend.get();
    ProgramDriver ex(std::move(backend));
    std::atomic<bool> cancel{false};
    ExecuteOptions o;
    o.cancel = &cancel;
    o.progress = [&](std::size_t done, std::size_t) {
        if (done == 40) cancel = true;
    };
    auto r = ex.execute(g, p, o);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message == "cancelled at instruction 40 of " +
                                      std::to_string(p.instructions.size()),
             r.error().message.c_str());
    QCOMPARE(raw->allocator().usedBytes(), std::int64_t{0});
    QCOMPARE(raw->allocator().reservedBytes(), std::int64_t{0});
    // The executor is usable again afterwards.
    cancel = false;
    o.progress = nullptr;
    QVERIFY(ex.execute(g, p, o).ok());
}

namespace {

// A CPU executor whose backend fails on request; `pool` reads the CPU allocator's counters.
struct FaultyCpu {
    CpuBackend* cpu = nullptr;
    FaultInjectingBackend* faults = nullptr;
    std::unique_ptr<ProgramDriver> executor;

    FaultyCpu() {
        auto inner = std::make_unique<CpuBackend>();
        cpu = inner.get();
        auto wrapper = std::make_unique<FaultInjectingBackend>(std::move(inner));
        faults = wrapper.get();
        executor = std::make_unique<ProgramDriver>(std::move(wrapper));
    }
    // Everything handed back and nothing cached: through the backend interface (what a UI
    // sees) and at the allocator itself.
    void checkPoolEmpty() const {
        const DeviceMemoryStats s = faults->memoryStats();
        QCOMPARE(s.inUseBytes, std::int64_t{0});
        QCOMPARE(s.heldBytes, std::int64_t{0});
        QCOMPARE(cpu->allocator().usedBytes(), std::int64_t{0});
        QCOMPARE(cpu->allocator().reservedBytes(), std::int64_t{0});
    }
};

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

void TestCpuExecutor::outOfMemoryMidRunReleasesEverything_data() {
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("warmup");
    QTest::addColumn<int>("nth");  // which allocation fails: 1 = the first, -1 = the last
    QTest::addRow("fp32 first") << "fp32" << 0 << 1;
    QTest::addRow("fp32 middle") << "fp32" << 0 << 0;
    QTest::addRow("fp32 last") << "fp32" << 0 << -1;
    QTest::addRow("bf16 middle") << "bf16" << 0 << 0;
    QTest::addRow("fp32 in warm-up") << "fp32" << 1 << 0;
}

void TestCpuExecutor::outOfMemoryMidRunReleasesEverything() {
    QFETCH(QString, precision);
    QFETCH(int, warmup);
    QFETCH(int, nth);
    const ModelFile model = parse(networkJson().at("transformer"));
    TrainingConfig cfg = model.training;
    cfg.precision = precision == "bf16" ? Precision::MixedBf16 : Precision::Fp32;
    const Graph g = lowerOrDie(model, cfg.precision);
    const Program p = compileOrDie(g, planFor(g, "full", {}), cfg);
    std::int64_t allocs = 0;
    for (const Instruction& ins : p.instructions) allocs += ins.kind == InstrKind::Alloc;
    const int which = nth == 1 ? 1 : nth == -1 ? int(allocs) : int(allocs / 2);

    FaultyCpu f;
    ExecuteOptions o;
    o.warmupSteps = warmup;
    f.faults->failAllocation(which);
    auto r = f.executor->execute(g, p, o);
    QVERIFY(!r.ok());
    const std::string& msg = r.error().message;
    // Names the instruction (index and caption), the cause and the size requested.
    const std::string of = " of " + std::to_string(p.instructions.size()) + " (";
    QVERIFY2(contains(msg, "instruction ") && contains(msg, of) &&
                 contains(msg, "out of host memory: requested ") && contains(msg, " bytes"),
             msg.c_str());
    QVERIFY2(contains(msg, "(alloc "), msg.c_str());
    if (warmup > 0) QVERIFY2(msg.rfind("warm-up step 1: ", 0) == 0, msg.c_str());
    f.checkPoolEmpty();

    // The same executor runs the program again, and its result is the clean one.
    const Measurement again = runOrDie(*f.executor, g, p, o);
    f.checkPoolEmpty();
    checkAgainstPrediction(g, p, again);
    auto clean = cpuExecutor();
    checkGradientsEqual(runOrDie(*clean, g, p), again);
}

void TestCpuExecutor::kernelErrorMidRunReleasesEverything() {
    const ModelFile model = parse(networkJson().at("gqa"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "sqrt", {}), model.training);
    // Which entry is the 30th kernel: count them on a clean run.
    std::vector<std::string> entries;
    for (const Instruction& ins : p.instructions) {
        if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free) continue;
        if (ins.kind != InstrKind::OptimizerStep && g.op(ins.op).kind == OpKind::Flatten) continue;
        entries.push_back(describeInstruction(g, p, std::size_t(&ins - p.instructions.data())));
    }
    QVERIFY(entries.size() > 30);
    FaultyCpu f;
    f.faults->failKernel(30);
    auto r = f.executor->execute(g, p, {});
    QVERIFY(!r.ok());
    const std::string& msg = r.error().message;
    QVERIFY2(contains(msg, "kernel failed (injected fault)"), msg.c_str());
    // The caption of the instruction whose kernel failed, as the driver writes it.
    QVERIFY2(contains(msg, "(" + entries[29] + "): "), msg.c_str());
    f.checkPoolEmpty();
    const Measurement again = runOrDie(*f.executor, g, p);
    f.checkPoolEmpty();
    checkAgainstPrediction(g, p, again);
}

void TestCpuExecutor::faultInReferenceRunIsNamed() {
    const ModelFile model = parse(networkJson().at("transformer"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "every:2", {}), model.training);
    FaultyCpu f;
    const Measurement m = runOrDie(*f.executor, g, p);
    f.faults->failAllocation(5);
    auto c = checkGradientsAgainstNone(*f.executor, g, p, m, CompileOptions{}, ExecuteOptions{});
    QVERIFY(!c.ok());
    QVERIFY2(c.error().message.rfind("reference run (plan none): instruction ", 0) == 0,
             c.error().message.c_str());
    f.checkPoolEmpty();
    auto again =
        checkGradientsAgainstNone(*f.executor, g, p, m, CompileOptions{}, ExecuteOptions{});
    QVERIFY(again.ok());
    QVERIFY(again->bitwiseEqual);
}

void TestCpuExecutor::cancelInsideAKernelStopsAtTheNextInstruction() {
    // The flag is raised while a kernel runs (as a GUI thread would): the kernel finishes, the
    // driver stops before the next instruction.
    const ModelFile model = parse(networkJson().at("norms"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "full", {}), model.training);
    FaultyCpu f;
    std::atomic<bool> cancel{false};
    ExecuteOptions o;
    o.cancel = &cancel;
    std::size_t lastDone = 0;
    o.progress = [&](std::size_t done, std::size_t) { lastDone = done; };
    f.faults->cancelAtKernel(7, &cancel);
    auto r = f.executor->execute(g, p, o);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().message, "cancelled at instruction " + std::to_string(lastDone) + " of " +
                                    std::to_string(p.instructions.size()));
    f.checkPoolEmpty();
    cancel = false;
    QVERIFY(f.executor->execute(g, p, o).ok());
    f.checkPoolEmpty();
}

void TestCpuExecutor::allocatorEstimateEqualsMeasurement_data() {
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<bool>("mixed");
    for (const auto& [name, json] : networkJson())
        for (const char* s : {"none", "full", "sqrt"}) {
            const QString n = QString::fromStdString(name);
            QTest::addRow("%s/%s/fp32", name.c_str(), s) << n << QString(s) << false;
            QTest::addRow("%s/%s/bf16", name.c_str(), s) << n << QString(s) << true;
        }
}

void TestCpuExecutor::allocatorEstimateEqualsMeasurement() {
    // The host-memory check replays the program through the allocator's size classes and
    // cache: in fp32 that is exactly what the allocator obtains; with 16-bit buffers the
    // staging is bounded from above (every 16-bit operand of an instruction staged at once).
    QFETCH(QString, network);
    QFETCH(QString, strategy);
    QFETCH(bool, mixed);
    const ModelFile model = parse(networkJson().at(network.toStdString()));
    TrainingConfig cfg = model.training;
    cfg.precision = mixed ? Precision::MixedBf16 : Precision::Fp32;
    const Graph g = lowerOrDie(model, cfg.precision);
    const Program p = compileOrDie(g, planFor(g, strategy.toStdString(), {}), cfg);
    auto ex = cpuExecutor();
    const Measurement m = runOrDie(*ex, g, p);
    const std::int64_t estimate = cpuAllocatorPeakBytes(p);
    if (mixed)
        QVERIFY2(estimate >= m.device.reservedPeakBytes,
                 qPrintable(QString("%1 < %2").arg(estimate).arg(m.device.reservedPeakBytes)));
    else
        QCOMPARE(estimate, m.device.reservedPeakBytes);
}

void TestCpuExecutor::hostEstimateCoversWhatTheRunUses() {
    const ModelFile model = *loadModel("gpt2-tiny");
    const Graph g = lowerOrDie(model, model.training.precision);
    const Program p = compileOrDie(g, planFor(g, "full", {}), model.training);
    auto reference = compileReference(g, p, CompileOptions{});
    QVERIFY(reference.ok());
    const CpuRunHostEstimate e = estimateCpuRunHostBytes(p, *reference);
    auto ex = cpuExecutor();
    const Measurement run = runOrDie(*ex, g, p);
    const Measurement none = runOrDie(*ex, g, *reference);
    // The programs' peak is the larger tracked peak; the allocator's the larger obtained one.
    QCOMPARE(e.trackedPeakBytes, std::max(run.peakBytes, none.peakBytes));
    QVERIFY(e.allocatorPeakBytes == run.device.reservedPeakBytes ||
            e.allocatorPeakBytes == none.device.reservedPeakBytes);
    std::int64_t gradients = 0;
    for (const auto& gv : run.gradients)
        gradients += std::int64_t(gv.values.size() * sizeof(float));
    // The measured run's gradients are held while the reference runs; the reference's too.
    QCOMPARE(e.gradientCopiesBytes, 2 * gradients);
    QVERIFY(e.transientBytes > 0 && e.recordsBytes > 0);
    QCOMPARE(e.totalBytes, e.allocatorPeakBytes + e.gradientCopiesBytes + e.recordsBytes +
                               e.transientBytes + e.gemmBufferBytes);
}

void TestCpuExecutor::availableHostMemoryIsRead() {
    const HostMemory h = availableHostMemory();
    QVERIFY2(h.availableBytes > 0, "MemAvailable is in /proc/meminfo on every Linux since 3.14");
    QVERIFY(!h.source.empty());
}

void TestCpuExecutor::progressAndWarmup() {
    const ModelFile model = parse(networkJson().at("gqa"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "sqrt", {}), model.training);
    auto ex = cpuExecutor();
    std::size_t calls = 0, last = 0;
    ExecuteOptions o;
    o.progress = [&](std::size_t done, std::size_t total) {
        ++calls;
        QCOMPARE(total, p.instructions.size());
        QVERIFY(done == last + 1);
        last = done;
    };
    const Measurement plain = runOrDie(*ex, g, p, o);
    QCOMPARE(calls, p.instructions.size());
    o.progress = nullptr;
    o.warmupSteps = 2;
    const Measurement warmed = runOrDie(*ex, g, p, o);
    checkGradientsEqual(plain, warmed);
    QVERIFY(warmed.live == plain.live);
    QCOMPARE(warmed.elapsedS.size(), p.instructions.size());
    QVERIFY(warmed.timeS.total() > 0.0);
    QVERIFY(warmed.timeS.backward > 0.0 && warmed.timeS.recompute > 0.0);
}

void TestCpuExecutor::deterministicAcrossExecutors() {
    const ModelFile model = parse(networkJson().at("transformer"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    const Program p = compileOrDie(g, planFor(g, "every:2", {}), model.training);
    auto a = cpuExecutor();
    auto b = makeExecutor("cpu");
    QVERIFY(b.ok());
    const Measurement ma = runOrDie(*a, g, p);
    const Measurement mb = runOrDie(**b, g, p);
    checkGradientsEqual(ma, mb);
    // The verification helper reaches the same verdict through its own reference run.
    auto c = checkGradientsAgainstNone(**b, g, p, mb, CompileOptions{}, ExecuteOptions{});
    QVERIFY(c.ok());
    QVERIFY(c->bitwiseEqual);
    QVERIFY(c->maxAbsDiff == 0.0);
    QCOMPARE(c->reference, std::string("none"));
}

void TestCpuExecutor::threadCountChangesNoBit() {
    // gpt2-tiny cuts its work into several tiles, chunks and heads; the transformer case in
    // bf16 adds the 16-bit staging.
    struct Model {
        ModelFile file;
        Precision precision;
    };
    const Model models[] = {{*loadModel("gpt2-tiny"), Precision::Fp32},
                            {parse(networkJson().at("transformer")), Precision::MixedBf16}};
    for (const Model& model : models) {
        const Graph g = lowerOrDie(model.file, model.precision);
        TrainingConfig training = model.file.training;
        training.precision = model.precision;
        std::vector<float> noneLosses;
        std::vector<ParameterValues> noneGradients;
        for (const char* strategy : {"none", "full", "every:2"}) {
            const Program p = compileOrDie(g, planFor(g, strategy, {}), training);
            ProgramDriver one(std::make_unique<CpuBackend>(1));
            ProgramDriver three(std::make_unique<CpuBackend>(3));
            const Measurement m1 = runOrDie(one, g, p);
            const Measurement m3 = runOrDie(three, g, p);
            checkGradientsEqual(m1, m3);
            checkAgainstPrediction(g, p, m3);
            // The pool holds no memory of the executor's: tracked bytes after every
            // instruction and the allocator's figures are those of one thread.
            QCOMPARE(m3.live.size(), m1.live.size());
            for (std::size_t i = 0; i < m1.live.size(); ++i)
                QVERIFY(m1.live[i] == m3.live[i]);
            QCOMPARE(m3.peakBytes, m1.peakBytes);
            QCOMPARE(m3.device.usedPeakBytes, m1.device.usedPeakBytes);
            QCOMPARE(m3.device.reservedPeakBytes, m1.device.reservedPeakBytes);
            QCOMPARE(m3.device.scratchPeakBytes, m1.device.scratchPeakBytes);
            QVERIFY(m3.deviceName.find("3 threads") != std::string::npos);
            // And every plan's gradients are plan none's, with 3 threads too.
            if (noneGradients.empty()) {
                noneGradients = m3.gradients;
                noneLosses = m3.losses;
            } else {
                QVERIFY(bitwiseEqual(noneLosses, m3.losses));
                QCOMPARE(m3.gradients.size(), noneGradients.size());
                for (std::size_t k = 0; k < noneGradients.size(); ++k)
                    QVERIFY2(bitwiseEqual(noneGradients[k].values, m3.gradients[k].values),
                             noneGradients[k].name.c_str());
            }
        }
    }
}

void TestCpuExecutor::crossEntropyLossAtInitialisation() {
    // Small initial weights give near-uniform predictions: the loss is close to log(vocab).
    const ModelFile model = parse(networkJson().at("tied"));
    const Graph g = lowerOrDie(model, Precision::Fp32);
    auto ex = cpuExecutor();
    const Measurement m = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, model.training));
    for (float l : m.losses) QVERIFY2(std::fabs(l - std::log(24.0f)) < 0.5f, qPrintable(QString::number(l)));
}

void TestCpuExecutor::factoryAnswersNoGpu() {
    const auto names = availableBackends();
    QCOMPARE(names.front(), std::string("cpu"));
    auto cpu = makeBackend("cpu");
    QVERIFY(cpu.ok());
    QCOMPARE((*cpu)->name(), std::string("cpu"));
    auto unknown = makeBackend("tpu");
    QVERIFY(!unknown.ok());
#ifndef REMAT_HAVE_CUDA
    auto cuda = makeBackend("cuda");
    QVERIFY(!cuda.ok());
    QVERIFY(cuda.error().message.rfind("CUDA backend unavailable: ", 0) == 0);
#endif
}

void TestCpuExecutor::presetMlp() {
    const ModelFile model = *loadModel("mlp-3x1024");
    const Graph g = lowerOrDie(model, model.training.precision);
    const Program p = compileOrDie(g, planFor(g, "manual", manualRegions(model)), model.training);
    QCOMPARE(p.plan.regions.size(), std::size_t(1));
    auto ex = cpuExecutor();
    const Measurement m = runOrDie(*ex, g, p);
    checkAgainstPrediction(g, p, m);
    const Measurement ref = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, model.training));
    checkGradientsEqual(ref, m);
}

void TestCpuExecutor::presetGpt2Tiny() {
    const ModelFile model = *loadModel("gpt2-tiny");
    const Graph g = lowerOrDie(model, model.training.precision);
    auto ex = cpuExecutor();
    const Measurement ref = runOrDie(*ex, g, compileOrDie(g, Plan{"none", {}}, model.training));
    for (const char* s : {"full", "selective:attention_core"}) {
        const Program p = compileOrDie(g, planFor(g, s, {}), model.training);
        const Measurement m = runOrDie(*ex, g, p);
        checkAgainstPrediction(g, p, m);
        checkGradientsEqual(ref, m);
    }
}

QTEST_GUILESS_MAIN(TestCpuExecutor)
#include "tst_cpu_executor.moc"
