// The counter-based random numbers every backend shares. Dropout masks, initial weights and
// input data are pure functions of (seed, stream, element index) — no generator state — so a
// recomputed dropout reproduces its forward mask, two plans get identical weights, and the
// CUDA kernels can draw the very same bits as the CPU reference (these functions are
// constexpr and marked host/device under nvcc; nothing here includes a CUDA header).
#pragma once

#include <cstdint>
#include <string_view>

#if defined(__CUDACC__)
#define REMAT_HOST_DEVICE __host__ __device__
#else
#define REMAT_HOST_DEVICE
#endif

namespace remat::rng {

// SplitMix64's finaliser: a bijective 64-bit mix with full avalanche.
REMAT_HOST_DEVICE constexpr std::uint64_t mix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Uniform in [0, 1) with 24 random bits: exactly representable in fp32 on every device.
REMAT_HOST_DEVICE constexpr float uniform01(std::uint64_t stream, std::uint64_t index) {
    return float(mix64(stream + mix64(index)) >> 40) * (1.0f / 16777216.0f);
}

// Dropout: the stream of one op's mask for one RNG draw (Instruction::rngDraw). A recompute
// that preserves the RNG state passes the forward's draw and gets the same mask.
REMAT_HOST_DEVICE constexpr std::uint64_t dropoutStream(std::uint64_t seed, std::uint32_t opId,
                                                        std::uint32_t rngDraw) {
    return mix64(seed ^ mix64((std::uint64_t(opId) << 32) | rngDraw));
}
// Element `index` (flat, micro-batch included) is kept when its draw is >= p (p as float);
// kept elements are scaled by dropoutScale(p).
REMAT_HOST_DEVICE constexpr bool dropoutKeep(std::uint64_t stream, std::uint64_t index, float p) {
    return uniform01(stream, index) >= p;
}
REMAT_HOST_DEVICE constexpr float dropoutScale(float p) { return 1.0f / (1.0f - p); }

// FNV-1a: streams for named things (parameters, inputs).
constexpr std::uint64_t hashName(std::string_view s) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (char c : s) {
        h ^= std::uint8_t(c);
        h *= 0x100000001B3ull;
    }
    return h;
}

// The stream of a parameter's initial values: same seed and name, same weights.
constexpr std::uint64_t parameterStream(std::uint64_t seed, std::string_view name) {
    return mix64(seed ^ hashName(name));
}
// The stream of an input tensor's data for one micro-step.
constexpr std::uint64_t inputStream(std::uint64_t seed, std::uint32_t microStep,
                                    std::string_view name) {
    return mix64(mix64(seed + 0x5EEDull) ^ hashName(name) ^ (std::uint64_t(microStep) << 48));
}

}  // namespace remat::rng
