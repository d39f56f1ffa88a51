#include "comparison_worker.h"

#include <algorithm>

#include "lower.h"
#include "parallel_eval.h"
#include "pareto.h"

namespace remat::ui {
namespace {

bool hasManualPlan(const ModelFile& m) {
    return m.planForm == PlanForm::PerLayer || m.planForm == PlanForm::Regions;
}

ComparisonRow failedRow(const std::string& spelling, const std::string& error) {
    ComparisonRow r;
    r.spelling = spelling;
    r.ok = false;
    r.error = error;
    return r;
}

}  // namespace

std::vector<Strategy> namedStrategies(const Graph& g, const ModelFile& model,
                                      const std::string& current) {
    std::vector<Strategy> out = comparisonStrategies(g, model.training.recomputeImpl);
    if (hasManualPlan(model))
        out.insert(out.begin() + std::min<std::ptrdiff_t>(1, std::ptrdiff_t(out.size())),
                   Strategy{StrategyKind::Manual, 0, {}, 0, {}});
    if (!current.empty()) {
        auto parsed = parseStrategy(current);
        if (parsed && !(parsed->kind == StrategyKind::Manual && !hasManualPlan(model))) {
            const std::string spelling = parsed->spelling();
            const bool present = std::any_of(out.begin(), out.end(), [&](const Strategy& s) {
                return s.spelling() == spelling;
            });
            if (!present) out.push_back(*parsed);
        }
    }
    return out;
}

ComparisonRow summarise(const Graph& g, const Evaluation& e) {
    ComparisonRow r;
    const Timeline& t = e.timeline;
    r.spelling = e.strategy.spelling();
    r.peakBytes = t.peakBytes;
    r.baselinePeakBytes = e.baselinePeakBytes;
    r.memorySavedFraction = e.memorySavedFraction();
    r.activationsSavedFraction = e.activationsSavedFraction();
    r.unsafe = e.program.unsafe();
    if (r.unsafe) r.unsafeReason = e.program.allUnsafeReasons().front();
    r.recomputeOverhead = e.recomputeOverhead();
    r.stepTimeS = t.timeS.total();
    r.samplesPerS = t.samplesPerS();
    r.maxMicroBatch = t.maxMicroBatch;
    r.fits = t.fits;
    r.peakCaption = describeInstruction(g, e.program, t.peakInstruction);
    if (t.peakInstruction < e.program.instructions.size())
        r.peakAt = instructionParts(g, e.program, t.peakInstruction);
    return r;
}

ComparisonResult computeComparison(const ComparisonRequest& request, const ComparisonHooks& hooks) {
    ComparisonResult result;
    result.usableBytes = request.device.usableBytes();
    result.deviceName = request.device.name;
    result.modelName = request.model.network.name;
    auto cancelled = [&] {
        if ((hooks.cancelled && hooks.cancelled()) ||
            (hooks.cancelFlag && hooks.cancelFlag->load()))
            result.cancelled = true;
        return result.cancelled;
    };
    auto graph = lower(request.model.network, request.training);
    if (!graph) {
        result.error = graph.error().message;
        return result;
    }
    const Graph& g = *graph;
    result.chainLength = g.chain.size();
    const ParallelConfig& lay = request.training.parallel;
    if (!lay.single()) {
        // Per GPU, the rank that peaks: every strategy's layout evaluated whole.
        result.perGpu = true;
        const ClusterSpec cluster =
            request.cluster ? *request.cluster : clusterForDevice(request.device);
        result.usableBytes = cluster.device.usableBytes();
        const std::vector<RegionSpec> manual =
            lay.pp > 1 ? std::vector<RegionSpec>{} : manualRegions(request.model);
        std::vector<Strategy> named = namedStrategies(g, request.model, request.currentStrategy);
        if (lay.pp > 1)
            named.erase(std::remove_if(named.begin(), named.end(),
                                       [](const Strategy& s) {
                                           return s.kind == StrategyKind::Manual;
                                       }),
                        named.end());
        const std::size_t perStage = g.chain.size() / std::size_t(std::max<std::int64_t>(lay.pp, 1));
        result.chainLength = perStage;
        const int total = int(named.size() + perStage) + 1;
        int done = 0;
        auto evaluateOne = [&](const Strategy& s) {
            auto e = evaluateParallel(request.model.network, s, manual, request.training, cluster,
                                      true);
            ++done;
            if (hooks.progress) hooks.progress(done, total);
            if (!e) return failedRow(s.spelling(), e.error().message);
            ComparisonRow r = summarise(e->graph, e->evaluation);
            r.stepTimeS = e->time.totalS;
            r.samplesPerS = e->samplesPerS();
            r.fits = e->fits;
            return r;
        };
        for (const Strategy& s : named) {
            if (cancelled()) return result;
            result.named.push_back(evaluateOne(s));
        }
        if (hooks.namedReady) hooks.namedReady(result);
        for (std::size_t k = 1; k <= perStage; ++k) {
            if (cancelled()) return result;
            result.everyK.push_back(
                evaluateOne(Strategy{StrategyKind::EveryK, std::int64_t(k), {}, 0, {}}));
        }
        result.curveDone = true;
        if (hooks.curveReady) hooks.curveReady(result);
        result.frontierError =
            "the optimal frontier is not searched under a parallel layout: optimal:BUDGET plans "
            "each pipeline stage within BUDGET, the other in-flight micro-batches on top";
        ++done;
        if (hooks.progress) hooks.progress(done, total);
        result.frontierDone = true;
        return result;
    }
    auto baseline = evaluateBaseline(g, request.training, request.device);
    if (!baseline) {
        result.error = baseline.error().message;
        return result;
    }
    const std::vector<RegionSpec> manual = manualRegions(request.model);
    const std::vector<Strategy> named = namedStrategies(g, request.model, request.currentStrategy);
    // The frontier counts as one step: it is one computation.
    const int total = int(named.size() + g.chain.size()) + 1;
    int done = 0;
    auto evaluateOne = [&](const Strategy& s) {
        auto e = evaluate(g, s, manual, request.training, request.device, &*baseline);
        ++done;
        if (hooks.progress) hooks.progress(done, total);
        return e ? summarise(g, *e) : failedRow(s.spelling(), e.error().message);
    };
    for (const Strategy& s : named) {
        if (cancelled()) return result;
        result.named.push_back(evaluateOne(s));
    }
    if (hooks.namedReady) hooks.namedReady(result);
    for (std::size_t k = 1; k <= g.chain.size(); ++k) {
        if (cancelled()) return result;
        result.everyK.push_back(
            evaluateOne(Strategy{StrategyKind::EveryK, std::int64_t(k), {}, 0, {}}));
    }
    result.curveDone = true;
    if (hooks.curveReady) hooks.curveReady(result);
    if (cancelled()) return result;
    auto tradeoff = computeTradeoff(g, request.training, request.device, hooks.cancelFlag);
    if (cancelled()) return result;  // the frontier stopped half way
    if (tradeoff) {
        for (const TradeoffPoint& p : tradeoff->frontier) {
            const Strategy budget{StrategyKind::Optimal, 0, {}, p.peakBytes, {}};
            FrontierPoint f{budget.spelling(), p.peakBytes, p.stepTimeS, p.recomputeTimeS};
            if (baseline->peakBytes > 0)
                f.memorySavedFraction = 1.0 - double(p.peakBytes) / double(baseline->peakBytes);
            if (baseline->timeS > 0)
                f.recomputeOverhead = (p.stepTimeS - baseline->timeS) / baseline->timeS;
            f.fits = p.peakBytes <= result.usableBytes;
            result.frontier.push_back(std::move(f));
        }
    } else {
        result.frontierError = tradeoff.error().message;
    }
    ++done;
    if (hooks.progress) hooks.progress(done, total);
    result.frontierDone = true;
    return result;
}

}  // namespace remat::ui
