#include "cpu_backend.h"

#include <cstring>

#include "gemm.h"

namespace remat {

CpuBackend::CpuBackend(int threads) : m_pool(threads) {}
CpuBackend::~CpuBackend() = default;

std::string CpuBackend::deviceName() const {
    const int n = m_pool.threads();
    return "CPU reference (" + cpu::gemmLibraryName() + "; " + std::to_string(n) +
           (n == 1 ? " thread)" : " threads)");
}

bool CpuBackend::supports(OpKind kind) const {
    switch (kind) {
        case OpKind::Cast:
        case OpKind::LinearCrossEntropy:
        case OpKind::PatchTokens:
        case OpKind::SelectToken: return false;
        default: return true;
    }
}

Status CpuBackend::beginStep(std::size_t instructionCount) {
    if (auto st = cpu::prepareGemm(m_pool.threads()); !st) return st;
    m_started.assign(instructionCount, Clock::time_point{});
    m_elapsedS.assign(instructionCount, 0.0);
    m_allocator.resetPeaks();
    m_scratch.resetPeak();
    m_running.reset();
    return Ok{};
}

Status CpuBackend::endStep() {
    m_allocator.trim();
    return Ok{};
}

void CpuBackend::startTimer(std::size_t instruction) {
    if (instruction < m_started.size()) m_started[instruction] = Clock::now();
}

void CpuBackend::stopTimer(std::size_t instruction) {
    if (instruction < m_started.size())
        m_elapsedS[instruction] +=
            std::chrono::duration<double>(Clock::now() - m_started[instruction]).count();
}

Result<std::vector<double>> CpuBackend::elapsedSeconds() { return m_elapsedS; }

DeviceMemoryStats CpuBackend::memoryStats() const {
    DeviceMemoryStats s;
    s.usedPeakBytes = m_allocator.usedPeakBytes();
    s.reservedPeakBytes = m_allocator.reservedPeakBytes();
    s.scratchPeakBytes = m_scratch.peakBytes();
    s.inUseBytes = m_allocator.usedBytes();
    s.heldBytes = m_allocator.reservedBytes();
    return s;
}

Result<DeviceBlock> CpuBackend::allocate(std::int64_t bytes) {
    void* p = m_allocator.allocate(bytes);
    if (!p)
        return makeError("out of host memory (" + std::to_string(m_allocator.reservedBytes()) +
                         " bytes already obtained)");
    if (m_poison) std::memset(p, 0xFF, std::size_t(bytes));
    return DeviceBlock{p, bytes};
}

void CpuBackend::release(DeviceBlock block) noexcept { m_allocator.release(block.data); }

Status CpuBackend::fillZero(DeviceBlock block) {
    std::memset(block.data, 0, std::size_t(block.bytes));
    return Ok{};
}

Status CpuBackend::upload(DeviceBlock dst, const void* host, std::int64_t bytes) {
    if (bytes > dst.bytes) return makeError("upload larger than its block");
    std::memcpy(dst.data, host, std::size_t(bytes));
    return Ok{};
}

Status CpuBackend::download(DeviceBlock src, void* host, std::int64_t bytes) {
    if (bytes > src.bytes) return makeError("download larger than its block");
    std::memcpy(host, src.data, std::size_t(bytes));
    return Ok{};
}

template <typename Kernel>
Status CpuBackend::guarded(Kernel&& k) {
    try {
        return k();
    } catch (const cpu::ScratchExhausted&) {
        return makeError("out of host memory for the CPU executor's fp32 staging");
    } catch (const cpu::GemmUnavailable& e) {
        return makeError(e.what());
    }
}

#define REMAT_CPU_ENTRY(method, call) \
    Status CpuBackend::method(const OpCall& c) { \
        return guarded([&] { return call; }); \
    }

REMAT_CPU_ENTRY(linearForward, cpu::linearForward(m_scratch, c))
REMAT_CPU_ENTRY(linearBackward, cpu::linearBackward(m_scratch, c))
REMAT_CPU_ENTRY(reluForward, cpu::unaryForward(m_scratch, cpu::Unary::Relu, c))
REMAT_CPU_ENTRY(reluBackward, cpu::unaryBackward(m_scratch, cpu::Unary::Relu, c))
REMAT_CPU_ENTRY(geluForward, cpu::unaryForward(m_scratch, cpu::Unary::Gelu, c))
REMAT_CPU_ENTRY(geluBackward, cpu::unaryBackward(m_scratch, cpu::Unary::Gelu, c))
REMAT_CPU_ENTRY(siluForward, cpu::unaryForward(m_scratch, cpu::Unary::Silu, c))
REMAT_CPU_ENTRY(siluBackward, cpu::unaryBackward(m_scratch, cpu::Unary::Silu, c))
REMAT_CPU_ENTRY(tanhForward, cpu::unaryForward(m_scratch, cpu::Unary::Tanh, c))
REMAT_CPU_ENTRY(tanhBackward, cpu::unaryBackward(m_scratch, cpu::Unary::Tanh, c))
REMAT_CPU_ENTRY(sigmoidForward, cpu::unaryForward(m_scratch, cpu::Unary::Sigmoid, c))
REMAT_CPU_ENTRY(sigmoidBackward, cpu::unaryBackward(m_scratch, cpu::Unary::Sigmoid, c))
REMAT_CPU_ENTRY(softmaxForward, cpu::softmaxForward(m_scratch, c))
REMAT_CPU_ENTRY(softmaxBackward, cpu::softmaxBackward(m_scratch, c))
REMAT_CPU_ENTRY(layerNormForward, cpu::layerNormForward(m_scratch, c))
REMAT_CPU_ENTRY(layerNormBackward, cpu::layerNormBackward(m_scratch, c))
REMAT_CPU_ENTRY(rmsNormForward, cpu::rmsNormForward(m_scratch, c))
REMAT_CPU_ENTRY(rmsNormBackward, cpu::rmsNormBackward(m_scratch, c))
REMAT_CPU_ENTRY(dropoutForward, cpu::dropoutForward(m_scratch, c))
REMAT_CPU_ENTRY(dropoutBackward, cpu::dropoutBackward(m_scratch, c))
REMAT_CPU_ENTRY(mulForward, cpu::mulForward(m_scratch, c))
REMAT_CPU_ENTRY(mulBackward, cpu::mulBackward(m_scratch, c))
REMAT_CPU_ENTRY(addForward, cpu::addForward(m_scratch, c))
REMAT_CPU_ENTRY(addBackward, cpu::addBackward(m_scratch, c))
REMAT_CPU_ENTRY(embeddingForward, cpu::embeddingForward(m_scratch, c))
REMAT_CPU_ENTRY(embeddingBackward, cpu::embeddingBackward(m_scratch, c))
REMAT_CPU_ENTRY(attnScoresForward, cpu::attnScoresForward(m_scratch, c))
REMAT_CPU_ENTRY(attnScoresBackward, cpu::attnScoresBackward(m_scratch, c))
REMAT_CPU_ENTRY(attnContextForward, cpu::attnContextForward(m_scratch, c))
REMAT_CPU_ENTRY(attnContextBackward, cpu::attnContextBackward(m_scratch, c))
REMAT_CPU_ENTRY(expandKvForward, cpu::expandKvForward(m_scratch, c))
REMAT_CPU_ENTRY(expandKvBackward, cpu::expandKvBackward(m_scratch, c))
REMAT_CPU_ENTRY(crossEntropyForward, cpu::crossEntropyForward(m_scratch, c))
REMAT_CPU_ENTRY(crossEntropyBackward, cpu::crossEntropyBackward(m_scratch, c))
REMAT_CPU_ENTRY(mseForward, cpu::mseForward(m_scratch, c))
REMAT_CPU_ENTRY(mseBackward, cpu::mseBackward(m_scratch, c))
REMAT_CPU_ENTRY(conv2dForward, cpu::conv2dForward(m_scratch, c))
REMAT_CPU_ENTRY(conv2dBackward, cpu::conv2dBackward(m_scratch, c))
REMAT_CPU_ENTRY(batchNorm2dForward, cpu::batchNorm2dForward(m_scratch, m_running, c))
REMAT_CPU_ENTRY(batchNorm2dBackward, cpu::batchNorm2dBackward(m_scratch, c))
REMAT_CPU_ENTRY(maxPool2dForward, cpu::maxPool2dForward(m_scratch, c))
REMAT_CPU_ENTRY(maxPool2dBackward, cpu::maxPool2dBackward(m_scratch, c))
REMAT_CPU_ENTRY(globalAvgPoolForward, cpu::globalAvgPoolForward(m_scratch, c))
REMAT_CPU_ENTRY(globalAvgPoolBackward, cpu::globalAvgPoolBackward(m_scratch, c))
REMAT_CPU_ENTRY(flashAttnForward, cpu::flashAttnForward(m_scratch, c))
REMAT_CPU_ENTRY(flashAttnBackward, cpu::flashAttnBackward(m_scratch, c))
REMAT_CPU_ENTRY(rotaryForward, cpu::rotaryForward(m_scratch, c))
REMAT_CPU_ENTRY(rotaryBackward, cpu::rotaryBackward(m_scratch, c))

#undef REMAT_CPU_ENTRY

Status CpuBackend::optimizerStep(const OptimizerCall& c) {
    return cpu::optimizerStep(m_pool, c);
}

}  // namespace remat
