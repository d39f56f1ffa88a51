// The CUDA backend: the Backend interface (gpu/backend.h) on one NVIDIA GPU. Memory comes from
// a dedicated CUDA memory pool (cudaMallocAsync / cudaFreeAsync on the backend's stream, where
// the program says), GEMMs from cuBLAS, everything else from the kernels in this folder; time
// from CUDA events around every instruction. Every CUDA or cuBLAS failure inside is a CudaError
// caught here and returned as a Status, so callers (the program driver, the CLI, the GUI) never
// see an exception and keep running. Nothing CUDA leaks through this header: the CUDA state
// sits behind a pointer to an incomplete type, so files compiled without nvcc can name the
// class.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "result.h"

namespace remat {

class CudaBackend final : public Backend {
public:
    // Use makeCudaBackend(): it probes the driver and device first.
    static Result<std::unique_ptr<CudaBackend>> create(int device = 0);
    ~CudaBackend() override;
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string name() const override { return "cuda"; }
    std::string displayName() const override { return "CUDA"; }
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

    // The program's resident GEMM workspace (Program::gemmWorkspace) becomes cuBLAS's
    // workspace. Until one is given cuBLAS runs with none, so it never allocates memory of its
    // own that the program does not show. An unbound block detaches it.
    Status setGemmWorkspace(DeviceBlock block) override;

    // Bytes handed out by allocate() and not yet released, counted here at the allocator.
    std::int64_t liveBytes() const;
    // Device memory the CUDA context and cuBLAS took before any buffer: cudaMemGetInfo's used
    // bytes after the handle was created minus before the backend touched the device (the
    // context itself is created by that first call, so this is a lower bound).
    std::int64_t libraryOverheadBytes() const;

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
    // Convolution, batch norm and pooling (cuda_conv_ops.cpp).
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

    struct State;  // CUDA handles; defined in cuda_state.h

private:
    explicit CudaBackend(std::unique_ptr<State> state);
    Status activationForward(const OpCall& c);
    Status activationBackward(const OpCall& c);

    std::unique_ptr<State> m_state;
};

// The plugin's factory (plugin_entry.cpp calls it; programs reach it through makeBackend).
// Probes the driver and device; on failure returns the reason ("cudaErrorNoDevice (100), ...",
// "no CUDA device is visible") and never aborts.
Result<std::unique_ptr<Backend>> makeCudaBackend();

}  // namespace remat
