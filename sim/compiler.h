// The compiler: (Graph, Plan, TrainingConfig) -> Program. It runs the training step once
// symbolically — forward, then backward with each checkpointed region recomputed where its
// backward starts (by default PyTorch non-reentrant semantics with its early stop; the
// reentrant and Megatron-LM implementations recompute whole regions: TrainingConfig's
// recomputeImpl), nested regions recomputed again — binds every op operand to a buffer instance, derives every buffer's lifetime from
// its last use, and emits explicit alloc/free around the compute instructions. It also marks
// valid but unsafe programs (RNG not preserved, in-place writes into kept tensors). With
// gradient accumulation it writes at most three micro-steps: the first, the second as the body
// of a Repeat standing for all the middle ones, and the last (program.h).
#pragma once

#include <cstdint>

#include "cancel.h"
#include "graph.h"
#include "network.h"
#include "plan.h"
#include "program.h"
#include "result.h"

namespace remat {

// From this many accumulation steps on, compile() writes micro-steps 1..G-2 once, as the body
// of a Repeat (program.h): the program holds three micro-steps whatever G is. Below it every
// micro-step is written out, as a repeat would stand for one iteration or none.
inline constexpr std::int64_t kCompactAccumulationFrom = 4;

struct CompileOptions {
    // The GEMM library's workspace (cuBLAS), resident for the whole step; 0 for none.
    std::int64_t gemmWorkspaceBytes = 0;
    // Set from another thread to stop compiling (checked once per micro-step): compile() then
    // returns kCancelledMessage.
    const CancelFlag* cancel = nullptr;
    // Write every micro-step out instead of repeating the body: the flat reference a compact
    // program is checked against (tests). Subject to the same size limit, counted in full.
    bool expandAccumulation = false;
};

Result<Program> compile(const Graph& g, const Plan& plan, const TrainingConfig& config,
                        const CompileOptions& options = {});

}  // namespace remat
