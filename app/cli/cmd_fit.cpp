// `remat fit`: does the model train on N GPUs, and with which layout, recompute strategy and
// micro-batch (sim/fit.h).
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "fit.h"
#include "parallel_report.h"
#include "report.h"

namespace remat::cli {

namespace {

struct FitCliOptions {
    CommonOptions common;
    std::int64_t gpus = 8;
    std::int64_t globalBatch = 0;
    std::size_t top = 5;
};

nlohmann::json candidateJson(const FitCandidate& c) {
    return {{"layout", layoutToJson(c.layout)},
            {"strategy", c.strategy.spelling()},
            {"micro_batch", c.microBatch},
            {"accumulation_steps", c.accumulation},
            {"offload", layoutToJson(c.layout)["offload"]},
            {"peak_bytes", c.peakBytes},
            {"step_time_s", c.stepTimeS},
            {"mfu", c.mfu},
            {"samples_per_s", c.samplesPerS},
            {"host_bytes_per_node", c.hostBytesPerNode}};
}

std::string candidateLine(const FitCandidate& c) {
    char line[512];
    std::snprintf(line, sizeof line, "%-44s %-22s %5lld x %-6lld %10s %10s %6.1f%% %9.1f",
                  describeLayout(c.layout).c_str(), c.strategy.spelling().c_str(),
                  (long long)c.microBatch, (long long)c.accumulation,
                  formatBytes(c.peakBytes).c_str(), formatSeconds(c.stepTimeS).c_str(),
                  100.0 * c.mfu, c.samplesPerS);
    return line;
}

int runFit(const FitCliOptions& f) {
    const CommonOptions& o = f.common;
    if (f.gpus < 1 || f.gpus > kMaxParallelDegree)
        return userError("--gpus must be between 1 and " + std::to_string(kMaxParallelDegree) +
                         echoedCount(f.gpus));
    if (f.globalBatch < 0 || f.globalBatch > (std::int64_t{1} << 30))
        return userError("--global-batch must be between 1 and 1073741824" +
                         echoedCount(f.globalBatch));
    if (f.top < 1 || f.top > 1000) return userError("--top must be between 1 and 1000");
    auto c = resolve(o);
    if (!c) return userError(c.error().message);
    FitOptions options;
    options.gpus = f.gpus;
    options.globalBatch = f.globalBatch;
    options.top = f.top;
    TrainingConfig base = c->training;
    base.parallel = ParallelConfig{};
    auto r = fitSearch(c->model.network, base, c->cluster, options);
    if (!r) return userError(*c, r.error().message);
    if (o.json) {
        nlohmann::json j;
        j["fits"] = r->fits;
        j["gpus"] = r->gpus;
        j["cluster"] = c->cluster.id;
        j["device"] = c->cluster.device.id;
        j["global_batch"] = r->globalBatch;
        j["min_gpus"] = r->fits ? r->gpus : r->minGpus;
        j["min_gpus_plan"] = !r->fits && r->minGpus > 0 ? candidateJson(r->minGpusPlan)
                                                        : nlohmann::json(nullptr);
        j["evaluated"] = r->evaluated;
        nlohmann::json cands = nlohmann::json::array();
        for (const FitCandidate& x : r->candidates) cands.push_back(candidateJson(x));
        j["candidates"] = cands;
        j["rejected"] = r->rejected;
        j["model_states"] = r->modelStatesMessage.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(r->modelStatesMessage);
        j["offload_plan"] = r->fits ? nlohmann::json(nullptr)
                            : r->offloadFits ? candidateJson(r->offloadPlan)
                                             : nlohmann::json(nullptr);
        j["offload_message"] = r->offloadMessage.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json(r->offloadMessage);
        std::cout << dumpJson(j) << "\n";
        return 0;
    }
    std::cout << modelName(*c, o) << " on " << r->gpus << " x " << shown(c->cluster.device.name)
              << " (" << shown(c->cluster.name) << "), global batch " << r->globalBatch
              << " samples\n";
    std::cout << "searched " << r->evaluated
              << " layouts x strategies x micro-batch splits\n\n";
    if (r->fits) {
        std::cout << "FITS. Best by predicted throughput:\n";
        char head[256];
        std::snprintf(head, sizeof head, "%-44s %-22s %-14s %10s %10s %7s %9s", "layout",
                      "strategy", "micro x accum", "peak/GPU", "step", "MFU", "samples/s");
        std::cout << head << "\n";
        for (const FitCandidate& x : r->candidates) std::cout << candidateLine(x) << "\n";
    } else {
        std::cout << "DOES NOT FIT on " << r->gpus << " GPUs.\n";
        if (!r->modelStatesMessage.empty()) std::cout << "  " << r->modelStatesMessage << ".\n";
        if (r->minGpus > 0)
            std::cout << "  smallest GPU count found that fits: " << r->minGpus << ", e.g.\n  "
                      << candidateLine(r->minGpusPlan) << "\n";
        if (r->offloadFits)
            std::cout << "  with offload to host memory it fits on " << r->gpus << ":\n  "
                      << candidateLine(r->offloadPlan) << "\n";
        else if (!r->offloadMessage.empty())
            std::cout << "  offload to host memory does not make it fit either: "
                      << shown(r->offloadMessage, kSentenceLimit) << "\n";
    }
    if (!r->rejected.empty()) {
        std::cout << "\nrejected layouts (every strategy and micro-batch tried):\n";
        const std::size_t shownMax = 12;
        for (std::size_t i = 0; i < r->rejected.size() && i < shownMax; ++i)
            std::cout << "  " << shown(r->rejected[i], kSentenceLimit) << "\n";
        if (r->rejected.size() > shownMax)
            std::cout << "  ... and " << r->rejected.size() - shownMax << " more (--json lists all)\n";
    }
    return 0;
}

}  // namespace

void addFit(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "fit", "search parallel layouts, recompute strategies and micro-batches that fit N GPUs");
    auto f = std::make_shared<FitCliOptions>();
    cmd->add_option("MODEL", f->common.model, "model file (.json) or preset name")->required();
    cmd->add_option("--gpus", f->gpus, "GPUs to search over (default 8)");
    cmd->add_option("--global-batch", f->globalBatch,
                    "samples per step (default: the model's micro-batch x accumulation)");
    cmd->add_option("--top", f->top, "candidates to list (default 5)");
    cmd->add_option("-p,--precision", f->common.precision, "fp32 | mixed-bf16 | mixed-fp16");
    cmd->add_option("-o,--optimizer", f->common.optimizer, "sgd | momentum | adam | adamw");
    cmd->add_option("-d,--device", f->common.device, "device profile id or profile file");
    cmd->add_option("--cluster", f->common.cluster, "cluster profile id or file");
    cmd->add_flag("--json", f->common.json, "print one JSON object");
    cmd->callback([f, &exitCode] { exitCode = runFit(*f); });
}

}  // namespace remat::cli
