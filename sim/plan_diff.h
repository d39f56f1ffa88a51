// Two plans of one model side by side: what a lesson shows when it puts, say, `none` and
// `every:3` on one plot. Each plan's total live bytes resampled onto one time axis (predicted
// seconds into the step: a recompute makes a plan longer, so instruction numbers do not line
// up, while time does), keeping every bucket's maximum so that neither peak is averaged away;
// and the tensors that differ between the two peaks — live at one plan's peak and not at the
// other's, matched by their captions (bufferLabel: the same tensor has the same caption in both
// programs, a recomputed copy is captioned "(recompute)").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "program.h"
#include "simulator.h"

namespace remat {

// The most total live bytes of any instruction running in each of `buckets` equal slices of
// [0, endS): an instruction runs from endS - durationS to endS (allocs and frees take no time
// and count in the slice they fall in). Slices no instruction reaches (past the plan's end)
// are -1.
std::vector<std::int64_t> resampleTotals(const Timeline& t, double endS, int buckets);

struct PeakTensor {
    std::string label;  // bufferLabel
    Category category = Category::Transient;
    std::int64_t bytes = 0;
    int count = 1;  // buffers with this caption (input data of several micro-steps)
};

struct PeakDifference {
    std::vector<PeakTensor> onlyA;  // live at A's peak, not at B's; largest first
    std::vector<PeakTensor> onlyB;
    std::int64_t peakA = 0, peakB = 0;
    std::int64_t sharedBytes = 0;  // live at both peaks
};

// Tensors are compared by caption and count: two buffers captioned alike at A's peak and one
// at B's leave one in onlyA.
PeakDifference peakDifference(const Graph& g, const Program& a, const Timeline& ta,
                              const Program& b, const Timeline& tb);

}  // namespace remat
