// A simulation for searches that keep no timeline to draw: simulate() (simulator.h) without the
// per-instruction arrays (live bytes, durations, end times), which for a program of tens of
// thousands of instructions are most of its memory traffic. Every other figure of the Timeline
// (peak, breakdown at the peak, saved activations, FLOPs, times, largest micro-batch, fits) is
// the one simulate() gives; what a search reads of the arrays comes as LiveSpan instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simulator.h"

namespace remat {

struct LiveSpan {
    std::size_t first = 0, last = 0;  // set by the caller: an instruction span, inclusive
    // Filled by simulateLean: the highest live bytes after an instruction inside the span and
    // outside it, and the most bytes parameters, gradients and optimizer state hold at once
    // (analysis.h modelStateBytes of the full timeline).
    std::int64_t inside = 0, outside = 0;
    std::int64_t modelStates = 0;
};

// The Timeline's arrays are left empty. `buffers`, when given, stand for p.buffers (the same
// buffers with other sizes: a rewrite that only resizes, simulated without copying the
// instructions).
Timeline simulateLean(const Graph& g, const Program& p, const DeviceSpec& device, LiveSpan& span,
                      const CancelFlag* cancel = nullptr, OpTimeMemo* memo = nullptr,
                      const std::vector<Buffer>* buffers = nullptr);

}  // namespace remat
