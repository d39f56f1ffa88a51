// The single-level optimal planner (`optimal:BUDGET`) against brute force: for random chains of
// up to 12 elements (MLPs of linear + activation layers of random widths, with in-place
// activations, norms and dropout; heterogeneous transformer stacks; residual networks) every
// single-level plan is compiled and simulated, and for a sweep of budgets through every
// distinct simulated peak the planner's recompute time equals the least recompute time among
// the safe plans whose simulated peak fits, every time; its own plan simulates within budget.
// Also: budget spellings, infeasible budgets explained, presets end to end, the strategy API.
#include "test_scale.h"
#include <QtTest/QtTest>
#include <map>

#include "analysis.h"
#include "model_file.h"
#include "optimal_nested.h"
#include "optimal.h"
#include "optimal_budget.h"
#include "optimal_test_support.h"
#include "report.h"
#include "strategy.h"

using namespace remat;
using namespace remat::test;

namespace {

struct PlanOutcome {
    std::int64_t peakBytes;
    double recomputeTimeS;
};

// Every single-level plan's simulated outcome (unsafe plans left out).
std::vector<PlanOutcome> bruteForce(const Graph& g, const ChainModel& m, const TrainingConfig& cfg,
                                    const DeviceSpec& d, int& unsafePlans) {
    std::vector<PlanOutcome> out;
    forEachSingleLevelPlan(
        m,
        [&](const std::vector<UnitSegment>& segs) {
            Simulated s = simulatePlan(g, m.toPlan(segs, "brute"), cfg, d);
            if (s.unsafe) {
                ++unsafePlans;
                return;
            }
            out.push_back(PlanOutcome{s.peakBytes, s.recomputeTimeS});
        },
        /*safeOnly=*/false);
    return out;
}

}  // namespace

class TestOptimal : public QObject {
    Q_OBJECT

    // Compares planner and brute force on one network at every budget of interest.
    static void compareWithBruteForce(const Network& net, const TrainingConfig& cfg, int& cases,
                                      int& plans) {
        const DeviceSpec d = optimalTestDevice();
        Graph g = lowerOrDie(net, cfg.precision);
        auto m = ChainModel::build(g, cfg, d);
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
        Plan none;
        QVERIFY(!simulatePlan(g, none, cfg, d).unsafe);
        int unsafe = 0;
        const std::vector<PlanOutcome> all = bruteForce(g, *m, cfg, d, unsafe);
        plans += int(all.size()) + unsafe;
        // Budgets: every distinct peak, one byte below each, and beyond both ends.
        std::map<std::int64_t, double> best;  // peak -> least time among plans with that peak
        for (const PlanOutcome& p : all) {
            auto it = best.find(p.peakBytes);
            if (it == best.end() || p.recomputeTimeS < it->second) best[p.peakBytes] = p.recomputeTimeS;
        }
        std::vector<std::int64_t> budgets;
        for (const auto& [peak, t] : best) {
            budgets.push_back(peak);
            budgets.push_back(peak - 1);
        }
        budgets.push_back(best.rbegin()->first + 12345);
        OptimalPlanner planner(*m);
        QCOMPARE(planner.minimumPeak().predictedPeakBytes, best.begin()->first);
        for (std::int64_t budget : budgets) {
            double bruteTime = std::numeric_limits<double>::infinity();
            for (const auto& [peak, t] : best)
                if (peak <= budget) bruteTime = std::min(bruteTime, t);
            auto sol = planner.solve(budget);
            // The bounded search (a beam plan's time bounds the states kept) finds the same.
            OptimalPlanner bounded(*m);
            bounded.setBoundedSearch(OptimalPlanner::BoundedSearch::Always);
            auto solB = bounded.solve(budget);
            QCOMPARE(solB.has_value(), sol.has_value());
            if (sol) QVERIFY(closeTime(solB->recomputeTimeS, sol->recomputeTimeS));
            ++cases;
            if (std::isinf(bruteTime)) {
                QVERIFY2(!sol, (net.name + ": planner found a plan below every plan's peak").c_str());
                continue;
            }
            QVERIFY2(sol.has_value(), (net.name + ": no plan at budget " + std::to_string(budget)).c_str());
            if (!closeTime(sol->recomputeTimeS, bruteTime))
                qWarning("%s budget %lld: planner %.12g s, brute force %.12g s", net.name.c_str(),
                         (long long)budget, sol->recomputeTimeS, bruteTime);
            QVERIFY(closeTime(sol->recomputeTimeS, bruteTime));
            Simulated s = simulatePlan(g, m->toPlan(sol->segments, "optimal"), cfg, d);
            QVERIFY(s.peakBytes <= budget);
            QCOMPARE(s.peakBytes, sol->predictedPeakBytes);
            QVERIFY(closeTime(s.recomputeTimeS, sol->recomputeTimeS));
            QVERIFY(!s.unsafe);
        }
    }

private slots:
    void bruteForceMlps() {
        std::mt19937 rng(21);
        int cases = 0, plans = 0;
        // Mostly short chains (cheap to enumerate), then 11 and the full 12 elements.
        const int lengths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                               3, 4, 5, 6, 7, 8, 9, 11, 12};
        for (int n : lengths) {
            // Enumeration grows as 2^n: chains past 6 elements run in optimised builds only.
            if (remat::test::kReducedSweeps && n > 6) continue;
            compareWithBruteForce(randomMlp(rng, n), randomTraining(rng), cases, plans);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d budgets over %d simulated plans", cases, plans);
    }

    void bruteForceTransformers() {
        std::mt19937 rng(22);
        int cases = 0, plans = 0;
        for (int trial = 0; trial < remat::test::sweepCount(16); ++trial) {
            compareWithBruteForce(randomTransformer(rng, 1 + trial % 8), randomTraining(rng), cases,
                                  plans);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d budgets over %d simulated plans", cases, plans);
    }

    void bruteForceResNets() {
        std::mt19937 rng(23);
        int cases = 0, plans = 0;
        for (int trial = 0; trial < remat::test::sweepCount(8); ++trial) {
            compareWithBruteForce(randomResNet(rng, 1 + trial % 6), randomTraining(rng), cases, plans);
            if (QTest::currentTestFailed()) return;
        }
        qInfo("%d budgets over %d simulated plans", cases, plans);
    }

    void budgetSpellings() {
        QCOMPARE(*parseByteSize("40GiB"), std::int64_t{40} << 30);
        QCOMPARE(*parseByteSize("512MB"), std::int64_t{512000000});
        QCOMPARE(*parseByteSize("1.5TiB"), std::int64_t{3} << 39);
        QCOMPARE(*parseByteSize("1073741824"), std::int64_t{1} << 30);
        QCOMPARE(*parseByteSize("2.5 gb"), std::int64_t{2500000000});
        QCOMPARE(*parseByteSize("0.1KiB"), std::int64_t{102});
        QVERIFY(!parseByteSize("").ok());
        QVERIFY(!parseByteSize("GiB").ok());
        QVERIFY(!parseByteSize("12 parsecs").ok());
        QVERIFY(!parseByteSize("0").ok());
        QVERIFY(!parseByteSize("5PiB").ok());
        for (std::int64_t b : {std::int64_t{1}, std::int64_t{1023}, std::int64_t{40} << 30,
                               (std::int64_t{40} << 30) + 1, std::int64_t{7} << 40})
            QCOMPARE(*parseByteSize(byteSizeSpelling(b)), b);
        auto s = parseStrategy("optimal:40GiB");
        QVERIFY(s.ok());
        QCOMPARE(int(s->kind), int(StrategyKind::Optimal));
        QCOMPARE(s->budgetBytes, std::int64_t{40} << 30);
        QCOMPARE(s->spelling(), std::string("optimal:40GiB"));
        QCOMPARE(parseStrategy("optimal-nested:512MB")->spelling(),
                 std::string("optimal-nested:512MB"));
        QCOMPARE(parseStrategy("revolve:4")->k, std::int64_t{4});
        QVERIFY(!parseStrategy("optimal").ok());
        QVERIFY(!parseStrategy("optimal:lots").ok());
        QVERIFY(!parseStrategy("revolve:0").ok());
    }

    // The strategy API: without training settings and device the optimal planners refuse.
    void strategyNeedsContext() {
        auto model = loadModel("gpt2-tiny");
        QVERIFY(model.ok());
        Graph g = lowerOrDie(model->network, model->training.precision);
        auto s = parseStrategy("optimal:1GiB");
        QVERIFY(!makePlan(g, *s).ok());
        const DeviceSpec d = *findDevice("a100-80gb");
        auto plan = makePlan(g, *s, PlanContext{{}, &model->training, &d});
        QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
        QCOMPARE(plan->strategy, std::string("optimal:1GiB"));
    }

    // Presets: sweep budgets from the smallest feasible peak to no checkpointing; every plan is
    // verified by simulation inside planOptimal; the answer improves monotonically.
    void presetsEndToEnd() {
        for (const std::string& name : {std::string("gpt2-small"), std::string("gpt3-175b"),
                                        std::string("llama-7b"), std::string("resnet-101"),
                                        std::string("gpt2-tiny"), std::string("mlp-3x1024")}) {
            auto model = loadModel(name);
            QVERIFY(model.ok());
            const DeviceSpec d = *findDevice(model->device.empty() ? "a100-80gb" : model->device);
            const TrainingConfig cfg = model->training;
            Graph g = lowerOrDie(model->network, cfg.precision);
            auto m = ChainModel::build(g, cfg, d);
            QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
            OptimalPlanner planner(*m);
            const std::int64_t lo = planner.minimumPeak().predictedPeakBytes;
            Plan none;
            const std::int64_t hi = simulatePlan(g, none, cfg, d).peakBytes;
            QVERIFY(lo <= hi);
            double previous = std::numeric_limits<double>::infinity();
            for (int step = 0; step <= 10; ++step) {
                const std::int64_t budget = lo + (hi - lo) * step / 10;
                auto v = planOptimal(g, cfg, d, budget);
                QVERIFY2(v.ok(), v.ok() ? "" : v.error().message.c_str());
                QVERIFY(v->timeline.peakBytes <= budget);
                QVERIFY(v->timeline.timeS.recompute <= previous * (1 + 1e-12));
                previous = v->timeline.timeS.recompute;
            }
            QCOMPARE(previous, 0.0);  // at the no-checkpointing peak nothing is recomputed
            QVERIFY(!planOptimal(g, cfg, d, lo - 1).ok());
        }
    }

    // A cancel flag set from another thread stops the planners, the compiler, the simulator and
    // the whole evaluation with "cancelled", never with a plan or an "infeasible" message; a
    // flag left clear changes nothing.
    void cancelFlagStopsTheWork() {
        auto model = loadModel("gpt2-small");
        QVERIFY(model.ok());
        const DeviceSpec d = *findDevice("a100-80gb");
        const TrainingConfig cfg = model->training;
        Graph g = lowerOrDie(model->network, cfg.precision);
        auto m = ChainModel::build(g, cfg, d);
        QVERIFY(m.ok());
        const std::int64_t mid = OptimalPlanner(*m).minimumPeak().predictedPeakBytes * 3 / 2;
        CancelFlag clear{false}, set{true};
        auto planned = planOptimal(g, cfg, d, mid, &clear);
        QVERIFY2(planned.ok(), planned.ok() ? "" : planned.error().message.c_str());
        QCOMPARE(planned->timeline.peakBytes, planOptimal(g, cfg, d, mid)->timeline.peakBytes);
        for (auto r : {planOptimal(g, cfg, d, mid, &set),
                       planOptimalNested(g, cfg, d, mid, kDefaultNestedSlots, &set),
                       planOptimal(g, cfg, d, 1, &set)}) {
            QVERIFY(!r.ok());
            QCOMPARE(r.error().message, std::string(kCancelledMessage));
        }
        CompileOptions options = compileOptionsFor(d);
        options.cancel = &set;
        auto program = compile(g, planned->plan, cfg, options);
        QVERIFY(!program.ok());
        QCOMPARE(program.error().message, std::string(kCancelledMessage));
        for (const char* spelling : {"none", "full", "sqrt", "revolve:2"}) {
            auto e = evaluate(g, *parseStrategy(spelling), {}, cfg, d, nullptr, &set);
            QVERIFY(!e.ok());
            QCOMPARE(e.error().message, std::string(kCancelledMessage));
            QVERIFY(evaluate(g, *parseStrategy(spelling), {}, cfg, d, nullptr, &clear).ok());
        }
        // The simulator stops early: its timeline is incomplete (callers discard it).
        const Timeline whole = simulate(g, planned->program, d);
        const Timeline stopped = simulate(g, planned->program, d, &set);
        QVERIFY(stopped.timeS.total() < whole.timeS.total());
        QCOMPARE(simulate(g, planned->program, d, &clear).peakBytes, whole.peakBytes);
    }

    // A budget no plan meets: the smallest peak and what dominates it.
    void infeasibleBudgetIsExplained() {
        auto model = loadModel("gpt3-175b");
        QVERIFY(model.ok());
        const DeviceSpec d = *findDevice("h100-80gb-sxm");
        Graph g = lowerOrDie(model->network, model->training.precision);
        auto r = planOptimal(g, model->training, d, std::int64_t{80} << 30);
        QVERIFY(!r.ok());
        const std::string& msg = r.error().message;
        qInfo("%s", msg.c_str());
        QVERIFY(msg.find("cannot be met") != std::string::npos);
        QVERIFY(msg.find("smallest peak any single-level plan reaches at micro-batch") !=
                std::string::npos);
        QVERIFY(msg.find("model states alone (parameters, gradients, optimizer state) take") !=
                std::string::npos);
        QVERIFY(msg.find("TiB") != std::string::npos);
        // Activations are not the problem here: no nested plan is suggested.
        QVERIFY(msg.find("optimal-nested") == std::string::npos);

        auto tiny = loadModel("gpt2-small");
        Graph g2 = lowerOrDie(tiny->network, tiny->training.precision);
        auto m = ChainModel::build(g2, tiny->training, d);
        OptimalPlanner planner(*m);
        auto r2 = planOptimal(g2, tiny->training, d, planner.minimumPeak().predictedPeakBytes - 1);
        QVERIFY(!r2.ok());
        qInfo("%s", r2.error().message.c_str());
        const std::string& msg2 = r2.error().message;
        // The smallest budget that works, in the planner's unit, pasted back, works.
        const auto from = msg2.find(", so optimal:");
        QVERIFY2(from != std::string::npos, msg2.c_str());
        const auto begin = from + std::string(", so optimal:").size();
        const std::string suggested = msg2.substr(begin, msg2.find(' ', begin) - begin);
        auto bytes = parseByteSize(suggested);
        QVERIFY2(bytes.ok(), suggested.c_str());
        QVERIFY2(planOptimal(g2, tiny->training, d, *bytes).ok(), suggested.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOptimal)
#include "tst_optimal.moc"
