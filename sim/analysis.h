// One-call evaluation of a strategy on a lowered network: plan, compile, simulate, and the
// comparison against no checkpointing (memory saved, recompute overhead). The CLI's simulate
// and compare and the GUI's summary and comparison table all go through here.
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
    // Extra step time relative to no checkpointing: (time - time_none) / time_none.
    double recomputeOverhead() const;
    double memorySavedFraction() const;  // 1 - peak / peak_none
};

struct Baseline {
    std::int64_t peakBytes = 0;
    double timeS = 0.0;
};

CompileOptions compileOptionsFor(const DeviceSpec& d);

Result<Baseline> evaluateBaseline(const Graph& g, const TrainingConfig& cfg, const DeviceSpec& d);

// `baseline` may be given to skip re-simulating plan `none`.
Result<Evaluation> evaluate(const Graph& g, const Strategy& s,
                            const std::vector<RegionSpec>& manual, const TrainingConfig& cfg,
                            const DeviceSpec& d, const Baseline* baseline = nullptr);

}  // namespace remat
