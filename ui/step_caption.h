// The step-through's caption: what instruction i of a program does, in plain words a lesson
// can read aloud — "forward through layer 3: 3/fc2; its output is kept for backward",
// "backward reaches region 2 (2-3): recompute layers 2–3 from the kept input of layer 2",
// "micro-batch 2 of 8: backward through layer 1: 1/linear". It builds on the instruction
// captions (instruction_caption.h) for names, sizes and categories, and on the step-through's
// logic (sim/step_through.h) for the region a recompute belongs to and where a forward's output
// goes. Layers are numbered as the layer stack numbers them (expanded instances from 0).
#pragma once

#include <QString>
#include <cstddef>
#include <vector>

#include "graph.h"
#include "program.h"
#include "report.h"
#include "step_through.h"

namespace remat::ui {

// `layers` is opLayers(graph); `live` is LiveSetIndex(graph, program).
QString stepCaption(const Graph& graph, const Program& program, const std::vector<int>& layers,
                    const LiveSetIndex& live, std::size_t index, ByteUnits units);

}  // namespace remat::ui
