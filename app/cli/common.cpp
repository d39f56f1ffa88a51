#include "common.h"

#include <iostream>

#include "lower.h"

namespace remat::cli {

void addCommonOptions(CLI::App& cmd, CommonOptions& o, bool withStrategy) {
    cmd.add_option("MODEL", o.model, "model file (.json) or preset name (e.g. gpt2-small)")
        ->required();
    if (withStrategy)
        cmd.add_option("-s,--strategy", o.strategy,
                       "manual | none | full | every:K | sqrt | selective:KIND[,KIND] "
                       "(default: the file's plan, else none)");
    cmd.add_option("-b,--micro-batch", o.microBatch, "samples per micro-batch");
    cmd.add_option("-a,--accum", o.accum, "gradient accumulation steps");
    cmd.add_option("-p,--precision", o.precision, "fp32 | mixed-bf16 | mixed-fp16");
    cmd.add_option("-o,--optimizer", o.optimizer, "sgd | momentum | adam | adamw");
    cmd.add_option("-d,--device", o.device, "device profile id or profile file");
    cmd.add_flag("--json", o.json, "print one JSON object");
}

Result<Context> resolve(const CommonOptions& o) {
    auto model = loadModel(o.model);
    if (!model) return model.error();
    Context c;
    c.model = std::move(*model);
    c.training = c.model.training;
    if (o.microBatch) {
        if (*o.microBatch < 1 || *o.microBatch > (std::int64_t{1} << 24))
            return makeError("--micro-batch must be between 1 and 16777216");
        c.training.microBatch = *o.microBatch;
    }
    if (o.accum) {
        if (*o.accum < 1 || *o.accum > 1000000)
            return makeError("--accum must be between 1 and 1000000");
        c.training.accumulationSteps = *o.accum;
    }
    if (!o.precision.empty()) {
        auto p = parsePrecision(o.precision);
        if (!p) return makeError("--precision: expected fp32, mixed-bf16 or mixed-fp16");
        c.training.precision = *p;
    }
    if (!o.optimizer.empty()) {
        auto opt = parseOptimizer(o.optimizer);
        if (!opt) return makeError("--optimizer: expected sgd, momentum, adam or adamw");
        c.training.optimizer = *opt;
    }
    std::string deviceId = !o.device.empty() ? o.device
                           : !c.model.device.empty() ? c.model.device
                                                     : std::string("a100-80gb");
    auto d = findDevice(deviceId);
    if (!d) return d.error();
    c.device = std::move(*d);
    auto g = lower(c.model.network, c.training.precision);
    if (!g) return makeError(o.model + ": " + g.error().message);
    c.graph = std::move(*g);
    std::string strategy = o.strategy.empty() ? defaultStrategy(c.model) : o.strategy;
    auto s = parseStrategy(strategy);
    if (!s) return s.error();
    c.strategy = *s;
    c.manual = manualRegions(c.model);
    if (c.strategy.kind == StrategyKind::Manual && c.model.planForm != PlanForm::PerLayer &&
        c.model.planForm != PlanForm::Regions)
        return makeError("--strategy manual: the model file has no manual plan (per-layer "
                         "\"checkpoint\" flags or \"plan\": {\"regions\": ...})");
    return c;
}

int userError(const std::string& message) {
    std::cerr << "remat: " << message << "\n";
    return 2;
}

}  // namespace remat::cli
