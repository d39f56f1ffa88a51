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
        // The common case (every operand bound and live) is checked without building a
        // message; only a failing operand list is walked again for its error.
        auto live = [&](BufferId b, bool mayBeInvalid) {
            if (!b.valid()) return mayBeInvalid;
            return b.index() < p.buffers.size() && state[b.index()] == State::Live;
        };
        auto allLive = [&](const BufferList& list, bool mayBeInvalid) {
            for (BufferId b : list)
                if (!live(b, mayBeInvalid)) return false;
            return true;
        };
        auto failure = [&](const BufferList& list, const char* what, bool mayBeInvalid) {
            for (BufferId b : list) {
                if (!b.valid()) {
                    if (mayBeInvalid) continue;
                    return err(i, std::string("unbound ") + what + " operand");
                }
                if (b.index() >= p.buffers.size()) return err(i, "no such buffer");
                State s = state[b.index()];
                if (s == State::Never)
                    return err(i, std::string(what) + " '" + bufferLabel(g, p.buffers[b.index()]) +
                                      "' used before its alloc");
                if (s == State::Freed)
                    return err(i, std::string(what) + " '" + bufferLabel(g, p.buffers[b.index()]) +
                                      "' used after its free");
            }
            return Status(Ok{});
        };
        const struct {
            const BufferList* list;
            const char* what;
            bool mayBeInvalid;
        } operands[] = {{&ins.inputs, "input", false},
                        {&ins.outputs, "output", false},
                        {&ins.params, "parameter", false},
                        {&ins.saved, "saved", false},
                        {&ins.gradOutputs, "output gradient", true},
                        {&ins.gradInputs, "input gradient", true},
                        {&ins.paramGrads, "parameter gradient", false},
                        {&ins.state, "optimizer state", false}};
        for (const auto& o : operands)
            if (!allLive(*o.list, o.mayBeInvalid)) return failure(*o.list, o.what, o.mayBeInvalid);
        if (!live(ins.workspace, true)) return failure({ins.workspace}, "workspace", true);
    }
    for (std::size_t b = 0; b < state.size(); ++b)
        if (state[b] == State::Live)
            return makeError("invalid program: buffer '" + bufferLabel(g, p.buffers[b]) +
                             "' is still allocated at the end (instruction " +
                             std::to_string(p.instructions.size()) + ")");
    return Ok{};
}

std::string bufferLabel(const Graph& g, const Buffer& b) {
    if (b.role == BufferRole::Workspace) {
        if (!b.op.valid() || b.op.index() >= g.ops.size()) return "GEMM library workspace";
        return g.op(b.op).name + (b.backward ? " backward workspace" : " workspace");
    }
    if (!b.tensor.valid() || b.tensor.index() >= g.tensors.size()) return "?";
    const std::string& name = g.tensor(b.tensor).name;
    switch (b.role) {
        case BufferRole::MasterWeight: return name + " (fp32 master)";
        case BufferRole::OptimizerState:
            return name + (b.moment <= 1 ? " (moment 1)" : " (moment 2)");
        case BufferRole::ParamGrad:
        case BufferRole::ActivationGrad: return "grad " + name;
        case BufferRole::Activation: return b.recomputed ? name + " (recompute)" : name;
        default: return name;
    }
}

std::string describeInstruction(const Graph& g, const Program& p, std::size_t index) {
    if (index >= p.instructions.size()) return "end";
    const Instruction& ins = p.instructions[index];
    std::string s(instrKindName(ins.kind));
    if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free) {
        if (!ins.buffer.valid() || ins.buffer.index() >= p.buffers.size()) return s + " ?";
        const Buffer& b = p.buffer(ins.buffer);
        return s + " " + bufferLabel(g, b) + " (" + humanBytes(b.bytes.at(p.microBatch)) + ", " +
               std::string(categoryKey(b.category)) + ")";
    }
    if (ins.kind == InstrKind::OptimizerStep)
        return s + " " + (ins.parameter.valid() ? g.tensor(ins.parameter).name : "?");
    return s + " " + (ins.op.valid() && ins.op.index() < g.ops.size() ? g.op(ins.op).name : "?");
}

}  // namespace remat
