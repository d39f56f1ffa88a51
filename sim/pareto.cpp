#include "pareto.h"

#include <algorithm>
#include <limits>

#include "analysis.h"
#include "checked.h"
#include "compiler.h"
#include "optimal.h"
#include "optimal_budget.h"
#include "simulator.h"

namespace remat {
namespace {

Result<TradeoffPoint> simulatePoint(const Graph& g, const Plan& plan, const std::string& label,
                                    const TrainingConfig& cfg, const DeviceSpec& d) {
    auto p = compile(g, plan, cfg, compileOptionsFor(d));
    if (!p) return makeError(label + ": " + p.error().message);
    const Timeline t = simulate(g, *p, d);
    return TradeoffPoint{label, plan, t.peakBytes, t.timeS.total(), t.timeS.recompute};
}

Status cancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) return makeError("cancelled");
    return Ok{};
}

}  // namespace

Result<Tradeoff> computeTradeoff(const Graph& g, const TrainingConfig& cfg,
                                 const DeviceSpec& device, const std::atomic<bool>* cancel) {
    auto model = ChainModel::build(g, cfg, device);
    if (!model) return model.error();
    if (auto st = checkSingleLevelSearch(*model, "the optimal frontier"); !st) return st.error();
    OptimalPlanner planner(*model);
    Tradeoff out;
    Plan none;
    none.strategy = "none";
    auto base = simulatePoint(g, none, "none", cfg, device);
    if (!base) return base.error();
    out.baselineStepTimeS = base->stepTimeS;
    // Walk down from no checkpointing: each solve just below the last peak finds the next point.
    // The whole walk shares one search's worth of merge steps, and a bound on the instructions
    // its verifications simulate: the number of points is not known before.
    std::int64_t mergeSteps = 0, instructions = 0;
    std::int64_t budget = base->peakBytes;
    while (true) {
        if (auto st = cancelled(cancel); !st) return st.error();
        planner.setMergeStepLimit(kMaxOptimalMergeSteps - mergeSteps);
        auto sol = planner.solve(budget);
        mergeSteps += std::int64_t(planner.lastMergeSteps());
        if (planner.lastSearchTooLarge())
            return makeError(searchTooLargeMessage(
                "the optimal frontier (" + std::to_string(out.frontier.size()) +
                    " points so far)",
                mergeSteps, kMaxOptimalMergeSteps, planner.lastStopUnit(), model->unitCount()));
        if (!sol) break;
        const std::string label = "optimal:" + byteSizeSpelling(sol->predictedPeakBytes);
        auto v = verifyPlan(g, model->toPlan(sol->segments, label), cfg, device, budget,
                            sol->predictedPeakBytes, "optimal");
        if (!v) return v.error();
        instructions = satAdd(instructions, v->program.executedInstructions());
        if (instructions > kMaxFrontierInstructions)
            return makeError("the optimal frontier: its first " +
                             std::to_string(out.frontier.size() + 1) +
                             " points already simulate " + std::to_string(instructions) +
                             " instructions to verify; the largest frontier supported simulates " +
                             std::to_string(kMaxFrontierInstructions) +
                             ". Use fewer layers (or blocks), or compare the strategies without "
                             "the frontier");
        TradeoffPoint p{label, v->plan, v->timeline.peakBytes, v->timeline.timeS.total(),
                        v->timeline.timeS.recompute};
        // Equal time at a lower peak: the previous point is dominated.
        if (!out.frontier.empty() &&
            p.recomputeTimeS <= out.frontier.back().recomputeTimeS * (1 + 1e-12) + 1e-18)
            out.frontier.pop_back();
        out.frontier.push_back(std::move(p));
        budget = out.frontier.back().peakBytes - 1;
    }
    std::reverse(out.frontier.begin(), out.frontier.end());
    for (std::size_t k = 1; k <= g.chain.size(); ++k) {
        if (auto st = cancelled(cancel); !st) return st.error();
        Strategy s{StrategyKind::EveryK, std::int64_t(k), {}, 0, {}};
        auto plan = makePlan(g, s);
        if (!plan) return plan.error();
        auto p = simulatePoint(g, *plan, s.spelling(), cfg, device);
        if (!p) return p.error();
        out.everyK.push_back(std::move(*p));
    }
    for (const Strategy& s : comparisonStrategies(g, cfg.recomputeImpl)) {
        if (auto st = cancelled(cancel); !st) return st.error();
        auto plan = makePlan(g, s);
        if (!plan) return plan.error();
        auto p = simulatePoint(g, *plan, s.spelling(), cfg, device);
        if (!p) return p.error();
        out.named.push_back(std::move(*p));
    }
    return out;
}

TradeoffGain gainOver(const Tradeoff& t, const TradeoffPoint& p) {
    TradeoffGain gain{-1, std::numeric_limits<double>::infinity()};
    // Times of frontier points are sums in a different order than the plan's own: compare
    // with a relative tolerance so a plan on the frontier counts as matched by itself.
    const double tol = 1e-9 * std::max(1.0, p.stepTimeS);
    for (const TradeoffPoint& f : t.frontier) {
        if (f.stepTimeS <= p.stepTimeS + tol &&
            (gain.peakAtEqualTimeBytes < 0 || f.peakBytes < gain.peakAtEqualTimeBytes))
            gain.peakAtEqualTimeBytes = f.peakBytes;
        if (f.peakBytes <= p.peakBytes)
            gain.timeAtEqualMemoryS = std::min(gain.timeAtEqualMemoryS, f.stepTimeS);
    }
    return gain;
}

namespace {

TrainingConfig withBatch(TrainingConfig cfg, std::int64_t micro, std::int64_t accum) {
    cfg.microBatch = micro;
    cfg.accumulationSteps = accum;
    return cfg;
}

std::int64_t largestDivisorAtMost(std::int64_t n, std::int64_t cap) {
    for (std::int64_t d = std::min(n, cap); d >= 1; --d)
        if (n % d == 0) return d;
    return 0;
}

// Chooses (micro-batch, accumulation) from the largest fitting micro-batch with one step
// (`maxOne`) and with several (`maxMany`, gradients resident throughout).
void choose(BatchFit& fit, std::int64_t globalBatch, std::int64_t maxOne, std::int64_t maxMany,
            std::int64_t configuredAccum) {
    if (globalBatch <= 0) {
        fit.maxMicroBatch = configuredAccum >= 2 ? maxMany : maxOne;
        fit.microBatch = fit.maxMicroBatch;
        fit.accumulationSteps = configuredAccum;
        return;
    }
    fit.maxMicroBatch = maxMany;
    if (globalBatch <= maxOne) {
        fit.microBatch = globalBatch;
        fit.accumulationSteps = 1;
        fit.maxMicroBatch = maxOne;
        return;
    }
    fit.microBatch = largestDivisorAtMost(globalBatch, maxMany);
    fit.accumulationSteps = fit.microBatch > 0 ? globalBatch / fit.microBatch : 0;
}

}  // namespace

Result<BatchFit> fitStrategy(const Graph& g, const Strategy& s,
                             const std::vector<RegionSpec>& manual, const TrainingConfig& cfg,
                             const DeviceSpec& device, std::int64_t globalBatch) {
    if (s.kind == StrategyKind::Optimal || s.kind == StrategyKind::OptimalNested)
        return makeError(s.spelling() + ": the budget planners are fitted by fitOptimal");
    auto plan = makePlan(g, s, PlanContext{manual, &cfg, &device});
    if (!plan) return plan.error();
    // The plan does not depend on the micro-batch: one simulation gives the largest that fits
    // (every size is affine in it), for one accumulation step and for several.
    auto largest = [&](std::int64_t accum) -> Result<std::int64_t> {
        auto p = compile(g, *plan, withBatch(cfg, 1, accum), compileOptionsFor(device));
        if (!p) return p.error();
        return std::min(simulate(g, *p, device).maxMicroBatch, kMaxMicroBatch);
    };
    auto one = largest(1);
    if (!one) return one.error();
    auto many = largest(2);
    if (!many) return many.error();
    BatchFit fit;
    fit.label = s.spelling();
    fit.plan = *plan;
    choose(fit, globalBatch, *one, *many, cfg.accumulationSteps);
    if (fit.microBatch < 1) return fit;
    auto p = compile(g, *plan, withBatch(cfg, fit.microBatch, fit.accumulationSteps),
                     compileOptionsFor(device));
    if (!p) return p.error();
    const Timeline t = simulate(g, *p, device);
    if (t.peakBytes > device.usableBytes())
        return makeError(fit.label + ": internal error: micro-batch " +
                         std::to_string(fit.microBatch) + " was predicted to fit but peaks at " +
                         std::to_string(t.peakBytes) + " B");
    fit.peakBytes = t.peakBytes;
    fit.stepTimeS = t.timeS.total();
    fit.samplesPerS = t.samplesPerS();
    return fit;
}

Result<BatchFit> fitOptimal(const Graph& g, const TrainingConfig& cfg, const DeviceSpec& device,
                            std::int64_t globalBatch) {
    const std::int64_t usable = device.usableBytes();
    {
        auto m = ChainModel::build(g, cfg, device);
        if (!m) return m.error();
        if (auto st = checkSingleLevelSearch(*m, "the micro-batch search"); !st) return st.error();
    }
    // Some single-level plan fits at this micro-batch: the smallest reachable peak fits. It
    // grows with the micro-batch, so the largest fitting one is found by doubling then bisection.
    auto fits = [&](std::int64_t micro, std::int64_t accum) -> Result<bool> {
        auto m = ChainModel::build(g, withBatch(cfg, micro, accum), device);
        if (!m) return m.error();
        return OptimalPlanner(*m).minimumPeak().predictedPeakBytes <= usable;
    };
    auto largest = [&](std::int64_t accum) -> Result<std::int64_t> {
        auto f = fits(1, accum);
        if (!f) return f.error();
        if (!*f) return std::int64_t{0};
        std::int64_t lo = 1, hi = 2;
        while (hi <= kMaxMicroBatch) {
            auto fh = fits(hi, accum);
            if (!fh) return fh.error();
            if (!*fh) break;
            lo = hi;
            hi *= 2;
        }
        if (hi > kMaxMicroBatch) return lo;
        while (hi - lo > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            auto fm = fits(mid, accum);
            if (!fm) return fm.error();
            (*fm ? lo : hi) = mid;
        }
        return lo;
    };
    auto one = largest(1);
    if (!one) return one.error();
    auto many = largest(2);
    if (!many) return many.error();
    BatchFit fit;
    fit.label = "optimal";
    choose(fit, globalBatch, *one, *many, cfg.accumulationSteps);
    if (fit.microBatch < 1) return fit;
    auto v = planOptimal(g, withBatch(cfg, fit.microBatch, fit.accumulationSteps), device, usable);
    if (!v) return v.error();
    fit.plan = v->plan;
    fit.peakBytes = v->timeline.peakBytes;
    fit.stepTimeS = v->timeline.timeS.total();
    fit.samplesPerS = v->timeline.samplesPerS();
    return fit;
}

}  // namespace remat
