// An independent float64 implementation of every op the executors run, forward and backward,
// and of the optimizer step: plain loops over doubles, no BLAS, no fp32 staging, no threads,
// nothing shared with the CPU backend's kernels (gpu/cpu/) but the op contract of
// gpu/backend.h and the dropout formula of counter_rng.h, which defines the mask. `remat
// selftest --backend cpu|cuda` feeds a backend and this reference identical operands and
// compares the backend's results with these, op by op, with a stated tolerance per op and
// dtype (docs/executors.md). It is small and slow on purpose: the shapes it sees have a few
// thousand elements.
//
// Values are doubles whatever the operand's dtype: a 16-bit or fp32 operand is its decoded
// value, token ids and targets are exact integers, a dropout mask is 0 or 1. The contract is
// the backends': forward reads inputs and params and writes outputs (sized by the caller);
// backward reads only saved, params and gradOutputs and ADDS into gradInputs and paramGrads
// (an empty Values is an unbound operand); a loss's backward is seeded with lossGradScale.
// Masked attention scores are -infinity; their gradient is zero.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"
#include "result.h"
#include "types.h"

namespace remat::reference {

struct Values {
    Shape shape;
    std::vector<double> v;

    Values() = default;
    explicit Values(Shape s) : shape(std::move(s)) {
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        v.assign(std::size_t(n), 0.0);
    }
    bool bound() const { return !v.empty(); }
    std::int64_t elements() const { return std::int64_t(v.size()); }
    double& operator[](std::int64_t i) { return v[std::size_t(i)]; }
    double operator[](std::int64_t i) const { return v[std::size_t(i)]; }
};

struct Call {
    const Op* op = nullptr;
    OpId opId;
    std::int64_t microBatch = 1;
    std::uint64_t seed = 0;      // dropout: rng::dropoutStream(seed, opId, rngDraw)
    std::uint32_t rngDraw = 0;
    double lossGradScale = 1.0;  // loss backward: d(objective) / d(loss)
    std::vector<Values> inputs, outputs, params;                 // forward
    std::vector<Values> saved, gradOutputs, gradInputs, paramGrads;  // backward
};

// An error for an op kind without a reference (ops no executor runs) or operands that do not fit the op's attributes.
Status forward(Call& c);
Status backward(Call& c);

struct OptimizerValues {
    Optimizer optimizer = Optimizer::Sgd;
    std::vector<double> param;   // updated in place
    std::vector<double> grad;
    std::vector<double> master;  // mixed precision: updated, and the parameter becomes it
    std::vector<double> state1, state2;
    std::int64_t step = 1;
    // gpu/backend.h's kOptimizerHyperParams, in double.
    double learningRate = 1e-3, momentum = 0.9, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8,
           weightDecay = 0.01;
};
void optimizerStep(OptimizerValues& o);

}  // namespace remat::reference
