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
#include "memory_snapshot.h"
#include "region_savings.h"
#include "report.h"

namespace remat::cli {

namespace {

struct SnapshotOptions {
    std::string file;  // --snapshot: a PyTorch memory snapshot to compare with
    int device = -1;   // --snapshot-device
};

std::string signedBytes(std::int64_t b) {
    return (b < 0 ? "-" : "+") + formatBytes(b < 0 ? -b : b);
}

nlohmann::json snapshotJson(const std::string& file, const MemorySnapshot& s,
                            const SnapshotOverlay& ov) {
    nlohmann::json phases = nlohmann::json::object(), step = nlohmann::json::object();
    for (std::size_t k = 0; k < kSnapshotPhaseCount; ++k) {
        const std::string name(snapshotPhaseName(SnapshotPhase(k)));
        phases[name] = s.phaseEvents[k];
        step[name] = {{"first_event", ov.spans[k].firstEvent},
                      {"end_event", ov.spans[k].endEvent},
                      {"first_instruction", ov.spans[k].firstInstruction},
                      {"end_instruction", ov.spans[k].endInstruction}};
    }
    return {{"file", file},
            {"device", s.device},
            {"traced_devices", s.tracedDevices},
            {"events", s.events.size()},
            {"phase_events", phases},
            {"segments", s.segments},
            {"trace_peak_allocated_bytes", s.peakAllocated},
            {"trace_peak_reserved_bytes", s.peakReserved},
            {"step_first_event", ov.stepFirstEvent},
            {"step_end_event", ov.stepEndEvent},
            {"step_phases", step},
            {"measured_peak_allocated_bytes", ov.measuredPeakAllocated},
            {"measured_peak_reserved_bytes", ov.measuredPeakReserved},
            {"predicted_peak_bytes", ov.predictedPeak},
            {"peak_difference_bytes", ov.peakDifference()},
            {"peak_difference_fraction", ov.peakDifferenceFraction()}};
}

void printSnapshot(const std::string& file, const MemorySnapshot& s, const SnapshotOverlay& ov) {
    std::cout << "\nPyTorch snapshot   " << shown(file) << " (device " << s.device << ", "
              << s.events.size() << " events: forward " << s.phaseEvents[0] << ", backward "
              << s.phaseEvents[1] << ", optimizer " << s.phaseEvents[2] << ")\n";
    std::cout << "  step compared    events " << ov.stepFirstEvent << " to "
              << (ov.stepEndEvent == 0 ? 0 : ov.stepEndEvent - 1) << " (the last forward, "
              << "backward and optimizer), stretched over the predicted phases\n";
    std::cout << "  measured peak    " << formatBytes(ov.measuredPeakAllocated) << " allocated, "
              << formatBytes(ov.measuredPeakReserved) << " reserved\n";
    std::cout << "  predicted peak   " << formatBytes(ov.predictedPeak) << "\n";
    std::cout << "  difference       " << signedBytes(ov.peakDifference()) << " ("
              << (ov.peakDifference() < 0 ? "" : "+") << formatPercent(ov.peakDifferenceFraction())
              << " of the predicted peak; measured allocated minus predicted)\n";
}

int runSimulate(const CommonOptions& o, const SnapshotOptions& so) {
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    std::optional<MemorySnapshot> snap;
    if (!so.file.empty()) {
        if (Status st = singleGpuOnly(*c, "simulate --snapshot"); !st)
            return userError(*c, st.error().message);
        auto r = readMemorySnapshot(so.file, so.device);
        if (!r) return userError(r.error().message);
        snap = std::move(*r);
    }
    // A parallel layout: the figures of the rank that peaks, then the layout's step.
    std::optional<ParallelEvaluation> pe;
    Result<Evaluation> e = makeError("");
    std::optional<SnapshotOverlay> overlay;
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
        if (snap) {
            auto ov = alignSnapshot(*snap, e->program, e->timeline);
            if (!ov) return userError(printable(so.file) + ": " + ov.error().message);
            overlay = std::move(*ov);
        }
        if (o.json) {
            nlohmann::json j = evaluationToJson(c->graph, *e, c->device);
            j["warnings"] = c->warnings;
            if (overlay) j["snapshot"] = snapshotJson(so.file, *snap, *overlay);
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
    if (overlay) printSnapshot(so.file, *snap, *overlay);
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
    auto so = std::make_shared<SnapshotOptions>();
    cmd->add_option("--snapshot", so->file,
                    "compare with a PyTorch CUDA memory snapshot (torch.cuda.memory._dump_snapshot "
                    "pickle): measured peak allocated and reserved vs predicted");
    cmd->add_option("--snapshot-device", so->device,
                    "the device of the snapshot to read (default: the first with events)")
        ->check(CLI::Range(0, 1023));
    cmd->callback([o, so, &exitCode] { exitCode = runSimulate(*o, *so); });
}

}  // namespace remat::cli
