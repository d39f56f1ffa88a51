// Hugging Face `config.json` files turned into our model files: a user who has a model on the
// Hub (or a checkpoint directory) gets the network, its vocabulary and its context length
// without writing the layer stack by hand. The config is read through the hardened input path
// (json_input.h: size limit, regular files only, nesting limit) and every field the mapping
// needs is checked like a model file's: a missing field, a wrong type, an out-of-range value or
// an architecture the model format cannot express exactly is one error naming the file, the
// JSON path and what is wrong. Fields that change neither memory nor time (token ids, rotary
// bases, epsilons) are returned as ignored, each with the reason, so that nothing is dropped
// silently. docs/import.md is the mapping table, field by field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model_file.h"
#include "result.h"

namespace remat {

struct HfImportOptions {
    // Tokens per sequence; default: the config's maximum (max_position_embeddings, n_positions,
    // n_ctx). Must not exceed that maximum.
    std::optional<std::int64_t> seqLen;
    // Samples per micro-batch; default 1.
    std::optional<std::int64_t> microBatch;
};

// A top-level field of the config that the imported model does not use, and why.
struct HfIgnoredField {
    std::string key;     // as written in the config (escaped for display)
    std::string reason;  // "rotary position base: no parameters, no memory"
    bool operator==(const HfIgnoredField&) const = default;
};

struct HfImport {
    ModelFile model;
    std::vector<HfIgnoredField> ignored;  // sorted by key
    std::string modelType;                // the config's model_type
};

// `text` is the content of a config.json; `origin` names it in messages ("FILE: $.x: ...").
Result<HfImport> importHfConfig(const std::string& text, const std::string& origin,
                                const HfImportOptions& options = {});
// A config.json file, or a directory holding one (a downloaded checkpoint).
Result<HfImport> importHfConfigFile(const std::string& path, const HfImportOptions& options = {});

// The model_type values that import (gpt2, gemma, ...), and those refused with a reason.
std::vector<std::string> hfSupportedModelTypes();
std::vector<std::string> hfRefusedModelTypes();

}  // namespace remat
