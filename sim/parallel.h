// Parallel training layouts: how one training step is spread over many GPUs. Data parallelism
// with the ZeRO stages (FSDP's sharding strategies are the same stages under other names),
// tensor parallelism with optional sequence parallelism (Megatron-LM), pipeline parallelism
// with its schedule, context parallelism, and offload to host memory. This header holds the
// layout itself, its spellings and the checks that it fits the network; what a layout does to
// memory and time lives in parallel_eval.h (docs/parallelism.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "checked.h"
#include "result.h"

namespace remat {

struct Network;

enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };

struct ParallelConfig {
    std::int64_t dp = 1;    // data-parallel degree
    int zeroStage = 0;      // 0 none, 1 optimizer state, 2 + gradients, 3 + parameters
    bool hybridShard = false;  // FSDP HYBRID_SHARD: stage 3 sharded within a node only
    std::int64_t tp = 1;    // tensor-parallel degree
    bool sequenceParallel = false;
    std::int64_t pp = 1;    // pipeline stages
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    std::int64_t virtualStages = 1;  // interleaved: model chunks per pipeline rank (V)
    std::int64_t cp = 1;    // context-parallel degree
    bool offloadOptimizer = false;    // ZeRO-Offload: optimizer state and master weights on host
    bool offloadParameters = false;   // ZeRO-Infinity (stage 3): parameters and gradients on host
    bool offloadActivations = false;  // kept activations (checkpoint inputs) on host

    // GPUs the layout occupies: dp x tp x pp x cp.
    // Saturates (validateLayout refuses products past kMaxParallelDegree).
    std::int64_t gpus() const { return satMul(satMul(dp, tp), satMul(pp, cp)); }
    // One GPU, nothing sharded or offloaded: today's single-GPU prediction.
    bool single() const {
        return gpus() == 1 && zeroStage == 0 && !offloadOptimizer && !offloadParameters &&
               !offloadActivations;
    }
    bool operator==(const ParallelConfig&) const = default;
};

// The largest degree of any one dimension, and of their product: a 1,000,000-GPU layout is
// past anything trained, and keeps every product within 64 bits.
inline constexpr std::int64_t kMaxParallelDegree = 1000000;

// "0".."3", or FSDP's names: no_shard (0), shard_grad_op (2), full_shard (3), hybrid (3 within
// a node). Sets hybrid when the name is `hybrid`.
std::optional<int> parseZeroStage(std::string_view s, bool* hybrid = nullptr);
// "gpipe", "1f1b", "interleaved:V" (V >= 2).
std::optional<std::pair<PipelineSchedule, std::int64_t>> parseSchedule(std::string_view s);
std::string scheduleName(PipelineSchedule s, std::int64_t virtualStages);

// "dp 8 (ZeRO-3) x tp 8 (SP) x pp 16 (1f1b) x cp 1", the parts that are not 1 only; "1 GPU"
// when single.
std::string describeLayout(const ParallelConfig& p);

// Checks the layout against the network: degrees in range, the product within the limit,
// heads and KV heads divisible by tp, MLP widths and vocabulary divisible by tp, sequence
// divisible by tp (with sequence parallelism) and by 2 x cp, transformer blocks divisible by
// pp x V, tensor or context parallelism only on transformer models, context parallelism only
// with flash attention. The error names the field: "parallel.tp: 12 heads are not divisible
// by tp 8".
Status validateLayout(const Network& net, const ParallelConfig& p);

// In-flight micro-batches whose kept activations pipeline rank `stage` (0-based) holds at
// once, in units of the whole stage's activations of one micro-batch, for `m` micro-batches
// per step: GPipe m; 1F1B min(pp - stage, m); interleaved with V chunks counts chunk
// micro-batches (Megatron-LM's warm-up 2(pp - stage - 1) + (V - 1) pp, plus the one in
// backward), each 1/V of the stage, capped at m x V of them. pp 1 gives 1.
double inFlightMicroBatches(const ParallelConfig& p, std::int64_t stage, std::int64_t m);

// Fraction of the step a pipeline rank idles: (pp - 1) / V slots of the per-micro-batch time
// against m: bubble = (pp - 1) / (V m) of the ideal time (Narayanan et al. 2021, eq. 1 and 2).
double pipelineBubbleFraction(const ParallelConfig& p, std::int64_t m);

}  // namespace remat
