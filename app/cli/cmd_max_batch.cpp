// `remat max-batch`: the largest micro-batch each strategy fits on the device (and the single-
// level optimum, whose plan is re-planned for every micro-batch), the accumulation steps that
// reach a global batch (256 = 32 x 8), and the predicted throughput, re-simulated at that
// setting. Unsafe plans are marked; when nothing fits, the numbers say why; when a selective
// plan fits more than the optimum, a note says the optimum searches whole blocks only.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis.h"
#include "commands.h"
#include "common.h"
#include "parallel_batch.h"
#include "parallel_report.h"
#include "pareto.h"
#include "report.h"
#include "table.h"

namespace remat::cli {

namespace {

struct MaxBatchOptions {
    CommonOptions common;
    std::optional<std::int64_t> globalBatch;
};

constexpr std::int64_t kMaxGlobalBatch = std::int64_t{1} << 30;

// One strategy's row of `max-batch --json`: `unsafe` the compiler's reasons (empty: safe);
// `noFitReason` is reported only when nothing fits.
nlohmann::json fitJson(const BatchFit& f, const std::vector<std::string>& unsafe,
                       const std::string& noFitReason) {
    return {{"strategy", f.label},
            {"max_micro_batch", f.maxMicroBatch},
            {"micro_batch", f.microBatch},
            {"accumulation_steps", f.accumulationSteps},
            {"peak_bytes", f.peakBytes},
            {"step_time_s", f.stepTimeS},
            {"samples_per_s", f.samplesPerS},
            {"regions", f.plan.regions.size()},
            {"unsafe", unsafe},
            {"no_fit_reason", f.microBatch >= 1 ? nlohmann::json(nullptr)
                                                : nlohmann::json(noFitReason)}};
}

// Why not even one sample fits with any plan: the plan with the least memory (every chain
// element its own region) at micro-batch 1, explained.
std::string whyNothingFits(const Context& c) {
    TrainingConfig one = c.training;
    one.microBatch = 1;
    auto e = evaluate(c.graph, Strategy{StrategyKind::Full, 0, {}}, c.manual, one, c.device);
    if (!e) return e.error().message;
    const std::string why = explainNoFit(e->timeline, c.device);
    return "with full checkpointing at micro-batch 1, " +
           (why.empty() ? std::string("one sample fits, but no plan fits with the accumulation "
                                      "steps the global batch needs")
                        : why);
}

// Under a parallel layout: per GPU, for the rank that peaks, the named strategies only (a budget
// plans each pipeline stage within it); --global-batch is the global batch across dp.
int runMaxBatchParallel(const MaxBatchOptions& o, const Context& c, std::int64_t globalBatch) {
    const ParallelConfig& lay = c.training.parallel;
    std::vector<ParallelBatchFit> fits;
    for (const Strategy& s : listedStrategies(c)) {
        if (s.kind == StrategyKind::Manual) continue;  // a manual plan names the whole network
        auto f = fitStrategyParallel(c.model.network, s, c.training, c.cluster, globalBatch);
        if (!f) {
            // The global batch is the user's to fix; a strategy the layout refuses is a row.
            if (f.error().message.rfind("the global batch ", 0) == 0)
                return userError(c, f.error().message);
            ParallelBatchFit refused;
            refused.fit.label = s.spelling();
            refused.noFitReason = "refused: " + f.error().message;
            fits.push_back(std::move(refused));
            continue;
        }
        fits.push_back(std::move(*f));
    }
    if (o.common.json) {
        nlohmann::json all = nlohmann::json::array();
        for (const ParallelBatchFit& pf : fits) {
            const BatchFit& f = pf.fit;
            nlohmann::json row = fitJson(f, pf.unsafe, pf.noFitReason);
            row["global_batch"] = pf.globalBatch;
            row["parallel"] = layoutToJson(lay);
            all.push_back(std::move(row));
        }
        std::cout << dumpJson(all) << "\n";
        return 0;
    }
    std::cout << modelName(c, o.common) << " on " << describeLayout(lay) << " of "
              << shown(c.cluster.device.name) << " (usable "
              << formatBytes(c.cluster.device.usableBytes()) << " per GPU), "
              << trainingText(c.training) << recomputeImplNote(c.training);
    if (globalBatch > 0) std::cout << ", global batch " << globalBatch << " across dp " << lay.dp;
    std::cout << "\nper GPU (rank that peaks); micro-batches are per data-parallel rank\n\n";
    TextTable table({"strategy", "largest micro-batch", "micro-batch x steps", "peak per GPU",
                     "step time", "samples/s", "safe"});
    bool anyFits = false;
    for (const ParallelBatchFit& pf : fits) {
        const BatchFit& f = pf.fit;
        const std::string safe = pf.unsafe.empty() ? "yes" : "UNSAFE";
        if (f.microBatch < 1) {
            table.addRow({shown(f.label), std::to_string(f.maxMicroBatch), "does not fit", "-",
                          "-", "-", safe});
            continue;
        }
        anyFits = true;
        char rate[48];
        std::snprintf(rate, sizeof rate, "%.1f", f.samplesPerS);
        table.addRow(
            {shown(f.label),
             f.maxMicroBatch >= kMaxMicroBatch ? "unbounded" : std::to_string(f.maxMicroBatch),
             std::to_string(f.microBatch) + " x " + std::to_string(f.accumulationSteps),
             formatBytes(f.peakBytes), formatSeconds(f.stepTimeS), rate, safe});
    }
    std::cout << table.render() << "\n";
    for (const ParallelBatchFit& pf : fits)
        if (!pf.unsafe.empty())
            std::cout << "UNSAFE: " << shown(pf.fit.label) << ": "
                      << shown(pf.unsafe.front(), kSentenceLimit) << "\n";
    std::cout << "note: no optimal row under a layout: optimal:BUDGET plans each pipeline stage "
                 "within BUDGET (remat simulate -s optimal:BUDGET); remat fit searches layouts, "
                 "strategies and micro-batches together\n";
    if (!anyFits && !fits.empty())
        std::cout << "nothing fits: " << shown(fits.front().noFitReason, kSentenceLimit) << "\n";
    return 0;
}

int runMaxBatch(const MaxBatchOptions& o) {
    if (o.globalBatch && (*o.globalBatch < 1 || *o.globalBatch > kMaxGlobalBatch))
        return userError("--global-batch must be between 1 and 1073741824" +
                         echoedCount(*o.globalBatch));
    const std::int64_t globalBatch = o.globalBatch.value_or(0);
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    if (!c->training.parallel.single()) return runMaxBatchParallel(o, *c, globalBatch);
    std::vector<BatchFit> fits;
    for (const Strategy& s : listedStrategies(*c)) {
        auto f = fitStrategy(c->graph, s, c->manual, c->training, c->device, globalBatch);
        if (!f) return userError(*c, s.spelling() + ": " + f.error().message);
        fits.push_back(std::move(*f));
    }
    // The optimal planners model PyTorch's non-reentrant recompute only: no optimum row under
    // the reentrant implementations.
    const bool hasOptimal = !recomputesWholeRegion(c->training.recomputeImpl);
    if (hasOptimal) {
        auto best = fitOptimal(c->graph, c->training, c->device, globalBatch);
        if (!best) return userError(*c, "optimal: " + best.error().message);
        fits.push_back(std::move(*best));
    }
    std::vector<std::vector<std::string>> unsafe;
    for (const BatchFit& f : fits) {
        auto u = unsafeReasons(*c, f.plan);
        if (!u) return userError(*c, f.label + ": " + u.error().message);
        unsafe.push_back(std::move(*u));
    }
    bool anyFits = false;
    for (const BatchFit& f : fits) anyFits = anyFits || f.microBatch >= 1;
    // The optimum searches single-level plans over whole chain elements; a selective plan
    // (sub-modules) can fit more.
    const BatchFit& optimal = fits.back();
    const BatchFit* beatsOptimal = nullptr;
    for (const BatchFit& f : fits)
        if (hasOptimal && f.label.rfind("selective:", 0) == 0 &&
            f.maxMicroBatch > optimal.maxMicroBatch &&
            (!beatsOptimal || f.maxMicroBatch > beatsOptimal->maxMicroBatch))
            beatsOptimal = &f;
    const std::string noFit = anyFits ? std::string() : whyNothingFits(*c);
    if (o.common.json) {
        nlohmann::json all = nlohmann::json::array();
        for (std::size_t i = 0; i < fits.size(); ++i) {
            const BatchFit& f = fits[i];
            all.push_back(fitJson(f, unsafe[i], noFit));
        }
        std::cout << dumpJson(all) << "\n";
        return 0;
    }
    std::cout << modelName(*c, o.common) << " on " << shown(c->device.name) << " (usable "
              << formatBytes(c->device.usableBytes()) << "), "
              << trainingText(c->training) << recomputeImplNote(c->training);
    if (globalBatch > 0) std::cout << ", global batch " << globalBatch;
    std::cout << "\n\n";
    TextTable table({"strategy", "largest micro-batch", "micro-batch x steps", "peak", "step time",
                     "samples/s", "safe"});
    for (std::size_t i = 0; i < fits.size(); ++i) {
        const BatchFit& f = fits[i];
        const std::string safe = unsafe[i].empty() ? "yes" : "UNSAFE";
        if (f.microBatch < 1) {
            table.addRow({shown(f.label), "0", "does not fit", "-", "-", "-", safe});
            continue;
        }
        char rate[48];
        std::snprintf(rate, sizeof rate, "%.1f", f.samplesPerS);
        table.addRow(
            {shown(f.label),
             f.maxMicroBatch >= kMaxMicroBatch ? "unbounded" : std::to_string(f.maxMicroBatch),
             std::to_string(f.microBatch) + " x " + std::to_string(f.accumulationSteps),
             formatBytes(f.peakBytes), formatSeconds(f.stepTimeS), rate, safe});
    }
    std::cout << table.render();
    if (beatsOptimal || !anyFits || !hasOptimal ||
        std::any_of(unsafe.begin(), unsafe.end(), [](const auto& u) { return !u.empty(); }))
        std::cout << "\n";
    for (std::size_t i = 0; i < fits.size(); ++i)
        if (!unsafe[i].empty())
            std::cout << "UNSAFE: " << shown(fits[i].label) << ": "
                      << shown(unsafe[i].front(), kSentenceLimit) << "\n";
    if (beatsOptimal)
        std::cout << "note: optimal searches plans that checkpoint whole blocks (chain elements); "
                  << shown(beatsOptimal->label) << " checkpoints sub-modules and fits micro-batch "
                  << beatsOptimal->maxMicroBatch << " against optimal's " << optimal.maxMicroBatch
                  << "\n";
    if (!hasOptimal)
        std::cout << "note: no optimal row: the optimal planners model PyTorch's non-reentrant "
                     "checkpoint, not "
                  << recomputeImplName(c->training.recomputeImpl) << "'s\n";
    if (!anyFits) std::cout << "nothing fits: " << noFit << "\n";
    return 0;
}

}  // namespace

void addMaxBatch(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "max-batch", "the largest micro-batch each strategy and the optimum fit on a device");
    auto o = std::make_shared<MaxBatchOptions>();
    addCommonOptions(*cmd, o->common, false);
    cmd->add_option("-g,--global-batch", o->globalBatch,
                    "samples per optimizer step to reach with gradient accumulation "
                    "(1 to 1073741824)");
    cmd->callback([o, &exitCode] { exitCode = runMaxBatch(*o); });
}

}  // namespace remat::cli
