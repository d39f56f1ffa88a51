// The strategy comparison as a plain computation, run off the GUI thread by ComparisonPanel and
// called directly by tests: the model is lowered once, the no-checkpoint baseline simulated
// once, then every named strategy (those `remat compare` shows, the file's manual plan, and the
// current strategy when it is none of them) and every:K for every K from 1 to the chain length
// is evaluated through remat::evaluate; last comes the optimal frontier (remat::computeTradeoff:
// the least step time the single-level optimal planner reaches at each peak, from the smallest
// feasible peak to no checkpointing). Only the figures a table or a plot shows are kept (the
// programs are dropped as soon as each is summarised). Cancellation is checked between
// strategies and inside the frontier; progress is reported after each strategy and after the
// frontier. Under a parallel layout (training.parallel not single) every row is per GPU, for the
// rank that peaks, on the request's cluster: each strategy's layout evaluated whole
// (remat::evaluateParallel, the step time the whole step's), every:K within a pipeline stage,
// and no optimal frontier (frontierError says why).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis.h"
#include "cluster.h"
#include "device.h"
#include "graph.h"
#include "instruction_caption.h"
#include "model_file.h"
#include "network.h"
#include "strategy.h"

namespace remat::ui {

struct ComparisonRow {
    std::string spelling;  // "every:3"
    bool ok = true;
    std::string error;  // why this strategy could not be evaluated (ok == false)
    std::int64_t peakBytes = 0;
    std::int64_t baselinePeakBytes = 0;
    double memorySavedFraction = 0.0;       // of the whole peak without checkpointing
    double activationsSavedFraction = 0.0;  // of the activations kept for backward without it
    double recomputeOverhead = 0.0;         // of the whole step without checkpointing
    double stepTimeS = 0.0;
    double samplesPerS = 0.0;
    std::int64_t maxMicroBatch = 0;  // kMaxMicroBatch: memory does not grow with it
    bool fits = false;
    // The compiler's verdict: the program is valid but its gradients differ from training
    // without checkpointing (Program::unsafeReasons), the first reason here.
    bool unsafe = false;
    std::string unsafeReason;
    std::string peakCaption;  // the instruction at the peak, in English (for the CSV export)
    std::optional<InstructionParts> peakAt;  // the same, for a caption in the GUI's language
};

// One plan of the optimal frontier. `spelling` is the strategy that applies it:
// `optimal:PEAK` with the point's exact simulated peak in bytes as the budget, which the
// planner answers with this plan (or one no higher and no slower).
struct FrontierPoint {
    std::string spelling;  // "optimal:7571371520"
    std::int64_t peakBytes = 0;
    double stepTimeS = 0.0;
    double recomputeTimeS = 0.0;
    double memorySavedFraction = 0.0;  // against no checkpointing, as ComparisonRow's
    double recomputeOverhead = 0.0;    // fraction of the no-checkpoint step time
    bool fits = false;                 // peak within the device's usable memory
};

struct ComparisonRequest {
    ModelFile model;
    TrainingConfig training;
    DeviceSpec device;
    std::string currentStrategy;  // highlighted; evaluated too when it is not a named one
    // The cluster a parallel layout runs on; under a layout without one, the device's own.
    std::optional<ClusterSpec> cluster;
};

struct ComparisonResult {
    std::vector<ComparisonRow> named;   // the table, in display order
    std::vector<ComparisonRow> everyK;  // every:1 .. every:N, the trade-off curve
    // Ascending peak, descending step time; the last point is no checkpointing.
    std::vector<FrontierPoint> frontier;
    // Why there is no frontier (the network is outside the optimal planner's model); the rest
    // of the result is still complete.
    std::string frontierError;
    std::size_t chainLength = 0;
    std::int64_t usableBytes = 0;
    // Under a parallel layout: every figure per GPU, of the rank that peaks.
    bool perGpu = false;
    std::string deviceName;
    std::string modelName;
    std::string error;          // the model itself could not be evaluated: no rows at all
    bool curveDone = false;     // everyK complete (the table is ready before the curve)
    bool frontierDone = false;  // the frontier computed (or frontierError set): all complete
    bool cancelled = false;
};

struct ComparisonHooks {
    std::function<bool()> cancelled;  // checked between strategies
    // Set from another thread to stop the work; also checked inside the frontier, which is one
    // long computation (a cancelled frontier leaves the result cancelled).
    const std::atomic<bool>* cancelFlag = nullptr;
    std::function<void(int done, int total)> progress;
    // Called once the table rows are done, before the curve is computed.
    std::function<void(const ComparisonResult&)> namedReady;
    // Called once the every:K curve is done, before the frontier is computed.
    std::function<void(const ComparisonResult&)> curveReady;
};

// Named strategies in display order: those of comparisonStrategies(), the file's manual plan
// second when it has one, and `current` last when it is none of them (and parses).
std::vector<Strategy> namedStrategies(const Graph& g, const ModelFile& model,
                                      const std::string& current);

ComparisonRow summarise(const Graph& g, const Evaluation& e);

ComparisonResult computeComparison(const ComparisonRequest& request,
                                   const ComparisonHooks& hooks = {});

}  // namespace remat::ui
