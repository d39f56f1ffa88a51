// The compiler's verdict on in-place ops and RNG state, against what the CPU executor really
// computes. For every preset the executor runs in seconds (mlp-3x1024, gpt2-tiny,
// pitfall-inplace) under every strategy the comparison lists, with the RNG state preserved and
// not, the verdict says "will differ" exactly when the gradients differ from plan none's, and
// never "may differ"; small networks pin each rule (ReLU applied twice in place, a tanh or a
// GELU in place, a region holding only an in-place dropout, ReLU over a ReLU's output); the
// pitfall preset shows a non-zero gradient error under its own plan and zero under safe ones;
// the model file's preserve_rng_state round-trips and reaches the compiler.
#include <QtTest>

#include "analysis.h"
#include "compiler.h"
#include "cpu/cpu_backend.h"
#include "device.h"
#include "lower.h"
#include "model_file.h"
#include "program_driver.h"
#include "strategy.h"
#include "verification.h"

using namespace remat;

namespace {

struct Outcome {
    Program program;
    GradCheck grad;
};

ModelFile parseOrDie(const std::string& json) {
    auto m = parseModel(json, "test");
    if (!m) qFatal("parse: %s", m.error().message.c_str());
    return std::move(*m);
}

Graph lowerOrDie(const ModelFile& m) {
    auto g = lower(m.network, m.training);
    if (!g) qFatal("lower: %s", g.error().message.c_str());
    return std::move(*g);
}

// Compiles `plan` and runs it (unsafe or not) on the CPU, and compares its gradients with plan
// none's, same seed: of the same network, or of `reference` (the network computed out of
// place, when the damage is in the network itself and plan none carries it too).
Result<Outcome> runAndCompare(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                              const Graph* reference = nullptr) {
    auto p = compile(g, plan, cfg);
    if (!p) return p.error();
    ProgramDriver ex(std::make_unique<CpuBackend>());
    ExecuteOptions o;
    o.allowUnsafe = true;
    o.seed = 3;
    auto m = ex.execute(g, *p, o);
    if (!m) return m.error();
    if (!reference) {
        auto grad = checkGradientsAgainstNone(ex, g, *p, *m, {}, o);
        if (!grad) return grad.error();
        return Outcome{std::move(*p), *grad};
    }
    auto none = compile(*reference, Plan{"none", {}}, cfg);
    if (!none) return none.error();
    if (none->unsafe()) return makeError("the out-of-place reference is unsafe");
    auto ref = ex.execute(*reference, *none, o);
    if (!ref) return ref.error();
    auto grad = compareGradients(*ref, *m);
    if (!grad) return grad.error();
    return Outcome{std::move(*p), *grad};
}

Plan planOf(const Graph& g, const ModelFile& m, const Strategy& s, const TrainingConfig& cfg) {
    static const DeviceSpec d = *findDevice("a100-80gb");
    PlanContext in;
    in.manualRegions = manualRegions(m);
    in.training = &cfg;
    in.device = &d;
    auto plan = makePlan(g, s, in);
    if (!plan) qFatal("plan %s: %s", s.spelling().c_str(), plan.error().message.c_str());
    return std::move(*plan);
}

std::string mlp(const std::string& layers, const std::string& plan) {
    return R"({"format": "remat-model/1", "name": "case", "input": {"shape": [16]},
        "layers": [)" + layers + R"(], "plan": {"regions": )" + plan + R"(},
        "training": {"micro_batch": 4}})";
}

bool anyContains(const std::vector<std::string>& v, const char* s) {
    for (const auto& x : v)
        if (x.find(s) != std::string::npos) return true;
    return false;
}

}  // namespace

class TestInplaceVerdict : public QObject {
    Q_OBJECT
private slots:
    void verdictMatchesTheRunOnEveryShippedCase();
    void rulesAgainstTheRun_data();
    void rulesAgainstTheRun();
    void nestedRegionMayDiffer();
    void pitfallPresetDamageOnlyWhenUnsafe();
    void preserveRngStateRoundTripsAndReachesTheCompiler();
};

void TestInplaceVerdict::verdictMatchesTheRunOnEveryShippedCase() {
    int cases = 0, differing = 0;
    for (const char* preset : {"mlp-3x1024", "gpt2-tiny", "pitfall-inplace"}) {
        auto loaded = loadModel(preset);
        QVERIFY2(loaded, preset);
        ModelFile m = *loaded;
        // Small enough for the executor: one or two samples per micro-batch.
        m.training.microBatch = std::min<std::int64_t>(m.training.microBatch, 2);
        const Graph g = lowerOrDie(m);
        std::vector<Strategy> strategies = comparisonStrategies(g, m.training.recomputeImpl);
        if (m.planForm == PlanForm::PerLayer || m.planForm == PlanForm::Regions)
            strategies.push_back(Strategy{StrategyKind::Manual, 0, {}});
        for (bool preserve : {true, false}) {
            TrainingConfig cfg = m.training;
            cfg.preserveRngState = preserve;
            for (const Strategy& s : strategies) {
                if (s.kind == StrategyKind::Optimal || s.kind == StrategyKind::OptimalNested)
                    continue;  // budget-driven: the same regions as the named ones
                const Plan plan = planOf(g, m, s, cfg);
                auto out = runAndCompare(g, plan, cfg);
                const std::string what = std::string(preset) + " " + s.spelling() +
                                         (preserve ? "" : " (RNG not preserved)");
                QVERIFY2(out, (what + ": " + (out ? "" : out.error().message)).c_str());
                QVERIFY2(!out->grad.referenceUnsafe, what.c_str());
                const bool differs = !out->grad.bitwiseEqual;
                QVERIFY2(out->program.gradientsWillDiffer() == differs,
                         (what + ": verdict " +
                          (out->program.gradientsWillDiffer() ? "will differ" : "safe") +
                          ", run " + (differs ? "differs" : "equal")).c_str());
                QVERIFY2(out->program.mayDifferReasons.empty(), what.c_str());
                QCOMPARE(out->program.unsafe(), differs);
                if (differs) QVERIFY(out->grad.maxAbsDiff > 0.0);
                ++cases;
                differing += differs ? 1 : 0;
            }
        }
    }
    // Both outcomes occur: the check is not vacuous either way.
    QVERIFY(cases > 20);
    QVERIFY(differing > 0 && differing < cases);
}

void TestInplaceVerdict::rulesAgainstTheRun_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<bool>("willDiffer");
    QTest::addColumn<QString>("phrase");  // in a reason or a note
    const std::string lin = R"({"kind": "linear", "out": 16})";
    const std::string mse = R"({"kind": "mse"})";
    auto row = [&](const char* name, const std::string& layers, const char* plan, bool differ,
                   const char* phrase) {
        QTest::newRow(name) << QString::fromStdString(mlp(layers, plan)) << differ
                            << QString::fromLatin1(phrase);
    };
    row("relu in place at a region's start",
        lin + R"(, {"kind": "relu", "inplace": true}, )" + lin + ", " + mse, "[[1, 2]]", false,
        "ReLU applied twice is ReLU");
    row("tanh in place at a region's start",
        lin + R"(, {"kind": "tanh", "inplace": true}, )" + lin + ", " + mse, "[[1, 2]]", true,
        "keeps what it computes from them");
    row("dropout in place at a region's start, then a linear",
        lin + R"(, {"kind": "dropout", "p": 0.5, "inplace": true}, )" + lin + ", " + mse,
        "[[1, 2]]", true, "its recompute reads the overwritten values");
    row("a region holding only an in-place dropout",
        lin + R"(, {"kind": "dropout", "p": 0.5, "inplace": true}, )" + lin + ", " + mse,
        "[[1, 1]]", false, "nothing it keeps for backward depends on them");
    row("gelu in place, no region",
        lin + R"(, {"kind": "gelu", "inplace": true}, )" + lin + ", " + mse, "[]", true,
        "its own input");
    row("relu in place over a relu's output, kept by that relu",
        lin + R"(, {"kind": "relu"}, {"kind": "relu", "inplace": true}, )" + lin + ", " + mse,
        "[]", false, "never negative");
    row("relu in place over a tanh's output, kept by that tanh",
        lin + R"(, {"kind": "tanh"}, {"kind": "relu", "inplace": true}, )" + lin + ", " + mse,
        "[]", false, "whose gradient it sets to zero");
    row("tanh in place over a tanh's output, kept by that tanh",
        lin + R"(, {"kind": "tanh"}, {"kind": "tanh", "inplace": true}, )" + lin + ", " + mse,
        "[]", true, "keeps for backward");
}

void TestInplaceVerdict::rulesAgainstTheRun() {
    QFETCH(QString, json);
    QFETCH(bool, willDiffer);
    QFETCH(QString, phrase);
    const ModelFile m = parseOrDie(json.toStdString());
    const Graph g = lowerOrDie(m);
    // The reference: the same network with every op out of place, under plan none.
    const Graph outOfPlace = lowerOrDie(parseOrDie(
        json.replace(QStringLiteral("\"inplace\": true"), QStringLiteral("\"inplace\": false"))
            .toStdString()));
    const Plan plan = planOf(g, m, Strategy{StrategyKind::Manual, 0, {}}, m.training);
    auto out = runAndCompare(g, plan, m.training, &outOfPlace);
    QVERIFY2(out, out ? "" : out.error().message.c_str());
    QCOMPARE(out->program.gradientsWillDiffer(), willDiffer);
    QCOMPARE(!out->grad.bitwiseEqual, willDiffer);
    QVERIFY(out->program.mayDifferReasons.empty());
    const auto& said = willDiffer ? out->program.unsafeReasons : out->program.safeNotes;
    QVERIFY2(anyContains(said, phrase.toLatin1().constData()),
             (said.empty() ? std::string("(nothing said)") : said.front()).c_str());
    if (willDiffer) QVERIFY(out->grad.maxAbsDiff > 0.0);
}

// Overwritten values passed into a nested region's recompute are not followed further: the
// verdict says "may differ", and the program counts as unsafe.
void TestInplaceVerdict::nestedRegionMayDiffer() {
    const std::string lin = R"({"kind": "linear", "out": 16})";
    const ModelFile m = parseOrDie(mlp(lin + R"(, {"kind": "dropout", "p": 0.5, "inplace": true}, )" +
                                           lin + ", " + lin + ", " + R"({"kind": "mse"})",
                                       "[[1, 3], [2, 3]]"));
    const Graph g = lowerOrDie(m);
    const Plan plan = planOf(g, m, Strategy{StrategyKind::Manual, 0, {}}, m.training);
    auto p = compile(g, plan, m.training);
    QVERIFY(p);
    QVERIFY(!p->mayDifferReasons.empty());
    QVERIFY(p->unsafe());
    QVERIFY(!p->gradientsWillDiffer());
    QVERIFY(p->mayDifferReasons.front().find("nested region '2-3'") != std::string::npos);
}

void TestInplaceVerdict::pitfallPresetDamageOnlyWhenUnsafe() {
    auto loaded = loadModel("pitfall-inplace");
    QVERIFY(loaded);
    const ModelFile m = *loaded;
    const Graph g = lowerOrDie(m);
    // Its own plan: the in-place dropout at region [4, 5]'s start damages the gradients.
    auto own = runAndCompare(g, planOf(g, m, Strategy{StrategyKind::Manual, 0, {}}, m.training),
                             m.training);
    QVERIFY(own);
    QVERIFY(own->program.gradientsWillDiffer());
    QVERIFY(anyContains(own->program.unsafeReasons, "in-place '4/dropout'"));
    QVERIFY(anyContains(own->program.safeNotes, "ReLU applied twice is ReLU"));
    QVERIFY(!own->grad.bitwiseEqual);
    QVERIFY(own->grad.maxAbsDiff > 1e-6);
    // Safe plans: none, full (the dropout's region keeps only its mask), the ReLU region alone.
    for (const char* s : {"none", "full", "sqrt"}) {
        auto out = runAndCompare(g, planOf(g, m, *parseStrategy(s), m.training), m.training);
        QVERIFY2(out, s);
        QVERIFY2(!out->program.unsafe(), s);
        QVERIFY2(out->grad.bitwiseEqual, s);
        QCOMPARE(out->grad.maxAbsDiff, 0.0);
    }
    ModelFile reluOnly = m;
    reluOnly.regions = {RegionSpec{false, 1, 2, {}}};
    auto out = runAndCompare(
        g, planOf(g, reluOnly, Strategy{StrategyKind::Manual, 0, {}}, m.training), m.training);
    QVERIFY(out);
    QVERIFY(!out->program.unsafe());
    QCOMPARE(out->grad.maxAbsDiff, 0.0);
}

void TestInplaceVerdict::preserveRngStateRoundTripsAndReachesTheCompiler() {
    auto loaded = loadModel("gpt2-tiny");
    QVERIFY(loaded);
    ModelFile m = *loaded;
    QVERIFY(m.training.preserveRngState);
    QVERIFY(modelToJson(m).find("preserve_rng_state") == std::string::npos);  // default: left out
    m.training.preserveRngState = false;
    const std::string text = modelToJson(m);
    QVERIFY(text.find("\"preserve_rng_state\": false") != std::string::npos);
    auto back = parseModel(text, "round-trip");
    QVERIFY(back);
    QVERIFY(*back == m);
    auto bad = parseModel(R"({"format": "remat-model/1", "input": {"shape": [4]},
        "layers": [{"kind": "linear", "out": 4}, {"kind": "mse"}],
        "training": {"preserve_rng_state": "no"}})", "bad.json");
    QVERIFY(!bad);
    QVERIFY2(bad.error().message.find("$.training.preserve_rng_state") != std::string::npos,
             bad.error().message.c_str());

    const Graph g = lowerOrDie(m);
    const Plan full = planOf(g, m, *parseStrategy("full"), m.training);
    auto off = compile(g, full, m.training);
    QVERIFY(off);
    QVERIFY(off->gradientsWillDiffer());
    QVERIFY(anyContains(off->unsafeReasons, "does not preserve the RNG state"));
    m.training.preserveRngState = true;
    auto on = compile(g, full, m.training);
    QVERIFY(on);
    QVERIFY(!on->unsafe());
    // Megatron-LM always restores the RNG state: the combination is refused with the reason.
    m.training.preserveRngState = false;
    m.training.recomputeImpl = RecomputeImpl::Megatron;
    auto megatron = compile(g, full, m.training);
    QVERIFY(!megatron);
    QVERIFY(megatron.error().message.find("does not preserve the RNG state") != std::string::npos);
}

QTEST_MAIN(TestInplaceVerdict)
#include "tst_inplace_verdict.moc"
