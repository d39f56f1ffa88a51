// The largest micro-batch under a parallel layout: what `remat max-batch` answers when the step
// is spread over several GPUs. Per GPU, for the rank that peaks: the largest micro-batch per
// data-parallel rank whose peaking rank fits the GPU, and, for a global batch G across the
// data-parallel ranks, the largest micro-batch dividing G / dp that fits with the accumulation
// steps (pipeline micro-batches) that reach G. Every figure is a layout evaluated whole
// (parallel_eval.h): lowered per stage, planned, compiled, sharded and simulated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cancel.h"
#include "cluster.h"
#include "network.h"
#include "parallel_eval.h"
#include "pareto.h"
#include "strategy.h"

namespace remat {

struct ParallelBatchFit {
    BatchFit fit;  // label, the largest and the chosen micro-batch, peak per GPU, step, samples/s
    std::int64_t globalBatch = 0;       // micro-batch x accumulation x dp at the chosen setting
    std::vector<std::string> unsafe;    // the peaking rank's program's unsafe reasons
    std::string noFitReason;            // when not even micro-batch 1 fits: why, per GPU
};

// `training.parallel` is the layout (not single). With `globalBatch` G > 0, G must split over
// dp (the error says so) and the accumulation steps become G / dp / micro-batch; otherwise the
// configured accumulation steps are kept. The largest micro-batch is searched at the configured
// accumulation steps (the peak grows with the micro-batch there), the chosen one among the
// divisors of G / dp, each at its own accumulation (a pipeline's in-flight count follows it).
// Strategies with a budget (optimal) are refused: they plan each stage within the budget.
Result<ParallelBatchFit> fitStrategyParallel(const Network& net, const Strategy& s,
                                             const TrainingConfig& training,
                                             const ClusterSpec& cluster, std::int64_t globalBatch,
                                             const CancelFlag* cancel = nullptr);

}  // namespace remat
