// Whether a run of the CPU executor fits in this machine's memory, decided before it starts.
// The estimate is derived from what the executor really does with a program: it replays the
// program's allocs and frees (and, in mixed precision, the fp32 staging of every 16-bit
// operand of each instruction) through the CPU allocator's size classes and cache, and adds
// the host-side copies the driver keeps — gradients read back from the measured run while the
// no-checkpoint reference run executes, the initial values generated for the largest
// parameter or input, per-instruction records — and the GEMM library's work buffer. What the
// machine has is the least of MemAvailable (/proc/meminfo), the headroom under the cgroup's
// memory limit (v2 memory.max, v1 memory.limit_in_bytes) and under this process's
// address-space limit (ulimit -v). `remat run --backend cpu` and the GUI's run panel refuse a
// run whose estimate exceeds it, with both figures.
#pragma once

#include <cstdint>
#include <string>

#include "program.h"

namespace remat {

struct HostMemory {
    std::int64_t availableBytes = -1;  // -1: nothing could be read
    std::string source;                // which bound applies: "MemAvailable", "the cgroup ..."
};
HostMemory availableHostMemory();

struct CpuRunHostEstimate {
    // The largest tracked peak of the two programs (the run and plan `none`): memory the
    // programs themselves hold at once; no executor can do with less.
    std::int64_t trackedPeakBytes = 0;
    // What the CPU allocator obtains at its peak in the run that needs more (the measured one
    // or the reference): size classes, blocks cached in a class nobody asks for, staging.
    std::int64_t allocatorPeakBytes = 0;
    // fp32 copies of the gradients read back: the measured run's (kept during the reference
    // run) and, when the reference run is the larger, its own.
    std::int64_t gradientCopiesBytes = 0;
    // Initial values generated for one parameter or input, or one gradient read back.
    std::int64_t transientBytes = 0;
    // Per-instruction records of both runs (live bytes, timers).
    std::int64_t recordsBytes = 0;
    // The GEMM library's work buffers (OpenBLAS: 128 MiB for each thread that runs GEMMs),
    // counted in full.
    std::int64_t gemmBufferBytes = 0;
    std::int64_t totalBytes = 0;
};

// A CPU run (warm-up, the measured step and the no-checkpoint reference run) predicted longer
// than this is refused by `remat run` unless --force, and asked about by the desktop app
// before it starts (a threshold the user can change there).
inline constexpr double kLongCpuRunSeconds = 60.0;

// `reference` is the plan-`none` program the gradient check runs after `run`; `threads` is
// the CPU executor's thread count (<= 0: its default, cpu::defaultThreadCount()). The
// thread pool itself keeps no per-thread scratch: its threads' stacks are outside every
// figure here, as is the executor's code.
CpuRunHostEstimate estimateCpuRunHostBytes(const Program& run, const Program& reference,
                                           int threads = 0);

// What the CPU allocator would obtain from the system at its peak while executing `program`
// (HostAllocator's size classes and per-class cache; 16-bit operands staged in fp32, all of
// one instruction's at once — an upper bound for the staging).
std::int64_t cpuAllocatorPeakBytes(const Program& program);

}  // namespace remat
