// What Remat Studio remembers between sessions (QSettings): window geometry and dock layout,
// the last device profile chosen, byte units (GB or GiB), the palette, the timeline's x axis,
// the user-interface language, and the recent files list. One place for the keys so that they
// stay consistent.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include "report.h"
#include "theme.h"

namespace remat::ui {

class AppSettings {
public:
    static constexpr int kMaxRecentFiles = 10;

    QByteArray geometry() const;
    void setGeometry(const QByteArray& g);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& s);

    QString lastDevice() const;  // empty when none was chosen yet
    void setLastDevice(const QString& id);
    ByteUnits units() const;
    void setUnits(ByteUnits u);
    Theme theme() const;
    void setTheme(Theme t);
    bool timeAxis() const;  // timeline x axis: predicted time rather than instruction
    void setTimeAxis(bool time);
    // User-interface language ("zh_CN", "en"); empty: the system's. Read at start-up.
    QString language() const;
    void setLanguage(const QString& code);

    // The run panel asks before a CPU run predicted longer than this many seconds (by default
    // the figure over which `remat run` refuses without --force); 0: never asks ("Don't ask
    // again").
    double longCpuRunSeconds() const;
    void setLongCpuRunSeconds(double seconds);

    QStringList recentFiles() const;
    // Puts `path` first (dropping duplicates and files beyond the limit) and returns the list.
    QStringList addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
};

}  // namespace remat::ui
