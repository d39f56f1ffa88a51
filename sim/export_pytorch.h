// `remat export --to pytorch`: the network as a runnable PyTorch module whose checkpoints are the
// plan's regions. Modules are named after the layer paths (layer 5's attention is
// `layers.5.attention`) and built like the lowering builds them (a transformer block is ln1,
// attention {qkv, attention_core, proj}, ln2, mlp); whole-layer regions are
// `torch.utils.checkpoint.checkpoint(..., use_reentrant=False)` calls in the model's forward,
// sub-module regions (selective) are checkpointed by the module that owns them. A header comment
// says what the file cannot express; nested regions and regions reaching into the loss are
// refused with the region's name.
#pragma once

#include <string>

#include "export_plan.h"

namespace remat {

Result<std::string> exportPytorch(const Network& net, const PlanDescription& plan);

}  // namespace remat
