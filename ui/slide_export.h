// Pictures for slides: how a plot or the schedule grid is written for a lecture — a title above
// it, a chosen size in logical pixels, and for PNG a pixel density (2× or 3× for a sharp image
// on a high-DPI projector or when the slide is scaled). The file's extension picks the format:
// .png (raster, at size × density pixels), .svg or .pdf (vector where the picture is vector; the
// schedule grid is a raster image inside either). Plots are exported by PlotAdapter with these
// options; any other widget (the schedule grid) by exportWidgetForSlides, which renders it as it
// is on screen, scaled to the chosen size.
#pragma once

#include <QSize>
#include <QString>

class QWidget;

namespace remat::ui {

struct SlideOptions {
    QString title;              // drawn above the picture; empty: no title
    QSize size{1600, 900};      // logical pixels (the PDF page and SVG view box take this size)
    double pixelRatio = 2.0;    // PNG only: device pixels per logical pixel
};

// The sizes a slide export accepts, in logical pixels, and the densities it offers.
inline constexpr int kSlideMinSide = 200;
inline constexpr int kSlideMaxSide = 8000;
inline constexpr double kSlideMaxPixelRatio = 4.0;

// Checks `options` and the extension of `path`; on failure names what is wrong in `error`.
bool validSlideOptions(const QString& path, const SlideOptions& options, QString* error);

// Renders `widget` (as laid out now) into `path`, scaled to options.size below the title.
bool exportWidgetForSlides(QWidget* widget, const QString& path, const SlideOptions& options,
                           QString* error = nullptr);

}  // namespace remat::ui
