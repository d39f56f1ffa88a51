// The compiler: (Graph, Plan, TrainingConfig) -> Program. It runs the training step once
// symbolically — forward, then backward with each checkpointed region recomputed where its
// backward starts (PyTorch non-reentrant semantics, nested regions recomputed again, early
// stop) — binds every op operand to a buffer instance, derives every buffer's lifetime from
// its last use, and emits explicit alloc/free around the compute instructions. It also marks
// valid but unsafe programs (RNG not preserved, in-place writes into kept tensors).
#pragma once

#include <cstdint>

#include "cancel.h"
#include "graph.h"
#include "network.h"
#include "plan.h"
#include "program.h"
#include "result.h"

namespace remat {

// The largest program compile() builds, as estimated (at the limit about 2.3 GiB and seconds to
// simulate, docs/model-format.md); larger ones are refused up front with the estimate.
inline constexpr std::int64_t kMaxProgramInstructions = 4000000;

struct CompileOptions {
    // The GEMM library's workspace (cuBLAS), resident for the whole step; 0 for none.
    std::int64_t gemmWorkspaceBytes = 0;
    // Set from another thread to stop compiling (checked once per micro-step): compile() then
    // returns kCancelledMessage.
    const CancelFlag* cancel = nullptr;
};

Result<Program> compile(const Graph& g, const Plan& plan, const TrainingConfig& config,
                        const CompileOptions& options = {});

}  // namespace remat
