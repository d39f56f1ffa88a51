#include "analysis.h"

#include <algorithm>
#include <utility>

#include "optimal.h"
#include "optimal_budget.h"
#include "optimal_model.h"
#include "report.h"

namespace remat {

double Evaluation::recomputeOverhead() const {
    return baselineTimeS > 0 ? (timeline.timeS.total() - baselineTimeS) / baselineTimeS : 0.0;
}

double Evaluation::memorySavedFraction() const {
    return baselinePeakBytes > 0 ? 1.0 - double(timeline.peakBytes) / double(baselinePeakBytes)
                                 : 0.0;
}

double Evaluation::activationsSavedFraction() const {
    return baselineSavedActivationBytes > 0
               ? 1.0 - double(timeline.savedActivationBytes) / double(baselineSavedActivationBytes)
               : 0.0;
}

CompileOptions compileOptionsFor(const DeviceSpec& d) {
    CompileOptions o;
    o.gemmWorkspaceBytes = d.gemmWorkspaceBytes;
    return o;
}

Result<Baseline> evaluateBaseline(const Graph& g, const TrainingConfig& cfg, const DeviceSpec& d,
                                  const CancelFlag* cancel) {
    Plan none;
    none.strategy = "none";
    CompileOptions options = compileOptionsFor(d);
    options.cancel = cancel;
    auto p = compile(g, none, cfg, options);
    if (!p) return p.error();
    Timeline t = simulate(g, *p, d, cancel);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    return Baseline{t.peakBytes, t.timeS.total(), t.savedActivationBytes};
}

Result<Evaluation> evaluate(const Graph& g, const Strategy& s,
                            const std::vector<RegionSpec>& manual, const TrainingConfig& cfg,
                            const DeviceSpec& d, const Baseline* baseline,
                            const CancelFlag* cancel, OpTimeMemo* opTimes) {
    PlanContext context{manual, &cfg, &d};
    context.cancel = cancel;
    auto plan = makePlan(g, s, context);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    if (!plan) {
        // The planners' own message on an unmet budget rounds both figures alike; say it in
        // the user's unit with the smallest budget that works.
        std::string why = explainBudgetInfeasible(g, s, cfg, d);
        if (!why.empty()) return makeError(why);
        return plan.error();
    }
    CompileOptions options = compileOptionsFor(d);
    options.cancel = cancel;
    auto program = compile(g, *plan, cfg, options);
    if (!program) return program.error();
    Evaluation e;
    e.strategy = s;
    e.timeline = simulate(g, *program, d, cancel, opTimes);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    e.program = std::move(*program);
    if (baseline) {
        e.baselinePeakBytes = baseline->peakBytes;
        e.baselineTimeS = baseline->timeS;
        e.baselineSavedActivationBytes = baseline->savedActivationBytes;
    } else if (s.kind == StrategyKind::None) {
        e.baselinePeakBytes = e.timeline.peakBytes;
        e.baselineTimeS = e.timeline.timeS.total();
        e.baselineSavedActivationBytes = e.timeline.savedActivationBytes;
    } else {
        auto b = evaluateBaseline(g, cfg, d, cancel);
        if (!b) return b.error();
        e.baselinePeakBytes = b->peakBytes;
        e.baselineTimeS = b->timeS;
        e.baselineSavedActivationBytes = b->savedActivationBytes;
    }
    return e;
}

namespace {

std::int64_t at(const CategoryBytes& b, Category c) {
    return b[std::size_t(c)];
}

const char* categoryWords(Category c) {
    switch (c) {
        case Category::Parameters:
            return "parameters";
        case Category::Gradients:
            return "gradients";
        case Category::OptimizerState:
            return "optimizer state";
        case Category::SavedActivations:
            return "saved activations";
        case Category::RecomputedActivations:
            return "recomputed activations";
        case Category::Transient:
            return "transient tensors";
        case Category::Inputs:
            return "inputs";
        case Category::Workspace:
            return "workspace";
        case Category::GatheredParameters:
            return "gathered parameters";
    }
    return "?";
}

bool isActivation(Category c) {
    return c == Category::SavedActivations || c == Category::RecomputedActivations ||
           c == Category::Transient || c == Category::Inputs;
}

// "optimizer state 1.20 TiB, parameters 326.00 GiB, ...": the non-zero categories of a peak,
// largest first.
std::string termsLargestFirst(const CategoryBytes& b, Category* largest) {
    std::vector<std::pair<std::int64_t, Category>> parts;
    for (Category c : kAllCategories)
        if (at(b, c) > 0) parts.push_back({at(b, c), c});
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string out;
    for (const auto& [bytes, c] : parts)
        out += (out.empty() ? "" : ", ") + std::string(categoryWords(c)) + " " + formatBytes(bytes);
    if (largest && !parts.empty()) *largest = parts.front().second;
    return out;
}

}  // namespace

std::int64_t modelStateBytes(const Timeline& t) {
    std::int64_t most = 0;
    for (const CategoryBytes& b : t.live)
        most = std::max(most, at(b, Category::Parameters) + at(b, Category::Gradients) +
                                  at(b, Category::OptimizerState));
    return most;
}

std::string explainNoFit(const Timeline& t, const DeviceSpec& d) {
    if (t.fits) return {};
    const std::int64_t usable = d.usableBytes();
    const std::int64_t states = modelStateBytes(t);
    if (states >= usable)
        return "model states alone (parameters, gradients, optimizer state) take " +
               formatBytes(states) + " of the device's " + formatBytes(usable) +
               " usable; no checkpointing plan or micro-batch changes that";
    std::string msg = "the peak of " + formatBytes(t.peakBytes) + " exceeds the device's " +
                      formatBytes(usable) + " usable by " + formatBytes(t.peakBytes - usable) +
                      ": at the peak " + termsLargestFirst(t.breakdownAtPeak, nullptr);
    if (t.maxMicroBatch >= 1)
        msg +=
            "; micro-batch " + std::to_string(t.maxMicroBatch) + " or smaller fits with this plan";
    else
        msg += "; not even micro-batch 1 fits with this plan";
    return msg;
}

std::string budgetInfeasibleMessage(const Timeline& best, std::int64_t microBatch,
                                    std::int64_t budgetBytes, const std::string& budgetWritten,
                                    bool nested) {
    const std::string head = nested ? "optimal-nested" : "optimal";
    const std::string written = budgetWritten.empty() ? byteSizeSpelling(budgetBytes) : budgetWritten;
    std::string msg = head + ": the budget of " + written +
                      " cannot be met: the smallest peak any single-level plan reaches at "
                      "micro-batch " +
                      std::to_string(microBatch) + " is " + formatBytes(best.peakBytes) + " (" +
                      std::to_string(best.peakBytes) + " B)" +
                      (nested ? " and no nested plan reaches the budget" : "");
    const std::string smallest = formatBudget(best.peakBytes, budgetUnit(written));
    auto parsed = parseByteSize(smallest);
    if (parsed && *parsed >= best.peakBytes)
        msg += ", so " + head + ":" + smallest + " is the smallest budget in " +
               (budgetUnit(written) == "B" ? std::string("bytes") : budgetUnit(written)) +
               " that works";
    else
        msg += ", more than any budget " + head + " accepts";
    Category largest = Category::Parameters;
    msg += "; at that peak " + termsLargestFirst(best.breakdownAtPeak, &largest);
    const std::int64_t states = modelStateBytes(best);
    if (states >= budgetBytes)
        msg += "; model states alone (parameters, gradients, optimizer state) take " +
               formatBytes(states) + ", more than the budget, which no checkpointing plan changes";
    else if (isActivation(largest))
        msg += nested ? "; activations are the largest term: a smaller micro-batch lowers them"
                      : "; activations are the largest term: a smaller micro-batch lowers them, "
                        "and optimal-nested:BUDGET, which nests regions, may reach a lower peak";
    else
        msg += "; the largest term is " + std::string(categoryWords(largest)) +
               ", which checkpointing does not remove";
    return msg;
}

std::string explainBudgetInfeasible(const Graph& g, const Strategy& s, const TrainingConfig& cfg,
                                    const DeviceSpec& d) {
    if (s.kind != StrategyKind::Optimal && s.kind != StrategyKind::OptimalNested) return {};
    auto model = ChainModel::build(g, cfg, d);
    if (!model) return {};
    OptimalPlanner planner(*model);
    const Plan best = model->toPlan(planner.minimumPeak().segments, "optimal");
    auto program = compile(g, best, cfg, compileOptionsFor(d));
    if (!program) return {};
    const Timeline t = simulate(g, *program, d);
    if (s.budgetBytes >= t.peakBytes) return {};
    return budgetInfeasibleMessage(t, cfg.microBatch, s.budgetBytes, s.budgetText,
                                   s.kind == StrategyKind::OptimalNested);
}

}  // namespace remat
