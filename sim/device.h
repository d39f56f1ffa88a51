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

// Achievable efficiency (the "efficiency" object of a profile, docs/devices.md). Without it
// (`present` false) kernels are timed at the datasheet peaks.
struct DeviceEfficiency {
    bool present = false;
    // Best achievable fraction of peak_flops for a large, well-shaped GEMM, per dtype.
    double gemmFp32 = 1.0, gemmTf32 = 1.0, gemmBf16 = 1.0, gemmFp16 = 1.0;
    std::int64_t smCount = 0;             // streaming multiprocessors: one tile each per wave
    std::int64_t tileM = 1, tileN = 1;    // output tile of the GEMM kernels (rows x columns)
    // Share of each output tile's write (its epilogue) that is not hidden behind the k loop.
    double epilogueExposed = 0.0;
    double bandwidth = 1.0;               // achievable fraction of memory bandwidth
    std::string source;
};

// What a calibrated profile was measured on ("calibration.measured_on"); empty when unknown
// (profiles written before it was recorded).
struct CalibrationOrigin {
    std::string model;
    std::string precision;  // fp32 | mixed-bf16 | mixed-fp16
    std::string backend;    // cuda | cpu
    std::string deviceName;
    std::string date;       // ISO 8601, UTC
    bool known() const { return !model.empty() || !precision.empty() || !backend.empty(); }
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
    DeviceEfficiency efficiency;
    CalibrationOrigin calibrationOrigin;
    // Measured op times keyed by op kind and shape (opShapeKey), at calibrationMicroBatch: they
    // apply to any model with an op of the same shape.
    std::unordered_map<std::string, MeasuredOpTime> measuredByShape;

    std::int64_t usableBytes() const { return memoryBytes - reserveBytes; }
    double matmulPeak(DType t) const;
    double vectorPeak() const { return peakFp32; }
    // The best achievable fraction of matmulPeak(t) (1 without an efficiency model).
    double matmulBestFraction(DType t) const;
    // Achievable bytes per second for memory-bound kernels.
    double achievableBandwidth() const { return bandwidthBytesPerS * efficiency.bandwidth; }
    bool calibrated() const { return !measured.empty() || !measuredByShape.empty(); }
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
inline constexpr DeviceRange kEfficiencyFractionRange{0.01, 1.0, "(0.01 to 1)"};
inline constexpr DeviceRange kSmCountRange{1, 4096, "(1 to 4096)"};
inline constexpr DeviceRange kGemmTileRange{1, 1024, "(1 to 1024)"};
inline constexpr DeviceRange kEpilogueExposedRange{0.0, 1.0, "(0 to 1)"};

}  // namespace remat
