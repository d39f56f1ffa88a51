#include "plan.h"

#include <algorithm>

namespace remat {

Result<Region> regionForModule(const Graph& g, ModuleId m) {
    if (!m.valid() || m.index() >= g.modules.size()) return makeError("no such module");
    const Module& mod = g.module(m);
    if (!mod.hasOps())
        return makeError("module '" + mod.path + "' has no ops to checkpoint");
    return Region{mod.firstOp, mod.lastOp(), mod.path, true};
}

Result<Region> regionForLayers(const Graph& g, std::int64_t first, std::int64_t last) {
    const auto n = static_cast<std::int64_t>(g.layerModules.size());
    if (first < 0 || last < first || last >= n)
        return makeError("layer range [" + std::to_string(first) + ", " + std::to_string(last) +
                         "] is outside the network's " + std::to_string(n) + " layers");
    // Layers are laid out in order: the region runs from the first op of the first layer that
    // has ops to the last op of the last one (a scan over op-less layers such as a flatten only).
    auto hasOps = [&](std::int64_t i) { return g.module(g.layerModules[std::size_t(i)]).hasOps(); };
    std::int64_t a = first, b = last;
    while (a <= last && !hasOps(a)) ++a;
    while (b >= a && !hasOps(b)) --b;
    if (a > b)
        return makeError("layers " + std::to_string(first) + "-" + std::to_string(last) +
                         " have no ops to checkpoint");
    const std::uint32_t lo = g.module(g.layerModules[std::size_t(a)]).firstOp;
    const std::uint32_t hi = g.module(g.layerModules[std::size_t(b)]).lastOp();
    std::string label = first == last ? std::to_string(first)
                                      : std::to_string(first) + "-" + std::to_string(last);
    return Region{lo, hi, label, true};
}

std::optional<std::pair<std::size_t, std::size_t>> findPartialOverlap(
    const std::vector<Region>& regions) {
    std::vector<std::size_t> order(regions.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const Region& ra = regions[a];
        const Region& rb = regions[b];
        if (ra.firstOp != rb.firstOp) return ra.firstOp < rb.firstOp;
        if (ra.lastOp != rb.lastOp) return ra.lastOp > rb.lastOp;  // outer first
        return a < b;
    });
    // Outer first, the regions still open at a region's start form a chain of nested ranges; the
    // region must fit inside the innermost of them.
    std::vector<std::size_t> open;
    for (std::size_t i : order) {
        const Region& r = regions[i];
        while (!open.empty() && regions[open.back()].lastOp < r.firstOp) open.pop_back();
        if (!open.empty() && r.lastOp > regions[open.back()].lastOp)
            return std::pair{std::min(i, open.back()), std::max(i, open.back())};
        open.push_back(i);
    }
    return std::nullopt;
}

Status normalizePlan(const Graph& g, Plan& plan) {
    const auto nOps = static_cast<std::uint32_t>(g.ops.size());
    for (const Region& r : plan.regions)
        if (r.firstOp > r.lastOp || r.lastOp >= nOps)
            return makeError("region '" + r.label + "' does not cover a valid op range");
    std::sort(plan.regions.begin(), plan.regions.end(), [](const Region& a, const Region& b) {
        if (a.firstOp != b.firstOp) return a.firstOp < b.firstOp;
        return a.lastOp > b.lastOp;  // outer first
    });
    plan.regions.erase(std::unique(plan.regions.begin(), plan.regions.end(),
                                   [](const Region& a, const Region& b) {
                                       return a.firstOp == b.firstOp && a.lastOp == b.lastOp;
                                   }),
                       plan.regions.end());
    if (auto pair = findPartialOverlap(plan.regions))
        return makeError("regions '" + plan.regions[pair->first].label + "' and '" +
                         plan.regions[pair->second].label +
                         "' overlap partially; regions must nest or be disjoint");
    return Ok{};
}

}  // namespace remat
