#include "analysis.h"

namespace remat {

double Evaluation::recomputeOverhead() const {
    return baselineTimeS > 0 ? (timeline.timeS.total() - baselineTimeS) / baselineTimeS : 0.0;
}

double Evaluation::memorySavedFraction() const {
    return baselinePeakBytes > 0
               ? 1.0 - double(timeline.peakBytes) / double(baselinePeakBytes)
               : 0.0;
}

CompileOptions compileOptionsFor(const DeviceSpec& d) {
    CompileOptions o;
    o.gemmWorkspaceBytes = d.gemmWorkspaceBytes;
    return o;
}

Result<Baseline> evaluateBaseline(const Graph& g, const TrainingConfig& cfg,
                                  const DeviceSpec& d) {
    Plan none;
    none.strategy = "none";
    auto p = compile(g, none, cfg, compileOptionsFor(d));
    if (!p) return p.error();
    Timeline t = simulate(g, *p, d);
    return Baseline{t.peakBytes, t.timeS.total()};
}

Result<Evaluation> evaluate(const Graph& g, const Strategy& s,
                            const std::vector<RegionSpec>& manual, const TrainingConfig& cfg,
                            const DeviceSpec& d, const Baseline* baseline) {
    auto plan = makePlan(g, s, PlanContext{manual, &cfg, &d});
    if (!plan) return plan.error();
    auto program = compile(g, *plan, cfg, compileOptionsFor(d));
    if (!program) return program.error();
    Evaluation e;
    e.strategy = s;
    e.timeline = simulate(g, *program, d);
    e.program = std::move(*program);
    if (baseline) {
        e.baselinePeakBytes = baseline->peakBytes;
        e.baselineTimeS = baseline->timeS;
    } else if (s.kind == StrategyKind::None) {
        e.baselinePeakBytes = e.timeline.peakBytes;
        e.baselineTimeS = e.timeline.timeS.total();
    } else {
        auto b = evaluateBaseline(g, cfg, d);
        if (!b) return b.error();
        e.baselinePeakBytes = b->peakBytes;
        e.baselineTimeS = b->timeS;
    }
    return e;
}

}  // namespace remat
