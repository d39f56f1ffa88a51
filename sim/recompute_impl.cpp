#include "recompute_impl.h"

#include <algorithm>
#include <string>
#include <vector>

#include "graph.h"
#include "plan.h"

namespace remat {

std::string_view recomputeImplName(RecomputeImpl impl) {
    switch (impl) {
        case RecomputeImpl::Pytorch: return "pytorch";
        case RecomputeImpl::PytorchReentrant: return "pytorch-reentrant";
        case RecomputeImpl::Megatron: return "megatron";
    }
    return "pytorch";
}

std::optional<RecomputeImpl> parseRecomputeImpl(std::string_view s) {
    for (auto impl :
         {RecomputeImpl::Pytorch, RecomputeImpl::PytorchReentrant, RecomputeImpl::Megatron})
        if (recomputeImplName(impl) == s) return impl;
    return std::nullopt;
}

Status checkPlanForImpl(const Graph& g, const Plan& plan, RecomputeImpl impl) {
    if (impl != RecomputeImpl::Megatron || plan.regions.empty()) return Ok{};
    // Where a chain element (a transformer layer, or a layer of a network without blocks)
    // starts and ends: a `full` checkpoint covers whole ones.
    std::vector<bool> chainFirst(g.ops.size(), false), chainLast(g.ops.size(), false);
    for (ModuleId m : g.chain) {
        const Module& mod = g.module(m);
        if (!mod.hasOps()) continue;
        chainFirst[mod.firstOp] = true;
        chainLast[mod.lastOp()] = true;
    }
    auto isCoreAttention = [&](const Region& r) {
        for (const Module& mod : g.modules)
            if (mod.kind == "attention_core" && mod.hasOps() && mod.firstOp == r.firstOp &&
                mod.lastOp() == r.lastOp)
                return true;
        return false;
    };
    const std::string head = "--recompute-impl megatron: plan '" + plan.strategy + "': region '";
    std::vector<Region> sorted = plan.regions;
    std::sort(sorted.begin(), sorted.end(), [](const Region& a, const Region& b) {
        return a.firstOp != b.firstOp ? a.firstOp < b.firstOp : a.lastOp > b.lastOp;
    });
    std::int64_t reach = -1;  // last op of the regions before
    std::string outer;
    for (const Region& r : sorted) {
        if (std::int64_t(r.firstOp) <= reach)
            return makeError(head + r.label + "' is nested in region '" + outer +
                             "'; Megatron-LM checkpoints layers or the core attention, never "
                             "one inside another");
        if (!r.preserveRng)
            return makeError(head + r.label +
                             "' does not preserve the RNG state; Megatron-LM's checkpoint "
                             "always restores it (its CUDA RNG state tracker)");
        const bool layers = r.firstOp < g.ops.size() && r.lastOp < g.ops.size() &&
                            chainFirst[r.firstOp] && chainLast[r.lastOp];
        if (!layers && !isCoreAttention(r))
            return makeError(head + r.label +
                             "' is neither whole layers (--recompute-granularity full) nor a "
                             "core attention (selective); use full, every:K, sqrt or "
                             "selective:attention_core");
        if (std::int64_t(r.lastOp) > reach) {
            reach = r.lastOp;
            outer = r.label;
        }
    }
    return Ok{};
}

}  // namespace remat
