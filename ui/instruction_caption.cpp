#include "instruction_caption.h"

#include <QCoreApplication>

#include "qt_convert.h"

namespace remat::ui {

InstructionParts instructionParts(const Graph& graph, const Program& program, std::size_t index) {
    InstructionParts parts;
    parts.index = index;
    if (index >= program.instructions.size()) return parts;
    const Instruction& ins = program.instructions[index];
    parts.kind = ins.kind;
    switch (ins.kind) {
        case InstrKind::Alloc:
        case InstrKind::Free:
            if (ins.buffer.valid() && ins.buffer.index() < program.buffers.size()) {
                const Buffer& b = program.buffer(ins.buffer);
                parts.name = toQString(bufferLabel(graph, b));
                parts.bytes = b.bytes.at(program.microBatch);
                parts.category = b.category;
            }
            break;
        case InstrKind::OptimizerStep:
            if (ins.parameter.valid() && ins.parameter.index() < graph.tensors.size())
                parts.name = toQString(graph.tensor(ins.parameter).name);
            break;
        case InstrKind::Forward:
        case InstrKind::Recompute:
        case InstrKind::Backward:
            if (ins.op.valid() && ins.op.index() < graph.ops.size())
                parts.name = toQString(graph.op(ins.op).name);
            break;
    }
    return parts;
}

QString instrKindDisplayName(InstrKind kind) {
    switch (kind) {
        case InstrKind::Alloc:
            return QCoreApplication::translate("Instruction", "alloc");
        case InstrKind::Free:
            return QCoreApplication::translate("Instruction", "free");
        case InstrKind::Forward:
            return QCoreApplication::translate("Instruction", "forward");
        case InstrKind::Recompute:
            return QCoreApplication::translate("Instruction", "recompute");
        case InstrKind::Backward:
            return QCoreApplication::translate("Instruction", "backward");
        case InstrKind::OptimizerStep:
            return QCoreApplication::translate("Instruction", "optimizer step");
    }
    return {};
}

QString instructionCaption(const InstructionParts& parts, ByteUnits units, CaptionDetail detail) {
    const QString kind = instrKindDisplayName(parts.kind);
    if (parts.name.isEmpty())
        return QCoreApplication::translate("Instruction", "%1 #%2", "kind, instruction index")
            .arg(kind)
            .arg(parts.index);
    if (parts.bytes < 0 || detail == CaptionDetail::Short)
        return QCoreApplication::translate("Instruction", "%1 %2", "kind, op or buffer name")
            .arg(kind, parts.name);
    return QCoreApplication::translate("Instruction", "%1 %2 (%3, %4)",
                                       "kind, buffer name, size, category")
        .arg(kind, parts.name, bytesText(parts.bytes, units), categoryShortName(parts.category));
}

}  // namespace remat::ui
