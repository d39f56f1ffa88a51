#include "app_settings.h"

#include <QFileInfo>
#include <QSettings>
#include <algorithm>

#include "cpu/host_budget.h"

namespace remat::ui {

namespace {
const char* const kGeometry = "window/geometry";
const char* const kState = "window/state";
const char* const kDevice = "simulation/lastDevice";
const char* const kUnits = "view/units";
const char* const kTheme = "view/theme";
const char* const kTimeAxis = "view/timeAxis";
const char* const kLanguage = "view/language";
const char* const kLongCpuRun = "run/askAboveSeconds";
const char* const kRecent = "files/recent";
}  // namespace

QByteArray AppSettings::geometry() const {
    return QSettings().value(kGeometry).toByteArray();
}
void AppSettings::setGeometry(const QByteArray& g) {
    QSettings().setValue(kGeometry, g);
}
QByteArray AppSettings::windowState() const {
    return QSettings().value(kState).toByteArray();
}
void AppSettings::setWindowState(const QByteArray& s) {
    QSettings().setValue(kState, s);
}

QString AppSettings::lastDevice() const {
    return QSettings().value(kDevice).toString();
}
void AppSettings::setLastDevice(const QString& id) {
    QSettings().setValue(kDevice, id);
}

ByteUnits AppSettings::units() const {
    return QSettings().value(kUnits).toString() == QLatin1String("GB") ? ByteUnits::Decimal
                                                                       : ByteUnits::Binary;
}
void AppSettings::setUnits(ByteUnits u) {
    QSettings().setValue(kUnits,
                         u == ByteUnits::Decimal ? QStringLiteral("GB") : QStringLiteral("GiB"));
}

Theme AppSettings::theme() const {
    return themeFromKey(QSettings().value(kTheme).toString());
}
void AppSettings::setTheme(Theme t) {
    QSettings().setValue(kTheme, themeKey(t));
}

bool AppSettings::timeAxis() const {
    return QSettings().value(kTimeAxis, false).toBool();
}
void AppSettings::setTimeAxis(bool time) {
    QSettings().setValue(kTimeAxis, time);
}

double AppSettings::longCpuRunSeconds() const {
    bool ok = false;
    const double s = QSettings().value(kLongCpuRun, kLongCpuRunSeconds).toDouble(&ok);
    return ok && s >= 0.0 ? s : kLongCpuRunSeconds;
}
void AppSettings::setLongCpuRunSeconds(double seconds) {
    QSettings().setValue(kLongCpuRun, std::max(0.0, seconds));
}

QString AppSettings::language() const {
    return QSettings().value(kLanguage).toString();
}
void AppSettings::setLanguage(const QString& code) {
    if (code.isEmpty())
        QSettings().remove(kLanguage);
    else
        QSettings().setValue(kLanguage, code);
}

QStringList AppSettings::recentFiles() const {
    return QSettings().value(kRecent).toStringList();
}

QStringList AppSettings::addRecentFile(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecentFiles) files.removeLast();
    QSettings().setValue(kRecent, files);
    return files;
}

void AppSettings::removeRecentFile(const QString& path) {
    QStringList files = recentFiles();
    files.removeAll(path);
    QSettings().setValue(kRecent, files);
}

}  // namespace remat::ui
