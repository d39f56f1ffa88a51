// The nested optimal planner, `optimal-nested:BUDGET`: the least-recompute plan of nested
// checkpointed regions (a region's recompute may itself leave sub-regions checkpointed, so some
// forwards run three or more times) whose peak fits the budget, for heterogeneous chains.
//
// A dynamic program in the manner of Beaumont, Eyraud-Dubois, Herrmann, Joly and Shilova,
// "Optimal checkpointing for heterogeneous chains" (2019): Lv(a, kept, j, m) is the least
// recompute time of the units a..j of a recompute level ending at j with m memory slots free,
// choosing the first segment (a kept unit, or a child region [a, l] whose own recompute is
// Lv(a, 1, l, .)) and recursing on the rest; the top level does the same without early stop. The
// per-segment bytes are ChainModel's, exact; only the free memory is discretised: the budget
// above the bytes every instruction holds (resident state) is cut into `slots` equal slots and
// every need and every kept amount is rounded up to whole slots, so a plan the program accepts
// always fits (its exact peak is computed by evaluateNested() and checked by simulation) and is
// optimal among plans whose rounded sizes fit. With one-byte slots the program is exact.
//
// Time O(units^3 x slots), memory O(units^2 x slots). The single-level optimum is also a nested
// plan; planOptimalNested returns whichever of the two is cheaper, so rounding never makes the
// nested answer worse than the single-level one.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "optimal.h"
#include "optimal_model.h"

namespace remat {

// A nested plan over units: a laminar set of regions (inclusive unit ranges).
struct NestedRegion {
    int first = 0, last = 0;
    bool operator==(const NestedRegion&) const = default;
};

struct NestedPlan {
    std::vector<NestedRegion> regions;  // outer before inner
    std::int64_t predictedPeakBytes = 0;
    double recomputeTimeS = 0.0;
};

// Exact peak and recompute time of a nested plan under the model (the objective the program
// optimises, byte-exact for any laminar plan over chain elements; tests hold it to the
// simulator). An error for regions that overlap, do not start and end at chain elements, or
// start where an in-place op overwrites the held input.
Result<NestedPlan> evaluateNested(const ChainModel& model, std::vector<NestedRegion> regions);

Plan nestedToPlan(const ChainModel& model, const std::vector<NestedRegion>& regions,
                  const std::string& strategy);

inline constexpr int kDefaultNestedSlots = 500;

// The nested dynamic program at one budget. Nothing when no plan fits at this discretisation.
std::optional<NestedPlan> solveNested(const ChainModel& model, std::int64_t budgetBytes,
                                      int slots = kDefaultNestedSlots);

// Builds the model, solves, keeps the cheaper of the nested and single-level optima, verifies by
// simulation. The plan's strategy is `optimal-nested:<budget>`. `cancel`, when set from another
// thread, stops the work between its stages with kCancelledMessage.
Result<VerifiedPlan> planOptimalNested(const Graph& g, const TrainingConfig& cfg,
                                       const DeviceSpec& device, std::int64_t budgetBytes,
                                       int slots = kDefaultNestedSlots,
                                       const CancelFlag* cancel = nullptr);

}  // namespace remat
