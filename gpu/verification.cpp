#include "verification.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace remat {

LiveBytesDifference compareLiveBytes(const Timeline& predicted, const Measurement& measured) {
    LiveBytesDifference d;
    d.sameLength = predicted.live.size() == measured.live.size();
    const std::size_t n = std::min(predicted.live.size(), measured.live.size());
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t diff =
            std::abs(totalBytes(measured.live[i]) - totalBytes(predicted.live[i]));
        if (diff > d.maxAbsBytes) {
            d.maxAbsBytes = diff;
            d.instruction = i;
        }
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            d.maxAbsCategoryBytes = std::max(
                d.maxAbsCategoryBytes, std::abs(measured.live[i][c] - predicted.live[i][c]));
    }
    return d;
}

Result<GradCheck> compareGradients(const Measurement& reference, const Measurement& run) {
    if (reference.gradients.size() != run.gradients.size())
        return makeError("the runs produced gradients for " +
                         std::to_string(reference.gradients.size()) + " and " +
                         std::to_string(run.gradients.size()) + " parameters");
    GradCheck c;
    for (const ParameterValues& ref : reference.gradients) {
        const ParameterValues* other = run.gradient(ref.parameter);
        if (!other) return makeError("no gradient for '" + ref.name + "' in the run");
        if (other->values.size() != ref.values.size())
            return makeError("gradient sizes of '" + ref.name + "' differ");
        ++c.parameters;
        for (std::size_t i = 0; i < ref.values.size(); ++i) {
            const float a = ref.values[i], b = other->values[i];
            if (std::memcmp(&a, &b, sizeof a) != 0) c.bitwiseEqual = false;
            const double diff = std::fabs(double(a) - double(b));
            const double scale = std::max({std::fabs(double(a)), std::fabs(double(b)), 1e-6});
            // NaN anywhere must not pass as "no difference".
            if (std::isnan(diff)) {
                c.maxAbsDiff = std::numeric_limits<double>::infinity();
                c.maxRelDiff = std::numeric_limits<double>::infinity();
                c.worstParameter = ref.name;
                continue;
            }
            if (diff > c.maxAbsDiff) {
                c.maxAbsDiff = diff;
                c.worstParameter = ref.name;
            }
            c.maxRelDiff = std::max(c.maxRelDiff, diff / scale);
        }
    }
    return c;
}

Result<Program> compileReference(const Graph& graph, const Program& program,
                                 const CompileOptions& options) {
    TrainingConfig cfg;
    cfg.microBatch = program.microBatch;
    cfg.accumulationSteps = program.accumulationSteps;
    cfg.precision = program.precision;
    cfg.optimizer = program.optimizer;
    cfg.mainGrads = program.mainGrads;
    cfg.optimizerImpl = program.optimizerImpl;
    cfg.tf32 = program.tf32;
    Plan none;
    none.strategy = "none";
    return compile(graph, none, cfg, options);
}

Result<GradCheck> checkGradientsAgainstNone(Executor& executor, const Graph& graph,
                                            const Program& program, const Measurement& run,
                                            const CompileOptions& compileOptions,
                                            const ExecuteOptions& options) {
    auto reference = compileReference(graph, program, compileOptions);
    if (!reference) return reference.error();
    ExecuteOptions o = options;
    o.collectGradients = true;
    o.allowUnsafe = false;  // plan none is never unsafe unless an in-place op is
    if (reference->unsafe()) o.allowUnsafe = options.allowUnsafe;
    auto m = executor.execute(graph, *reference, o);
    if (!m) return makeError("reference run (plan none): " + m.error().message);
    auto c = compareGradients(*m, run);
    if (c) c->referenceUnsafe = reference->unsafe();
    return c;
}

}  // namespace remat
