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

// A state at a boundary, with the segment that led to it (for the walk back).
struct Label {
    std::int64_t keptBytes;
    double timeS;
    int prevIndex;    // in the Pareto set at (first, prevKept)
    int first, last;  // the segment's units; last < 0 for the start state
    bool prevKept;    // stream flag at the segment's start
    bool region;
};

// Keeps the Pareto-minimal labels: ascending kept bytes, strictly descending time.
void paretoFilter(std::vector<Label>& labels) {
    std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) {
        return a.keptBytes != b.keptBytes ? a.keptBytes < b.keptBytes : a.timeS < b.timeS;
    });
    std::size_t out = 0;
    double best = std::numeric_limits<double>::infinity();
    for (const Label& l : labels)
        if (l.timeS < best) {
            best = l.timeS;
            labels[out++] = l;
        }
    labels.resize(out);
}

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
    out.push_back(Transition{m_model.keptNeed(b, kept), p.retainedBytes, 0.0, b, false,
                             p.streamKept});
    const std::int64_t held = m_model.heldBytes(b, kept);
    const auto& regions = m_regions[std::size_t(b)];
    for (std::size_t k = 0; k < regions.size(); ++k) {
        const RegionCost& rc = regions[k];
        if (!rc.valid) continue;
        out.push_back(Transition{held + rc.coreNeedBytes, held, rc.recomputeTimeS, b + int(k),
                                 true, rc.streamKeptAfter});
    }
}

std::optional<OptimalPlan> OptimalPlanner::solve(std::int64_t budgetBytes) const {
    const int n = m_model.unitCount();
    m_lastStates = 0;
    if (m_model.floorBytes() > budgetBytes || m_suffixNeed[0] > budgetBytes) return std::nullopt;
    // labels[2 * boundary + kept]: candidates until the boundary is reached, then its Pareto set.
    std::vector<std::vector<Label>> labels(2 * std::size_t(n + 1));
    labels[0].push_back(Label{0, 0.0, -1, -1, -1, false, false});
    std::vector<Transition> ts;
    for (int b = 0; b < n; ++b)
        for (int k = 0; k < 2; ++k) {
            auto& from = labels[2 * std::size_t(b) + std::size_t(k)];
            if (from.empty()) continue;
            paretoFilter(from);
            m_lastStates += from.size();
            transitions(b, k == 1, ts);
            for (const Transition& t : ts) {
                const std::size_t to = 2 * std::size_t(t.last + 1) + (t.streamKeptAfter ? 1 : 0);
                // A state fits when this segment's peak and the best possible rest both fit.
                const std::int64_t limit =
                    std::min(budgetBytes - t.needBytes,
                             budgetBytes - t.keptBytes - m_suffixNeed[to]);
                auto& dest = labels[to];
                for (std::size_t i = 0; i < from.size() && from[i].keptBytes <= limit; ++i)
                    dest.push_back(Label{from[i].keptBytes + t.keptBytes, from[i].timeS + t.timeS,
                                         int(i), b, t.last, k == 1, t.region});
            }
        }
    const Label* best = nullptr;
    for (int k = 0; k < 2; ++k) {
        auto& end = labels[2 * std::size_t(n) + std::size_t(k)];
        paretoFilter(end);
        for (const Label& l : end)
            if (!best || l.timeS < best->timeS) best = &l;
    }
    if (!best) return std::nullopt;
    OptimalPlan out;
    out.recomputeTimeS = best->timeS;
    // Walk back through the boundaries' Pareto sets.
    for (const Label* l = best; l->last >= 0;) {
        out.segments.push_back(UnitSegment{l->first, l->last, l->region});
        l = &labels[2 * std::size_t(l->first) + (l->prevKept ? 1 : 0)][std::size_t(l->prevIndex)];
    }
    std::reverse(out.segments.begin(), out.segments.end());
    auto pred = m_model.predict(out.segments);
    if (!pred) return std::nullopt;
    out.predictedPeakBytes = pred->peakBytes;
    return out;
}

Result<VerifiedPlan> verifyPlan(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                                const DeviceSpec& device, std::int64_t budgetBytes,
                                std::int64_t predictedPeakBytes, const std::string& planner) {
    auto program = compile(g, plan, cfg, compileOptionsFor(device));
    if (!program)
        return makeError(planner + ": internal error: the plan does not compile: " +
                         program.error().message);
    VerifiedPlan v;
    v.timeline = simulate(g, *program, device);
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
                             program->unsafeReasons.front());
    }
    v.plan = plan;
    v.program = std::move(*program);
    return v;
}

std::string explainInfeasible(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                              const DeviceSpec& device, std::int64_t budgetBytes,
                              const std::string& planKind) {
    std::string msg = "the budget of " + formatBytes(budgetBytes) + " cannot be met";
    auto program = compile(g, plan, cfg, compileOptionsFor(device));
    if (!program) return msg + " (" + program.error().message + ")";
    const Timeline t = simulate(g, *program, device);
    const auto& b = t.breakdownAtPeak;
    auto at = [&](Category c) { return b[std::size_t(c)]; };
    const std::int64_t state = at(Category::Parameters) + at(Category::Gradients) +
                               at(Category::OptimizerState);
    const std::int64_t acts = at(Category::SavedActivations) +
                              at(Category::RecomputedActivations) + at(Category::Transient) +
                              at(Category::Inputs);
    const std::int64_t ws = at(Category::Workspace);
    msg += ": the smallest peak any " + planKind + " reaches is " + formatBytes(t.peakBytes) +
           " at micro-batch " + std::to_string(cfg.microBatch) + "; at that peak ";
    std::vector<std::pair<std::int64_t, std::string>> parts = {
        {state, "parameters + gradients + optimizer state"},
        {acts, "activations (saved, recomputed, transient, inputs)"},
        {ws, "workspace"}};
    std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    bool first = true;
    for (const auto& [bytes, what] : parts) {
        if (bytes == 0) continue;
        msg += std::string(first ? "" : ", ") + what + " " + formatBytes(bytes);
        first = false;
    }
    const std::int64_t resident = at(Category::Parameters) + at(Category::OptimizerState);
    if (resident >= budgetBytes)
        msg += "; parameters + optimizer state alone (" + formatBytes(resident) +
               ") exceed the budget, which no checkpointing plan changes";
    else if (state >= acts)
        msg += "; parameters, gradients and optimizer state dominate, which no checkpointing "
               "plan changes";
    else
        msg += "; activations dominate: a smaller micro-batch or nested checkpointing "
               "(optimal-nested) may fit";
    return msg;
}

Result<VerifiedPlan> planOptimal(const Graph& g, const TrainingConfig& cfg,
                                 const DeviceSpec& device, std::int64_t budgetBytes) {
    const std::string spelling = "optimal:" + byteSizeSpelling(budgetBytes);
    auto model = ChainModel::build(g, cfg, device);
    if (!model) return model.error();
    OptimalPlanner planner(*model);
    auto sol = planner.solve(budgetBytes);
    if (!sol) {
        const Plan best = model->toPlan(planner.minimumPeak().segments, spelling);
        return makeError("optimal: " + explainInfeasible(g, best, cfg, device, budgetBytes,
                                                         "single-level plan"));
    }
    return verifyPlan(g, model->toPlan(sol->segments, spelling), cfg, device, budgetBytes,
                      sol->predictedPeakBytes, "optimal");
}

}  // namespace remat
