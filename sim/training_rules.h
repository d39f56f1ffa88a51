// Rules of the training settings that the compiler, the simulator and the optimal planners'
// model must apply alike: the dtype of parameter gradients, which combinations of settings are
// valid, and the temporaries each optimizer implementation allocates (PyTorch's torch/optim
// code, docs/memory-model.md "Optimizer implementations").
#pragma once

#include <cstdint>

#include "network.h"
#include "result.h"
#include "types.h"

namespace remat {

// Parameter gradients: in the parameters' dtype, or fp32 main gradients under Megatron-style
// mixed precision (where gradients are fp32 anyway, fp32 and autocast, `main_grads` changes
// nothing).
constexpr DType gradientDType(Precision p, MainGrads m) {
    return hasMasterWeights(p) && m == MainGrads::Fp32 ? DType::F32 : parameterDType(p);
}
inline DType gradientDType(const TrainingConfig& c) {
    return gradientDType(c.precision, c.mainGrads);
}

// Refuses settings that do not go together (fp32 main gradients with pure bf16, which no
// framework runs), naming the setting as `main_grads`.
Status checkTrainingConfig(const TrainingConfig& c);

// Bytes of temporaries the optimizer step allocates for one parameter of `elements` elements:
// - fused (`fused=True`, apex/Transformer Engine FusedAdam): none;
// - foreach (`_multi_tensor_adam`): `torch._foreach_sqrt(exp_avg_sqs)` materialises one
//   state-sized tensor per parameter, for all parameters at once (the caller sums them into one
//   list that lives across the whole step); SGD and momentum update in place (none);
// - for-loop (`_single_tensor_adam`): `exp_avg_sq.sqrt() / bias_correction2_sqrt` holds two
//   state-sized tensors of the one parameter at once; SGD and momentum: none.
// The executors' hyper-parameters have no L2 weight decay for Adam and no Nesterov momentum,
// which would add a gradient-sized temporary.
std::int64_t optimizerTemporaryBytes(std::int64_t elements, Precision p, Optimizer o,
                                     OptimizerImpl impl);
inline std::int64_t optimizerTemporaryBytes(std::int64_t elements, const TrainingConfig& c) {
    return optimizerTemporaryBytes(elements, c.precision, c.optimizer, c.optimizerImpl);
}

}  // namespace remat
