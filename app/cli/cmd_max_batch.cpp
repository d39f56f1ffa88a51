// `remat max-batch`: the largest micro-batch each strategy fits on the device (and the single-
// level optimum, whose plan is re-planned for every micro-batch), the accumulation steps that
// reach a global batch (256 = 32 x 8), and the predicted throughput, re-simulated at that
// setting.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "pareto.h"
#include "report.h"
#include "table.h"

namespace remat::cli {

namespace {

struct MaxBatchOptions {
    CommonOptions common;
    std::int64_t globalBatch = 0;
};

int runMaxBatch(const MaxBatchOptions& o) {
    if (o.globalBatch < 0 || o.globalBatch > (std::int64_t{1} << 30))
        return userError("--global-batch must be between 1 and 1073741824");
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    std::vector<Strategy> strategies = comparisonStrategies(c->graph);
    if (c->model.planForm == PlanForm::PerLayer || c->model.planForm == PlanForm::Regions)
        strategies.insert(strategies.begin() + 1, Strategy{StrategyKind::Manual, 0, {}, 0});
    std::vector<BatchFit> fits;
    for (const Strategy& s : strategies) {
        auto f = fitStrategy(c->graph, s, c->manual, c->training, c->device, o.globalBatch);
        if (!f) return userError(s.spelling() + ": " + f.error().message);
        fits.push_back(std::move(*f));
    }
    auto best = fitOptimal(c->graph, c->training, c->device, o.globalBatch);
    if (!best) return userError("optimal: " + best.error().message);
    fits.push_back(std::move(*best));
    if (o.common.json) {
        nlohmann::json all = nlohmann::json::array();
        for (const BatchFit& f : fits)
            all.push_back({{"strategy", f.label},
                           {"max_micro_batch", f.maxMicroBatch},
                           {"micro_batch", f.microBatch},
                           {"accumulation_steps", f.accumulationSteps},
                           {"peak_bytes", f.peakBytes},
                           {"step_time_s", f.stepTimeS},
                           {"samples_per_s", f.samplesPerS},
                           {"regions", f.plan.regions.size()}});
        std::cout << all.dump(2) << "\n";
        return 0;
    }
    const std::string name = c->model.network.name.empty() ? o.common.model : c->model.network.name;
    std::cout << name << " on " << c->device.name << " (usable "
              << formatBytes(c->device.usableBytes()) << "), "
              << precisionName(c->training.precision) << ", "
              << optimizerName(c->training.optimizer);
    if (o.globalBatch > 0) std::cout << ", global batch " << o.globalBatch;
    std::cout << "\n\n";
    TextTable table({"strategy", "largest micro-batch", "micro-batch x steps", "peak", "step time",
                     "samples/s"});
    for (const BatchFit& f : fits) {
        if (f.microBatch < 1) {
            table.addRow({f.label, "0", "does not fit", "-", "-", "-"});
            continue;
        }
        char rate[32];
        std::snprintf(rate, sizeof rate, "%.1f", f.samplesPerS);
        table.addRow(
            {f.label,
             f.maxMicroBatch >= kMaxMicroBatch ? "unbounded" : std::to_string(f.maxMicroBatch),
             std::to_string(f.microBatch) + " x " + std::to_string(f.accumulationSteps),
             formatBytes(f.peakBytes), formatSeconds(f.stepTimeS), rate});
    }
    std::cout << table.render();
    return 0;
}

}  // namespace

void addMaxBatch(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "max-batch", "the largest micro-batch each strategy and the optimum fit on a device");
    auto o = std::make_shared<MaxBatchOptions>();
    addCommonOptions(*cmd, o->common, false);
    cmd->add_option("-g,--global-batch", o->globalBatch,
                    "samples per optimizer step to reach with gradient accumulation");
    cmd->callback([o, &exitCode] { exitCode = runMaxBatch(*o); });
}

}  // namespace remat::cli
