// The one adapter between Remat Studio's plots and the plotting library (QCustomPlot). The
// timeline and the trade-off plot speak only in the terms they need — stacked areas, lines,
// labelled points, shaded vertical spans, horizontal reference lines, annotations, axes whose
// tick labels are scaled into units (GiB, ms) while the data stay exact (bytes, seconds) — and
// this class turns them into QCustomPlot objects, follows the widget palette (light and dark),
// reports the mouse in data coordinates, and exports to PNG, SVG or PDF. No other file includes
// <qcustomplot.h>, so the plotting library can be replaced here alone.
#pragma once

#include <QColor>
#include <QHash>
#include <QImage>
#include <QPointF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <vector>

#include "slide_export.h"

class QCustomPlot;
class QCPAbstractItem;
class QCPAbstractPlottable;
class QCPItemText;
class QCPItemTracer;
class QCPItemLine;
class QCPLayoutGrid;
class QMouseEvent;

namespace remat::ui {

// Plottables private to plot_adapter.cpp.
class StackedColumns;
class SpanSet;

enum class PlotAxis { X, Y };

enum class MarkerShape { None, Circle, Disc, Square, Diamond, Triangle };

struct LineStyle {
    QColor color;  // invalid: the palette's text colour
    Qt::PenStyle pen = Qt::SolidLine;
    double widthPx = 1.5;     // 0: markers only, no line
    bool steps = false;       // each point's value holds until the next point's x
    bool parametric = false;  // points joined in their given order, not sorted by x
    MarkerShape marker = MarkerShape::None;
    double markerSizePx = 6.0;
};

struct AreaStyle {
    QString name;
    QColor color;
    bool inLegend = true;
};

// Where a shaded vertical span sits: behind the data (phases) or over it (a selection).
enum class SpanLayer { Behind, Over };

// A labelled point whose label the adapter places so that labels do not overlap each other.
struct PointLabel {
    double x = 0, y = 0;
    QString text;
    QColor color;  // invalid: the palette's text colour
    bool emphasised = false;
    // An optional label is placed after the others and only where it overlaps nothing and stays
    // inside the plot; otherwise it is hidden (e.g. the K of every:K beside each curve point).
    bool optional = false;
};

class PlotAdapter : public QWidget {
    Q_OBJECT
public:
    explicit PlotAdapter(QWidget* parent = nullptr);
    ~PlotAdapter() override;

    // Removes every series, span, line and annotation (axes and their scaling are kept).
    void clearAll();
    void replot();

    // Axis title and the factor data are divided by for tick labels: data in bytes with
    // unitScale 2^30 shows GiB ticks while the stored values stay exact.
    void setAxis(PlotAxis axis, const QString& title, double unitScale = 1.0);
    void setRange(PlotAxis axis, double lower, double upper);
    QPointF range(PlotAxis axis) const;  // (lower, upper)
    // Mouse dragging and wheel zooming along x only (the timeline); off by default.
    void setHorizontalZoom(bool enabled);
    // Mouse dragging (pan) and wheel zooming along both axes (the trade-off plot); off by
    // default. With either, a double-click returns to the ranges setRange gave.
    void setZoomPan(bool enabled);

    // Stacked areas: `tops[k]` is the cumulative top of layer k (layer 0 at the bottom); each
    // layer is filled down to the one below it. Replaces any earlier stack.
    void setStackedAreas(const std::vector<AreaStyle>& styles);
    void setStackedData(const QVector<double>& x, const std::vector<QVector<double>>& tops);
    int stackedLayerCount() const;
    // The data the plot holds for a layer's top, as (x, y) pairs — what is drawn.
    QVector<QPointF> stackedData(int layer) const;

    // A named line (replaced if the id exists). Shown in the legend when `legendName` is set.
    void setLine(const QString& id, const QString& legendName, const QVector<double>& x,
                 const QVector<double>& y, const LineStyle& style);
    void removeLine(const QString& id);
    bool hasLine(const QString& id) const;
    // The icon a line's legend entry shows, at the legend's icon size on a transparent
    // background; null when the line is not in the legend.
    QImage legendIcon(const QString& id) const;
    QVector<QPointF> lineData(const QString& id) const;

    // A legend entry with no data: a colour swatch naming something drawn as spans.
    void addLegendSwatch(const QString& name, const QColor& color);
    QStringList legendSwatchNames() const;
    // Every text the plot shows: the axis titles, the legend's entries and the visible texts
    // drawn over the data (markers, labels), for tests of what a reader sees.
    QStringList shownTexts() const;
    void setLegendVisible(bool visible);

    // Vertical span from x0 to x1 over the full plot height; `group` lets one kind be cleared.
    void addSpan(const QString& group, SpanLayer layer, double x0, double x1, const QColor& fill,
                 const QColor& border = QColor());
    // A band along the top of the plot, one text line high, e.g. the phase strip; labelled
    // with the first of `labels` (longest first) that fits its width at the current zoom.
    void addTopBand(const QString& group, double x0, double x1, const QColor& fill,
                    const QStringList& labels = {});
    int topBandHeightPx() const;
    void addHorizontalLine(const QString& group, double y, const QColor& color,
                           const QString& label, Qt::PenStyle pen = Qt::DashLine);
    // A marker at (x, y) with an arrowed label; the label goes where the plot has room.
    void addMarker(const QString& group, double x, double y, const QString& label,
                   const QColor& color);
    // Labelled points; labels are placed around their points avoiding each other (after every
    // layout, so they follow resizes and zooms), with a leader line when pushed away.
    void addPointLabels(const QString& group, const std::vector<PointLabel>& labels);
    // Schedules a replot, which places the labels again.
    void layoutPointLabels();
    // The texts of a group's labels that are shown after the last placement, and the pixel
    // rectangles they occupy (widget coordinates; every group's when `group` is empty), for
    // tests.
    QStringList visiblePointLabels(const QString& group) const;
    std::vector<QRectF> visiblePointLabelRects(const QString& group = QString()) const;
    // Returns both axes to the ranges setRange gave (what a double-click does).
    void resetZoom();
    void clearGroup(const QString& group);
    int groupSize(const QString& group) const;

    // Data <-> widget pixels, for hit-testing by the owner.
    QPointF pixelToData(const QPoint& pixel) const;
    QPointF dataToPixel(double x, double y) const;
    bool insidePlotArea(const QPoint& pixel) const;
    // Width of the plot area (inside the axes) in logical pixels; 0 before the first layout.
    int plotAreaWidth() const;

    // Export by extension: .png, .svg or .pdf. `size` empty: the widget's size (or 1200x700
    // when it has never been laid out).
    bool exportTo(const QString& path, QSize size = QSize(), QString* error = nullptr);
    // Export for a slide: the title above the plot, at options.size, PNG at its pixel density
    // (ui/slide_export.h). The plot on screen is unchanged afterwards.
    bool exportSlide(const QString& path, const SlideOptions& options, QString* error = nullptr);
    // How much thicker than their styles lines and markers are drawn: the widget's font size
    // over the application's (1 normally; larger in presentation mode).
    double lineScale() const;
    // Milliseconds the last replot() took to lay out and draw (for the timing report).
    double lastReplotMs() const;

signals:
    void hovered(QPointF data, QPoint globalPos);
    void left();
    // A press and release at one spot (not a drag) inside the plot area.
    void clicked(QPointF data, QPoint pixel);
    void xRangeChanged(double lower, double upper);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyPalette();
    void applyFonts();
    void applyLineStyle(QCPAbstractPlottable* line, const LineStyle& style);
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    void addToGroup(const QString& group, QCPAbstractItem* item);
    void placeMarkers();
    void updateLegendColumns();
    void placePointLabels();
    SpanSet* spanSet(const QString& group, const char* layer);
    QColor textColor() const;

    struct LabelItem {
        QCPItemTracer* anchor = nullptr;
        QCPItemText* text = nullptr;
        QCPItemLine* leader = nullptr;
        QSizeF size;  // of the text with its padding
        bool emphasised = false;
        bool optional = false;
        bool paletteColored = false;
        QRectF placed;  // where the last placement put the text (widget pixels); empty: hidden
    };

    QCustomPlot* m_plot = nullptr;
    StackedColumns* m_stack = nullptr;
    std::vector<QCPAbstractPlottable*> m_stackSwatches;
    QHash<QString, SpanSet*> m_spanSets;  // by group and layer
    QColor m_background;                  // the plot's, for spans drawn right over it
    QHash<QString, QCPAbstractPlottable*> m_lines;
    QHash<QString, bool> m_linePaletteColored;
    QHash<QString, LineStyle> m_lineStyles;  // as given, before m_lineScale
    double m_lineScale = 1.0;
    QHash<QString, std::vector<QCPAbstractItem*>> m_groups;
    std::vector<QCPItemText*> m_paletteTexts;  // texts that follow the palette
    QHash<QString, std::vector<LabelItem>> m_pointLabels;
    struct MarkerItem {
        QCPItemTracer* tracer = nullptr;
        QCPItemText* text = nullptr;
        QCPItemLine* arrow = nullptr;
        QSizeF size;  // of the label with its padding
    };
    QHash<QString, std::vector<MarkerItem>> m_markers;
    QPointF m_homeX;  // the x range setRange gave; a double-click returns to it
    QPointF m_homeY;  // likewise for y
    QPoint m_pressPixel;
    bool m_pressed = false;
    double m_lastReplotMs = 0.0;
};

}  // namespace remat::ui
