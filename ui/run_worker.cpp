#include "run_worker.h"

#include <QCoreApplication>
#include <algorithm>
#include <string_view>

#ifdef REMAT_UI_HAVE_GPU
#include "analysis.h"
#include "backends.h"
#include "cuda_plugin.h"
#include "backend.h"
#include "cpu/cpu_rates.h"
#include "cpu/gemm.h"
#include "cpu/host_budget.h"
#include "program_driver.h"
#include "report.h"
#include "verification.h"
#endif

namespace remat::ui {
namespace {

// Messages this file writes itself (the executors' own come through as they are), each marked
// with QT_TRANSLATE_NOOP so that lupdate finds it.
QString translatedText(const char* text) {
    return QCoreApplication::translate("RunWorker", text);
}

}  // namespace

#ifdef REMAT_UI_HAVE_GPU

namespace {

std::string translated(const char* text) {
    return translatedText(text).toStdString();
}

const char* const kCancelled = QT_TRANSLATE_NOOP("RunWorker", "the run was cancelled");

}  // namespace

void prepareRunEnvironment() {
    cpu::setGemmLibraryEnvironment();
}

std::vector<std::string> runBackends() {
    return availableBackends();
}

QString cudaUnavailableReason() {
    const auto backends = availableBackends();
    if (std::find(backends.begin(), backends.end(), "cuda") == backends.end())
        return translatedText(
            QT_TRANSLATE_NOOP("RunWorker",
                              "this build has no CUDA executor (it was configured without nvcc "
                              "or with REMAT_WITH_CUDA off)"));
    // Without a driver the plugin (and cuBLAS, hundreds of megabytes) is not even loaded.
    if (const std::string why = cudaDriverMissingReason(); !why.empty())
        return translatedText(QT_TRANSLATE_NOOP("RunWorker", "no usable CUDA device: %1"))
            .arg(QString::fromStdString(why));
    auto backend = makeBackend("cuda");
    if (backend) return {};
    // The backend's reason ("CUDA backend unavailable: cudaErrorNoDevice (100), ...") is kept
    // as it gives it, after the GUI's own words.
    std::string detail = backend.error().message;
    constexpr std::string_view prefix = "CUDA backend unavailable: ";
    if (detail.starts_with(prefix)) detail.erase(0, prefix.size());
    return translatedText(QT_TRANSLATE_NOOP("RunWorker", "no usable CUDA device: %1"))
        .arg(QString::fromStdString(detail));
}

std::string cpuRefusal(const Graph& graph, const Program& program, bool allowUnsafe) {
    auto b = makeBackend("cpu");
    if (!b) return b.error().message;
    auto st = checkRunnable(**b, graph, program, allowUnsafe);
    return st ? std::string() : st.error().message;
}

RunOutcome runPlan(const RunRequest& request, const std::atomic<bool>* cancel,
                   const RunHooks& hooks) {
    RunOutcome out;
    out.backend = request.backend;
    std::unique_ptr<ProgramDriver> driver;
    // The pool's counters once the run is over, whatever way it ended.
    auto recordPool = [&] {
        if (!driver) return;
        const DeviceMemoryStats stats = driver->backend().memoryStats();
        out.poolInUseAfterBytes = stats.inUseBytes;
        out.poolHeldAfterBytes = stats.heldBytes;
    };
    auto fail = [&](std::string message) {
        out.cancelled = cancel && cancel->load();
        out.error = std::move(message);
        recordPool();
        return out;
    };
    auto refuse = [&](std::string message) {
        out.refused = true;
        return fail(std::move(message));
    };
    if (!request.graph || !request.program || !request.predicted)
        return fail(translated(QT_TRANSLATE_NOOP("RunWorker", "there is no program to run")));
    const Graph& g = *request.graph;
    const Program& p = *request.program;
    const Timeline& predicted = *request.predicted;
    auto report = [&](double fraction, RunStage stage) {
        if (hooks.progress) hooks.progress(fraction, stage, out.estimateS);
    };
    report(0.0, RunStage::Preparing);

    auto backend = makeBackend(request.backend);
    if (!backend) return fail(backend.error().message);
    if (hooks.wrapBackend) *backend = hooks.wrapBackend(std::move(*backend));
    if (auto st = checkRunnable(**backend, g, p, request.allowUnsafe); !st)
        return fail(st.error().message);
    const bool onCpu = (*backend)->name() == "cpu";
    auto reference = compileReference(g, p, compileOptionsFor(request.device));
    // A CPU run that would not fit in host memory is refused before anything is probed or
    // allocated (the same check as `remat run`, which the GUI cannot --force).
    if (onCpu && reference) {
        const HostMemory host = availableHostMemory();
        const CpuRunHostEstimate need = estimateCpuRunHostBytes(p, *reference);
        if (host.availableBytes >= 0 && need.totalBytes > host.availableBytes)
            return refuse(
                translatedText(QT_TRANSLATE_NOOP(
                    "RunWorker",
                    "this run needs about %1 of host memory (the programs %2 at their peak, "
                    "the rest the CPU executor's allocator, gradient copies for the check and "
                    "the GEMM library's buffer); this machine has %3 available (%4). Choose a "
                    "smaller micro-batch or a checkpointing strategy."))
                    .arg(QString::fromStdString(formatBytes(need.totalBytes)),
                         QString::fromStdString(formatBytes(need.trackedPeakBytes)),
                         QString::fromStdString(formatBytes(host.availableBytes)),
                         QString::fromStdString(host.source))
                    .toStdString());
    }
    out.warmupSteps = request.warmupSteps >= 0 ? request.warmupSteps : (onCpu ? 0 : 1);

    // Memory is predicted for the program shown; the CPU's time has its own rates.
    out.predictedPeakBytes = predicted.peakBytes;
    out.predictedPeakInstruction = predicted.peakInstruction;
    double referenceS = 0.0;
    if (onCpu) {
        const auto rates = probeCpuRates();
        if (!rates)
            return refuse(translatedText(QT_TRANSLATE_NOOP("RunWorker",
                                                           "the CPU executor cannot start: %1"))
                              .arg(QString::fromStdString(rates.error().message))
                              .toStdString());
        const DeviceSpec cpu = cpuDeviceSpec(request.device, *rates);
        out.predictedTimeS = simulate(g, p, cpu).timeS;
        out.timeFromCpuRates = true;
        out.cpuGemmFlopsPerS = rates->gemmFlopsPerS;
        if (reference) referenceS = simulate(g, *reference, cpu).timeS.total();
    } else {
        out.predictedTimeS = predicted.timeS;
        if (reference) referenceS = simulate(g, *reference, request.device).timeS.total();
    }
    const double stepS = out.predictedTimeS.total();
    out.estimateS = double(out.warmupSteps + 1) * stepS + referenceS;
    if (onCpu && request.confirmAboveS > 0.0 && out.estimateS > request.confirmAboveS) {
        out.needsConfirmation = true;
        return out;
    }
    // Progress is shared out by predicted time: warm-up, measured step, reference.
    const double total = std::max(out.estimateS, 1e-12);
    const double warmupShare = double(out.warmupSteps) * stepS / total;
    const double stepShare = stepS / total;
    report(0.0, RunStage::Preparing);
    if (cancel && cancel->load()) return fail(translated(kCancelled));

    driver = std::make_unique<ProgramDriver>(std::move(*backend));
    out.deviceName = driver->backend().deviceName();
    ExecuteOptions options;
    options.seed = request.seed;
    options.allowUnsafe = request.allowUnsafe;
    options.warmupSteps = out.warmupSteps;
    options.cancel = cancel;
    const std::size_t n = p.instructions.size();
    if (out.warmupSteps > 0) report(0.0, RunStage::Warmup);
    options.progress = [&](std::size_t i, std::size_t count) {
        report(warmupShare + stepShare * double(i + 1) / double(std::max<std::size_t>(1, count)),
               RunStage::Measured);
    };
    auto m = driver->execute(g, p, options);
    if (!m) return fail(m.error().message);

    out.liveBytes.resize(m->live.size());
    for (std::size_t i = 0; i < m->live.size(); ++i) out.liveBytes[i] = totalBytes(m->live[i]);
    out.peakBytes = m->peakBytes;
    out.peakInstruction = m->peakInstruction;
    out.deviceReservedPeakBytes = m->device.reservedPeakBytes;
    out.deviceUsedPeakBytes = m->device.usedPeakBytes;
    out.scratchPeakBytes = m->device.scratchPeakBytes;
    out.timeS = m->timeS;
    out.memoryOpsS = m->memoryOpsS;
    out.losses = m->losses;
    const LiveBytesDifference diff = compareLiveBytes(predicted, *m);
    out.sameLength = diff.sameLength && m->live.size() == n;
    out.maxLiveDifferenceBytes = diff.maxAbsBytes;
    out.maxLiveDifferenceInstruction = diff.instruction;
    out.maxCategoryDifferenceBytes = diff.maxAbsCategoryBytes;

    if (cancel && cancel->load()) return fail(translated(kCancelled));
    ExecuteOptions referenceOptions = options;
    referenceOptions.warmupSteps = 0;
    referenceOptions.progress = [&](std::size_t i, std::size_t count) {
        report(warmupShare + stepShare +
                   (1.0 - warmupShare - stepShare) * double(i + 1) /
                       double(std::max<std::size_t>(1, count)),
               RunStage::Reference);
    };
    auto grad =
        checkGradientsAgainstNone(*driver, g, p, *m, compileOptionsFor(request.device),
                                  referenceOptions);
    if (cancel && cancel->load()) return fail(translated(kCancelled));
    if (grad) {
        out.gradChecked = true;
        out.grad = RunGradCheck{grad->reference,  grad->referenceUnsafe, grad->maxAbsDiff,
                                grad->maxRelDiff, grad->bitwiseEqual,    grad->worstParameter,
                                grad->parameters};
    } else {
        out.gradError = grad.error().message;
    }
    out.ok = true;
    recordPool();
    return out;
}

#else  // the UI was built without the executors

void prepareRunEnvironment() {}

std::vector<std::string> runBackends() {
    return {};
}

namespace {

QString noExecutors() {
    return translatedText(QT_TRANSLATE_NOOP(
        "RunWorker", "this build of Remat Studio has no executors (gpu/ was not linked)"));
}

}  // namespace

QString cudaUnavailableReason() {
    return noExecutors();
}

std::string cpuRefusal(const Graph&, const Program&, bool) {
    return noExecutors().toStdString();
}

RunOutcome runPlan(const RunRequest& request, const std::atomic<bool>*, const RunHooks&) {
    RunOutcome out;
    out.backend = request.backend;
    out.error = noExecutors().toStdString();
    return out;
}

#endif

}  // namespace remat::ui
