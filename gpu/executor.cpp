#include "executor.h"

namespace remat {

const ParameterValues* Measurement::gradient(TensorId parameter) const {
    for (const auto& g : gradients)
        if (g.parameter == parameter) return &g;
    return nullptr;
}

}  // namespace remat
