// `remat compare`: every named strategy side by side.
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "report.h"
#include "table.h"

namespace remat::cli {

namespace {

int runCompare(const CommonOptions& o) {
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    auto base = evaluateBaseline(c->graph, c->training, c->device);
    if (!base) return userError(base.error().message);
    std::vector<Strategy> strategies = comparisonStrategies(c->graph);
    if (c->model.planForm == PlanForm::PerLayer || c->model.planForm == PlanForm::Regions)
        strategies.insert(strategies.begin() + 1, Strategy{StrategyKind::Manual, 0, {}});
    nlohmann::json all = nlohmann::json::array();
    TextTable table({"strategy", "peak", "saved vs none", "recompute overhead", "step time",
                     "largest micro-batch", "fits"});
    for (const Strategy& s : strategies) {
        auto e = evaluate(c->graph, s, c->manual, c->training, c->device, &*base);
        if (!e) return userError(s.spelling() + ": " + e.error().message);
        all.push_back(evaluationToJson(c->graph, *e, c->device));
        const Timeline& t = e->timeline;
        table.addRow({s.spelling(), formatBytes(t.peakBytes), formatPercent(e->memorySavedFraction()),
                      formatPercent(e->recomputeOverhead()), formatSeconds(t.timeS.total()),
                      t.maxMicroBatch >= kMaxMicroBatch ? "unbounded"
                                                        : std::to_string(t.maxMicroBatch),
                      t.fits ? "yes" : "no"});
    }
    if (o.json) {
        std::cout << all.dump(2) << "\n";
        return 0;
    }
    const std::string name = c->model.network.name.empty() ? o.model : c->model.network.name;
    std::cout << name << " on " << c->device.name << " (usable "
              << formatBytes(c->device.usableBytes()) << "), micro-batch "
              << c->training.microBatch << " x " << c->training.accumulationSteps << ", "
              << precisionName(c->training.precision) << ", "
              << optimizerName(c->training.optimizer) << "\n\n";
    std::cout << table.render();
    return 0;
}

}  // namespace

void addCompare(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand("compare", "every checkpointing strategy side by side");
    auto o = std::make_shared<CommonOptions>();
    addCommonOptions(*cmd, *o, false);
    cmd->callback([o, &exitCode] { exitCode = runCompare(*o); });
}

}  // namespace remat::cli
