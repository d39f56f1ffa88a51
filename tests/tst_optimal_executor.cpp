// Optimal, nested-optimal and Revolve plans of small networks run for real on the CPU reference
// executor: at a sweep of budgets the measured live bytes equal the prediction at every
// instruction, the measured peak is within the budget, and the parameter gradients and losses
// are bitwise equal to the run without checkpointing (same seed, same data).
#include <QtTest/QtTest>

#include "backends.h"
#include "model_file.h"
#include "optimal.h"
#include "optimal_nested.h"
#include "optimal_test_support.h"
#include "revolve.h"
#include "verification.h"

using namespace remat;
using namespace remat::test;

class TestOptimalExecutor : public QObject {
    Q_OBJECT

    static Measurement run(Executor& ex, const Graph& g, const Program& p) {
        auto m = ex.execute(g, p, ExecuteOptions{});
        if (!m) qFatal("execute: %s", m.error().message.c_str());
        return std::move(*m);
    }

    // Runs one verified plan and holds it to prediction, budget and the reference gradients.
    static void checkRun(Executor& ex, const Graph& g, const VerifiedPlan& v,
                         const Measurement& reference, std::int64_t budget, const std::string& what) {
        const Measurement m = run(ex, g, v.program);
        const LiveBytesDifference d = compareLiveBytes(v.timeline, m);
        QVERIFY2(d.sameLength && d.maxAbsBytes == 0 && d.maxAbsCategoryBytes == 0, what.c_str());
        QVERIFY2(m.peakBytes <= budget, what.c_str());
        auto c = compareGradients(reference, m);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QVERIFY(c->parameters > 0);
        if (!c->bitwiseEqual)
            qWarning("%s: gradients differ by %g in %s", what.c_str(), c->maxAbsDiff,
                     c->worstParameter.c_str());
        QVERIFY2(c->bitwiseEqual, what.c_str());
        QCOMPARE(m.losses, reference.losses);
    }

    static void sweep(const Network& net, const TrainingConfig& cfg, int& runs) {
        auto ex = makeExecutor("cpu");
        QVERIFY(ex.ok());
        DeviceSpec d = optimalTestDevice();
        d.gemmWorkspaceBytes = 0;  // the CPU backend keeps no GEMM library workspace
        Graph g = lowerOrDie(net, cfg.precision);
        Plan none;
        auto base = compile(g, none, cfg, compileOptionsFor(d));
        QVERIFY(base.ok());
        const Measurement reference = run(**ex, g, *base);
        const std::int64_t hi = simulate(g, *base, d).peakBytes;
        auto m = ChainModel::build(g, cfg, d);
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
        const std::int64_t lo = OptimalPlanner(*m).minimumPeak().predictedPeakBytes;
        for (int k = 0; k <= 4; ++k) {
            const std::int64_t budget = lo + (hi - lo) * k / 4;
            auto flat = planOptimal(g, cfg, d, budget);
            QVERIFY2(flat.ok(), flat.ok() ? "" : flat.error().message.c_str());
            checkRun(**ex, g, *flat, reference, budget, net.name + " " + flat->plan.strategy);
            auto nested = planOptimalNested(g, cfg, d, budget);
            QVERIFY2(nested.ok(), nested.ok() ? "" : nested.error().message.c_str());
            checkRun(**ex, g, *nested, reference, budget, net.name + " " + nested->plan.strategy);
            runs += 2;
        }
        for (std::int64_t c = 1; c <= std::int64_t(g.chain.size()); ++c) {
            auto plan = planRevolve(g, c);
            QVERIFY(plan.ok());
            // Revolve places regions by position alone; where one would start at an in-place
            // op the compiler marks the program unsafe and the executor would refuse it.
            auto program = compile(g, *plan, cfg, compileOptionsFor(d));
            QVERIFY(program.ok());
            if (program->unsafe()) continue;
            auto v = verifyPlan(g, *plan, cfg, d, std::int64_t{1} << 50, -1, "revolve");
            QVERIFY2(v.ok(), v.ok() ? "" : v.error().message.c_str());
            checkRun(**ex, g, *v, reference, std::int64_t{1} << 50, net.name + " " + plan->strategy);
            ++runs;
        }
    }

private slots:
    void mlps() {
        std::mt19937 rng(51);
        int runs = 0;
        for (int trial = 0; trial < 5; ++trial) {
            TrainingConfig cfg = randomTraining(rng);
            sweep(randomMlp(rng, 4 + trial), cfg, runs);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d plans run", runs);
    }

    void transformers() {
        std::mt19937 rng(52);
        int runs = 0;
        for (int trial = 0; trial < 3; ++trial) {
            TrainingConfig cfg = randomTraining(rng);
            Network net = randomTransformer(rng, 2 + trial);
            for (Layer& l : net.layers) l.attention = AttentionImpl::Eager;  // CPU executor's set
            sweep(net, cfg, runs);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d plans run", runs);
    }

    void gpt2Tiny() {
        auto model = loadModel("gpt2-tiny");
        QVERIFY(model.ok());
        int runs = 0;
        TrainingConfig cfg = model->training;
        cfg.microBatch = 2;
        sweep(model->network, cfg, runs);
        qInfo("%d plans run", runs);
    }
};

QTEST_GUILESS_MAIN(TestOptimalExecutor)
#include "tst_optimal_executor.moc"
