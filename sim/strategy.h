// Strategies (planners): Graph -> Plan. Parses the CLI spellings (`none`, `full`, `every:K`,
// `sqrt`, `selective:KIND[,KIND]`, `manual`, `optimal:BUDGET`, `optimal-nested:BUDGET`,
// `revolve:C`) and builds the plan on the chain (docs/architecture.md): the block instances
// when it has any, else every layer but the loss. The budget-driven planners also need the
// training settings and the device (their plans depend on sizes and times): PlanContext.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cancel.h"
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
    // The budget as the user wrote it ("7.5GiB", spaces dropped), so that it is echoed in the
    // user's units; empty: spelled from budgetBytes ("7680MiB").
    std::string budgetText;
    std::string spelling() const;
};

Result<Strategy> parseStrategy(const std::string& text);

// Every spelling parseStrategy accepts, for help texts and "unknown strategy" messages.
inline constexpr const char* kStrategySpellings =
    "manual | none | full | every:K | sqrt | selective:KIND[,KIND] (KIND: attention, "
    "attention_core, mlp, shortcut) | optimal:BUDGET | optimal-nested:BUDGET | revolve:C "
    "(BUDGET: 40GiB, 7.5GB, 512MiB or a byte count; K, C: whole numbers >= 1)";

// A selective strategy whose kinds match no module of `g` checkpoints nothing; this names the
// kinds that do not occur and the kinds the model has. Ok for every other strategy.
Status checkSelectiveKinds(const Graph& g, const Strategy& s);

// The named strategies `remat compare` evaluates, in display order: under Megatron-LM's
// checkpoint only those its flags express (selective on the core attention alone).
std::vector<Strategy> comparisonStrategies(const Graph& g,
                                           RecomputeImpl impl = RecomputeImpl::Pytorch);

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
    // Set from another thread to stop the optimal planners early (kCancelledMessage).
    const CancelFlag* cancel = nullptr;
};

// Builds the plan. `manualRegions` serves StrategyKind::Manual.
Result<Plan> makePlan(const Graph& g, const Strategy& s,
                      const std::vector<RegionSpec>& manualRegions = {});
Result<Plan> makePlan(const Graph& g, const Strategy& s, const PlanContext& context);

}  // namespace remat
