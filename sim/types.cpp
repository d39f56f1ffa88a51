#include "types.h"

namespace remat {

std::string_view dtypeName(DType t) {
    switch (t) {
        case DType::F32: return "fp32";
        case DType::BF16: return "bf16";
        case DType::F16: return "fp16";
        case DType::I64: return "int64";
        case DType::U8: return "uint8";
    }
    return "?";
}

std::string_view precisionName(Precision p) {
    switch (p) {
        case Precision::Fp32: return "fp32";
        case Precision::MixedBf16: return "mixed-bf16";
        case Precision::MixedFp16: return "mixed-fp16";
    }
    return "?";
}

std::optional<Precision> parsePrecision(std::string_view s) {
    for (auto p : {Precision::Fp32, Precision::MixedBf16, Precision::MixedFp16})
        if (precisionName(p) == s) return p;
    return std::nullopt;
}

std::string_view optimizerName(Optimizer o) {
    switch (o) {
        case Optimizer::Sgd: return "sgd";
        case Optimizer::Momentum: return "momentum";
        case Optimizer::Adam: return "adam";
        case Optimizer::AdamW: return "adamw";
    }
    return "?";
}

std::optional<Optimizer> parseOptimizer(std::string_view s) {
    for (auto o : {Optimizer::Sgd, Optimizer::Momentum, Optimizer::Adam, Optimizer::AdamW})
        if (optimizerName(o) == s) return o;
    return std::nullopt;
}

std::string_view categoryKey(Category c) {
    switch (c) {
        case Category::Parameters: return "parameters";
        case Category::Gradients: return "gradients";
        case Category::OptimizerState: return "optimizer_state";
        case Category::SavedActivations: return "saved_activations";
        case Category::RecomputedActivations: return "recomputed_activations";
        case Category::Transient: return "transient";
        case Category::Inputs: return "inputs";
        case Category::Workspace: return "workspace";
        case Category::GatheredParameters: return "gathered_parameters";
    }
    return "?";
}

}  // namespace remat
