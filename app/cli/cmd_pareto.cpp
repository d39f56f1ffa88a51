// `remat pareto`: the memory/time trade-off. The frontier the single-level optimum traces from
// the smallest feasible budget up to no checkpointing, then every:K for every K and the named
// strategies (the file's own plan among them, as in `compare`), each with what the optimum
// gains over it (its peak at no more step time, its step time at no more peak). Every point says
// whether its plan is unsafe; the frontier's budgets are written so that pasting one into
// `--strategy` gives that point back; a selective plan below the frontier gets a note (the
// optimum searches whole blocks). `--csv` prints one row per point for plotting; `--json` one
// object.
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "compiler.h"
#include "optimal_budget.h"
#include "parallel_eval.h"
#include "parallel_report.h"
#include "pareto.h"
#include "report.h"
#include "simulator.h"
#include "table.h"

namespace remat::cli {

namespace {

struct ParetoOptions {
    CommonOptions common;
    bool csv = false;
};

// The unsafe reasons of every point, by label (labels are unique within a Tradeoff's lists).
using UnsafeMap = std::map<std::string, std::vector<std::string>>;

const std::vector<std::string>& unsafeOf(const UnsafeMap& m, const TradeoffPoint& p) {
    static const std::vector<std::string> none;
    auto it = m.find(p.label);
    return it == m.end() ? none : it->second;
}

// Frontier labels name the budget that gives the point back: its peak rounded up to the fewest
// decimals (in the readable binary unit) that stay below the next point's peak, where the next
// plan would take over; "optimal:7.46GiB" rather than "optimal:8009110581".
void relabelFrontier(Tradeoff& t) {
    for (std::size_t i = 0; i < t.frontier.size(); ++i) {
        TradeoffPoint& p = t.frontier[i];
        if (p.label.rfind("optimal:", 0) != 0) continue;
        const std::int64_t next = i + 1 < t.frontier.size()
                                      ? t.frontier[i + 1].peakBytes
                                      : std::numeric_limits<std::int64_t>::max();
        for (int decimals = 2; decimals <= 9; ++decimals) {
            const std::string budget = formatBudget(p.peakBytes, {}, decimals);
            auto b = parseByteSize(budget);
            if (b && *b >= p.peakBytes && *b < next) {
                p.label = "optimal:" + budget;
                break;
            }
        }
    }
}

// `compare` lists the file's own plan; so does `pareto`, right after `none`.
Status addManualPoint(const Context& c, Tradeoff& t) {
    if (c.model.planForm != PlanForm::PerLayer && c.model.planForm != PlanForm::Regions)
        return Ok{};
    auto plan = makePlan(c.graph, Strategy{StrategyKind::Manual, 0, {}}, c.manual);
    if (!plan) return makeError("manual: " + plan.error().message);
    auto program = compile(c.graph, *plan, c.training, compileOptionsFor(c.device));
    if (!program) return makeError("manual: " + program.error().message);
    const Timeline tl = simulate(c.graph, *program, c.device);
    TradeoffPoint p{"manual", *plan, tl.peakBytes, tl.timeS.total(), tl.timeS.recompute};
    auto at = t.named.begin();
    if (at != t.named.end() && at->label == "none") ++at;
    t.named.insert(at, std::move(p));
    return Ok{};
}
std::string relative(double value, double base) {
    return base > 0 ? formatPercent(value / base - 1.0) : "-";
}

void printCsv(const Tradeoff& t, const UnsafeMap& unsafe) {
    std::cout
        << "kind,label,peak_bytes,step_time_s,recompute_time_s,optimal_peak_at_equal_time_bytes,"
           "optimal_time_at_equal_memory_s,unsafe\n";
    auto row = [&](const char* kind, const TradeoffPoint& p, bool gain) {
        // Labels may hold commas (selective:attention,mlp): always quoted.
        std::cout << kind << ",\"" << shown(p.label) << "\"," << p.peakBytes << "," << p.stepTimeS
                  << "," << p.recomputeTimeS << ",";
        if (gain) {
            const TradeoffGain g = gainOver(t, p);
            if (g.peakAtEqualTimeBytes >= 0) std::cout << g.peakAtEqualTimeBytes;
            std::cout << ",";
            if (g.timeAtEqualMemoryS < 1e300) std::cout << g.timeAtEqualMemoryS;
        } else {
            std::cout << ",";
        }
        std::cout << "," << (unsafeOf(unsafe, p).empty() ? "false" : "true") << "\n";
    };
    std::cout.precision(10);
    for (const auto& p : t.frontier) row("frontier", p, false);
    for (const auto& p : t.everyK) row("every_k", p, true);
    for (const auto& p : t.named) row("named", p, true);
}

nlohmann::json toJson(const Tradeoff& t, const UnsafeMap& unsafe) {
    using nlohmann::json;
    auto point = [&](const TradeoffPoint& p, bool gain) {
        json j = {{"label", p.label},
                  {"peak_bytes", p.peakBytes},
                  {"step_time_s", p.stepTimeS},
                  {"recompute_time_s", p.recomputeTimeS},
                  {"regions", p.plan.regions.size()},
                  {"unsafe", unsafeOf(unsafe, p)}};
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

// A selective plan (sub-modules) the frontier does not reach: no frontier point is as fast at
// no more memory. The optimum searches single-level plans over whole chain elements only.
std::vector<const TradeoffPoint*> selectiveBelowFrontier(const Tradeoff& t) {
    std::vector<const TradeoffPoint*> below;
    for (const auto& p : t.named) {
        if (p.label.rfind("selective:", 0) != 0) continue;
        const TradeoffGain g = gainOver(t, p);
        if (g.timeAtEqualMemoryS >= 1e300 || g.timeAtEqualMemoryS > p.stepTimeS * (1 + 1e-12))
            below.push_back(&p);
    }
    return below;
}

// Under a parallel layout: every:K (per pipeline stage) and the named strategies, each per GPU
// for the rank that peaks, with the whole step's time. The optimal frontier is not searched
// (optimal:BUDGET plans each stage within BUDGET, the other in-flight micro-batches on top).
int runParetoParallel(const ParetoOptions& o, const Context& c) {
    const ParallelConfig& lay = c.training.parallel;
    struct Point {
        std::string kind, label;
        std::int64_t peakBytes = 0;
        double stepTimeS = 0, recomputeTimeS = 0;
        bool fits = false;
        std::vector<std::string> unsafe;
        std::size_t regions = 0;
        std::string error;  // the layout refused this strategy, and why
    };
    std::vector<Point> points;
    auto add = [&](const char* kind, const Strategy& s) -> Status {
        auto e = evaluateParallel(c.model.network, s, lay.pp > 1 ? std::vector<RegionSpec>{} : c.manual,
                                  c.training, c.cluster, false);
        Point p;
        p.kind = kind;
        p.label = s.spelling();
        if (!e) {
            p.error = e.error().message;
            points.push_back(std::move(p));
            return Ok{};
        }
        p.peakBytes = e->evaluation.timeline.peakBytes;
        p.stepTimeS = e->time.totalS;
        // The peaking rank's recompute over the step (its program is one micro-batch under a
        // pipeline, the whole accumulation without).
        p.recomputeTimeS = e->evaluation.timeline.timeS.recompute *
                           (lay.pp > 1 ? double(e->microBatches) : 1.0);
        p.fits = e->fits;
        p.unsafe = e->evaluation.program.unsafeReasons;
        p.regions = e->evaluation.program.plan.regions.size();
        points.push_back(std::move(p));
        return Ok{};
    };
    std::int64_t perStage = 0;
    for (std::size_t src : expandedLayerSources(c.model.network))
        if (isBlock(c.model.network.layers[src].kind)) ++perStage;
    perStage /= std::max<std::int64_t>(lay.pp, 1);
    for (std::int64_t k = 1; k <= perStage; ++k)
        if (auto st = add("every_k", Strategy{StrategyKind::EveryK, k, {}}); !st)
            return userError(c, st.error().message);
    for (const Strategy& s : listedStrategies(c)) {
        if (s.kind == StrategyKind::Manual && lay.pp > 1) continue;
        if (auto st = add("named", s); !st) return userError(c, st.error().message);
    }
    if (o.csv) {
        std::cout << "kind,label,peak_bytes,step_time_s,recompute_time_s,"
                     "optimal_peak_at_equal_time_bytes,optimal_time_at_equal_memory_s,unsafe\n";
        std::cout.precision(10);
        for (const Point& p : points)
            if (p.error.empty())
                std::cout << p.kind << ",\"" << shown(p.label) << "\"," << p.peakBytes << ","
                          << p.stepTimeS << "," << p.recomputeTimeS << ",,,"
                          << (p.unsafe.empty() ? "false" : "true") << "\n";
        return 0;
    }
    if (o.common.json) {
        nlohmann::json out = {{"frontier", nlohmann::json::array()},
                              {"every_k", nlohmann::json::array()},
                              {"named", nlohmann::json::array()},
                              {"parallel", layoutToJson(lay)}};
        for (const Point& p : points)
            if (!p.error.empty())
                out[p.kind].push_back({{"label", p.label}, {"error", p.error}});
            else
                out[p.kind].push_back({{"label", p.label},
                                   {"peak_bytes", p.peakBytes},
                                   {"step_time_s", p.stepTimeS},
                                   {"recompute_time_s", p.recomputeTimeS},
                                   {"fits", p.fits},
                                   {"regions", p.regions},
                                   {"unsafe", p.unsafe}});
        std::cout << dumpJson(out) << "\n";
        return 0;
    }
    std::cout << modelName(c, o.common) << " on " << describeLayout(lay) << " of "
              << shown(c.cluster.device.name) << ", micro-batch " << c.training.microBatch << " x "
              << c.training.accumulationSteps << ", " << trainingText(c.training) << "\n"
              << "per GPU (rank that peaks); step time is the whole step's, communication and "
                 "pipeline bubble in\n\n";
    auto table = [&](const std::string& kind) {
        TextTable tt({"strategy", "peak per GPU", "step time", "fits", "safe"});
        for (const Point& p : points)
            if (p.kind == kind && !p.error.empty())
                tt.addRow({shown(p.label), "refused: " + shown(p.error, 60), "", "", ""});
            else if (p.kind == kind)
                tt.addRow({shown(p.label), formatBytes(p.peakBytes), formatSeconds(p.stepTimeS),
                           p.fits ? "yes" : "no", p.unsafe.empty() ? "yes" : "UNSAFE"});
        return tt.render();
    };
    std::cout << "every:K for every K" << (lay.pp > 1 ? " (per pipeline stage)" : "") << ":\n"
              << table("every_k") << "\n";
    std::cout << "Named strategies:\n" << table("named") << "\n";
    for (const Point& p : points)
        if (!p.unsafe.empty())
            std::cout << "UNSAFE: " << shown(p.label) << ": "
                      << shown(p.unsafe.front(), kSentenceLimit) << "\n";
    std::cout << "note: no optimal frontier under a layout: optimal:BUDGET plans each pipeline "
                 "stage within BUDGET, the other in-flight micro-batches on top (remat simulate "
                 "-s optimal:BUDGET gives one point)\n";
    return 0;
}

int runPareto(const ParetoOptions& o) {
    if (o.csv && o.common.json) return userError("--csv and --json: choose one output format");
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    if (!c->training.parallel.single()) return runParetoParallel(o, *c);
    auto t = computeTradeoff(c->graph, c->training, c->device);
    if (!t) return userError(*c, t.error().message);
    if (auto st = addManualPoint(*c, *t); !st) return userError(*c, st.error().message);
    relabelFrontier(*t);
    UnsafeMap unsafe;
    for (const auto* list : {&t->frontier, &t->everyK, &t->named})
        for (const auto& p : *list) {
            auto u = unsafeReasons(*c, p.plan);
            if (!u) return userError(*c, p.label + ": " + u.error().message);
            if (!u->empty()) unsafe[p.label] = std::move(*u);
        }
    if (o.csv) {
        printCsv(*t, unsafe);
        return 0;
    }
    if (o.common.json) {
        std::cout << dumpJson(toJson(*t, unsafe)) << "\n";
        return 0;
    }
    std::cout << modelName(*c, o.common) << " on " << shown(c->device.name) << ", micro-batch "
              << c->training.microBatch << " x " << c->training.accumulationSteps << ", "
              << trainingText(c->training) << "\n\n";
    std::cout << "Optimal single-level frontier (" << t->frontier.size()
              << " points, smallest feasible peak to no checkpointing; each strategy gives its "
                 "point back):\n";
    auto safe = [&](const TradeoffPoint& p) {
        return unsafeOf(unsafe, p).empty() ? "yes" : "UNSAFE";
    };
    TextTable frontier({"peak", "step time", "vs none", "regions", "safe", "strategy"});
    for (const auto& p : t->frontier)
        frontier.addRow({formatBytes(p.peakBytes), formatSeconds(p.stepTimeS),
                         relative(p.stepTimeS, t->baselineStepTimeS),
                         std::to_string(p.plan.regions.size()), safe(p), shown(p.label)});
    std::cout << frontier.render() << "\n";
    auto table = [&](const std::vector<TradeoffPoint>& points) {
        TextTable tt({"strategy", "peak", "step time", "optimal peak at same time",
                      "optimal time at same peak", "safe"});
        for (const auto& p : points) {
            const TradeoffGain g = gainOver(*t, p);
            tt.addRow({shown(p.label), formatBytes(p.peakBytes), formatSeconds(p.stepTimeS),
                       g.peakAtEqualTimeBytes >= 0
                           ? formatBytes(g.peakAtEqualTimeBytes) + " (" +
                                 relative(double(g.peakAtEqualTimeBytes), double(p.peakBytes)) + ")"
                           : "-",
                       g.timeAtEqualMemoryS < 1e300
                           ? formatSeconds(g.timeAtEqualMemoryS) + " (" +
                                 relative(g.timeAtEqualMemoryS, p.stepTimeS) + ")"
                           : "below the frontier",
                       safe(p)});
        }
        return tt.render();
    };
    std::cout << "every:K for every K:\n" << table(t->everyK) << "\n";
    std::cout << "Named strategies:\n" << table(t->named);
    const auto below = selectiveBelowFrontier(*t);
    if (!unsafe.empty() || !below.empty()) std::cout << "\n";
    for (const auto& [label, reasons] : unsafe)
        std::cout << "UNSAFE: " << shown(label) << ": " << shown(reasons.front(), kSentenceLimit)
                  << "\n";
    if (!below.empty()) {
        std::cout << "note: the optimal frontier searches plans that checkpoint whole blocks "
                     "(chain elements); these selective plans checkpoint sub-modules and are "
                     "below it:";
        for (std::size_t i = 0; i < below.size(); ++i)
            std::cout << (i ? "," : "") << " " << shown(below[i]->label) << " ("
                      << formatBytes(below[i]->peakBytes) << " at "
                      << formatSeconds(below[i]->stepTimeS) << ")";
        std::cout << "\n";
    }
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
    cmd->add_flag("--csv", o->csv,
                  "print comma-separated rows (kind,label,peak_bytes,...,unsafe) instead of "
                  "tables; not with --json");
    cmd->callback([o, &exitCode] { exitCode = runPareto(*o); });
}

}  // namespace remat::cli
