#include "sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "analysis.h"
#include "checked.h"
#include "lower.h"
#include "network.h"
#include "parallel_eval.h"
#include "simulator.h"
#include "text.h"

namespace remat {

namespace {

bool isActivation(Category c) {
    return c == Category::SavedActivations || c == Category::RecomputedActivations;
}

// The highest live bytes of the activation buffers whose tensor an op in `inBlocks` made (all
// activation buffers when `inBlocks` is empty), walking the program's allocs and frees.
std::int64_t activationPeak(const Graph& g, const Program& p, const std::vector<bool>& inBlocks) {
    std::int64_t live = 0, peak = 0;
    for (const Instruction& ins : p.instructions) {
        if (ins.kind != InstrKind::Alloc && ins.kind != InstrKind::Free) continue;
        const Buffer& b = p.buffer(ins.buffer);
        if (!isActivation(b.category) || !b.tensor.valid()) continue;
        if (!inBlocks.empty()) {
            const OpId producer = g.tensor(b.tensor).producer;
            if (!producer.valid() || !inBlocks[producer.index()]) continue;
        }
        const std::int64_t bytes = b.bytes.at(p.microBatch);
        live = ins.kind == InstrKind::Alloc ? satAdd(live, bytes) : live - bytes;
        peak = std::max(peak, live);
    }
    return peak;
}

// The layer a depth sweep repeats: the one with the largest repeat count (the first of equals).
Result<std::size_t> repeatedLayer(const Network& net) {
    std::size_t best = net.layers.size();
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        if (net.layers[i].repeat > 1 &&
            (best == net.layers.size() || net.layers[i].repeat > net.layers[best].repeat))
            best = i;
    if (best == net.layers.size())
        return makeError(
            "the model has no repeated layer to sweep the depth of (a block with \"repeat\" "
            "of 2 or more)");
    return best;
}

// Ops of the swept blocks: the instances of the repeated layer when there is one, else the
// chain the strategies cut.
// `firstLayer`: the expanded layer instance the graph's first layer module is (a pipeline
// stage's graph holds the instances from there on).
std::vector<bool> blockOps(const Graph& g, const Network& net, std::size_t repeated,
                           std::int64_t firstLayer = 0) {
    std::vector<bool> in(g.ops.size(), false);
    auto mark = [&](ModuleId m) {
        const Module& mod = g.module(m);
        for (std::uint32_t o = mod.firstOp; o < mod.firstOp + mod.opCount; ++o) in[o] = true;
    };
    if (repeated < net.layers.size()) {
        const std::vector<std::size_t> sources = expandedLayerSources(net);
        for (std::size_t i = 0; i < g.layerModules.size(); ++i) {
            const std::size_t instance = std::size_t(firstLayer) + i;
            if (instance < sources.size() && sources[instance] == repeated)
                mark(g.layerModules[i]);
        }
    } else {
        for (ModuleId m : g.chain) mark(m);
    }
    return in;
}

std::string layerLabel(const Layer& l) {
    return l.name.empty() ? std::string(layerKindName(l.kind)) : l.name;
}

}  // namespace

Result<SweepAxis> parseSweepAxis(const std::string& text) {
    if (text == "depth") return SweepAxis::Depth;
    if (text == "seq" || text == "sequence-length") return SweepAxis::SequenceLength;
    if (text == "batch" || text == "micro-batch") return SweepAxis::MicroBatch;
    return makeError("unknown sweep axis '" + printable(text, 64) +
                     "': expected depth, seq (sequence length) or batch (micro-batch)");
}

std::string sweepAxisName(SweepAxis axis) {
    switch (axis) {
        case SweepAxis::Depth:
            return "depth";
        case SweepAxis::SequenceLength:
            return "seq";
        case SweepAxis::MicroBatch:
            return "batch";
    }
    return {};
}

std::vector<std::int64_t> defaultSweepValues(SweepAxis axis, const ModelFile& model,
                                             const TrainingConfig& training) {
    // Powers of two from `from` up to `to`, and `to` itself.
    auto doublings = [](std::int64_t from, std::int64_t to) {
        std::vector<std::int64_t> v;
        for (std::int64_t x = std::max<std::int64_t>(from, 1);
             x < to && v.size() + 1 < kMaxSweepValues; x *= 2)
            v.push_back(x);
        v.push_back(std::max<std::int64_t>(to, 1));
        return v;
    };
    switch (axis) {
        case SweepAxis::Depth:
            return {1, 2, 4, 8, 16, 32, 64};
        case SweepAxis::SequenceLength: {
            const std::int64_t tokens = model.network.input.tokens;
            return doublings(std::min<std::int64_t>(128, tokens), tokens);
        }
        case SweepAxis::MicroBatch:
            return doublings(1, std::max<std::int64_t>(satMul(training.microBatch, 4), 8));
    }
    return {};
}

Result<std::vector<std::int64_t>> parseSweepValues(const std::string& text) {
    auto number = [&](std::string_view s) -> Result<std::int64_t> {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 1)
            return makeError("sweep values: '" + printable(std::string(s), 64) +
                             "' is not a whole number of at least 1");
        return v;
    };
    std::vector<std::int64_t> values;
    const std::size_t dots = text.find("..");
    if (dots != std::string::npos) {
        // FROM..TO or FROM..TO:STEP
        const std::string_view all(text);
        const std::size_t colon = text.find(':', dots);
        auto from = number(all.substr(0, dots));
        if (!from) return from.error();
        auto to = number(all.substr(
            dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2));
        if (!to) return to.error();
        std::int64_t step = 1;
        if (colon != std::string::npos) {
            auto s = number(all.substr(colon + 1));
            if (!s) return s.error();
            step = *s;
        }
        if (*to < *from)
            return makeError("sweep values: the range " + printable(text, 64) + " is empty");
        if ((*to - *from) / step + 1 > std::int64_t(kMaxSweepValues))
            return makeError("sweep values: " + printable(text, 64) + " has more than " +
                             std::to_string(kMaxSweepValues) + " values; use a larger step");
        for (std::int64_t v = *from; v <= *to; v += step) values.push_back(v);
    } else {
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            auto v = number(std::string_view(text).substr(start, comma - start));
            if (!v) return v.error();
            values.push_back(*v);
            if (values.size() > kMaxSweepValues)
                return makeError("sweep values: more than " + std::to_string(kMaxSweepValues));
            start = comma + 1;
        }
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

Result<SweepResult> sweep(const ModelFile& model, const TrainingConfig& training,
                          const DeviceSpec& device, SweepAxis axis,
                          const std::vector<std::int64_t>& values,
                          const std::vector<Strategy>& strategies,
                          const std::function<bool(int, int)>& progress,
                          const ClusterSpec* cluster) {
    if (values.empty()) return makeError("no values to sweep");
    if (values.size() > kMaxSweepValues)
        return makeError("more than " + std::to_string(kMaxSweepValues) + " values to sweep");
    if (strategies.empty()) return makeError("no strategies to sweep");
    for (const Strategy& s : strategies)
        if (s.kind == StrategyKind::Manual)
            return makeError(
                "a manual plan names the layers of one depth and cannot be swept; sweep named "
                "strategies");
    const Network& net = model.network;
    std::size_t repeated = net.layers.size();
    if (axis == SweepAxis::Depth) {
        auto r = repeatedLayer(net);
        if (!r) return r.error();
        repeated = *r;
    } else if (auto r = repeatedLayer(net)) {
        repeated = *r;
    }
    if (axis == SweepAxis::SequenceLength && !net.input.isTokens())
        return makeError("a sequence-length sweep needs a token model (input \"tokens\")");

    // A layout with its cluster: every point per GPU.
    const bool parallel = cluster && !training.parallel.single();

    SweepResult result;
    result.axis = axis;
    result.values = values;
    if (repeated < net.layers.size()) result.sweptLayer = layerLabel(net.layers[repeated]);
    const int total = int(values.size() * strategies.size());
    int done = 0;
    for (std::int64_t value : values) {
        ModelFile m = model;
        TrainingConfig cfg = training;
        switch (axis) {
            case SweepAxis::Depth:
                m.network.layers[repeated].repeat = value;
                break;
            case SweepAxis::SequenceLength:
                m.network.input.tokens = value;
                break;
            case SweepAxis::MicroBatch:
                cfg.microBatch = value;
                break;
        }
        auto refuseAll = [&](const std::string& why) {
            for (const Strategy& s : strategies) {
                SweepPoint p;
                p.value = value;
                p.strategy = s.spelling();
                p.error = why;
                result.points.push_back(std::move(p));
            }
        };
        if (parallel) {
            if (expandedLayerCount(m.network) > kMaxLayerInstances) {
                refuseAll("more than " + std::to_string(kMaxLayerInstances) + " layer instances");
                done += int(strategies.size());
                if (progress && !progress(done, total)) return makeError("the sweep was cancelled");
                continue;
            }
            // Per GPU, the rank that peaks: each point is the layout evaluated whole, its
            // activations those of the peaking rank's program, its time the whole step's.
            for (const Strategy& s : strategies) {
                SweepPoint p;
                p.value = value;
                p.strategy = s.spelling();
                auto e = evaluateParallel(m.network, s, {}, cfg, *cluster, true);
                if (!e) {
                    p.error = e.error().message;
                } else {
                    const std::vector<bool> inBlocks = blockOps(
                        e->graph, m.network, repeated, e->stages[e->peakStage].firstLayer);
                    p.peakBytes = e->evaluation.timeline.peakBytes;
                    p.activationPeakBytes = activationPeak(e->graph, e->evaluation.program, {});
                    p.blockActivationPeakBytes =
                        activationPeak(e->graph, e->evaluation.program, inBlocks);
                    p.keptActivationBytes = e->evaluation.timeline.savedActivationBytes;
                    p.recomputeOverhead = e->evaluation.recomputeOverhead();
                    p.stepTimeS = e->time.totalS;
                    p.fits = e->fits;
                    p.unsafe = e->evaluation.program.unsafe();
                }
                result.points.push_back(std::move(p));
                ++done;
                if (progress && !progress(done, total)) return makeError("the sweep was cancelled");
            }
            continue;
        }
        Result<Graph> g =
            expandedLayerCount(m.network) > kMaxLayerInstances
                ? Result<Graph>(makeError("more than " + std::to_string(kMaxLayerInstances) +
                                          " layer instances"))
                : lower(m.network, cfg);
        Result<Baseline> base = g ? evaluateBaseline(*g, cfg, device) : Result<Baseline>(g.error());
        if (!base) {
            refuseAll(base.error().message);
            done += int(strategies.size());
            if (progress && !progress(done, total)) return makeError("the sweep was cancelled");
            continue;
        }
        const std::vector<bool> inBlocks = blockOps(*g, m.network, repeated);
        for (const Strategy& s : strategies) {
            SweepPoint p;
            p.value = value;
            p.strategy = s.spelling();
            auto e = evaluate(*g, s, {}, cfg, device, &*base);
            if (!e) {
                p.error = e.error().message;
            } else {
                p.peakBytes = e->timeline.peakBytes;
                p.activationPeakBytes = activationPeak(*g, e->program, {});
                p.blockActivationPeakBytes = activationPeak(*g, e->program, inBlocks);
                p.keptActivationBytes = e->timeline.savedActivationBytes;
                p.recomputeOverhead = e->recomputeOverhead();
                p.stepTimeS = e->timeline.timeS.total();
                p.fits = e->timeline.fits;
                p.unsafe = e->program.unsafe();
            }
            result.points.push_back(std::move(p));
            ++done;
            if (progress && !progress(done, total)) return makeError("the sweep was cancelled");
        }
    }
    for (const Strategy& s : strategies) {
        const std::string spelling = s.spelling();
        const SweepPoint* first = nullptr;
        const SweepPoint* last = nullptr;
        for (const SweepPoint& p : result.points) {
            if (p.strategy != spelling || !p.error.empty() || p.blockActivationPeakBytes <= 0)
                continue;
            if (!first) first = &p;
            last = &p;
        }
        if (!first || first == last) continue;
        result.growth.push_back(SweepGrowth{
            spelling, first->value, last->value, double(last->value) / double(first->value),
            double(last->blockActivationPeakBytes) / double(first->blockActivationPeakBytes)});
    }
    return result;
}

}  // namespace remat
