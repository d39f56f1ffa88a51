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

enum class Precision { Fp32, MixedBf16, MixedFp16 };
std::string_view precisionName(Precision p);
std::optional<Precision> parsePrecision(std::string_view s);
// The dtype activations, parameters and gradients are held in.
constexpr DType computeDType(Precision p) {
    return p == Precision::Fp32 ? DType::F32 : (p == Precision::MixedBf16 ? DType::BF16 : DType::F16);
}

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
