#include "program.h"

#include <sstream>

namespace remat {

std::string_view bufferRoleName(BufferRole r) {
    switch (r) {
        case BufferRole::Parameter: return "parameter";
        case BufferRole::MasterWeight: return "master_weight";
        case BufferRole::OptimizerState: return "optimizer_state";
        case BufferRole::ParamGrad: return "parameter_gradient";
        case BufferRole::Input: return "input";
        case BufferRole::Activation: return "activation";
        case BufferRole::ActivationGrad: return "activation_gradient";
        case BufferRole::Workspace: return "workspace";
    }
    return "?";
}

std::string_view instrKindName(InstrKind k) {
    switch (k) {
        case InstrKind::Alloc: return "alloc";
        case InstrKind::Free: return "free";
        case InstrKind::Forward: return "forward";
        case InstrKind::Recompute: return "recompute";
        case InstrKind::Backward: return "backward";
        case InstrKind::OptimizerStep: return "optimizer_step";
    }
    return "?";
}

std::string_view phaseName(Phase p) {
    switch (p) {
        case Phase::Setup: return "setup";
        case Phase::Forward: return "forward";
        case Phase::Recompute: return "recompute";
        case Phase::Backward: return "backward";
        case Phase::Optimizer: return "optimizer";
        case Phase::Teardown: return "teardown";
    }
    return "?";
}

namespace {

std::string humanBytes(std::int64_t b) {
    std::ostringstream os;
    os.precision(3);
    if (b >= (std::int64_t{1} << 30)) os << double(b) / double(1 << 30) << " GiB";
    else if (b >= (1 << 20)) os << double(b) / double(1 << 20) << " MiB";
    else if (b >= (1 << 10)) os << double(b) / double(1 << 10) << " KiB";
    else os << b << " B";
    return os.str();
}

}  // namespace

Status validateProgram(const Graph& g, const Program& p) {
    enum class State : std::uint8_t { Never, Live, Freed };
    std::vector<State> state(p.buffers.size(), State::Never);
    auto err = [&](std::size_t i, const std::string& what) -> Status {
        return makeError("invalid program at instruction " + std::to_string(i) + " (" +
                         describeInstruction(g, p, i) + "): " + what);
    };
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free) {
            if (!ins.buffer.valid() || ins.buffer.index() >= p.buffers.size())
                return err(i, "no such buffer");
            State& s = state[ins.buffer.index()];
            if (ins.kind == InstrKind::Alloc) {
                if (s != State::Never) return err(i, "buffer allocated twice");
                s = State::Live;
            } else {
                if (s != State::Live) return err(i, "buffer freed while not live");
                s = State::Freed;
            }
            continue;
        }
        auto check = [&](const BufferList& list, const char* what,
                         bool mayBeInvalid) -> Status {
            for (BufferId b : list) {
                if (!b.valid()) {
                    if (mayBeInvalid) continue;
                    return err(i, std::string("unbound ") + what + " operand");
                }
                if (b.index() >= p.buffers.size()) return err(i, "no such buffer");
                State s = state[b.index()];
                if (s == State::Never)
                    return err(i, std::string(what) + " '" + p.buffers[b.index()].label +
                                      "' used before its alloc");
                if (s == State::Freed)
                    return err(i, std::string(what) + " '" + p.buffers[b.index()].label +
                                      "' used after its free");
            }
            return Ok{};
        };
        if (ins.kind != InstrKind::OptimizerStep) {
            if (!ins.op.valid() || ins.op.index() >= g.ops.size()) return err(i, "no such op");
            const Op& op = g.op(ins.op);
            if (ins.params.size() != op.params.size()) return err(i, "parameter count differs");
            if (ins.kind == InstrKind::Backward) {
                if (ins.saved.size() != op.saved.size() ||
                    ins.gradInputs.size() != op.inputs.size() ||
                    ins.gradOutputs.size() != op.outputs.size())
                    return err(i, "operand count differs from the op");
            } else if (ins.inputs.size() != op.inputs.size() ||
                       ins.outputs.size() != op.outputs.size()) {
                return err(i, "operand count differs from the op");
            }
        }
        for (auto r : {check(ins.inputs, "input", false), check(ins.outputs, "output", false),
                       check(ins.params, "parameter", false), check(ins.saved, "saved", false),
                       check(ins.gradOutputs, "output gradient", true),
                       check(ins.gradInputs, "input gradient", true),
                       check(ins.paramGrads, "parameter gradient", false),
                       check(ins.state, "optimizer state", false),
                       check({ins.workspace}, "workspace", true)})
            if (!r) return r;
    }
    for (std::size_t b = 0; b < state.size(); ++b)
        if (state[b] == State::Live)
            return makeError("invalid program: buffer '" + p.buffers[b].label +
                             "' is still allocated at the end (instruction " +
                             std::to_string(p.instructions.size()) + ")");
    return Ok{};
}

std::string describeInstruction(const Graph& g, const Program& p, std::size_t index) {
    if (index >= p.instructions.size()) return "end";
    const Instruction& ins = p.instructions[index];
    std::string s(instrKindName(ins.kind));
    if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free) {
        if (!ins.buffer.valid() || ins.buffer.index() >= p.buffers.size()) return s + " ?";
        const Buffer& b = p.buffer(ins.buffer);
        return s + " " + b.label + " (" + humanBytes(b.bytes.at(p.microBatch)) + ", " +
               std::string(categoryKey(b.category)) + ")";
    }
    if (ins.kind == InstrKind::OptimizerStep)
        return s + " " + (ins.parameter.valid() ? g.tensor(ins.parameter).name : "?");
    return s + " " + (ins.op.valid() && ins.op.index() < g.ops.size() ? g.op(ins.op).name : "?");
}

}  // namespace remat
