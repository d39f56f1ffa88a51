#include "common.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "analysis.h"
#include "calibration.h"
#include "compiler.h"
#include "lower.h"
#include "text.h"
#include "training_rules.h"

namespace remat::cli {

void addCommonOptions(CLI::App& cmd, CommonOptions& o, bool withStrategy) {
    cmd.add_option("MODEL", o.model, "model file (.json) or preset name (e.g. gpt2-small)")
        ->required();
    if (withStrategy)
        cmd.add_option("-s,--strategy", o.strategy,
                       std::string(kStrategySpellings) + ". Default: the file's plan, else none");
    cmd.add_option("-b,--micro-batch", o.microBatch, "samples per micro-batch (1 to 16777216)");
    cmd.add_option("-a,--accum", o.accum, "gradient accumulation steps (1 to 1000000)");
    cmd.add_option("-p,--precision", o.precision,
                   "fp32 | mixed-bf16 | mixed-fp16 | autocast-bf16 | autocast-fp16 | bf16");
    cmd.add_option("-o,--optimizer", o.optimizer, "sgd | momentum | adam | adamw");
    cmd.add_option("-d,--device", o.device, "device profile id or profile file");
    cmd.add_flag("--json", o.json, "print one JSON object");
    cmd.add_option("--recompute-impl", o.recomputeImpl,
                   std::string("checkpoint implementation: ") + kRecomputeImplSpellings +
                       ". Default: the file's, else pytorch");
    cmd.add_option("--main-grads", o.mainGrads,
                   "param | fp32: parameter gradients of mixed-bf16/mixed-fp16 in the "
                   "parameters' dtype or in fp32 (Megatron-LM's "
                   "--accumulate-allreduce-grads-in-fp32)");
    cmd.add_option("--optimizer-impl", o.optimizerImpl,
                   "fused | foreach | for-loop: the optimizer's temporaries (default fused)");
    cmd.add_option("--loss-impl", o.lossImpl,
                   "standard | chunked: cross-entropy with the logits materialised, or fused "
                   "with the head's linear over chunks of rows");
    cmd.add_option("--tf32", o.tf32,
                   "none | conv | matmul | all: fp32 GEMMs allowed to use TF32 (default conv, "
                   "as PyTorch)");
    cmd.add_option("--dp", o.dp, "data-parallel degree (parallel layouts: docs/parallelism.md)");
    cmd.add_option("--gpus", o.gpus,
                   "GPUs of the layout: dp x tp x pp x cp. Without --dp, dp is N / (tp x pp x cp)");
    cmd.add_option("--zero", o.zero,
                   "ZeRO stage 0|1|2|3, or FSDP's no_shard|shard_grad_op|full_shard|hybrid");
    cmd.add_option("--tp", o.tp, "tensor-parallel degree (Megatron-LM)");
    cmd.add_flag("--sequence-parallel", o.sequenceParallel,
                 "split layer norms and dropout along the sequence over the tp ranks");
    cmd.add_option("--pp", o.pp, "pipeline-parallel stages");
    cmd.add_option("--schedule", o.schedule, "pipeline schedule gpipe|1f1b|interleaved:V");
    cmd.add_option("--cp", o.cp, "context-parallel degree");
    cmd.add_option("--offload", o.offload,
                   "host-memory offload: optimizer,parameters,activations (comma list) or none");
    cmd.add_option("--cluster", o.cluster,
                   "cluster profile id (dgx-a100-80gb, dgx-h100, ...) or file; sets the device");
}

Status singleGpuOnly(const Context& c, const std::string& command) {
    if (c.training.parallel.single()) return Ok{};
    const ParallelConfig& p = c.training.parallel;
    return makeError(
        "remat " + command + " runs the step on this machine's one device and cannot run " +
        (p.gpus() == 1 ? std::string("the sharding and offload")
                       : "the " + std::to_string(p.gpus()) + " GPUs") +
        " of the layout " + describeLayout(p) + "; " + command +
        " the single-GPU step by dropping the layout (--dp 1 --tp 1 --pp 1 --cp 1 --zero 0 "
        "--offload none, or the model file's \"parallel\"), and predict the layout per GPU with "
        "remat simulate, compare, program, max-batch, pareto, sweep or fit "
        "(docs/parallelism.md)");
}

Status applyParallelOptions(const CommonOptions& o, ParallelConfig& p) {
    auto degree = [](const char* flag, std::optional<std::int64_t> v,
                     std::int64_t& dst) -> Status {
        if (!v) return Ok{};
        if (*v < 1 || *v > kMaxParallelDegree)
            return makeError(std::string(flag) + " must be between 1 and " +
                             std::to_string(kMaxParallelDegree) + echoedCount(*v));
        dst = *v;
        return Ok{};
    };
    std::int64_t gpus = 0;
    for (auto st : {degree("--dp", o.dp, p.dp), degree("--tp", o.tp, p.tp),
                    degree("--pp", o.pp, p.pp), degree("--cp", o.cp, p.cp),
                    degree("--gpus", o.gpus, gpus)})
        if (!st) return st;
    if (o.gpus) {
        const std::int64_t others = satMul(satMul(p.tp, p.pp), p.cp);
        const std::string product = "tp x pp x cp = " + std::to_string(p.tp) + " x " +
                                    std::to_string(p.pp) + " x " + std::to_string(p.cp);
        if (!o.dp) {
            if (gpus % others != 0)
                return makeError("--gpus " + std::to_string(gpus) + " is not divisible by " +
                                 product + " = " + std::to_string(others) +
                                 " (the data-parallel degree is --gpus / (tp x pp x cp))");
            p.dp = gpus / others;
        } else if (p.gpus() != gpus) {
            return makeError("--gpus " + std::to_string(gpus) +
                             " does not match the layout: dp x tp x pp x cp = " +
                             std::to_string(p.dp) + " x " + std::to_string(p.tp) + " x " +
                             std::to_string(p.pp) + " x " + std::to_string(p.cp) + " = " +
                             std::to_string(p.gpus()) + " GPUs");
        }
    }
    if (!o.zero.empty()) {
        auto z = parseZeroStage(o.zero, &p.hybridShard);
        if (!z)
            return makeError("--zero: expected 0, 1, 2, 3, no_shard, shard_grad_op, full_shard "
                             "or hybrid, got '" + printable(o.zero) + "'");
        p.zeroStage = *z;
    }
    if (o.sequenceParallel) p.sequenceParallel = true;
    if (!o.schedule.empty()) {
        auto s = parseSchedule(o.schedule);
        if (!s)
            return makeError("--schedule: expected gpipe, 1f1b or interleaved:V (V >= 2), got '" +
                             printable(o.schedule) + "'");
        std::tie(p.schedule, p.virtualStages) = *s;
    }
    if (!o.offload.empty()) {
        p.offloadOptimizer = p.offloadParameters = p.offloadActivations = false;
        std::string rest = o.offload;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            const std::string item = rest.substr(0, comma);
            rest = comma == std::string::npos ? std::string() : rest.substr(comma + 1);
            if (item == "optimizer") p.offloadOptimizer = true;
            else if (item == "parameters") p.offloadParameters = true;
            else if (item == "activations") p.offloadActivations = true;
            else if (item != "none")
                return makeError("--offload: expected optimizer, parameters, activations or "
                                 "none, got '" + printable(item) + "'");
        }
    }
    return Ok{};
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
            return makeError("--precision: expected one of " + std::string(precisionNames()) +
                             ", got '" + printable(o.precision) + "'");
        c.training.precision = *p;
    }
    if (!o.optimizer.empty()) {
        auto opt = parseOptimizer(o.optimizer);
        if (!opt)
            return makeError("--optimizer: expected sgd, momentum, adam or adamw, got '" +
                             printable(o.optimizer) + "'");
        c.training.optimizer = *opt;
    }
    if (!o.mainGrads.empty()) {
        auto m = parseMainGrads(o.mainGrads);
        if (!m)
            return makeError("--main-grads: expected param or fp32, got '" +
                             printable(o.mainGrads) + "'");
        c.training.mainGrads = *m;
    }
    if (!o.optimizerImpl.empty()) {
        auto i = parseOptimizerImpl(o.optimizerImpl);
        if (!i)
            return makeError("--optimizer-impl: expected fused, foreach or for-loop, got '" +
                             printable(o.optimizerImpl) + "'");
        c.training.optimizerImpl = *i;
    }
    if (!o.lossImpl.empty()) {
        auto i = parseLossImpl(o.lossImpl);
        if (!i)
            return makeError("--loss-impl: expected standard or chunked, got '" +
                             printable(o.lossImpl) + "'");
        c.training.lossImpl = *i;
    }
    if (!o.tf32.empty()) {
        auto m = parseTf32Mode(o.tf32);
        if (!m)
            return makeError("--tf32: expected none, conv, matmul or all, got '" +
                             printable(o.tf32) + "'");
        c.training.tf32 = *m;
    }
    if (auto st = checkTrainingConfig(c.training); !st)
        return makeError((o.mainGrads.empty() ? "--precision: " : "--main-grads: ") +
                         st.error().message);
    if (!o.recomputeImpl.empty()) {
        auto impl = parseRecomputeImpl(o.recomputeImpl);
        if (!impl)
            return makeError(std::string("--recompute-impl: expected ") +
                             kRecomputeImplSpellings + ", got '" + printable(o.recomputeImpl) +
                             "'");
        c.training.recomputeImpl = *impl;
    }
    if (auto st = applyParallelOptions(o, c.training.parallel); !st) return st.error();
    if (!o.cluster.empty()) {
        auto cl = findCluster(o.cluster);
        if (!cl) return makeError("--cluster: " + cl.error().message);
        c.cluster = std::move(*cl);
        if (!o.device.empty()) {
            auto d = findDevice(o.device);
            if (!d) return d.error();
            c.cluster.device = std::move(*d);
        }
        c.device = c.cluster.device;
    } else {
        std::string deviceId = !o.device.empty()         ? o.device
                               : !c.model.device.empty() ? c.model.device
                                                         : std::string("a100-80gb");
        auto d = findDevice(deviceId);
        if (!d) return d.error();
        c.device = std::move(*d);
        c.cluster = clusterForDevice(c.device);
    }
    if (auto st = validateLayout(c.model.network, c.training.parallel); !st)
        return makeError(printable(o.model, 400) + ": " + st.error().message);
    auto g = lower(c.model.network, c.training);
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
    c.warnings = calibrationWarnings(c.device, c.graph, c.training.precision,
                                     c.model.network.name.empty() ? o.model : c.model.network.name);
    for (const std::string& w : c.warnings)
        std::cerr << "remat: warning: " << printable(w, 4000) << "\n";
    return c;
}

std::string trainingText(const TrainingConfig& t) {
    const TrainingConfig defaults;
    std::string s = std::string(precisionName(t.precision)) + ", " +
                    std::string(optimizerName(t.optimizer));
    if (t.mainGrads != defaults.mainGrads)
        s += ", " + std::string(mainGradsName(t.mainGrads)) + " main grads";
    if (t.optimizerImpl != defaults.optimizerImpl)
        s += ", " + std::string(optimizerImplName(t.optimizerImpl)) + " optimizer";
    if (t.lossImpl != defaults.lossImpl)
        s += ", " + std::string(lossImplName(t.lossImpl)) + " loss";
    if (t.tf32 != defaults.tf32) s += ", tf32 " + std::string(tf32ModeName(t.tf32));
    return s;
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
    return program->allUnsafeReasons();
}

std::string recomputeImplNote(const TrainingConfig& training) {
    if (training.recomputeImpl == RecomputeImpl::Pytorch) return {};
    return ", " + std::string(recomputeImplName(training.recomputeImpl)) + " checkpoint";
}

std::string dumpJson(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace remat::cli
