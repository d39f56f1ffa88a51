#include "schedule_grid.h"

#include <algorithm>

namespace remat {
namespace {

bool isGridColumn(InstrKind k) {
    return k == InstrKind::Forward || k == InstrKind::Recompute || k == InstrKind::Backward;
}

}  // namespace

ScheduleGrid::ScheduleGrid(const Graph& g, const Program& p, const LiveSetIndex& live)
    : m_rows(int(g.layerModules.size())) {
    const std::vector<int> layers = opLayers(g);
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (!isGridColumn(ins.kind)) continue;
        m_columnInstruction.push_back(std::uint32_t(i));
        m_columnLayer.push_back(
            ins.op.valid() && ins.op.index() < layers.size() ? layers[ins.op.index()] : -1);
        ScheduleCell action;
        switch (ins.kind) {
            case InstrKind::Forward:
                action.kind = CellKind::Forward;
                break;
            case InstrKind::Recompute:
                action.kind = CellKind::Recompute;
                action.depth = std::max(1, ins.regionDepth);
                m_maxDepth = std::max(m_maxDepth, action.depth);
                break;
            default:
                action.kind = CellKind::Backward;
                break;
        }
        m_columnAction.push_back(action);
        const auto column = std::uint32_t(m_columnInstruction.size() - 1);
        const std::int64_t times = p.timesRun(i);
        if (m_bands.empty() || m_bands.back().microStep != ins.microStep ||
            m_bands.back().times != times)
            m_bands.push_back({column, column + 1, ins.microStep, times});
        else
            m_bands.back().end = column + 1;
    }

    // Lifetimes of the layers' kept and recomputed activations, in columns: a buffer allocated
    // at instruction a and freed at f is held in the columns from the first at or after a up to
    // (not including) the first at or after f.
    struct Event {
        std::uint32_t column;
        int delta;
        int depth;  // 0: kept; d >= 1: recomputed at depth d
    };
    std::vector<std::vector<Event>> events(static_cast<std::size_t>(m_rows));
    auto firstColumnAtOrAfter = [&](std::size_t instruction) {
        return std::uint32_t(
            std::lower_bound(m_columnInstruction.begin(), m_columnInstruction.end(), instruction) -
            m_columnInstruction.begin());
    };
    for (std::size_t b = 0; b < live.bufferCount(); ++b) {
        const BufferId id(static_cast<std::uint32_t>(b));
        const BlockKind kind = live.kindOf(id);
        if (kind != BlockKind::Kept && kind != BlockKind::Recomputed) continue;
        const int row = live.layerOf(id);
        const std::size_t alloc = live.allocAt(id), freed = live.freeAt(id);
        if (row < 0 || row >= m_rows || alloc == LiveSetIndex::npos) continue;
        const std::uint32_t first = firstColumnAtOrAfter(alloc);
        const std::uint32_t end = freed == LiveSetIndex::npos
                                      ? std::uint32_t(m_columnInstruction.size())
                                      : firstColumnAtOrAfter(freed);
        if (first >= end) continue;
        int depth = 0;
        if (kind == BlockKind::Recomputed) {
            // Made by the recompute it was allocated for: the first column after its alloc.
            depth =
                m_columnAction[first].kind == CellKind::Recompute ? m_columnAction[first].depth : 1;
            m_maxDepth = std::max(m_maxDepth, depth);
        }
        events[std::size_t(row)].push_back({first, +1, depth});
        events[std::size_t(row)].push_back({end, -1, depth});
    }

    m_held.resize(std::size_t(m_rows));
    std::vector<int> count(std::size_t(m_maxDepth) + 1);
    for (int row = 0; row < m_rows; ++row) {
        auto& ev = events[std::size_t(row)];
        std::sort(ev.begin(), ev.end(),
                  [](const Event& a, const Event& b) { return a.column < b.column; });
        std::fill(count.begin(), count.end(), 0);
        auto state = [&] {
            for (int d = m_maxDepth; d >= 1; --d)
                if (count[std::size_t(d)] > 0) return ScheduleCell{CellKind::Recomputed, d};
            return count[0] > 0 ? ScheduleCell{CellKind::Kept, 0} : ScheduleCell{};
        };
        auto& spans = m_held[std::size_t(row)];
        ScheduleCell current;
        std::uint32_t since = 0;
        for (std::size_t k = 0; k < ev.size();) {
            const std::uint32_t column = ev[k].column;
            for (; k < ev.size() && ev[k].column == column; ++k)
                count[std::size_t(ev[k].depth)] += ev[k].delta;
            const ScheduleCell next = state();
            if (next == current) continue;
            if (current.kind != CellKind::Empty && column > since)
                spans.push_back({since, column, current});
            current = next;
            since = column;
        }
    }
}

std::size_t ScheduleGrid::columnOfInstruction(std::size_t i) const {
    if (m_columnInstruction.empty()) return npos;
    const auto it = std::lower_bound(m_columnInstruction.begin(), m_columnInstruction.end(), i);
    if (it == m_columnInstruction.end()) return m_columnInstruction.size() - 1;
    return std::size_t(it - m_columnInstruction.begin());
}

ScheduleCell ScheduleGrid::cell(int row, std::size_t column) const {
    if (row < 0 || row >= m_rows || column >= columnCount()) return {};
    if (m_columnLayer[column] == row) return m_columnAction[column];
    const auto& spans = m_held[std::size_t(row)];
    auto it = std::upper_bound(spans.begin(), spans.end(), column,
                               [](std::size_t c, const ScheduleSpan& s) { return c < s.first; });
    if (it == spans.begin()) return {};
    --it;
    return column < it->end ? it->cell : ScheduleCell{};
}

}  // namespace remat
