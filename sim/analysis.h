// One-call evaluation of a strategy on a lowered network: plan, compile, simulate, and the
// comparison against no checkpointing (memory saved, recompute overhead). The CLI's simulate
// and compare and the GUI's summary and comparison table all go through here, and so do the
// sentences that say in numbers why a plan does not fit the device or why a memory budget
// cannot be met, so that the CLI and the GUI word them alike.
#pragma once

#include <string>
#include <vector>

#include "compiler.h"
#include "device.h"
#include "graph.h"
#include "program.h"
#include "simulator.h"
#include "strategy.h"

namespace remat {

struct Evaluation {
    Strategy strategy;
    Program program;
    Timeline timeline;
    std::int64_t baselinePeakBytes = 0;  // plan `none`, same settings
    double baselineTimeS = 0.0;
    std::int64_t baselineSavedActivationBytes = 0;  // plan `none`'s Timeline::savedActivationBytes
    // Extra step time relative to no checkpointing: (time - time_none) / time_none, both whole
    // steps (forward + recompute + backward + optimizer of every micro-batch).
    double recomputeOverhead() const;
    // Of the whole peak: 1 - peak / peak_none.
    double memorySavedFraction() const;
    // Of the activations held for backward: 1 - saved / saved_none (Timeline::
    // savedActivationBytes, measured just before the last micro-batch's backward).
    double activationsSavedFraction() const;
};

struct Baseline {
    std::int64_t peakBytes = 0;
    double timeS = 0.0;
    std::int64_t savedActivationBytes = 0;
};

CompileOptions compileOptionsFor(const DeviceSpec& d);

// `cancel`, when set from another thread, stops the work early with kCancelledMessage.
Result<Baseline> evaluateBaseline(const Graph& g, const TrainingConfig& cfg, const DeviceSpec& d,
                                  const CancelFlag* cancel = nullptr);

// `baseline` may be given to skip re-simulating plan `none`. `cancel` stops planning,
// compiling and simulating early (the result is then the error kCancelledMessage). `opTimes`
// is passed to the simulation of the plan's program (simulator.h OpTimeMemo).
Result<Evaluation> evaluate(const Graph& g, const Strategy& s,
                            const std::vector<RegionSpec>& manual, const TrainingConfig& cfg,
                            const DeviceSpec& d, const Baseline* baseline = nullptr,
                            const CancelFlag* cancel = nullptr, OpTimeMemo* opTimes = nullptr);

// The most bytes parameters, gradients and optimizer state hold together at any instruction:
// what no checkpointing plan can remove.
std::int64_t modelStateBytes(const Timeline& t);

// Why a simulated plan does not fit the device, in numbers, largest term first:
// "model states alone (parameters, gradients, optimizer state) take 1.91 TiB of the device's
// 79.00 GiB usable; no checkpointing plan or micro-batch changes that", or "the peak of 95.1 GiB
// exceeds the device's 79.00 GiB usable by 16.1 GiB: at the peak activations take ..., model
// states ...; micro-batch 12 or smaller fits with this plan". Empty when it fits.
std::string explainNoFit(const Timeline& t, const DeviceSpec& d);

// Why `s` (optimal:BUDGET or optimal-nested:BUDGET) has no plan within its budget, when that is
// the reason: the smallest peak a single-level plan reaches, the smallest budget that works in
// the user's unit rounded up (pasting it back works), the largest terms of that peak and what
// could lower it (never the strategy that just failed). Empty when the budget is not below that
// smallest peak (the failure, if any, has another cause) or for other strategies.
std::string explainBudgetInfeasible(const Graph& g, const Strategy& s, const TrainingConfig& cfg,
                                    const DeviceSpec& d);
// The same message from the timeline of the plan that reaches the smallest single-level peak:
// the smallest budget that works, rounded up in the unit the budget was written in
// (`budgetWritten`, "7.5GiB"; empty: the planners' own spelling), and the largest terms.
std::string budgetInfeasibleMessage(const Timeline& best, std::int64_t microBatch,
                                    std::int64_t budgetBytes, const std::string& budgetWritten,
                                    bool nested);

}  // namespace remat
