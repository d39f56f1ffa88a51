// `remat compare`: every named strategy side by side, the file's own plan among them. Relative
// figures say what they are a share of (docs/cli-output.md): "peak saved" of the whole peak
// without checkpointing, "activations saved" of the activations kept for backward without it,
// "recompute overhead" extra step time over the step without it. Unsafe plans are marked.
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "parallel_eval.h"
#include "parallel_report.h"
#include "report.h"
#include "table.h"

namespace remat::cli {

namespace {

int runCompare(const CommonOptions& o) {
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    // A parallel layout: each strategy on the rank that peaks, against plan `none` on the same
    // layout; the step time is the layout's.
    const bool parallel = !c->training.parallel.single();
    auto base = parallel ? Result<Baseline>(Baseline{})
                         : evaluateBaseline(c->graph, c->training, c->device);
    if (!base) return userError(*c, base.error().message);
    nlohmann::json all = nlohmann::json::array();
    TextTable table({"strategy", "peak", "peak saved", "activations saved", "recompute overhead",
                     "step time", "largest micro-batch", "fits", "safe"});
    std::vector<std::string> unsafe;
    const Evaluation* smallest = nullptr;
    std::vector<Evaluation> evaluations;
    for (const Strategy& s : listedStrategies(*c)) {
        Result<Evaluation> e = makeError("");
        double stepS = 0;
        if (parallel) {
            auto pe = evaluateParallel(c->model.network, s, c->manual, c->training, c->cluster);
            if (!pe) return userError(*c, s.spelling() + ": " + pe.error().message);
            all.push_back(parallelEvaluationToJson(*pe));
            stepS = pe->time.totalS;
            e = std::move(pe->evaluation);
        } else {
            e = evaluate(c->graph, s, c->manual, c->training, c->device, &*base);
            if (!e) return userError(*c, s.spelling() + ": " + e.error().message);
            all.push_back(evaluationToJson(c->graph, *e, c->device));
            stepS = e->timeline.timeS.total();
        }
        const Timeline& t = e->timeline;
        table.addRow(
            {shown(s.spelling()), formatBytes(t.peakBytes), formatPercent(e->memorySavedFraction()),
             formatPercent(e->activationsSavedFraction()), formatPercent(e->recomputeOverhead()),
             formatSeconds(stepS),
             t.maxMicroBatch >= kMaxMicroBatch ? "unbounded" : std::to_string(t.maxMicroBatch),
             t.fits ? "yes" : "no", e->program.unsafe() ? "UNSAFE" : "yes"});
        if (e->program.unsafe())
            unsafe.push_back(shown(s.spelling()) + ": " +
                             shown(e->program.allUnsafeReasons().front(), kSentenceLimit));
        evaluations.push_back(std::move(*e));
    }
    bool anyFits = false;
    for (const Evaluation& e : evaluations) {
        anyFits = anyFits || e.timeline.fits;
        if (!smallest || e.timeline.peakBytes < smallest->timeline.peakBytes) smallest = &e;
    }
    if (o.json) {
        std::cout << dumpJson(all) << "\n";
        return 0;
    }
    std::cout << modelName(*c, o) << " on " << shown(c->device.name) << " (usable "
              << formatBytes(c->device.usableBytes()) << "), micro-batch " << c->training.microBatch
              << " x " << c->training.accumulationSteps << ", "
              << trainingText(c->training) << recomputeImplNote(c->training) << "\n\n";
    std::cout << table.render();
    std::cout << "\npeak saved          share of the whole peak without checkpointing ("
              << formatBytes(base->peakBytes) << ")\n"
              << "activations saved   share of the activations kept for backward without "
                 "checkpointing ("
              << formatBytes(base->savedActivationBytes) << ")\n"
              << "recompute overhead  extra step time over the step without checkpointing ("
              << formatSeconds(base->timeS) << ", forward + backward + optimizer)\n";
    if (!unsafe.empty()) {
        std::cout << "UNSAFE plans change the gradients (`remat run --allow-unsafe` shows how "
                     "much):\n";
        for (const std::string& u : unsafe) std::cout << "  " << u << "\n";
    }
    if (!anyFits && smallest)
        std::cout << "nothing fits: with " << shown(smallest->strategy.spelling())
                  << ", the smallest peak listed, " << explainNoFit(smallest->timeline, c->device)
                  << "\n";
    return 0;
}

}  // namespace

void addCompare(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "compare",
        "every checkpointing strategy side by side (peak saved: share of the whole peak "
        "without checkpointing; activations saved: share of the activations kept for backward "
        "without it; recompute overhead: extra step time over the step without it)");
    auto o = std::make_shared<CommonOptions>();
    addCommonOptions(*cmd, *o, false);
    cmd->callback([o, &exitCode] { exitCode = runCompare(*o); });
}

}  // namespace remat::cli
