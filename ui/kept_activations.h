// Which layer holds the activation memory: the bytes kept for backward (saved tensors and
// checkpointed regions' inputs) at the moment the simulator measures `saved_activation_bytes`
// — just before the last micro-batch's first backward instruction — attributed to the op that
// produced each buffer. The layer stack's bytes column and bars read it, so they follow the
// plan: checkpointing a layer visibly shrinks its bar. Per-row sums add up to the timeline's
// savedActivationBytes exactly, because both walk the same program.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"
#include "program.h"

namespace remat::ui {

class KeptActivations {
public:
    KeptActivations() = default;
    KeptActivations(const Graph& g, const Program& p);

    // Bytes kept that ops in [firstOp, lastOp] produced.
    std::int64_t bytesInOps(std::uint32_t firstOp, std::uint32_t lastOp) const;
    // Bytes kept that no op produced: the network's inputs (images, token ids, targets).
    std::int64_t inputBytes() const { return m_inputBytes; }
    std::int64_t totalBytes() const;

private:
    std::vector<std::int64_t> m_prefix;  // m_prefix[i]: bytes produced by ops [0, i)
    std::int64_t m_inputBytes = 0;
};

}  // namespace remat::ui
