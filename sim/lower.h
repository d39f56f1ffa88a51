// Lowering: Network -> Graph. Expands repeats and blocks into primitive ops, gives every tensor
// its dtype and per-sample shape under the precision mode, records what each op saves for
// backward (PyTorch autograd's rules, docs/memory-model.md), builds the module tree and the
// chain the strategies work on, and counts FLOPs and bytes moved per op.
#pragma once

#include "graph.h"
#include "network.h"
#include "result.h"

namespace remat {

// The graph under the training settings that shape it: the precision mode (dtypes, autocast's
// casts) and the cross-entropy's implementation.
Result<Graph> lower(const Network& net, const TrainingConfig& training);
// The same with every other setting at its default (standard cross-entropy).
Result<Graph> lower(const Network& net, Precision precision);

}  // namespace remat
