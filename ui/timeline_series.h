// What the memory timeline draws, worked out from a program and its timeline without any
// plotting library: where each instruction sits on the x axis (instruction index or predicted
// time), which layer each instruction belongs to (so a click selects a layer and a selected
// layer can be shaded), the runs of one phase of one micro-batch, and the decimation that keeps
// the plot fast: per display bucket only the instructions with the largest and the smallest
// total are drawn, so every bucket's maximum — the peak above all — is drawn exactly, never
// averaged away. Everything that takes a pass over every instruction (totals, layers, phase
// runs, the time axis, which categories ever hold bytes, per-block extremes for the
// decimation) is made once with the program, off the GUI thread for a long one, so that
// showing a program of millions of instructions costs the GUI thread a number of steps that
// grows with the plot's pixel columns, not with the instructions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
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

// Maximal runs of consecutive instructions whose layer is `layer`.
std::vector<InstructionSpan> layerSpans(const std::vector<int>& layers, int layer);

// Instructions are grouped in blocks of this many for the per-block summaries below.
inline constexpr std::size_t kDecimationBlock = 64;

// Each instruction's extent on the x axis. Instruction axis: [i, i + 1), computed, nothing
// stored. Time axis: from the instruction's predicted start to its end (alloc and free take no
// time), two shared arrays plus the smallest and largest start of each block of
// kDecimationBlock instructions. Copies share the arrays.
class XExtents {
public:
    XExtents() = default;
    // The instruction axis over `count` instructions.
    static XExtents indices(std::size_t count);
    // The time axis: start[i] and end[i] (same length).
    static XExtents spans(std::vector<double> start, std::vector<double> end);

    std::size_t size() const { return m_count; }
    double start(std::size_t i) const { return m_start ? (*m_start)[i] : double(i); }
    double end(std::size_t i) const { return m_end ? (*m_end)[i] : double(i + 1); }
    double lower() const { return m_count == 0 ? 0.0 : start(0); }
    double upper() const { return m_count == 0 ? 1.0 : end(m_count - 1); }
    // The smallest and largest start of block k (instructions [k * kDecimationBlock, ...)).
    double blockMinStart(std::size_t k) const;
    double blockMaxStart(std::size_t k) const;
    // The first `count` instructions only (count <= size()).
    XExtents prefix(std::size_t count) const;

private:
    std::size_t m_count = 0;
    std::shared_ptr<const std::vector<double>> m_start, m_end;  // null: the instruction axis
    std::shared_ptr<const std::vector<double>> m_blockMin, m_blockMax;
};
XExtents instructionExtents(const std::vector<double>& endS, const std::vector<double>& durationS,
                            XAxis axis);
inline XExtents instructionExtents(const Timeline& t, XAxis axis) {
    return instructionExtents(t.endS, t.durationS, axis);
}

// Per block of kDecimationBlock totals, the first instruction with the largest and the first
// with the smallest total: decimate() reads a block that lies wholly inside one display bucket
// from here instead of instruction by instruction.
struct BlockExtremes {
    std::vector<std::uint32_t> maxAt, minAt;
};
BlockExtremes blockExtremes(const std::vector<std::int64_t>& totals);

// The instruction under x: the last one starting at or before x (so on the time axis a compute
// instruction wins over the zero-length allocs before it), or npos outside the extents.
std::size_t instructionAt(const XExtents& x, double at);

// Indices (ascending) to draw for the visible range [lower, upper] split into `buckets`:
// all visible instructions when there are at most two per bucket, else per bucket the one with
// the largest and the one with the smallest total (the first of equals). `keep` (e.g. the
// peak) is always included; one instruction on each side of the range is added so the drawing
// reaches the edges. `extremes`, when given, is blockExtremes(totals): the result is the same,
// found in steps that grow with the buckets and the blocks rather than the instructions.
std::vector<std::size_t> decimate(const XExtents& x, const std::vector<std::int64_t>& totals,
                                  double lower, double upper, int buckets,
                                  std::size_t keep = static_cast<std::size_t>(-1),
                                  const BlockExtremes* extremes = nullptr);

// What the timeline derives from a program before it draws anything, each a pass over every
// instruction: the total live bytes after each instruction, each instruction's layer, the
// phase runs, the time axis, which categories hold bytes at some instruction and the totals'
// block extremes (all up to the shorter of the program and the timeline). Built where the
// program is built — the document's worker thread, for a program of millions of instructions
// — so that showing it on the GUI thread only draws.
struct TimelineSeriesInputs {
    std::vector<std::int64_t> totals;
    std::vector<int> layers;
    std::vector<PhaseRun> phaseRuns;
    XExtents timeAxis;
    std::array<bool, kCategoryCount> categoryUsed{};
    BlockExtremes extremes;
};
TimelineSeriesInputs timelineSeriesInputs(const Graph& g, const Program& p, const Timeline& t);

}  // namespace remat::ui
