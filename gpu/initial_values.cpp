#include "initial_values.h"

#include <cmath>
#include <cstring>

#include "counter_rng.h"
#include "float16.h"

namespace remat {

namespace {

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// uniform(-1, 1) from the shared counter RNG.
float symmetric(std::uint64_t stream, std::uint64_t index) {
    return 2.0f * rng::uniform01(stream, index) - 1.0f;
}

}  // namespace

std::vector<float> parameterInitialValues(const Tensor& parameter, std::uint64_t seed) {
    const std::int64_t n = parameter.elements();
    const std::uint64_t stream = rng::parameterStream(seed, parameter.name);
    std::vector<float> v(static_cast<std::size_t>(n));
    if (parameter.shape.size() >= 2) {
        std::int64_t fanIn = 1;
        for (std::size_t d = 1; d < parameter.shape.size(); ++d) fanIn *= parameter.shape[d];
        const float bound = 1.0f / std::sqrt(float(fanIn));
        for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = bound * symmetric(stream, std::uint64_t(i));
    } else {
        // Norm gains near 1 and biases near 0, but not exactly, so a kernel that ignores a
        // gain or a bias changes the result and the tests see it.
        const float base = endsWith(parameter.name, ".weight") ? 1.0f : 0.0f;
        for (std::int64_t i = 0; i < n; ++i)
            v[std::size_t(i)] = base + 0.1f * symmetric(stream, std::uint64_t(i));
    }
    return v;
}

std::vector<float> denseInputValues(const Tensor& input, std::int64_t elements,
                                    std::uint64_t seed, std::uint32_t microStep) {
    const std::uint64_t stream = rng::inputStream(seed, microStep, input.name);
    std::vector<float> v(static_cast<std::size_t>(elements));
    for (std::int64_t i = 0; i < elements; ++i) v[std::size_t(i)] = symmetric(stream, std::uint64_t(i));
    return v;
}

std::vector<std::int64_t> integerInputValues(const Tensor& input, std::int64_t elements,
                                             std::int64_t classes, std::uint64_t seed,
                                             std::uint32_t microStep) {
    const std::uint64_t stream = rng::inputStream(seed, microStep, input.name);
    std::vector<std::int64_t> v(static_cast<std::size_t>(elements));
    for (std::int64_t i = 0; i < elements; ++i)
        v[std::size_t(i)] = std::int64_t(rng::mix64(stream + rng::mix64(std::uint64_t(i))) %
                                         std::uint64_t(classes));
    return v;
}

std::int64_t integerInputClasses(const Graph& graph, TensorId input) {
    for (const Op& op : graph.ops) {
        if (op.kind == OpKind::Embedding && !op.inputs.empty() && op.inputs[0] == input)
            return op.attrs.vocab;
        if (op.kind == OpKind::CrossEntropy && op.inputs.size() > 1 && op.inputs[1] == input)
            return op.attrs.vocab;
    }
    return 0;
}

std::vector<std::uint8_t> encodeFloats(const std::vector<float>& values, DType dtype) {
    std::vector<std::uint8_t> out(values.size() * std::size_t(dtypeBytes(dtype)));
    switch (dtype) {
        case DType::F32: std::memcpy(out.data(), values.data(), out.size()); break;
        case DType::BF16:
        case DType::F16:
            for (std::size_t i = 0; i < values.size(); ++i) {
                const std::uint16_t h =
                    dtype == DType::BF16 ? floatToBf16(values[i]) : floatToFp16(values[i]);
                std::memcpy(out.data() + 2 * i, &h, 2);
            }
            break;
        default: out.clear(); break;
    }
    return out;
}

std::vector<float> decodeFloats(const std::vector<std::uint8_t>& bytes, DType dtype) {
    std::vector<float> out;
    switch (dtype) {
        case DType::F32:
            out.resize(bytes.size() / 4);
            std::memcpy(out.data(), bytes.data(), out.size() * 4);
            break;
        case DType::BF16:
        case DType::F16:
            out.resize(bytes.size() / 2);
            for (std::size_t i = 0; i < out.size(); ++i) {
                std::uint16_t h;
                std::memcpy(&h, bytes.data() + 2 * i, 2);
                out[i] = dtype == DType::BF16 ? bf16ToFloat(h) : fp16ToFloat(h);
            }
            break;
        default: break;
    }
    return out;
}

}  // namespace remat
