#include "export_hf.h"

#include <sstream>

namespace remat {
namespace {

void noteLines(std::ostringstream& out, const std::vector<std::string>& notes) {
    for (const auto& n : notes) out << commentBlock(n, "# - ", "#   ");
}

// The module-finding code shared by every per-module export: where each model type keeps its
// blocks and how it names their attention and MLP.
const char* kFinder = R"py(import functools

from torch.utils.checkpoint import checkpoint

# Where each model type keeps its transformer blocks, and its attention and MLP sub-modules.
BLOCKS = {
    "gpt2": "transformer.h", "gpt_neox": "gpt_neox.layers", "llama": "model.layers",
    "mistral": "model.layers", "qwen2": "model.layers", "gemma": "model.layers",
    "phi3": "model.layers", "bert": "bert.encoder.layer", "roberta": "roberta.encoder.layer",
    "vit": "vit.encoder.layer",
}
SUBMODULES = {
    "attention": {"gpt2": "attn", "gpt_neox": "attention", "llama": "self_attn",
                  "mistral": "self_attn", "qwen2": "self_attn", "gemma": "self_attn",
                  "phi3": "self_attn", "bert": "attention", "roberta": "attention",
                  "vit": "attention"},
    # BERT, RoBERTa and ViT split their MLP over two modules (intermediate, output): none here.
    "mlp": {"gpt2": "mlp", "gpt_neox": "mlp", "llama": "mlp", "mistral": "mlp", "qwen2": "mlp",
            "gemma": "mlp", "phi3": "mlp"},
}


def blocks_of(model):
    """The model's transformer blocks (an nn.ModuleList), found by its config's model_type."""
    model_type = model.config.model_type
    if model_type not in BLOCKS:
        raise ValueError(f"model_type {model_type!r}: not one this export knows the blocks of "
                         f"({', '.join(sorted(BLOCKS))})")
    path = BLOCKS[model_type].split(".")
    # A model with a head (GPT2LMHeadModel) holds the base model under path[0]; a base model
    # (GPT2Model) is that module itself.
    if not hasattr(model, path[0]):
        path = path[1:]
    return functools.reduce(getattr, path, model)


def checkpoint_module(module):
    """Runs `module` inside torch.utils.checkpoint (non-reentrant) whenever it trains."""
    forward = module.forward

    @functools.wraps(forward)
    def checkpointed(*args, **kwargs):
        if not module.training:
            return forward(*args, **kwargs)
        return checkpoint(functools.partial(forward, **kwargs), *args, use_reentrant=False)

    module.forward = checkpointed
)py";

}  // namespace

Result<std::string> exportHf(const PlanDescription& d) {
    if (d.blocks.empty())
        return makeError("the Hugging Face export needs transformer blocks (a Hugging Face model "
                         "checkpoints its blocks or their sub-modules); the model has none");
    if (d.nested)
        return makeError("the plan nests regions; a Hugging Face model checkpoints one level of "
                         "modules");
    for (const auto& r : d.regions) {
        bool inBlock = false;
        for (auto b : d.blocks) inBlock = inBlock || (r.firstLayer == b && r.lastLayer == b);
        if (r.wholeLayers() && r.lastLayer > r.firstLayer)
            return makeError("region '" + r.label +
                             "' puts several layers in one checkpoint; a Hugging Face model "
                             "calls its blocks one at a time, so each checkpoint holds at most "
                             "one block (strategy full, or selective)");
        if (!inBlock)
            return makeError("region '" + r.label +
                             "' is not in a transformer block; a Hugging Face model checkpoints "
                             "its blocks or their attention and MLP only");
        if (!r.wholeLayers() && r.subModule != "attention" && r.subModule != "mlp")
            return makeError("region '" + r.label + "' is the " + r.subModuleKind +
                             " alone; Hugging Face models have no module for it (their core "
                             "attention is a function inside the attention module): use "
                             "selective:attention or selective:mlp");
    }

    std::ostringstream out;
    out << commentBlock(d.model + ", plan " + d.strategy +
                            ", for a Hugging Face transformers model: written by `remat export "
                            "--to hf` (Remat Studio).",
                        "# ", "# ");
    out << "# `model` is your transformers model (e.g. AutoModelForCausalLM.from_pretrained(...)).\n";
    std::vector<std::string> cannot = {
        "The plan's block indices are the model file's: they match the Hugging Face model only "
        "when it has the same blocks (import-hf of its config.json gives them)."};
    for (auto& n : commonExportNotes(d, ExportTarget::HuggingFace)) cannot.push_back(n);
    if (d.regions.empty()) {
        out << "# The plan checkpoints nothing: leave gradient checkpointing off.\n#\n"
            << "# What this cannot express:\n";
        noteLines(out, cannot);
        out << "model.gradient_checkpointing_disable()\n";
        return out.str();
    }
    if (d.everyBlockAlone()) {
        out << "# Every transformer block is one checkpoint: transformers' own gradient "
               "checkpointing\n# (transformers >= 4.35 for gradient_checkpointing_kwargs).\n#\n"
            << "# What this cannot express:\n";
        noteLines(out, cannot);
        out << "model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={\"use_reentrant\": "
               "False})\n";
        return out.str();
    }
    out << "# The plan is not every block alone, so it is per-module code: each region's module "
           "runs inside\n# torch.utils.checkpoint (use_reentrant=False) while training. Leave "
           "model.gradient_checkpointing off.\n#\n# What this cannot express:\n";
    cannot.push_back("The module names are looked up by model_type at run time; a model type "
                     "outside BLOCKS (or an MLP in BERT, RoBERTa or ViT, split over two modules) "
                     "stops with a message.");
    noteLines(out, cannot);
    out << "\n" << kFinder << "\n";
    // Block index i of the Hugging Face model is the i-th transformer block of the model file.
    out << "# (block index in the model, sub-module or None for the whole block): the plan's "
           "regions.\nREGIONS = [\n";
    for (const auto& r : d.regions) {
        std::size_t index = 0;
        for (std::size_t i = 0; i < d.blocks.size(); ++i)
            if (d.blocks[i] == r.firstLayer) index = i;
        out << "    (" << index << ", "
            << (r.wholeLayers() ? std::string("None") : pythonString(r.subModule)) << "),  # "
            << r.label << "\n";
    }
    out << "]\n\n";
    out << "blocks = blocks_of(model)\n";
    out << "if len(blocks) != " << d.blocks.size() << ":\n";
    out << "    raise ValueError(f\"the plan is for " << d.blocks.size()
        << " blocks; the model has {len(blocks)}\")\n";
    out << "for index, sub in REGIONS:\n";
    out << "    target = blocks[index]\n";
    out << "    if sub is not None:\n";
    out << "        names = SUBMODULES[sub]\n";
    out << "        if model.config.model_type not in names:\n";
    out << "            raise ValueError(f\"{model.config.model_type}: no single {sub} module to "
           "checkpoint\")\n";
    out << "        target = getattr(target, names[model.config.model_type])\n";
    out << "    checkpoint_module(target)\n";
    return out.str();
}

}  // namespace remat
