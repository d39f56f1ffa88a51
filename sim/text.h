// Text from outside the program (names, descriptions and values read from model files, device
// profiles, command lines) made safe to show: control characters and invalid UTF-8 written as
// escapes (`\x1b`, `\n`), so that a name cannot retitle or clear a terminal or break a layout,
// and cut to a stated length so that a 100 MB string never becomes a 100 MB message. Every
// message and view that echoes such text goes through `printable` (or `printableJson` for a
// JSON value).
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace remat {

// The default cut for a value echoed inside a message.
inline constexpr std::size_t kEchoLimit = 80;

// `s` with every byte below 0x20, DEL and every byte that is not part of valid UTF-8 written as
// `\xNN` (`\n`, `\t`, `\r` as themselves), and, when longer than `maxChars` code points, cut to
// that many followed by "… (N bytes)". Valid multi-byte UTF-8 (Chinese names) is kept as is.
std::string printable(std::string_view s, std::size_t maxChars = kEchoLimit);

// A JSON value as it appears in a message: its compact dump through `printable`, with the cut
// applied before the whole value is serialized where that matters (large strings, arrays and
// objects are summarised rather than dumped in full).
std::string printableJson(const nlohmann::json& v, std::size_t maxChars = kEchoLimit);

}  // namespace remat
