#include "slide_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>

namespace remat::ui {
namespace {

QString trSlide(const char* text) {
    return QCoreApplication::translate("remat::ui::SlideExport", text);
}

// Height of the title band for `size`: a line of a font scaled to the picture.
int titleHeight(const SlideOptions& o) {
    return o.title.isEmpty() ? 0 : std::max(24, o.size.height() / 14);
}

void drawTitle(QPainter& p, const SlideOptions& o, const QColor& color) {
    if (o.title.isEmpty()) return;
    const int h = titleHeight(o);
    QFont f = p.font();
    f.setPixelSize(std::max(12, int(h * 0.55)));
    f.setBold(true);
    p.setFont(f);
    p.setPen(color);
    p.drawText(QRect(0, 0, o.size.width(), h), Qt::AlignCenter, o.title);
}

// Paints the title and `widget` scaled into the rest of the picture.
void paintSlide(QPainter& p, QWidget* widget, const SlideOptions& o) {
    const QColor background = widget->palette().color(QPalette::Window);
    p.fillRect(QRect(QPoint(0, 0), o.size), background);
    drawTitle(p, o, widget->palette().color(QPalette::WindowText));
    const int top = titleHeight(o);
    const QSize source = widget->size();
    if (source.isEmpty()) return;
    const double sx = double(o.size.width()) / source.width();
    const double sy = double(o.size.height() - top) / source.height();
    const double s = std::min(sx, sy);
    p.save();
    p.translate((o.size.width() - source.width() * s) / 2.0, top);
    p.scale(s, s);
    widget->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
    p.restore();
}

}  // namespace

bool validSlideOptions(const QString& path, const SlideOptions& o, QString* error) {
    auto fail = [&](const QString& message) {
        if (error) *error = message;
        return false;
    };
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext != QLatin1String("png") && ext != QLatin1String("svg") && ext != QLatin1String("pdf"))
        return fail(trSlide("Cannot export to \"%1\": choose a .png, .svg or .pdf file name.")
                        .arg(QFileInfo(path).fileName()));
    for (int side : {o.size.width(), o.size.height()})
        if (side < kSlideMinSide || side > kSlideMaxSide)
            return fail(trSlide("The picture size %1 × %2 is outside %3 to %4 pixels a side.")
                            .arg(o.size.width())
                            .arg(o.size.height())
                            .arg(kSlideMinSide)
                            .arg(kSlideMaxSide));
    if (!(o.pixelRatio >= 1.0 && o.pixelRatio <= kSlideMaxPixelRatio))
        return fail(trSlide("The pixel density %1× is outside 1× to %2×.")
                        .arg(o.pixelRatio)
                        .arg(kSlideMaxPixelRatio));
    return true;
}

bool exportWidgetForSlides(QWidget* widget, const QString& path, const SlideOptions& o,
                           QString* error) {
    if (!validSlideOptions(path, o, error)) return false;
    const QString ext = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (ext == QLatin1String("png")) {
        QImage image(QSize(int(std::lround(o.size.width() * o.pixelRatio)),
                           int(std::lround(o.size.height() * o.pixelRatio))),
                     QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(o.pixelRatio);
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        paintSlide(p, widget, o);
        p.end();
        ok = image.save(path);
    } else if (ext == QLatin1String("svg")) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(o.size);
        generator.setViewBox(QRect(QPoint(0, 0), o.size));
        generator.setTitle(o.title);
        QPainter p;
        if (p.begin(&generator)) {
            paintSlide(p, widget, o);
            ok = p.end();
        }
    } else {
        QPdfWriter writer(path);
        writer.setTitle(o.title);
        writer.setResolution(96);
        writer.setPageSize(QPageSize(QSizeF(o.size.width() * 72.0 / 96.0,
                                            o.size.height() * 72.0 / 96.0),
                                     QPageSize::Point));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter p;
        if (p.begin(&writer)) {
            paintSlide(p, widget, o);
            ok = p.end();
        }
    }
    if (!ok || !QFileInfo(path).exists() || QFileInfo(path).size() == 0) {
        if (error)
            *error = trSlide("Could not write \"%1\". Check that the folder exists and is "
                             "writable.")
                         .arg(path);
        return false;
    }
    return true;
}

}  // namespace remat::ui
