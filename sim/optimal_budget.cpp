#include "optimal_budget.h"

#include <array>
#include <cctype>
#include <utility>

#include "device.h"

namespace remat {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

constexpr std::int64_t kKi = 1024;

}  // namespace

Result<std::int64_t> parseByteSize(std::string_view text) {
    const std::string original(text);
    auto bad = [&](const std::string& why) {
        return makeError("'" + original + "' is not a byte size (" + why +
                         "; write e.g. 40GiB, 512MB or 1073741824)");
    };
    std::size_t i = 0;
    while (i < text.size() && text[i] == ' ') ++i;
    std::int64_t whole = 0;
    std::int64_t fracDigits = 0, fracScale = 1;
    bool any = false, dot = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.' && !dot) {
            dot = true;
            continue;
        }
        if (c < '0' || c > '9') break;
        any = true;
        if (!dot) {
            if (whole > (std::int64_t{1} << 52)) return bad("too large");
            whole = whole * 10 + (c - '0');
        } else if (fracScale < 1000000000) {  // further digits are below a byte at any unit
            fracDigits = fracDigits * 10 + (c - '0');
            fracScale *= 10;
        }
    }
    if (!any) return bad("no number");
    while (i < text.size() && text[i] == ' ') ++i;
    const std::string unit = lower(text.substr(i));
    static const std::array<std::pair<const char*, std::int64_t>, 17> kUnits = {
        {{"", 1},
         {"b", 1},
         {"k", kKi},
         {"kib", kKi},
         {"kb", 1000},
         {"m", kKi * kKi},
         {"mib", kKi * kKi},
         {"mb", 1000 * 1000},
         {"g", kKi * kKi * kKi},
         {"gib", kKi * kKi * kKi},
         {"gb", std::int64_t{1000} * 1000 * 1000},
         {"t", kKi * kKi * kKi * kKi},
         {"tib", kKi * kKi * kKi * kKi},
         {"tb", std::int64_t{1000} * 1000 * 1000 * 1000},
         {"p", kKi * kKi * kKi * kKi * kKi},
         {"pib", kKi * kKi * kKi * kKi * kKi},
         {"pb", std::int64_t{1000} * 1000 * 1000 * 1000 * 1000}}};
    std::int64_t scale = 0;
    for (const auto& [name, s] : kUnits)
        if (unit == name) scale = s;
    if (scale == 0) return bad("unknown unit '" + std::string(text.substr(i)) + "'");
    if (whole > kMaxDeviceBytes / scale) return bad("more than 1 PiB");
    // fracDigits / fracScale * scale, rounded down; the product needs more than 64 bits.
    __extension__ using Wide = __int128;
    const auto frac = std::int64_t(Wide(fracDigits) * Wide(scale) / Wide(fracScale));
    const std::int64_t bytes = whole * scale + frac;
    if (bytes <= 0) return bad("must be positive");
    if (bytes > kMaxDeviceBytes) return bad("more than 1 PiB");
    return bytes;
}

std::string byteSizeSpelling(std::int64_t bytes) {
    // The unit giving the smallest whole number, binary or decimal: 40GiB, 512MB.
    static const std::array<std::pair<const char*, std::int64_t>, 8> kUnits = {
        {{"TiB", kKi * kKi * kKi * kKi},
         {"TB", std::int64_t{1000} * 1000 * 1000 * 1000},
         {"GiB", kKi * kKi * kKi},
         {"GB", std::int64_t{1000} * 1000 * 1000},
         {"MiB", kKi * kKi},
         {"MB", std::int64_t{1000} * 1000},
         {"KiB", kKi},
         {"KB", 1000}}};
    std::string best = std::to_string(bytes);
    std::int64_t bestValue = bytes;
    for (const auto& [name, s] : kUnits)
        if (bytes > 0 && bytes % s == 0 && bytes / s < bestValue) {
            bestValue = bytes / s;
            best = std::to_string(bestValue) + name;
        }
    return best;
}

}  // namespace remat
