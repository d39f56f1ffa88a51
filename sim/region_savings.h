// What each checkpointed region of a plan saves on its own: the activation bytes its ops would
// keep for backward without the checkpoint, against the inputs the region keeps instead. A
// region around a single linear layer (which keeps only its input), an embedding or the loss
// saves nothing or little, which surprises students; the GUI's summary and `remat simulate`
// say why in one line ("a region keeps its input, which this layer saved anyway").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.h"
#include "plan.h"

namespace remat {

struct RegionSaving {
    std::string label;                // the region's label: "2", "0-2", "5/attention"
    std::int64_t keptWithoutBytes = 0;  // what its ops keep for backward without the checkpoint
    std::int64_t keptWithBytes = 0;     // the inputs it keeps instead
    std::int64_t savedBytes() const { return keptWithoutBytes - keptWithBytes; }
    bool savesNothing() const { return savedBytes() <= 0; }
    // Saves under 1% of `baselineKeptBytes`, the activations kept without checkpointing.
    bool savesLittle(std::int64_t baselineKeptBytes) const {
        return !savesNothing() && savedBytes() < baselineKeptBytes / 100;
    }
};

// Every region of the plan, each counted as if it were the only one, at `microBatch`.
std::vector<RegionSaving> regionSavings(const Graph& g, const Plan& plan, std::int64_t microBatch);

// One sentence per region that saves nothing, or under 1% of `baselineKeptBytes` (the
// activations kept for backward without checkpointing), with the reason; at most `limit`
// sentences, then one saying how many more there are.
std::vector<std::string> littleSavingNotes(const Graph& g, const Plan& plan,
                                           std::int64_t microBatch,
                                           std::int64_t baselineKeptBytes, std::size_t limit = 3);

}  // namespace remat
