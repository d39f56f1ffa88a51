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
        case Precision::AutocastBf16: return "autocast-bf16";
        case Precision::AutocastFp16: return "autocast-fp16";
        case Precision::Bf16: return "bf16";
    }
    return "?";
}

std::optional<Precision> parsePrecision(std::string_view s) {
    for (auto p : {Precision::Fp32, Precision::MixedBf16, Precision::MixedFp16,
                   Precision::AutocastBf16, Precision::AutocastFp16, Precision::Bf16})
        if (precisionName(p) == s) return p;
    return std::nullopt;
}

std::string_view precisionNames() {
    return "fp32, mixed-bf16, mixed-fp16, autocast-bf16, autocast-fp16, bf16";
}

std::string_view mainGradsName(MainGrads m) {
    return m == MainGrads::Fp32 ? "fp32" : "param";
}

std::optional<MainGrads> parseMainGrads(std::string_view s) {
    for (auto m : {MainGrads::Param, MainGrads::Fp32})
        if (mainGradsName(m) == s) return m;
    return std::nullopt;
}

std::string_view optimizerImplName(OptimizerImpl i) {
    switch (i) {
        case OptimizerImpl::Fused: return "fused";
        case OptimizerImpl::Foreach: return "foreach";
        case OptimizerImpl::ForLoop: return "for-loop";
    }
    return "?";
}

std::optional<OptimizerImpl> parseOptimizerImpl(std::string_view s) {
    for (auto i : {OptimizerImpl::Fused, OptimizerImpl::Foreach, OptimizerImpl::ForLoop})
        if (optimizerImplName(i) == s) return i;
    return std::nullopt;
}

std::string_view lossImplName(LossImpl i) {
    return i == LossImpl::Chunked ? "chunked" : "standard";
}

std::optional<LossImpl> parseLossImpl(std::string_view s) {
    for (auto i : {LossImpl::Standard, LossImpl::Chunked})
        if (lossImplName(i) == s) return i;
    return std::nullopt;
}

std::string_view tf32ModeName(Tf32Mode m) {
    switch (m) {
        case Tf32Mode::None: return "none";
        case Tf32Mode::Conv: return "conv";
        case Tf32Mode::Matmul: return "matmul";
        case Tf32Mode::All: return "all";
    }
    return "?";
}

std::optional<Tf32Mode> parseTf32Mode(std::string_view s) {
    for (auto m : {Tf32Mode::None, Tf32Mode::Conv, Tf32Mode::Matmul, Tf32Mode::All})
        if (tf32ModeName(m) == s) return m;
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
