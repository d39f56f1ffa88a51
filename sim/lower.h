// Lowering: Network -> Graph. Expands repeats and blocks into primitive ops, gives every tensor
// its dtype and per-sample shape under the precision mode, records what each op saves for
// backward (PyTorch autograd's rules, docs/memory-model.md), builds the module tree and the
// chain the strategies work on, and counts FLOPs and bytes moved per op.
#pragma once

#include "graph.h"
#include "network.h"
#include "result.h"

namespace remat {

// One rank's share of a parallel layout (parallel.h): the graph lowered with these options holds
// what that rank computes and keeps, with its collectives recorded on the ops.
struct ShardOptions {
    // Tensor parallelism (Megatron-LM): attention heads, KV heads and MLP widths split over tp
    // ranks (column-parallel qkv, fc1, gate, up; row-parallel proj, fc2, down), the token
    // embedding and the output head split by vocabulary. Layer norms, dropout after the
    // row-parallel GEMMs and residual adds stay whole on every rank...
    std::int64_t tp = 1;
    // ...unless sequence parallelism splits them along the sequence: the column-parallel GEMMs
    // then all-gather their input (saving only the rank's part) and the row-parallel ones
    // reduce-scatter their output.
    bool sequenceParallel = false;
    // Context parallelism: the sequence split over cp ranks (the network's `input.tokens` is
    // already the rank's part); flash attention reads every rank's keys and values.
    std::int64_t cp = 1;
    // A pipeline stage: its input is the previous stage's output (a gradient flows back to it),
    // and/or it ends without a loss, sending its output on (Graph::stageOutput).
    bool receivesActivations = false;
    bool sendsActivations = false;
    // The whole model's vocabulary, which the output head of a stage without the embedding is
    // recognised by (0: the network's own).
    std::int64_t vocab = 0;
};

// The graph under the training settings that shape it: the precision mode (dtypes, autocast's
// casts) and the cross-entropy's implementation; `shard` for one rank of a parallel layout.
Result<Graph> lower(const Network& net, const TrainingConfig& training,
                    const ShardOptions& shard = {});
// The same with every other setting at its default (standard cross-entropy).
Result<Graph> lower(const Network& net, Precision precision);

}  // namespace remat
