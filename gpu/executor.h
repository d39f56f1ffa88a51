// The executor interface: run a compiled remat::Program for real and measure it. An executor
// walks the same program the simulator evaluates and returns a Measurement shaped
// like the simulator's Timeline — live bytes per category after every instruction, counted at
// the executor's own allocator from dtype x shape, device-level memory figures, elapsed time
// per instruction and per phase — plus what a timeline cannot have: loss values and parameter
// gradients, so two plans of one network can be compared gradient for gradient. Every error a
// user can cause (an unsafe program, an op the executor cannot run, out of memory, a
// cancelled run) comes back as a Result naming the instruction. No CUDA header is included
// here, so everything above gpu/ builds without nvcc.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph.h"
#include "program.h"
#include "result.h"
#include "simulator.h"
#include "types.h"

namespace remat {

struct ExecuteOptions {
    // Weights, inputs, targets and dropout masks are pure functions of this seed (and of
    // parameter names, micro-steps and op ids), so two plans of one network get the same
    // weights and data.
    std::uint64_t seed = 1;
    // Run a program the compiler marked unsafe (docs/memory-model.md) so its damage can be shown.
    bool allowUnsafe = false;
    // Which batch of the deterministic data stream the step's first micro-step reads: micro-
    // step m reads batch firstBatch + m. A run of several steps continues the stream.
    std::uint32_t firstBatch = 0;
    // Whole training steps run and discarded before the measured one (caches, clocks, lazy
    // library initialisation). Each step re-initialises from the seed, so results do not
    // depend on this count.
    int warmupSteps = 0;
    // Download every parameter gradient after the last micro-step (Measurement::gradients).
    bool collectGradients = true;
    // Download every parameter after the optimizer step (Measurement::parameters).
    bool collectParameters = false;
    // Called after each instruction of the measured step with (instructions done, total),
    // every run of a repeated body (program.h) counted. Runs on the executing thread: a GUI
    // must hop to its own thread before touching widgets.
    std::function<void(std::size_t, std::size_t)> progress;
    // Checked between instructions; when set, the run stops, frees everything it holds and
    // returns an error. The GUI's Cancel button sets it from another thread.
    const std::atomic<bool>* cancel = nullptr;
};

// Device-level memory, beyond the tracked bytes: what the allocator underneath obtained.
struct DeviceMemoryStats {
    // High-water mark of bytes handed out by the allocator, rounding included (CPU: size
    // classes; CUDA: the pool's used high-water mark).
    std::int64_t usedPeakBytes = 0;
    // High-water mark of bytes the allocator obtained from the system: its blocks, cached
    // or in use (CPU: from the C library; CUDA: the pool's reserved high-water mark). This is
    // `device_peak_bytes` in `remat run --json`.
    std::int64_t reservedPeakBytes = 0;
    // Device memory in use by everyone before and after the step (CUDA: cudaMemGetInfo);
    // -1 where the backend cannot tell.
    std::int64_t deviceUsedBeforeBytes = -1;
    std::int64_t deviceUsedAfterBytes = -1;
    // Bytes obtained for the backend's own scratch (16-bit staging on the CPU), which the
    // program does not show; included in the two peaks above.
    std::int64_t scratchPeakBytes = 0;
    // The pool now, at the time of the call: bytes handed out and not released, and bytes
    // obtained from the system (handed out or cached). After a step — finished, failed or
    // cancelled — both are 0: everything went back (CPU: the allocator's counters; CUDA: the
    // pool's UsedMemCurrent and ReservedMemCurrent after the trim).
    std::int64_t inUseBytes = 0;
    std::int64_t heldBytes = 0;
};

// One parameter's values (gradient or weight) as fp32, whatever dtype the buffer holds.
struct ParameterValues {
    TensorId parameter;
    std::string name;
    std::vector<float> values;
};

struct Measurement {
    std::string backend;     // "cpu", "cuda"
    std::string deviceName;  // "CPU (OpenBLAS, 1 thread)", "NVIDIA H200"
    // Live bytes per category after each instruction, counted at the executor's allocator;
    // one entry per instruction as written (a repeated one's are those of its first run: every
    // run holds the same).
    std::vector<CategoryBytes> live;
    std::int64_t peakBytes = 0;
    std::size_t peakInstruction = 0;
    CategoryBytes breakdownAtPeak{};
    DeviceMemoryStats device;
    // Seconds each instruction took (alloc/free included: they carry data initialisation),
    // over all its runs when it is repeated.
    std::vector<double> elapsedS;
    // Seconds per phase, compute instructions only (the simulator gives alloc/free no time).
    PhaseTotals timeS;
    double memoryOpsS = 0.0;  // alloc and free instructions, initialisation included
    std::vector<float> losses;  // per micro-step, as the loss op computed it
    std::vector<ParameterValues> gradients;   // accumulated over micro-steps, by parameter
    std::vector<ParameterValues> parameters;  // after the optimizer step (collectParameters)

    const ParameterValues* gradient(TensorId parameter) const;
};

class Executor {
public:
    virtual ~Executor() = default;
    // "cpu", "cuda": the backend's name, as `remat run --backend` spells it.
    virtual std::string name() const = 0;
    // Runs one training step of `program`, compiled from `graph`. Refuses (error) an unsafe
    // program unless options.allowUnsafe, and a program containing an op the executor cannot
    // run, naming the op and its layer.
    virtual Result<Measurement> execute(const Graph& graph, const Program& program,
                                        const ExecuteOptions& options) = 0;
};

}  // namespace remat
