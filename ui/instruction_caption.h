// Captions of a program's instructions in the GUI's own words: the instruction kind and the
// memory category translated, sizes in the user's units, while op, parameter and buffer names
// stay as the model spells them ("recompute 3/mlp/fc1", "alloc 3/mlp/fc1 (4.00 MiB, saved
// activations)"). The simulator's describeInstruction() says the same in fixed English with
// snake_case categories for the CLI, the JSON report and the CSV export; the timeline's tooltip
// and peak label and the summary's "peak at" use these. The parts are kept apart from the text
// so that a view can caption again when the units or the language change.
#pragma once

#include <QString>
#include <cstddef>
#include <cstdint>

#include "graph.h"
#include "program.h"
#include "report.h"
#include "types.h"

namespace remat::ui {

// What a caption says about one instruction.
struct InstructionParts {
    InstrKind kind = InstrKind::Forward;
    std::size_t index = 0;
    QString name;                             // op, parameter or buffer name; empty when unknown
    std::int64_t bytes = -1;                  // alloc and free: the buffer's bytes; -1 otherwise
    Category category = Category::Transient;  // alloc and free: the buffer's category
};

// `graph` (the program's) names ops, parameters and buffers. `index` must be an instruction of
// `program`.
InstructionParts instructionParts(const Graph& graph, const Program& program, std::size_t index);

enum class CaptionDetail {
    Full,   // an alloc or free says its size and category
    Short,  // kind and name only (where the size is already stated next to it)
};

QString instrKindDisplayName(InstrKind kind);
QString instructionCaption(const InstructionParts& parts, ByteUnits units,
                           CaptionDetail detail = CaptionDetail::Full);

}  // namespace remat::ui
