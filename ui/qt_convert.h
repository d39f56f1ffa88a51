// Conversions between the simulator's types and Qt's: strings, byte and time formatting in the
// user's chosen units (GB or GiB), and the category colours every view shares. Only ui/ and
// app/ include Qt, so these helpers live here and sim/ stays free of it.
#pragma once

#include <QColor>
#include <QString>
#include <string>
#include <string_view>

#include "report.h"
#include "types.h"

namespace remat::ui {

inline QString toQString(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
inline std::string toStdString(const QString& s) {
    return s.toStdString();
}

// Text that came from outside the program (a model's name, a layer's name, a file name, an
// error message quoting a file) as the GUI shows it: control characters and invalid UTF-8
// escaped (`\x1b`) and cut after `maxChars` characters (remat::printable), so that a name
// cannot break a layout and a 5 MB name is not laid out at all.
inline constexpr std::size_t kShownNameChars = 80;  // names and titles
// Error messages, which quote names and paths.
inline constexpr std::size_t kShownMessageChars = 400;
QString printableText(std::string_view s, std::size_t maxChars = kShownNameChars);
QString printableText(const QString& s, std::size_t maxChars = kShownNameChars);

// Byte counts as the user chose to see them (GB or GiB).
// Named apart from remat::formatBytes: argument-dependent lookup would find both.
QString bytesText(std::int64_t bytes, ByteUnits units);
// Seconds as remat::formatSeconds writes them for the CLI, but microseconds as "µs".
QString formatSeconds(double seconds);
QString formatPercent(double fraction);

// One colour per memory category, chosen to stay distinguishable in light and dark palettes.
QColor categoryColor(Category c);
// A translated, human-readable category name ("saved activations").
QString categoryDisplayName(Category c);
// The same without the parenthesised explanation ("transient"), for legends and captions.
QString categoryShortName(Category c);

}  // namespace remat::ui
