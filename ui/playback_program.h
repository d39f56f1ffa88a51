// What the step-through panel and the schedule grid share about the program on show: the
// document state that owns graph, program and timeline (kept alive while they are shown), and
// what the step-through's logic derives from them once per program — each op's layer, every
// buffer's lifetime (LiveSetIndex), the schedule grid's cells and the scale of the layers'
// blocks. Built on the GUI thread when a step-through view is shown: a few milliseconds for a
// program of 100,000 instructions.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph.h"
#include "program.h"
#include "schedule_grid.h"
#include "simulator.h"
#include "step_through.h"
#include "timeline_series.h"

namespace remat::ui {

struct PlaybackProgram {
    std::shared_ptr<const void> owner;  // keeps the three below alive
    const Graph* graph = nullptr;
    const Program* program = nullptr;
    const Timeline* timeline = nullptr;
    std::vector<int> opLayers;
    // The timeline's inputs: each instruction's layer (an alloc belongs to the work it
    // prepares, a free to the work before it), shared with the timeline when it has them.
    std::shared_ptr<const TimelineSeriesInputs> series;
    LiveSetIndex live;
    ScheduleGrid grid;
    // The most bytes of drawn blocks any one layer holds at once (at least 1).
    std::int64_t blockScaleBytes = 1;

    int layerCount() const { return int(graph->layerModules.size()); }
    std::size_t instructionCount() const { return program->instructions.size(); }
    int layerOfInstruction(std::size_t i) const {
        return i < series->layers.size() ? series->layers[i] : -1;
    }
};

// `series`, when given, is timelineSeriesInputs(g, p, t) already made (the document's).
std::shared_ptr<const PlaybackProgram> makePlaybackProgram(
    std::shared_ptr<const void> owner, const Graph& g, const Program& p, const Timeline& t,
    std::shared_ptr<const TimelineSeriesInputs> series = nullptr);

}  // namespace remat::ui
