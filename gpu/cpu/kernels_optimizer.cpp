// The optimizer step on the CPU, fused: one pass over the parameter updating weight (or its
// fp32 master, then the rounded 16-bit weight) and state in place, with no temporaries,
// in fixed chunks over the pool (each element's update is independent of the others).
#include <cmath>

#include "cpu_kernels.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

// Element access with the dtype fixed at compile time: the loop runs once per parameter
// element, so a per-element dtype switch would cost more than the update itself.
template <DType kType>
float load(const void* base, std::int64_t i) {
    if constexpr (kType == DType::F32) return static_cast<const float*>(base)[i];
    else if constexpr (kType == DType::BF16) return bf16ToFloat(static_cast<const std::uint16_t*>(base)[i]);
    else return fp16ToFloat(static_cast<const std::uint16_t*>(base)[i]);
}

template <DType kType>
void store(void* base, std::int64_t i, float v) {
    if constexpr (kType == DType::F32) static_cast<float*>(base)[i] = v;
    else if constexpr (kType == DType::BF16) static_cast<std::uint16_t*>(base)[i] = floatToBf16(v);
    else static_cast<std::uint16_t*>(base)[i] = floatToFp16(v);
}

template <DType kType>
void update(const OptimizerCall& c, std::int64_t begin, std::int64_t end) {
    const OptimizerHyperParams& hp = c.hyper;
    const float lr = hp.learningRate;
    auto* m1 = static_cast<float*>(c.state1.data);
    auto* m2 = static_cast<float*>(c.state2.data);
    auto* master = static_cast<float*>(c.master.data);
    const float correction1 = 1.0f - std::pow(hp.beta1, float(c.step));
    const float correction2 = 1.0f - std::pow(hp.beta2, float(c.step));
    for (std::int64_t i = begin; i < end; ++i) {
        const float g = load<kType>(c.grad.data, i);
        float w = master ? master[i] : load<kType>(c.param.data, i);
        switch (c.optimizer) {
            case Optimizer::Sgd: w -= lr * g; break;
            case Optimizer::Momentum:
                m1[i] = hp.momentum * m1[i] + g;
                w -= lr * m1[i];
                break;
            case Optimizer::AdamW: w -= lr * hp.weightDecay * w; [[fallthrough]];
            case Optimizer::Adam: {
                m1[i] = hp.beta1 * m1[i] + (1.0f - hp.beta1) * g;
                m2[i] = hp.beta2 * m2[i] + (1.0f - hp.beta2) * g * g;
                const float mhat = m1[i] / correction1;
                const float vhat = m2[i] / correction2;
                w -= lr * mhat / (std::sqrt(vhat) + hp.epsilon);
                break;
            }
        }
        if (master) master[i] = w;
        store<kType>(c.param.data, i, w);
    }
}

}  // namespace

Status optimizerStep(ThreadPool& pool, const OptimizerCall& c) {
    const std::int64_t n = c.param.elements();
    if (!c.param.bound() || !c.grad.bound() || c.grad.elements() != n || c.grad.dtype != c.param.dtype)
        return makeError("optimizer: parameter and gradient must be bound, of one size and dtype");
    if (c.master.bound() && (c.master.dtype != DType::F32 || c.master.elements() != n))
        return makeError("optimizer: the master weight must be fp32 of the parameter's size");
    const bool momentum = c.optimizer == Optimizer::Momentum;
    const bool adam = c.optimizer == Optimizer::Adam || c.optimizer == Optimizer::AdamW;
    if ((momentum || adam) && (!c.state1.bound() || c.state1.elements() != n))
        return makeError("optimizer: missing first state");
    if (adam && (!c.state2.bound() || c.state2.elements() != n))
        return makeError("optimizer: missing second state");
    void (*kernel)(const OptimizerCall&, std::int64_t, std::int64_t) = nullptr;
    switch (c.param.dtype) {
        case DType::F32: kernel = update<DType::F32>; break;
        case DType::BF16: kernel = update<DType::BF16>; break;
        case DType::F16: kernel = update<DType::F16>; break;
        default: return makeError("optimizer: parameters must be a floating dtype");
    }
    forEachChunk(pool, n, kElementChunk,
                 [&](std::int64_t b, std::int64_t e) { kernel(c, b, e); });
    return Ok{};
}

}  // namespace remat::cpu
