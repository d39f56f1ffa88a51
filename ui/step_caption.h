// The step-through's caption: what instruction i of a program does, in plain words a lesson
// can read aloud — "forward through layer 3 (linear): 3/fc2; its output is kept for backward",
// "backward reaches region 2 (2-3): recompute layers 2–3 from the kept input of layer 2
// (linear)", "micro-batch 2 of 8: backward through layer 5 (transformer_block 5/12): ...". It builds on the instruction
// captions (instruction_caption.h) for names, sizes and categories, and on the step-through's
// logic (sim/step_through.h) for the region a recompute belongs to and where a forward's output
// goes. Layers are named as the layer stack numbers them (layer_numbering.h: expanded instances
// from 0, k/N within a repeated block).
#pragma once

#include <QString>
#include <cstddef>
#include <vector>

#include "graph.h"
#include "layer_numbering.h"
#include "program.h"
#include "report.h"
#include "step_through.h"

namespace remat::ui {

// `layers` is opLayers(graph); `live` is LiveSetIndex(graph, program); `numbering` names the
// graph's layers (without one, "layer 3" alone).
QString stepCaption(const Graph& graph, const Program& program, const std::vector<int>& layers,
                    const LiveSetIndex& live, std::size_t index, ByteUnits units,
                    const LayerNumbering& numbering = LayerNumbering());

}  // namespace remat::ui
