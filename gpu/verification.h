// Checks of a measurement against what it must equal: the simulator's timeline (tracked live
// bytes after every instruction, exactly) and the gradients of the same network run without
// checkpointing (same seed, so same weights and data). `remat run`, the GUI's run view and
// the executor tests all compare through here.
#pragma once

#include <cstdint>
#include <string>

#include "compiler.h"
#include "executor.h"
#include "simulator.h"

namespace remat {

struct LiveBytesDifference {
    // Largest |measured - predicted| total live bytes over all instructions, and where.
    std::int64_t maxAbsBytes = 0;
    std::size_t instruction = 0;
    // Also compared per category: the largest per-category difference.
    std::int64_t maxAbsCategoryBytes = 0;
    bool sameLength = true;  // one entry per instruction on both sides
};
LiveBytesDifference compareLiveBytes(const Timeline& predicted, const Measurement& measured);

struct GradCheck {
    std::string reference = "none";  // the plan the gradients were compared against
    // The reference program is itself unsafe (an in-place op overwriting a saved tensor is
    // in the network, not the plan): it carries the same damage, so agreement proves nothing.
    bool referenceUnsafe = false;
    double maxAbsDiff = 0.0;
    // Largest |a - b| / max(|a|, |b|, 1e-6) over all elements: the tolerance figure for
    // runs whose kernels are not bitwise deterministic.
    double maxRelDiff = 0.0;
    bool bitwiseEqual = true;
    std::string worstParameter;  // where maxAbsDiff occurs
    std::size_t parameters = 0;
};

// Compares two measurements' gradients parameter by parameter; an error when the sets of
// parameters or their sizes differ.
Result<GradCheck> compareGradients(const Measurement& reference, const Measurement& run);

// The plan-`none` program with the same training settings as `program`.
Result<Program> compileReference(const Graph& graph, const Program& program,
                                 const CompileOptions& options);

// Runs the plan-`none` reference with `options` (gradients collected) and compares `run`'s
// gradients with it.
Result<GradCheck> checkGradientsAgainstNone(Executor& executor, const Graph& graph,
                                            const Program& program, const Measurement& run,
                                            const CompileOptions& compileOptions,
                                            const ExecuteOptions& options);

}  // namespace remat
