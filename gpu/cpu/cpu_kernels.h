// Internal to the CPU backend: the fp32 staging of operands and the kernels behind every
// Backend entry. Kernels compute in fp32 (reductions in double); a 16-bit operand is staged
// into fp32 scratch obtained from the backend's allocator (so it shows in the device-level
// figure, never in the tracked bytes) and rounded to nearest even when written back. Each
// kernel file holds one family: elementwise, linear, norms, attention, losses, optimizer,
// convolution (im2col columns from the same scratch), batch norm and pooling.
//
// Kernels spread their work over the backend's thread pool (thread_pool.h) so that every
// output element is computed by the same operations in the same order whatever the thread
// count: element-wise and row-wise work in fixed chunks; sums over rows into a parameter
// gradient (norm gains, biases, embedding rows) per column, each column summing its rows in
// order; GEMMs in tiles of C fixed by the shape (gemm.h); attention per (sample, KV head),
// the query heads of one KV head in order. Scratch memory is taken and given back on the
// calling thread only.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "backend.h"
#include "float16.h"
#include "host_allocator.h"

namespace remat::cpu {

class ThreadPool;

// The kernels' context: fp32 scratch for 16-bit staging, counted separately from the
// program's buffers, and the thread pool the kernels run on.
class Scratch {
public:
    Scratch(HostAllocator& allocator, ThreadPool& pool) : m_allocator(allocator), m_pool(pool) {}
    ThreadPool& pool() { return m_pool; }
    float* take(std::int64_t elements);  // nullptr on out of memory
    void give(float* block, std::int64_t elements) noexcept;
    std::int64_t peakBytes() const { return m_peakBytes; }
    void resetPeak() { m_peakBytes = m_liveBytes; }

private:
    HostAllocator& m_allocator;
    ThreadPool& m_pool;
    std::int64_t m_liveBytes = 0;
    std::int64_t m_peakBytes = 0;
};

// Thrown only inside the CPU backend when scratch runs out; the backend entry turns it into
// an error Status.
struct ScratchExhausted {};

inline float loadElement(const TensorRef& t, std::int64_t i) {
    switch (t.dtype) {
        case DType::F32: return static_cast<const float*>(t.data)[i];
        case DType::BF16: return bf16ToFloat(static_cast<const std::uint16_t*>(t.data)[i]);
        case DType::F16: return fp16ToFloat(static_cast<const std::uint16_t*>(t.data)[i]);
        default: return 0.0f;
    }
}
inline void storeElement(const TensorRef& t, std::int64_t i, float v) {
    switch (t.dtype) {
        case DType::F32: static_cast<float*>(t.data)[i] = v; break;
        case DType::BF16: static_cast<std::uint16_t*>(t.data)[i] = floatToBf16(v); break;
        case DType::F16: static_cast<std::uint16_t*>(t.data)[i] = floatToFp16(v); break;
        default: break;
    }
}

// An operand read as fp32: the buffer itself when it is F32, else a staged copy. `stage`
// (optional) is caller-provided fp32 memory of at least elements() floats, e.g. a workspace
// the program declared for exactly this copy.
class ReadF32 {
public:
    ReadF32(Scratch& scratch, const TensorRef& t, float* stage = nullptr);
    ~ReadF32();
    ReadF32(const ReadF32&) = delete;
    ReadF32& operator=(const ReadF32&) = delete;
    const float* data() const { return m_data; }
    const float& operator[](std::int64_t i) const { return m_data[i]; }

private:
    Scratch& m_scratch;
    const float* m_data = nullptr;
    float* m_owned = nullptr;
    std::int64_t m_elements = 0;
};

// An operand written as fp32, rounded back into a 16-bit buffer when this goes out of scope.
// Mode::Accumulate stages the current values first (gradients are accumulated into).
class WriteF32 {
public:
    enum class Mode { Overwrite, Accumulate };
    WriteF32(Scratch& scratch, const TensorRef& t, Mode mode, float* stage = nullptr);
    ~WriteF32();
    WriteF32(const WriteF32&) = delete;
    WriteF32& operator=(const WriteF32&) = delete;
    bool bound() const { return m_data != nullptr; }
    float* data() { return m_data; }
    float& operator[](std::int64_t i) { return m_data[i]; }

private:
    Scratch& m_scratch;
    TensorRef m_ref;
    float* m_data = nullptr;
    float* m_owned = nullptr;
    bool m_staged = false;
};

// ---- kernels (one family per file) ---------------------------------------------------------
Status linearForward(Scratch& s, const OpCall& c);
Status linearBackward(Scratch& s, const OpCall& c);

enum class Unary { Relu, Gelu, Silu, Tanh, Sigmoid };
Status unaryForward(Scratch& s, Unary kind, const OpCall& c);
Status unaryBackward(Scratch& s, Unary kind, const OpCall& c);
Status softmaxForward(Scratch& s, const OpCall& c);
Status softmaxBackward(Scratch& s, const OpCall& c);
Status dropoutForward(Scratch& s, const OpCall& c);
Status dropoutBackward(Scratch& s, const OpCall& c);
Status mulForward(Scratch& s, const OpCall& c);
Status mulBackward(Scratch& s, const OpCall& c);
Status addForward(Scratch& s, const OpCall& c);
Status addBackward(Scratch& s, const OpCall& c);
Status embeddingForward(Scratch& s, const OpCall& c);
Status embeddingBackward(Scratch& s, const OpCall& c);

Status layerNormForward(Scratch& s, const OpCall& c);
Status layerNormBackward(Scratch& s, const OpCall& c);
Status rmsNormForward(Scratch& s, const OpCall& c);
Status rmsNormBackward(Scratch& s, const OpCall& c);

Status attnScoresForward(Scratch& s, const OpCall& c);
Status attnScoresBackward(Scratch& s, const OpCall& c);
Status attnContextForward(Scratch& s, const OpCall& c);
Status attnContextBackward(Scratch& s, const OpCall& c);
Status expandKvForward(Scratch& s, const OpCall& c);
Status expandKvBackward(Scratch& s, const OpCall& c);
// kernels_flash.cpp
Status flashAttnForward(Scratch& s, const OpCall& c);
Status flashAttnBackward(Scratch& s, const OpCall& c);
// kernels_rotary.cpp
Status rotaryForward(Scratch& s, const OpCall& c);
Status rotaryBackward(Scratch& s, const OpCall& c);

Status crossEntropyForward(Scratch& s, const OpCall& c);
Status crossEntropyBackward(Scratch& s, const OpCall& c);
Status mseForward(Scratch& s, const OpCall& c);
Status mseBackward(Scratch& s, const OpCall& c);

// Convolutional ops (kernels_conv.cpp, kernels_pool.cpp).
Status conv2dForward(Scratch& s, const OpCall& c);
Status conv2dBackward(Scratch& s, const OpCall& c);

// Batch norm's running statistics, per op: mean and (unbiased) variance, starting at 0 and 1
// as PyTorch's do, updated by every forward that is not a recompute with
// kBatchNormMomentum (backend.h). The program holds no buffer for them (PyTorch keeps them as
// module buffers, outside autograd); the backend keeps them on the host for the step.
class RunningStatistics {
public:
    struct Entry {
        std::vector<float> mean, var;
        std::int64_t updates = 0;
    };
    void reset();
    void update(std::uint32_t op, const std::vector<double>& mean,
                const std::vector<double>& unbiasedVar);
    const Entry* find(std::uint32_t op) const;
    const std::map<std::uint32_t, Entry>& all() const { return m_stats; }

private:
    std::map<std::uint32_t, Entry> m_stats;
};

Status batchNorm2dForward(Scratch& s, RunningStatistics& running, const OpCall& c);
Status batchNorm2dBackward(Scratch& s, const OpCall& c);
Status maxPool2dForward(Scratch& s, const OpCall& c);
Status maxPool2dBackward(Scratch& s, const OpCall& c);
Status globalAvgPoolForward(Scratch& s, const OpCall& c);
Status globalAvgPoolBackward(Scratch& s, const OpCall& c);

Status optimizerStep(ThreadPool& pool, const OptimizerCall& c);

// Operand-count checks shared by the kernels: a clear error instead of an out-of-range read
// when a program binds fewer operands than the op kind needs.
Status expectForward(const OpCall& c, std::size_t inputs, std::size_t outputs,
                     std::size_t params);
Status expectBackward(const OpCall& c, std::size_t saved, std::size_t inputs,
                      std::size_t outputs, std::size_t params);

inline constexpr float kNormEpsilon = 1e-5f;

}  // namespace remat::cpu
