#include "export_deepspeed.h"

#include <nlohmann/json.hpp>

namespace remat {

Result<std::string> exportDeepSpeed(const PlanDescription& d) {
    if (d.nested)
        return makeError("the plan nests regions; DeepSpeed's checkpoint function (like "
                         "Megatron-LM's, which it derives from) does not nest");
    nlohmann::json regions = nlohmann::json::array();
    std::string code;
    for (const auto& r : d.regions) {
        auto names = r.moduleNames("layers");
        regions.push_back({{"label", r.label}, {"modules", names}});
        if (r.wholeLayers() && r.firstLayer == r.lastLayer)
            code += "x = deepspeed.checkpointing.checkpoint(self.layers[" +
                    std::to_string(r.firstLayer) + "], x)\n";
        else if (r.wholeLayers())
            code += "x = deepspeed.checkpointing.checkpoint(self.layers_" +
                    std::to_string(r.firstLayer) + "_to_" + std::to_string(r.lastLayer) +
                    ", x)  # a function running layers " + std::to_string(r.firstLayer) + " to " +
                    std::to_string(r.lastLayer) + "\n";
        else
            code += "# in layer " + std::to_string(r.firstLayer) + "'s forward: h = "
                    "deepspeed.checkpointing.checkpoint(self." + names[0].substr(names[0].rfind('.') + 1) +
                    ", h)  # " + names[0] + "\n";
    }
    std::vector<std::string> cannot = {
        "The activation_checkpointing section configures deepspeed.checkpointing; it does not "
        "choose what is checkpointed. The model's forward calls "
        "deepspeed.checkpointing.checkpoint on each region (remat_plan.code), after "
        "deepspeed.checkpointing.configure(mpu, deepspeed_config=...).",
        "Delete remat_plan before passing the file to DeepSpeed if your version rejects "
        "unknown keys."};
    for (auto& n : commonExportNotes(d, ExportTarget::DeepSpeed)) cannot.push_back(n);
    nlohmann::json j;
    j["activation_checkpointing"] = {
        {"partition_activations", false},
        {"cpu_checkpointing", d.training.parallel.offloadActivations},
        {"contiguous_memory_optimization", false},
        {"number_checkpoints", d.regions.empty() ? nlohmann::json(nullptr)
                                                 : nlohmann::json(d.regions.size())},
        {"synchronize_checkpoint_boundary", false},
        {"profile", false}};
    j["remat_plan"] = {{"model", d.model},
                       {"strategy", d.strategy},
                       {"written_by", "remat export --to deepspeed (Remat Studio)"},
                       {"regions", regions},
                       {"code", code},
                       {"cannot_express", cannot}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace remat
