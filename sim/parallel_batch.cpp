#include "parallel_batch.h"

#include <algorithm>

#include "analysis.h"
#include "report.h"

namespace remat {
namespace {

// One setting of the layout evaluated for the search: its peak per GPU and whether it fits.
struct Probe {
    const Network& net;
    const Strategy& s;
    const TrainingConfig& training;
    const ClusterSpec& cluster;
    const CancelFlag* cancel;
    // Lowered stages, shared by every micro-batch (the layout and settings do not change).
    LoweredStages lowered;

    Result<ParallelEvaluation> at(std::int64_t micro, std::int64_t accum, bool keepRank) {
        TrainingConfig cfg = training;
        cfg.microBatch = micro;
        cfg.accumulationSteps = accum;
        auto prep = prepareParallel(net, s, {}, cfg, cluster, cancel, nullptr, &lowered);
        if (!prep) return prep.error();
        return finishParallel(*prep, cfg.parallel, cluster, false, cancel, keepRank);
    }
    Result<bool> fits(std::int64_t micro, std::int64_t accum) {
        auto e = at(micro, accum, false);
        if (!e) return e.error();
        return e->fits;
    }
};

}  // namespace

Result<ParallelBatchFit> fitStrategyParallel(const Network& net, const Strategy& s,
                                             const TrainingConfig& training,
                                             const ClusterSpec& cluster, std::int64_t globalBatch,
                                             const CancelFlag* cancel) {
    if (s.kind == StrategyKind::Optimal || s.kind == StrategyKind::OptimalNested)
        return makeError(s.spelling() + ": a budget strategy plans each pipeline stage within its "
                                        "budget; the largest micro-batch is searched for the "
                                        "named strategies");
    const ParallelConfig& lay = training.parallel;
    if (auto st = validateLayout(net, lay); !st) return st.error();
    if (globalBatch > 0 && globalBatch % lay.dp != 0)
        return makeError("the global batch " + std::to_string(globalBatch) +
                         " does not split over the data-parallel degree " + std::to_string(lay.dp));
    Probe probe{net, s, training, cluster, cancel, {}};
    ParallelBatchFit out;
    out.fit.label = s.spelling();

    // The largest micro-batch at the configured accumulation: doubling, then bisection.
    const std::int64_t accum = training.accumulationSteps;
    auto one = probe.fits(1, accum);
    if (!one) return one.error();
    if (*one) {
        std::int64_t lo = 1, hi = 2;
        while (hi <= kMaxMicroBatch) {
            auto f = probe.fits(hi, accum);
            if (!f) return f.error();
            if (!*f) break;
            lo = hi;
            hi *= 2;
        }
        if (hi > kMaxMicroBatch) {
            lo = kMaxMicroBatch;
        } else {
            while (hi - lo > 1) {
                const std::int64_t mid = lo + (hi - lo) / 2;
                auto f = probe.fits(mid, accum);
                if (!f) return f.error();
                (*f ? lo : hi) = mid;
            }
        }
        out.fit.maxMicroBatch = lo;
    }

    // The setting reported: the largest divisor of G / dp that fits, else the largest at the
    // configured accumulation.
    std::int64_t micro = 0, steps = accum;
    if (globalBatch > 0) {
        const std::int64_t perRank = globalBatch / lay.dp;
        std::vector<std::int64_t> divisors;
        for (std::int64_t d = 1; d * d <= perRank; ++d)
            if (perRank % d == 0) {
                divisors.push_back(d);
                if (d != perRank / d) divisors.push_back(perRank / d);
            }
        std::sort(divisors.rbegin(), divisors.rend());
        for (std::int64_t d : divisors) {
            if (d > kMaxMicroBatch) continue;
            auto f = probe.fits(d, perRank / d);
            if (!f) return f.error();
            if (*f) {
                micro = d;
                steps = perRank / d;
                break;
            }
        }
    } else {
        micro = out.fit.maxMicroBatch;
    }
    if (micro < 1) {
        // Why not even one sample fits: full recompute at micro-batch 1, per GPU.
        Strategy full;
        full.kind = StrategyKind::Full;
        TrainingConfig one1 = training;
        one1.microBatch = 1;
        if (globalBatch > 0) one1.accumulationSteps = globalBatch / lay.dp;
        auto e = evaluateParallel(net, full, {}, one1, cluster, false, cancel);
        if (!e) return e.error();
        const std::string why = explainNoFit(e->evaluation.timeline, cluster.device);
        out.noFitReason =
            "per GPU with full checkpointing at micro-batch 1, " +
            (!why.empty() ? why
             : !e->hostFits
                 ? "the offloaded state needs " + formatBytes(e->hostBytesPerNode) +
                       " of host memory per node, more than its " +
                       formatBytes(cluster.hostMemoryBytes)
                 : std::string("one sample fits, but no plan fits with the accumulation steps "
                               "the global batch needs"));
        return out;
    }
    auto e = probe.at(micro, steps, true);
    if (!e) return e.error();
    if (!e->fits)
        return makeError(out.fit.label + ": internal error: micro-batch " + std::to_string(micro) +
                         " was found to fit but peaks at " +
                         std::to_string(e->evaluation.timeline.peakBytes) + " B");
    out.fit.microBatch = micro;
    out.fit.accumulationSteps = steps;
    out.fit.peakBytes = e->evaluation.timeline.peakBytes;
    out.fit.stepTimeS = e->time.totalS;
    out.fit.samplesPerS = e->samplesPerS();
    out.fit.plan = e->evaluation.program.plan;
    out.globalBatch = e->globalBatch;
    out.unsafe = e->evaluation.program.unsafeReasons;
    return out;
}

}  // namespace remat
