// The trade-off explorer behind `remat pareto`, `remat max-batch` and the GUI's trade-off plot:
// the frontier of (peak memory, step time) the single-level optimum traces from the smallest
// feasible budget up to no checkpointing, the every-k and named strategies beside it, how much
// the optimum gains over each (memory at equal time, time at equal memory), and the largest
// micro-batch each strategy fits on a device with the accumulation steps that reach a global
// batch. Every point is a plan compiled and simulated; nothing here is estimated.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "device.h"
#include "graph.h"
#include "network.h"
#include "plan.h"
#include "result.h"
#include "strategy.h"

namespace remat {

struct TradeoffPoint {
    std::string label;  // "optimal:52GiB", "every:3", "sqrt", ...
    Plan plan;
    std::int64_t peakBytes = 0;
    double stepTimeS = 0.0;
    double recomputeTimeS = 0.0;
};

struct Tradeoff {
    // The optimum's frontier: ascending peak, strictly descending step time; its last point is
    // the no-checkpointing plan, its first the smallest peak any single-level plan reaches.
    std::vector<TradeoffPoint> frontier;
    std::vector<TradeoffPoint> everyK;  // every:1 (= full) .. every:N
    std::vector<TradeoffPoint> named;   // comparisonStrategies(): none, full, sqrt, selective...
    double baselineStepTimeS = 0.0;     // no checkpointing
};

// Builds the frontier by re-solving just below each point's peak. `cancel`, when set from
// another thread, stops the work and returns an error.
Result<Tradeoff> computeTradeoff(const Graph& g, const TrainingConfig& cfg,
                                 const DeviceSpec& device,
                                 const std::atomic<bool>* cancel = nullptr);

// What the optimum saves against one plan: the least peak among frontier points no slower than
// it, and the least step time among frontier points whose peak is no larger.
struct TradeoffGain {
    std::int64_t peakAtEqualTimeBytes = 0;
    double timeAtEqualMemoryS = 0.0;
};
TradeoffGain gainOver(const Tradeoff& t, const TradeoffPoint& p);

// ---- largest micro-batch -----------------------------------------------------------------

struct BatchFit {
    std::string label;               // strategy spelling ("optimal" for the optimum)
    std::int64_t maxMicroBatch = 0;  // largest that fits (0: not even one sample)
    std::int64_t microBatch = 0;     // chosen to reach the global batch
    std::int64_t accumulationSteps = 0;
    std::int64_t peakBytes = 0;  // simulated at the chosen micro-batch
    double stepTimeS = 0.0;
    double samplesPerS = 0.0;
    Plan plan;
};

// For each strategy (budget-free ones; the optimum is searched separately): the largest
// micro-batch whose simulated peak fits the device's usable memory. With a global batch G > 0
// the micro-batch is the largest divisor of G that fits and the accumulation steps G / it
// (one step when G itself fits); otherwise the configured accumulation steps are kept.
// Throughput comes from re-simulating at the chosen setting.
Result<BatchFit> fitStrategy(const Graph& g, const Strategy& s,
                             const std::vector<RegionSpec>& manual, const TrainingConfig& cfg,
                             const DeviceSpec& device, std::int64_t globalBatch);
// The same for the single-level optimum at the device's usable memory (the plan depends on the
// micro-batch, so the answer comes from a search over micro-batches).
Result<BatchFit> fitOptimal(const Graph& g, const TrainingConfig& cfg, const DeviceSpec& device,
                            std::int64_t globalBatch);

}  // namespace remat
