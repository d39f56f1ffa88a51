#include "kept_activations.h"

#include <algorithm>

namespace remat::ui {

KeptActivations::KeptActivations(const Graph& g, const Program& p) {
    std::vector<std::int64_t> perOp(g.ops.size(), 0);
    const auto lastStep = static_cast<std::uint32_t>(p.accumulationSteps - 1);
    std::vector<bool> live(p.buffers.size(), false);
    for (const Instruction& ins : p.instructions) {
        if (ins.kind == InstrKind::Backward && ins.microStep == lastStep) break;
        if (ins.kind == InstrKind::Alloc) live[ins.buffer.index()] = true;
        if (ins.kind == InstrKind::Free) live[ins.buffer.index()] = false;
    }
    for (std::size_t b = 0; b < p.buffers.size(); ++b) {
        if (!live[b]) continue;
        const Buffer& buf = p.buffers[b];
        // The same roles the simulator counts as saved activations.
        if (buf.role != BufferRole::Activation && buf.role != BufferRole::Input) continue;
        const std::int64_t bytes = buf.bytes.at(p.microBatch);
        const OpId producer = buf.tensor.valid() ? g.tensor(buf.tensor).producer : OpId::invalid();
        if (producer.valid())
            perOp[producer.index()] += bytes;
        else
            m_inputBytes += bytes;
    }
    m_prefix.assign(perOp.size() + 1, 0);
    for (std::size_t i = 0; i < perOp.size(); ++i) m_prefix[i + 1] = m_prefix[i] + perOp[i];
}

std::int64_t KeptActivations::bytesInOps(std::uint32_t firstOp, std::uint32_t lastOp) const {
    if (m_prefix.empty() || firstOp > lastOp) return 0;
    const std::size_t hi = std::min<std::size_t>(std::size_t(lastOp) + 1, m_prefix.size() - 1);
    const std::size_t lo = std::min<std::size_t>(firstOp, hi);
    return m_prefix[hi] - m_prefix[lo];
}

std::int64_t KeptActivations::totalBytes() const {
    return (m_prefix.empty() ? 0 : m_prefix.back()) + m_inputBytes;
}

}  // namespace remat::ui
