#include "common.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "analysis.h"
#include "compiler.h"
#include "lower.h"
#include "text.h"

namespace remat::cli {

void addCommonOptions(CLI::App& cmd, CommonOptions& o, bool withStrategy) {
    cmd.add_option("MODEL", o.model, "model file (.json) or preset name (e.g. gpt2-small)")
        ->required();
    if (withStrategy)
        cmd.add_option("-s,--strategy", o.strategy,
                       std::string(kStrategySpellings) + ". Default: the file's plan, else none");
    cmd.add_option("-b,--micro-batch", o.microBatch, "samples per micro-batch (1 to 16777216)");
    cmd.add_option("-a,--accum", o.accum, "gradient accumulation steps (1 to 1000000)");
    cmd.add_option("-p,--precision", o.precision, "fp32 | mixed-bf16 | mixed-fp16");
    cmd.add_option("-o,--optimizer", o.optimizer, "sgd | momentum | adam | adamw");
    cmd.add_option("-d,--device", o.device, "device profile id or profile file");
    cmd.add_flag("--json", o.json, "print one JSON object");
    cmd.add_option("--recompute-impl", o.recomputeImpl,
                   std::string("checkpoint implementation: ") + kRecomputeImplSpellings +
                       ". Default: the file's, else pytorch");
}

std::string echoedCount(std::int64_t v) {
    // CLI11 saturates a number past int64 to its limit; echoing that would misquote the user.
    constexpr std::int64_t kQuoted = std::int64_t{1} << 62;
    return v > -kQuoted && v < kQuoted ? ", got " + std::to_string(v) : std::string();
}

Result<Context> resolve(const CommonOptions& o) {
    // Flags first: a wrong flag is named before the model file is read.
    if (o.microBatch && (*o.microBatch < 1 || *o.microBatch > (std::int64_t{1} << 24)))
        return makeError("--micro-batch must be between 1 and 16777216" +
                         echoedCount(*o.microBatch));
    if (o.accum && (*o.accum < 1 || *o.accum > 1000000))
        return makeError("--accum must be between 1 and 1000000" + echoedCount(*o.accum));
    auto model = loadModel(o.model);
    if (!model) return model.error();
    Context c;
    c.origin = o.model;
    c.model = std::move(*model);
    c.training = c.model.training;
    if (o.microBatch) c.training.microBatch = *o.microBatch;
    if (o.accum) c.training.accumulationSteps = *o.accum;
    if (!o.precision.empty()) {
        auto p = parsePrecision(o.precision);
        if (!p)
            return makeError("--precision: expected fp32, mixed-bf16 or mixed-fp16, got '" +
                             printable(o.precision) + "'");
        c.training.precision = *p;
    }
    if (!o.optimizer.empty()) {
        auto opt = parseOptimizer(o.optimizer);
        if (!opt)
            return makeError("--optimizer: expected sgd, momentum, adam or adamw, got '" +
                             printable(o.optimizer) + "'");
        c.training.optimizer = *opt;
    }
    if (!o.recomputeImpl.empty()) {
        auto impl = parseRecomputeImpl(o.recomputeImpl);
        if (!impl)
            return makeError(std::string("--recompute-impl: expected ") +
                             kRecomputeImplSpellings + ", got '" + printable(o.recomputeImpl) +
                             "'");
        c.training.recomputeImpl = *impl;
    }
    std::string deviceId = !o.device.empty()         ? o.device
                           : !c.model.device.empty() ? c.model.device
                                                     : std::string("a100-80gb");
    auto d = findDevice(deviceId);
    if (!d) return d.error();
    c.device = std::move(*d);
    auto g = lower(c.model.network, c.training.precision);
    if (!g) return makeError(printable(o.model, 400) + ": " + g.error().message);
    c.graph = std::move(*g);
    std::string strategy = o.strategy.empty() ? defaultStrategy(c.model) : o.strategy;
    auto s = parseStrategy(strategy);
    if (!s) return makeError((o.strategy.empty() ? "" : "--strategy: ") + s.error().message);
    if (auto st = checkSelectiveKinds(c.graph, *s); !st) return makeError(st.error().message);
    c.strategy = *s;
    c.manual = manualRegions(c.model);
    if (c.strategy.kind == StrategyKind::Manual && c.model.planForm != PlanForm::PerLayer &&
        c.model.planForm != PlanForm::Regions)
        return makeError(
            "--strategy manual: the model file has no manual plan (per-layer "
            "\"checkpoint\" flags or \"plan\": {\"regions\": ...})");
    return c;
}

int userError(const std::string& message) {
    // The parts echoed from files are escaped where the message is made; this is the net for
    // the rest (a newline inside a library message would break "one line").
    std::cerr << "remat: " << printable(message, 4000) << "\n";
    return 2;
}

int userError(const Context& c, const std::string& message) {
    return userError(c.origin + ": " + message);
}

std::string shown(const std::string& text, std::size_t maxChars) {
    return printable(text, maxChars);
}

std::string modelName(const Context& c, const CommonOptions& o) {
    return printable(c.model.network.name.empty() ? o.model : c.model.network.name);
}

std::vector<Strategy> listedStrategies(const Context& c) {
    std::vector<Strategy> strategies = comparisonStrategies(c.graph, c.training.recomputeImpl);
    if (c.model.planForm == PlanForm::PerLayer || c.model.planForm == PlanForm::Regions)
        strategies.insert(strategies.begin() + 1, Strategy{StrategyKind::Manual, 0, {}});
    return strategies;
}

Result<std::vector<std::string>> unsafeReasons(const Context& c, const Plan& plan) {
    auto program = compile(c.graph, plan, c.training, compileOptionsFor(c.device));
    if (!program) return program.error();
    return std::move(program->unsafeReasons);
}

std::string recomputeImplNote(const TrainingConfig& training) {
    if (training.recomputeImpl == RecomputeImpl::Pytorch) return {};
    return ", " + std::string(recomputeImplName(training.recomputeImpl)) + " checkpoint";
}

std::string dumpJson(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace remat::cli
