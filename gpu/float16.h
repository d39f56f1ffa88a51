// Conversions between fp32 and the two 16-bit float formats the program's buffers may hold
// (BF16, F16). Stores round to nearest even, as GPU conversions do, so the CPU reference
// executor's mixed-precision runs hold exactly the values a GPU would store. Host only.
#pragma once

#include <bit>
#include <cstdint>

namespace remat {

inline std::uint16_t floatToBf16(float f) {
    std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return std::uint16_t((u >> 16) | 0x0040u);  // quiet NaN
    u += 0x7FFFu + ((u >> 16) & 1u);
    return std::uint16_t(u >> 16);
}

inline float bf16ToFloat(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }

inline std::uint16_t floatToFp16(float f) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
    const std::uint16_t sign = std::uint16_t((bits >> 16) & 0x8000u);
    const std::uint32_t u = bits & 0x7FFFFFFFu;
    if (u >= 0x7F800000u) return std::uint16_t(sign | (u > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (u >= 0x477FF000u) return std::uint16_t(sign | 0x7C00u);  // >= 65520 rounds to infinity
    if (u < 0x38800000u) {                                        // below 2^-14: subnormal
        if (u <= 0x33000000u) return sign;                        // <= 2^-25 ties to even 0
        const std::uint32_t e = u >> 23;
        const std::uint32_t m = (u & 0x7FFFFFu) | 0x800000u;
        const std::uint32_t shift = 126u - e;
        std::uint32_t h = m >> shift;
        const std::uint32_t rem = m & ((1u << shift) - 1u);
        const std::uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (h & 1u))) ++h;
        return std::uint16_t(sign | h);
    }
    const std::uint32_t v = u - 0x38000000u;  // rebias the exponent from 127 to 15
    std::uint32_t h = v >> 13;
    const std::uint32_t rem = v & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return std::uint16_t(sign | h);
}

inline float fp16ToFloat(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t e = (h >> 10) & 0x1Fu;
    const std::uint32_t m = h & 0x3FFu;
    if (e == 0) {
        // Subnormal (or zero): m * 2^-24, exact in fp32.
        const float v = float(m) * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (e == 31) return std::bit_cast<float>(sign | 0x7F800000u | (m << 13));
    return std::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
}

}  // namespace remat
