#include "comm_cost.h"

#include <algorithm>

namespace remat {

LayoutPlacement placeLayout(const ParallelConfig& p, const ClusterSpec& c) {
    const std::int64_t node = std::max<std::int64_t>(c.gpusPerNode, 1);
    auto group = [&](std::int64_t size, std::int64_t stride) {
        return GroupPlacement{size, size > 1 && size * stride > node};
    };
    LayoutPlacement out;
    out.tp = group(p.tp, 1);
    out.cp = group(p.cp, p.tp);
    out.dp = group(p.dp, p.tp * p.cp);
    out.pp = group(p.pp, p.tp * p.cp * p.dp);
    out.shard = out.dp;
    if (p.hybridShard) {
        const std::int64_t perNode = std::max<std::int64_t>(1, node / (p.tp * p.cp));
        out.shard = group(std::min(p.dp, perNode), p.tp * p.cp);
    }
    out.nodes = p.gpus() / node + (p.gpus() % node != 0 ? 1 : 0);
    return out;
}

const LinkSpec& linkFor(const GroupPlacement& g, const ClusterSpec& c) {
    return g.crossesNodes ? c.interNode : c.intraNode;
}

double collectiveTime(CollectiveKind kind, double bytes, const GroupPlacement& g,
                      const ClusterSpec& c) {
    if (g.size <= 1 || kind == CollectiveKind::None || bytes <= 0) return 0.0;
    const LinkSpec& l = linkFor(g, c);
    const double n = double(g.size);
    const double rounds = kind == CollectiveKind::AllReduce ? 2.0 : 1.0;
    return rounds * ((n - 1.0) / n * bytes / l.bandwidthBytesPerS + (n - 1.0) * l.latencyS);
}

double transferTime(double bytes, const LinkSpec& link) {
    if (bytes <= 0) return 0.0;
    return bytes / link.bandwidthBytesPerS + link.latencyS;
}

}  // namespace remat
