// The CPU reference backend: every op in scope (backend.h), forward and backward, in fp32
// with 16-bit buffers emulated by rounding on store; GEMMs through single-threaded CBLAS
// calls, one per fixed tile, and every kernel spread over a thread pool (all cores by
// default) in a way that gives the same bits with any thread count (cpu_kernels.h); memory
// from a size-class caching allocator whose
// high-water mark of bytes obtained from the system is the device-level figure. It is the
// reference the CUDA backend is checked against and the backend the driver's host logic is
// tested through. Convolutions run as im2col and the same tiled GEMM; batch norm keeps its
// running statistics on the host for the step (runningStatistics()).
#pragma once

#include <chrono>
#include <vector>

#include "backend.h"
#include "cpu_kernels.h"
#include "host_allocator.h"
#include "thread_pool.h"

namespace remat {

class CpuBackend final : public Backend {
public:
    // `threads` <= 0: cpu::defaultThreadCount() (REMAT_CPU_THREADS, else every core).
    explicit CpuBackend(int threads = 0);
    ~CpuBackend() override;

    int threads() const { return m_pool.threads(); }

    std::string name() const override { return "cpu"; }
    std::string displayName() const override { return "CPU"; }
    std::string deviceName() const override;
    bool supports(OpKind kind) const override;

    Status beginStep(std::size_t instructionCount) override;
    Status endStep() override;
    void startTimer(std::size_t instruction) override;
    void stopTimer(std::size_t instruction) override;
    Result<std::vector<double>> elapsedSeconds() override;
    DeviceMemoryStats memoryStats() const override;

    Result<DeviceBlock> allocate(std::int64_t bytes) override;
    void release(DeviceBlock block) noexcept override;
    Status fillZero(DeviceBlock block) override;
    Status upload(DeviceBlock dst, const void* host, std::int64_t bytes) override;
    Status download(DeviceBlock src, void* host, std::int64_t bytes) override;

    Status linearForward(const OpCall& c) override;
    Status linearBackward(const OpCall& c) override;
    Status reluForward(const OpCall& c) override;
    Status reluBackward(const OpCall& c) override;
    Status geluForward(const OpCall& c) override;
    Status geluBackward(const OpCall& c) override;
    Status siluForward(const OpCall& c) override;
    Status siluBackward(const OpCall& c) override;
    Status tanhForward(const OpCall& c) override;
    Status tanhBackward(const OpCall& c) override;
    Status sigmoidForward(const OpCall& c) override;
    Status sigmoidBackward(const OpCall& c) override;
    Status softmaxForward(const OpCall& c) override;
    Status softmaxBackward(const OpCall& c) override;
    Status layerNormForward(const OpCall& c) override;
    Status layerNormBackward(const OpCall& c) override;
    Status rmsNormForward(const OpCall& c) override;
    Status rmsNormBackward(const OpCall& c) override;
    Status dropoutForward(const OpCall& c) override;
    Status dropoutBackward(const OpCall& c) override;
    Status mulForward(const OpCall& c) override;
    Status mulBackward(const OpCall& c) override;
    Status addForward(const OpCall& c) override;
    Status addBackward(const OpCall& c) override;
    Status embeddingForward(const OpCall& c) override;
    Status embeddingBackward(const OpCall& c) override;
    Status attnScoresForward(const OpCall& c) override;
    Status attnScoresBackward(const OpCall& c) override;
    Status attnContextForward(const OpCall& c) override;
    Status attnContextBackward(const OpCall& c) override;
    Status expandKvForward(const OpCall& c) override;
    Status expandKvBackward(const OpCall& c) override;
    Status crossEntropyForward(const OpCall& c) override;
    Status crossEntropyBackward(const OpCall& c) override;
    Status mseForward(const OpCall& c) override;
    Status mseBackward(const OpCall& c) override;
    Status conv2dForward(const OpCall& c) override;
    Status conv2dBackward(const OpCall& c) override;
    Status batchNorm2dForward(const OpCall& c) override;
    Status batchNorm2dBackward(const OpCall& c) override;
    Status maxPool2dForward(const OpCall& c) override;
    Status maxPool2dBackward(const OpCall& c) override;
    Status globalAvgPoolForward(const OpCall& c) override;
    Status globalAvgPoolBackward(const OpCall& c) override;
    Status flashAttnForward(const OpCall& c) override;
    Status flashAttnBackward(const OpCall& c) override;
    Status rotaryForward(const OpCall& c) override;
    Status rotaryBackward(const OpCall& c) override;
    Status optimizerStep(const OptimizerCall& c) override;

    // Fresh blocks are filled with 0xFF bytes (NaN in every float dtype) so a kernel that
    // reads memory nobody wrote shows up as NaN in losses and gradients. On by default.
    void setPoisonFreshBlocks(bool on) { m_poison = on; }
    const HostAllocator& allocator() const { return m_allocator; }
    // Batch norm's running statistics after the last step, by op id (reset at every step:
    // every step starts from the seed).
    const cpu::RunningStatistics& runningStatistics() const { return m_running; }

private:
    template <typename Kernel>
    Status guarded(Kernel&& k);

    using Clock = std::chrono::steady_clock;
    HostAllocator m_allocator;
    cpu::ThreadPool m_pool;
    cpu::Scratch m_scratch{m_allocator, m_pool};
    cpu::RunningStatistics m_running;
    std::vector<Clock::time_point> m_started;
    std::vector<double> m_elapsedS;
    bool m_poison = true;
};

}  // namespace remat
