#include "plan_diff.h"

#include <algorithm>
#include <map>

#include "step_through.h"

namespace remat {
namespace {

struct Tally {
    Category category = Category::Transient;
    std::int64_t bytesEach = 0;
    int count = 0;
};

std::map<std::string, Tally> liveAtPeak(const Graph& g, const Program& p, const Timeline& t) {
    std::map<std::string, Tally> out;
    if (p.instructions.empty()) return out;
    const LiveSetIndex live(g, p);
    for (BufferId id : live.liveAfter(t.peakInstruction)) {
        const Buffer& b = p.buffer(id);
        Tally& tally = out[bufferLabel(g, b)];
        tally.category = b.category;
        tally.bytesEach = b.bytes.at(p.microBatch);
        ++tally.count;
    }
    return out;
}

void sortLargestFirst(std::vector<PeakTensor>& v) {
    std::sort(v.begin(), v.end(), [](const PeakTensor& x, const PeakTensor& y) {
        if (x.bytes != y.bytes) return x.bytes > y.bytes;
        return x.label < y.label;
    });
}

}  // namespace

std::vector<std::int64_t> resampleTotals(const Timeline& t, double endS, int buckets) {
    std::vector<std::int64_t> out(std::size_t(std::max(buckets, 0)), -1);
    if (buckets <= 0 || endS <= 0 || t.live.empty()) return out;
    const std::size_t n = std::min({t.live.size(), t.endS.size(), t.durationS.size()});
    auto bucketOf = [&](double s) {
        const double f = s / endS * buckets;
        return std::clamp(int(f), 0, buckets - 1);
    };
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t total = totalBytes(t.live[i]);
        const double end = t.endS[i], start = end - t.durationS[i];
        if (start >= endS) break;
        // An instruction ending exactly on a slice's edge does not reach into the next slice.
        int first = bucketOf(start), last = bucketOf(end);
        if (last > first && double(last) * endS / buckets >= end) --last;
        for (int k = first; k <= last; ++k)
            out[std::size_t(k)] = std::max(out[std::size_t(k)], total);
    }
    return out;
}

PeakDifference peakDifference(const Graph& g, const Program& a, const Timeline& ta,
                              const Program& b, const Timeline& tb) {
    PeakDifference d;
    d.peakA = ta.peakBytes;
    d.peakB = tb.peakBytes;
    const auto atA = liveAtPeak(g, a, ta);
    const auto atB = liveAtPeak(g, b, tb);
    auto onlyIn = [](const std::map<std::string, Tally>& x, const std::map<std::string, Tally>& y,
                     std::vector<PeakTensor>& out, std::int64_t* shared) {
        for (const auto& [label, tally] : x) {
            const auto it = y.find(label);
            const int other = it == y.end() ? 0 : it->second.count;
            const int extra = tally.count - other;
            if (shared) *shared += tally.bytesEach * std::min(tally.count, other);
            if (extra > 0) out.push_back({label, tally.category, tally.bytesEach * extra, extra});
        }
    };
    onlyIn(atA, atB, d.onlyA, &d.sharedBytes);
    onlyIn(atB, atA, d.onlyB, nullptr);
    sortLargestFirst(d.onlyA);
    sortLargestFirst(d.onlyB);
    return d;
}

}  // namespace remat
