#include "export_plan.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "export_deepspeed.h"
#include "export_hf.h"
#include "export_megatron.h"
#include "export_pytorch.h"
#include "lower.h"

namespace remat {

std::string_view exportTargetName(ExportTarget t) {
    switch (t) {
        case ExportTarget::Pytorch: return "pytorch";
        case ExportTarget::HuggingFace: return "hf";
        case ExportTarget::Megatron: return "megatron";
        case ExportTarget::DeepSpeed: return "deepspeed";
    }
    return "?";
}

std::optional<ExportTarget> parseExportTarget(std::string_view s) {
    for (ExportTarget t : kExportTargets)
        if (exportTargetName(t) == s) return t;
    return std::nullopt;
}

std::vector<std::string> ExportRegion::moduleNames(const std::string& prefix) const {
    std::vector<std::string> out;
    if (wholeLayers()) {
        for (std::int64_t i = firstLayer; i <= lastLayer; ++i)
            out.push_back(prefix + "." + std::to_string(i));
        return out;
    }
    std::string path = subModule;
    std::replace(path.begin(), path.end(), '/', '.');
    out.push_back(prefix + "." + std::to_string(firstLayer) + "." + path);
    return out;
}

bool PlanDescription::everyBlockAlone() const {
    auto n = uniformBlockGroups();
    return n && *n == 1;
}

std::optional<std::int64_t> PlanDescription::uniformBlockGroups() const {
    if (blocks.empty() || regions.empty() || nested) return std::nullopt;
    for (std::size_t i = 1; i < blocks.size(); ++i)
        if (blocks[i] != blocks[i - 1] + 1) return std::nullopt;
    const std::int64_t n = regions[0].lastLayer - regions[0].firstLayer + 1;
    std::int64_t next = blocks.front();
    for (const ExportRegion& r : regions) {
        if (!r.wholeLayers() || r.firstLayer != next) return std::nullopt;
        const std::int64_t size = r.lastLayer - r.firstLayer + 1;
        const bool last = r.lastLayer == blocks.back();
        if (size != n && !(last && size < n)) return std::nullopt;
        next = r.lastLayer + 1;
    }
    if (next != blocks.back() + 1) return std::nullopt;
    return n;
}

std::optional<std::int64_t> PlanDescription::firstBlocksAlone() const {
    if (blocks.empty() || regions.empty() || nested || regions.size() > blocks.size())
        return std::nullopt;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const ExportRegion& r = regions[i];
        if (!r.wholeLayers() || r.firstLayer != r.lastLayer || r.firstLayer != blocks[i])
            return std::nullopt;
    }
    return std::int64_t(regions.size());
}

std::optional<std::string> PlanDescription::subModuleInEveryBlock() const {
    if (blocks.empty() || regions.size() != blocks.size() || nested) return std::nullopt;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const ExportRegion& r = regions[i];
        if (r.wholeLayers() || r.firstLayer != blocks[i] ||
            r.subModuleKind != regions[0].subModuleKind || r.subModule != regions[0].subModule)
            return std::nullopt;
    }
    return regions[0].subModuleKind;
}

Result<PlanDescription> describePlan(const Network& net, const TrainingConfig& training,
                                     const Graph& g, const Plan& plan) {
    PlanDescription d;
    d.model = net.name;
    d.strategy = plan.strategy;
    d.training = training;
    d.layerCount = std::int64_t(g.layerModules.size());
    const auto sources = expandedLayerSources(net);
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (net.layers[sources[i]].kind == LayerKind::TransformerBlock)
            d.blocks.push_back(std::int64_t(i));
    std::vector<Region> regions = plan.regions;
    std::sort(regions.begin(), regions.end(), [](const Region& a, const Region& b) {
        return a.firstOp != b.firstOp ? a.firstOp < b.firstOp : a.lastOp > b.lastOp;
    });
    std::int64_t reach = -1;
    for (const Region& r : regions) {
        if (std::int64_t(r.firstOp) <= reach) d.nested = true;
        reach = std::max(reach, std::int64_t(r.lastOp));
        ExportRegion e;
        e.label = r.label;
        bool found = false;
        // A whole sub-module (the outermost module with exactly this op range)...
        for (std::size_t m = 1; m < g.modules.size() && !found; ++m) {
            const Module& mod = g.modules[m];
            if (!mod.hasOps() || mod.firstOp != r.firstOp || mod.lastOp() != r.lastOp) continue;
            if (mod.parent.index() == 0) break;  // a whole layer: found below
            e.firstLayer = e.lastLayer = mod.layerIndex;
            const std::string layerPath = std::to_string(mod.layerIndex) + "/";
            e.subModule = mod.path.substr(layerPath.size());
            e.subModuleKind = mod.kind;
            found = true;
        }
        // ... or a run of whole layers.
        if (!found) {
            std::int64_t first = -1, last = -1;
            for (std::size_t i = 0; i < g.layerModules.size(); ++i) {
                const Module& mod = g.module(g.layerModules[i]);
                if (!mod.hasOps()) continue;
                if (mod.firstOp == r.firstOp && first < 0) first = std::int64_t(i);
                if (mod.lastOp() == r.lastOp) last = std::int64_t(i);
            }
            if (first >= 0 && last >= first) {
                e.firstLayer = first;
                e.lastLayer = last;
                found = true;
            }
        }
        if (!found)
            return makeError("region '" + r.label +
                             "' is neither whole layers nor one sub-module (it starts or ends "
                             "inside one), so no framework can wrap it in a checkpoint");
        d.regions.push_back(std::move(e));
    }
    return d;
}

std::vector<std::string> commonExportNotes(const PlanDescription& d, ExportTarget target) {
    std::vector<std::string> notes;
    const TrainingConfig& t = d.training;
    if (t.precision != Precision::Fp32)
        notes.push_back("The precision (" + std::string(precisionName(t.precision)) +
                        ") is the training loop's business: this export carries only the plan.");
    if (!t.parallel.single())
        notes.push_back("The parallel layout (" + std::to_string(t.parallel.gpus()) +
                        " GPUs) is not part of the export; the plan applies to each rank's "
                        "layers.");
    const bool pytorchLike = target == ExportTarget::Pytorch || target == ExportTarget::HuggingFace;
    if (pytorchLike && t.recomputeImpl != RecomputeImpl::Pytorch)
        notes.push_back("The model file predicts the " +
                        std::string(recomputeImplName(t.recomputeImpl)) +
                        " checkpoint; this export uses PyTorch's non-reentrant one "
                        "(use_reentrant=False), which recomputes less: compare with "
                        "--recompute-impl pytorch.");
    if (!pytorchLike && t.recomputeImpl == RecomputeImpl::Pytorch)
        notes.push_back(std::string(target == ExportTarget::Megatron ? "Megatron-LM" : "DeepSpeed") +
                        " recomputes each checkpointed region whole: predict it with "
                        "--recompute-impl " +
                        (target == ExportTarget::Megatron ? "megatron" : "pytorch-reentrant") +
                        ".");
    return notes;
}

std::string commentBlock(const std::string& text, const std::string& first,
                         const std::string& rest) {
    std::istringstream words(text);
    std::string word, line = first, out;
    bool empty = true;
    while (words >> word) {
        if (!empty && line.size() + 1 + word.size() > 96) {
            out += line + "\n";
            line = rest;
            empty = true;
        }
        line += (empty ? "" : " ") + word;
        empty = false;
    }
    return out + line + "\n";
}

std::string pythonString(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

Result<std::string> exportPlan(ExportTarget target, const Network& net,
                               const TrainingConfig& training, const Graph& g, const Plan& plan) {
    for (const Region& r : plan.regions)
        if (!r.preserveRng)
            return makeError("region '" + r.label +
                             "' does not preserve the RNG state: the plan is unsafe (dropout "
                             "draws new masks on recompute, so gradients differ); no export "
                             "writes it");
    auto d = describePlan(net, training, g, plan);
    if (!d) return d.error();
    switch (target) {
        case ExportTarget::Pytorch: return exportPytorch(net, *d);
        case ExportTarget::HuggingFace: return exportHf(*d);
        case ExportTarget::Megatron: return exportMegatron(*d);
        case ExportTarget::DeepSpeed: return exportDeepSpeed(*d);
    }
    return makeError("unknown export target");
}

Result<ExportResult> exportStrategy(ExportTarget target, const Network& net,
                                    const TrainingConfig& training, const DeviceSpec& device,
                                    const Strategy& strategy,
                                    const std::vector<RegionSpec>& manualRegions) {
    auto g = lower(net, training);
    if (!g) return g.error();
    if (auto st = checkSelectiveKinds(*g, strategy); !st) return st.error();
    PlanContext context;
    context.manualRegions = manualRegions;
    context.training = &training;
    context.device = &device;
    auto plan = makePlan(*g, strategy, context);
    if (!plan) return plan.error();
    auto text = exportPlan(target, net, training, *g, *plan);
    if (!text)
        return makeError("cannot export plan '" + plan->strategy + "' to " +
                         std::string(exportTargetName(target)) + ": " + text.error().message);
    return ExportResult{std::move(*text), std::move(*plan)};
}

}  // namespace remat
