// A preset made deeper for the tests and benchmarks of long work: its repeated block repeated
// until the network has `instances` layer instances in all, and named after the count.
#pragma once

#include <cstdint>
#include <string>

#include "model_file.h"

namespace remat::test {

inline ModelFile presetWithInstances(std::int64_t instances, const char* preset = "gpt2-small") {
    ModelFile m = *loadModel(preset);
    std::int64_t others = 0;
    Layer* blocks = nullptr;
    for (Layer& l : m.network.layers) {
        if (l.repeat > 1 && !blocks)
            blocks = &l;
        else
            others += l.repeat;
    }
    if (blocks) blocks->repeat = instances - others;
    m.network.name = std::string(preset) + "-" + std::to_string(instances);
    return m;
}

}  // namespace remat::test
