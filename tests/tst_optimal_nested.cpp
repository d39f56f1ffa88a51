// The nested optimal planner (`optimal-nested:BUDGET`). Its exact model (evaluateNested) equals
// compile() + simulate() for random nested plans of random networks; with one-byte memory slots
// the dynamic program's optimum equals exhaustive search over every nested plan (each compiled
// and simulated) on chains of up to 6 elements at a sweep of budgets; on homogeneous chains it
// needs no more forward steps than Revolve's closed form at Revolve's own peak; at the default
// 500 slots its plans fit (verified by simulation) and never cost more than the single-level
// optimum. Sanitizer and debug builds run the shorter chains of these sweeps (test_scale.h).
#include <QtTest/QtTest>
#include <map>

#include "model_file.h"
#include "optimal.h"
#include "optimal_nested.h"
#include "optimal_test_support.h"
#include "revolve.h"
#include "strategy.h"
#include "test_scale.h"

using namespace remat;
using namespace remat::test;

namespace {

// Every nested plan over the model's units: each level is a sequence of kept units and regions
// (chain element to chain element), each region holding a nested plan of its own range.
void forEachNestedPlan(const ChainModel& m,
                       const std::function<void(const std::vector<NestedRegion>&)>& visit) {
    std::vector<NestedRegion> acc;
    std::function<void(int, int, int, int, const std::function<void()>&)> level =
        [&](int u, int last, int parentFirst, int parentLast, const std::function<void()>& done) {
            if (u > last) {
                done();
                return;
            }
            level(u + 1, last, parentFirst, parentLast, done);
            if (m.units()[std::size_t(u)].kind != UnitKind::ChainElement) return;
            for (int l = u; l <= last && m.regionMember(l); ++l) {
                if (!m.canEndRegion(l) || (u == parentFirst && l == parentLast)) continue;
                acc.push_back(NestedRegion{u, l});
                level(u, l, u, l, [&] { level(l + 1, last, parentFirst, parentLast, done); });
                acc.pop_back();
            }
        };
    level(0, m.unitCount() - 1, -1, -1, [&] { visit(acc); });
}

// One-byte slots: the program is exact.
int exactSlots(const ChainModel& m, std::int64_t budget) {
    return int(std::max<std::int64_t>(1, budget - m.constantBytes()));
}

}  // namespace

class TestOptimalNested : public QObject {
    Q_OBJECT

    static bool checkPlan(const Graph& g, const ChainModel& m, const TrainingConfig& cfg,
                          const DeviceSpec& d, const std::vector<NestedRegion>& regions,
                          const std::string& what) {
        auto pred = evaluateNested(m, regions);
        if (!pred) {
            qWarning("%s: %s", what.c_str(), pred.error().message.c_str());
            return false;
        }
        Simulated sim = simulatePlan(g, nestedToPlan(m, regions, "test"), cfg, d);
        if (pred->predictedPeakBytes != sim.peakBytes ||
            !closeTime(pred->recomputeTimeS, sim.recomputeTimeS)) {
            std::string text;
            for (const auto& r : regions)
                text += " [" + std::to_string(r.first) + "-" + std::to_string(r.last) + "]";
            qWarning("%s:%s predicted %lld B / %.12g s, simulated %lld B / %.12g s", what.c_str(),
                     text.c_str(), (long long)pred->predictedPeakBytes, pred->recomputeTimeS,
                     (long long)sim.peakBytes, sim.recomputeTimeS);
            return false;
        }
        return true;
    }

    static Network randomNetwork(std::mt19937& rng, int trial, int elements) {
        switch (trial % 3) {
            case 0: return randomMlp(rng, elements);
            case 1: return randomTransformer(rng, elements);
            default: return randomResNet(rng, elements);
        }
    }

private slots:
    // The exact model of nested plans against the simulator: every nested plan of small chains.
    void modelMatchesSimulatorOnEveryNestedPlan() {
        std::mt19937 rng(41);
        const DeviceSpec d = optimalTestDevice();
        int plans = 0;
        for (int trial = 0; trial < 18; ++trial) {
            Network net = randomNetwork(rng, trial, 1 + trial % 5);
            TrainingConfig cfg = randomTraining(rng);
            Graph g = lowerOrDie(net, cfg.precision);
            auto m = ChainModel::build(g, cfg, d);
            QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
            QVERIFY(m->nestedLimitation().empty());
            bool ok = true;
            forEachNestedPlan(*m, [&](const std::vector<NestedRegion>& regions) {
                if (!ok) return;
                for (const auto& r : regions)
                    if (!m->canStartRegion(r.first)) return;
                ok = checkPlan(g, *m, cfg, d, regions, net.name);
                ++plans;
            });
            QVERIFY(ok);
        }
        qInfo("%d nested plans compared", plans);
    }

    // The program's optimum (one-byte slots) equals exhaustive search over nested plans.
    void exhaustiveSearch() {
        std::mt19937 rng(42);
        const DeviceSpec d = optimalTestDevice();
        int budgetsChecked = 0, plans = 0;
        // (kind, chain length): 0 MLP, 1 transformer stack, 2 residual network.
        // (A six-block transformer has 8 units and ~10x the nested plans of five blocks: 16 s of
        // enumeration for no new case, so the six-element chain is the MLP's.)
        const std::pair<int, int> cases[] = {{0, 1}, {0, 2}, {0, 4}, {0, 6}, {1, 1}, {1, 3},
                                             {1, 5}, {2, 2}, {2, 4}, {2, 5}};
        for (const auto& [kind, length] : cases) {
            // Sanitizer and debug builds stop at four-element chains (the release pass runs all).
            if (kReducedSweeps && length > 4) continue;
            Network net = randomNetwork(rng, kind, length);
            TrainingConfig cfg = randomTraining(rng);
            Graph g = lowerOrDie(net, cfg.precision);
            auto m = ChainModel::build(g, cfg, d);
            QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
            std::map<std::int64_t, double> best;  // simulated peak -> least recompute time
            forEachNestedPlan(*m, [&](const std::vector<NestedRegion>& regions) {
                Simulated s = simulatePlan(g, nestedToPlan(*m, regions, "x"), cfg, d);
                ++plans;
                if (s.unsafe) return;
                auto it = best.find(s.peakBytes);
                if (it == best.end() || s.recomputeTimeS < it->second) best[s.peakBytes] = s.recomputeTimeS;
            });
            // Budgets: a spread of the distinct peaks, each also one byte lower.
            std::vector<std::int64_t> peaks;
            for (const auto& [p, t] : best) peaks.push_back(p);
            std::vector<std::int64_t> budgets;
            const std::size_t step = std::max<std::size_t>(1, peaks.size() / 12);
            for (std::size_t i = 0; i < peaks.size(); i += step) {
                budgets.push_back(peaks[i]);
                budgets.push_back(peaks[i] - 1);
            }
            budgets.push_back(peaks.back());
            for (std::int64_t budget : budgets) {
                double brute = std::numeric_limits<double>::infinity();
                for (const auto& [p, t] : best)
                    if (p <= budget) brute = std::min(brute, t);
                auto sol = solveNested(*m, budget, exactSlots(*m, budget));
                ++budgetsChecked;
                if (std::isinf(brute)) {
                    QVERIFY(!sol);
                    continue;
                }
                QVERIFY2(sol.has_value(), (net.name + ": no nested plan at " + std::to_string(budget)).c_str());
                if (!closeTime(sol->recomputeTimeS, brute))
                    qWarning("%s (%d units) budget %lld: program %.12g s, exhaustive %.12g s",
                             net.name.c_str(), m->unitCount(), (long long)budget,
                             sol->recomputeTimeS, brute);
                QVERIFY(closeTime(sol->recomputeTimeS, brute));
                Simulated s = simulatePlan(g, nestedToPlan(*m, sol->regions, "x"), cfg, d);
                QCOMPARE(s.peakBytes, sol->predictedPeakBytes);
                QVERIFY(s.peakBytes <= budget);
            }
        }
        qInfo("%d budgets over %d simulated nested plans", budgetsChecked, plans);
    }

    // Homogeneous chains (one transformer block repeated, small head so the chain sets the
    // peak): at the peak of Revolve's plan with c slots, the nested optimum recomputes exactly
    // what Revolve does when every parameter gradient is resident from the start (accumulation
    // steps >= 2, so the memory beside the chain is the same at every instant, Revolve's
    // premise); with one micro-step the gradients grow during backward, leaving room early in
    // the backward pass that the program uses, so it never does worse and often better.
    void againstRevolve() {
        const DeviceSpec d = optimalTestDevice();
        int equal = 0, cheaper = 0;
        for (int accum : {2, 1})
            for (int l : {4, 6, 8, 10}) {
                if (kReducedSweeps && l > 6) continue;
                std::mt19937 rng(7);
                Network net = randomTransformer(rng, 1);
                net.input.vocab = 8;
                net.input.tokens = 16;
                net.layers[0].positions = 16;
                net.layers[0].dropout = 0.0;
                net.layers[1].repeat = l;
                net.layers[3].out = 8;
                TrainingConfig cfg;
                cfg.microBatch = 2;
                cfg.accumulationSteps = accum;
                Graph g = lowerOrDie(net, cfg.precision);
                auto m = ChainModel::build(g, cfg, d);
                QVERIFY(m.ok());
                for (int c = 1; c < l; ++c) {
                    auto plan = planRevolve(g, c);
                    QVERIFY(plan.ok());
                    Simulated rev = simulatePlan(g, *plan, cfg, d);
                    auto sol = solveNested(*m, rev.peakBytes, exactSlots(*m, rev.peakBytes));
                    QVERIFY(sol.has_value());
                    if (accum >= 2) {
                        if (!closeTime(sol->recomputeTimeS, rev.recomputeTimeS))
                            qWarning("l=%d c=%d: nested %.12g s, Revolve %.12g s", l, c,
                                     sol->recomputeTimeS, rev.recomputeTimeS);
                        QVERIFY(closeTime(sol->recomputeTimeS, rev.recomputeTimeS));
                        ++equal;
                    } else {
                        QVERIFY(sol->recomputeTimeS <= rev.recomputeTimeS * (1 + 1e-12));
                        if (!closeTime(sol->recomputeTimeS, rev.recomputeTimeS)) ++cheaper;
                    }
                }
            }
        qInfo("equal to Revolve in %d cases (resident gradients); cheaper in %d cases with "
              "growing gradients", equal, cheaper);
    }

    // Default slots on presets and longer random chains: plans verified by simulation, never
    // worse than the single-level optimum.
    void defaultSlots() {
        std::mt19937 rng(43);
        for (int trial = 0; trial < 6; ++trial) {
            const DeviceSpec d = optimalTestDevice();
            Network net = trial % 2 ? randomTransformer(rng, 10 + trial) : randomMlp(rng, 30 + trial);
            TrainingConfig cfg = randomTraining(rng);
            Graph g = lowerOrDie(net, cfg.precision);
            auto m = ChainModel::build(g, cfg, d);
            QVERIFY(m.ok());
            OptimalPlanner single(*m);
            Plan none;
            const std::int64_t lo = single.minimumPeak().predictedPeakBytes;
            const std::int64_t hi = simulatePlan(g, none, cfg, d).peakBytes;
            for (int k = 0; k <= 8; ++k) {
                const std::int64_t budget = lo + (hi - lo) * k / 8;
                auto v = planOptimalNested(g, cfg, d, budget);
                QVERIFY2(v.ok(), v.ok() ? "" : v.error().message.c_str());
                QVERIFY(v->timeline.peakBytes <= budget);
                auto flat = single.solve(budget);
                QVERIFY(flat.has_value());
                QVERIFY(v->timeline.timeS.recompute <= flat->recomputeTimeS * (1 + 1e-12));
            }
        }
        for (const std::string& name : {std::string("gpt2-small"), std::string("resnet-101")}) {
            auto model = loadModel(name);
            const DeviceSpec d = *findDevice(model->device);
            Graph g = lowerOrDie(model->network, model->training.precision);
            auto m = ChainModel::build(g, model->training, d);
            OptimalPlanner single(*m);
            const std::int64_t lo = single.minimumPeak().predictedPeakBytes;
            auto v = planOptimalNested(g, model->training, d, lo);
            QVERIFY2(v.ok(), v.ok() ? "" : v.error().message.c_str());
            QVERIFY(v->timeline.peakBytes <= lo);
        }
    }
};

QTEST_GUILESS_MAIN(TestOptimalNested)
#include "tst_optimal_nested.moc"
