// Device profiles: capacity, peak FLOP/s per dtype, memory bandwidth and launch overhead of a
// GPU (resources/devices/*.json, built into the binary), optionally calibrated with measured
// per-op times. The simulator's roofline time model and the "does it fit" answer read them.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "result.h"
#include "types.h"

namespace remat {

struct MeasuredOpTime {
    double forwardS = 0.0;
    double backwardS = 0.0;
};

struct DeviceSpec {
    std::string id;
    std::string name;
    std::int64_t memoryBytes = 0;
    double peakFp32 = 0, peakTf32 = 0, peakBf16 = 0, peakFp16 = 0;  // dense FLOP/s
    bool fp32MatmulUsesTf32 = false;
    double bandwidthBytesPerS = 0;
    double launchOverheadS = 0;
    std::int64_t reserveBytes = 0;        // CUDA context, library handles, allocator slack
    std::int64_t gemmWorkspaceBytes = 0;  // cuBLAS workspace the framework sets up
    std::string source;
    // Calibration: measured seconds per op (by op name) at `calibrationMicroBatch`.
    std::int64_t calibrationMicroBatch = 0;
    std::unordered_map<std::string, MeasuredOpTime> measured;

    std::int64_t usableBytes() const { return memoryBytes - reserveBytes; }
    double matmulPeak(DType t) const;
    // The same with TF32 allowed or not for this GEMM by the framework (PyTorch's
    // allow_tf32 flags): an fp32 GEMM runs at the `tf32` rate when it is allowed or the
    // profile says `"fp32_matmul": "tf32"`. A card without TF32 (V100, T4) lists its FP32 rate
    // as `tf32`, so allowing it changes nothing there.
    double matmulPeak(DType t, bool tf32Allowed) const;
    double vectorPeak() const { return peakFp32; }
};

// Parses a profile; `origin` (file name) prefixes error messages.
Result<DeviceSpec> parseDevice(const std::string& json, const std::string& origin);
std::string deviceToJson(const DeviceSpec& d);

// Built-in profiles, in a stable order.
const std::vector<DeviceSpec>& builtinDevices();
// A built-in id ("a100-80gb") or a path to a profile file.
Result<DeviceSpec> findDevice(const std::string& idOrPath);
// Largest value that can be passed as a device memory size without overflow worries.
inline constexpr std::int64_t kMaxDeviceBytes = std::int64_t{1} << 50;

// The plausible range of each profile field (docs/devices.md). A value outside it is a typo or a
// hostile file, never a device: it would only turn into `inf s` or `nan%` further down.
struct DeviceRange {
    double lo;
    double hi;
    const char* text;  // how messages and docs state it
};
inline constexpr DeviceRange kDeviceMemoryRange{double(std::int64_t{1} << 20), double(kMaxDeviceBytes),
                                                "(1 MiB to 1 PiB)"};
inline constexpr DeviceRange kDeviceFlopsRange{1e6, 1e19, "(1e6 to 1e19 FLOP/s)"};
inline constexpr DeviceRange kDeviceBandwidthRange{1e6, 1e16, "(1e6 to 1e16 bytes/s)"};
inline constexpr DeviceRange kDeviceLaunchOverheadRange{0.0, 0.1, "(0 to 0.1 s)"};
inline constexpr DeviceRange kMeasuredOpTimeRange{0.0, 3600.0, "(0 to 3600 s)"};
inline constexpr std::size_t kMaxDeviceIdLength = 128;

}  // namespace remat
