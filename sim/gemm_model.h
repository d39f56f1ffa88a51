// Achievable speed of one kernel on a device: the GEMM efficiency model (best achievable
// fraction of the tensor-core peak, tile and wave quantization over the SMs, and the k-loop
// fill that makes short reductions slow), the achievable fraction of memory bandwidth, and the
// GEMMs and kernel launches each op is made of in PyTorch. The simulator times an op as the
// slower of its GEMMs' compute and its bytes at the achievable bandwidth, plus one launch cost
// per kernel (docs/devices.md, "Achievable efficiency").
#pragma once

#include <array>
#include <cstdint>

#include "graph.h"
#include "types.h"

namespace remat {

struct DeviceSpec;

// One GEMM (or a batch of equal GEMMs): C[m x n] += A[m x k] B[k x n], `batch` times.
// `scale` multiplies its work for kernels that run a GEMM-shaped loop a fractional number of
// times (a causal fused attention does half of its blocks).
struct GemmShape {
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t batch = 1;
    double scale = 1.0;
    double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch) * scale; }
};

// How the GEMM library lays a GEMM out on the SMs: output tiles (m and n rounded up to the
// tile), each split `splits` ways along k when there are fewer tiles than SMs (split-K), run in
// waves of one tile per SM. Each tile ends by writing its output (the epilogue); the exposed
// part of that write costs as much as `kFill` more steps of the k loop. The split is the one
// with the best utilization x fill.
struct GemmSchedule {
    double tiles = 1;        // output tiles, batch included
    double splits = 1;       // k slices per tile
    double waves = 1;        // ceil(tiles x splits / SMs)
    double utilization = 1;  // useful work over the tile slots the waves occupy, (0, 1]
    double kFill = 0;        // the exposed epilogue in k-loop elements
    double fill = 1;         // k slice / (k slice + kFill)
};
GemmSchedule gemmSchedule(const DeviceSpec& d, DType dtype, const GemmShape& g);

// The exposed epilogue of a tile in elements of k: exposed x (output bytes per element at the
// SM's share of the achievable bandwidth) / (2 FLOP per element per k step at the SM's share of
// the achievable GEMM rate); tile size and SM count cancel.
double epilogueKFill(const DeviceSpec& d, DType dtype);

// Fraction of the dtype's peak one GEMM of this shape reaches on the device: the profile's best
// achievable fraction x utilization x fill of its schedule. In (0, 1]; 1 for a profile without
// an efficiency model.
double gemmEfficiency(const DeviceSpec& d, DType dtype, const GemmShape& g);
// Seconds of tensor-core work for the GEMM at that efficiency (no memory term, no launch).
double gemmComputeTime(const DeviceSpec& d, DType dtype, const GemmShape& g);

enum class Direction { Forward, Backward };

// The GEMMs of one direction of one op (at most five: a fused attention's backward).
struct GemmList {
    std::array<GemmShape, 5> items{};
    int count = 0;
    void add(const GemmShape& s) { items[std::size_t(count++)] = s; }
    const GemmShape* begin() const { return items.data(); }
    const GemmShape* end() const { return items.data() + count; }
    bool empty() const { return count == 0; }
};

// The GEMMs one direction of an op runs at this micro-batch, in PyTorch's decomposition
// (a linear's backward is a data-gradient and a weight-gradient GEMM). Empty for ops that are
// not matrix products.
GemmList opGemms(const Graph& g, const Op& op, Direction dir, std::int64_t microBatch);

// Kernels PyTorch launches for one direction of the op (each costs the device's launch
// overhead). 0 for a view.
int opKernelCount(const Op& op, Direction dir);

}  // namespace remat
