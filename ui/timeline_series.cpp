#include "timeline_series.h"

#include <algorithm>
#include <cmath>

#include "step_through.h"

namespace remat::ui {
namespace {

bool isCompute(InstrKind k) {
    return k == InstrKind::Forward || k == InstrKind::Recompute || k == InstrKind::Backward;
}

}  // namespace

std::vector<int> instructionLayers(const Graph& g, const Program& p) {
    const std::size_t n = p.instructions.size();
    const std::vector<int> layerOfOp = opLayers(g);
    auto opLayer = [&](OpId op) {
        return op.valid() && op.index() < layerOfOp.size() ? layerOfOp[op.index()] : -1;
    };
    const std::vector<int> paramLayer = parameterLayers(g, layerOfOp);

    // One pass over the (large) instructions; the two fix-ups below read only these arrays.
    enum Role : std::uint8_t { Resident, Compute, Alloc, Free };
    std::vector<int> layers(n, -1);
    std::vector<Role> role(n, Resident);
    for (std::size_t i = 0; i < n; ++i) {
        const Instruction& ins = p.instructions[i];
        if (ins.phase == Phase::Setup || ins.phase == Phase::Teardown) continue;
        if (isCompute(ins.kind)) {
            role[i] = Compute;
            layers[i] = opLayer(ins.op);
        } else if (ins.kind == InstrKind::OptimizerStep) {
            role[i] = Compute;
            if (ins.parameter.valid() && ins.parameter.index() < paramLayer.size())
                layers[i] = paramLayer[ins.parameter.index()];
        } else {
            role[i] = ins.kind == InstrKind::Alloc ? Alloc : Free;
        }
    }
    // Allocs take the layer of the next compute instruction, frees that of the previous one.
    int next = -1;
    for (std::size_t i = n; i-- > 0;) {
        if (role[i] == Compute)
            next = layers[i];
        else if (role[i] == Alloc)
            layers[i] = next;
    }
    int previous = -1;
    for (std::size_t i = 0; i < n; ++i) {
        if (role[i] == Compute)
            previous = layers[i];
        else if (role[i] == Free)
            layers[i] = previous;
    }
    return layers;
}

std::vector<PhaseRun> phaseRuns(const Program& p) {
    std::vector<PhaseRun> runs;
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (!runs.empty() && runs.back().phase == ins.phase &&
            runs.back().microStep == ins.microStep && runs.back().times == p.timesRun(i)) {
            runs.back().span.last = i;
            continue;
        }
        runs.push_back(PhaseRun{ins.phase, ins.microStep, InstructionSpan{i, i}, p.timesRun(i)});
    }
    return runs;
}

std::vector<InstructionSpan> layerSpans(const std::vector<int>& layers, int layer) {
    std::vector<InstructionSpan> spans;
    if (layer < 0) return spans;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (layers[i] != layer) continue;
        if (!spans.empty() && spans.back().last + 1 == i)
            spans.back().last = i;
        else
            spans.push_back(InstructionSpan{i, i});
    }
    return spans;
}

XExtents XExtents::indices(std::size_t count) {
    XExtents x;
    x.m_count = count;
    return x;
}

XExtents XExtents::spans(std::vector<double> start, std::vector<double> end) {
    XExtents x;
    x.m_count = std::min(start.size(), end.size());
    const std::size_t blocks = (x.m_count + kDecimationBlock - 1) / kDecimationBlock;
    std::vector<double> lo(blocks), hi(blocks);
    for (std::size_t k = 0; k < blocks; ++k) {
        const std::size_t first = k * kDecimationBlock;
        const std::size_t last = std::min(x.m_count, first + kDecimationBlock);
        double a = start[first], b = start[first];
        for (std::size_t i = first + 1; i < last; ++i) {
            a = std::min(a, start[i]);
            b = std::max(b, start[i]);
        }
        lo[k] = a;
        hi[k] = b;
    }
    x.m_start = std::make_shared<const std::vector<double>>(std::move(start));
    x.m_end = std::make_shared<const std::vector<double>>(std::move(end));
    x.m_blockMin = std::make_shared<const std::vector<double>>(std::move(lo));
    x.m_blockMax = std::make_shared<const std::vector<double>>(std::move(hi));
    return x;
}

double XExtents::blockMinStart(std::size_t k) const {
    return m_blockMin ? (*m_blockMin)[k] : double(k * kDecimationBlock);
}

double XExtents::blockMaxStart(std::size_t k) const {
    return m_blockMax ? (*m_blockMax)[k] : double(k * kDecimationBlock + kDecimationBlock - 1);
}

XExtents XExtents::prefix(std::size_t count) const {
    XExtents x = *this;
    x.m_count = std::min(count, m_count);
    return x;
}

XExtents instructionExtents(const std::vector<double>& endS, const std::vector<double>& durationS,
                            XAxis axis) {
    const std::size_t n = endS.size();
    if (axis == XAxis::Instruction) return XExtents::indices(n);
    std::vector<double> start(n), end(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i >= durationS.size()) {
            start[i] = double(i);
            end[i] = double(i + 1);
        } else {
            end[i] = endS[i];
            start[i] = endS[i] - durationS[i];
        }
    }
    return XExtents::spans(std::move(start), std::move(end));
}

BlockExtremes blockExtremes(const std::vector<std::int64_t>& totals) {
    BlockExtremes e;
    const std::size_t n = totals.size();
    const std::size_t blocks = (n + kDecimationBlock - 1) / kDecimationBlock;
    e.maxAt.resize(blocks);
    e.minAt.resize(blocks);
    for (std::size_t k = 0; k < blocks; ++k) {
        const std::size_t first = k * kDecimationBlock;
        const std::size_t last = std::min(n, first + kDecimationBlock);
        std::size_t hi = first, lo = first;
        for (std::size_t i = first + 1; i < last; ++i) {
            if (totals[i] > totals[hi]) hi = i;
            if (totals[i] < totals[lo]) lo = i;
        }
        e.maxAt[k] = std::uint32_t(hi);
        e.minAt[k] = std::uint32_t(lo);
    }
    return e;
}

std::size_t instructionAt(const XExtents& x, double at) {
    if (x.size() == 0 || at < x.lower() || at > x.upper()) return static_cast<std::size_t>(-1);
    // The first instruction starting after `at` (starts are ascending).
    std::size_t lo = 0, hi = x.size();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (at < x.start(mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo == 0 ? 0 : lo - 1;
}

namespace {

// The first index in [0, n) whose value is not less than `v` (lower_bound) or greater than `v`
// (upper_bound), over an ascending sequence given by `at`.
template <typename At>
std::size_t lowerBound(std::size_t n, double v, At at) {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (at(mid) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
template <typename At>
std::size_t upperBound(std::size_t n, double v, At at) {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (v < at(mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

}  // namespace

std::vector<std::size_t> decimate(const XExtents& x, const std::vector<std::int64_t>& totals,
                                  double lower, double upper, int buckets, std::size_t keep,
                                  const BlockExtremes* extremes) {
    std::vector<std::size_t> out;
    const std::size_t n = std::min(x.size(), totals.size());
    if (n == 0) return out;
    // Block summaries apply only when they were made of these totals.
    const std::size_t blocks = (totals.size() + kDecimationBlock - 1) / kDecimationBlock;
    if (extremes && (extremes->maxAt.size() != blocks || extremes->minAt.size() != blocks))
        extremes = nullptr;
    // Visible: [first, last], widened by one on each side.
    std::size_t first = lowerBound(n, lower, [&](std::size_t i) { return x.end(i); });
    std::size_t last = upperBound(n, upper, [&](std::size_t i) { return x.start(i); });
    if (first > 0) --first;
    if (last >= n) last = n - 1;
    if (first > last) first = last;
    const std::size_t visible = last - first + 1;
    buckets = std::max(buckets, 1);
    if (visible <= 2 * std::size_t(buckets) || !(upper > lower)) {
        out.resize(visible);
        for (std::size_t i = 0; i < visible; ++i) out[i] = first + i;
    } else {
        out.reserve(2 * std::size_t(buckets) + 3);
        out.push_back(first);
        const double width = (upper - lower) / double(buckets);
        auto bucketOf = [&](double start) { return std::floor((start - lower) / width); };
        std::size_t i = first;
        while (i <= last) {
            const double b = bucketOf(x.start(i));
            std::size_t hi = i, lo = i;
            std::size_t j = i + 1;
            while (j <= last) {
                // A whole block in this bucket: every start in it lies between the block's
                // smallest and largest, which both fall in the bucket (floor is monotonic).
                if (extremes && j % kDecimationBlock == 0 && j + kDecimationBlock - 1 <= last) {
                    const std::size_t k = j / kDecimationBlock;
                    if (bucketOf(x.blockMinStart(k)) == b && bucketOf(x.blockMaxStart(k)) == b) {
                        if (totals[extremes->maxAt[k]] > totals[hi]) hi = extremes->maxAt[k];
                        if (totals[extremes->minAt[k]] < totals[lo]) lo = extremes->minAt[k];
                        j += kDecimationBlock;
                        continue;
                    }
                }
                if (bucketOf(x.start(j)) != b) break;
                if (totals[j] > totals[hi]) hi = j;
                if (totals[j] < totals[lo]) lo = j;
                ++j;
            }
            out.push_back(std::min(hi, lo));
            if (hi != lo) out.push_back(std::max(hi, lo));
            i = j;
        }
        out.push_back(last);
    }
    if (keep < n) out.push_back(keep);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

TimelineSeriesInputs timelineSeriesInputs(const Graph& g, const Program& p, const Timeline& t) {
    const std::size_t count =
        std::min({p.instructions.size(), t.live.size(), t.endS.size(), t.durationS.size()});
    TimelineSeriesInputs in;
    in.totals.resize(count);
    for (std::size_t i = 0; i < count; ++i) in.totals[i] = totalBytes(t.live[i]);
    in.layers = instructionLayers(g, p);
    in.phaseRuns = phaseRuns(p);
    in.timeAxis = instructionExtents(t.endS, t.durationS, XAxis::Time).prefix(count);
    for (std::size_t i = 0; i < count; ++i) {
        bool all = true;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            in.categoryUsed[c] = in.categoryUsed[c] || t.live[i][c] != 0;
            all = all && in.categoryUsed[c];
        }
        if (all) break;
    }
    in.extremes = blockExtremes(in.totals);
    return in;
}

}  // namespace remat::ui
