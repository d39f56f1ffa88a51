// Deterministic initial values, produced on the host by the program driver for every
// backend: parameters from (seed, parameter name) — so plans of one network, and CPU and GPU
// runs, start from identical weights — and each micro-step's input data from (seed,
// micro-step, input name). docs/executors.md states the distributions.
#pragma once

#include <cstdint>
#include <vector>

#include "graph.h"

namespace remat {

// fp32 values of a parameter: rank >= 2 (weights, embeddings) uniform in +-1/sqrt(fan_in)
// with fan_in the product of all dimensions but the first; rank 1 named "*.weight" (norm
// gains) 1 + uniform(+-0.1); other rank 1 (biases) uniform(+-0.1).
std::vector<float> parameterInitialValues(const Tensor& parameter, std::uint64_t seed);

// fp32 data of a floating input buffer (dense input, mse target): uniform(+-1).
std::vector<float> denseInputValues(const Tensor& input, std::int64_t elements,
                                    std::uint64_t seed, std::uint32_t microStep);

// Integer data of a token or target buffer, uniform in [0, classes).
std::vector<std::int64_t> integerInputValues(const Tensor& input, std::int64_t elements,
                                             std::int64_t classes, std::uint64_t seed,
                                             std::uint32_t microStep);

// The range of an integer input: the vocabulary of the embedding that reads it or the class
// count of the cross-entropy that uses it as targets; 0 when no op says.
std::int64_t integerInputClasses(const Graph& graph, TensorId input);

// fp32 values encoded into a buffer's dtype (F32, BF16, F16; 16-bit rounded to nearest
// even), as bytes ready to upload.
std::vector<std::uint8_t> encodeFloats(const std::vector<float>& values, DType dtype);
// The reverse: a downloaded buffer as fp32.
std::vector<float> decodeFloats(const std::vector<std::uint8_t>& bytes, DType dtype);

}  // namespace remat
