// The optimizer step, fused: one kernel per parameter updates it (and its fp32 master weight
// under mixed precision) and its fp32 states in place, with no temporaries — the program shows
// none. Rules and hyper-parameters are gpu/README.md's and backend.h's, shared with the CPU
// reference: sgd; momentum (buf = mu buf + g); adam with bias correction; adamw with decoupled
// weight decay applied first.

#include <cmath>

#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

struct StepConsts {
    float lr, momentum, beta1, beta2, eps, weightDecay;
    float biasCorrection1, biasCorrection2;  // 1 - beta^step
};

// ---- kernels -------------------------------------------------------------------------------

template <Optimizer O, typename T>
__global__ void optimizerKernel(T* param, const T* grad, float* master, float* m1, float* m2,
                                std::int64_t n, StepConsts k) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        float w = master ? master[i] : toFloat(param[i]);
        const float g = toFloat(grad[i]);
        if constexpr (O == Optimizer::Sgd) {
            w -= k.lr * g;
        } else if constexpr (O == Optimizer::Momentum) {
            const float b = k.momentum * m1[i] + g;
            m1[i] = b;
            w -= k.lr * b;
        } else {
            if constexpr (O == Optimizer::AdamW) w -= k.lr * k.weightDecay * w;
            const float m = k.beta1 * m1[i] + (1.0f - k.beta1) * g;
            const float v = k.beta2 * m2[i] + (1.0f - k.beta2) * g * g;
            m1[i] = m;
            m2[i] = v;
            const float mHat = m / k.biasCorrection1;
            const float vHat = v / k.biasCorrection2;
            w -= k.lr * mHat / (sqrtf(vHat) + k.eps);
        }
        if (master) master[i] = w;
        param[i] = fromFloat<T>(w);
    }
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void optimizerStep(Optimizer o, DType t, void* param, const void* grad, float* master, float* m1,
                   float* m2, std::int64_t n, const OptimizerHyperParams& hyper, std::int64_t step,
                   cudaStream_t s) {
    REMAT_REQUIRE(n >= 0 && step >= 1, "optimizerStep");
    if (n == 0) return;
    REMAT_REQUIRE(param && grad, "optimizerStep: parameter and gradient");
    REMAT_REQUIRE(t == DType::F32 || master, "optimizerStep: 16-bit parameters need a master");
    REMAT_REQUIRE(o == Optimizer::Sgd || m1, "optimizerStep: first state");
    REMAT_REQUIRE(o == Optimizer::Sgd || o == Optimizer::Momentum || m2,
                  "optimizerStep: second state");
    StepConsts k{hyper.learningRate,
                 hyper.momentum,
                 hyper.beta1,
                 hyper.beta2,
                 hyper.epsilon,
                 hyper.weightDecay,
                 1.0f - std::pow(hyper.beta1, float(step)),
                 1.0f - std::pow(hyper.beta2, float(step))};
    dispatchFloat(t, "optimizerStep", [&](auto tag) {
        using T = decltype(tag);
        auto launch = [&](auto kernel) {
            kernel<<<gridFor(n, kBlock), kBlock, 0, s>>>(
                static_cast<T*>(param), static_cast<const T*>(grad), master, m1, m2, n, k);
        };
        switch (o) {
            case Optimizer::Sgd:
                launch(optimizerKernel<Optimizer::Sgd, T>);
                break;
            case Optimizer::Momentum:
                launch(optimizerKernel<Optimizer::Momentum, T>);
                break;
            case Optimizer::Adam:
                launch(optimizerKernel<Optimizer::Adam, T>);
                break;
            case Optimizer::AdamW:
                launch(optimizerKernel<Optimizer::AdamW, T>);
                break;
        }
    });
    REMAT_LAUNCH_CHECK("optimizerKernel");
}

}  // namespace remat::gpu::cuda
