// A checkpointing plan: the set of checkpointed (recompute) regions, each a contiguous range of
// ops, nested or disjoint. Strategies produce plans; the compiler turns a plan into a program.
// A region usually is one module (a layer, an attention sub-module), but a manual plan or
// every:K groups several consecutive layers into one region.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "graph.h"
#include "result.h"

namespace remat {

struct Region {
    std::uint32_t firstOp = 0;
    std::uint32_t lastOp = 0;  // inclusive
    std::string label;         // "3", "0-2", "5/attention"
    // PyTorch's preserve_rng_state. Off makes dropout draw a new mask on recompute: the
    // program is then unsafe (gradients differ from the run without checkpointing).
    bool preserveRng = true;
    bool contains(std::uint32_t op) const { return op >= firstOp && op <= lastOp; }
    bool contains(const Region& o) const { return firstOp <= o.firstOp && o.lastOp <= lastOp; }
    bool operator==(const Region&) const = default;
};

struct Plan {
    std::string strategy;  // CLI spelling of what produced it: "none", "every:3", "manual"
    std::vector<Region> regions;
};

// Region covering a module's ops (a module without ops yields an error).
Result<Region> regionForModule(const Graph& g, ModuleId m);
// Region covering expanded layers [first, last].
Result<Region> regionForLayers(const Graph& g, std::int64_t first, std::int64_t last);

// Two regions of `regions` that overlap without nesting, as indices (earlier, later) in the
// given order, or nothing when every pair nests or is disjoint. O(n log n).
std::optional<std::pair<std::size_t, std::size_t>> findPartialOverlap(
    const std::vector<Region>& regions);

// Sorts regions (outer before inner), drops exact duplicates, and rejects partial overlaps and
// out-of-range ops with a message naming both regions.
Status normalizePlan(const Graph& g, Plan& plan);

}  // namespace remat
