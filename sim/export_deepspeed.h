// `remat export --to deepspeed`: a plan as the `activation_checkpointing` section of a DeepSpeed
// config (JSON). DeepSpeed's section only configures its checkpoint function; which modules run
// inside it is the model code's choice, so the export adds a `remat_plan` object with the regions,
// the code that checkpoints them (`deepspeed.checkpointing.checkpoint`) and what the export
// cannot express. Nested regions are refused.
#pragma once

#include <string>

#include "export_plan.h"

namespace remat {

Result<std::string> exportDeepSpeed(const PlanDescription& plan);

}  // namespace remat
