// `remat simulate`: one strategy, the full prediction.
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "report.h"

namespace remat::cli {

namespace {

int runSimulate(const CommonOptions& o) {
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    auto e = evaluate(c->graph, c->strategy, c->manual, c->training, c->device);
    if (!e) return userError(e.error().message);
    if (o.json) {
        std::cout << evaluationToJson(c->graph, *e, c->device).dump(2) << "\n";
        return 0;
    }
    const Timeline& t = e->timeline;
    const std::string name = c->model.network.name.empty() ? o.model : c->model.network.name;
    std::cout << name << " on " << c->device.name << " (" << formatBytes(c->device.memoryBytes)
              << ", usable " << formatBytes(c->device.usableBytes()) << ")\n";
    std::cout << "micro-batch " << c->training.microBatch << " x " << c->training.accumulationSteps
              << " accumulation steps, " << precisionName(c->training.precision) << ", "
              << optimizerName(c->training.optimizer) << ", " << c->graph.parameterCount
              << " parameters\n";
    std::cout << "strategy " << e->strategy.spelling() << ": " << e->program.plan.regions.size()
              << " checkpointed regions, " << e->program.instructions.size()
              << " instructions\n\n";
    std::cout << "peak memory        " << formatBytes(t.peakBytes) << "  ("
              << formatPercent(e->memorySavedFraction()) << " less than no checkpointing, "
              << formatBytes(e->baselinePeakBytes) << ")\n";
    std::cout << "  at instruction   " << t.peakInstruction << ": "
              << describeInstruction(c->graph, e->program, t.peakInstruction) << "\n";
    for (Category cat : kAllCategories) {
        const auto b = t.breakdownAtPeak[std::size_t(cat)];
        if (b == 0) continue;
        std::string key(categoryKey(cat));
        std::cout << "    " << key << std::string(24 - key.size(), ' ') << formatBytes(b) << "\n";
    }
    std::cout << "saved activations  " << formatBytes(t.savedActivationBytes) << "\n";
    std::cout << "step time          " << formatSeconds(t.timeS.total()) << "  (forward "
              << formatSeconds(t.timeS.forward) << ", recompute " << formatSeconds(t.timeS.recompute)
              << ", backward " << formatSeconds(t.timeS.backward) << ", optimizer "
              << formatSeconds(t.timeS.optimizer) << ")\n";
    std::cout << "recompute overhead " << formatPercent(e->recomputeOverhead()) << "\n";
    std::cout << "throughput         " << t.samplesPerS() << " samples/s\n";
    std::cout << "fits the device    " << (t.fits ? "yes" : "NO") << "; largest micro-batch "
              << (t.maxMicroBatch >= kMaxMicroBatch ? std::string("unbounded")
                                                    : std::to_string(t.maxMicroBatch))
              << "\n";
    for (const auto& r : e->program.unsafeReasons) std::cout << "UNSAFE: " << r << "\n";
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
