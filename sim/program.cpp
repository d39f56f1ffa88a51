#include "program.h"

#include <algorithm>
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
        case BufferRole::Gathered: return "gathered";
        case BufferRole::InFlightActivations: return "in_flight_activations";
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

std::int64_t Program::executedInstructions() const {
    const auto n = std::int64_t(instructions.size());
    if (!repeat) return n;
    return n + (repeat->times - 1) * std::int64_t(repeat->end - repeat->begin);
}

std::uint32_t rngDrawAt(const Program& p, const Instruction& ins, std::int64_t iteration) {
    if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Recompute) return ins.rngDraw;
    if (ins.rngDraw < std::uint64_t(p.accumulationSteps))
        return ins.rngDraw + std::uint32_t(iteration);
    const std::uint32_t stride = p.repeat ? p.repeat->freshDrawsPerMicroStep : 0;
    return ins.rngDraw + std::uint32_t(iteration) * stride;
}

Status validateProgram(const Graph& g, const Program& p) {
    enum class State : std::uint8_t { Never, Live, Freed };
    std::vector<State> state(p.buffers.size(), State::Never);
    auto err = [&](std::size_t i, const std::string& what) -> Status {
        return makeError("invalid program at instruction " + std::to_string(i) + " (" +
                         describeInstruction(g, p, i) + "): " + what);
    };
    if (p.repeat && (p.repeat->begin >= p.repeat->end ||
                     p.repeat->end > p.instructions.size() || p.repeat->times < 1))
        return makeError("invalid program: the repeat's body [" + std::to_string(p.repeat->begin) +
                         ", " + std::to_string(p.repeat->end) + ") x " +
                         std::to_string(p.repeat->times) + " is not a non-empty range of its " +
                         std::to_string(p.instructions.size()) + " instructions run at least once");
    // Buffers the repeat's body allocates: it must free each of them, and nothing else, so
    // that every iteration starts from the same live set.
    std::vector<bool> bodyAlloc(p.repeat ? p.buffers.size() : 0, false);
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (p.repeat && i == p.repeat->end) {
            for (std::size_t b = 0; b < bodyAlloc.size(); ++b)
                if (bodyAlloc[b] && state[b] == State::Live)
                    return err(i - 1, "buffer '" + bufferLabel(g, p.buffers[b]) +
                                          "' is allocated in the repeated body but not freed "
                                          "in it");
        }
        if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free) {
            if (!ins.buffer.valid() || ins.buffer.index() >= p.buffers.size())
                return err(i, "no such buffer");
            State& s = state[ins.buffer.index()];
            if (ins.kind == InstrKind::Alloc) {
                if (s != State::Never) return err(i, "buffer allocated twice");
                s = State::Live;
                if (p.inRepeat(i)) bodyAlloc[ins.buffer.index()] = true;
            } else {
                if (s != State::Live) return err(i, "buffer freed while not live");
                s = State::Freed;
                if (p.inRepeat(i) && !bodyAlloc[ins.buffer.index()])
                    return err(i, "the repeated body frees a buffer it did not allocate");
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
    if (p.repeat && p.repeat->end == p.instructions.size())
        for (std::size_t b = 0; b < bodyAlloc.size(); ++b)
            if (bodyAlloc[b] && state[b] == State::Live)
                return err(p.instructions.size() - 1,
                           "buffer '" + bufferLabel(g, p.buffers[b]) +
                               "' is allocated in the repeated body but not freed in it");
    for (std::size_t b = 0; b < state.size(); ++b)
        if (state[b] == State::Live)
            return makeError("invalid program: buffer '" + bufferLabel(g, p.buffers[b]) +
                             "' is still allocated at the end (instruction " +
                             std::to_string(p.instructions.size()) + ")");
    return Ok{};
}

Result<Program> expandProgram(const Program& p) {
    if (!p.repeat) return p;
    const Repeat r = *p.repeat;
    const std::int64_t total = p.executedInstructions();
    if (total > kMaxProgramInstructions)
        return makeError("writing out all " + std::to_string(r.times) +
                         " repeated micro-steps would give " + std::to_string(total) +
                         " instructions; the largest program supported has " +
                         std::to_string(kMaxProgramInstructions));
    // The buffers the body allocates, in id order: each extra iteration gets copies of them,
    // placed after the last of them (as a compile numbers a later micro-step's buffers).
    std::vector<std::uint32_t> body;
    for (std::size_t i = r.begin; i < r.end; ++i)
        if (p.instructions[i].kind == InstrKind::Alloc) body.push_back(p.instructions[i].buffer.value);
    std::sort(body.begin(), body.end());
    const std::uint32_t last = body.empty() ? 0 : body.back();
    const std::uint32_t perIteration = std::uint32_t(body.size());
    const std::uint32_t extra = std::uint32_t(r.times - 1) * perIteration;
    std::vector<std::uint32_t> rank(p.buffers.size(), std::uint32_t(-1));
    for (std::uint32_t k = 0; k < perIteration; ++k) rank[body[k]] = k;

    Program out;
    out.microBatch = p.microBatch;
    out.accumulationSteps = p.accumulationSteps;
    out.precision = p.precision;
    out.optimizer = p.optimizer;
    out.plan = p.plan;
    out.unsafeReasons = p.unsafeReasons;
    out.mayDifferReasons = p.mayDifferReasons;
    out.safeNotes = p.safeNotes;
    out.buffers.reserve(p.buffers.size() + extra);
    out.buffers.insert(out.buffers.end(), p.buffers.begin(),
                       p.buffers.begin() + (body.empty() ? 0 : std::ptrdiff_t(last) + 1));
    for (std::int64_t it = 1; it < r.times; ++it)
        for (std::uint32_t b : body) {
            Buffer copy = p.buffers[b];
            copy.microStep = bufferMicroStepAt(copy, it);
            out.buffers.push_back(std::move(copy));
        }
    out.buffers.insert(out.buffers.end(),
                       p.buffers.begin() + (body.empty() ? 0 : std::ptrdiff_t(last) + 1),
                       p.buffers.end());

    // A buffer's id in iteration `it` (0 outside the body).
    auto map = [&](BufferId id, std::int64_t it) {
        if (!id.valid()) return id;
        if (!body.empty() && id.value > last) return BufferId(id.value + extra);
        if (it == 0 || rank[id.value] == std::uint32_t(-1)) return id;
        return BufferId(last + 1 + std::uint32_t(it - 1) * perIteration + rank[id.value]);
    };
    auto emit = [&](const Instruction& ins, std::int64_t it) {
        Instruction c = ins;
        c.microStep = microStepAt(ins, it);
        c.rngDraw = rngDrawAt(p, ins, it);
        c.buffer = map(ins.buffer, it);
        for (BufferList* list : {&c.inputs, &c.outputs, &c.params, &c.saved, &c.gradOutputs,
                                 &c.gradInputs, &c.paramGrads, &c.state})
            for (BufferId& b : *list) b = map(b, it);
        c.workspace = map(ins.workspace, it);
        out.instructions.push_back(std::move(c));
    };
    out.instructions.reserve(std::size_t(total));
    for (std::size_t i = 0; i < r.begin; ++i) emit(p.instructions[i], 0);
    for (std::int64_t it = 0; it < r.times; ++it)
        for (std::size_t i = r.begin; i < r.end; ++i) emit(p.instructions[i], it);
    for (std::size_t i = r.end; i < p.instructions.size(); ++i) emit(p.instructions[i], 0);
    out.gemmWorkspace = map(p.gemmWorkspace, 0);
    return out;
}

std::string bufferLabel(const Graph& g, const Buffer& b) {
    if (b.role == BufferRole::Workspace && b.optimizer) {
        if (!b.tensor.valid() || b.tensor.index() >= g.tensors.size())
            return "optimizer temporaries (foreach)";
        return g.tensor(b.tensor).name + " optimizer temporaries (for-loop)";
    }
    if (b.role == BufferRole::Workspace) {
        if (!b.op.valid() || b.op.index() >= g.ops.size()) return "GEMM library workspace";
        return g.op(b.op).name + (b.backward ? " backward workspace" : " workspace");
    }
    if (b.role == BufferRole::Gathered) {
        std::string layer = "?";
        if (b.op.valid() && b.op.index() < g.ops.size()) {
            layer = g.op(b.op).name;
            layer = layer.substr(0, layer.find('/'));
        }
        return layer + (b.backward ? " whole gradients (before reduce-scatter)"
                                   : " gathered parameters");
    }
    if (b.role == BufferRole::InFlightActivations)
        return "kept activations of the other in-flight micro-batches";
    if (!b.tensor.valid() || b.tensor.index() >= g.tensors.size()) return "?";
    const std::string& name = g.tensor(b.tensor).name;
    switch (b.role) {
        case BufferRole::MasterWeight: return name + " (fp32 master)";
        case BufferRole::OptimizerState:
            return name + (b.moment <= 1 ? " (moment 1)" : " (moment 2)");
        case BufferRole::ParamGrad:
        case BufferRole::ActivationGrad: return "grad " + name;
        case BufferRole::Activation:
            return b.recomputed ? name + " (recompute)"
                   : b.backward ? name + " (back from host)"
                                : name;
        default: return name;
    }
}

std::string repeatCaption(const Program& p) {
    if (!p.repeat || p.repeat->begin >= p.instructions.size()) return {};
    const std::uint32_t first = p.instructions[p.repeat->begin].microStep + 1;
    const std::int64_t last = std::int64_t(first) + p.repeat->times - 1;
    return "micro-steps " + std::to_string(first) + "-" + std::to_string(last) + " (x " +
           std::to_string(p.repeat->times) + ", same memory)";
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
