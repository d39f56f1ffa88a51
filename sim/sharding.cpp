#include "sharding.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace remat {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return b <= 1 ? a : (a + b - 1) / b; }

Affine shardBytes(Affine a, std::int64_t degree) {
    return {ceilDiv(a.perSample, degree), ceilDiv(a.fixed, degree)};
}

struct Visit {
    std::size_t first = 0, last = 0;  // instruction indices
    std::size_t firstBackward = SIZE_MAX;
    int layer = -1;
    int direction = 0;  // 0 forward, 1 recompute and backward
    std::uint32_t microStep = 0;
};

template <typename F>
void forEachOperand(Instruction& ins, F f) {
    for (BufferList* l : {&ins.inputs, &ins.outputs, &ins.params, &ins.saved, &ins.gradOutputs,
                          &ins.gradInputs, &ins.paramGrads, &ins.state})
        for (BufferId& b : *l) f(b);
    f(ins.workspace);
}

// Allocs and frees to insert around a program's instructions, spliced in by apply(): an alloc
// goes just before instruction i, a free just after it, so each stays in i's micro-step and a
// repeat's bounds follow the instructions they held. Insertions at one instruction keep the
// order they were made in.
class Insertions {
public:
    explicit Insertions(const std::vector<Instruction>&) {}
    explicit Insertions(const Program&) {}
    void allocBefore(const std::vector<Instruction>&, BufferId b, std::size_t i) {
        m_pre.push_back({i, b});
    }
    void freeAfter(const std::vector<Instruction>&, BufferId b, std::size_t i) {
        m_post.push_back({i, b});
    }
    void allocBefore(const Program& p, BufferId b, std::size_t i) { allocBefore(p.instructions, b, i); }
    void freeAfter(const Program& p, BufferId b, std::size_t i) { freeAfter(p.instructions, b, i); }
    // Splices the insertions into `in` (the instructions the insertions were made for), into
    // p.instructions; `in` may be p.instructions itself.
    void apply(const std::vector<Instruction>& in, Program& p) {
        const std::size_t n = in.size();
        auto byIndex = [](const Item& a, const Item& b) { return a.at < b.at; };
        std::stable_sort(m_pre.begin(), m_pre.end(), byIndex);
        std::stable_sort(m_post.begin(), m_post.end(), byIndex);
        std::vector<Instruction> out;
        out.reserve(n + m_pre.size() + m_post.size());
        std::size_t pre = 0, post = 0;
        std::size_t begin = 0, end = 0;
        const std::size_t repeatBegin = p.repeat ? p.repeat->begin : SIZE_MAX;
        const std::size_t repeatEnd = p.repeat ? std::min(p.repeat->end, n) : SIZE_MAX;
        for (std::size_t i = 0; i < n; ++i) {
            if (i == repeatBegin) begin = out.size();
            if (i == repeatEnd) end = out.size();
            for (; pre < m_pre.size() && m_pre[pre].at == i; ++pre)
                out.push_back(at(in, InstrKind::Alloc, m_pre[pre].buffer, i));
            out.push_back(in[i]);
            for (; post < m_post.size() && m_post[post].at == i; ++post)
                out.push_back(at(in, InstrKind::Free, m_post[post].buffer, i));
        }
        if (repeatEnd == n) end = out.size();
        if (p.repeat) {
            p.repeat->begin = begin;
            p.repeat->end = end;
        }
        p.instructions = std::move(out);
    }
    void apply(Program& p) {
        const std::vector<Instruction> in = std::move(p.instructions);
        apply(in, p);
    }

private:
    struct Item {
        std::size_t at;
        BufferId buffer;
    };
    static Instruction at(const std::vector<Instruction>& in, InstrKind kind, BufferId b,
                          std::size_t i) {
        Instruction x;
        x.kind = kind;
        x.phase = in[i].phase;
        x.microStep = in[i].microStep;
        x.buffer = b;
        return x;
    }
    std::vector<Item> m_pre, m_post;
};

// The activation-offload rewrite (ShardingPlan::offloadActivations), in place. Brought-back
// buffers are marked `recomputed = false`, `backward = true` (their label says so).
void offloadKeptActivations(Program& p) {
    const std::size_t nb = p.buffers.size(), n = p.instructions.size();
    std::vector<std::size_t> lastForward(nb, SIZE_MAX), firstBackward(nb, SIZE_MAX);
    std::vector<std::size_t> freeAt(nb, SIZE_MAX);
    std::vector<std::size_t> computeBefore(n + 1, 0);  // compute instructions before i
    for (std::size_t i = 0; i < n; ++i) {
        Instruction& ins = p.instructions[i];
        computeBefore[i + 1] = computeBefore[i] + (ins.kind != InstrKind::Alloc &&
                                                   ins.kind != InstrKind::Free);
        if (ins.kind == InstrKind::Free) freeAt[ins.buffer.index()] = i;
        const bool fwd = ins.kind == InstrKind::Forward;
        const bool bwd = ins.kind == InstrKind::Recompute || ins.kind == InstrKind::Backward;
        if (!fwd && !bwd) continue;
        forEachOperand(ins, [&](BufferId& b) {
            if (!b.valid()) return;
            if (fwd) lastForward[b.index()] = i;
            else if (firstBackward[b.index()] == SIZE_MAX) firstBackward[b.index()] = i;
        });
    }
    std::vector<BufferId> back(nb, BufferId::invalid());
    Insertions inserted(p);
    for (std::size_t b = 0; b < nb; ++b) {
        const Buffer& buf = p.buffers[b];
        if (buf.role != BufferRole::Activation || buf.category != Category::SavedActivations)
            continue;
        if (lastForward[b] == SIZE_MAX || firstBackward[b] == SIZE_MAX || freeAt[b] == SIZE_MAX)
            continue;
        // Worth sending only when other work runs in between (the loss's own backward comes
        // straight after it).
        if (firstBackward[b] < lastForward[b] ||
            computeBefore[firstBackward[b]] - computeBefore[lastForward[b] + 1] < 2)
            continue;
        Buffer copy = buf;
        copy.backward = true;
        p.buffers.push_back(copy);
        const BufferId nbId(std::uint32_t(p.buffers.size() - 1));
        back[b] = nbId;
        inserted.freeAfter(p, BufferId(std::uint32_t(b)), lastForward[b]);
        inserted.allocBefore(p, nbId, firstBackward[b]);
        p.instructions[freeAt[b]].buffer = nbId;
    }
    for (std::size_t i = 0; i < n; ++i) {
        Instruction& x = p.instructions[i];
        if (x.kind != InstrKind::Recompute && x.kind != InstrKind::Backward) continue;
        forEachOperand(x, [&](BufferId& b) {
            if (b.valid() && b.index() < nb && back[b.index()].valid() && i >= firstBackward[b.index()])
                b = back[b.index()];
        });
    }
    inserted.apply(p);
}

}  // namespace

std::int64_t offloadedActivationBytes(const Program& p, std::int64_t microBatch) {
    // The brought-back buffers of the last micro-step: one micro-batch's offloaded bytes.
    std::uint32_t last = 0;
    for (const Buffer& b : p.buffers)
        if (b.role == BufferRole::Activation && b.backward) last = std::max(last, b.microStep);
    std::int64_t sum = 0;
    for (const Buffer& b : p.buffers)
        if (b.role == BufferRole::Activation && b.backward && b.microStep == last)
            sum += b.bytes.at(microBatch);
    return sum;
}

std::vector<std::int64_t> layerParameterBytes(const Graph& g) {
    std::vector<std::int64_t> out(g.layerModules.size(), 0);
    // seen[t] == l + 1: tensor t already counted for layer l.
    std::vector<std::size_t> seen(g.tensors.size(), 0);
    for (std::size_t l = 0; l < g.layerModules.size(); ++l) {
        const Module& m = g.module(g.layerModules[l]);
        for (std::uint32_t o = m.firstOp; o < m.firstOp + m.opCount; ++o)
            for (TensorId t : g.ops[o].params)
                if (seen[t.index()] != l + 1) {
                    seen[t.index()] = l + 1;
                    out[l] = satAdd(out[l], g.tensor(t).bytes().fixed);
                }
    }
    return out;
}

void resizeForSharding(std::vector<Buffer>& buffers, const ShardingPlan& plan) {
    const std::int64_t d = std::max<std::int64_t>(plan.shardDegree, 1);
    for (Buffer& b : buffers) {
        switch (b.role) {
            case BufferRole::Parameter:
                if (plan.offloadParameters) b.bytes = {};
                else if (plan.zeroStage >= 3) b.bytes = shardBytes(b.bytes, d);
                break;
            case BufferRole::ParamGrad:
                if (plan.offloadParameters) b.bytes = {};
                else if (plan.zeroStage >= 2) b.bytes = shardBytes(b.bytes, d);
                break;
            case BufferRole::MasterWeight:
            case BufferRole::OptimizerState:
                if (plan.offloadOptimizer) b.bytes = {};
                else if (plan.zeroStage >= 1) b.bytes = shardBytes(b.bytes, d);
                break;
            default: break;
        }
    }
}

bool shardingInserts(const ShardingPlan& plan) {
    const std::int64_t d = std::max<std::int64_t>(plan.shardDegree, 1);
    return plan.offloadActivations || plan.inFlight > 1.0 ||
           (plan.zeroStage >= 2 && (d > 1 || plan.offloadParameters));
}

namespace {

// The rewrite of applySharding: `p` holds everything of the program but its instructions,
// which are `in`; the rewritten instructions go to p.instructions (`in` may be p.instructions).
Status rewrite(const Graph& g, const std::vector<Instruction>& in, Program& p,
               const ShardingPlan& plan, bool validate = true) {
    const std::int64_t d = std::max<std::int64_t>(plan.shardDegree, 1);
    resizeForSharding(p.buffers, plan);
    const bool gather = plan.zeroStage >= 3 && (d > 1 || plan.offloadParameters);
    const bool wholeGrads = plan.zeroStage >= 2 && (d > 1 || plan.offloadParameters);
    const bool band = plan.inFlight > 1.0;
    if (!gather && !wholeGrads && !band) {
        if (&in != &p.instructions) p.instructions = in;
        return validate ? validateProgram(g, p) : Status(Ok{});
    }

    const std::size_t n = in.size();
    const std::vector<std::int64_t> unitBytes = layerParameterBytes(g);
    // Runs of compute instructions on one layer, one direction, one micro-step.
    std::vector<Visit> visits;
    std::size_t firstForward = SIZE_MAX, lastBackward = SIZE_MAX;
    for (std::size_t i = 0; i < n; ++i) {
        const Instruction& ins = in[i];
        if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Recompute &&
            ins.kind != InstrKind::Backward)
            continue;
        if (ins.kind == InstrKind::Forward && firstForward == SIZE_MAX) firstForward = i;
        if (ins.kind == InstrKind::Backward) lastBackward = i;
        const int layer = g.module(g.op(ins.op).module).layerIndex;
        const int dir = ins.kind == InstrKind::Forward ? 0 : 1;
        if (visits.empty() || visits.back().layer != layer || visits.back().direction != dir ||
            visits.back().microStep != ins.microStep) {
            Visit v;
            v.first = i;
            v.layer = layer;
            v.direction = dir;
            v.microStep = ins.microStep;
            visits.push_back(v);
        }
        Visit& v = visits.back();
        v.last = i;
        if (ins.kind == InstrKind::Backward && v.firstBackward == SIZE_MAX) v.firstBackward = i;
    }

    Insertions inserted(in);
    auto addBuffer = [&](BufferRole role, Category cat, Affine bytes, const Instruction& at,
                         OpId op, bool backward) {
        Buffer b;
        b.role = role;
        b.category = cat;
        b.bytes = bytes;
        b.microStep = at.microStep;
        b.op = op;
        b.backward = backward;
        b.dtype = computeDType(p.precision);
        p.buffers.push_back(b);
        return BufferId(std::uint32_t(p.buffers.size() - 1));
    };
    auto allocFree = [&](BufferId b, std::size_t allocBefore, std::size_t freeAfter) {
        inserted.allocBefore(in, b, allocBefore);
        inserted.freeAfter(in, b, freeAfter);
    };
    for (std::size_t k = 0; k < visits.size(); ++k) {
        const Visit& v = visits[k];
        if (v.layer < 0 || std::size_t(v.layer) >= unitBytes.size() || unitBytes[v.layer] == 0)
            continue;
        const OpId op = in[v.first].op;
        const Affine whole{0, unitBytes[std::size_t(v.layer)]};
        if (gather) {
            // Prefetched while the previous layer of the same pass runs.
            std::size_t from = v.first;
            if (k > 0 && visits[k - 1].direction == v.direction &&
                visits[k - 1].microStep == v.microStep)
                from = visits[k - 1].first;
            allocFree(addBuffer(BufferRole::Gathered, Category::GatheredParameters, whole,
                                in[from], op, false),
                      from, v.last);
        }
        if (wholeGrads && v.firstBackward != SIZE_MAX)
            allocFree(addBuffer(BufferRole::Gathered, Category::Gradients, whole,
                                in[v.firstBackward], op, true),
                      v.firstBackward, v.last);
    }
    if (band && firstForward != SIZE_MAX && lastBackward != SIZE_MAX) {
        const double extra = plan.inFlight - 1.0;
        const Affine bytes{std::llround(double(plan.keptPerMicroBatch.perSample) * extra),
                           std::llround(double(plan.keptPerMicroBatch.fixed) * extra)};
        Buffer b;
        b.role = BufferRole::InFlightActivations;
        b.category = Category::SavedActivations;
        b.bytes = bytes;
        p.buffers.push_back(b);
        allocFree(BufferId(std::uint32_t(p.buffers.size() - 1)), firstForward, lastBackward);
    }

    inserted.apply(in, p);
    return validate ? validateProgram(g, p) : Status(Ok{});
}

}  // namespace

Status applySharding(const Graph& g, Program& p, const ShardingPlan& plan) {
    if (plan.offloadActivations) offloadKeptActivations(p);
    return rewrite(g, p.instructions, p, plan);
}

Result<Program> shardedProgram(const Graph& g, const Program& src, const ShardingPlan& plan,
                               bool validate) {
    if (plan.offloadActivations) {
        Program p = src;
        if (auto ok = applySharding(g, p, plan); !ok) return ok.error();
        return p;
    }
    // Everything but the instructions, which the rewrite copies once, with its insertions.
    Program p;
    p.buffers = src.buffers;
    p.repeat = src.repeat;
    p.microBatch = src.microBatch;
    p.accumulationSteps = src.accumulationSteps;
    p.precision = src.precision;
    p.optimizer = src.optimizer;
    p.recomputeImpl = src.recomputeImpl;
    p.plan = src.plan;
    p.gemmWorkspace = src.gemmWorkspace;
    p.unsafeReasons = src.unsafeReasons;
    p.mainGrads = src.mainGrads;
    p.optimizerImpl = src.optimizerImpl;
    p.tf32 = src.tf32;
    if (auto ok = rewrite(g, src.instructions, p, plan, validate); !ok) return ok.error();
    return p;
}

ModelStateBytes zeroModelStates(std::int64_t parameterCount, Precision precision,
                                Optimizer optimizer, int zeroStage, std::int64_t shardDegree) {
    const double n = double(std::max<std::int64_t>(parameterCount, 0));
    const double shard = double(std::max<std::int64_t>(shardDegree, 1));
    const double compute = double(dtypeBytes(computeDType(precision)));
    const double master = precision == Precision::Fp32 ? 0.0 : 4.0;
    const double optimizerPerParam = master + 4.0 * double(optimizerStateCount(optimizer));
    auto bytes = [&](double perParam, bool sharded) {
        return std::int64_t(std::ceil(n * perParam / (sharded ? shard : 1.0)));
    };
    ModelStateBytes out;
    out.parameters = bytes(compute, zeroStage >= 3);
    out.gradients = bytes(compute, zeroStage >= 2);
    out.optimizerState = bytes(optimizerPerParam, zeroStage >= 1);
    return out;
}

}  // namespace remat
