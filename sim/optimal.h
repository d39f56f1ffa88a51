// The single-level optimal planner, `optimal:BUDGET`: among the plans torch.utils.checkpoint can
// express over the chain (each chain element kept or inside one region of consecutive
// elements), the one with the least recompute time whose simulated peak is within the budget.
// A dynamic program over unit boundaries keeps, per boundary and per "is the stream already
// kept" flag, the Pareto set of (bytes kept for later, recompute time so far); segment costs come
// from ChainModel, so bytes are exact (no memory grid) and the optimum is exact. A table of the
// smallest peak any suffix can reach prunes states that cannot finish, and answers infeasible
// budgets with the smallest reachable peak. For long chains a lower bound on the rest's recompute
// time (on a grid of remaining budgets) steers a narrow beam to a near-optimal plan and then
// prunes the exact pass to states that can still beat it. Every returned plan is compiled and
// simulated once more; a peak over budget there is reported as the bug it would be.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cancel.h"
#include "device.h"
#include "graph.h"
#include "network.h"
#include "optimal_limits.h"
#include "optimal_model.h"
#include "plan.h"
#include "program.h"
#include "result.h"
#include "simulator.h"

namespace remat {

struct OptimalPlan {
    std::vector<UnitSegment> segments;
    std::int64_t predictedPeakBytes = 0;
    double recomputeTimeS = 0.0;
};

class OptimalPlanner {
public:
    // Precomputes every region's cost and the suffix table: O(units^2), shared by all budgets
    // (a budget slider re-solves only). The time bound table is built on the first bounded
    // solve() and kept for later budgets.
    explicit OptimalPlanner(const ChainModel& model);
    OptimalPlanner(const OptimalPlanner&) = delete;
    OptimalPlanner& operator=(const OptimalPlanner&) = delete;

    // The least-recompute plan whose predicted peak is at most `budgetBytes`, or nothing when
    // no single-level plan fits.
    std::optional<OptimalPlan> solve(std::int64_t budgetBytes) const;
    // Whether solve(budgetBytes) runs the search: the budget lies between the smallest peak any
    // plan reaches and the no-checkpoint peak (outside, the answer is known at once).
    bool searches(std::int64_t budgetBytes) const;
    // The smallest peak any single-level plan reaches, and a plan reaching it.
    const OptimalPlan& minimumPeak() const { return m_minimum; }
    const ChainModel& model() const { return m_model; }
    // Whether solve() first finds a plan with a narrow beam and then keeps only states no slower
    // than it (exact either way; Auto does it for chains longer than kExactOnlyUnits). Tests
    // force both paths.
    enum class BoundedSearch { Auto, Always, Never };
    void setBoundedSearch(BoundedSearch mode) { m_search = mode; }
    // States kept by the last solve() (for the benchmark's report of the Pareto sets' size).
    std::size_t lastStateCount() const { return m_lastStates; }
    std::size_t lastCandidateCount() const { return m_lastCandidates; }
    std::size_t lastMergeSteps() const { return m_lastMergeSteps; }
    // Set from another thread to stop solve() early (checked at every chain boundary): it then
    // returns nothing, as for an infeasible budget; the caller tells the two apart by the flag.
    void setCancel(const CancelFlag* cancel) { m_cancel = cancel; }
    // The most merge steps (partial plans taken into a boundary's Pareto set, the search's unit
    // of work: lastMergeSteps()) one solve() may take, kMaxOptimalMergeSteps unless set. A solve
    // that passes it stops at the next boundary and returns nothing; lastSearchTooLarge() then
    // says so, and lastStopUnit() where (searchTooLargeMessage() words it).
    void setMergeStepLimit(std::int64_t limit) { m_mergeStepLimit = limit; }
    bool lastSearchTooLarge() const { return m_tooLarge; }
    int lastStopUnit() const { return m_stopUnit; }

private:
    // A lower bound on the recompute time the units from a boundary on still need, given the
    // budget left above what earlier units keep: exact dynamic program over a grid of remaining
    // budgets, each cell taking its largest budget (the rest's time only falls as the budget
    // grows, so the cell's value bounds every budget in it from below).
    struct TimeBound {
        // 1,024 cells, fewer on chains so long that the table would pass 4 Mi entries (32 MiB).
        static constexpr std::int64_t kMaxCells = 1024;
        static constexpr std::int64_t kMaxEntries = std::int64_t{1} << 22;
        std::int64_t cells = kMaxCells;
        std::int64_t cellBytes = 1;
        std::vector<double> minTimeS;  // [(2 * boundary + kept) * cells + cell]
        double at(std::size_t set, std::int64_t remainingBytes) const;
    };
    const TimeBound& timeBound() const;

    struct Transition {
        std::int64_t needBytes;  // peak above what earlier segments keep
        std::int64_t keptBytes;  // what this segment adds to that
        double timeS;
        int last;  // last unit of the segment
        bool region;
        bool streamKeptAfter;
    };
    // Transitions from boundary b with stream flag `kept`, built from the tables.
    void transitions(int b, bool kept, std::vector<Transition>& out) const;
    // The dynamic program keeping only states no slower than `timeBound`; with `beam` > 0 at
    // most that many states per boundary (a fast feasible plan, not necessarily optimal).
    // `bound`, when given, prunes states whose time plus the rest's lower bound exceeds
    // `timeBound`, and picks the beam's states by that sum.
    // Stops (m_tooLarge) once the solve's merge steps pass m_mergeStepLimit.
    std::optional<OptimalPlan> solveWithin(std::int64_t budgetBytes, double timeBound,
                                           std::size_t beam, const TimeBound* bound) const;
    // Chains longer than this get a bound from a narrow-beam pass first.
    static constexpr int kExactOnlyUnits = 24;
    static constexpr std::size_t kBoundBeam = 16;

    const ChainModel& m_model;
    std::vector<std::vector<RegionCost>> m_regions;  // [first][last - first]
    std::vector<std::int64_t> m_suffixNeed;          // [2 * boundary + kept]
    OptimalPlan m_minimum;
    OptimalPlan m_allKept;
    BoundedSearch m_search = BoundedSearch::Auto;
    mutable std::once_flag m_timeBoundOnce;
    mutable std::unique_ptr<TimeBound> m_timeBound;
    mutable std::size_t m_lastStates = 0;
    mutable std::size_t m_lastCandidates = 0;
    mutable std::size_t m_lastMergeSteps = 0;
    const CancelFlag* m_cancel = nullptr;
    std::int64_t m_mergeStepLimit = kMaxOptimalMergeSteps;
    mutable bool m_tooLarge = false;
    mutable int m_stopUnit = 0;
};

struct VerifiedPlan {
    Plan plan;
    Program program;
    Timeline timeline;
    std::int64_t predictedPeakBytes = 0;
};

// Checks a planner's plan the way the planner promises: it compiles, is no less safe than the
// plan without checkpointing, and simulates within the budget (and, for plans the model predicts,
// to the predicted byte). An error names the broken promise.
Result<VerifiedPlan> verifyPlan(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                                const DeviceSpec& device, std::int64_t budgetBytes,
                                std::int64_t predictedPeakBytes, const std::string& planner,
                                const CancelFlag* cancel = nullptr);

// "optimal: the budget of 40GiB cannot be met: the smallest peak any single-level plan reaches
// ... is 52.00 GiB (...), so optimal:52.01GiB is the smallest budget in GiB that works; at that
// peak ..." (budgetInfeasibleMessage in analysis.h). Simulates `plan`, the plan reaching the
// smallest peak, for the breakdown.
std::string explainInfeasible(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                              const DeviceSpec& device, std::int64_t budgetBytes, bool nested);

// Builds the model, solves, verifies. The plan's strategy is `optimal:<budget>`. `cancel`, when
// set from another thread, stops the work early with kCancelledMessage.
Result<VerifiedPlan> planOptimal(const Graph& g, const TrainingConfig& cfg,
                                 const DeviceSpec& device, std::int64_t budgetBytes,
                                 const CancelFlag* cancel = nullptr);

}  // namespace remat
