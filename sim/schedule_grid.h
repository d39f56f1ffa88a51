// The schedule grid: one row per layer instance, one column per work instruction of the
// program (forward, recompute and backward; allocs, frees and optimizer steps are compressed
// away), and in each cell what that layer's activations are doing at that step: computed
// (its forward runs), recomputed (its recompute runs, at the region depth of the recompute),
// its backward running, or held — kept for backward, or a recomputed copy waiting for its
// backward — or nothing (freed, or not made yet). It is what a lesson draws to show when each
// layer's activations are computed, kept, recomputed and freed; nested plans show one depth
// per level.
//
// Stored compactly for programs of millions of instructions: per column the layer and what it
// does, and per layer the maximal spans of columns in which it holds activations. A cell is the
// column's action when the column belongs to that layer, else the held span covering it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph.h"
#include "program.h"
#include "step_through.h"

namespace remat {

enum class CellKind : std::uint8_t {
    Empty,       // nothing of the layer's activations is live
    Kept,        // activations kept for backward (saved, or a region's input)
    Recomputed,  // recomputed activations live, waiting for the backward that reads them
    Forward,     // the layer's forward runs in this column
    Recompute,   // the layer's recompute runs in this column
    Backward,    // the layer's backward runs in this column
};

struct ScheduleCell {
    CellKind kind = CellKind::Empty;
    int depth = 0;  // Recompute and Recomputed: the region depth (1 = outermost); else 0
    bool operator==(const ScheduleCell&) const = default;
};

// Columns [first, end) of one row in which the layer holds activations of one kind.
struct ScheduleSpan {
    std::uint32_t first = 0, end = 0;
    ScheduleCell cell;
    bool operator==(const ScheduleSpan&) const = default;
};

// Columns [first, end) of one micro-step, or of the repeat's body standing for `times`
// micro-steps from `microStep` on (program.h).
struct MicroStepBand {
    std::uint32_t first = 0, end = 0;
    std::uint32_t microStep = 0;
    std::int64_t times = 1;
    bool operator==(const MicroStepBand&) const = default;
};

class ScheduleGrid {
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    ScheduleGrid() = default;
    // `live` is LiveSetIndex(g, p): the grid's held spans are the lifetimes it records.
    ScheduleGrid(const Graph& g, const Program& p, const LiveSetIndex& live);

    int rowCount() const { return m_rows; }  // the graph's layer instances
    std::size_t columnCount() const { return m_columnInstruction.size(); }
    int maxDepth() const { return m_maxDepth; }

    std::size_t instructionOfColumn(std::size_t column) const {
        return m_columnInstruction[column];
    }
    // The column of instruction i: its own for a work instruction in the grid, else the next
    // column after it (an alloc prepares it), or the last column past the end; npos when the
    // grid has no columns.
    std::size_t columnOfInstruction(std::size_t i) const;
    int layerOfColumn(std::size_t column) const { return m_columnLayer[column]; }
    ScheduleCell actionOfColumn(std::size_t column) const { return m_columnAction[column]; }

    // Held spans of a row, ascending and disjoint.
    const std::vector<ScheduleSpan>& heldSpans(int row) const { return m_held[std::size_t(row)]; }
    ScheduleCell cell(int row, std::size_t column) const;
    // The columns of each micro-step as written, in order (one band without accumulation).
    const std::vector<MicroStepBand>& microStepBands() const { return m_bands; }

private:
    int m_rows = 0;
    int m_maxDepth = 0;
    std::vector<std::uint32_t> m_columnInstruction;
    std::vector<int> m_columnLayer;
    std::vector<ScheduleCell> m_columnAction;
    std::vector<std::vector<ScheduleSpan>> m_held;
    std::vector<MicroStepBand> m_bands;
};

}  // namespace remat
