// Strategies (planners): Graph -> Plan. Parses the CLI spellings (`none`, `full`, `every:K`,
// `sqrt`, `selective:KIND[,KIND]`, `manual`) and builds the plan on the chain of DESIGN §3:
// the network's block instances when it has any, else every layer but the loss.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "plan.h"
#include "result.h"

namespace remat {

enum class StrategyKind { Manual, None, Full, EveryK, Sqrt, Selective };

struct Strategy {
    StrategyKind kind = StrategyKind::None;
    std::int64_t k = 0;              // every:K
    std::vector<std::string> kinds;  // selective:KINDS (module kinds: attention, mlp, ...)
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

// Builds the plan. `manualRegions` serves StrategyKind::Manual.
Result<Plan> makePlan(const Graph& g, const Strategy& s,
                      const std::vector<RegionSpec>& manualRegions = {});

}  // namespace remat
