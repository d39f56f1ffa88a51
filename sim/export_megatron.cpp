#include "export_megatron.h"

#include <sstream>

namespace remat {

Result<std::string> exportMegatron(const PlanDescription& d) {
    if (d.blocks.empty())
        return makeError("Megatron-LM's recompute flags apply to transformer layers; the model "
                         "has no transformer_block");
    std::string flags, how;
    if (d.regions.empty()) {
        how = "nothing is checkpointed: no recompute flag (Megatron-LM's default)";
    } else if (auto kind = d.subModuleInEveryBlock(); kind && *kind == "attention_core") {
        flags = "--recompute-granularity selective";
        how = "the core attention of every layer is recomputed";
    } else if (auto n = d.uniformBlockGroups()) {
        flags = "--recompute-granularity full --recompute-method uniform --recompute-num-layers " +
                std::to_string(*n);
        how = *n == 1 ? std::string("every layer is one checkpoint")
                      : "every " + std::to_string(*n) +
                            " consecutive layers are one checkpoint, over all layers";
    } else if (auto first = d.firstBlocksAlone()) {
        flags = "--recompute-granularity full --recompute-method block --recompute-num-layers " +
                std::to_string(*first);
        how = "the first " + std::to_string(*first) + " layers are checkpointed, one each";
    } else {
        std::string why = "Megatron-LM expresses groups of N consecutive transformer layers over "
                          "every layer (uniform), the first N layers one by one (block), or the "
                          "core attention of every layer (selective)";
        for (const auto& r : d.regions)
            if (!r.wholeLayers() && r.subModuleKind != "attention_core")
                return makeError("region '" + r.label + "' is the " + r.subModuleKind +
                                 "; Megatron-LM recomputes whole layers or the core attention "
                                 "only (" + why + ")");
        return makeError("plan '" + d.strategy + "' (" + std::to_string(d.regions.size()) +
                         " regions, first '" + d.regions.front().label +
                         "') is not one Megatron-LM's flags express: " + why);
    }
    std::ostringstream out;
    out << commentBlock(d.model + ", plan " + d.strategy +
                            ", as Megatron-LM flags: written by `remat export --to megatron` "
                            "(Remat Studio).",
                        "# ", "# ");
    out << "# " << how << ".\n";
    out << "# Layer counts are per pipeline stage under pipeline parallelism (Megatron-LM's "
           "meaning).\n";
    const auto notes = commonExportNotes(d, ExportTarget::Megatron);
    if (!notes.empty()) out << "# Notes:\n";
    for (const auto& n : notes) out << commentBlock(n, "# - ", "#   ");
    if (!flags.empty()) out << flags << "\n";
    return out.str();
}

}  // namespace remat
