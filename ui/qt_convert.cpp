#include "qt_convert.h"

#include <QCoreApplication>
#include <algorithm>

#include "text.h"

namespace remat::ui {

QString printableText(std::string_view s, std::size_t maxChars) {
    return toQString(printable(s, maxChars));
}

QString printableText(const QString& s, std::size_t maxChars) {
    // Cut before converting: a 5 MB QString is not turned into 5 MB of UTF-8 to show 80 chars.
    const qsizetype keep =
        qsizetype(std::min<std::size_t>(std::size_t(s.size()), maxChars * 2 + 8));
    QString shown = printableText(s.left(keep).toStdString(), maxChars);
    if (keep == s.size()) return shown;
    // printable's note counts the bytes it was given; say how long the whole text is.
    const qsizetype note = shown.lastIndexOf(QStringLiteral("\u2026 ("));
    if (note >= 0) shown.truncate(note + 1);
    return shown + QStringLiteral(" (%1 characters)").arg(s.size());
}

QString bytesText(std::int64_t bytes, ByteUnits units) {
    return toQString(remat::formatBytes(bytes, units));
}

QString formatSeconds(double seconds) {
    if (seconds >= 1.0) return QString::number(seconds, 'f', 3) + QStringLiteral(" s");
    if (seconds >= 1e-3) return QString::number(seconds * 1e3, 'f', 2) + QStringLiteral(" ms");
    return QString::number(seconds * 1e6, 'f', 1) + QStringLiteral(" µs");
}

QString formatPercent(double fraction) {
    return toQString(remat::formatPercent(fraction));
}

QColor categoryColor(Category c) {
    // Mid-saturation hues: legible on white and on a dark grey background alike.
    switch (c) {
        case Category::Parameters:
            return QColor(0x4e, 0x79, 0xa7);
        case Category::Gradients:
            return QColor(0xf2, 0x8e, 0x2b);
        case Category::OptimizerState:
            return QColor(0x9c, 0x75, 0x5f);
        case Category::SavedActivations:
            return QColor(0x59, 0xa1, 0x4f);
        case Category::RecomputedActivations:
            return QColor(0xe1, 0x57, 0x59);
        case Category::Transient:
            return QColor(0x76, 0xb7, 0xb2);
        case Category::Inputs:
            return QColor(0xed, 0xc9, 0x48);
        case Category::Workspace:
            return QColor(0xb0, 0x7a, 0xa1);
        case Category::GatheredParameters:
            return QColor(0x8c, 0x8c, 0xd9);
    }
    return QColor(Qt::gray);
}

QString categoryDisplayName(Category c) {
    switch (c) {
        case Category::Parameters:
            return QCoreApplication::translate("Category", "parameters");
        case Category::Gradients:
            return QCoreApplication::translate("Category", "gradients");
        case Category::OptimizerState:
            return QCoreApplication::translate("Category", "optimizer state");
        case Category::SavedActivations:
            return QCoreApplication::translate("Category", "saved activations");
        case Category::RecomputedActivations:
            return QCoreApplication::translate("Category", "recomputed activations");
        case Category::Transient:
            return QCoreApplication::translate("Category",
                                               "transient (temporaries, activation gradients)");
        case Category::Inputs:
            return QCoreApplication::translate("Category", "inputs");
        case Category::Workspace:
            return QCoreApplication::translate("Category", "workspace");
        case Category::GatheredParameters:
            return QCoreApplication::translate("Category", "gathered parameters (ZeRO-3)");
    }
    return {};
}

QString categoryShortName(Category c) {
    if (c == Category::Transient) return QCoreApplication::translate("Category", "transient");
    // Without "(ZeRO-3)": the summary's breakdown column is as wide as its longest short name,
    // and a wider one takes the room a 1280-pixel projector leaves the timeline.
    if (c == Category::GatheredParameters)
        return QCoreApplication::translate("Category", "gathered parameters");
    return categoryDisplayName(c);
}

}  // namespace remat::ui
