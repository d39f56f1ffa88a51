#include "cpu_rates.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

#include "gemm.h"
#include "report.h"
#include "thread_pool.h"

namespace remat {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

CpuRates probeRates(cpu::ThreadPool& pool);

}  // namespace

Result<CpuRates> probeCpuRates(int threads) {
    cpu::ThreadPool pool(threads);
    // The GEMM library first: under a memory limit its work buffers may not be obtainable,
    // and OpenBLAS would retry that forever inside the first sgemm below.
    if (auto st = cpu::prepareGemm(pool.threads()); !st) return st.error();
    try {
        return probeRates(pool);
    } catch (const std::bad_alloc&) {
        return makeError("out of host memory while probing this CPU's rates (the probe needs "
                         "about " + formatBytes(kProbeBytes) + ")");
    }
}

namespace {

CpuRates probeRates(cpu::ThreadPool& pool) {
    CpuRates r;
    r.threads = pool.threads();
    {
        constexpr std::int64_t n = 3 * cpu::kGemmTileRows;  // 9 tiles, as the kernels cut them
        std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.0f);
        auto once = [&] {
            cpu::parallelSgemm(pool, cpu::Transpose::No, cpu::Transpose::Yes, n, n, n, 1.0f,
                               a.data(), n, b.data(), n, 0.0f, c.data(), n);
        };
        once();
        int calls = 0;
        const auto t0 = Clock::now();
        double elapsed = 0.0;
        do {
            once();
            ++calls;
            elapsed = secondsSince(t0);
        } while (elapsed < 0.02);
        r.gemmFlopsPerS = 2.0 * double(n * n * n) * calls / elapsed;
    }
    {
        // The GELU of the CPU backend (tanh approximation): 8 FLOPs per element as lowered.
        constexpr std::size_t n = std::size_t{1} << 18;
        std::vector<float> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = float(i % 97) / 50.0f - 1.0f;
        auto once = [&] {
            cpu::forEachChunk(pool, std::int64_t(n), cpu::kElementChunk,
                              [&](std::int64_t b, std::int64_t e) {
                for (std::int64_t i = b; i < e; ++i) {
                    const float v = x[std::size_t(i)];
                    y[std::size_t(i)] = 0.5f * v *
                        (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
                }
            });
        };
        once();
        int passes = 0;
        const auto t0 = Clock::now();
        double elapsed = 0.0;
        do {
            once();
            ++passes;
            elapsed = secondsSince(t0);
        } while (elapsed < 0.01);
        r.elementwiseFlopsPerS = 8.0 * double(n) * passes / elapsed;
    }
    {
        constexpr std::size_t n = std::size_t{4} << 20;  // 16 MiB of floats per array
        std::vector<float> src(n, 1.0f), dst(n, 0.0f);
        std::memcpy(dst.data(), src.data(), n * sizeof(float));
        int passes = 0;
        const auto t0 = Clock::now();
        double elapsed = 0.0;
        do {
            std::memcpy(dst.data(), src.data(), n * sizeof(float));
            ++passes;
            elapsed = secondsSince(t0);
        } while (elapsed < 0.01);
        r.bandwidthBytesPerS = 2.0 * double(n * sizeof(float)) * passes / elapsed;
    }
    return r;
}

}  // namespace

DeviceSpec cpuDeviceSpec(const DeviceSpec& profile, const CpuRates& rates) {
    DeviceSpec d = profile;
    d.name = profile.name + " (memory) / this CPU (time)";
    d.peakTf32 = d.peakBf16 = d.peakFp16 = rates.gemmFlopsPerS;
    d.fp32MatmulUsesTf32 = true;
    d.peakFp32 = rates.elementwiseFlopsPerS;  // DeviceSpec::vectorPeak(): every non-matmul op
    d.bandwidthBytesPerS = rates.bandwidthBytesPerS;
    d.launchOverheadS = 1e-6;
    d.gemmWorkspaceBytes = 0;
    d.calibrationMicroBatch = 0;
    d.measured.clear();
    d.measuredByShape.clear();
    d.calibrationOrigin = {};
    // The probed rates are what this CPU reaches, not a GPU's datasheet: no efficiency model.
    d.efficiency = {};
    d.source = "CPU rates probed by remat run";
    return d;
}

}  // namespace remat
