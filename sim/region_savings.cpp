#include "region_savings.h"

#include <algorithm>

#include "report.h"

namespace remat {

namespace {

std::int64_t storageBytes(const Graph& g, std::vector<TensorId> storages, std::int64_t microBatch) {
    std::sort(storages.begin(), storages.end(),
              [](TensorId a, TensorId b) { return a.index() < b.index(); });
    storages.erase(std::unique(storages.begin(), storages.end()), storages.end());
    std::int64_t total = 0;
    for (TensorId s : storages) total = satAdd(total, g.tensor(s).bytes().at(microBatch));
    return total;
}

}  // namespace

std::vector<RegionSaving> regionSavings(const Graph& g, const Plan& plan,
                                        std::int64_t microBatch) {
    std::vector<RegionSaving> out;
    out.reserve(plan.regions.size());
    for (const Region& r : plan.regions) {
        if (r.lastOp >= g.ops.size() || r.firstOp > r.lastOp) continue;
        std::vector<TensorId> saved, inputs;
        for (std::uint32_t o = r.firstOp; o <= r.lastOp; ++o) {
            const Op& op = g.ops[o];
            for (TensorId t : op.saved) saved.push_back(g.storageOf(t));
            for (TensorId t : op.inputs) {
                const Tensor& tt = g.tensor(t);
                const bool outside = !tt.producer.valid() || !r.contains(tt.producer.index());
                if (outside && tt.kind != TensorKind::Parameter) inputs.push_back(g.storageOf(t));
            }
        }
        RegionSaving s;
        s.label = r.label;
        s.keptWithoutBytes = storageBytes(g, std::move(saved), microBatch);
        s.keptWithBytes = storageBytes(g, std::move(inputs), microBatch);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<std::string> littleSavingNotes(const Graph& g, const Plan& plan,
                                           std::int64_t microBatch,
                                           std::int64_t baselineKeptBytes, std::size_t limit) {
    std::vector<std::string> notes;
    std::size_t more = 0;
    for (const RegionSaving& s : regionSavings(g, plan, microBatch)) {
        if (!s.savesNothing() && !s.savesLittle(baselineKeptBytes)) continue;
        if (notes.size() >= limit) {
            ++more;
            continue;
        }
        if (s.savedBytes() < 0)
            notes.push_back("region '" + s.label + "' keeps more than it saves: its input (" +
                            formatBytes(s.keptWithBytes) + ") against the " +
                            formatBytes(s.keptWithoutBytes) +
                            " its layers keep for backward without it");
        else if (s.savesNothing())
            notes.push_back("region '" + s.label + "' saves nothing: a region keeps its input (" +
                            formatBytes(s.keptWithBytes) + "), which its layers saved anyway (" +
                            formatBytes(s.keptWithoutBytes) + " in all)");
        else
            notes.push_back("region '" + s.label + "' saves little: it keeps its input (" +
                            formatBytes(s.keptWithBytes) + ") instead of the " +
                            formatBytes(s.keptWithoutBytes) +
                            " its layers keep for backward, under 1% of the activations");
    }
    if (more > 0)
        notes.push_back("and " + std::to_string(more) + " more region" + (more == 1 ? "" : "s") +
                        " like these");
    return notes;
}

}  // namespace remat
