// Cluster profiles: what a multi-GPU prediction needs beyond one device. The GPU (a device
// profile), how many share a node, the links between them (NVLink or the like inside a node,
// the network between nodes, the host link to CPU memory: bandwidth per GPU and direction, and
// latency per message) and the host's memory for offload, each with its source. Built-in
// profiles live in resources/clusters/; a user profile is a JSON file of the same format
// (docs/parallelism.md). Collective costs follow the ring model of comm_cost.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device.h"
#include "result.h"

namespace remat {

struct LinkSpec {
    double bandwidthBytesPerS = 0;  // per GPU, per direction
    double latencyS = 0;            // per message step
    std::string source;
};

struct ClusterSpec {
    std::string id;
    std::string name;
    DeviceSpec device;
    std::int64_t gpusPerNode = 8;
    LinkSpec intraNode;  // GPU to GPU inside a node
    LinkSpec interNode;  // GPU to GPU across nodes (the network share of one GPU)
    LinkSpec hostLink;   // GPU to its host's memory (PCIe)
    std::int64_t hostMemoryBytes = 0;            // per node
    double hostMemoryBandwidthBytesPerS = 0;     // per node: the CPU optimizer step's rate
    std::string source;
};

Result<ClusterSpec> parseCluster(const std::string& json, const std::string& origin);

const std::vector<ClusterSpec>& builtinClusters();
// A built-in id ("dgx-a100-80gb") or a path to a cluster profile file.
Result<ClusterSpec> findCluster(const std::string& idOrPath);
// The built-in cluster made of `device` (the first whose device id matches), else a node of
// eight such GPUs on PCIe only, named as such: the default when only --device is given.
ClusterSpec clusterForDevice(const DeviceSpec& device);

}  // namespace remat
