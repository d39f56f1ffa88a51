// `remat sweep MODEL --over depth|seq|batch [--values LIST|FROM..TO[:STEP]] [--strategies S,...]`:
// how the peak, the activations and the recompute grow with the depth, the sequence length or
// the micro-batch under each strategy (sim/sweep.h), as a table with the growth of the swept
// blocks' activations over the range, one CSV row per point for plotting, or one JSON object.
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "common.h"
#include "parallel_report.h"
#include "report.h"
#include "sweep.h"
#include "table.h"

namespace remat::cli {

namespace {

struct SweepOptions {
    CommonOptions common;
    std::string over = "depth";
    std::string values;
    std::string strategies = "none,full,every:2,every:4,sqrt";
    bool csv = false;
};

std::string ratio(double r) {
    std::ostringstream s;
    s.precision(r < 10 ? 2 : 3);
    s << "x" << r;
    return s.str();
}

nlohmann::json toJson(const SweepResult& r) {
    nlohmann::json j;
    j["axis"] = sweepAxisName(r.axis);
    j["swept_layer"] = r.sweptLayer;
    j["values"] = r.values;
    nlohmann::json points = nlohmann::json::array();
    for (const SweepPoint& p : r.points) {
        nlohmann::json o{{"value", p.value}, {"strategy", p.strategy}};
        if (!p.error.empty()) {
            o["error"] = p.error;
        } else {
            o["peak_bytes"] = p.peakBytes;
            o["activation_peak_bytes"] = p.activationPeakBytes;
            o["block_activation_peak_bytes"] = p.blockActivationPeakBytes;
            o["saved_activation_bytes"] = p.keptActivationBytes;
            o["recompute_overhead"] = p.recomputeOverhead;
            o["time_s"] = p.stepTimeS;
            o["fits"] = p.fits;
            o["unsafe"] = p.unsafe;
        }
        points.push_back(std::move(o));
    }
    j["points"] = std::move(points);
    nlohmann::json growth = nlohmann::json::array();
    for (const SweepGrowth& g : r.growth)
        growth.push_back({{"strategy", g.strategy},
                          {"from", g.fromValue},
                          {"to", g.toValue},
                          {"value_ratio", g.valueRatio},
                          {"block_activation_ratio", g.blockActivationRatio}});
    j["growth"] = std::move(growth);
    return j;
}

int runSweep(const SweepOptions& o) {
    if (o.csv && o.common.json) return userError("--csv and --json: choose one output format");
    auto axis = parseSweepAxis(o.over);
    if (!axis) return userError("--over: " + axis.error().message);
    std::vector<std::int64_t> values;
    if (!o.values.empty()) {
        auto v = parseSweepValues(o.values);
        if (!v) return userError("--values: " + v.error().message);
        values = std::move(*v);
    }
    // Comma-separated; a bare kind after selective:KIND belongs to it (selective:attention,mlp).
    std::vector<std::string> spellings;
    {
        std::istringstream in(o.strategies);
        std::string token;
        while (std::getline(in, token, ',')) {
            const bool bareWord = token.find(':') == std::string::npos && !parseStrategy(token);
            if (bareWord && !spellings.empty() && spellings.back().rfind("selective:", 0) == 0)
                spellings.back() += "," + token;
            else
                spellings.push_back(token);
        }
    }
    std::vector<Strategy> strategies;
    for (const std::string& spelling : spellings) {
        auto s = parseStrategy(spelling);
        if (!s) return userError("--strategies: " + s.error().message);
        strategies.push_back(*s);
    }
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    for (const Strategy& s : strategies)
        if (auto st = checkSelectiveKinds(c->graph, s); !st)
            return userError(*c, "--strategies: " + st.error().message);
    if (values.empty()) values = defaultSweepValues(*axis, c->model, c->training);
    const bool layout = !c->training.parallel.single();
    auto r = sweep(c->model, c->training, c->device, *axis, values, strategies, {},
                   layout ? &c->cluster : nullptr);
    if (!r) return userError(*c, r.error().message);

    if (o.common.json) {
        nlohmann::json j = toJson(*r);
        if (layout) j["parallel"] = layoutToJson(c->training.parallel);
        std::cout << dumpJson(j) << "\n";
        return 0;
    }
    const std::string axisName = sweepAxisName(r->axis);
    if (o.csv) {
        std::cout << axisName
                  << ",strategy,peak_bytes,activation_peak_bytes,block_activation_peak_bytes,"
                     "saved_activation_bytes,recompute_overhead,time_s,fits,unsafe,error\n";
        for (const SweepPoint& p : r->points) {
            std::cout << p.value << "," << shown(p.strategy) << ",";
            if (!p.error.empty()) {
                // The message quoted, its quotes doubled, as CSV wants.
                std::string e = shown(p.error, kSentenceLimit);
                for (std::size_t i = e.find('"'); i != std::string::npos; i = e.find('"', i + 2))
                    e.insert(i, 1, '"');
                std::cout << ",,,,,,,,\"" << e << "\"\n";
                continue;
            }
            std::cout << p.peakBytes << "," << p.activationPeakBytes << ","
                      << p.blockActivationPeakBytes << "," << p.keptActivationBytes << ","
                      << p.recomputeOverhead << "," << p.stepTimeS << ","
                      << (p.fits ? "true" : "false") << "," << (p.unsafe ? "true" : "false")
                      << ",\n";
        }
        return 0;
    }
    std::cout << modelName(*c, o.common) << " on " << shown(c->device.name) << ", swept over "
              << (r->axis == SweepAxis::Depth
                      ? "the depth (repeats of " + shown(r->sweptLayer) + ")"
                  : r->axis == SweepAxis::SequenceLength ? std::string("the sequence length")
                                                         : std::string("the micro-batch"))
              << "\n";
    if (layout)
        std::cout << "layout " << describeLayout(c->training.parallel) << " on "
                  << shown(c->cluster.name)
                  << ": per GPU (rank that peaks)\n";
    std::cout << "\n";
    TextTable table({axisName, "strategy", layout ? "peak per GPU" : "peak", "activations", "block activations",
                     "kept for backward", "recompute overhead", "fits"});
    for (const SweepPoint& p : r->points) {
        if (!p.error.empty()) {
            table.addRow({std::to_string(p.value), shown(p.strategy),
                          "refused: " + shown(p.error, 60), "", "", "", "", ""});
            continue;
        }
        table.addRow({std::to_string(p.value), shown(p.strategy) + (p.unsafe ? " UNSAFE" : ""),
                      formatBytes(p.peakBytes), formatBytes(p.activationPeakBytes),
                      formatBytes(p.blockActivationPeakBytes), formatBytes(p.keptActivationBytes),
                      formatPercent(p.recomputeOverhead), p.fits ? "yes" : "no"});
    }
    std::cout << table.render();
    if (!r->growth.empty()) {
        const SweepGrowth& g0 = r->growth.front();
        std::cout << "\nblock activations from " << axisName << " " << g0.fromValue << " to "
                  << g0.toValue << " (" << ratio(g0.valueRatio) << "):";
        for (const SweepGrowth& g : r->growth)
            std::cout << "  " << shown(g.strategy) << " " << ratio(g.blockActivationRatio);
        std::cout << "\n";
    }
    std::cout << "\npeak                the whole step's peak (parameters, gradients, optimizer "
                 "state, activations, workspaces)\n"
              << "activations         saved and recomputed activations at their own highest\n"
              << "block activations   the same, of the ops inside the swept blocks alone\n"
              << "kept for backward   activations held when the last backward starts\n"
              << "recompute overhead  extra step time over the step without checkpointing\n";
    return 0;
}

}  // namespace

void addSweep(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "sweep",
        "how peak, activations and recompute grow with the depth, the sequence length or the "
        "micro-batch under each strategy (O(N) without checkpointing, O(sqrt N) with sqrt)");
    auto o = std::make_shared<SweepOptions>();
    addCommonOptions(*cmd, o->common, false);
    cmd->add_option("--over", o->over,
                    "what to sweep: depth (repeats of the repeated block), seq (sequence "
                    "length) or batch (micro-batch). Default depth");
    cmd->add_option("--values", o->values,
                    "the values: a list (1,2,4,8) or a range FROM..TO[:STEP]; at most 64. "
                    "Default: depth 1,2,4,...,64; seq 128 doubling to the model's; batch 1 "
                    "doubling to 4x the model's");
    cmd->add_option("--strategies", o->strategies,
                    "comma-separated strategies (not manual). Default "
                    "none,full,every:2,every:4,sqrt");
    cmd->add_flag("--csv", o->csv, "one CSV row per value and strategy, for plotting");
    cmd->callback([o, &exitCode] { exitCode = runSweep(*o); });
}

}  // namespace remat::cli
