// Strategies (planners): Graph -> Plan. Parses the CLI spellings (`none`, `full`, `every:K`,
// `sqrt`, `selective:KIND[,KIND]`, `manual`, `optimal:BUDGET`, `optimal-nested:BUDGET`,
// `revolve:C`) and builds the plan on the chain of DESIGN §3: the network's block instances
// when it has any, else every layer but the loss. The budget-driven planners also need the
// training settings and the device (their plans depend on sizes and times): PlanContext.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device.h"
#include "graph.h"
#include "network.h"
#include "plan.h"
#include "result.h"

namespace remat {

enum class StrategyKind {
    Manual,
    None,
    Full,
    EveryK,
    Sqrt,
    Selective,
    Optimal,        // optimal:BUDGET, single-level (sim/optimal.h)
    OptimalNested,  // optimal-nested:BUDGET, nested regions (sim/optimal_nested.h)
    Revolve,        // revolve:C, binomial checkpointing (sim/revolve.h)
};

struct Strategy {
    StrategyKind kind = StrategyKind::None;
    std::int64_t k = 0;              // every:K; revolve:C
    std::vector<std::string> kinds;  // selective:KINDS (module kinds: attention, mlp, ...)
    std::int64_t budgetBytes = 0;    // optimal:BUDGET, optimal-nested:BUDGET
    std::string spelling() const;
};

Result<Strategy> parseStrategy(const std::string& text);

// The named strategies `remat compare` evaluates, in display order.
std::vector<Strategy> comparisonStrategies(const Graph& g);

// A manual plan as a model file writes it: inclusive expanded-layer ranges or module paths.
struct RegionSpec {
    bool isPath = false;
    std::int64_t first = 0, last = 0;
    std::string path;
    bool operator==(const RegionSpec&) const = default;
};

// What a strategy may need besides the graph: the manual regions (StrategyKind::Manual), the
// training settings and the device (the optimal planners; without them they are an error).
struct PlanContext {
    std::vector<RegionSpec> manualRegions;
    const TrainingConfig* training = nullptr;
    const DeviceSpec* device = nullptr;
};

// Builds the plan. `manualRegions` serves StrategyKind::Manual.
Result<Plan> makePlan(const Graph& g, const Strategy& s,
                      const std::vector<RegionSpec>& manualRegions = {});
Result<Plan> makePlan(const Graph& g, const Strategy& s, const PlanContext& context);

}  // namespace remat
