// Memory budgets as people write them: `optimal:40GiB`, `optimal:512MB`, `1.5TiB`, or a plain
// byte count. Parsing is exact (integer arithmetic on the decimal digits, rounded down to a whole
// byte) and the canonical spelling parses back to the same count, so a strategy spelled from a
// budget names exactly that budget.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "result.h"

namespace remat {

// "123456", "40GiB", "512MB", "1.5 TiB", "64k" (binary units KiB..PiB and K/M/G/T, decimal
// units KB..PB; case-insensitive). Positive and at most 2^50 bytes.
Result<std::int64_t> parseByteSize(std::string_view text);

// The count in the unit (binary or decimal) that makes it the smallest whole number: "40GiB",
// "512MB"; the plain byte count when no unit divides it.
std::string byteSizeSpelling(std::int64_t bytes);

}  // namespace remat
