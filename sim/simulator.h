// The simulator: sums a program's buffers into live bytes per category after every
// instruction, finds the peak and what it is made of, counts FLOPs and predicts time per
// instruction with the device's roofline (or its calibrated per-op times), and answers the
// largest micro-batch that fits: every size is affine in the micro-batch, so one pass gives
// each instruction's live bytes as a*B + c and the answer follows without re-simulating.
#pragma once

#include <cstdint>
#include <vector>

#include "cancel.h"
#include "device.h"
#include "graph.h"
#include "program.h"
#include "types.h"

namespace remat {

struct PhaseTotals {
    double forward = 0, backward = 0, recompute = 0, optimizer = 0;
    double total() const { return forward + backward + recompute + optimizer; }
};

// Per instruction of the program as written. An instruction of a repeat's body (program.h)
// stands for all its iterations: its duration is the time of all of them, so endS stays the
// true time into the step and the body spans the time micro-steps 1..G-2 take together, while
// its live bytes are those of one iteration (every iteration has the same).
struct Timeline {
    std::vector<CategoryBytes> live;  // after each instruction
    std::vector<double> durationS;    // predicted time of each instruction, all its iterations
    std::vector<double> endS;         // cumulative time at the end of each instruction
    std::int64_t peakBytes = 0;
    std::size_t peakInstruction = 0;
    CategoryBytes breakdownAtPeak{};
    // Distinct storages saved for backward or kept as region inputs, just before the last
    // micro-batch's first backward instruction.
    std::int64_t savedActivationBytes = 0;
    Affine savedActivationAffine;  // the same as a*B + c in the micro-batch
    PhaseTotals flops;  // per training step
    PhaseTotals timeS;
    // Largest micro-batch whose peak fits the device's usable memory (capacity - reserve);
    // 0 when not even one sample fits; kMaxMicroBatch when memory does not grow with it.
    std::int64_t maxMicroBatch = 0;
    bool fits = false;
    double samplesPerS() const;
    std::int64_t samplesPerStep = 0;
};

inline constexpr std::int64_t kMaxMicroBatch = std::int64_t{1} << 24;

// The predicted seconds of each op's forward and backward, kept as simulations meet them, so
// that several programs of one graph (the rewrites of one rank's program for each ZeRO stage, a
// recompute of a forward) predict each op once. An op's time depends only on the op, the
// direction, the micro-batch, the precision, the TF32 setting and the device: a memo filled
// under other values of these is cleared before use, so the times are those simulate() would
// compute without it, bit for bit. The graph and the device must not change while the memo
// serves them.
struct OpTimeMemo {
    const Graph* graph = nullptr;
    const DeviceSpec* device = nullptr;
    std::int64_t microBatch = 0;
    Precision precision = Precision::Fp32;
    Tf32Mode tf32 = Tf32Mode::Conv;
    std::vector<double> forward, backward;  // by op index; negative: not yet predicted
};

// `cancel`, when set from another thread, stops the simulation within a few thousand
// instructions: the timeline returned is then incomplete and must be discarded. `memo`, when
// given, supplies and keeps the ops' predicted times (OpTimeMemo).
Timeline simulate(const Graph& g, const Program& p, const DeviceSpec& device,
                  const CancelFlag* cancel = nullptr, OpTimeMemo* memo = nullptr);

// Predicted seconds of one compute instruction (0 for alloc/free).
double instructionTime(const Graph& g, const Program& p, const Instruction& ins,
                       const DeviceSpec& device);

}  // namespace remat
