// `remat export --to hf`: a plan for a Hugging Face transformers model as Python code. A plan that
// checkpoints every transformer block alone is `model.gradient_checkpointing_enable(...)` with
// `use_reentrant: False`; any other plan of whole blocks or of attention / MLP sub-modules is
// per-module code that wraps exactly those modules, found by the model type's module names
// (GPT-2, GPT-NeoX, Llama, Mistral, Qwen2, Gemma, Phi-3, BERT, RoBERTa, ViT). Plans a Hugging
// Face model cannot run (several blocks in one checkpoint, layers outside the blocks, the core
// attention alone, nested regions) are refused with the reason.
#pragma once

#include <string>

#include "export_plan.h"

namespace remat {

Result<std::string> exportHf(const PlanDescription& plan);

}  // namespace remat
