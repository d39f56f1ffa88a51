#include "step_through.h"

#include <algorithm>
#include <limits>

namespace remat {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

BlockKind blockKind(const Buffer& b) {
    switch (b.role) {
        case BufferRole::Activation:
            switch (b.category) {
                case Category::SavedActivations:
                    return BlockKind::Kept;
                case Category::RecomputedActivations:
                    return BlockKind::Recomputed;
                default:
                    return BlockKind::Transient;
            }
        case BufferRole::ActivationGrad:
        case BufferRole::ParamGrad:
            return BlockKind::Gradient;
        default:
            return BlockKind::Other;
    }
}

// The phase run an instruction belongs to: its phase, micro-step and whether it is in the
// repeat's body (a run never crosses the body's edge).
bool samePhaseRun(const Program& p, std::size_t a, std::size_t b) {
    const Instruction& x = p.instructions[a];
    const Instruction& y = p.instructions[b];
    return x.phase == y.phase && x.microStep == y.microStep && p.inRepeat(a) == p.inRepeat(b);
}

}  // namespace

std::vector<int> opLayers(const Graph& g) {
    std::vector<int> layers(g.ops.size(), -1);
    for (std::size_t o = 0; o < g.ops.size(); ++o) {
        const ModuleId m = g.ops[o].module;
        if (m.valid() && m.index() < g.modules.size()) layers[o] = g.module(m).layerIndex;
    }
    return layers;
}

std::vector<int> parameterLayers(const Graph& g, const std::vector<int>& layerOfOp) {
    std::vector<int> out(g.tensors.size(), -1);
    for (std::size_t o = 0; o < g.ops.size() && o < layerOfOp.size(); ++o)
        for (TensorId t : g.ops[o].params)
            if (t.index() < out.size() && out[t.index()] < 0) out[t.index()] = layerOfOp[o];
    return out;
}

LiveSetIndex::LiveSetIndex(const Graph& g, const Program& p)
    : m_instructions(p.instructions.size()) {
    const std::size_t n = p.buffers.size();
    m_alloc.assign(n, kNone);
    m_free.assign(n, kNone);
    m_layer.assign(n, -1);
    m_kind.resize(n);
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (!ins.buffer.valid() || ins.buffer.index() >= n) continue;
        if (ins.kind == InstrKind::Alloc)
            m_alloc[ins.buffer.index()] = std::uint32_t(i);
        else if (ins.kind == InstrKind::Free)
            m_free[ins.buffer.index()] = std::uint32_t(i);
    }
    const std::vector<int> layerOfOp = opLayers(g);
    auto opLayer = [&](OpId op) {
        return op.valid() && op.index() < layerOfOp.size() ? layerOfOp[op.index()] : -1;
    };
    const std::vector<int> paramLayer = parameterLayers(g, layerOfOp);
    for (std::size_t i = 0; i < n; ++i) {
        const Buffer& b = p.buffers[i];
        m_kind[i] = blockKind(b);
        switch (b.role) {
            case BufferRole::Activation:
            case BufferRole::ActivationGrad:
                if (b.tensor.valid() && b.tensor.index() < g.tensors.size())
                    m_layer[i] = opLayer(g.tensor(b.tensor).producer);
                break;
            case BufferRole::Parameter:
            case BufferRole::MasterWeight:
            case BufferRole::OptimizerState:
            case BufferRole::ParamGrad:
                if (b.tensor.valid() && b.tensor.index() < paramLayer.size())
                    m_layer[i] = paramLayer[b.tensor.index()];
                break;
            case BufferRole::Workspace:
                m_layer[i] = opLayer(b.op);
                break;
            case BufferRole::Input:
                break;
        }
    }
}

void LiveSetIndex::liveAfter(std::size_t i, std::vector<BufferId>& out) const {
    out.clear();
    if (i >= m_instructions) return;
    const auto at = std::uint32_t(i);
    const std::size_t n = m_alloc.size();
    const std::uint32_t* alloc = m_alloc.data();
    const std::uint32_t* freed = m_free.data();
    for (std::size_t b = 0; b < n; ++b)
        if (alloc[b] <= at && (freed[b] == kNone || freed[b] > at))
            out.push_back(BufferId(std::uint32_t(b)));
}

std::vector<BufferId> LiveSetIndex::liveAfter(std::size_t i) const {
    std::vector<BufferId> out;
    liveAfter(i, out);
    return out;
}

std::size_t LiveSetIndex::allocAt(BufferId b) const {
    const std::uint32_t v = m_alloc[b.index()];
    return v == kNone ? npos : v;
}

std::size_t LiveSetIndex::freeAt(BufferId b) const {
    const std::uint32_t v = m_free[b.index()];
    return v == kNone ? npos : v;
}

std::vector<std::int64_t> peakLayerBlockBytes(const Program& p, const LiveSetIndex& live,
                                              int layerCount) {
    std::vector<std::int64_t> current(std::size_t(std::max(layerCount, 0))), peak(current.size());
    for (const Instruction& ins : p.instructions) {
        if (ins.kind != InstrKind::Alloc && ins.kind != InstrKind::Free) continue;
        if (!ins.buffer.valid() || ins.buffer.index() >= live.bufferCount()) continue;
        const int layer = live.layerOf(ins.buffer);
        if (layer < 0 || layer >= layerCount || !isLayerBlock(live.kindOf(ins.buffer))) continue;
        const std::int64_t bytes = p.buffer(ins.buffer).bytes.at(p.microBatch);
        auto& c = current[std::size_t(layer)];
        c += ins.kind == InstrKind::Alloc ? bytes : -bytes;
        peak[std::size_t(layer)] = std::max(peak[std::size_t(layer)], c);
    }
    return peak;
}

std::vector<std::uint32_t> playbackSteps(const Program& p, bool withAllocFree) {
    std::vector<std::uint32_t> steps;
    steps.reserve(withAllocFree ? p.instructions.size() : p.instructions.size() / 2);
    for (std::size_t i = 0; i < p.instructions.size(); ++i)
        if (withAllocFree || isWorkInstruction(p.instructions[i].kind))
            steps.push_back(std::uint32_t(i));
    return steps;
}

std::size_t nextPhaseStart(const Program& p, std::size_t i) {
    const std::size_t n = p.instructions.size();
    if (i >= n) return LiveSetIndex::npos;
    for (std::size_t j = i + 1; j < n; ++j)
        if (!samePhaseRun(p, i, j)) return j;
    return LiveSetIndex::npos;
}

std::size_t previousPhaseStart(const Program& p, std::size_t i) {
    const std::size_t n = p.instructions.size();
    if (i >= n || i == 0) return LiveSetIndex::npos;
    std::size_t start = i;  // the start of i's run
    while (start > 0 && samePhaseRun(p, start - 1, i)) --start;
    if (start < i) return start;
    if (start == 0) return LiveSetIndex::npos;
    std::size_t prev = start - 1;  // the last instruction of the run before
    while (prev > 0 && samePhaseRun(p, prev - 1, start - 1)) --prev;
    return prev;
}

std::vector<std::size_t> regionsContaining(const Plan& plan, std::uint32_t op) {
    std::vector<std::size_t> found;
    for (std::size_t r = 0; r < plan.regions.size(); ++r)
        if (plan.regions[r].contains(op)) found.push_back(r);
    // Regions nest or are disjoint: those holding one op are ordered by size, largest (the
    // outermost) first; a duplicate keeps the plan's order.
    std::stable_sort(found.begin(), found.end(), [&](std::size_t a, std::size_t b) {
        const Region& x = plan.regions[a];
        const Region& y = plan.regions[b];
        return x.lastOp - x.firstOp > y.lastOp - y.firstOp;
    });
    return found;
}

RecomputeContext recomputeContext(const Program& p, const std::vector<int>& layers,
                                  std::size_t index) {
    RecomputeContext c;
    if (index >= p.instructions.size()) return c;
    const Instruction& ins = p.instructions[index];
    if (ins.kind != InstrKind::Recompute || !ins.op.valid()) return c;
    const auto regions = regionsContaining(p.plan, ins.op.value);
    if (ins.regionDepth < 1 || std::size_t(ins.regionDepth) > regions.size()) return c;
    c.valid = true;
    c.depth = ins.regionDepth;
    c.region = regions[std::size_t(ins.regionDepth - 1)];
    const Region& r = p.plan.regions[c.region];
    auto layerOf = [&](std::uint32_t op) { return op < layers.size() ? layers[op] : -1; };
    c.regionFirstLayer = layerOf(r.firstOp);
    c.regionLastLayer = layerOf(r.lastOp);
    // The run: recompute instructions of this micro-step and depth, allocs and frees between
    // them skipped; any other work instruction ends it.
    auto inRun = [&](std::size_t j) {
        const Instruction& x = p.instructions[j];
        return x.kind == InstrKind::Recompute && x.regionDepth == ins.regionDepth &&
               x.microStep == ins.microStep && p.inRepeat(j) == p.inRepeat(index) && x.op.valid() &&
               r.contains(x.op.value);
    };
    c.runFirst = c.runLast = index;
    for (std::size_t j = index; j-- > 0;) {
        const InstrKind k = p.instructions[j].kind;
        if (!isWorkInstruction(k)) continue;
        if (!inRun(j)) break;
        c.runFirst = j;
    }
    for (std::size_t j = index + 1; j < p.instructions.size(); ++j) {
        const InstrKind k = p.instructions[j].kind;
        if (!isWorkInstruction(k)) continue;
        if (!inRun(j)) break;
        c.runLast = j;
    }
    c.runFirstLayer = layerOf(p.instructions[c.runFirst].op.value);
    c.runLastLayer = layerOf(p.instructions[c.runLast].op.value);
    return c;
}

}  // namespace remat
