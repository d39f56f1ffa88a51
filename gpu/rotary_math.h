// Rotary position embeddings (RoPE) as every backend applies them, in Hugging Face Llama's
// "rotate half" layout (GPT-NeoX's too): of a head's first `dims` dimensions, element i and
// element i + dims/2 form a pair rotated by the angle position x base^(-2i/dims); dimensions
// past `dims` (GPT-NeoX's partial rotary_pct) pass through. The angle is computed in double
// and its cosine and sine rounded to fp32 once, so the CPU and CUDA kernels rotate by the
// same factors. Marked host/device under nvcc; nothing here includes a CUDA header.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define REMAT_ROTARY_HOST_DEVICE __host__ __device__
#else
#define REMAT_ROTARY_HOST_DEVICE
#endif

namespace remat::rotary {

// The angle of pair i (0 <= i < dims/2) at `position`.
REMAT_ROTARY_HOST_DEVICE inline double angle(std::int64_t position, std::int64_t i,
                                             std::int64_t dims, double base) {
    return double(position) * ::pow(base, -2.0 * double(i) / double(dims));
}

// Forward: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin). Backward applies the transpose,
// the inverse rotation: (g1, g2) -> (g1 cos + g2 sin, g2 cos - g1 sin).
REMAT_ROTARY_HOST_DEVICE inline void rotate(float& x1, float& x2, float c, float s) {
    const float a = x1 * c - x2 * s;
    const float b = x2 * c + x1 * s;
    x1 = a;
    x2 = b;
}
REMAT_ROTARY_HOST_DEVICE inline void unrotate(float& g1, float& g2, float c, float s) {
    const float a = g1 * c + g2 * s;
    const float b = g2 * c - g1 * s;
    g1 = a;
    g2 = b;
}

}  // namespace remat::rotary
