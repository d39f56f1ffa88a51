#include "fault_injection.h"

namespace remat {

FaultInjectingBackend::FaultInjectingBackend(std::unique_ptr<Backend> inner)
    : m_inner(std::move(inner)) {}

void FaultInjectingBackend::failAllocation(int nth) {
    m_failAllocation = nth > 0 ? m_allocations + nth : 0;
}

void FaultInjectingBackend::failKernel(int nth) {
    m_failKernel = nth > 0 ? m_kernels + nth : 0;
}

void FaultInjectingBackend::cancelAtKernel(int nth, std::atomic<bool>* flag) {
    m_cancelAt = nth > 0 ? m_kernels + nth : 0;
    m_cancelFlag = flag;
}

Status FaultInjectingBackend::beginStep(std::size_t instructionCount) {
    return m_inner->beginStep(instructionCount);
}

Result<DeviceBlock> FaultInjectingBackend::allocate(std::int64_t bytes) {
    if (++m_allocations == m_failAllocation) {
        m_failAllocation = 0;
        // Worded as the backends word a real one (cpu_backend.cpp, cuda_backend.cpp).
        return makeError("out of " + std::string(m_inner->name() == "cpu" ? "host" : "GPU") +
                         " memory: requested " + std::to_string(bytes) + " bytes (injected fault)");
    }
    return m_inner->allocate(bytes);
}

Status FaultInjectingBackend::kernel(const char* entry) {
    ++m_kernels;
    if (m_kernels == m_cancelAt && m_cancelFlag) {
        m_cancelAt = 0;
        m_cancelFlag->store(true);
    }
    if (m_kernels == m_failKernel) {
        m_failKernel = 0;
        return makeError(std::string(entry) + ": kernel failed (injected fault)");
    }
    return Ok{};
}

#define REMAT_FAULT_ENTRY(method)                           \
    Status FaultInjectingBackend::method(const OpCall& c) { \
        if (auto st = kernel(#method); !st) return st;      \
        return m_inner->method(c);                          \
    }

REMAT_FAULT_ENTRY(linearForward)
REMAT_FAULT_ENTRY(linearBackward)
REMAT_FAULT_ENTRY(reluForward)
REMAT_FAULT_ENTRY(reluBackward)
REMAT_FAULT_ENTRY(geluForward)
REMAT_FAULT_ENTRY(geluBackward)
REMAT_FAULT_ENTRY(siluForward)
REMAT_FAULT_ENTRY(siluBackward)
REMAT_FAULT_ENTRY(tanhForward)
REMAT_FAULT_ENTRY(tanhBackward)
REMAT_FAULT_ENTRY(sigmoidForward)
REMAT_FAULT_ENTRY(sigmoidBackward)
REMAT_FAULT_ENTRY(softmaxForward)
REMAT_FAULT_ENTRY(softmaxBackward)
REMAT_FAULT_ENTRY(layerNormForward)
REMAT_FAULT_ENTRY(layerNormBackward)
REMAT_FAULT_ENTRY(rmsNormForward)
REMAT_FAULT_ENTRY(rmsNormBackward)
REMAT_FAULT_ENTRY(dropoutForward)
REMAT_FAULT_ENTRY(dropoutBackward)
REMAT_FAULT_ENTRY(mulForward)
REMAT_FAULT_ENTRY(mulBackward)
REMAT_FAULT_ENTRY(addForward)
REMAT_FAULT_ENTRY(addBackward)
REMAT_FAULT_ENTRY(embeddingForward)
REMAT_FAULT_ENTRY(embeddingBackward)
REMAT_FAULT_ENTRY(attnScoresForward)
REMAT_FAULT_ENTRY(attnScoresBackward)
REMAT_FAULT_ENTRY(attnContextForward)
REMAT_FAULT_ENTRY(attnContextBackward)
REMAT_FAULT_ENTRY(expandKvForward)
REMAT_FAULT_ENTRY(expandKvBackward)
REMAT_FAULT_ENTRY(crossEntropyForward)
REMAT_FAULT_ENTRY(crossEntropyBackward)
REMAT_FAULT_ENTRY(mseForward)
REMAT_FAULT_ENTRY(mseBackward)
REMAT_FAULT_ENTRY(conv2dForward)
REMAT_FAULT_ENTRY(conv2dBackward)
REMAT_FAULT_ENTRY(batchNorm2dForward)
REMAT_FAULT_ENTRY(batchNorm2dBackward)
REMAT_FAULT_ENTRY(maxPool2dForward)
REMAT_FAULT_ENTRY(maxPool2dBackward)
REMAT_FAULT_ENTRY(globalAvgPoolForward)
REMAT_FAULT_ENTRY(globalAvgPoolBackward)
REMAT_FAULT_ENTRY(flashAttnForward)
REMAT_FAULT_ENTRY(flashAttnBackward)

#undef REMAT_FAULT_ENTRY

Status FaultInjectingBackend::optimizerStep(const OptimizerCall& c) {
    if (auto st = kernel("optimizerStep"); !st) return st;
    return m_inner->optimizerStep(c);
}

}  // namespace remat
