// `remat pareto`: the memory/time trade-off. The frontier the single-level optimum traces from
// the smallest feasible budget up to no checkpointing, then every:K for every K and the named
// strategies, each with what the optimum gains over it (its peak at no more step time, its
// step time at no more peak). `--csv` prints one row per point for plotting; `--json` one
// object.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "pareto.h"
#include "report.h"
#include "table.h"

namespace remat::cli {

namespace {

struct ParetoOptions {
    CommonOptions common;
    bool csv = false;
};

std::string relative(double value, double base) {
    return base > 0 ? formatPercent(value / base - 1.0) : "-";
}

void printCsv(const Tradeoff& t) {
    std::cout
        << "kind,label,peak_bytes,step_time_s,recompute_time_s,optimal_peak_at_equal_time_bytes,"
           "optimal_time_at_equal_memory_s\n";
    auto row = [&](const char* kind, const TradeoffPoint& p, bool gain) {
        // Labels may hold commas (selective:attention,mlp): always quoted.
        std::cout << kind << ",\"" << p.label << "\"," << p.peakBytes << "," << p.stepTimeS << ","
                  << p.recomputeTimeS << ",";
        if (gain) {
            const TradeoffGain g = gainOver(t, p);
            if (g.peakAtEqualTimeBytes >= 0) std::cout << g.peakAtEqualTimeBytes;
            std::cout << ",";
            if (g.timeAtEqualMemoryS < 1e300) std::cout << g.timeAtEqualMemoryS;
        } else {
            std::cout << ",";
        }
        std::cout << "\n";
    };
    std::cout.precision(10);
    for (const auto& p : t.frontier) row("frontier", p, false);
    for (const auto& p : t.everyK) row("every_k", p, true);
    for (const auto& p : t.named) row("named", p, true);
}

nlohmann::json toJson(const Tradeoff& t) {
    using nlohmann::json;
    auto point = [&](const TradeoffPoint& p, bool gain) {
        json j = {{"label", p.label},
                  {"peak_bytes", p.peakBytes},
                  {"step_time_s", p.stepTimeS},
                  {"recompute_time_s", p.recomputeTimeS},
                  {"regions", p.plan.regions.size()}};
        if (gain) {
            const TradeoffGain g = gainOver(t, p);
            j["optimal_peak_at_equal_time_bytes"] =
                g.peakAtEqualTimeBytes >= 0 ? json(g.peakAtEqualTimeBytes) : json(nullptr);
            j["optimal_time_at_equal_memory_s"] =
                g.timeAtEqualMemoryS < 1e300 ? json(g.timeAtEqualMemoryS) : json(nullptr);
        }
        return j;
    };
    json out = {{"baseline_step_time_s", t.baselineStepTimeS},
                {"frontier", json::array()},
                {"every_k", json::array()},
                {"named", json::array()}};
    for (const auto& p : t.frontier) out["frontier"].push_back(point(p, false));
    for (const auto& p : t.everyK) out["every_k"].push_back(point(p, true));
    for (const auto& p : t.named) out["named"].push_back(point(p, true));
    return out;
}

int runPareto(const ParetoOptions& o) {
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    auto t = computeTradeoff(c->graph, c->training, c->device);
    if (!t) return userError(t.error().message);
    if (o.csv) {
        printCsv(*t);
        return 0;
    }
    if (o.common.json) {
        std::cout << toJson(*t).dump(2) << "\n";
        return 0;
    }
    const std::string name = c->model.network.name.empty() ? o.common.model : c->model.network.name;
    std::cout << name << " on " << c->device.name << ", micro-batch " << c->training.microBatch
              << " x " << c->training.accumulationSteps << ", "
              << precisionName(c->training.precision) << ", "
              << optimizerName(c->training.optimizer) << "\n\n";
    std::cout << "Optimal single-level frontier (" << t->frontier.size()
              << " points, smallest feasible peak to no checkpointing):\n";
    TextTable frontier({"peak", "step time", "vs none", "regions", "strategy"});
    for (const auto& p : t->frontier)
        frontier.addRow({formatBytes(p.peakBytes), formatSeconds(p.stepTimeS),
                         relative(p.stepTimeS, t->baselineStepTimeS),
                         std::to_string(p.plan.regions.size()), p.label});
    std::cout << frontier.render() << "\n";
    auto table = [&](const std::vector<TradeoffPoint>& points) {
        TextTable tt({"strategy", "peak", "step time", "optimal peak at same time",
                      "optimal time at same peak"});
        for (const auto& p : points) {
            const TradeoffGain g = gainOver(*t, p);
            tt.addRow({p.label, formatBytes(p.peakBytes), formatSeconds(p.stepTimeS),
                       g.peakAtEqualTimeBytes >= 0
                           ? formatBytes(g.peakAtEqualTimeBytes) + " (" +
                                 relative(double(g.peakAtEqualTimeBytes), double(p.peakBytes)) + ")"
                           : "-",
                       g.timeAtEqualMemoryS < 1e300
                           ? formatSeconds(g.timeAtEqualMemoryS) + " (" +
                                 relative(g.timeAtEqualMemoryS, p.stepTimeS) + ")"
                           : "below the frontier"});
        }
        return tt.render();
    };
    std::cout << "every:K for every K:\n" << table(t->everyK) << "\n";
    std::cout << "Named strategies:\n" << table(t->named);
    return 0;
}

}  // namespace

void addPareto(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "pareto",
        "the peak-memory / step-time frontier of the optimal plan beside every:K and "
        "the named strategies");
    auto o = std::make_shared<ParetoOptions>();
    addCommonOptions(*cmd, o->common, false);
    cmd->add_flag("--csv", o->csv, "print comma-separated rows (kind,label,peak_bytes,...)");
    cmd->callback([o, &exitCode] { exitCode = runPareto(*o); });
}

}  // namespace remat::cli
