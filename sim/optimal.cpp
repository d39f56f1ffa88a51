#include "optimal.h"

#include <algorithm>
#include <limits>

#include "analysis.h"
#include "compiler.h"
#include "optimal_budget.h"
#include "report.h"

namespace remat {
namespace {

constexpr std::int64_t kInfiniteBytes = std::numeric_limits<std::int64_t>::max() / 4;

// How a state was reached: the segment that led to it (for the walk back).
struct Step {
    int prevIndex;    // in the Pareto set at (first, prevKept)
    int first, last;  // the segment's units; last < 0 for the start state
    bool prevKept;    // stream flag at the segment's start
    bool region;
};

// The Pareto set of one boundary: ascending kept bytes, strictly descending time. Stored by
// column, so that the merge's searches, which read only times, touch a quarter of the memory.
struct Front {
    std::vector<std::int64_t> bytes;
    std::vector<double> times;
    std::vector<Step> steps;

    std::size_t size() const { return times.size(); }
    bool empty() const { return times.empty(); }
    void push(std::int64_t b, double t, const Step& s) {
        bytes.push_back(b);
        times.push_back(t);
        steps.push_back(s);
    }
    void move(std::size_t from, std::size_t to) {
        bytes[to] = bytes[from];
        times[to] = times[from];
        steps[to] = steps[from];
    }
    void resize(std::size_t n) {
        bytes.resize(n);
        times.resize(n);
        steps.resize(n);
    }
};

}  // namespace

OptimalPlanner::OptimalPlanner(const ChainModel& model) : m_model(model) {
    const int n = model.unitCount();
    m_regions.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) {
        if (!model.canStartRegion(i)) continue;
        RegionScan scan(model, i);
        while (scan.extend()) m_regions[std::size_t(i)].push_back(scan.current());
    }
    // Smallest peak (above what earlier units keep) any plan of the units from b on reaches.
    m_suffixNeed.assign(2 * std::size_t(n + 1), kNoPeakBytes);
    std::vector<Transition> ts;
    std::vector<std::pair<int, bool>> choice(2 * std::size_t(n + 1), {-1, false});
    for (int b = n - 1; b >= 0; --b)
        for (int k = 0; k < 2; ++k) {
            transitions(b, k == 1, ts);
            std::int64_t best = kInfiniteBytes;
            for (const Transition& t : ts) {
                const std::int64_t rest =
                    m_suffixNeed[2 * std::size_t(t.last + 1) + (t.streamKeptAfter ? 1 : 0)];
                const std::int64_t v = std::max(t.needBytes, t.keptBytes + rest);
                if (v < best) {
                    best = v;
                    choice[2 * std::size_t(b) + std::size_t(k)] = {t.last, t.region};
                }
            }
            m_suffixNeed[2 * std::size_t(b) + std::size_t(k)] = best;
        }
    // No checkpointing: the answer for every budget it fits.
    for (int u = 0; u < n; ++u) m_allKept.segments.push_back(UnitSegment{u, u, false});
    m_allKept.predictedPeakBytes = model.predict(m_allKept.segments)->peakBytes;
    // The plan reaching the smallest peak, by following the choices.
    m_minimum.predictedPeakBytes = std::max(model.floorBytes(), m_suffixNeed[0]);
    bool kept = false;
    for (int b = 0; b < n;) {
        auto [last, region] = choice[2 * std::size_t(b) + (kept ? 1 : 0)];
        m_minimum.segments.push_back(UnitSegment{b, last, region});
        if (region) {
            const RegionCost& rc = m_regions[std::size_t(b)][std::size_t(last - b)];
            kept = rc.streamKeptAfter;
            m_minimum.recomputeTimeS += rc.recomputeTimeS;
        } else {
            kept = model.units()[std::size_t(b)].kept[kept ? 1 : 0].streamKept;
        }
        b = last + 1;
    }
}

void OptimalPlanner::transitions(int b, bool kept, std::vector<Transition>& out) const {
    out.clear();
    const ChainUnit& unit = m_model.units()[std::size_t(b)];
    const UnitPass& p = unit.kept[kept ? 1 : 0];
    out.push_back(
        Transition{m_model.keptNeed(b, kept), p.retainedBytes, 0.0, b, false, p.streamKept});
    const std::int64_t held = m_model.heldBytes(b, kept);
    const auto& regions = m_regions[std::size_t(b)];
    for (std::size_t k = 0; k < regions.size(); ++k) {
        const RegionCost& rc = regions[k];
        if (!rc.valid) continue;
        out.push_back(Transition{held + rc.coreNeedBytes, held, rc.recomputeTimeS, b + int(k), true,
                                 rc.streamKeptAfter});
    }
}

namespace {

// row[i] = min(row[i], add + next[i]) for i < count, four at a time so that the compiler can use
// vector instructions at -O2.
void relaxShifted(double* __restrict row, const double* __restrict next, std::size_t count,
                  double add) {
    std::size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        const double a0 = add + next[i], a1 = add + next[i + 1], a2 = add + next[i + 2],
                     a3 = add + next[i + 3];
        row[i] = a0 < row[i] ? a0 : row[i];
        row[i + 1] = a1 < row[i + 1] ? a1 : row[i + 1];
        row[i + 2] = a2 < row[i + 2] ? a2 : row[i + 2];
        row[i + 3] = a3 < row[i + 3] ? a3 : row[i + 3];
    }
    for (; i < count; ++i) row[i] = std::min(row[i], add + next[i]);
}

}  // namespace

double OptimalPlanner::TimeBound::at(std::size_t set, std::int64_t remainingBytes) const {
    if (remainingBytes < 0) return std::numeric_limits<double>::infinity();
    const std::int64_t cell = std::min(cells - 1, remainingBytes / cellBytes);
    return minTimeS[set * std::size_t(cells) + std::size_t(cell)];
}

const OptimalPlanner::TimeBound& OptimalPlanner::timeBound() const {
    std::call_once(m_timeBoundOnce, [this] {
        // Cells cover every budget solve() plans for: below the no-checkpoint peak. Cell c
        // stands for the largest remaining budget in it, (c + 1) * cellBytes - 1; a segment that
        // keeps q * cellBytes + r bytes (r < cellBytes) leaves the rest exactly cell c - q's
        // largest budget minus r, which that cell's value bounds from below.
        const int n = m_model.unitCount();
        auto tb = std::make_unique<TimeBound>();
        tb->cells = std::clamp<std::int64_t>(TimeBound::kMaxEntries / (2 * std::int64_t(n + 1)), 16,
                                             TimeBound::kMaxCells);
        const std::int64_t cells = tb->cells;
        tb->cellBytes = std::max<std::int64_t>(1, (m_allKept.predictedPeakBytes + cells) / cells);
        tb->minTimeS.assign(2 * std::size_t(n + 1) * std::size_t(cells),
                            std::numeric_limits<double>::infinity());
        std::fill_n(tb->minTimeS.begin() + std::ptrdiff_t(2 * std::size_t(n) * cells), 2 * cells,
                    0.0);
        std::vector<Transition> ts;
        for (int b = n - 1; b >= 0; --b)
            for (int k = 0; k < 2; ++k) {
                double* row = &tb->minTimeS[(2 * std::size_t(b) + std::size_t(k)) * cells];
                transitions(b, k == 1, ts);
                for (const Transition& t : ts) {
                    const std::size_t to = 2 * std::size_t(t.last + 1) + (t.streamKeptAfter ? 1 : 0);
                    const std::int64_t shift = t.keptBytes / tb->cellBytes;
                    // The segment's own peak fits from the first cell whose largest budget holds it.
                    const std::int64_t fits =
                        t.needBytes < 0 ? 0 : (t.needBytes + tb->cellBytes) / tb->cellBytes - 1;
                    const std::int64_t from = std::max(fits, shift);
                    if (from >= cells) continue;
                    relaxShifted(row + from, &tb->minTimeS[to * cells] + (from - shift),
                                 std::size_t(cells - from), t.timeS);
                }
            }
        m_timeBound = std::move(tb);
    });
    return *m_timeBound;
}

// Drops states of one stream flag that a state of the other dominates. A state that already
// keeps the incoming stream (flag 1) at no more bytes and time is at least as good as one that
// does not (flag 0): every unit then needs and keeps no more. A flag-0 state is as good as a
// flag-1 state holding the stream's bytes more.
void crossFilter(Front& without, Front& with, std::int64_t streamBytes) {
    auto drop = [](Front& victims, const Front& rivals, std::int64_t rivalExtra) {
        std::size_t out = 0, r = 0;
        double best = std::numeric_limits<double>::infinity();  // least time of rivals so far
        for (std::size_t v = 0; v < victims.size(); ++v) {
            while (r < rivals.size() && rivals.bytes[r] + rivalExtra <= victims.bytes[v])
                best = std::min(best, rivals.times[r++]);
            if (best <= victims.times[v]) continue;
            victims.move(v, out++);
        }
        victims.resize(out);
    };
    drop(without, with, 0);
    drop(with, without, streamBytes);
}

bool OptimalPlanner::searches(std::int64_t budgetBytes) const {
    return m_model.floorBytes() <= budgetBytes && m_suffixNeed[0] <= budgetBytes &&
           m_allKept.predictedPeakBytes > budgetBytes;
}

std::optional<OptimalPlan> OptimalPlanner::solve(std::int64_t budgetBytes) const {
    m_lastStates = 0;
    m_lastCandidates = 0;
    m_lastMergeSteps = 0;
    m_tooLarge = false;
    m_stopUnit = 0;
    if (m_model.floorBytes() > budgetBytes || m_suffixNeed[0] > budgetBytes) return std::nullopt;
    if (m_allKept.predictedPeakBytes <= budgetBytes) return m_allKept;
    // A plan found with a narrow beam bounds the optimum's time; the exact pass then keeps only
    // states no slower than it.
    double bound = std::numeric_limits<double>::infinity();
    const bool bounded = m_search == BoundedSearch::Always ||
                         (m_search == BoundedSearch::Auto && m_model.unitCount() > kExactOnlyUnits);
    const TimeBound* rest = bounded ? &timeBound() : nullptr;
    if (bounded)
        if (auto beam = solveWithin(budgetBytes, bound, kBoundBeam, rest))
            bound = beam->recomputeTimeS * (1 + 1e-9) + 1e-15;
    const std::size_t beamStates = m_lastStates, beamCandidates = m_lastCandidates;
    if (m_tooLarge) return std::nullopt;
    auto exact = solveWithin(budgetBytes, bound, 0, rest);
    m_lastStates += beamStates;
    m_lastCandidates += beamCandidates;
    return exact;
}

namespace {

// A transition's candidates: a slice of a source boundary's Pareto set, shifted. Kept as a
// slice (not copied) until the target boundary merges all slices into its own Pareto set.
struct Run {
    const Front* source;
    std::uint32_t next, end;  // slice [next, end) of *source
    std::int64_t addBytes;
    std::int64_t floorBytes;  // the backward pass maps bytes to max(floor, bytes + add)
    double addTimeS;
    int first, last;  // the segment
    bool prevKept, region;
};

// Merges slices (each ascending in bytes, strictly descending in time) into one Pareto set,
// jumping over stretches a better state already dominates. Returns the merge's steps (states
// taken from the heap), the measure of its work.
std::size_t mergeRuns(std::vector<Run>& runs, Front& out) {
    struct Head {
        std::int64_t bytes;
        double timeS;
        std::uint32_t run;
    };
    auto head = [&](std::uint32_t r) {
        const Run& run = runs[r];
        return Head{std::max(run.floorBytes, run.source->bytes[run.next] + run.addBytes),
                    run.source->times[run.next] + run.addTimeS, r};
    };
    // Min-heap on (bytes, time); the top is replaced in place (one sift-down per step, where a
    // pop followed by a push would sift twice).
    auto before = [](const Head& a, const Head& b) {
        return a.bytes != b.bytes ? a.bytes < b.bytes : a.timeS < b.timeS;
    };
    std::vector<Head> heap;
    heap.reserve(runs.size());
    for (std::uint32_t r = 0; r < runs.size(); ++r)
        if (runs[r].next < runs[r].end) heap.push_back(head(r));
    auto siftDown = [&](std::size_t i) {
        const std::size_t n = heap.size();
        const Head moving = heap[i];
        for (;;) {
            std::size_t c = 2 * i + 1;
            if (c >= n) break;
            if (c + 1 < n && before(heap[c + 1], heap[c])) ++c;
            if (!before(heap[c], moving)) break;
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = moving;
    };
    for (std::size_t i = heap.size() / 2; i-- > 0;) siftDown(i);
    double best = std::numeric_limits<double>::infinity();
    std::size_t steps = 0;
    while (!heap.empty()) {
        ++steps;
        const Head h = heap.front();
        Run& run = runs[h.run];
        if (h.timeS < best) {
            best = h.timeS;
            out.push(h.bytes, h.timeS,
                     Step{int(run.next), run.first, run.last, run.prevKept, run.region});
        }
        // Skip to the first state of the slice that beats the best time so far: usually the
        // next one, so gallop from it before bisecting.
        const std::vector<double>& src = run.source->times;
        const double need = best - run.addTimeS;
        std::uint32_t lo = run.next + 1, hi = lo;
        for (std::uint32_t step = 1; hi < run.end && src[hi] >= need; step *= 2) {
            lo = hi + 1;  // everything up to hi is too slow
            hi = std::min(run.end, hi + step);
        }
        // The first fast-enough state lies in [lo, hi] (hi: one that is, or the end).
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            if (src[mid] >= need)
                lo = mid + 1;
            else
                hi = mid;
        }
        run.next = lo;
        if (run.next < run.end) {
            heap.front() = head(h.run);
        } else {
            heap.front() = heap.back();
            heap.pop_back();
        }
        if (!heap.empty()) siftDown(0);
    }
    return steps;
}

}  // namespace

std::optional<OptimalPlan> OptimalPlanner::solveWithin(std::int64_t budgetBytes, double timeBound,
                                                       std::size_t beam,
                                                       const TimeBound* rest) const {
    const int n = m_model.unitCount();
    m_lastStates = 0;
    m_lastCandidates = 0;
    // sets[2 * boundary + kept]: the boundary's Pareto set once reached; runs: its incoming
    // slices until then.
    std::vector<Front> sets(2 * std::size_t(n + 1));
    std::vector<std::vector<Run>> runs(2 * std::size_t(n + 1));
    sets[0].push(0, 0.0, Step{-1, -1, -1, false, false});
    std::vector<Transition> ts;
    std::vector<std::pair<double, std::size_t>> scores;
    for (int b = 0; b < n; ++b) {
        if (cancelRequested(m_cancel)) return std::nullopt;
        if (std::int64_t(m_lastMergeSteps) > m_mergeStepLimit) {
            m_tooLarge = true;
            m_stopUnit = b;
            return std::nullopt;
        }
        auto& without = sets[2 * std::size_t(b)];
        auto& with = sets[2 * std::size_t(b) + 1];
        if (b > 0) {
            m_lastMergeSteps += mergeRuns(runs[2 * std::size_t(b)], without);
            m_lastMergeSteps += mergeRuns(runs[2 * std::size_t(b) + 1], with);
            runs[2 * std::size_t(b)].clear();
            runs[2 * std::size_t(b) + 1].clear();
        }
        crossFilter(without, with, m_model.units()[std::size_t(b)].streamBytes);
        for (int k = 0; k < 2; ++k) {
            const std::size_t set = 2 * std::size_t(b) + std::size_t(k);
            auto& from = sets[set];
            if (rest) {
                // What a state can still reach: its time plus the least the rest needs with the
                // budget it leaves.
                scores.resize(from.size());
                for (std::size_t i = 0; i < from.size(); ++i)
                    scores[i] = {from.times[i] + rest->at(set, budgetBytes - from.bytes[i]), i};
                if (beam > 0 && from.size() > beam) {
                    // The beam keeps the states that promise the least time.
                    std::nth_element(scores.begin(), scores.begin() + std::ptrdiff_t(beam),
                                     scores.end());
                    scores.resize(beam);
                    std::sort(scores.begin(), scores.end(),
                              [](const auto& x, const auto& y) { return x.second < y.second; });
                }
                std::size_t kept = 0;
                for (const auto& [promise, i] : scores)
                    if (promise <= timeBound) from.move(i, kept++);  // ascending, never ahead
                from.resize(kept);
            } else if (beam > 0 && from.size() > beam) {
                // Keep `beam` states spread over the front, its two ends included.
                for (std::size_t i = 0; i < beam; ++i)
                    from.move(i * (from.size() - 1) / (beam - 1), i);  // ascending, never ahead
                from.resize(beam);
            }
            if (from.empty()) continue;
            m_lastStates += from.size();
            transitions(b, k == 1, ts);
            for (const Transition& t : ts) {
                const std::size_t to = 2 * std::size_t(t.last + 1) + (t.streamKeptAfter ? 1 : 0);
                // A state fits when this segment's peak and the best possible rest both fit.
                const std::int64_t limit = std::min(budgetBytes - t.needBytes,
                                                    budgetBytes - t.keptBytes - m_suffixNeed[to]);
                // Bytes rise and times fall along the front: the fitting states are a prefix,
                // those within the time bound a suffix.
                std::size_t lo = 0, hi = from.size();
                while (lo < hi) {
                    const std::size_t mid = (lo + hi) / 2;
                    if (from.times[mid] + t.timeS > timeBound)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                const std::size_t first = lo;
                hi = from.size();
                while (lo < hi) {
                    const std::size_t mid = (lo + hi) / 2;
                    if (from.bytes[mid] <= limit)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo <= first) continue;
                m_lastCandidates += lo - first;
                runs[to].push_back(Run{&from, std::uint32_t(first), std::uint32_t(lo), t.keptBytes,
                                       kNoPeakBytes, t.timeS, b, t.last, k == 1, t.region});
            }
        }
    }
    // The fastest end state: the last of each front (times descend along it).
    const Front* bestFront = nullptr;
    for (int k = 0; k < 2; ++k) {
        Front& end = sets[2 * std::size_t(n) + std::size_t(k)];
        m_lastMergeSteps += mergeRuns(runs[2 * std::size_t(n) + std::size_t(k)], end);
        if (!end.empty() && (!bestFront || end.times.back() < bestFront->times.back()))
            bestFront = &end;
    }
    if (!bestFront) return std::nullopt;
    OptimalPlan out;
    out.recomputeTimeS = bestFront->times.back();
    // Walk back through the boundaries' Pareto sets.
    for (const Step* l = &bestFront->steps.back(); l->last >= 0;) {
        out.segments.push_back(UnitSegment{l->first, l->last, l->region});
        l = &sets[2 * std::size_t(l->first) + (l->prevKept ? 1 : 0)].steps[std::size_t(l->prevIndex)];
    }
    std::reverse(out.segments.begin(), out.segments.end());
    auto pred = m_model.predict(out.segments);
    if (!pred) return std::nullopt;
    out.predictedPeakBytes = pred->peakBytes;
    return out;
}

Result<VerifiedPlan> verifyPlan(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                                const DeviceSpec& device, std::int64_t budgetBytes,
                                std::int64_t predictedPeakBytes, const std::string& planner,
                                const CancelFlag* cancel) {
    CompileOptions options = compileOptionsFor(device);
    options.cancel = cancel;
    auto program = compile(g, plan, cfg, options);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    if (!program)
        return makeError(planner +
                         ": internal error: the plan does not compile: " + program.error().message);
    VerifiedPlan v;
    v.timeline = simulate(g, *program, device, cancel);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    v.predictedPeakBytes = predictedPeakBytes;
    if (v.timeline.peakBytes > budgetBytes)
        return makeError(planner + ": internal error: the plan's simulated peak " +
                         std::to_string(v.timeline.peakBytes) + " B exceeds the budget " +
                         std::to_string(budgetBytes) + " B (the planner predicted " +
                         std::to_string(predictedPeakBytes) + " B)");
    if (predictedPeakBytes >= 0 && v.timeline.peakBytes != predictedPeakBytes)
        return makeError(planner + ": internal error: the plan's simulated peak " +
                         std::to_string(v.timeline.peakBytes) + " B differs from the predicted " +
                         std::to_string(predictedPeakBytes) + " B");
    if (program->unsafe()) {
        Plan none;
        auto base = compile(g, none, cfg, compileOptionsFor(device));
        if (base && !base->unsafe())
            return makeError(planner + ": internal error: the plan is unsafe: " +
                             program->allUnsafeReasons().front());
    }
    v.plan = plan;
    v.program = std::move(*program);
    return v;
}

std::string explainInfeasible(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                              const DeviceSpec& device, std::int64_t budgetBytes, bool nested) {
    auto program = compile(g, plan, cfg, compileOptionsFor(device));
    if (!program)
        return std::string(nested ? "optimal-nested" : "optimal") + ": the budget of " +
               byteSizeSpelling(budgetBytes) + " cannot be met (" + program.error().message + ")";
    return budgetInfeasibleMessage(simulate(g, *program, device), cfg.microBatch, budgetBytes, {},
                                   nested);
}

Result<VerifiedPlan> planOptimal(const Graph& g, const TrainingConfig& cfg,
                                 const DeviceSpec& device, std::int64_t budgetBytes,
                                 const CancelFlag* cancel) {
    const std::string spelling = "optimal:" + byteSizeSpelling(budgetBytes);
    auto model = ChainModel::build(g, cfg, device);
    if (!model) return model.error();
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    OptimalPlanner planner(*model);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    if (planner.searches(budgetBytes))
        if (auto st = checkSingleLevelSearch(*model, "optimal"); !st) return st.error();
    planner.setCancel(cancel);
    auto sol = planner.solve(budgetBytes);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    if (planner.lastSearchTooLarge())
        return makeError(searchTooLargeMessage("optimal", planner.lastMergeSteps(),
                                               kMaxOptimalMergeSteps, planner.lastStopUnit(),
                                               model->unitCount()));
    if (!sol) {
        const Plan best = model->toPlan(planner.minimumPeak().segments, spelling);
        return makeError(explainInfeasible(g, best, cfg, device, budgetBytes, false));
    }
    return verifyPlan(g, model->toPlan(sol->segments, spelling), cfg, device, budgetBytes,
                      sol->predictedPeakBytes, "optimal", cancel);
}

}  // namespace remat
