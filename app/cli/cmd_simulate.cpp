// `remat simulate`: one strategy, the full prediction.
#include <cstdio>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>


#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "parallel_eval.h"
#include "parallel_report.h"
#include "region_savings.h"
#include "report.h"

namespace remat::cli {

namespace {

int runSimulate(const CommonOptions& o) {
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    // A parallel layout: the figures of the rank that peaks, then the layout's step.
    std::optional<ParallelEvaluation> pe;
    Result<Evaluation> e = makeError("");
    if (!c->training.parallel.single()) {
        auto r = evaluateParallel(c->model.network, c->strategy, c->manual, c->training,
                                  c->cluster);
        if (!r) return userError(*c, r.error().message);
        pe = std::move(*r);
        e = pe->evaluation;
        if (o.json) {
            nlohmann::json j = parallelEvaluationToJson(*pe);
            j["warnings"] = c->warnings;
            std::cout << dumpJson(j) << "\n";
            return 0;
        }
    } else {
        e = evaluate(c->graph, c->strategy, c->manual, c->training, c->device);
        if (!e) return userError(*c, e.error().message);
        if (o.json) {
            nlohmann::json j = evaluationToJson(c->graph, *e, c->device);
            j["warnings"] = c->warnings;
            std::cout << dumpJson(j) << "\n";
            return 0;
        }
    }
    const Graph& graph = pe ? pe->graph : c->graph;
    const Timeline& t = e->timeline;
    std::cout << modelName(*c, o) << " on " << shown(c->device.name) << " ("
              << formatBytes(c->device.memoryBytes) << ", usable "
              << formatBytes(c->device.usableBytes()) << ")\n";
    if (pe)
        std::cout << "per GPU, the rank that peaks (pipeline stage " << pe->peakStage << " of "
                  << pe->stages.size() << (pe->stages.size() > 1 ? ", one micro-batch" : "")
                  << "):\n";
    std::cout << "micro-batch " << c->training.microBatch << " x " << c->training.accumulationSteps
              << " accumulation steps, " << trainingText(c->training) << recomputeImplNote(c->training)
              << ", " << graph.parameterCount << " parameters\n";
    std::cout << "strategy " << shown(e->strategy.spelling()) << ": "
              << e->program.plan.regions.size() << " checkpointed regions, "
              << e->program.instructions.size() << " instructions";
    if (e->program.repeat)
        std::cout << " (" << repeatCaption(e->program) << " written once: "
                  << e->program.executedInstructions() << " run)";
    std::cout << "\n\n";
    std::cout << "peak memory        " << formatBytes(t.peakBytes) << "  (saves "
              << formatPercent(e->memorySavedFraction())
              << " of the whole peak without checkpointing, " << formatBytes(e->baselinePeakBytes)
              << ")\n";
    std::cout << "  at instruction   " << t.peakInstruction << ": "
              << shown(describeInstruction(graph, e->program, t.peakInstruction)) << "\n";
    for (Category cat : kAllCategories) {
        const auto b = t.breakdownAtPeak[std::size_t(cat)];
        if (b == 0) continue;
        std::string key(categoryKey(cat));
        std::cout << "    " << key << std::string(24 - key.size(), ' ') << formatBytes(b) << "\n";
    }
    std::cout << "saved activations  " << formatBytes(t.savedActivationBytes) << "  (saves "
              << formatPercent(e->activationsSavedFraction())
              << " of the activations kept for backward without checkpointing, "
              << formatBytes(e->baselineSavedActivationBytes) << ")\n";
    std::cout << "step time          " << formatSeconds(t.timeS.total()) << "  (forward "
              << formatSeconds(t.timeS.forward) << ", recompute "
              << formatSeconds(t.timeS.recompute) << ", backward "
              << formatSeconds(t.timeS.backward) << ", optimizer "
              << formatSeconds(t.timeS.optimizer) << ")\n";
    std::cout << "recompute overhead " << formatPercent(e->recomputeOverhead())
              << "  (extra step time over the step without checkpointing, "
              << formatSeconds(e->baselineTimeS) << ")\n";
    char rate[48];
    std::snprintf(rate, sizeof rate, "%.1f", t.samplesPerS());
    std::cout << "throughput         " << rate << " samples/s\n";
    std::cout << "fits the device    " << (t.fits ? "yes" : "NO") << "; largest micro-batch "
              << (t.maxMicroBatch >= kMaxMicroBatch ? std::string("unbounded")
                                                    : std::to_string(t.maxMicroBatch))
              << "\n";
    if (!t.fits) std::cout << "why it does not fit: " << explainNoFit(t, c->device) << "\n";
    if (pe) std::cout << "\n" << parallelSummaryText(*pe);
    for (const auto& r : e->program.unsafeReasons)
        std::cout << "UNSAFE: " << shown(r, kSentenceLimit) << "\n";
    for (const auto& r : e->program.mayDifferReasons)
        std::cout << "UNSAFE (may differ): " << shown(r, kSentenceLimit) << "\n";
    for (const auto& r : e->program.safeNotes) std::cout << "safe: " << shown(r, kSentenceLimit) << "\n";
    for (const auto& n : littleSavingNotes(c->graph, e->program.plan, c->training.microBatch,
                                                e->baselineSavedActivationBytes))
        std::cout << "note: " << shown(n, kSentenceLimit) << "\n";
    return 0;
}

}  // namespace

void addSimulate(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand("simulate", "predict memory and time of one training step");
    auto o = std::make_shared<CommonOptions>();
    addCommonOptions(*cmd, *o);
    cmd->callback([o, &exitCode] { exitCode = runSimulate(*o); });
}

}  // namespace remat::cli
