// What the memory timeline draws, worked out from a program and its timeline without any
// plotting library: where each instruction sits on the x axis (instruction index or predicted
// time), which layer each instruction belongs to (so a click selects a layer and a selected
// layer can be shaded), the runs of one phase of one micro-batch, and the decimation that keeps
// the plot fast for ~20k instructions: per display bucket only the instructions with the largest
// and the smallest total are drawn, so every bucket's maximum — the peak above all — is drawn
// exactly, never averaged away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph.h"
#include "program.h"
#include "simulator.h"

namespace remat::ui {

enum class XAxis { Instruction, Time };

// Inclusive range of instruction indices.
struct InstructionSpan {
    std::size_t first = 0;
    std::size_t last = 0;
    bool operator==(const InstructionSpan&) const = default;
};

struct PhaseRun {
    Phase phase = Phase::Setup;
    std::uint32_t microStep = 0;
    InstructionSpan span;
    // Runs of a repeat's body (program.h) stand for micro-steps microStep .. microStep+times-1.
    std::int64_t times = 1;
};

// Expanded layer index each instruction belongs to, -1 for none. Compute instructions: their
// op's layer. Optimizer steps: the layer owning the parameter. An alloc belongs to the compute
// instruction it prepares (the next one), a free to the one it follows (the previous one), so a
// layer's instructions form whole runs around its ops. Setup and teardown (resident parameters,
// optimizer state, the GEMM workspace) belong to no layer.
std::vector<int> instructionLayers(const Graph& g, const Program& p);

// Maximal runs of consecutive instructions in one phase of one micro-batch; a run never
// crosses the edge of a repeat's body.
std::vector<PhaseRun> phaseRuns(const Program& p);

// What the timeline derives from a program before it draws anything, each a pass over every
// instruction: the total live bytes after each instruction, each instruction's layer and the
// phase runs (up to the shorter of the program and the timeline). Built where the program is
// built — the document's worker thread, for a program of millions of instructions — so that
// showing it on the GUI thread only draws.
struct TimelineSeriesInputs {
    std::vector<std::int64_t> totals;
    std::vector<int> layers;
    std::vector<PhaseRun> phaseRuns;
};
TimelineSeriesInputs timelineSeriesInputs(const Graph& g, const Program& p, const Timeline& t);

// Maximal runs of consecutive instructions whose layer is `layer`.
std::vector<InstructionSpan> layerSpans(const std::vector<int>& layers, int layer);

// Each instruction's extent on the x axis. Instruction axis: [i, i + 1). Time axis: from the
// instruction's predicted start to its end (alloc and free take no time).
struct XExtents {
    std::vector<double> start;
    std::vector<double> end;
    std::size_t size() const { return start.size(); }
    double lower() const { return start.empty() ? 0.0 : start.front(); }
    double upper() const { return end.empty() ? 1.0 : end.back(); }
};
XExtents instructionExtents(const std::vector<double>& endS, const std::vector<double>& durationS,
                            XAxis axis);
inline XExtents instructionExtents(const Timeline& t, XAxis axis) {
    return instructionExtents(t.endS, t.durationS, axis);
}

// The instruction under x: the last one starting at or before x (so on the time axis a compute
// instruction wins over the zero-length allocs before it), or npos outside the extents.
std::size_t instructionAt(const XExtents& x, double at);

// Indices (ascending) to draw for the visible range [lower, upper] split into `buckets`:
// all visible instructions when there are at most two per bucket, else per bucket the one with
// the largest and the one with the smallest total. `keep` (e.g. the peak) is always included;
// one instruction on each side of the range is added so the drawing reaches the edges.
std::vector<std::size_t> decimate(const XExtents& x, const std::vector<std::int64_t>& totals,
                                  double lower, double upper, int buckets,
                                  std::size_t keep = static_cast<std::size_t>(-1));

}  // namespace remat::ui
