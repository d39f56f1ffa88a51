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
    std::uint32_t lo = UINT32_MAX, hi = 0;
    bool any = false;
    for (std::int64_t i = first; i <= last; ++i) {
        const Module& m = g.module(g.layerModules[std::size_t(i)]);
        if (!m.hasOps()) continue;
        lo = std::min(lo, m.firstOp);
        hi = std::max(hi, m.lastOp());
        any = true;
    }
    if (!any)
        return makeError("layers " + std::to_string(first) + "-" + std::to_string(last) +
                         " have no ops to checkpoint");
    std::string label = first == last ? std::to_string(first)
                                      : std::to_string(first) + "-" + std::to_string(last);
    return Region{lo, hi, label, true};
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
    // With outer-first order, a partial overlap shows up between a region and any earlier
    // region that starts before it and ends inside it.
    for (std::size_t i = 0; i < plan.regions.size(); ++i)
        for (std::size_t j = 0; j < i; ++j) {
            const Region& a = plan.regions[j];
            const Region& b = plan.regions[i];
            if (b.firstOp <= a.lastOp && b.lastOp > a.lastOp)
                return makeError("regions '" + a.label + "' and '" + b.label +
                                 "' overlap partially; regions must nest or be disjoint");
        }
    return Ok{};
}

}  // namespace remat
