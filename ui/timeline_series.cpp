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

XExtents instructionExtents(const std::vector<double>& endS, const std::vector<double>& durationS,
                            XAxis axis) {
    XExtents x;
    const std::size_t n = endS.size();
    x.start.resize(n);
    x.end.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (axis == XAxis::Instruction || i >= durationS.size()) {
            x.start[i] = double(i);
            x.end[i] = double(i + 1);
        } else {
            x.end[i] = endS[i];
            x.start[i] = endS[i] - durationS[i];
        }
    }
    return x;
}

std::size_t instructionAt(const XExtents& x, double at) {
    if (x.start.empty() || at < x.lower() || at > x.upper()) return static_cast<std::size_t>(-1);
    auto it = std::upper_bound(x.start.begin(), x.start.end(), at);
    if (it == x.start.begin()) return 0;
    return std::size_t(it - x.start.begin()) - 1;
}

std::vector<std::size_t> decimate(const XExtents& x, const std::vector<std::int64_t>& totals,
                                  double lower, double upper, int buckets, std::size_t keep) {
    std::vector<std::size_t> out;
    const std::size_t n = std::min(x.size(), totals.size());
    if (n == 0) return out;
    // Visible: [first, last], widened by one on each side.
    std::size_t first =
        std::size_t(std::lower_bound(x.end.begin(), x.end.begin() + n, lower) - x.end.begin());
    std::size_t last = std::size_t(std::upper_bound(x.start.begin(), x.start.begin() + n, upper) -
                                   x.start.begin());
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
        std::size_t i = first;
        while (i <= last) {
            const double b = std::floor((x.start[i] - lower) / width);
            std::size_t hi = i, lo = i;
            std::size_t j = i + 1;
            for (; j <= last && std::floor((x.start[j] - lower) / width) == b; ++j) {
                if (totals[j] > totals[hi]) hi = j;
                if (totals[j] < totals[lo]) lo = j;
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
    return in;
}

}  // namespace remat::ui
