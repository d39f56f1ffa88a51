// Reading the files users hand the program (model files, device and calibrated profiles,
// anything dropped on the window) without trusting them: only regular files, at most a stated
// size, opened so that a FIFO or a device file never blocks; JSON whose nesting is deeper than
// any schema of ours uses is refused before the parser recurses; and every parser exception
// (syntax, numbers beyond double range such as `1e400`) becomes one message naming the file.
// Nothing here throws.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "result.h"

namespace remat {

// The largest input file read: the biggest model file of a real network is a few kilobytes.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{16} << 20;  // 16 MiB
// The deepest JSON nesting any of our formats uses is 5 (a calibrated profile's op entry);
// deeper input is refused before parsing.
inline constexpr int kMaxJsonDepth = 32;

// The bytes of `path`, or an error naming it: not found, not a regular file (directory, FIFO,
// device), larger than `maxBytes`, unreadable. `what` names the kind of file in messages
// ("model", "device profile").
Result<std::string> readInputFile(const std::string& path, const std::string& what,
                                  std::size_t maxBytes = kMaxInputFileBytes);

// `text` parsed as JSON, or "ORIGIN: $: not valid JSON: ..." with the parser's line and column,
// "nested deeper than N levels", or "number out of range".
Result<nlohmann::json> parseJsonText(const std::string& text, const std::string& origin,
                                     int maxDepth = kMaxJsonDepth);

}  // namespace remat
