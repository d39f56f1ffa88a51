#include "text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace remat {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF count as invalid).
std::size_t utf8Length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
    else return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

void appendEscaped(std::string& out, unsigned char c) {
    switch (c) {
        case '\n': out += "\\n"; return;
        case '\t': out += "\\t"; return;
        case '\r': out += "\\r"; return;
        default: break;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
}

}  // namespace

std::string printable(std::string_view s, std::size_t maxChars) {
    std::string out;
    out.reserve(std::min(s.size(), maxChars * 4) + 16);
    std::size_t chars = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        if (chars == maxChars) {
            out += "\xE2\x80\xA6 (" + std::to_string(s.size()) + " bytes)";  // "…"
            return out;
        }
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const std::size_t n = utf8Length(s, i);
        if (n == 1 && c >= 0x20 && c != 0x7F) {
            out += static_cast<char>(c);
        } else if (n > 1) {
            out.append(s.substr(i, n));
        } else {
            appendEscaped(out, c);
            i += 1;
            ++chars;
            continue;
        }
        i += n;
        ++chars;
    }
    return out;
}

std::string printableJson(const nlohmann::json& v, std::size_t maxChars) {
    if (v.is_array() && v.size() > maxChars)
        return "an array of " + std::to_string(v.size()) + " elements";
    if (v.is_object() && v.size() > maxChars)
        return "an object of " + std::to_string(v.size()) + " fields";
    if (v.is_string() && v.get_ref<const std::string&>().size() > maxChars * 4)
        return "\"" + printable(v.get_ref<const std::string&>(), maxChars) + "\"";
    // Nesting is bounded before parsing (see json_input.h), so dump() recurses a few levels at
    // most; an object within the size bound still dumps to a bounded text.
    return printable(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), maxChars);
}

}  // namespace remat
