// `remat calibrate --backend cuda --out PROFILE.json [MODEL]`: runs the model's no-checkpoint
// program for real, measures every op's forward and backward time (median over the measured
// steps and over the ops of one shape, after warm-up) and writes a device profile whose
// "calibration" object holds them keyed by op kind and shape (sim/calibration.h), with what they
// were measured on (model, precision, backend, device name, date). The simulator then predicts
// every op of a known shape — in this model or another — from the measured times, scaled by
// micro-batch, instead of the efficiency model; including the recompute of checkpointed plans,
// which is the forward time again. The profile starts from the model's (or --device's) profile
// so memory figures stay those of the card. Works with --backend cpu too.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "backends.h"
#include "calibration.h"
#include "commands.h"
#include "common.h"
#include "report.h"
#include "table.h"

namespace remat::cli {

namespace {

struct CalibrateOptions {
    CommonOptions common;
    std::string backend = "cuda";
    std::string out;
    int steps = 3;
    int warmup = 1;
    std::uint64_t seed = 1;
};

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// "2026-12-02T11:20:00Z".
std::string utcNow() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

nlohmann::json phasesJson(const PhaseTotals& t) {
    return {{"forward", t.forward},
            {"backward", t.backward},
            {"recompute", t.recompute},
            {"optimizer", t.optimizer},
            {"total", t.total()}};
}

int runCalibrate(CalibrateOptions o) {
    if (o.out.empty()) return userError("calibrate: --out PROFILE.json is required");
    if (o.steps < 1 || o.steps > 100) return userError("--steps must be between 1 and 100");
    if (o.warmup < 0 || o.warmup > 100) return userError("--warmup must be between 0 and 100");
    o.common.strategy = "none";
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    if (auto st = singleGpuOnly(*c, "calibrate"); !st) return userError(*c, st.error().message);
    Plan none;
    none.strategy = "none";
    auto program = compile(c->graph, none, c->training, compileOptionsFor(c->device));
    if (!program) return userError(program.error().message);

    auto executor = makeExecutor(o.backend);
    if (!executor) {
        std::cerr << "remat calibrate: " << executor.error().message << "\n";
        return 2;
    }
    // Per op shape: the step's mean over micro-steps, one entry per measured step and op of
    // that shape.
    std::map<std::string, std::vector<double>> forward, backward;
    std::vector<PhaseTotals> phases;
    // Seconds per step in GEMM-backed ops (linear, attention scores and context): the share
    // of the step the GEMM library carries.
    std::vector<double> gemmS;
    std::string deviceName;
    std::map<std::string, std::string> shapeOf;  // op name -> shape key
    for (const Op& op : c->graph.ops)
        shapeOf[op.name] = opShapeKey(c->graph, op, c->training.precision);
    for (int s = 0; s < o.steps; ++s) {
        ExecuteOptions eo;
        eo.seed = o.seed;
        eo.warmupSteps = s == 0 ? o.warmup : 0;
        eo.collectGradients = false;
        auto m = (*executor)->execute(c->graph, *program, eo);
        if (!m) return userError("calibration run: " + m.error().message);
        deviceName = m->deviceName;
        phases.push_back(m->timeS);
        std::map<std::string, std::pair<double, int>> f, b;
        double gemm = 0.0;
        for (std::size_t i = 0; i < program->instructions.size(); ++i) {
            const Instruction& ins = program->instructions[i];
            if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Backward) continue;
            const Op& op = c->graph.op(ins.op);
            if (op.forward.matmul) gemm += m->elapsedS[i];
            auto& slot = ins.kind == InstrKind::Forward ? f[op.name] : b[op.name];
            slot.first += m->elapsedS[i];  // all iterations of a repeated instruction
            slot.second += int(program->timesRun(i));
        }
        gemmS.push_back(gemm);
        for (const auto& [name, v] : f) forward[shapeOf.at(name)].push_back(v.first / v.second);
        for (const auto& [name, v] : b) backward[shapeOf.at(name)].push_back(v.first / v.second);
    }

    DeviceSpec profile = c->device;
    profile.id = c->device.id + "-calibrated";
    profile.name = c->device.name + " (calibrated on " + deviceName + ")";
    const std::string modelName =
        c->model.network.name.empty() ? o.common.model : c->model.network.name;
    profile.source = "remat calibrate --backend " + o.backend + " on " + deviceName + ": model " +
                     modelName + ", micro-batch " + std::to_string(c->training.microBatch) + ", " +
                     std::string(precisionName(c->training.precision)) + ", median of " +
                     std::to_string(o.steps) + " steps after " + std::to_string(o.warmup) +
                     " warm-up; base profile " + c->device.id;
    profile.calibrationMicroBatch = c->training.microBatch;
    profile.measured.clear();
    profile.measuredByShape.clear();
    for (const Op& op : c->graph.ops) {
        if (op.kind == OpKind::Flatten) continue;
        const std::string& key = shapeOf.at(op.name);
        auto f = forward.find(key);
        if (f == forward.end() || profile.measuredByShape.count(key)) continue;
        auto b = backward.find(key);
        MeasuredOpTime t;
        t.forwardS = median(f->second);
        t.backwardS = b == backward.end() ? 0.0 : median(b->second);
        profile.measuredByShape[key] = t;
    }
    profile.calibrationOrigin.model = modelName;
    profile.calibrationOrigin.precision = std::string(precisionName(c->training.precision));
    profile.calibrationOrigin.backend = o.backend;
    profile.calibrationOrigin.deviceName = deviceName;
    profile.calibrationOrigin.date = utcNow();
    {
        std::ofstream file(o.out);
        if (!file) return userError("cannot write '" + o.out + "'");
        file << deviceToJson(profile);
        if (!file) return userError("cannot write '" + o.out + "'");
    }

    // What the calibrated profile predicts for the plan it was measured on: a check that the
    // figures went in (the optimizer step and alloc/free are not calibrated).
    const Timeline predicted = simulate(c->graph, *program, profile);
    PhaseTotals measured;
    {
        std::vector<double> fw, bw, opt;
        for (const auto& p : phases) {
            fw.push_back(p.forward);
            bw.push_back(p.backward);
            opt.push_back(p.optimizer);
        }
        measured.forward = median(fw);
        measured.backward = median(bw);
        measured.optimizer = median(opt);
    }
    const double gemmShare = measured.total() > 0 ? median(gemmS) / measured.total() : 0.0;
    if (o.common.json) {
        nlohmann::json j = {{"profile", o.out},
                            {"backend", o.backend},
                            {"device_name", deviceName},
                            {"model", modelName},
                            {"micro_batch", c->training.microBatch},
                            {"steps", o.steps},
                            {"warmup", o.warmup},
                            {"ops", profile.measuredByShape.size()},
                            {"measured_time_s", phasesJson(measured)},
                            {"gemm_time_s", median(gemmS)},
                            {"gemm_share", gemmShare},
                            {"predicted_time_s", phasesJson(predicted.timeS)}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "calibrated " << profile.measuredByShape.size() << " op shapes of " << modelName << " on "
              << deviceName << " (" << o.backend << "), micro-batch " << c->training.microBatch
              << ", median of " << o.steps << " steps after " << o.warmup << " warm-up\n";
    std::cout << "wrote " << o.out << " (profile '" << profile.id << "')\n\n";
    TextTable table({"phase", "measured", "predicted (calibrated)"});
    table.addRow(
        {"forward", formatSeconds(measured.forward), formatSeconds(predicted.timeS.forward)});
    table.addRow(
        {"backward", formatSeconds(measured.backward), formatSeconds(predicted.timeS.backward)});
    table.addRow({"optimizer", formatSeconds(measured.optimizer),
                  formatSeconds(predicted.timeS.optimizer) + " (roofline)"});
    table.addRow(
        {"total", formatSeconds(measured.total()), formatSeconds(predicted.timeS.total())});
    std::cout << table.render();
    std::cout << "\nGEMMs (linear, attention scores and context): " << formatSeconds(median(gemmS))
              << ", " << formatPercent(gemmShare) << " of the measured step\n";
    std::cout << "\nUse it: remat simulate " << o.common.model << " --device " << o.out
              << " --strategy full\n";
    return 0;
}

}  // namespace

void addCalibrate(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "calibrate",
        "measure per-op times on a real no-checkpoint run and write a calibrated "
        "device profile");
    auto o = std::make_shared<CalibrateOptions>();
    o->common.model = "gpt2-tiny";
    cmd->add_option("MODEL", o->common.model, "model file (.json) or preset name")
        ->capture_default_str();
    cmd->add_option("--backend", o->backend, "cuda | cpu")->capture_default_str();
    cmd->add_option("--out", o->out, "the calibrated profile to write (JSON)")->required();
    cmd->add_option("--steps", o->steps, "measured steps (the median is kept)")
        ->capture_default_str();
    cmd->add_option("--warmup", o->warmup, "warm-up steps before measuring")->capture_default_str();
    cmd->add_option("--seed", o->seed, "seed of weights and data")->capture_default_str();
    cmd->add_option("-b,--micro-batch", o->common.microBatch, "samples per micro-batch");
    cmd->add_option("-a,--accum", o->common.accum, "gradient accumulation steps");
    cmd->add_option("-p,--precision", o->common.precision, "fp32 | mixed-bf16 | mixed-fp16");
    cmd->add_option("-o,--optimizer", o->common.optimizer, "sgd | momentum | adam | adamw");
    cmd->add_option("-d,--device", o->common.device,
                    "profile to start from (memory, peaks); default the model's");
    cmd->add_flag("--json", o->common.json, "print one JSON object");
    cmd->callback([o, &exitCode] { exitCode = runCalibrate(*o); });
}

}  // namespace remat::cli
