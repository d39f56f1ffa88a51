#include "plan_edit.h"

#include <algorithm>
#include <set>

namespace remat::ui {

namespace {

bool sameRange(const Region& a, const Region& b) {
    return a.firstOp == b.firstOp && a.lastOp == b.lastOp;
}

// "12/attention" -> 12 and "/attention"; a path that does not start with a number -> -1.
std::int64_t leadingIndex(const std::string& path, std::string& rest) {
    const auto slash = path.find('/');
    const std::string head = path.substr(0, slash);
    if (head.empty() || head.size() > 9 ||
        !std::all_of(head.begin(), head.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    rest = slash == std::string::npos ? std::string() : path.substr(slash);
    return std::stoll(head);
}

}  // namespace

std::string layerPath(std::int64_t index) {
    return std::to_string(index);
}

Result<Region> resolveRegionSpec(const Graph& g, const RegionSpec& spec) {
    if (spec.isPath) {
        const ModuleId m = g.findModule(spec.path);
        if (!m.valid()) return makeError("no module '" + spec.path + "'");
        return regionForModule(g, m);
    }
    return regionForLayers(g, spec.first, spec.last);
}

std::vector<RegionSpec> regionSpecsFromPlan(const Graph& g, const Plan& plan) {
    std::vector<RegionSpec> out;
    const auto layers = static_cast<std::int64_t>(g.layerModules.size());
    for (const Region& r : plan.regions) {
        std::int64_t first = -1, last = -1;
        for (std::int64_t i = 0; i < layers; ++i) {
            const Module& m = g.module(g.layerModules[std::size_t(i)]);
            if (!m.hasOps()) continue;
            if (first < 0 && m.firstOp == r.firstOp) first = i;
            if (m.lastOp() == r.lastOp) last = i;
        }
        if (first >= 0 && last >= first) {
            out.push_back(RegionSpec{false, first, last, ""});
            continue;
        }
        bool matched = false;
        for (const Module& m : g.modules) {
            if (m.layerIndex >= 0 && m.hasOps() && m.firstOp == r.firstOp &&
                m.lastOp() == r.lastOp) {
                out.push_back(RegionSpec{true, 0, 0, m.path});
                matched = true;
                break;
            }
        }
        if (matched) continue;
        // Enclosing layer range: never smaller than the region, so nothing kept is lost.
        std::int64_t lo = -1, hi = -1;
        for (std::int64_t i = 0; i < layers; ++i) {
            const Module& m = g.module(g.layerModules[std::size_t(i)]);
            if (!m.hasOps()) continue;
            if (m.containsOp(r.firstOp)) lo = i;
            if (m.containsOp(r.lastOp)) hi = i;
        }
        if (lo >= 0 && hi >= lo) out.push_back(RegionSpec{false, lo, hi, ""});
    }
    return out;
}

bool planHasRegion(const Plan& plan, std::uint32_t firstOp, std::uint32_t lastOp) {
    return std::any_of(plan.regions.begin(), plan.regions.end(),
                       [&](const Region& r) { return r.firstOp == firstOp && r.lastOp == lastOp; });
}

const Region* enclosingRegion(const Plan& plan, std::uint32_t firstOp, std::uint32_t lastOp) {
    const Region* best = nullptr;
    for (const Region& r : plan.regions) {
        if (r.firstOp <= firstOp && lastOp <= r.lastOp &&
            !(r.firstOp == firstOp && r.lastOp == lastOp)) {
            if (!best || best->contains(r)) best = &r;
        }
    }
    return best;
}

Result<std::vector<RegionSpec>> setRegionSpec(const Graph& g, std::vector<RegionSpec> specs,
                                              const RegionSpec& target, bool present) {
    auto want = resolveRegionSpec(g, target);
    if (!want) return want.error();
    bool found = false;
    std::vector<RegionSpec> kept;
    for (const RegionSpec& s : specs) {
        auto r = resolveRegionSpec(g, s);
        if (r && sameRange(*r, *want)) {
            found = true;
            if (present && std::find(kept.begin(), kept.end(), s) == kept.end() &&
                std::none_of(kept.begin(), kept.end(), [&](const RegionSpec& k) {
                    auto kr = resolveRegionSpec(g, k);
                    return kr && sameRange(*kr, *want);
                }))
                kept.push_back(s);
            continue;
        }
        kept.push_back(s);
    }
    if (present && !found) kept.push_back(target);
    return kept;
}

Result<std::vector<RegionSpec>> toggleRegionSpec(const Graph& g, std::vector<RegionSpec> specs,
                                                 const RegionSpec& target) {
    auto want = resolveRegionSpec(g, target);
    if (!want) return want.error();
    const bool present = std::any_of(specs.begin(), specs.end(), [&](const RegionSpec& s) {
        auto r = resolveRegionSpec(g, s);
        return r && sameRange(*r, *want);
    });
    return setRegionSpec(g, std::move(specs), target, !present);
}

void storeManualPlan(ModelFile& model, const std::vector<RegionSpec>& specs) {
    for (Layer& l : model.network.layers) l.checkpoint = false;
    model.planStrategy.clear();
    model.regions.clear();
    if (specs.empty()) {
        model.planForm = PlanForm::None;
        return;
    }
    // Per-layer flags say it all when every region is exactly one layer instance and each
    // entry's instances are all flagged or none.
    std::set<std::int64_t> single;
    bool perLayer = true;
    for (const RegionSpec& s : specs) {
        std::int64_t index = -1;
        if (!s.isPath && s.first == s.last) {
            index = s.first;
        } else if (s.isPath) {
            std::string rest;
            const std::int64_t i = leadingIndex(s.path, rest);
            if (i >= 0 && rest.empty()) index = i;
        }
        if (index < 0) {
            perLayer = false;
            break;
        }
        single.insert(index);
    }
    std::vector<bool> flags(model.network.layers.size(), false);
    if (perLayer) {
        std::int64_t start = 0;
        for (std::size_t e = 0; e < model.network.layers.size() && perLayer; ++e) {
            const std::int64_t n = model.network.layers[e].repeat;
            std::int64_t count = 0;
            for (std::int64_t k = 0; k < n; ++k) count += single.count(start + k) ? 1 : 0;
            if (count != 0 && count != n) perLayer = false;
            flags[e] = count == n && n > 0;
            start += n;
        }
        if (single.size() && *single.rbegin() >= start) perLayer = false;
    }
    if (perLayer) {
        for (std::size_t e = 0; e < flags.size(); ++e)
            model.network.layers[e].checkpoint = flags[e];
        model.planForm = PlanForm::PerLayer;
        return;
    }
    for (const RegionSpec& s : specs)
        if (std::find(model.regions.begin(), model.regions.end(), s) == model.regions.end())
            model.regions.push_back(s);
    model.planForm = PlanForm::Regions;
}

std::vector<std::int64_t> instanceMap(const Network& before, const Network& after,
                                      const std::vector<int>& entryMap) {
    std::vector<std::int64_t> newStart(after.layers.size() + 1, 0);
    for (std::size_t e = 0; e < after.layers.size(); ++e)
        newStart[e + 1] = newStart[e] + after.layers[e].repeat;
    std::vector<std::int64_t> out;
    for (std::size_t e = 0; e < before.layers.size(); ++e) {
        const int to = e < entryMap.size() ? entryMap[e] : -1;
        for (std::int64_t k = 0; k < before.layers[e].repeat; ++k) {
            if (to < 0 || std::size_t(to) >= after.layers.size() ||
                k >= after.layers[std::size_t(to)].repeat)
                out.push_back(-1);
            else
                out.push_back(newStart[std::size_t(to)] + k);
        }
    }
    return out;
}

std::vector<RegionSpec> remapRegionSpecs(const std::vector<RegionSpec>& specs,
                                         const std::vector<std::int64_t>& instances) {
    auto map = [&](std::int64_t i) -> std::int64_t {
        return i >= 0 && std::size_t(i) < instances.size() ? instances[std::size_t(i)] : -1;
    };
    std::vector<RegionSpec> out;
    for (const RegionSpec& s : specs) {
        if (s.isPath) {
            std::string rest;
            const std::int64_t i = leadingIndex(s.path, rest);
            const std::int64_t j = map(i);
            if (j < 0) continue;
            out.push_back(RegionSpec{true, 0, 0, layerPath(j) + rest});
            continue;
        }
        const std::int64_t a = map(s.first), b = map(s.last);
        // Dropped when an end vanished or layers were inserted into (or moved out of) it.
        if (a < 0 || b < 0 || b - a != s.last - s.first) continue;
        out.push_back(RegionSpec{false, a, b, ""});
    }
    return out;
}

std::vector<RegionSpec> resolvableSpecs(const Graph& g, const std::vector<RegionSpec>& specs) {
    std::vector<RegionSpec> out;
    for (const RegionSpec& s : specs)
        if (resolveRegionSpec(g, s)) out.push_back(s);
    return out;
}

}  // namespace remat::ui
