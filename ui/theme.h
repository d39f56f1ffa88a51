// Light and dark palettes for the whole application. Both use the Fusion style so that the
// palette is honoured on every platform, with contrast chosen so that text, selections, the
// layer stack's bars and the plots' category colours stay readable in either.
#pragma once

#include <QString>

class QApplication;

namespace remat::ui {

enum class Theme { Light, Dark };

void applyTheme(Theme theme);
QString themeKey(Theme theme);  // settings spelling: "light", "dark"
Theme themeFromKey(const QString& key);

}  // namespace remat::ui
