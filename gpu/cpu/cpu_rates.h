// How fast this CPU runs the executor's work, measured in a few tens of milliseconds: the
// sgemm rate and the rate of an elementwise kernel (GELU, transcendental included), both
// with the executor's thread count and its way of cutting work, and the streaming memory
// bandwidth. With them a device profile is
// turned into a CPU profile, so the simulator's roofline predicts the CPU executor's time
// (`remat run --backend cpu` prints that prediction and refuses a run predicted too long).
#pragma once

#include <cstdint>

#include "device.h"
#include "result.h"

namespace remat {

struct CpuRates {
    double gemmFlopsPerS = 0.0;
    double elementwiseFlopsPerS = 0.0;  // counted as the lowering counts them (GELU: 8)
    double bandwidthBytesPerS = 0.0;
    int threads = 1;  // the thread count the rates were measured with
};

// Host memory the probe itself uses: three 768 x 768 GEMM operands, two 256 Ki-element GELU
// arrays and two 16 MiB streaming arrays, one group at a time (the largest: 32 MiB).
inline constexpr std::int64_t kProbeBytes = std::int64_t{32} << 20;

// About 20 ms of sgemm, 10 ms of GELU and 10 ms of streaming, after one untimed warm-up
// call each, on `threads` threads (<= 0: the CPU executor's default). An error, never a
// hang, when the GEMM library cannot start (cpu/gemm.h) or the probe's memory cannot be had.
Result<CpuRates> probeCpuRates(int threads = 0);

// `profile` with the CPU's rates: matmuls of every dtype at the sgemm rate (the CPU computes
// in fp32 whatever the storage; the profile's "fp32 matmuls use TF32" switch routes fp32
// matmuls to that rate), every other op at the elementwise rate, a small per-instruction
// overhead, no GEMM library workspace and no calibration:
// the profile a CPU-executor program is compiled and predicted with. Capacity and reserve
// stay the profile's, so memory answers ("fits") still refer to the chosen device.
DeviceSpec cpuDeviceSpec(const DeviceSpec& profile, const CpuRates& rates);

}  // namespace remat
