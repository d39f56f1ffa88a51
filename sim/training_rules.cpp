#include "training_rules.h"

#include "checked.h"

namespace remat {

Status checkTrainingConfig(const TrainingConfig& c) {
    if (c.mainGrads == MainGrads::Fp32 && c.precision == Precision::Bf16)
        return makeError(
            "main_grads fp32 applies to mixed-bf16 and mixed-fp16 (Megatron-LM's "
            "fp32 gradient accumulation); pure bf16 keeps every gradient in bf16");
    return Ok{};
}

std::int64_t optimizerTemporaryBytes(std::int64_t elements, Precision p, Optimizer o,
                                     OptimizerImpl impl) {
    if (o != Optimizer::Adam && o != Optimizer::AdamW) return 0;
    const std::int64_t state = satMul(elements, dtypeBytes(optimizerStateDType(p)));
    switch (impl) {
        case OptimizerImpl::Fused:
            return 0;
        case OptimizerImpl::Foreach:
            return state;
        case OptimizerImpl::ForLoop:
            return satMul(2, state);
    }
    return 0;
}

}  // namespace remat
