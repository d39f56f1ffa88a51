#include "step_caption.h"

#include <QCoreApplication>

#include "instruction_caption.h"
#include "qt_convert.h"

namespace remat::ui {
namespace {


QString opName(const Graph& g, OpId op) {
    return op.valid() && op.index() < g.ops.size() ? printableText(g.op(op).name) : QString();
}

QString workCaption(const Graph& g, const Program& p, const std::vector<int>& layers,
                    const LiveSetIndex& live, std::size_t index, const LayerNumbering& num) {
    const Instruction& ins = p.instructions[index];
    const int layer =
        ins.op.valid() && ins.op.index() < layers.size() ? layers[ins.op.index()] : -1;
    const QString name = opName(g, ins.op);
    switch (ins.kind) {
        case InstrKind::Forward: {
            const BufferId out = ins.outputs.empty() ? BufferId() : ins.outputs[0];
            const BlockKind kind = out.valid() ? live.kindOf(out) : BlockKind::Other;
            if (kind == BlockKind::Kept)
                return QCoreApplication::translate(
                           "StepCaption",
                           "forward through %1: %2; its output is kept for backward")
                    .arg(num.layer(layer))
                    .arg(name);
            const auto regions = ins.op.valid() ? regionsContaining(p.plan, ins.op.value)
                                                : std::vector<std::size_t>{};
            if (!regions.empty())
                return QCoreApplication::translate(
                           "StepCaption",
                           "forward through %1: %2; inside region %3 (%4) its output is "
                           "freed once used and recomputed in backward")
                    .arg(num.layer(layer))
                    .arg(name)
                    .arg(regions.front() + 1)
                    .arg(printableText(p.plan.regions[regions.front()].label));
            return QCoreApplication::translate(
                       "StepCaption",
                       "forward through %1: %2; its output is freed once the next ops have "
                       "used it")
                .arg(num.layer(layer))
                .arg(name);
        }
        case InstrKind::Recompute: {
            const RecomputeContext c = recomputeContext(p, layers, index);
            if (!c.valid) break;
            const QString region = printableText(p.plan.regions[c.region].label);
            QString text;
            if (index == c.runFirst)
                text = QCoreApplication::translate(
                           "StepCaption",
                           "backward reaches region %1 (%2): recompute %3 from the kept input of "
                           "%4")
                           .arg(c.region + 1)
                           .arg(region)
                           .arg(num.range(c.runFirstLayer, c.runLastLayer))
                           .arg(num.layer(c.regionFirstLayer));
            else
                text = QCoreApplication::translate("StepCaption",
                                                   "recompute %1: %2, inside region %3 (%4)")
                           .arg(num.layer(layer))
                           .arg(name)
                           .arg(c.region + 1)
                           .arg(region);
            if (c.depth > 1)
                //: Appended to a recompute's caption when its region is nested in another
                text += QCoreApplication::translate("StepCaption", " (nested region, depth %1)")
                            .arg(c.depth);
            return text;
        }
        case InstrKind::Backward:
            return QCoreApplication::translate("StepCaption", "backward through %1: %2")
                .arg(num.layer(layer))
                .arg(name);
        case InstrKind::OptimizerStep:
            return QCoreApplication::translate("StepCaption",
                                               "optimizer step: update %1 from its gradient")
                .arg(ins.parameter.valid() && ins.parameter.index() < g.tensors.size()
                         ? printableText(g.tensor(ins.parameter).name)
                         : QString());
        default:
            break;
    }
    return {};
}

}  // namespace

QString stepCaption(const Graph& graph, const Program& program, const std::vector<int>& layers,
                    const LiveSetIndex& live, std::size_t index, ByteUnits units,
                    const LayerNumbering& numbering) {
    if (index >= program.instructions.size()) return {};
    const Instruction& ins = program.instructions[index];
    QString text = workCaption(graph, program, layers, live, index, numbering);
    if (text.isEmpty()) text = instructionCaption(instructionParts(graph, program, index), units);
    switch (ins.phase) {
        case Phase::Setup:
            return QCoreApplication::translate("StepCaption", "setup: %1").arg(text);
        case Phase::Teardown:
            return QCoreApplication::translate("StepCaption", "teardown: %1").arg(text);
        case Phase::Optimizer:
            return text;
        default:
            break;
    }
    if (program.accumulationSteps <= 1) return text;
    if (program.inRepeat(index))
        //: Micro-batches numbered from 1; the repeat's body stands for all of them
        return QCoreApplication::translate("StepCaption", "micro-batches %1–%2 (each the same): %3")
            .arg(ins.microStep + 1)
            .arg(std::int64_t(ins.microStep) + program.repeat->times)
            .arg(text);
    return QCoreApplication::translate("StepCaption", "micro-batch %1 of %2: %3")
        .arg(ins.microStep + 1)
        .arg(program.accumulationSteps)
        .arg(text);
}

}  // namespace remat::ui
