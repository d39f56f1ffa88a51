// `remat export`: the plan of a model and strategy written for a training framework (PyTorch
// code, Hugging Face code, Megatron-LM flags, a DeepSpeed config section; sim/export_plan.h),
// printed or written with -o. The settings a plan depends on (micro-batch, precision, optimizer,
// device: the optimal planners' budget) are the other commands' flags; -o is the output file
// here, so the optimizer is the long --optimizer only.
#include <fstream>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "export_plan.h"

namespace remat::cli {

namespace {

struct ExportOptions {
    CommonOptions common;
    std::string to;
    std::string out;
};

int runExport(const ExportOptions& o) {
    // Flags first: a wrong target is named before the model is read.
    auto target = parseExportTarget(o.to);
    if (!target)
        return userError("--to: unknown target '" + shown(o.to) + "' (known: " +
                         kExportTargetSpellings + ")");
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    auto exported = exportStrategy(*target, c->model.network, c->training, c->device,
                                   c->strategy, c->manual);
    if (!exported) return userError(*c, exported.error().message);
    const std::string& text = exported->text;
    const Plan& plan = exported->plan;
    if (o.out.empty()) {
        std::cout << text;
        return 0;
    }
    std::ofstream file(o.out, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file)
        return userError("cannot write '" + shown(o.out, kSentenceLimit) + "'");
    std::cerr << "wrote " << shown(o.out, kSentenceLimit) << ": plan " << shown(plan.strategy)
              << " of " << shown(c->model.network.name) << " for " << exportTargetName(*target)
              << ", " << plan.regions.size() << " checkpointed regions\n";
    return 0;
}

}  // namespace

void addExport(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "export", "write a plan as PyTorch or Hugging Face code, Megatron-LM flags or a DeepSpeed "
                  "config section (docs/ecosystem.md)");
    auto o = std::make_shared<ExportOptions>();
    CommonOptions& c = o->common;
    cmd->add_option("MODEL", c.model, "model file (.json) or preset name (e.g. gpt2-small)")
        ->required();
    cmd->add_option("-s,--strategy", c.strategy,
                    std::string(kStrategySpellings) + ". Default: the file's plan, else none");
    cmd->add_option("--to", o->to, std::string("target: ") + kExportTargetSpellings)->required();
    cmd->add_option("-o,--output", o->out, "write the export here (default: print it)");
    cmd->add_option("-b,--micro-batch", c.microBatch, "samples per micro-batch (1 to 16777216)");
    cmd->add_option("-p,--precision", c.precision,
                    "fp32 | mixed-bf16 | mixed-fp16 | autocast-bf16 | autocast-fp16 | bf16");
    cmd->add_option("--optimizer", c.optimizer, "sgd | momentum | adam | adamw");
    cmd->add_option("-d,--device", c.device, "device profile id or profile file");
    cmd->add_option("--recompute-impl", c.recomputeImpl,
                    std::string("checkpoint implementation the prediction assumes: ") +
                        kRecomputeImplSpellings + ". Default: the file's, else pytorch");
    cmd->callback([o, &exitCode] { exitCode = runExport(*o); });
}

}  // namespace remat::cli
