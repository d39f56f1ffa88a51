// `remat fit`: does a model train on N GPUs of a cluster, and how best? Enumerates parallel
// layouts (tensor x pipeline x context x data parallelism, each ZeRO stage), recompute
// strategies and micro-batch / accumulation splits of the global batch, keeps those whose
// peaking rank fits, and ranks them by predicted throughput. Says in numbers why each rejected
// family fails, the smallest GPU count that fits when N does not, and whether offloading to
// host memory would make N fit (docs/parallelism.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cancel.h"
#include "cluster.h"
#include "network.h"
#include "parallel.h"
#include "strategy.h"

namespace remat {

struct FitOptions {
    std::int64_t gpus = 8;
    std::int64_t globalBatch = 0;  // samples per step; 0: micro-batch x accumulation of the model
    std::size_t top = 5;           // candidates reported
    bool searchMinGpus = true;     // when N does not fit, find the smallest count that does
    // Evaluate every candidate on its own with evaluateParallel (the network lowered, planned,
    // compiled, sharded and simulated whole each time) instead of sharing the lowered stages,
    // the compiled programs across ZeRO stages and the ops' times. Same answer, many times
    // slower: what the tests compare the search with.
    bool reference = false;
};

struct FitCandidate {
    ParallelConfig layout;
    Strategy strategy;
    std::int64_t microBatch = 1;
    std::int64_t accumulation = 1;
    std::int64_t peakBytes = 0;
    double stepTimeS = 0;
    double mfu = 0;
    double samplesPerS = 0;
    std::int64_t hostBytesPerNode = 0;
};

struct FitResult {
    std::int64_t gpus = 0;
    std::int64_t globalBatch = 0;
    bool fits = false;
    std::vector<FitCandidate> candidates;  // fitting, best throughput first, at most `top`
    std::int64_t evaluated = 0;            // layouts x strategies x splits simulated
    // Per rejected family (a layout shape with every strategy and split tried): why.
    std::vector<std::string> rejected;
    // When nothing fits: the model states against the GPUs' memory, in words and numbers.
    std::string modelStatesMessage;
    std::int64_t minGpus = 0;  // smallest count found that fits (0: none up to the limit)
    FitCandidate minGpusPlan;  // the best plan on minGpus
    // When nothing fits on N: the best plan with offload to host memory, if one fits, else why.
    bool offloadFits = false;
    FitCandidate offloadPlan;
    std::string offloadMessage;
};

Result<FitResult> fitSearch(const Network& net, const TrainingConfig& base,
                            const ClusterSpec& cluster, const FitOptions& options,
                            const CancelFlag* cancel = nullptr);

}  // namespace remat
