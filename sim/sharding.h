// One rank's program under a parallel layout: the single-GPU program rewritten for what that
// rank keeps. ZeRO stage 1 shards the optimizer state and fp32 master weights over the data-
// parallel ranks, stage 2 the gradients too, stage 3 (FSDP full_shard) the parameters too
// (Rajbhandari et al. 2020, section 5). Stage 3 gathers each layer's whole parameters just
// before it runs, with the next layer's prefetched, and frees them after; stages 2 and 3 hold
// a layer's whole gradients from its backward until they are reduce-scattered. Offloading the
// optimizer (ZeRO-Offload) moves its state and master weights off the GPU. A pipeline stage
// holds the kept activations of other in-flight micro-batches for the whole of one
// micro-batch's step. Every change is an explicit buffer with its own alloc and free, so the
// timeline and its peak show it like any other tensor.
#pragma once

#include <cstdint>

#include "graph.h"
#include "types.h"
#include "parallel.h"
#include "program.h"
#include "result.h"

namespace remat {

struct ShardingPlan {
    int zeroStage = 0;
    std::int64_t shardDegree = 1;  // ranks the states are sharded over
    bool offloadOptimizer = false;
    bool offloadParameters = false;  // parameters and their gradients live on the host
    // Activations kept for backward leave the GPU after their last forward use and come back
    // just before their first use in backward (recompute or backward): each such storage
    // becomes two buffers, the forward one and the one brought back.
    bool offloadActivations = false;
    // Kept activations of the other in-flight micro-batches: `inFlight - 1` times `perMicroBatch`.
    double inFlight = 1.0;
    Affine keptPerMicroBatch;
};

// The buffers' sizes under the plan's sharding and offload (the first part of the rewrite).
void resizeForSharding(std::vector<Buffer>& buffers, const ShardingPlan& plan);
// Whether the rewrite inserts buffers (gathered parameters, whole gradients, the in-flight band,
// activation offload) rather than only resizing: without, the rewritten program is the same
// instructions over the resized buffers.
bool shardingInserts(const ShardingPlan& plan);

// Rewrites `p` (compiled for one rank's graph `g`) in place. A repeat's bounds follow the
// instructions they held.
Status applySharding(const Graph& g, Program& p, const ShardingPlan& plan);
// The same rewrite into a new program, `src` unchanged: what applySharding on a copy gives, with
// each instruction copied once. `validate` false skips the final validateProgram (a search that
// keeps no program; the rewrite of a valid program is valid, which the tests check with it on).
Result<Program> shardedProgram(const Graph& g, const Program& src, const ShardingPlan& plan,
                               bool validate = true);

// The model states one GPU holds under a ZeRO stage, by category, for a rank whose graph has
// `parameterCount` parameters (after tensor and pipeline parallelism): parameters and their
// gradients in the compute dtype, the optimizer's fp32 state plus, under mixed precision, the
// fp32 master weights (K bytes per parameter: 12 for mixed-precision Adam). Stage 1 divides the
// optimizer state by `shardDegree`, stage 2 the gradients too, stage 3 the parameters too
// (Rajbhandari et al. 2020, figure 1: 7.5B parameters on 64 GPUs take 120 GB, 31.4 GB, 16.6 GB
// and 1.9 GB per GPU at stages 0-3). These are the resident states: the gathered parameters and
// whole gradients stages 2 and 3 hold while a layer runs are not counted here.
struct ModelStateBytes {
    std::int64_t parameters = 0;
    std::int64_t gradients = 0;
    std::int64_t optimizerState = 0;
    std::int64_t total() const { return parameters + gradients + optimizerState; }
};
ModelStateBytes zeroModelStates(std::int64_t parameterCount, Precision precision,
                                Optimizer optimizer, int zeroStage, std::int64_t shardDegree);
// Bytes of the kept activations the rewrite moved to the host in one micro-batch (0 without
// offloadActivations): what the host must hold for it and the host link moves each way.
std::int64_t offloadedActivationBytes(const Program& p, std::int64_t microBatch);

// Each layer instance's parameter bytes (whole, unsharded), by expanded layer index.
std::vector<std::int64_t> layerParameterBytes(const Graph& g);

}  // namespace remat
