// A Backend that forwards to another and makes chosen calls fail: the Nth allocation (as an
// out-of-memory error), the Nth op entry (as a kernel error), or raises a cancel flag at the
// Nth op entry. Tests run the CPU backend through it to check what the program driver does
// when a GPU runs out of memory mid-run, a kernel fails or the user cancels: the error names
// what failed, every block goes back to the wrapped backend's pool, and the same executor
// runs the next program normally. Nothing in the product uses it.
#pragma once

#include <atomic>
#include <memory>

#include "backend.h"

namespace remat {

class FaultInjectingBackend final : public Backend {
public:
    explicit FaultInjectingBackend(std::unique_ptr<Backend> inner);

    Backend& inner() { return *m_inner; }

    // 1-based counts from now; 0 disarms. Each fault fires once.
    void failAllocation(int nth);
    void failKernel(int nth);
    void cancelAtKernel(int nth, std::atomic<bool>* flag);
    int allocations() const { return m_allocations; }
    int kernels() const { return m_kernels; }

    std::string name() const override { return m_inner->name(); }
    std::string displayName() const override { return m_inner->displayName(); }
    std::string deviceName() const override { return m_inner->deviceName(); }
    bool supports(OpKind kind) const override { return m_inner->supports(kind); }

    Status beginStep(std::size_t instructionCount) override;
    Status endStep() override { return m_inner->endStep(); }
    void startTimer(std::size_t i) override { m_inner->startTimer(i); }
    void stopTimer(std::size_t i) override { m_inner->stopTimer(i); }
    Result<std::vector<double>> elapsedSeconds() override { return m_inner->elapsedSeconds(); }
    DeviceMemoryStats memoryStats() const override { return m_inner->memoryStats(); }

    Result<DeviceBlock> allocate(std::int64_t bytes) override;
    void release(DeviceBlock block) noexcept override { m_inner->release(block); }
    Status fillZero(DeviceBlock block) override { return m_inner->fillZero(block); }
    Status upload(DeviceBlock dst, const void* host, std::int64_t bytes) override {
        return m_inner->upload(dst, host, bytes);
    }
    Status download(DeviceBlock src, void* host, std::int64_t bytes) override {
        return m_inner->download(src, host, bytes);
    }
    Status setGemmWorkspace(DeviceBlock block) override { return m_inner->setGemmWorkspace(block); }

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
    Status optimizerStep(const OptimizerCall& c) override;

private:
    // Counts an op entry; an error when this one is the kernel to fail.
    Status kernel(const char* entry);

    std::unique_ptr<Backend> m_inner;
    int m_allocations = 0, m_kernels = 0;
    int m_failAllocation = 0, m_failKernel = 0, m_cancelAt = 0;
    std::atomic<bool>* m_cancelFlag = nullptr;
};

}  // namespace remat
