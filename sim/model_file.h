// Model files (`"format": "remat-model/1"`, docs/model-format.md): load with full validation —
// every rejection names the file, the JSON path of the bad field and what was expected, and
// nothing half-loaded is returned — and save, such that load(save(m)) == m.
#pragma once

#include <string>
#include <vector>

#include "network.h"
#include "result.h"
#include "strategy.h"

namespace remat {

enum class PlanForm { None, Strategy, PerLayer, Regions };

struct ModelFile {
    Network network;
    PlanForm planForm = PlanForm::None;
    std::string planStrategy;          // PlanForm::Strategy
    std::vector<RegionSpec> regions;   // PlanForm::Regions
    TrainingConfig training;
    std::string device;                // profile id, may be empty
    std::string description;
    bool operator==(const ModelFile&) const = default;
};

Result<ModelFile> parseModel(const std::string& text, const std::string& origin);
// A file path, or the name of a built-in preset ("gpt2-small").
Result<ModelFile> loadModel(const std::string& pathOrPreset);
std::string modelToJson(const ModelFile& model);
Status saveModel(const ModelFile& model, const std::string& path);

// The strategy a model file asks for when the user gives none: its named strategy, `manual`
// for per-layer flags or regions, else `none`.
std::string defaultStrategy(const ModelFile& model);
// Manual regions as RegionSpecs (per-layer flags become one region per flagged instance).
std::vector<RegionSpec> manualRegions(const ModelFile& model);

std::vector<std::string> builtinModelNames();
// The description of a built-in preset (its source and what it is), read without lowering it;
// empty for an unknown name.
std::string builtinModelDescription(const std::string& name);

}  // namespace remat
