// `remat run`: compile one strategy for a backend, predict it, execute it for real and print
// the prediction and the measurement side by side — peak memory (tracked and device-level),
// time per phase, the largest per-instruction live-bytes difference (which must be 0) and
// the gradient check against the no-checkpoint plan.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis.h"
#include "backends.h"
#include "commands.h"
#include "common.h"
#include "cpu/cpu_backend.h"
#include "cpu/cpu_rates.h"
#include "cpu/host_budget.h"
#include "lower.h"
#include "program_driver.h"
#include "report.h"
#include "shrink.h"
#include "table.h"
#include "text.h"
#include "verification.h"

namespace remat::cli {

namespace {

// A CPU run predicted longer than this is refused unless --force (the desktop app asks first
// above the same figure by default).
constexpr double kMaxCpuRunS = kLongCpuRunSeconds;
// Executor messages carry our own figures around names from the model file; the cut only
// guards against runaway text (as userError's).
constexpr std::size_t kMessageChars = 4000;

struct RunOptions {
    CommonOptions common;
    std::string backend = "cpu";
    std::uint64_t seed = 1;
    bool force = false;
    bool allowUnsafe = false;
    int warmup = -1;  // -1: the backend's default (cpu 0, cuda 1)
    int threads = 0;  // CPU threads; 0: every core (or REMAT_CPU_THREADS)
    bool shrink = false;
};

// --shrink: the model replaced by its shrunk copy (sim/shrink.h) — the graph lowered again, the
// manual plan and a selective strategy's kinds checked against it. A --micro-batch given on the
// command line is kept.
Result<std::vector<ShrinkChange>> applyShrink(Context& c, const RunOptions& o) {
    auto r = shrinkNetwork(c.model.network, c.training, ShrinkLimits{},
                           o.common.microBatch.has_value());
    if (!r) return makeError("--shrink: " + r.error().message);
    // A manual plan's layer ranges count expanded layers, which fewer repeats renumber; module
    // paths and per-layer flags still name the same layers.
    const bool renumbered = std::any_of(r->changes.begin(), r->changes.end(), [](const auto& ch) {
        return ch.field.find("].repeat") != std::string::npos;
    });
    if (c.strategy.kind == StrategyKind::Manual && c.model.planForm == PlanForm::Regions &&
        renumbered)
        for (const RegionSpec& region : c.model.regions)
            if (!region.isPath)
                return makeError("--shrink: the model file's plan names layers by expanded "
                                 "index, which fewer repeats renumber; use module paths in its "
                                 "regions or a named --strategy");
    c.model.network = std::move(r->network);
    c.training = r->training;
    c.model.training = c.training;
    auto g = lower(c.model.network, c.training);
    if (!g) return makeError("--shrink: " + g.error().message);
    c.graph = std::move(*g);
    if (auto st = checkSelectiveKinds(c.graph, c.strategy); !st) return st.error();
    c.manual = manualRegions(c.model);
    return std::move(r->changes);
}

std::string shrinkText(const std::vector<ShrinkChange>& changes) {
    std::string s;
    for (const ShrinkChange& ch : changes)
        s += (s.empty() ? "" : ", ") + ch.field + " " + std::to_string(ch.from) + " -> " +
             std::to_string(ch.to);
    return s.empty() ? "nothing (already small)" : s;
}

std::string gflops(double flopsPerS) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", flopsPerS / 1e9);
    return buf;
}

std::string scientific(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

nlohmann::json phasesJson(const PhaseTotals& t) {
    return {{"forward", t.forward},
            {"backward", t.backward},
            {"recompute", t.recompute},
            {"optimizer", t.optimizer},
            {"total", t.total()}};
}

// Refuses (exit 2), before anything runs, a CPU run whose host memory would not fit. When the
// programs' own buffers alone exceed what is available the run cannot succeed and --force
// does not override; when only the executor's additions (allocator rounding and cache,
// gradient copies, the GEMM library's buffer, counted in full) tip it over, --force runs it
// with a warning. 0 when the run may start.
int checkHostMemory(const Program& program, const Program& reference, int threads, bool force) {
    const HostMemory host = availableHostMemory();
    if (host.availableBytes < 0) return 0;  // nothing to compare with: the run is not refused
    const CpuRunHostEstimate need = estimateCpuRunHostBytes(program, reference, threads);
    if (need.totalBytes <= host.availableBytes) return 0;
    const std::string figures =
        "this run needs about " + formatBytes(need.totalBytes) + " of host memory (programs " +
        formatBytes(need.trackedPeakBytes) + " at their peak, " +
        formatBytes(need.allocatorPeakBytes) + " with the CPU allocator's rounding and cache, " +
        formatBytes(need.gradientCopiesBytes) + " of gradient copies for the check against "
        "plan none, " + formatBytes(need.gemmBufferBytes) + " GEMM library buffers); this "
        "machine has " + formatBytes(host.availableBytes) + " available (" + host.source + ")";
    if (need.trackedPeakBytes > host.availableBytes)
        return userError(figures + ". The programs' own buffers alone do not fit, so --force "
                                   "does not override this; use a smaller --micro-batch or a "
                                   "checkpointing --strategy");
    if (!force)
        return userError(figures + "; use a smaller --micro-batch, or --force to run it anyway "
                                   "(it may be killed for lack of memory)");
    std::cerr << "remat: warning: --force: " << figures
              << "; running anyway, it may be killed for lack of memory\n";
    return 0;
}

int runRun(const RunOptions& o) {
    auto c = resolve(o.common);
    if (!c) return userError(c.error().message);
    if (auto st = singleGpuOnly(*c, "run"); !st) return userError(*c, st.error().message);
    std::vector<ShrinkChange> shrunk;
    if (o.shrink) {
        auto changes = applyShrink(*c, o);
        if (!changes) return userError(*c, changes.error().message);
        shrunk = std::move(*changes);
    }
    auto backend = makeBackend(o.backend, o.threads);
    if (!backend) return userError(backend.error().message);
    const bool onCpu = (*backend)->name() == "cpu";
    const int threads = onCpu ? static_cast<CpuBackend&>(**backend).threads() : 1;
    const int warmup = o.warmup >= 0 ? o.warmup : (onCpu ? 0 : 1);

    // The CPU executor has no GEMM library workspace and its own speed: predict with the
    // chosen profile's memory and this CPU's probed rates, so that prediction and execution
    // share one program. Memory does not depend on the rates, so the program is compiled and
    // its host memory checked before anything is probed (the probe itself needs the GEMM
    // library's work buffer); the times are simulated once the rates are known.
    CpuRates rates{c->device.peakFp32, c->device.peakFp32, c->device.bandwidthBytesPerS};
    DeviceSpec device = onCpu ? cpuDeviceSpec(c->device, rates) : c->device;
    auto e = evaluate(c->graph, c->strategy, c->manual, c->training, device);
    if (!e) return userError(e.error().message);
    ProgramDriver executor(std::move(*backend));
    if (auto st = checkRunnable(executor.backend(), c->graph, e->program, o.allowUnsafe); !st)
        return userError(st.error().message);
    if (onCpu) {
        auto reference = compileReference(c->graph, e->program, compileOptionsFor(device));
        if (!reference) return userError(reference.error().message);
        if (int code = checkHostMemory(e->program, *reference, threads, o.force); code != 0)
            return code;
        auto probed = probeCpuRates(threads);
        if (!probed) return userError("the CPU executor cannot start: " + probed.error().message);
        rates = *probed;
        device = cpuDeviceSpec(c->device, rates);
        e->timeline = simulate(c->graph, e->program, device);
        e->baselineTimeS = simulate(c->graph, *reference, device).timeS.total();
    }

    // Warm-up steps, the measured step and the plan-`none` reference run.
    const double estimateS = double(warmup + 1) * e->timeline.timeS.total() + e->baselineTimeS;
    if (onCpu && estimateS > kMaxCpuRunS && !o.force)
        return userError("this run is estimated at " + formatSeconds(estimateS) +
                         " on this CPU (" + gflops(rates.gemmFlopsPerS) + " sgemm measured on " +
                         std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
                         "; warm-up, measured step and the no-checkpoint "
                         "reference run), over the " + formatSeconds(kMaxCpuRunS) +
                         " limit; use a smaller --micro-batch, more --threads or pass --force");

    ExecuteOptions eo;
    eo.seed = o.seed;
    eo.allowUnsafe = o.allowUnsafe;
    eo.warmupSteps = warmup;
    auto m = executor.execute(c->graph, e->program, eo);
    if (!m) {
        std::cerr << "remat: the " << o.backend
                  << " run failed: " << printable(m.error().message, kMessageChars) << "\n";
        return 1;
    }
    ExecuteOptions ro = eo;
    ro.warmupSteps = 0;
    auto grad = checkGradientsAgainstNone(executor, c->graph, e->program, *m,
                                          compileOptionsFor(device), ro);
    if (!grad) {
        std::cerr << "remat: gradient check failed to run: "
                  << printable(grad.error().message, kMessageChars) << "\n";
        return 1;
    }
    const LiveBytesDifference diff = compareLiveBytes(e->timeline, *m);
    const bool liveOk = diff.sameLength && diff.maxAbsBytes == 0 && diff.maxAbsCategoryBytes == 0;
    // Both backends compute the same gradients under every plan, bit for bit; a difference is
    // the damage of an unsafe plan (run with --allow-unsafe) or a bug, and either way the run
    // did not show a correct step.
    const bool gradOk = grad->bitwiseEqual;
    const int exitCode = liveOk && gradOk ? 0 : 1;
    if (!gradOk)
        std::cerr << "remat: the gradients differ from plan none's (max |diff| "
                  << scientific(grad->maxAbsDiff)
                  << (grad->worstParameter.empty()
                          ? ""
                          : ", largest in " + printable(grad->worstParameter))
                  << "): "
                  << (e->program.unsafe() ? "the unsafe plan damaged them"
                                          : "a bug in the executor or the compiler")
                  << "\n";

    if (o.common.json) {
        nlohmann::json j = evaluationToJson(c->graph, *e, device);
        j["backend"] = executor.name();
        j["seed"] = o.seed;
        j["warmup_steps"] = warmup;
        nlohmann::json measured;
        measured["device_name"] = m->deviceName;
        measured["peak_bytes"] = m->peakBytes;
        measured["peak_instruction"] = m->peakInstruction;
        nlohmann::json breakdown = nlohmann::json::object();
        for (Category cat : kAllCategories)
            breakdown[std::string(categoryKey(cat))] = m->breakdownAtPeak[std::size_t(cat)];
        measured["breakdown_at_peak"] = breakdown;
        measured["device_peak_bytes"] = m->device.reservedPeakBytes;
        measured["device_used_peak_bytes"] = m->device.usedPeakBytes;
        measured["scratch_peak_bytes"] = m->device.scratchPeakBytes;
        if (m->device.deviceUsedBeforeBytes >= 0) {
            measured["device_used_before_bytes"] = m->device.deviceUsedBeforeBytes;
            measured["device_used_after_bytes"] = m->device.deviceUsedAfterBytes;
        }
        measured["time_s"] = phasesJson(m->timeS);
        measured["memory_ops_s"] = m->memoryOpsS;
        measured["losses"] = m->losses;
        j["measured"] = measured;
        j["grad_check"] = {{"max_abs_diff", grad->maxAbsDiff},
                           {"max_rel_diff", grad->maxRelDiff},
                           {"reference", grad->reference},
                           {"reference_unsafe", grad->referenceUnsafe},
                           {"bitwise_equal", grad->bitwiseEqual},
                           {"worst_parameter", grad->worstParameter},
                           {"parameters", grad->parameters}};
        j["max_live_bytes_difference"] = diff.maxAbsBytes;
        j["max_live_bytes_difference_instruction"] = diff.instruction;
        j["estimate_s"] = estimateS;
        if (o.shrink) {
            nlohmann::json sj = nlohmann::json::object();
            for (const ShrinkChange& ch : shrunk) sj[ch.field] = {{"from", ch.from}, {"to", ch.to}};
            j["shrunk"] = sj;
        }
        if (onCpu)
            j["cpu_rates"] = {{"threads", threads},
                              {"gemm_flops_per_s", rates.gemmFlopsPerS},
                              {"elementwise_flops_per_s", rates.elementwiseFlopsPerS},
                              {"bandwidth_bytes_per_s", rates.bandwidthBytesPerS}};
        std::cout << j.dump(2) << "\n";
        return exitCode;
    }

    const Timeline& t = e->timeline;
    const std::string name =
        printable(c->model.network.name.empty() ? o.common.model : c->model.network.name);
    std::cout << name << ", strategy " << e->strategy.spelling() << " ("
              << e->program.plan.regions.size() << " checkpointed regions, "
              << e->program.instructions.size() << " instructions), micro-batch "
              << c->training.microBatch << " x " << c->training.accumulationSteps << ", "
              << trainingText(c->training) << "\n";
    if (o.shrink) std::cout << "shrunk (--shrink): " << shrinkText(shrunk) << "\n";
    std::cout << "backend " << executor.name() << ": " << m->deviceName << "\n";
    if (onCpu)
        std::cout << "prediction: memory as on " << printable(c->device.name)
                  << " without a GEMM library "
                  << "workspace; time from this CPU's probed rates (" << gflops(rates.gemmFlopsPerS)
                  << " sgemm, " << gflops(rates.elementwiseFlopsPerS) << " elementwise, "
                  << formatBytes(std::int64_t(rates.bandwidthBytesPerS)) << "/s)\n";
    std::cout << "\n";
    TextTable table({"", "predicted", "measured"});
    table.addRow({"peak (tracked)", formatBytes(t.peakBytes), formatBytes(m->peakBytes)});
    table.addRow({"  at instruction", std::to_string(t.peakInstruction),
                  std::to_string(m->peakInstruction)});
    table.addRow({"peak (device level)", "", formatBytes(m->device.reservedPeakBytes)});
    table.addRow({"  allocator in use", "", formatBytes(m->device.usedPeakBytes)});
    if (m->device.scratchPeakBytes > 0)
        table.addRow({"  of which staging", "", formatBytes(m->device.scratchPeakBytes)});
    table.addRow({"forward", formatSeconds(t.timeS.forward), formatSeconds(m->timeS.forward)});
    table.addRow({"recompute", formatSeconds(t.timeS.recompute), formatSeconds(m->timeS.recompute)});
    table.addRow({"backward", formatSeconds(t.timeS.backward), formatSeconds(m->timeS.backward)});
    table.addRow({"optimizer", formatSeconds(t.timeS.optimizer), formatSeconds(m->timeS.optimizer)});
    table.addRow({"step", formatSeconds(t.timeS.total()), formatSeconds(m->timeS.total())});
    std::cout << table.render() << "\n";
    std::cout << "alloc/free and data initialisation: " << formatSeconds(m->memoryOpsS)
              << " (not part of the step time)\n";
    std::cout << "largest per-instruction live-bytes difference: " << diff.maxAbsBytes << " B"
              << (liveOk ? " (tracked bytes equal the prediction after every instruction)"
                         : " at instruction " + std::to_string(diff.instruction) + " (" +
                               printable(describeInstruction(c->graph, e->program, diff.instruction),
                                         kMessageChars) +
                               "): a bug")
              << "\n";
    std::cout << "gradient check against plan none: max |diff| " << scientific(grad->maxAbsDiff)
              << (grad->bitwiseEqual ? ", bitwise equal" : ", not bitwise equal")
              << (grad->worstParameter.empty() ? ""
                                               : " (largest in " + printable(grad->worstParameter) + ")")
              << ", " << grad->parameters << " parameters\n";
    if (grad->referenceUnsafe)
        std::cout << "  (plan none is unsafe too: the damage is in the network, not the plan, so "
                     "agreement proves nothing)\n";
    std::cout << "loss per micro-step:";
    for (float l : m->losses) std::cout << " " << l;
    std::cout << "\n";
    for (const auto& r : e->program.unsafeReasons)
        std::cout << "UNSAFE: " << printable(r, kMessageChars) << "\n";
    for (const auto& r : e->program.mayDifferReasons)
        std::cout << "UNSAFE (may differ): " << printable(r, kMessageChars) << "\n";
    for (const auto& r : e->program.safeNotes) std::cout << "safe: " << printable(r, kMessageChars) << "\n";
    return exitCode;
}

}  // namespace

void addRun(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand("run", "execute one training step and compare it with the prediction");
    auto o = std::make_shared<RunOptions>();
    addCommonOptions(*cmd, o->common);
    cmd->add_option("--backend", o->backend, "cpu | cuda")->capture_default_str();
    cmd->add_option("--seed", o->seed, "seed for weights, data and dropout masks")
        ->capture_default_str();
    cmd->add_option("--warmup", o->warmup, "unmeasured steps first (default: cpu 0, cuda 1)")
        ->check(CLI::Range(0, 100));
    cmd->add_option("--threads", o->threads,
                    "CPU threads (default: every core, or REMAT_CPU_THREADS); the results are "
                    "the same bits with any count")
        ->check(CLI::Range(1, cpu::kMaxThreads));
    cmd->add_flag("--force", o->force,
                  "run even when the CPU run is estimated over 60 s, or when only the executor's "
                  "own additions exceed the host memory available (warned)");
    cmd->add_flag("--allow-unsafe", o->allowUnsafe,
                  "run a program marked unsafe (RNG not preserved, in-place overwrite) to show "
                  "the damage to gradients");
    cmd->add_flag("--shrink", o->shrink,
                  "run a smaller copy of the model with the same layer kinds and structure "
                  "(image sides, channels, widths, heads, sequence, vocabulary, repeats, "
                  "micro-batch; --micro-batch given is kept); prints what was shrunk");
    cmd->callback([o, &exitCode] { exitCode = runRun(*o); });
}

}  // namespace remat::cli
