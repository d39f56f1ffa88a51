// Running one plan for real, as a plain computation that RunPanel starts on a worker thread
// and tests call directly: make the backend (the CPU reference executor or the CUDA one),
// refuse what it cannot run, execute the program the timeline shows — so the measured live
// bytes line up with the prediction instruction by instruction — compare them, run the
// no-checkpoint reference with the same seed and compare the gradients. On the CPU the time
// prediction uses this CPU's probed rates (the memory prediction is the device profile's). No
// gpu/ header leaks out of here, so the UI builds without the executors too.
#pragma once

#include <QString>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device.h"
#include "graph.h"
#include "program.h"
#include "simulator.h"

namespace remat {
class Backend;
}

namespace remat::ui {

struct RunRequest {
    std::shared_ptr<const void> owner;  // keeps graph, program and predicted alive
    const Graph* graph = nullptr;
    const Program* program = nullptr;
    const Timeline* predicted = nullptr;
    DeviceSpec device;
    std::string backend = "cpu";
    bool allowUnsafe = false;
    std::uint64_t seed = 1;
    int warmupSteps = -1;  // -1: the backend's default (cpu 0, cuda 1)
    // A CPU run predicted longer than this many seconds stops before running anything, with
    // `needsConfirmation` and its estimate, so that the user can be asked; 0: never.
    double confirmAboveS = 0.0;
};

struct RunGradCheck {
    std::string reference = "none";
    bool referenceUnsafe = false;
    double maxAbsDiff = 0.0;
    double maxRelDiff = 0.0;
    bool bitwiseEqual = true;
    std::string worstParameter;
    std::size_t parameters = 0;
};

struct RunOutcome {
    bool ok = false;
    bool cancelled = false;
    // Refused before anything ran: the host memory the CPU run needs is not available, the
    // executor cannot start (`error` says which, with the figures).
    bool refused = false;
    // Stopped before running anything: the CPU run is predicted longer than the request's
    // confirmAboveS (estimateS says how long); run it again with 0 to go ahead.
    bool needsConfirmation = false;
    std::string error;
    std::string backend;
    std::string deviceName;
    int warmupSteps = 0;
    double estimateS = 0.0;  // predicted wall time of the whole run (steps and reference)

    // The prediction for this backend: memory from the timeline shown, time per phase from
    // the device profile (GPU) or this CPU's probed rates (CPU).
    std::int64_t predictedPeakBytes = 0;
    std::size_t predictedPeakInstruction = 0;
    PhaseTotals predictedTimeS;
    bool timeFromCpuRates = false;  // predictedTimeS from this CPU's probed rates
    double cpuGemmFlopsPerS = 0.0;

    // The measurement.
    std::vector<std::int64_t> liveBytes;  // tracked, after every instruction
    std::int64_t peakBytes = 0;
    std::size_t peakInstruction = 0;
    std::int64_t deviceReservedPeakBytes = 0;  // what the allocator obtained from the system
    std::int64_t deviceUsedPeakBytes = 0;      // what it handed out, rounding included
    std::int64_t scratchPeakBytes = 0;
    PhaseTotals timeS;
    double memoryOpsS = 0.0;
    std::vector<float> losses;

    // The checks.
    bool sameLength = false;
    std::int64_t maxLiveDifferenceBytes = 0;
    std::size_t maxLiveDifferenceInstruction = 0;
    std::int64_t maxCategoryDifferenceBytes = 0;
    bool gradChecked = false;
    RunGradCheck grad;
    std::string gradError;

    // The backend's pool once the run is over — finished, failed or cancelled: bytes still
    // handed out and bytes still obtained from the system. Both 0: all memory was returned.
    std::int64_t poolInUseAfterBytes = -1;
    std::int64_t poolHeldAfterBytes = -1;

    bool liveBytesMatch() const {
        return sameLength && maxLiveDifferenceBytes == 0 && maxCategoryDifferenceBytes == 0;
    }
};

// Prepares the process for runs; call once on the GUI thread before any run starts (the CPU
// executor's GEMM library reads its thread count from the environment when it is loaded,
// and the environment must not be written while other threads may read it).
void prepareRunEnvironment();

// Backends this build has ("cpu", "cuda"); empty without the executors.
std::vector<std::string> runBackends();
// Why the GPU (CUDA) cannot be used, in the interface's language: the cause in the GUI's own
// words (this build has no CUDA executor; no usable CUDA device, followed by the backend's
// detail as it gave it), empty when it can. May initialise the device: call it off the GUI
// thread.
QString cudaUnavailableReason();
// Why the program cannot run on the CPU reference executor (an op it lacks, an unsafe plan
// without allowUnsafe), empty when it can. Cheap: no device is touched. Host memory is
// checked when the run starts (runPlan), where the no-checkpoint reference is compiled.
std::string cpuRefusal(const Graph& graph, const Program& program, bool allowUnsafe);

enum class RunStage { Preparing, Warmup, Measured, Reference };

struct RunHooks {
    // (fraction of the run done, what is running now, predicted seconds of the whole run or 0
    // while unknown), from the worker thread.
    std::function<void(double, RunStage, double)> progress;
    // Tests only: wraps the backend before the run (gpu/fault_injection.h injects faults).
    std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend>)> wrapBackend;
};

RunOutcome runPlan(const RunRequest& request, const std::atomic<bool>* cancel,
                   const RunHooks& hooks = {});

}  // namespace remat::ui
