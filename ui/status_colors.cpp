#include "status_colors.h"

namespace remat::ui {

bool isDarkPalette(const QPalette& palette) {
    return palette.color(QPalette::Base).lightness() < 128;
}

QColor statusColor(Status status, const QPalette& palette) {
    // Darker shades on light backgrounds, lighter ones on dark: each keeps ~4.5:1 contrast.
    const bool dark = isDarkPalette(palette);
    switch (status) {
        case Status::Good:
            return dark ? QColor(0x4a, 0xde, 0x80) : QColor(0x15, 0x80, 0x3d);
        case Status::Bad:
            return dark ? QColor(0xf8, 0x71, 0x71) : QColor(0xb9, 0x1c, 0x1c);
        case Status::Warning:
            return dark ? QColor(0xfb, 0xbf, 0x24) : QColor(0x92, 0x40, 0x0e);
    }
    return palette.color(QPalette::Text);
}

}  // namespace remat::ui
