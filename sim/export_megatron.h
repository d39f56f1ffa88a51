// `remat export --to megatron`: a plan as Megatron-LM's command-line flags
// (`--recompute-granularity full|selective`, `--recompute-method uniform|block`,
// `--recompute-num-layers N`). Megatron-LM expresses groups of N consecutive transformer layers
// covering every layer (uniform), the first N layers alone (block), and the core attention of
// every layer (selective); any other plan is refused with the reason.
#pragma once

#include <string>

#include "export_plan.h"

namespace remat {

Result<std::string> exportMegatron(const PlanDescription& plan);

}  // namespace remat
