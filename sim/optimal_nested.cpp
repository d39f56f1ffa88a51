#include "optimal_nested.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "optimal_budget.h"

namespace remat {
namespace {

constexpr double kNoPlan = std::numeric_limits<double>::infinity();
constexpr std::int64_t kUnboundedBytes = std::numeric_limits<std::int64_t>::max() / 4;

// ---- exact evaluation of a nested plan -------------------------------------------------------

struct LevelCost {
    std::int64_t needBytes = kNoPeakBytes;  // peak of the level above what encloses it
    double timeS = 0.0;
};

class NestedEvaluator {
public:
    NestedEvaluator(const ChainModel& m, const std::vector<NestedRegion>& regions)
        : m_m(m), m_regions(regions) {}

    // Children of the range [first, last] (direct ones), from the sorted region list.
    std::vector<int> children(int parent) const {
        std::vector<int> out;
        const int first = parent < 0 ? 0 : m_regions[std::size_t(parent)].first;
        const int last = parent < 0 ? m_m.unitCount() - 1 : m_regions[std::size_t(parent)].last;
        int covered = first - 1;
        for (std::size_t r = 0; r < m_regions.size(); ++r) {
            if (int(r) == parent) continue;
            const NestedRegion& x = m_regions[r];
            if (x.first < first || x.last > last || x.first <= covered) continue;
            if (parent >= 0 && x.first == first && x.last == last) continue;
            out.push_back(int(r));
            covered = x.last;
        }
        return out;
    }

    // First forward of units [a, l] inside a region holding unit a's stream (or its left
    // keeping it): the largest local and absolute peaks.
    std::pair<std::int64_t, std::int64_t> firstForward(int a, int l) const {
        std::int64_t local = kNoPeakBytes, absolute = kNoPeakBytes;
        bool onHeld = true;
        for (int u = a; u <= l; ++u) {
            if (u > a) onHeld = onHeld && m_m.units()[std::size_t(u) - 1].passThrough;
            const UnitPass& p = m_m.units()[std::size_t(u)].first[(u == a || onHeld) ? 1 : 0];
            local = std::max(local, p.peakLocalBytes);
            absolute = std::max(absolute, p.peakBytes);
        }
        return {local, absolute};
    }

    bool passesThrough(int a, int l) const {
        const auto& units = m_m.units();
        if (!units[std::size_t(a)].stream.valid()) return false;
        for (int u = a; u <= l; ++u)
            if (!units[std::size_t(u)].passThrough) return false;
        return true;
    }

    LevelCost top() const {
        LevelCost out;
        const auto& units = m_m.units();
        const std::vector<int> kids = children(-1);
        std::size_t next = 0;
        std::int64_t kept = 0;
        bool streamKept = false;
        for (int u = 0; u < m_m.unitCount();) {
            if (next < kids.size() && m_regions[std::size_t(kids[next])].first == u) {
                const int r = kids[next++];
                const NestedRegion& x = m_regions[std::size_t(r)];
                const std::int64_t held = m_m.heldBytes(u, streamKept);
                const LevelCost inner = level(r);
                out.needBytes = std::max(
                    out.needBytes,
                    kept + held + std::max(firstForward(x.first, x.last).second, inner.needBytes));
                out.timeS += inner.timeS;
                kept += held;
                streamKept = passesThrough(x.first, x.last);
                u = x.last + 1;
            } else {
                const UnitPass& p = units[std::size_t(u)].kept[streamKept ? 1 : 0];
                out.needBytes = std::max(out.needBytes, kept + m_m.keptNeed(u, streamKept));
                kept += p.retainedBytes;
                streamKept = p.streamKept;
                ++u;
            }
        }
        return out;
    }

    // The recompute and backward of region r: its direct children stay checkpointed.
    LevelCost level(int r) const {
        const auto& units = m_m.units();
        const NestedRegion& self = m_regions[std::size_t(r)];
        const std::vector<int> kids = children(r);
        // PyTorch's early stop: the last op that saves, or that makes a later child's input.
        // The last saving unit runs truncated (up to its lastRecomputedOp).
        std::int64_t stop = std::int64_t(units[std::size_t(self.first)].firstOp) - 1;
        int stopUnit = -1;
        {
            std::size_t next = 0;
            for (int u = self.first; u <= self.last;) {
                if (next < kids.size() && m_regions[std::size_t(kids[next])].first == u) {
                    if (u > self.first) {
                        stop = std::max<std::int64_t>(stop, units[std::size_t(u) - 1].lastOp);
                        stopUnit = -1;
                    }
                    u = m_regions[std::size_t(kids[next++])].last + 1;
                } else {
                    if (units[std::size_t(u)].saves) {
                        stop = std::max<std::int64_t>(stop, units[std::size_t(u)].lastSavingOp);
                        stopUnit = u;
                    }
                    ++u;
                }
            }
        }
        const std::int64_t background = units[std::size_t(self.last)].recomputeBackgroundBytes;
        LevelCost out;
        std::int64_t kept = 0;
        bool streamKept = true;
        std::size_t next = 0;
        for (int u = self.first; u <= self.last;) {
            if (next < kids.size() && m_regions[std::size_t(kids[next])].first == u) {
                const int c = kids[next++];
                const NestedRegion& x = m_regions[std::size_t(c)];
                const std::int64_t held = m_m.heldBytes(u, streamKept);
                if (std::int64_t(units[std::size_t(x.last)].lastOp) <= stop) {
                    out.needBytes =
                        std::max(out.needBytes,
                                 kept + held + firstForward(x.first, x.last).first + background);
                    for (int v = x.first; v <= x.last; ++v)
                        out.timeS += units[std::size_t(v)].recomputeTimeS;
                }
                const LevelCost inner = level(c);
                out.needBytes = std::max(out.needBytes, kept + held + inner.needBytes);
                out.timeS += inner.timeS;
                kept += held;
                streamKept = passesThrough(x.first, x.last);
                u = x.last + 1;
                continue;
            }
            const ChainUnit& unit = units[std::size_t(u)];
            const int k = streamKept ? 1 : 0;
            if (std::int64_t(unit.lastOp) <= stop && u != stopUnit) {
                const UnitPass& p = unit.kept[k];
                out.needBytes = std::max({out.needBytes, kept + p.peakLocalBytes + background,
                                          kept + p.backwardPeakBytes});
                out.timeS += unit.recomputeTimeS;
                kept += p.retainedBytes;
                streamKept = p.streamKept;
            } else if (std::int64_t(unit.firstOp) <= stop) {
                const UnitPass& p = unit.truncated[k];
                out.needBytes = std::max({out.needBytes, kept + p.peakLocalBytes + background,
                                          kept + p.backwardPeakBytes});
                out.timeS += unit.truncatedRecomputeTimeS;
                kept += p.retainedBytes;
                streamKept = p.streamKept;
            } else {
                out.needBytes = std::max(out.needBytes, kept + unit.bareBackwardPeakBytes);
            }
            ++u;
        }
        return out;
    }

private:
    const ChainModel& m_m;
    const std::vector<NestedRegion>& m_regions;
};

// ---- the dynamic program ---------------------------------------------------------------------

class NestedSolver {
public:
    NestedSolver(const ChainModel& m, std::int64_t budget, int slots)
        : m_m(m), m_n(m.unitCount()), m_budget(budget) {
        m_base = m.constantBytes();
        const std::int64_t span = std::max<std::int64_t>(0, budget - m_base);
        m_slotBytes = std::max<std::int64_t>(1, (span + slots - 1) / std::max(1, slots));
        m_top = int(span / m_slotBytes);
        m_width = std::size_t(m_top) + 1;
        precompute();
    }

    std::optional<NestedPlan> solve() {
        if (m_m.floorBytes() > m_budget) return std::nullopt;
        fillLevels();
        fillTop();
        if (m_topValue[index2(0, 0)][std::size_t(m_top)] >= kNoPlan) return std::nullopt;
        NestedPlan plan;
        rebuildTop(0, false, m_top, plan.regions);
        return plan;
    }

private:
    std::size_t tri(int a, int j) const {
        return std::size_t(j) * std::size_t(j + 1) / 2 + std::size_t(a);
    }
    std::size_t index2(int a, int k) const { return 2 * std::size_t(a) + std::size_t(k); }
    std::size_t levelIndex(int a, int k, int j) const { return 2 * tri(a, j) + std::size_t(k); }

    int slotsNeed(std::int64_t bytes) const {
        if (bytes <= m_base) return 0;
        const std::int64_t s = (bytes - m_base + m_slotBytes - 1) / m_slotBytes;
        return s > m_top ? m_top + 1 : int(s);
    }
    int slotsKept(std::int64_t bytes) const {
        const std::int64_t s = (bytes + m_slotBytes - 1) / m_slotBytes;
        return s > m_top ? m_top + 1 : int(s);
    }

    void precompute() {
        const auto& units = m_m.units();
        m_firstLocal.assign(std::size_t(m_n), {});
        m_firstAbs.assign(std::size_t(m_n), {});
        m_passAll.assign(std::size_t(m_n), {});
        m_timePrefix.assign(std::size_t(m_n) + 1, 0.0);
        for (int u = 0; u < m_n; ++u)
            m_timePrefix[std::size_t(u) + 1] =
                m_timePrefix[std::size_t(u)] + units[std::size_t(u)].recomputeTimeS;
        for (int a = 0; a < m_n; ++a) {
            if (!m_m.canStartRegion(a)) continue;
            std::int64_t local = kNoPeakBytes, absolute = kNoPeakBytes;
            bool onHeld = true;
            for (int l = a; l < m_n && m_m.regionMember(l); ++l) {
                if (l > a) onHeld = onHeld && units[std::size_t(l) - 1].passThrough;
                const UnitPass& p = units[std::size_t(l)].first[(l == a || onHeld) ? 1 : 0];
                local = std::max(local, p.peakLocalBytes);
                absolute = std::max(absolute, p.peakBytes);
                m_firstLocal[std::size_t(a)].push_back(local);
                m_firstAbs[std::size_t(a)].push_back(absolute);
                m_passAll[std::size_t(a)].push_back(onHeld && units[std::size_t(l)].passThrough &&
                                                    units[std::size_t(a)].stream.valid());
            }
        }
        m_firstSaving.assign(std::size_t(m_n) + 1, m_n);
        for (int u = m_n - 1; u >= 0; --u)
            m_firstSaving[std::size_t(u)] =
                units[std::size_t(u)].saves ? u : m_firstSaving[std::size_t(u) + 1];
    }

    // A child region [a, l] may be chosen: starts and ends at chain elements, saves something.
    bool childAllowed(int a, int l) const {
        return m_m.canStartRegion(a) && std::size_t(l - a) < m_firstLocal[std::size_t(a)].size() &&
               m_m.canEndRegion(l) && m_firstSaving[std::size_t(a)] <= l;
    }

    // One option's value at every free-slot count m, folded into best/choice.
    template <typename F>
    static void relax(std::vector<double>& best, std::vector<std::int16_t>& choice, int from,
                      std::int16_t tag, F value) {
        for (std::size_t m = std::size_t(std::max(0, from)); m < best.size(); ++m) {
            const double v = value(m);
            if (v < best[m]) {
                best[m] = v;
                choice[m] = tag;
            }
        }
    }

    void fillLevels() {
        const auto& units = m_m.units();
        m_level.assign(2 * tri(0, m_n), {});
        m_levelChoice.assign(2 * tri(0, m_n), {});
        m_bareTail.assign(std::size_t(m_n) + 1, kNoPeakBytes);
        for (int j = 0; j < m_n; ++j) {
            if (!m_m.canEndRegion(j)) continue;
            const std::int64_t background = units[std::size_t(j)].recomputeBackgroundBytes;
            // bareTail[u]: largest bare backward over units u..j.
            m_bareTail[std::size_t(j) + 1] = kNoPeakBytes;
            for (int u = j; u >= 0; --u)
                m_bareTail[std::size_t(u)] = std::max(m_bareTail[std::size_t(u) + 1],
                                                      units[std::size_t(u)].bareBackwardPeakBytes);
            int lastSaving = -1;
            for (int a = j; a >= 0 && m_m.regionMember(a); --a) {
                if (lastSaving < 0 && units[std::size_t(a)].saves) lastSaving = a;
                for (int k = 1; k >= 0; --k) fillLevel(a, k == 1, j, lastSaving, background);
            }
        }
    }

    void fillLevel(int a, bool streamKept, int j, int s, std::int64_t background) {
        const auto& units = m_m.units();
        const ChainUnit& unit = units[std::size_t(a)];
        const int k = streamKept ? 1 : 0;
        auto& best = m_level[levelIndex(a, k, j)];
        auto& choice = m_levelChoice[levelIndex(a, k, j)];
        best.assign(m_width, kNoPlan);
        choice.assign(m_width, -2);
        if (s < 0) {  // nothing saves: nothing runs, backward only
            relax(best, choice, slotsNeed(m_bareTail[std::size_t(a)]), -1,
                  [](std::size_t) { return 0.0; });
            return;
        }
        // Kept unit a.
        if (a < s) {
            const UnitPass& p = unit.kept[k];
            const int need =
                slotsNeed(std::max(p.peakLocalBytes + background, p.backwardPeakBytes));
            const int keep = slotsKept(p.retainedBytes);
            const auto& rest = m_level[levelIndex(a + 1, p.streamKept ? 1 : 0, j)];
            const double t = unit.recomputeTimeS;
            relax(best, choice, std::max(need, keep), -1,
                  [&](std::size_t m) { return t + rest[m - std::size_t(keep)]; });
        } else {
            const UnitPass& p = unit.truncated[k];
            const std::int64_t tail =
                a < j ? p.retainedBytes + m_bareTail[std::size_t(a) + 1] : kNoPeakBytes;
            const int need =
                slotsNeed(std::max({p.peakLocalBytes + background, p.backwardPeakBytes, tail}));
            const double t = unit.truncatedRecomputeTimeS;
            relax(best, choice, need, -1, [&](std::size_t) { return t; });
        }
        // Child region [a, l].
        const std::int64_t held = m_m.heldBytes(a, streamKept);
        const int h = slotsKept(held);
        for (int l = a; l <= j; ++l) {
            if (!childAllowed(a, l) || (l == j && streamKept)) continue;
            const auto& inner = m_level[levelIndex(a, 1, l)];
            const bool after = m_passAll[std::size_t(a)][std::size_t(l - a)];
            if (l < s) {
                const int need =
                    slotsNeed(held + m_firstLocal[std::size_t(a)][std::size_t(l - a)] + background);
                const auto& rest = m_level[levelIndex(l + 1, after ? 1 : 0, j)];
                const double t = m_timePrefix[std::size_t(l) + 1] - m_timePrefix[std::size_t(a)];
                relax(best, choice, std::max(need, h), std::int16_t(l), [&](std::size_t m) {
                    return t + rest[m - std::size_t(h)] + inner[m - std::size_t(h)];
                });
            } else {
                const int need = l < j ? slotsNeed(held + m_bareTail[std::size_t(l) + 1]) : 0;
                relax(best, choice, std::max(need, h), std::int16_t(l),
                      [&](std::size_t m) { return inner[m - std::size_t(h)]; });
            }
        }
    }

    void fillTop() {
        const auto& units = m_m.units();
        m_topValue.assign(2 * std::size_t(m_n + 1), {});
        m_topChoice.assign(2 * std::size_t(m_n + 1), {});
        for (int k = 0; k < 2; ++k) m_topValue[index2(m_n, k)].assign(m_width, 0.0);
        for (int a = m_n - 1; a >= 0; --a)
            for (int k = 0; k < 2; ++k) {
                auto& best = m_topValue[index2(a, k)];
                auto& choice = m_topChoice[index2(a, k)];
                best.assign(m_width, kNoPlan);
                choice.assign(m_width, -2);
                const UnitPass& p = units[std::size_t(a)].kept[k];
                const int need = slotsNeed(m_m.keptNeed(a, k == 1));
                const int keep = slotsKept(p.retainedBytes);
                const auto& rest = m_topValue[index2(a + 1, p.streamKept ? 1 : 0)];
                relax(best, choice, std::max(need, keep), -1,
                      [&](std::size_t m) { return rest[m - std::size_t(keep)]; });
                if (!m_m.canStartRegion(a)) continue;
                const std::int64_t held = m_m.heldBytes(a, k == 1);
                const int h = slotsKept(held);
                for (int l = a; l < m_n; ++l) {
                    if (std::size_t(l - a) >= m_firstAbs[std::size_t(a)].size()) break;
                    if (!childAllowed(a, l)) continue;
                    const int need2 =
                        slotsNeed(held + m_firstAbs[std::size_t(a)][std::size_t(l - a)]);
                    const bool after = m_passAll[std::size_t(a)][std::size_t(l - a)];
                    const auto& rest2 = m_topValue[index2(l + 1, after ? 1 : 0)];
                    const auto& inner = m_level[levelIndex(a, 1, l)];
                    relax(best, choice, std::max(need2, h), std::int16_t(l), [&](std::size_t m) {
                        return rest2[m - std::size_t(h)] + inner[m - std::size_t(h)];
                    });
                }
            }
    }

    void rebuildTop(int a, bool streamKept, int m, std::vector<NestedRegion>& out) const {
        while (a < m_n) {
            const int k = streamKept ? 1 : 0;
            const std::int16_t c = m_topChoice[index2(a, k)][std::size_t(m)];
            if (c == -1) {
                const UnitPass& p = m_m.units()[std::size_t(a)].kept[k];
                m -= slotsKept(p.retainedBytes);
                streamKept = p.streamKept;
                ++a;
                continue;
            }
            const int l = c;
            const int h = slotsKept(m_m.heldBytes(a, streamKept));
            out.push_back(NestedRegion{a, l});
            rebuildLevel(a, true, l, m - h, out);
            streamKept = m_passAll[std::size_t(a)][std::size_t(l - a)];
            m -= h;
            a = l + 1;
        }
    }

    void rebuildLevel(int a, bool streamKept, int j, int m, std::vector<NestedRegion>& out) const {
        const auto& units = m_m.units();
        // Nothing left that saves: a passive tail, backward only.
        while (a <= j && m_firstSaving[std::size_t(a)] <= j) {
            const int k = streamKept ? 1 : 0;
            const std::int16_t c = m_levelChoice[levelIndex(a, k, j)][std::size_t(m)];
            if (c == -1) {
                // The last saving unit runs truncated and ends the level's active part.
                if (units[std::size_t(a)].saves && m_firstSaving[std::size_t(a) + 1] > j) return;
                const UnitPass& p = units[std::size_t(a)].kept[k];
                m -= slotsKept(p.retainedBytes);
                streamKept = p.streamKept;
                ++a;
                continue;
            }
            const int l = c;
            const int h = slotsKept(m_m.heldBytes(a, streamKept));
            out.push_back(NestedRegion{a, l});
            rebuildLevel(a, true, l, m - h, out);
            streamKept = m_passAll[std::size_t(a)][std::size_t(l - a)];
            m -= h;
            a = l + 1;
        }
    }

    const ChainModel& m_m;
    const int m_n;
    const std::int64_t m_budget;
    std::int64_t m_base = 0, m_slotBytes = 1;
    int m_top = 0;
    std::size_t m_width = 1;
    std::vector<std::vector<std::int64_t>> m_firstLocal, m_firstAbs;
    std::vector<std::vector<bool>> m_passAll;
    std::vector<double> m_timePrefix;
    std::vector<int> m_firstSaving;
    std::vector<std::int64_t> m_bareTail;
    std::vector<std::vector<double>> m_level, m_topValue;
    std::vector<std::vector<std::int16_t>> m_levelChoice, m_topChoice;
};

}  // namespace

Result<NestedPlan> evaluateNested(const ChainModel& model, std::vector<NestedRegion> regions) {
    std::sort(regions.begin(), regions.end(), [](const NestedRegion& a, const NestedRegion& b) {
        return a.first != b.first ? a.first < b.first : a.last > b.last;
    });
    regions.erase(std::unique(regions.begin(), regions.end()), regions.end());
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const NestedRegion& r = regions[i];
        if (r.first < 0 || r.last >= model.unitCount() || r.first > r.last ||
            !model.canStartRegion(r.first) || !model.canEndRegion(r.last))
            return makeError("region over units " + std::to_string(r.first) + "-" +
                             std::to_string(r.last) +
                             " does not start and end at chain elements "
                             "that can be checkpointed");
        for (int u = r.first; u <= r.last; ++u)
            if (!model.regionMember(u)) return makeError("a region covers a fixed unit");
        for (std::size_t k = 0; k < i; ++k)
            if (r.first <= regions[k].last && r.last > regions[k].last)
                return makeError("regions overlap partially");
    }
    NestedEvaluator ev(model, regions);
    const LevelCost top = ev.top();
    NestedPlan out;
    out.regions = std::move(regions);
    out.predictedPeakBytes = std::max(model.floorBytes(), top.needBytes);
    out.recomputeTimeS = top.timeS;
    return out;
}

Plan nestedToPlan(const ChainModel& model, const std::vector<NestedRegion>& regions,
                  const std::string& strategy) {
    Plan plan;
    plan.strategy = strategy;
    for (const NestedRegion& r : regions) {
        const ChainUnit& a = model.units()[std::size_t(r.first)];
        const ChainUnit& b = model.units()[std::size_t(r.last)];
        plan.regions.push_back(Region{a.firstOp, b.lastOp,
                                      r.first == r.last ? a.label : a.label + "-" + b.label, true});
    }
    std::sort(plan.regions.begin(), plan.regions.end(), [](const Region& a, const Region& b) {
        return a.firstOp != b.firstOp ? a.firstOp < b.firstOp : a.lastOp > b.lastOp;
    });
    return plan;
}

std::optional<NestedPlan> solveNested(const ChainModel& model, std::int64_t budgetBytes,
                                      int slots) {
    NestedSolver solver(model, budgetBytes, slots);
    auto plan = solver.solve();
    if (!plan) return std::nullopt;
    auto exact = evaluateNested(model, plan->regions);
    if (!exact) return std::nullopt;
    return *exact;
}

Result<VerifiedPlan> planOptimalNested(const Graph& g, const TrainingConfig& cfg,
                                       const DeviceSpec& device, std::int64_t budgetBytes,
                                       int slots, const CancelFlag* cancel) {
    if (slots < 1 || slots > 100000)
        return makeError("optimal-nested: memory slots must be between 1 and 100000");
    const std::string spelling = "optimal-nested:" + byteSizeSpelling(budgetBytes);
    auto model = ChainModel::build(g, cfg, device);
    if (!model) return model.error();
    if (!model->nestedLimitation().empty())
        return makeError("optimal-nested: " + model->nestedLimitation());
    if (auto st = checkSingleLevelSearch(*model, "optimal-nested"); !st) return st.error();
    if (auto st = checkNestedSearch(*model, slots); !st) return st.error();
    const double tableBytes = double(model->unitCount()) * double(model->unitCount() + 1) *
                              double(slots + 1) * (sizeof(double) + sizeof(std::int16_t));
    if (tableBytes > double(std::int64_t{4} << 30))
        return makeError("optimal-nested: " + std::to_string(model->unitCount()) +
                         " chain units at " + std::to_string(slots) +
                         " memory slots need more than 4 GiB of tables; use fewer slots");
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    OptimalPlanner single(*model);
    single.setCancel(cancel);
    auto flat = single.solve(budgetBytes);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    if (single.lastSearchTooLarge())
        return makeError(searchTooLargeMessage("optimal-nested", single.lastMergeSteps(),
                                               kMaxOptimalMergeSteps, single.lastStopUnit(),
                                               model->unitCount()));
    auto nested = solveNested(*model, budgetBytes, slots);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    if (!flat && !nested) {
        const Plan best = model->toPlan(single.minimumPeak().segments, spelling);
        return makeError(explainInfeasible(g, best, cfg, device, budgetBytes, true));
    }
    if (nested && (!flat || nested->recomputeTimeS < flat->recomputeTimeS))
        return verifyPlan(g, nestedToPlan(*model, nested->regions, spelling), cfg, device,
                          budgetBytes, nested->predictedPeakBytes, "optimal-nested", cancel);
    return verifyPlan(g, model->toPlan(flat->segments, spelling), cfg, device, budgetBytes,
                      flat->predictedPeakBytes, "optimal-nested", cancel);
}

}  // namespace remat
