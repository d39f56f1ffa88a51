#include "document_evaluation.h"

#include <QFuture>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <ctime>

#include "compiler.h"
#include "lower.h"
#include "strategy.h"

namespace remat::ui {

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

namespace {

// A layout over several GPUs: the peaking rank's graph and evaluation become the state's, the
// rest of the parallel evaluation (stages, step time, MFU) stays beside them. The caches are
// not used: every stage is lowered with its own sharding.
Result<std::shared_ptr<DocumentState>> evaluateParallelState(const ModelFile& model,
                                                             const DeviceSpec& device,
                                                             const CancelFlag* cancel) {
    auto shapes = inferShapes(model.network);
    if (!shapes) return shapes.error();
    auto strategy = parseStrategy(defaultStrategy(model));
    if (!strategy) return strategy.error();
    const ClusterSpec cluster = clusterForDevice(device);
    auto pe = evaluateParallel(model.network, *strategy, manualRegions(model), model.training,
                               cluster, true, cancel);
    if (!pe) return pe.error();
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    auto state = std::make_shared<DocumentState>();
    state->model = model;
    state->device = device;
    state->cluster = cluster;
    state->graph = std::make_shared<const Graph>(std::move(pe->graph));
    pe->graph = Graph{};
    state->shapes = std::move(*shapes);
    state->evaluation = std::move(pe->evaluation);
    pe->evaluation = Evaluation{};
    state->kept = KeptActivations(*state->graph, state->evaluation.program);
    state->series = std::make_shared<const TimelineSeriesInputs>(timelineSeriesInputs(
        *state->graph, state->evaluation.program, state->evaluation.timeline));
    state->parallel = std::make_shared<const ParallelEvaluation>(std::move(*pe));
    return state;
}

}  // namespace

Result<EvaluationOutcome> evaluateDocumentModel(const ModelFile& model, const DeviceSpec& device,
                                                const EvaluationCache& cacheIn,
                                                const CancelFlag* cancel,
                                                QThreadPool* helperPool) {
    const auto start = std::chrono::steady_clock::now();
    const double startCpu = threadCpuMs();
    EvaluationCache cache = cacheIn;
    if (!model.training.parallel.single()) {
        auto state = evaluateParallelState(model, device, cancel);
        if (!state) return state.error();
        (*state)->evaluateMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        (*state)->evaluateCpuMs = threadCpuMs() - startCpu;
        return EvaluationOutcome{std::shared_ptr<const DocumentState>(std::move(*state)),
                                 std::move(cache)};
    }

    std::shared_ptr<const Graph> graph;
    if (cache.graph && sameStructure(cache.graphNetwork, model.network) &&
        cache.graphPrecision == model.training.precision &&
        cache.graphLossImpl == model.training.lossImpl) {
        graph = cache.graph;
    } else {
        auto lowered = lower(model.network, model.training);
        if (!lowered) return lowered.error();
        graph = std::make_shared<const Graph>(std::move(*lowered));
        cache.graph = graph;
        cache.graphNetwork = model.network;
        cache.graphPrecision = model.training.precision;
        cache.graphLossImpl = model.training.lossImpl;
        cache.baseline.reset();
    }
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    auto shapes = inferShapes(model.network);
    if (!shapes) return shapes.error();
    auto strategy = parseStrategy(defaultStrategy(model));
    if (!strategy) return strategy.error();
    const std::vector<RegionSpec> manual = manualRegions(model);

    const bool baselineCached = cache.baseline && cache.baselineGraph == graph &&
                                cache.baselineTraining == model.training &&
                                cache.baselineDevice == device.id;
    Result<Evaluation> evaluation = makeError("not evaluated");
    if (baselineCached || strategy->kind == StrategyKind::None) {
        evaluation = evaluate(*graph, *strategy, manual, model.training, device,
                              baselineCached ? &*cache.baseline : nullptr, cancel);
    } else {
        // The baseline (plan `none`) costs as much as the plan itself: run both at once.
        const Graph* g = graph.get();
        const TrainingConfig training = model.training;
        const DeviceSpec d = device;
        auto work = [g, training, d, cancel] { return evaluateBaseline(*g, training, d, cancel); };
        QFuture<Result<Baseline>> baseline =
            helperPool ? QtConcurrent::run(helperPool, work) : QtConcurrent::run(work);
        const Baseline placeholder;
        evaluation =
            evaluate(*graph, *strategy, manual, model.training, device, &placeholder, cancel);
        Result<Baseline> b = baseline.result();
        if (cancelRequested(cancel)) return makeError(kCancelledMessage);
        if (!b) return b.error();
        if (evaluation) {
            evaluation->baselinePeakBytes = b->peakBytes;
            evaluation->baselineTimeS = b->timeS;
            evaluation->baselineSavedActivationBytes = b->savedActivationBytes;
        }
        cache.baseline = *b;
        cache.baselineGraph = graph;
        cache.baselineTraining = model.training;
        cache.baselineDevice = device.id;
    }
    if (!evaluation) return evaluation.error();
    if (!baselineCached && strategy->kind == StrategyKind::None) {
        cache.baseline = Baseline{evaluation->baselinePeakBytes, evaluation->baselineTimeS,
                                  evaluation->baselineSavedActivationBytes};
        cache.baselineGraph = graph;
        cache.baselineTraining = model.training;
        cache.baselineDevice = device.id;
    }

    auto state = std::make_shared<DocumentState>();
    state->model = model;
    state->device = device;
    state->cluster = clusterForDevice(device);
    state->graph = graph;
    state->shapes = std::move(*shapes);
    state->kept = KeptActivations(*graph, evaluation->program);
    state->evaluation = std::move(*evaluation);
    state->series = std::make_shared<const TimelineSeriesInputs>(timelineSeriesInputs(
        *graph, state->evaluation.program, state->evaluation.timeline));
    state->evaluateMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    state->evaluateCpuMs = threadCpuMs() - startCpu;
    return EvaluationOutcome{std::shared_ptr<const DocumentState>(std::move(state)),
                             std::move(cache)};
}

namespace {

// Lowered ops per layer instance when no graph of this network is at hand: a transformer block
// lowers to about 35, a residual block to fewer; erring high only sends a borderline model to
// the background.
constexpr std::int64_t kOpsPerInstanceGuess = 40;

std::int64_t saturatingMul(std::int64_t a, std::int64_t b) {
    if (a <= 0 || b <= 0) return 0;
    constexpr std::int64_t kMax = std::int64_t{1} << 62;
    return a > kMax / b ? kMax : a * b;
}

// How many times a forward op runs again at most, per micro-step, under `s` (the compiler's own
// bound is exact; this one needs no plan): once for single-level plans, the number of extra
// forward sweeps binomial checkpointing needs for `units` elements with C checkpoints, a few
// levels for nested plans.
std::int64_t recomputeDepth(const Strategy& s, std::int64_t units) {
    switch (s.kind) {
        case StrategyKind::None: return 0;
        case StrategyKind::Revolve: {
            // Smallest r with binom(C + r, C) >= units.
            const std::int64_t c = std::max<std::int64_t>(1, s.k);
            std::int64_t r = 0;
            double reach = 1.0;
            while (reach < double(units) && r < units) {
                ++r;
                reach = reach * double(c + r) / double(r);
            }
            return std::max<std::int64_t>(1, r);
        }
        case StrategyKind::OptimalNested:
        case StrategyKind::Manual: return 3;
        default: return 1;
    }
}

}  // namespace

EvaluationEstimate estimateEvaluation(const ModelFile& model, const std::string& deviceId,
                                      const EvaluationCache& cache) {
    EvaluationEstimate e;
    e.chainUnits = expandedLayerCount(model.network);
    // A parallel layout lowers every pipeline stage afresh, sharded: nothing cached applies.
    const bool lowered = model.training.parallel.single() && cache.graph &&
                         cache.graphPrecision == model.training.precision &&
                         cache.graphLossImpl == model.training.lossImpl &&
                         sameStructure(cache.graphNetwork, model.network);
    e.ops = lowered ? std::int64_t(cache.graph->ops.size())
                    : saturatingMul(e.chainUnits, kOpsPerInstanceGuess);
    auto strategy = parseStrategy(defaultStrategy(model));
    // Micro-steps the program writes out: all of them, or three when accumulation compiles to
    // a repeated body (the middle micro-steps cost time, not instructions).
    const std::int64_t accumulation = std::max<std::int64_t>(1, model.training.accumulationSteps);
    const std::int64_t steps = accumulation >= kCompactAccumulationFrom ? 3 : accumulation;
    // The compiler's count: forward and backward once per written micro-step, each recompute
    // once more, allocs and frees about twice the compute instructions.
    const std::int64_t depth = strategy ? recomputeDepth(*strategy, e.chainUnits) : 1;
    const std::int64_t perStep = saturatingMul(3, saturatingMul(e.ops, 2 + depth));
    e.instructions = saturatingMul(perStep, steps);
    const bool baselineCached = lowered && cache.baseline && cache.baselineGraph == cache.graph &&
                                cache.baselineTraining == model.training &&
                                cache.baselineDevice == deviceId;
    if (!baselineCached && strategy && strategy->kind != StrategyKind::None)
        e.instructions += saturatingMul(saturatingMul(6, e.ops), steps);

    const bool optimal = strategy && (strategy->kind == StrategyKind::Optimal ||
                                      strategy->kind == StrategyKind::OptimalNested);
    if (optimal && e.chainUnits > kCheapPlannerUnits)
        e.work = EvaluationWork::Planning;
    else if (e.instructions > kCheapInstructions || (!lowered && e.ops > kCheapLoweredOps))
        e.work = EvaluationWork::Simulating;
    return e;
}

}  // namespace remat::ui
