// The two status colours ("fits" / "does not fit", a warning) the panels share, picked for the
// palette in use so they stay readable on a light and on a dark background. They always go with
// words: colour is never the only signal.
#pragma once

#include <QColor>
#include <QPalette>

namespace remat::ui {

enum class Status { Good, Bad, Warning };

QColor statusColor(Status status, const QPalette& palette);
bool isDarkPalette(const QPalette& palette);

}  // namespace remat::ui
