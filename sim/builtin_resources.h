// The preset models and device profiles of resources/, compiled into the library so that the
// CLI works from any directory and on a machine that has only the binary.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace remat {

struct BuiltinFile {
    std::string_view id;    // file name without extension: "gpt2-small"
    std::string_view text;  // the JSON
};

const std::vector<BuiltinFile>& builtinDeviceFiles();
const std::vector<BuiltinFile>& builtinModelFiles();
const std::vector<BuiltinFile>& builtinClusterFiles();

}  // namespace remat
