// How fast this CPU runs the executor's work, measured in a few tens of milliseconds: the
// single-thread sgemm rate and the streaming memory bandwidth. With them a device profile is
// turned into a CPU profile, so the simulator's roofline predicts the CPU executor's time
// (`remat run --backend cpu` prints that prediction and refuses a run predicted too long).
#pragma once

#include "device.h"

namespace remat {

struct CpuRates {
    double gemmFlopsPerS = 0.0;
    double bandwidthBytesPerS = 0.0;
};

// About 20 ms of sgemm and 10 ms of streaming, after one untimed warm-up call each.
CpuRates probeCpuRates();

// `profile` with the CPU's rates for every dtype (the CPU computes in fp32 whatever the
// storage), a small per-instruction overhead, no GEMM library workspace and no calibration:
// the profile a CPU-executor program is compiled and predicted with. Capacity and reserve
// stay the profile's, so memory answers ("fits") still refer to the chosen device.
DeviceSpec cpuDeviceSpec(const DeviceSpec& profile, const CpuRates& rates);

}  // namespace remat
