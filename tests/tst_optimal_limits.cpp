// The optimal planners' work bounds (sim/optimal_limits.h): a request whose search is too large
// is refused with the estimate and the largest supported before any search starts (a GPT-2
// shaped chain of 1,996 blocks once searched for minutes), the nested program's tables
// likewise, and a single-level search or a frontier that passes its merge-step or
// verification limit stops with how far it got. Below the limits nothing changes: the plan
// found under a limit equal to the search's own work is the unlimited plan. No duration is
// asserted: every bound is a count.
#include <QtTest/QtTest>
#include <optional>

#include "analysis.h"
#include "deep_model.h"
#include "lower.h"
#include "model_file.h"
#include "optimal.h"
#include "optimal_limits.h"
#include "optimal_nested.h"
#include "pareto.h"
#include "strategy.h"

using namespace remat;

namespace {

struct Case {
    ModelFile file;
    Graph graph;
    DeviceSpec device;
    std::optional<ChainModel> model;
};

Case lowered(const ModelFile& m) {
    Case c;
    c.file = m;
    auto g = lower(m.network, m.training.precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    c.graph = std::move(*g);
    c.device = *findDevice(m.device.empty() ? "a100-80gb" : m.device);
    auto model = ChainModel::build(c.graph, m.training, c.device);
    if (!model) qFatal("%s", model.error().message.c_str());
    c.model = std::move(*model);
    return c;
}

std::int64_t nonePeak(const Case& c) {
    std::vector<UnitSegment> kept;
    for (int u = 0; u < c.model->unitCount(); ++u) kept.push_back(UnitSegment{u, u, false});
    return c.model->predict(kept)->peakBytes;
}

}  // namespace

class TstOptimalLimits : public QObject {
    Q_OBJECT
private slots:
    // The estimate's "segment choices" are the transitions the dynamic program considers: one
    // kept unit per boundary plus every region the planner's scan finds valid.
    void searchSizeCountsTheProgramsChoices() {
        for (const char* preset : {"gpt2-small", "gpt3-175b", "llama-7b", "resnet-101"}) {
            const Case c = lowered(*loadModel(preset));
            const ChainModel& m = *c.model;
            std::int64_t choices = 0;
            for (int a = 0; a < m.unitCount(); ++a) {
                ++choices;
                if (!m.canStartRegion(a)) continue;
                RegionScan scan(m, a);
                while (scan.extend())
                    if (scan.current().valid) ++choices;
            }
            const SearchSize s = singleLevelSearchSize(m);
            QCOMPARE(s.units, std::int64_t(m.unitCount()));
            QCOMPARE(s.choices, choices);
            QCOMPARE(s.steps, s.units * s.choices);
            QVERIFY2(s.steps <= kMaxOptimalSearchSteps, preset);
        }
    }

    // GPT-2 tiny stretched to 2,000 layer instances: 1,996 blocks, 1,998 units (embedding and
    // head fixed), 1,998 kept choices + 1,996 x 1,997 / 2 regions. Every entry to the
    // single-level search refuses it with those numbers.
    void hugeChainIsRefusedBeforeTheSearch() {
        const Case c = lowered(test::presetWithInstances(2000, "gpt2-tiny"));
        const SearchSize s = singleLevelSearchSize(*c.model);
        QCOMPARE(s.units, std::int64_t{1998});
        QCOMPARE(s.choices, std::int64_t{1998} + std::int64_t{1996} * 1997 / 2);
        QCOMPARE(s.steps, std::int64_t{1998} * s.choices);
        QVERIFY(s.steps > kMaxOptimalSearchSteps);
        const std::string numbers =
            " a chain of 1998 units with 1995004 segment choices needs a search of about "
            "3986017992 steps (units x choices); the largest search supported has 300000000";
        // A budget that needs a search: between the smallest reachable peak and no checkpointing.
        const OptimalPlanner planner(*c.model);
        const std::int64_t budget =
            (planner.minimumPeak().predictedPeakBytes + nonePeak(c)) / 2;
        QVERIFY(planner.searches(budget));
        const TrainingConfig& cfg = c.file.training;

        auto single = planOptimal(c.graph, cfg, c.device, budget);
        QVERIFY(!single);
        QVERIFY2(single.error().message.rfind("optimal:" + numbers, 0) == 0,
                 single.error().message.c_str());

        auto nested = planOptimalNested(c.graph, cfg, c.device, budget);
        QVERIFY(!nested);
        QVERIFY2(nested.error().message.rfind("optimal-nested:" + numbers, 0) == 0,
                 nested.error().message.c_str());

        auto frontier = computeTradeoff(c.graph, cfg, c.device);
        QVERIFY(!frontier);
        QVERIFY2(frontier.error().message.rfind("the optimal frontier:" + numbers, 0) == 0,
                 frontier.error().message.c_str());

        auto fit = fitOptimal(c.graph, cfg, c.device, 0);
        QVERIFY(!fit);
        QVERIFY2(fit.error().message.rfind("the micro-batch search:" + numbers, 0) == 0,
                 fit.error().message.c_str());

        // Through the strategy, as the CLI and the desktop app plan it.
        auto strategy = parseStrategy("optimal:" + std::to_string(budget));
        QVERIFY(strategy.ok());
        auto plan = makePlan(c.graph, *strategy, PlanContext{{}, &cfg, &c.device, nullptr});
        QVERIFY(!plan);
        QVERIFY2(plan.error().message.find(numbers) != std::string::npos,
                 plan.error().message.c_str());

        // A budget no checkpointing meets needs no search: the single-level planner answers.
        QVERIFY(!planner.searches(nonePeak(c)));
        auto none = planOptimal(c.graph, cfg, c.device, nonePeak(c));
        QVERIFY2(none.ok(), none ? "" : none.error().message.c_str());
        QVERIFY(none->plan.regions.empty());
    }

    // The nested program's tables grow with units^3 x slots: GPT-2 tiny with 160 blocks at the
    // default 500 slots is over the limit, at 100 slots it is planned.
    void nestedTablesAreRefusedBeforeTheSearch() {
        const Case c = lowered(test::presetWithInstances(164, "gpt2-tiny"));
        QCOMPARE(c.model->unitCount(), 162);
        const std::int64_t cells = nestedCells(*c.model, kDefaultNestedSlots);
        QCOMPARE(cells, std::int64_t{722884884});
        QCOMPARE(nestedCells(*c.model, 100), cells / 501 * 101);
        QVERIFY(singleLevelSearchSize(*c.model).steps <= kMaxOptimalSearchSteps);
        const std::int64_t budget = nonePeak(c) * 3 / 4;
        const TrainingConfig& cfg = c.file.training;
        auto refused = planOptimalNested(c.graph, cfg, c.device, budget);
        QVERIFY(!refused);
        QCOMPARE(refused.error().message,
                 std::string("optimal-nested: a chain of 162 units at 500 memory slots needs "
                             "about 722884884 table cells; the largest nested search supported "
                             "has 600000000. Use fewer layers (or blocks), or a strategy without "
                             "a search: every:K, sqrt, selective:KIND, revolve:C, or "
                             "optimal:BUDGET"));
        auto planned = planOptimalNested(c.graph, cfg, c.device, budget, 100);
        QVERIFY2(planned.ok(), planned ? "" : planned.error().message.c_str());
        QVERIFY(planned->timeline.peakBytes <= budget);
    }

    // A search stopped by its merge-step limit says so and returns nothing; one whose limit is
    // exactly its own work returns the unlimited plan, to the byte and the second.
    void searchStopsAtItsMergeStepLimit() {
        const Case c = lowered(test::presetWithInstances(52));  // GPT-2 small, 48 blocks
        const std::int64_t budget = nonePeak(c) / 2;
        const OptimalPlanner free(*c.model);
        const auto plan = free.solve(budget);
        QVERIFY(plan.has_value());
        QVERIFY(!free.lastSearchTooLarge());
        const std::int64_t work = std::int64_t(free.lastMergeSteps());
        QVERIFY(work > 1000);

        OptimalPlanner stopped(*c.model);
        stopped.setMergeStepLimit(work / 2);
        QVERIFY(!stopped.solve(budget).has_value());
        QVERIFY(stopped.lastSearchTooLarge());
        QVERIFY(std::int64_t(stopped.lastMergeSteps()) > work / 2);
        QVERIFY(std::int64_t(stopped.lastMergeSteps()) < work);
        QVERIFY(stopped.lastStopUnit() > 0 && stopped.lastStopUnit() <= c.model->unitCount());
        // The flag belongs to the last solve: a budget no checkpointing meets needs no search.
        QVERIFY(stopped.solve(nonePeak(c)).has_value());
        QVERIFY(!stopped.lastSearchTooLarge());

        OptimalPlanner exact(*c.model);
        exact.setMergeStepLimit(work);
        const auto same = exact.solve(budget);
        QVERIFY(same.has_value());
        QVERIFY(!exact.lastSearchTooLarge());
        QCOMPARE(same->predictedPeakBytes, plan->predictedPeakBytes);
        QCOMPARE(same->recomputeTimeS, plan->recomputeTimeS);
        QCOMPARE(same->segments.size(), plan->segments.size());
        for (std::size_t i = 0; i < same->segments.size(); ++i) {
            QCOMPARE(same->segments[i].first, plan->segments[i].first);
            QCOMPARE(same->segments[i].last, plan->segments[i].last);
            QCOMPARE(same->segments[i].region, plan->segments[i].region);
        }

        QCOMPARE(searchTooLargeMessage("optimal", 32000123, kMaxOptimalMergeSteps, 27, 50),
                 std::string("optimal: the search stopped at unit 27 of 50 after 32000123 steps, "
                             "more than the largest search supported (32000000). Use fewer "
                             "layers (or blocks), or a strategy without a search: every:K, sqrt, "
                             "selective:KIND, revolve:C"));
    }

    // GPT-2 small with 48 blocks: each solve is small, but the frontier has over a thousand
    // points; the walk shares one search's merge steps and stops when they run out.
    void frontierStopsAtItsLimit() {
        const Case c = lowered(test::presetWithInstances(52));
        QVERIFY(singleLevelSearchSize(*c.model).steps <= kMaxOptimalSearchSteps);
        auto t = computeTradeoff(c.graph, c.file.training, c.device);
        QVERIFY(!t);
        const std::string& message = t.error().message;
        QVERIFY2(message.rfind("the optimal frontier (", 0) == 0, message.c_str());
        QVERIFY2(message.find(" points so far): the search stopped at unit ") != std::string::npos,
                 message.c_str());
        QVERIFY2(message.find("more than the largest search supported (32000000)") != std::string::npos,
                 message.c_str());
    }
};

QTEST_GUILESS_MAIN(TstOptimalLimits)
#include "tst_optimal_limits.moc"
