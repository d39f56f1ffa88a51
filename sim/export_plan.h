// Plans out: a checkpointing plan written as code or settings for the frameworks people train
// with (`remat export`, File -> Export plan as code). This header holds what the four targets
// share: the plan described in the network's own terms (each region as the whole layers or the
// one sub-module it covers, which is what a framework can wrap in a checkpoint) and the entry
// point that picks the target. Each target lives in its own file (export_pytorch.h,
// export_hf.h, export_megatron.h, export_deepspeed.h); each states what it cannot express and
// refuses a plan it would write wrongly, with a message naming the region and the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device.h"
#include "graph.h"
#include "network.h"
#include "plan.h"
#include "result.h"
#include "strategy.h"

namespace remat {

enum class ExportTarget { Pytorch, HuggingFace, Megatron, DeepSpeed };
inline constexpr ExportTarget kExportTargets[] = {ExportTarget::Pytorch, ExportTarget::HuggingFace,
                                                  ExportTarget::Megatron, ExportTarget::DeepSpeed};
// CLI spelling: "pytorch", "hf", "megatron", "deepspeed".
std::string_view exportTargetName(ExportTarget t);
std::optional<ExportTarget> parseExportTarget(std::string_view s);
inline constexpr const char* kExportTargetSpellings = "pytorch, hf, megatron, deepspeed";

// One checkpointed region in the network's terms.
struct ExportRegion {
    std::string label;              // the plan's label: "1-2", "5/attention"
    std::int64_t firstLayer = 0;    // expanded layer instances it covers (one for a sub-module)
    std::int64_t lastLayer = 0;
    std::string subModule;          // "" for whole layers, else the path inside the layer:
                                    // "attention", "attention/attention_core", "mlp"
    std::string subModuleKind;      // "attention", "attention_core", "mlp", "shortcut"
    bool wholeLayers() const { return subModule.empty(); }
    // The region's modules as a PyTorch module tree names them under `prefix` ("layers"):
    // "layers.1", "layers.5.attention.attention_core".
    std::vector<std::string> moduleNames(const std::string& prefix) const;
};

struct PlanDescription {
    std::string model;      // the network's name
    std::string strategy;   // the plan's spelling: "every:2"
    std::vector<ExportRegion> regions;  // in op order, outer before inner
    std::vector<std::int64_t> blocks;   // expanded instances of transformer_block layers
    std::int64_t layerCount = 0;        // expanded layer instances
    bool nested = false;                // a region lies inside another
    TrainingConfig training;

    // Every transformer block is one region of its own and nothing else is checkpointed.
    bool everyBlockAlone() const;
    // The regions are groups of N consecutive blocks from the first block, covering every block
    // (the last group may be shorter), and nothing else: N; nothing otherwise.
    std::optional<std::int64_t> uniformBlockGroups() const;
    // The regions are the first N blocks, one region each, and nothing else: N.
    std::optional<std::int64_t> firstBlocksAlone() const;
    // Every region is one sub-module of the same kind, one in each transformer block (every
    // block has one): that kind; nothing otherwise.
    std::optional<std::string> subModuleInEveryBlock() const;
};

// Maps each region of `plan` to whole layers or one sub-module of `g` (lowered from `net`), or
// an error naming a region that is neither (an op range cutting through a module).
Result<PlanDescription> describePlan(const Network& net, const TrainingConfig& training,
                                     const Graph& g, const Plan& plan);

// The plan written for `target`: a Python module (pytorch), Python code (hf), command-line flags
// (megatron) or a JSON config section (deepspeed). An error names why the target cannot express
// the plan.
Result<std::string> exportPlan(ExportTarget target, const Network& net,
                               const TrainingConfig& training, const Graph& g, const Plan& plan);

// What `remat export` and File -> Export plan as code both do, so that they write the same text:
// lower `net` under `training` for one GPU, build the plan of `strategy` (`manual`: the model
// file's regions; the optimal planners: sizes and times on `device`) and export it.
struct ExportResult {
    std::string text;
    Plan plan;
};
Result<ExportResult> exportStrategy(ExportTarget target, const Network& net,
                                    const TrainingConfig& training, const DeviceSpec& device,
                                    const Strategy& strategy,
                                    const std::vector<RegionSpec>& manualRegions);

// Notes every target shares for the header of an export: settings of the training run the
// export does not carry (precision, parallel layout, the checkpoint implementation assumed).
std::vector<std::string> commonExportNotes(const PlanDescription& d, ExportTarget target);

// `text` as comment lines of at most about 96 columns: the first starts with `first` ("# - "),
// the others with `rest` ("#   "); each ends with a newline.
std::string commentBlock(const std::string& text, const std::string& first,
                         const std::string& rest);

// `text` as a Python string literal (double quotes, escapes for quotes, backslashes and
// control characters).
std::string pythonString(const std::string& text);

}  // namespace remat
