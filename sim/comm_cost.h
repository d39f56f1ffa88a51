// What communication costs: where a layout's process groups sit on the cluster's nodes and the
// time of a collective or a point-to-point transfer over them. Ranks are numbered with tensor
// parallelism innermost, then context, data and pipeline parallelism (Megatron-LM's order), so
// a group whose members span more GPUs than a node holds crosses the network. Collectives
// follow the ring algorithm (NCCL's default for large messages): an all-reduce of B bytes over
// n ranks moves 2(n-1)/n x B through each rank's link in 2(n-1) steps, an all-gather or a
// reduce-scatter (n-1)/n x B in n-1 steps, each step paying the link's latency.
#pragma once

#include <cstdint>

#include "cluster.h"
#include "graph.h"
#include "parallel.h"

namespace remat {

struct GroupPlacement {
    std::int64_t size = 1;
    bool crossesNodes = false;
};

struct LayoutPlacement {
    GroupPlacement tp, cp, dp, pp;
    // ZeRO-3 hybrid sharding: the shard group is the data-parallel ranks of one node.
    GroupPlacement shard;
    // Nodes the layout occupies.
    std::int64_t nodes = 1;
};

LayoutPlacement placeLayout(const ParallelConfig& p, const ClusterSpec& c);

// The link a group's ring runs over: the network's share per GPU when it crosses nodes.
const LinkSpec& linkFor(const GroupPlacement& g, const ClusterSpec& c);

// Seconds of one collective moving a whole tensor of `bytes` over a group (0 for one rank).
double collectiveTime(CollectiveKind kind, double bytes, const GroupPlacement& g,
                      const ClusterSpec& c);
// Seconds of sending `bytes` to one peer over `link`.
double transferTime(double bytes, const LinkSpec& link);

}  // namespace remat
