// The unit a plot axis shows its figures in: data stay exact (bytes, seconds) and the axis
// divides them by the unit's scale for its tick labels, choosing the largest unit the axis's
// largest figure reaches (GiB for 15 GiB, ms for 66 ms), in the byte units the user chose.
// Shared by the timeline, the trade-off plot and the sweep plot.
#pragma once

#include <QString>

#include "report.h"

namespace remat::ui {

struct AxisUnit {
    double scale = 1.0;
    QString name;
};

AxisUnit byteAxisUnit(double largestBytes, ByteUnits units);
AxisUnit timeAxisUnit(double largestSeconds);

}  // namespace remat::ui
