// Element types, precision modes, optimizers and memory categories: the small closed sets
// every other part of the simulator speaks in, with their JSON/CLI spellings.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace remat {

enum class DType { F32, BF16, F16, I64, U8 };

constexpr std::int64_t dtypeBytes(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::BF16: return 2;
        case DType::F16: return 2;
        case DType::I64: return 8;
        case DType::U8: return 1;
    }
    return 0;
}
std::string_view dtypeName(DType t);

// Precision modes (docs/memory-model.md, "Dtypes by precision mode"):
// - Fp32: everything fp32.
// - MixedBf16 / MixedFp16: Megatron-LM style: 16-bit parameters, gradients and activations,
//   fp32 master weights and optimizer state (gradients optionally fp32: MainGrads).
// - AutocastBf16 / AutocastFp16: PyTorch `torch.autocast`: fp32 parameters, gradients and
//   optimizer state; ops on autocast's lower-precision list (linear, conv, matmul, attention)
//   run on 16-bit copies of their inputs and weights, ops on its fp32 list in fp32, the rest
//   in their inputs' dtype.
// - Bf16: the model cast to bf16 (`model.to(torch.bfloat16)`): parameters, gradients,
//   activations and optimizer state all bf16, no master weights.
enum class Precision { Fp32, MixedBf16, MixedFp16, AutocastBf16, AutocastFp16, Bf16 };
std::string_view precisionName(Precision p);
std::optional<Precision> parsePrecision(std::string_view s);
// "fp32, mixed-bf16, ..." for messages and help texts.
std::string_view precisionNames();
// The 16-bit dtype matmuls run in (fp32 for Fp32): the dtype of most activations.
constexpr DType computeDType(Precision p) {
    switch (p) {
        case Precision::Fp32: return DType::F32;
        case Precision::MixedFp16:
        case Precision::AutocastFp16: return DType::F16;
        default: return DType::BF16;
    }
}
constexpr bool isAutocast(Precision p) {
    return p == Precision::AutocastBf16 || p == Precision::AutocastFp16;
}
// The dtype parameters are held in (and, but for fp32 main gradients, their gradients).
constexpr DType parameterDType(Precision p) {
    return isAutocast(p) ? DType::F32 : computeDType(p);
}
// Megatron-style mixed precision keeps an fp32 master copy of every 16-bit parameter.
constexpr bool hasMasterWeights(Precision p) {
    return p == Precision::MixedBf16 || p == Precision::MixedFp16;
}
// Optimizer state (momentum, Adam moments) follows the parameter the optimizer updates: the
// fp32 master weight, the fp32 parameter, or the bf16 parameter of pure bf16.
constexpr DType optimizerStateDType(Precision p) {
    return p == Precision::Bf16 ? DType::BF16 : DType::F32;
}

// Parameter gradients of Megatron-style mixed precision: in the parameters' 16-bit dtype, or
// in fp32 (Megatron-LM's --accumulate-allreduce-grads-in-fp32: the wgrad GEMMs accumulate into
// an fp32 `main_grad` buffer, 18 bytes per parameter with Adam).
enum class MainGrads { Param, Fp32 };
std::string_view mainGradsName(MainGrads m);  // "param", "fp32"
std::optional<MainGrads> parseMainGrads(std::string_view s);

// How the optimizer step is implemented (PyTorch's torch.optim `fused=True`, `foreach=True`,
// `foreach=False`): what temporaries it allocates (docs/memory-model.md).
enum class OptimizerImpl { Fused, Foreach, ForLoop };
std::string_view optimizerImplName(OptimizerImpl i);  // "fused", "foreach", "for-loop"
std::optional<OptimizerImpl> parseOptimizerImpl(std::string_view s);

// Cross-entropy: standard (the logits materialised, then log-softmax) or chunked (the head's
// linear fused with the loss and run over chunks of rows; the logits are never materialised).
enum class LossImpl { Standard, Chunked };
std::string_view lossImplName(LossImpl i);  // "standard", "chunked"
std::optional<LossImpl> parseLossImpl(std::string_view s);

// Which fp32 GEMMs may use TF32 tensor cores: PyTorch's torch.backends.cudnn.allow_tf32
// (convolutions, default on) and torch.backends.cuda.matmul.allow_tf32 (matmuls, default off).
enum class Tf32Mode { None, Conv, Matmul, All };
std::string_view tf32ModeName(Tf32Mode m);  // "none", "conv", "matmul", "all"
std::optional<Tf32Mode> parseTf32Mode(std::string_view s);
constexpr bool tf32ForConv(Tf32Mode m) { return m == Tf32Mode::Conv || m == Tf32Mode::All; }
constexpr bool tf32ForMatmul(Tf32Mode m) { return m == Tf32Mode::Matmul || m == Tf32Mode::All; }

enum class Optimizer { Sgd, Momentum, Adam, AdamW };
std::string_view optimizerName(Optimizer o);
std::optional<Optimizer> parseOptimizer(std::string_view s);
// fp32 state tensors per parameter (momentum buffer; Adam's two moments).
constexpr int optimizerStateCount(Optimizer o) {
    return o == Optimizer::Sgd ? 0 : (o == Optimizer::Momentum ? 1 : 2);
}

// Every byte the simulator or an executor counts belongs to exactly one category.
enum class Category : std::uint8_t {
    Parameters,
    Gradients,
    OptimizerState,
    SavedActivations,
    RecomputedActivations,
    Transient,
    Inputs,
    Workspace,
    // Parallel layouts with ZeRO-3 / FSDP: the whole parameters of the layer being computed and
    // of the one prefetched, gathered from every data-parallel rank's shard.
    GatheredParameters,
};
inline constexpr std::size_t kCategoryCount = 9;
inline constexpr std::array<Category, kCategoryCount> kAllCategories = {
    Category::Parameters,       Category::Gradients,
    Category::OptimizerState,   Category::SavedActivations,
    Category::RecomputedActivations, Category::Transient,
    Category::Inputs,           Category::Workspace,
    Category::GatheredParameters};
// JSON spelling (`saved_activations`, ...).
std::string_view categoryKey(Category c);

using CategoryBytes = std::array<std::int64_t, kCategoryCount>;

inline std::int64_t totalBytes(const CategoryBytes& b) {
    std::int64_t sum = 0;
    for (auto v : b) sum += v;
    return sum;
}

}  // namespace remat
