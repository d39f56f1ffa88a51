#include "axis_units.h"

namespace remat::ui {

AxisUnit byteAxisUnit(double largestBytes, ByteUnits units) {
    const double base = units == ByteUnits::Binary ? 1024.0 : 1000.0;
    static const char* binary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char* decimal[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int i = 0;
    double scale = 1.0;
    while (i < 5 && largestBytes >= base * scale) {
        scale *= base;
        ++i;
    }
    return {scale, QString::fromLatin1(units == ByteUnits::Binary ? binary[i] : decimal[i])};
}

AxisUnit timeAxisUnit(double largestSeconds) {
    if (largestSeconds >= 1.0) return {1.0, QStringLiteral("s")};
    if (largestSeconds >= 1e-3) return {1e-3, QStringLiteral("ms")};
    return {1e-6, QStringLiteral("µs")};
}

}  // namespace remat::ui
