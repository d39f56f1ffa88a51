// Which checkpoint implementation a program follows: PyTorch's non-reentrant
// `torch.utils.checkpoint` (the default), PyTorch's reentrant one, or Megatron-LM's
// `--recompute-granularity`. They differ in how much of a region its recompute runs and how
// long the recomputed region's outputs live (docs/memory-model.md, "Checkpoint
// implementations"); Megatron-LM further accepts only the plans its flags can express, which
// `checkPlanForImpl` enforces with a message naming the region.
#pragma once

#include <optional>
#include <string_view>

#include "result.h"

namespace remat {

struct Graph;
struct Plan;

enum class RecomputeImpl {
    Pytorch,           // use_reentrant=False: early stop once the last saved tensor is packed
    PytorchReentrant,  // use_reentrant=True: the whole region, its outputs held to its backward
    Megatron,          // Megatron-LM CheckpointFunction: as reentrant; layers or core attention
};

// Model-file and CLI spelling: "pytorch", "pytorch-reentrant", "megatron".
std::string_view recomputeImplName(RecomputeImpl impl);
std::optional<RecomputeImpl> parseRecomputeImpl(std::string_view s);
inline constexpr const char* kRecomputeImplSpellings = "pytorch, pytorch-reentrant, megatron";

// Whether a recompute stops early (non-reentrant) or runs its whole region (reentrant, Megatron).
constexpr bool recomputesWholeRegion(RecomputeImpl impl) {
    return impl != RecomputeImpl::Pytorch;
}

// Megatron-LM checkpoints whole transformer layers (`--recompute-granularity full`, one or
// several consecutive layers per checkpoint: `--recompute-method uniform|block`) or the core
// attention (`selective`), never nested, always restoring the RNG state. A plan outside that
// is an error naming the region; every plan passes for the PyTorch implementations.
Status checkPlanForImpl(const Graph& g, const Plan& plan, RecomputeImpl impl);

}  // namespace remat
