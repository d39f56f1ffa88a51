// Hand edits of a checkpointing plan, in the terms a model file stores: region specs (layer
// ranges and module paths). The layer stack turns clicks into these edits; this file turns the
// current plan (whatever strategy made it) into editable specs, toggles one region, stores the
// result in the model's plan fields in the form a person would write by hand (per-layer flags
// where they say it all, else explicit regions), and carries regions along when layers are
// inserted, removed or moved. No Qt: it is plain logic over the simulator's types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "model_file.h"
#include "plan.h"
#include "result.h"
#include "strategy.h"

namespace remat::ui {

// The op range a spec covers on `g`, or why it covers none.
Result<Region> resolveRegionSpec(const Graph& g, const RegionSpec& spec);

// Specs that reproduce `plan` on `g`: a region aligned with whole layer instances becomes a
// layer range, one matching a sub-module becomes its path. Regions matching neither are kept
// as the layer range that encloses them (no strategy produces such a region today).
std::vector<RegionSpec> regionSpecsFromPlan(const Graph& g, const Plan& plan);

// True when `plan` holds a region with exactly this op range.
bool planHasRegion(const Plan& plan, std::uint32_t firstOp, std::uint32_t lastOp);
// The smallest region of `plan` strictly larger than [firstOp, lastOp] that contains it, or null.
const Region* enclosingRegion(const Plan& plan, std::uint32_t firstOp, std::uint32_t lastOp);

// `specs` with the region covering `target`'s op range removed (every spec resolving to that
// range) when present, else with `target` added. Errors when `target` does not resolve.
Result<std::vector<RegionSpec>> toggleRegionSpec(const Graph& g, std::vector<RegionSpec> specs,
                                                 const RegionSpec& target);
// `specs` with `target` present (added when missing) or absent (all specs with its range gone).
Result<std::vector<RegionSpec>> setRegionSpec(const Graph& g, std::vector<RegionSpec> specs,
                                              const RegionSpec& target, bool present);

// Writes a manual plan into `model`: no plan when empty; per-layer "checkpoint" flags when
// every region is one whole layer instance and each repeated entry is all in or all out; else
// explicit regions.
void storeManualPlan(ModelFile& model, const std::vector<RegionSpec>& specs);

// Maps an edit of the layer list onto expanded instance indices. `entryMap[i]` is the new
// entry index of old entry i, or -1 when it was removed; instances of an entry whose repeat
// shrank are dropped from the end.
std::vector<std::int64_t> instanceMap(const Network& before, const Network& after,
                                      const std::vector<int>& entryMap);
// Region specs carried across a layer-list edit; a region whose layers were removed or split
// apart is dropped.
std::vector<RegionSpec> remapRegionSpecs(const std::vector<RegionSpec>& specs,
                                         const std::vector<std::int64_t>& instances);

// Drops specs that do not resolve on `g` (a sub-module that no longer exists after an edit).
std::vector<RegionSpec> resolvableSpecs(const Graph& g, const std::vector<RegionSpec>& specs);

// Module path of expanded layer instance `index` ("3") and of a sub-module under it.
std::string layerPath(std::int64_t index);

}  // namespace remat::ui
