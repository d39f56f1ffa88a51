// Checked arithmetic for sizes and costs derived from user input. Sizes in a model file are
// bounded one by one, but their products (a convolution's FLOPs, attention over a long
// sequence, bytes at a large micro-batch) can pass 2^63; these helpers saturate at the int64
// maximum instead of wrapping, so that a caller's range check sees "too large" rather than a
// negative or small number.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>

namespace remat {

inline constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

// a * b for a, b >= 0, or kSaturated when the product does not fit.
constexpr std::int64_t satMul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return kSaturated;
    return r;
}

// The product of non-negative factors, saturating.
constexpr std::int64_t satProduct(std::initializer_list<std::int64_t> factors) {
    std::int64_t r = 1;
    for (std::int64_t f : factors) r = satMul(r, f);
    return r;
}

// a + b for a, b >= 0, saturating.
constexpr std::int64_t satAdd(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return kSaturated;
    return r;
}

}  // namespace remat
