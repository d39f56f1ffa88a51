#include "plot_adapter.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QFileInfo>
#include <QFontMetrics>
#include <QMouseEvent>
#include <QStaticText>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <algorithm>
#include <cstring>
#include <cmath>

namespace remat::ui {
namespace {

// Ticks chosen and labelled in display units (GiB, ms) while the data stay in base units, so
// that what a test or an export reads back is exact.
class ScaledTicker : public QCPAxisTicker {
public:
    explicit ScaledTicker(double scale) : m_scale(scale > 0 ? scale : 1.0) {}

protected:
    double getTickStep(const QCPRange& range) override {
        return QCPAxisTicker::getTickStep(QCPRange(range.lower / m_scale, range.upper / m_scale)) *
               m_scale;
    }
    int getSubTickCount(double tickStep) override {
        return QCPAxisTicker::getSubTickCount(tickStep / m_scale);
    }
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override {
        double v = tick / m_scale;
        if (std::fabs(v) < 1e-12) v = 0.0;  // -0 and rounding noise at the origin
        return QCPAxisTicker::getTickLabel(v, locale, formatChar, precision);
    }

private:
    double m_scale;
};

}  // namespace

// Stacked areas drawn per pixel column: for each column the point with the largest total
// among those the column covers is drawn as one rectangle per layer. The cost follows the
// plot's width, not the data or its shape (the library's own filled graphs fill one polygon per
// layer and outline it, which took tens of milliseconds for a transformer's jagged timeline).
// Vector exports (PDF, SVG) get exact step polygons instead.
class StackedColumns : public QCPAbstractPlottable {
public:
    StackedColumns(QCPAxis* keyAxis, QCPAxis* valueAxis)
        : QCPAbstractPlottable(keyAxis, valueAxis) {
        setSelectable(QCP::stNone);
        setAntialiased(false);
        setAntialiasedFill(false);
    }

    void setColors(std::vector<QColor> colors) { m_colors = std::move(colors); }
    void setData(const QVector<double>& x, const std::vector<QVector<double>>& tops) {
        m_x = x;
        m_tops = tops;
        m_tops.resize(m_colors.size(), QVector<double>(x.size(), 0.0));
    }
    const QVector<double>& x() const { return m_x; }
    const std::vector<QVector<double>>& tops() const { return m_tops; }

    double selectTest(const QPointF&, bool, QVariant*) const override { return -1.0; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
        found = !m_x.isEmpty();
        return found ? QCPRange(m_x.front(), m_x.back()) : QCPRange();
    }
    QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
        found = !m_x.isEmpty() && !m_tops.empty();
        if (!found) return QCPRange();
        return QCPRange(0.0, *std::max_element(m_tops.back().cbegin(), m_tops.back().cend()));
    }

protected:
    void draw(QCPPainter* painter) override {
        if (m_x.size() < 2 || m_tops.empty()) return;
        const int device = painter->device()->devType();
        if (painter->modes().testFlag(QCPPainter::pmVectorized) ||
            (device != QInternal::Image && device != QInternal::Pixmap))
            drawPolygons(painter);
        else
            drawColumns(painter);
    }
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

private:
    int firstVisible() const {
        const double lower = keyAxis()->range().lower;
        const auto it = std::upper_bound(m_x.cbegin(), m_x.cend(), lower);
        return std::max(0, int(it - m_x.cbegin()) - 1);
    }

    // Writes the columns into an image at the painter's device resolution and draws it once:
    // a few pixel writes per column instead of a fill call per layer and column.
    void drawColumns(QCPPainter* painter) const {
        const QRect clip = clipRect();
        const double scale = painter->device()->devicePixelRatioF() * painter->transform().m11();
        const int width = int(std::ceil(clip.width() * scale));
        const int height = int(std::ceil(clip.height() * scale));
        if (width <= 0 || height <= 0) return;
        QCPAxis* kx = keyAxis();
        QCPAxis* vy = valueAxis();
        auto column = [&](double key) { return (kx->coordToPixel(key) - clip.left()) * scale; };
        auto row = [&](double value) {
            return int(std::lround((vy->coordToPixel(value) - clip.top()) * scale));
        };
        const QVector<double>& total = m_tops.back();
        std::vector<int> rep(std::size_t(width), -1);
        const int n = int(m_x.size());
        for (int k = firstVisible(); k + 1 < n; ++k) {
            const double p0 = column(m_x[k]);
            const double p1 = column(m_x[k + 1]);
            if (p0 >= width) break;
            const int c0 = std::max(0, int(std::floor(p0)));
            const int c1 =
                std::min(width - 1, std::max(int(std::floor(p0)), int(std::ceil(p1)) - 1));
            for (int c = c0; c <= c1; ++c) {
                int& r = rep[std::size_t(c)];
                if (r < 0 || total[k] > total[r]) r = k;
            }
        }
        QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        std::vector<QRgb> colors;
        for (const QColor& c : m_colors) colors.push_back(qPremultiply(c.rgba()));
        auto* bits = reinterpret_cast<QRgb*>(image.bits());
        const qsizetype stride = image.bytesPerLine() / qsizetype(sizeof(QRgb));
        const int zero = std::clamp(row(0.0), 0, height);
        for (int c = 0; c < width; ++c) {
            const int r = rep[std::size_t(c)];
            if (r < 0) continue;
            int bottom = zero;
            for (std::size_t layer = 0; layer < m_tops.size(); ++layer) {
                const int top = std::clamp(row(m_tops[layer][r]), 0, height);
                for (int y = top; y < bottom; ++y) bits[y * stride + c] = colors[layer];
                bottom = std::min(bottom, top);
            }
        }
        image.setDevicePixelRatio(scale);
        painter->drawImage(QPointF(clip.topLeft()), image);
    }

    void drawPolygons(QCPPainter* painter) const {
        QCPAxis* kx = keyAxis();
        QCPAxis* vy = valueAxis();
        const int n = int(m_x.size());
        const double zero = vy->coordToPixel(0.0);
        painter->setPen(Qt::NoPen);
        // Top layer first, each filled down to zero, the next one over it.
        for (std::size_t layer = m_tops.size(); layer-- > 0;) {
            const QVector<double>& top = m_tops[layer];
            QPolygonF poly;
            poly.reserve(2 * n + 2);
            poly << QPointF(kx->coordToPixel(m_x.front()), zero);
            for (int k = 0; k + 1 < n; ++k) {
                const double y = vy->coordToPixel(top[k]);
                poly << QPointF(kx->coordToPixel(m_x[k]), y)
                     << QPointF(kx->coordToPixel(m_x[k + 1]), y);
            }
            poly << QPointF(kx->coordToPixel(m_x.back()), zero);
            painter->setBrush(m_colors[layer]);
            painter->drawPolygon(poly);
        }
    }

    QVector<double> m_x;
    std::vector<QVector<double>> m_tops;
    std::vector<QColor> m_colors;
};

// Shaded vertical spans (phases, a selected layer) drawn by one plottable per group and layer:
// cheaper to build and draw than one library item per span, and spans run into the hundreds.
class SpanSet : public QCPAbstractPlottable {
public:
    struct Span {
        double x0, x1;
        double topRatio, bottomRatio;  // of the plot area's height, 0 = top
        QColor fill, border;
        // A band at the top of the plot this many pixels high (0: use bottomRatio), labelled
        // with the first of `labels` that fits its width (longest first).
        double heightPx = 0.0;
        QStringList labels;
    };

    SpanSet(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis) {
        setSelectable(QCP::stNone);
        setAntialiased(false);
        removeFromLegend();
    }
    void add(const Span& s) { m_spans.push_back(s); }
    int size() const { return int(m_spans.size()); }
    // For a set drawn where nothing but the plot's background lies under it: translucent fills
    // are blended with that colour once per span, so the paint is a plain fill rather than a
    // blend of every pixel (phase washes cover the whole plot).
    void setOpaqueOver(const QColor* background) { m_background = background; }

    double selectTest(const QPointF&, bool, QVariant*) const override { return -1.0; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
        found = false;
        return QCPRange();
    }
    QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
        found = false;
        return QCPRange();
    }

protected:
    void draw(QCPPainter* painter) override {
        const QRect area = clipRect();
        QCPAxis* kx = keyAxis();
        for (const Span& s : m_spans) {
            double a = kx->coordToPixel(s.x0), b = kx->coordToPixel(s.x1);
            if (a > b) std::swap(a, b);
            if (b < area.left() || a > area.right() + 1) continue;
            // At least one pixel wide, so a single instruction stays visible when zoomed out.
            if (b - a < 1.0) b = a + 1.0;
            const double top = area.top() + s.topRatio * area.height();
            const double bottom =
                s.heightPx > 0 ? top + s.heightPx : area.top() + s.bottomRatio * area.height();
            const QRectF r(QPointF(a, top), QPointF(b, bottom));
            painter->fillRect(r, m_background && s.fill.alpha() < 255 ? over(s.fill) : s.fill);
            if (s.border.isValid()) {
                painter->setPen(QPen(s.border, 1.0));
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(r);
            }
            if (s.labels.isEmpty()) continue;
            const QRectF visible = r.intersected(QRectF(area));
            for (const QString& label : s.labels) {
                const QStaticText& text = laidOut(painter, label);
                const QSizeF size = text.size();
                if (size.width() + 6 > visible.width()) continue;
                // Dark text on light fills, light text on dark ones.
                const QColor f = s.fill;
                const bool light = 0.299 * f.red() + 0.587 * f.green() + 0.114 * f.blue() > 150;
                painter->setPen(light ? QColor(0x11, 0x11, 0x11) : QColor(0xfa, 0xfa, 0xfa));
                painter->drawStaticText(visible.center() - QPointF(size.width(), size.height()) / 2,
                                        text);
                break;
            }
        }
    }
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

private:
    QColor over(const QColor& fill) const {
        const QColor& base = *m_background;
        const float a = fill.alphaF();
        return QColor::fromRgbF(a * fill.redF() + (1 - a) * base.redF(),
                                a * fill.greenF() + (1 - a) * base.greenF(),
                                a * fill.blueF() + (1 - a) * base.blueF());
    }
    // Laying text out is slow next to drawing a rectangle, and the labels repeat ("bwd", "re")
    // over hundreds of spans: each is laid out once per font and drawn from the layout.
    const QStaticText& laidOut(QCPPainter* painter, const QString& label) {
        if (painter->font() != m_textFont) {
            m_texts.clear();
            m_textFont = painter->font();
        }
        auto it = m_texts.find(label);
        if (it == m_texts.end()) {
            QStaticText text(label);
            text.setTextFormat(Qt::PlainText);
            text.setPerformanceHint(QStaticText::AggressiveCaching);
            text.prepare(QTransform(), m_textFont);
            it = m_texts.insert(label, text);
        }
        return it.value();
    }

    std::vector<Span> m_spans;
    const QColor* m_background = nullptr;
    QFont m_textFont;
    QHash<QString, QStaticText> m_texts;
};

namespace {

// A legend entry that is a plain colour swatch (a category, a phase); it draws nothing.
class Swatch : public QCPAbstractPlottable {
public:
    Swatch(QCPAxis* keyAxis, QCPAxis* valueAxis, const QColor& color)
        : QCPAbstractPlottable(keyAxis, valueAxis), m_color(color) {
        setSelectable(QCP::stNone);
    }
    double selectTest(const QPointF&, bool, QVariant*) const override { return -1.0; }
    QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
        found = false;
        return QCPRange();
    }
    QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
        found = false;
        return QCPRange();
    }

protected:
    void draw(QCPPainter*) override {}
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
        painter->setPen(QPen(m_color.darker(130), 1.0));
        painter->setBrush(m_color);
        painter->drawRect(rect.adjusted(1, 1, -1, -1));
    }

private:
    QColor m_color;
};

// What PlotAdapter::legendIcon() draws through: the icon a line shows in the legend.
class LegendIconSource {
public:
    virtual ~LegendIconSource() = default;
    virtual void paintLegendIcon(QCPPainter* painter, const QRectF& rect) const = 0;
};

// A line (a QCPGraph or a QCPCurve) whose legend icon shows its marker whole. The library draws
// the marker at its plotted size and the legend clips it to the icon, so a marker taller than
// the icon (the ring around the current plan) showed as two arcs; here it is shrunk to fit.
template <class Line>
class FittedIconLine : public Line, public LegendIconSource {
public:
    FittedIconLine(QCPAxis* keyAxis, QCPAxis* valueAxis) : Line(keyAxis, valueAxis) {}
    void paintLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
        drawLegendIcon(painter, rect);
    }

protected:
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
        const QCPScatterStyle& scatter = this->scatterStyle();
        const double penWidth = scatter.isPenDefined() ? scatter.pen().widthF() : 1.0;
        if (scatter.isNone() || scatter.size() + penWidth <= rect.height()) {
            Line::drawLegendIcon(painter, rect);
            return;
        }
        const QPointF centre = rect.center();
        if (this->lineStyle() != Line::lsNone && this->pen().style() != Qt::NoPen) {
            this->applyDefaultAntialiasingHint(painter);
            painter->setPen(this->pen());
            painter->drawLine(QLineF(rect.left(), centre.y(), rect.right(), centre.y()));
        }
        QCPScatterStyle fitted(scatter);
        fitted.setSize(rect.height() - penWidth);  // the stroke's outer edge meets the icon's
        this->applyScattersAntialiasingHint(painter);
        fitted.applyTo(painter, this->pen());
        fitted.drawShape(painter, centre);
    }
};

QCPScatterStyle::ScatterShape toScatter(MarkerShape s) {
    switch (s) {
        case MarkerShape::None:
            return QCPScatterStyle::ssNone;
        case MarkerShape::Circle:
            return QCPScatterStyle::ssCircle;
        case MarkerShape::Disc:
            return QCPScatterStyle::ssDisc;
        case MarkerShape::Square:
            return QCPScatterStyle::ssSquare;
        case MarkerShape::Diamond:
            return QCPScatterStyle::ssDiamond;
        case MarkerShape::Triangle:
            return QCPScatterStyle::ssTriangle;
    }
    return QCPScatterStyle::ssNone;
}

constexpr const char* kLayerBehind = "behind";
constexpr const char* kLayerOver = "over";
constexpr const char* kLayerLabels = "labels";
constexpr int kClickSlopPx = 4;

}  // namespace

PlotAdapter::PlotAdapter(QWidget* parent) : QWidget(parent) {
    m_plot = new QCustomPlot(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    m_plot->setNoAntialiasingOnDrag(true);
    // A replot draws into the plot's buffer and asks for a paint; the window paints it with
    // everything else that changed in the same event-loop turn. (The library's default repaints
    // the whole window at once, inside the edit, and then again when the turn ends.)
    m_plot->setPlottingHint(QCP::phImmediateRefresh, false);

    // The library's "overlay" layer (for its selection rectangle, unused here) is drawn into a
    // paint buffer of its own, which every paint of the widget composites over the others: one
    // full-size blend per frame for nothing. Drawn with the rest, there is one buffer.
    m_plot->layer("overlay")->setMode(QCPLayer::lmLogical);

    // Phases sit under the grid; a selection is drawn over the data; texts above everything.
    m_plot->addLayer(kLayerBehind, m_plot->layer("grid"), QCustomPlot::limBelow);
    m_plot->addLayer(kLayerOver, m_plot->layer("main"), QCustomPlot::limAbove);
    m_plot->addLayer(kLayerLabels, m_plot->layer(kLayerOver), QCustomPlot::limAbove);

    // The legend gets its own row under the plot, entries flowing in columns, so it never hides
    // data and leaves the plot its full width.
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->legend->setMargins(QMargins(6, 2, 6, 4));
    m_plot->legend->setRowSpacing(0);
    m_plot->legend->setColumnSpacing(14);
    m_plot->legend->setVisible(true);
    m_plot->legend->setIconSize(18, 10);

    setAxis(PlotAxis::X, QString());
    setAxis(PlotAxis::Y, QString());

    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotAdapter::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &PlotAdapter::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &PlotAdapter::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetZoom(); });
    connect(m_plot, &QCustomPlot::beforeReplot, this, [this] { updateLegendColumns(); });
    // Labels are placed from pixel positions, so after every layout (resize, zoom, new data).
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        placeMarkers();
        placePointLabels();
    });
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& r) { emit xRangeChanged(r.lower, r.upper); });
    applyPalette();
}

PlotAdapter::~PlotAdapter() = default;

bool PlotAdapter::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_plot && event->type() == QEvent::Leave) emit left();
    return QWidget::eventFilter(watched, event);
}

void PlotAdapter::clearAll() {
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_stack = nullptr;
    m_stackSwatches.clear();
    m_spanSets.clear();
    m_lines.clear();
    m_linePaletteColored.clear();
    m_lineStyles.clear();
    m_groups.clear();
    m_paletteTexts.clear();
    m_pointLabels.clear();
    m_markers.clear();
}

void PlotAdapter::replot() {
    QElapsedTimer timer;
    timer.start();
    m_plot->replot(QCustomPlot::rpRefreshHint);
    m_lastReplotMs = double(timer.nsecsElapsed()) / 1e6;
}

double PlotAdapter::lastReplotMs() const {
    return m_lastReplotMs;
}

void PlotAdapter::setAxis(PlotAxis axis, const QString& title, double unitScale) {
    QCPAxis* a = axis == PlotAxis::X ? m_plot->xAxis : m_plot->yAxis;
    a->setLabel(title);
    a->setTicker(QSharedPointer<QCPAxisTicker>(new ScaledTicker(unitScale)));
}

void PlotAdapter::setRange(PlotAxis axis, double lower, double upper) {
    if (!(upper > lower)) upper = lower + 1.0;
    if (axis == PlotAxis::X) {
        m_homeX = QPointF(lower, upper);
        m_plot->xAxis->setRange(lower, upper);
    } else {
        m_homeY = QPointF(lower, upper);
        m_plot->yAxis->setRange(lower, upper);
    }
}

void PlotAdapter::resetZoom() {
    bool changed = false;
    if (m_homeX.x() < m_homeX.y()) {
        m_plot->xAxis->setRange(m_homeX.x(), m_homeX.y());
        changed = true;
    }
    // Only a plot that zooms vertically can have left its y range.
    if (m_plot->axisRect()->rangeZoom().testFlag(Qt::Vertical) && m_homeY.x() < m_homeY.y()) {
        m_plot->yAxis->setRange(m_homeY.x(), m_homeY.y());
        changed = true;
    }
    if (changed) m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QPointF PlotAdapter::range(PlotAxis axis) const {
    const QCPRange r = (axis == PlotAxis::X ? m_plot->xAxis : m_plot->yAxis)->range();
    return QPointF(r.lower, r.upper);
}

void PlotAdapter::setHorizontalZoom(bool enabled) {
    m_plot->setInteractions(enabled ? QCP::iRangeDrag | QCP::iRangeZoom : QCP::Interactions());
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
}

void PlotAdapter::setZoomPan(bool enabled) {
    m_plot->setInteractions(enabled ? QCP::iRangeDrag | QCP::iRangeZoom : QCP::Interactions());
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
}

void PlotAdapter::setStackedAreas(const std::vector<AreaStyle>& styles) {
    if (m_stack) m_plot->removePlottable(m_stack);
    for (QCPAbstractPlottable* s : m_stackSwatches) m_plot->removePlottable(s);
    m_stackSwatches.clear();
    m_stack = new StackedColumns(m_plot->xAxis, m_plot->yAxis);
    m_stack->removeFromLegend();
    std::vector<QColor> colors;
    for (const AreaStyle& s : styles) {
        colors.push_back(s.color);
        if (!s.inLegend) continue;
        auto* swatch = new Swatch(m_plot->xAxis, m_plot->yAxis, s.color);
        swatch->setName(s.name);
        m_stackSwatches.push_back(swatch);
    }
    m_stack->setColors(std::move(colors));
}

void PlotAdapter::setStackedData(const QVector<double>& x,
                                 const std::vector<QVector<double>>& tops) {
    if (m_stack) m_stack->setData(x, tops);
}

int PlotAdapter::stackedLayerCount() const {
    return m_stack ? int(m_stack->tops().size()) : 0;
}

QVector<QPointF> PlotAdapter::stackedData(int layer) const {
    QVector<QPointF> out;
    if (!m_stack || layer < 0 || layer >= int(m_stack->tops().size())) return out;
    const QVector<double>& x = m_stack->x();
    const QVector<double>& y = m_stack->tops()[std::size_t(layer)];
    out.reserve(x.size());
    for (qsizetype i = 0; i < x.size() && i < y.size(); ++i) out.push_back(QPointF(x[i], y[i]));
    return out;
}

void PlotAdapter::setLine(const QString& id, const QString& legendName, const QVector<double>& x,
                          const QVector<double>& y, const LineStyle& style) {
    QCPAbstractPlottable* existing = m_lines.value(id, nullptr);
    // A parametric line (points in their own order) is a curve; the library keeps a graph's
    // points sorted by x.
    if (existing && (qobject_cast<QCPCurve*>(existing) != nullptr) != style.parametric) {
        m_plot->removePlottable(existing);
        existing = nullptr;
    }
    QCPAbstractPlottable* line = existing;
    if (!line) {
        if (style.parametric)
            line = new FittedIconLine<QCPCurve>(m_plot->xAxis, m_plot->yAxis);
        else
            line = new FittedIconLine<QCPGraph>(m_plot->xAxis, m_plot->yAxis);
        m_lines.insert(id, line);
    }
    const bool fromPalette = !style.color.isValid();
    m_linePaletteColored.insert(id, fromPalette);
    m_lineStyles.insert(id, style);
    applyLineStyle(line, style);
    if (auto* g = qobject_cast<QCPGraph*>(line)) {
        g->setAdaptiveSampling(false);
        g->setData(x, y, true);
    } else if (auto* c = qobject_cast<QCPCurve*>(line)) {
        c->setData(x, y);
    }
    line->setName(legendName);
    if (legendName.isEmpty())
        line->removeFromLegend();
    else if (!m_plot->legend->hasItemWithPlottable(line))
        line->addToLegend();
}

void PlotAdapter::applyLineStyle(QCPAbstractPlottable* line, const LineStyle& style) {
    const QColor color = style.color.isValid() ? style.color : textColor();
    const double width = style.widthPx * m_lineScale;
    line->setPen(style.widthPx > 0 ? QPen(color, width, style.pen) : QPen(Qt::NoPen));
    line->setBrush(Qt::NoBrush);
    QCPScatterStyle scatter(toScatter(style.marker), style.markerSizePx * m_lineScale);
    scatter.setPen(QPen(color, 1.5 * m_lineScale));
    scatter.setBrush(style.marker == MarkerShape::Disc ? QBrush(color) : QBrush(Qt::NoBrush));
    if (auto* g = qobject_cast<QCPGraph*>(line)) {
        g->setLineStyle(style.widthPx <= 0 ? QCPGraph::lsNone
                        : style.steps      ? QCPGraph::lsStepLeft
                                           : QCPGraph::lsLine);
        g->setScatterStyle(scatter);
    } else if (auto* c = qobject_cast<QCPCurve*>(line)) {
        c->setLineStyle(style.widthPx <= 0 ? QCPCurve::lsNone : QCPCurve::lsLine);
        c->setScatterStyle(scatter);
    }
}

void PlotAdapter::applyFonts() {
    // QCustomPlot copies fonts into its axes and legend when they are made; a font given to
    // this widget later (presentation mode) reaches them here.
    const QFont f = font();
    m_plot->setFont(f);
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis}) {
        a->setLabelFont(f);
        a->setTickLabelFont(f);
    }
    m_plot->legend->setFont(f);
    const double base = QApplication::font().pointSizeF();
    const double scale = base > 0 && f.pointSizeF() > 0 ? std::max(1.0, f.pointSizeF() / base)
                                                        : 1.0;
    if (scale != m_lineScale) {
        m_lineScale = scale;
        for (auto it = m_lines.cbegin(); it != m_lines.cend(); ++it)
            if (m_lineStyles.contains(it.key())) applyLineStyle(it.value(), m_lineStyles[it.key()]);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double PlotAdapter::lineScale() const {
    return m_lineScale;
}

void PlotAdapter::removeLine(const QString& id) {
    if (QCPAbstractPlottable* p = m_lines.value(id, nullptr)) m_plot->removePlottable(p);
    m_lines.remove(id);
    m_linePaletteColored.remove(id);
    m_lineStyles.remove(id);
}

QImage PlotAdapter::legendIcon(const QString& id) const {
    const auto* source = dynamic_cast<const LegendIconSource*>(m_lines.value(id, nullptr));
    if (!source || !m_plot->legend->hasItemWithPlottable(m_lines.value(id))) return {};
    QImage image(m_plot->legend->iconSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QCPPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    source->paintLegendIcon(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())));
    return image;
}

bool PlotAdapter::hasLine(const QString& id) const {
    return m_lines.contains(id);
}

QVector<QPointF> PlotAdapter::lineData(const QString& id) const {
    QVector<QPointF> out;
    QCPAbstractPlottable* p = m_lines.value(id, nullptr);
    if (auto* g = qobject_cast<QCPGraph*>(p)) {
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            out.push_back(QPointF(it->key, it->value));
    } else if (auto* c = qobject_cast<QCPCurve*>(p)) {
        for (auto it = c->data()->constBegin(); it != c->data()->constEnd(); ++it)
            out.push_back(QPointF(it->key, it->value));
    }
    return out;
}

void PlotAdapter::addLegendSwatch(const QString& name, const QColor& color) {
    auto* swatch = new Swatch(m_plot->xAxis, m_plot->yAxis, color);
    swatch->setName(name);
}

QStringList PlotAdapter::legendSwatchNames() const {
    QStringList names;
    for (int i = 0; i < m_plot->plottableCount(); ++i)
        if (auto* s = dynamic_cast<const Swatch*>(m_plot->plottable(i))) names << s->name();
    return names;
}

QStringList PlotAdapter::shownTexts() const {
    QStringList texts{m_plot->xAxis->label(), m_plot->yAxis->label()};
    if (m_plot->legend->visible())
        for (int i = 0; i < m_plot->legend->itemCount(); ++i)
            if (auto* p = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i)))
                texts << p->plottable()->name();
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(m_plot->item(i)); t && t->visible())
            texts << t->text();
    texts.removeAll(QString());
    return texts;
}

void PlotAdapter::setLegendVisible(bool visible) {
    // A hidden legend must not keep its row, so it leaves the layout.
    QCPLayoutGrid* layout = m_plot->plotLayout();
    const bool placed = layout->hasElement(1, 0) && layout->element(1, 0) == m_plot->legend;
    if (visible && !placed) {
        layout->addElement(1, 0, m_plot->legend);
        layout->setRowStretchFactor(1, 0.001);
    } else if (!visible && placed) {
        layout->take(m_plot->legend);
        layout->simplify();
    }
    m_plot->legend->setVisible(visible);
}

void PlotAdapter::addToGroup(const QString& group, QCPAbstractItem* item) {
    item->setSelectable(false);
    m_groups[group].push_back(item);
}

SpanSet* PlotAdapter::spanSet(const QString& group, const char* layer) {
    const QString key = group + QLatin1Char('@') + QLatin1String(layer);
    SpanSet* set = m_spanSets.value(key, nullptr);
    if (!set) {
        set = new SpanSet(m_plot->xAxis, m_plot->yAxis);
        set->setLayer(QLatin1String(layer));
        if (std::strcmp(layer, kLayerBehind) == 0) set->setOpaqueOver(&m_background);
        m_spanSets.insert(key, set);
    }
    return set;
}

void PlotAdapter::addSpan(const QString& group, SpanLayer layer, double x0, double x1,
                          const QColor& fill, const QColor& border) {
    spanSet(group, layer == SpanLayer::Behind ? kLayerBehind : kLayerOver)
        ->add(SpanSet::Span{x0, x1, 0.0, 1.0, fill, border, 0.0, {}});
}

void PlotAdapter::addTopBand(const QString& group, double x0, double x1, const QColor& fill,
                             const QStringList& labels) {
    const double height = QFontMetrics(m_plot->font()).height() + 4;
    spanSet(group, kLayerOver)
        ->add(SpanSet::Span{x0, x1, 0.0, 0.0, fill, QColor(), height, labels});
}

int PlotAdapter::topBandHeightPx() const {
    return QFontMetrics(m_plot->font()).height() + 4;
}

void PlotAdapter::addHorizontalLine(const QString& group, double y, const QColor& color,
                                    const QString& label, Qt::PenStyle pen) {
    auto* line = new QCPItemStraightLine(m_plot);
    line->setLayer(kLayerLabels);
    line->point1->setCoords(0.0, y);
    line->point2->setCoords(1.0, y);
    line->setPen(QPen(color, 2.0, pen));
    addToGroup(group, line);
    if (label.isEmpty()) return;
    auto* text = new QCPItemText(m_plot);
    text->setLayer(kLayerLabels);
    text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    text->position->setTypeY(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(0.995, y);
    text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    text->setText(label);
    text->setColor(color);
    text->setPadding(QMargins(4, 2, 4, 2));
    addToGroup(group, text);
}

void PlotAdapter::addMarker(const QString& group, double x, double y, const QString& label,
                            const QColor& color) {
    auto* tracer = new QCPItemTracer(m_plot);
    tracer->setLayer(kLayerLabels);
    tracer->position->setCoords(x, y);
    tracer->setStyle(QCPItemTracer::tsCircle);
    tracer->setSize(9);
    tracer->setPen(QPen(color, 2.0));
    tracer->setBrush(Qt::NoBrush);
    addToGroup(group, tracer);
    if (label.isEmpty()) return;

    auto* text = new QCPItemText(m_plot);
    text->setLayer(kLayerLabels);
    text->position->setParentAnchor(tracer->position);
    text->setText(label);
    text->setTextAlignment(Qt::AlignLeft);
    text->setColor(textColor());
    text->setPen(QPen(color, 1.0));
    text->setPadding(QMargins(5, 3, 5, 3));
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(230);
    text->setBrush(back);
    m_paletteTexts.push_back(text);
    addToGroup(group, text);

    auto* arrow = new QCPItemLine(m_plot);
    arrow->setLayer(kLayerLabels);
    arrow->end->setParentAnchor(tracer->position);
    arrow->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 7, 9));
    arrow->setPen(QPen(color, 1.5));
    addToGroup(group, arrow);
    // Measured once: placement runs after every layout.
    const QFontMetrics fm(text->font());
    const QSizeF size =
        QSizeF(fm.boundingRect(QRect(0, 0, 4000, 4000), Qt::AlignLeft, label).size()) +
        QSizeF(14, 10);
    m_markers[group].push_back(MarkerItem{tracer, text, arrow, size});
    placeMarkers();
}

void PlotAdapter::placeMarkers() {
    // Not over the phase strip along the top either.
    const QRectF area =
        QRectF(m_plot->axisRect()->rect()).adjusted(2, topBandHeightPx() + 2, -2, -2);
    for (auto it = m_markers.begin(); it != m_markers.end(); ++it)
        for (const MarkerItem& m : it.value()) {
            const QPointF p = m.tracer->position->pixelPosition();
            const double w = m.size.width(), h = m.size.height();
            auto shifted = [&](double left) {
                return std::clamp(left, area.left(), std::max(area.left(), area.right() - w));
            };
            // Beside the point (slightly above, then below), else centred above or below it,
            // slid sideways to stay inside the plot.
            const QRectF candidates[] = {
                QRectF(p.x() + 28, p.y() - 8 - h, w, h),
                QRectF(p.x() - 28 - w, p.y() - 8 - h, w, h),
                QRectF(p.x() + 28, p.y() + 8, w, h),
                QRectF(p.x() - 28 - w, p.y() + 8, w, h),
                QRectF(shifted(p.x() - w / 2), p.y() - 24 - h, w, h),
                QRectF(shifted(p.x() - w / 2), p.y() + 24, w, h),
            };
            QRectF chosen = candidates[0];
            double bestInside = -1;
            for (const QRectF& r : candidates) {
                const QRectF in = r.intersected(area);
                const double inside = in.width() * in.height();
                if (inside > bestInside + 0.5) {
                    bestInside = inside;
                    chosen = r;
                }
                if (in == r) break;
            }
            m.text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            m.text->position->setCoords(chosen.left() - p.x(), chosen.top() - p.y());
            QCPItemAnchor* edge = chosen.left() > p.x()     ? m.text->left
                                  : chosen.right() < p.x()  ? m.text->right
                                  : chosen.bottom() < p.y() ? m.text->bottom
                                                            : m.text->top;
            m.arrow->start->setParentAnchor(edge);
        }
}

void PlotAdapter::addPointLabels(const QString& group, const std::vector<PointLabel>& labels) {
    auto& list = m_pointLabels[group];
    for (const PointLabel& l : labels) {
        LabelItem item;
        item.anchor = new QCPItemTracer(m_plot);
        item.anchor->setStyle(QCPItemTracer::tsNone);
        item.anchor->position->setCoords(l.x, l.y);
        item.anchor->setLayer(kLayerLabels);
        addToGroup(group, item.anchor);
        item.text = new QCPItemText(m_plot);
        item.text->setLayer(kLayerLabels);
        item.text->position->setParentAnchor(item.anchor->position);
        item.text->setText(l.text);
        item.text->setPadding(QMargins(3, 1, 3, 1));
        item.paletteColored = !l.color.isValid();
        item.text->setColor(item.paletteColored ? textColor() : l.color);
        item.emphasised = l.emphasised;
        item.optional = l.optional;
        if (l.emphasised) {
            QFont f = item.text->font();
            f.setBold(true);
            item.text->setFont(f);
            item.text->setPen(QPen(item.paletteColored ? textColor() : l.color, 1.0));
        }
        if (item.paletteColored) m_paletteTexts.push_back(item.text);
        addToGroup(group, item.text);
        item.size =
            QSizeF(QFontMetrics(item.text->font()).boundingRect(l.text).size()) + QSizeF(8, 4);
        item.leader = new QCPItemLine(m_plot);
        item.leader->setLayer(kLayerLabels);
        item.leader->start->setParentAnchor(item.text->position);
        item.leader->end->setParentAnchor(item.anchor->position);
        item.leader->setPen(QPen(item.paletteColored ? textColor() : l.color, 0.8));
        item.leader->setVisible(false);
        addToGroup(group, item.leader);
        list.push_back(item);
    }
}

void PlotAdapter::layoutPointLabels() {
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotAdapter::placePointLabels() {
    if (m_pointLabels.isEmpty()) return;
    const QRect area = m_plot->axisRect()->rect();
    std::vector<QRectF> taken;
    // Every labelled point is an obstacle for every label.
    for (auto it = m_pointLabels.cbegin(); it != m_pointLabels.cend(); ++it)
        for (const LabelItem& l : it.value()) {
            const QPointF p = l.anchor->position->pixelPosition();
            taken.push_back(QRectF(p.x() - 5, p.y() - 5, 10, 10));
        }
    struct Candidate {
        double dx, dy;
        Qt::Alignment align;
    };
    // Close to the point first; the far ring gets a leader line.
    static const Candidate kCandidates[] = {
        {8, -6, Qt::AlignLeft | Qt::AlignBottom},     {8, 6, Qt::AlignLeft | Qt::AlignTop},
        {-8, -6, Qt::AlignRight | Qt::AlignBottom},   {-8, 6, Qt::AlignRight | Qt::AlignTop},
        {0, -10, Qt::AlignHCenter | Qt::AlignBottom}, {0, 10, Qt::AlignHCenter | Qt::AlignTop},
        {14, -24, Qt::AlignLeft | Qt::AlignBottom},   {14, 24, Qt::AlignLeft | Qt::AlignTop},
        {-14, -24, Qt::AlignRight | Qt::AlignBottom}, {-14, 24, Qt::AlignRight | Qt::AlignTop},
        {20, -42, Qt::AlignLeft | Qt::AlignBottom},   {20, 42, Qt::AlignLeft | Qt::AlignTop},
        {-20, -42, Qt::AlignRight | Qt::AlignBottom}, {-20, 42, Qt::AlignRight | Qt::AlignTop},
    };
    constexpr int kNearCandidates = 6;
    auto rectFor = [](const QPointF& p, const Candidate& c, const QSizeF& s) {
        double left = p.x() + c.dx;
        if (c.align & Qt::AlignRight)
            left -= s.width();
        else if (c.align & Qt::AlignHCenter)
            left -= s.width() / 2;
        double top = p.y() + c.dy;
        if (c.align & Qt::AlignBottom) top -= s.height();
        return QRectF(left, top, s.width(), s.height());
    };
    // Emphasised labels (the current plan) choose first, optional ones last.
    std::vector<LabelItem*> order;
    for (auto it = m_pointLabels.begin(); it != m_pointLabels.end(); ++it)
        for (LabelItem& l : it.value()) order.push_back(&l);
    auto priority = [](const LabelItem* l) { return l->emphasised ? 0 : l->optional ? 2 : 1; };
    std::stable_sort(order.begin(), order.end(), [&](const LabelItem* a, const LabelItem* b) {
        return priority(a) < priority(b);
    });
    for (LabelItem* l : order) {
        const QSizeF size = l->size;
        const QPointF p = l->anchor->position->pixelPosition();
        double bestCost = 1e300;
        int best = 0;
        QRectF bestRect;
        for (int i = 0; i < int(std::size(kCandidates)); ++i) {
            const QRectF r = rectFor(p, kCandidates[i], size);
            double cost = 0;
            for (const QRectF& t : taken) {
                const QRectF o = r.intersected(t);
                if (!o.isEmpty()) cost += o.width() * o.height();
            }
            const QRectF inside = r.intersected(QRectF(area));
            cost += 4.0 * (r.width() * r.height() - inside.width() * inside.height());
            if (cost < bestCost - 1e-9) {
                bestCost = cost;
                best = i;
                bestRect = r;
            }
            if (cost == 0) break;
        }
        // An optional label shows only close to its point and where it overlaps nothing.
        const bool shown = !l->optional || (bestCost == 0 && best < kNearCandidates);
        l->text->setVisible(shown);
        l->text->position->setCoords(kCandidates[best].dx, kCandidates[best].dy);
        l->text->setPositionAlignment(kCandidates[best].align);
        l->leader->setVisible(shown && best >= kNearCandidates);
        l->placed = shown ? bestRect : QRectF();
        if (shown) taken.push_back(bestRect);
    }
}

QStringList PlotAdapter::visiblePointLabels(const QString& group) const {
    QStringList texts;
    for (const LabelItem& l : m_pointLabels.value(group))
        if (!l.placed.isEmpty()) texts << l.text->text();
    return texts;
}

std::vector<QRectF> PlotAdapter::visiblePointLabelRects(const QString& group) const {
    std::vector<QRectF> rects;
    for (auto it = m_pointLabels.cbegin(); it != m_pointLabels.cend(); ++it)
        if (group.isEmpty() || it.key() == group)
            for (const LabelItem& l : it.value())
                if (!l.placed.isEmpty()) rects.push_back(l.placed);
    return rects;
}

void PlotAdapter::clearGroup(const QString& group) {
    for (const char* layer : {kLayerBehind, kLayerOver}) {
        const QString key = group + QLatin1Char('@') + QLatin1String(layer);
        if (SpanSet* set = m_spanSets.value(key, nullptr)) m_plot->removePlottable(set);
        m_spanSets.remove(key);
    }
    auto it = m_groups.find(group);
    if (it == m_groups.end()) return;
    for (QCPAbstractItem* item : it.value()) {
        if (auto* t = qobject_cast<QCPItemText*>(item))
            m_paletteTexts.erase(std::remove(m_paletteTexts.begin(), m_paletteTexts.end(), t),
                                 m_paletteTexts.end());
        m_plot->removeItem(item);
    }
    m_groups.erase(it);
    m_pointLabels.remove(group);
    m_markers.remove(group);
}

int PlotAdapter::groupSize(const QString& group) const {
    int n = 0;
    for (const char* layer : {kLayerBehind, kLayerOver})
        if (const SpanSet* set =
                m_spanSets.value(group + QLatin1Char('@') + QLatin1String(layer), nullptr))
            n += set->size();
    auto it = m_groups.constFind(group);
    return n + (it == m_groups.cend() ? 0 : int(it.value().size()));
}

QPointF PlotAdapter::pixelToData(const QPoint& pixel) const {
    const QPoint local = m_plot->mapFrom(this, pixel);
    return QPointF(m_plot->xAxis->pixelToCoord(local.x()), m_plot->yAxis->pixelToCoord(local.y()));
}

QPointF PlotAdapter::dataToPixel(double x, double y) const {
    const QPointF inPlot(m_plot->xAxis->coordToPixel(x), m_plot->yAxis->coordToPixel(y));
    return inPlot + QPointF(m_plot->mapTo(this, QPoint(0, 0)));
}

int PlotAdapter::plotAreaWidth() const {
    return m_plot->axisRect()->width();
}

bool PlotAdapter::insidePlotArea(const QPoint& pixel) const {
    return m_plot->axisRect()->rect().contains(m_plot->mapFrom(this, pixel));
}

void PlotAdapter::onMouseMove(QMouseEvent* event) {
    const QPoint pos = event->pos();
    if (!m_plot->axisRect()->rect().contains(pos)) {
        emit left();
        return;
    }
    emit hovered(
        QPointF(m_plot->xAxis->pixelToCoord(pos.x()), m_plot->yAxis->pixelToCoord(pos.y())),
        event->globalPosition().toPoint());
}

void PlotAdapter::onMousePress(QMouseEvent* event) {
    m_pressPixel = event->pos();
    m_pressed = event->button() == Qt::LeftButton;
}

void PlotAdapter::onMouseRelease(QMouseEvent* event) {
    if (!m_pressed || event->button() != Qt::LeftButton) return;
    m_pressed = false;
    const QPoint pos = event->pos();
    if ((pos - m_pressPixel).manhattanLength() > kClickSlopPx) return;  // a drag, not a click
    if (!m_plot->axisRect()->rect().contains(pos)) return;
    emit clicked(
        QPointF(m_plot->xAxis->pixelToCoord(pos.x()), m_plot->yAxis->pixelToCoord(pos.y())),
        m_plot->mapTo(this, pos));
}

QColor PlotAdapter::textColor() const {
    return palette().color(QPalette::Text);
}

void PlotAdapter::applyPalette() {
    const QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(45);
    QColor subtle = text;
    subtle.setAlpha(110);
    m_plot->setBackground(base);
    m_background = base;
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis, m_plot->xAxis2, m_plot->yAxis2}) {
        a->setBasePen(QPen(subtle, 1));
        a->setTickPen(QPen(subtle, 1));
        a->setSubTickPen(QPen(subtle, 1));
        a->setTickLabelColor(text);
        a->setLabelColor(text);
        a->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        a->grid()->setZeroLinePen(QPen(subtle, 1));
    }
    m_plot->legend->setBrush(base);
    m_plot->legend->setBorderPen(QPen(grid, 1));
    m_plot->legend->setTextColor(text);
    QColor back = base;
    back.setAlpha(230);
    for (QCPItemText* t : m_paletteTexts) {
        t->setColor(text);
        if (t->brush().style() != Qt::NoBrush) t->setBrush(back);
    }
    for (auto it = m_lines.begin(); it != m_lines.end(); ++it)
        if (m_linePaletteColored.value(it.key()) && m_lineStyles.contains(it.key()))
            applyLineStyle(it.value(), m_lineStyles[it.key()]);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotAdapter::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) applyPalette();
    if (event->type() == QEvent::FontChange) applyFonts();
    QWidget::changeEvent(event);
}

void PlotAdapter::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateLegendColumns();
}

void PlotAdapter::updateLegendColumns() {
    // The most columns whose widest entries, side by side, fit the width: no entry is cut off.
    QCPLegend* legend = m_plot->legend;
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i))
            widths.push_back(item->minimumOuterSizeHint().width());
    if (widths.empty()) return;
    const int available = m_plot->width() - legend->margins().left() - legend->margins().right();
    int columns = 1;
    for (int n = std::min<int>(8, int(widths.size())); n > 1; --n) {
        int total = (n - 1) * legend->columnSpacing();
        for (int c = 0; c < n; ++c) {
            int widest = 0;
            for (std::size_t i = std::size_t(c); i < widths.size(); i += std::size_t(n))
                widest = std::max(widest, widths[i]);
            total += widest;
        }
        if (total <= available) {
            columns = n;
            break;
        }
    }
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

bool PlotAdapter::exportTo(const QString& path, QSize size, QString* error) {
    if (size.isEmpty()) {
        size = m_plot->size();
        if (size.width() < 200 || size.height() < 150 || !m_plot->isVisible())
            size = QSize(1200, 700);
    }
    SlideOptions options;
    options.size = size;
    options.pixelRatio = 1.0;
    return exportSlide(path, options, error);
}

bool PlotAdapter::exportSlide(const QString& path, const SlideOptions& options, QString* error) {
    auto fail = [&](const QString& message) {
        if (error) *error = message;
        return false;
    };
    if (!validSlideOptions(path, options, error)) return false;
    const QSize size = options.size;
    // The title is a row above the axis rect for the export only.
    QCPTextElement* title = nullptr;
    if (!options.title.isEmpty()) {
        m_plot->plotLayout()->insertRow(0);
        title = new QCPTextElement(m_plot, options.title);
        QFont f = title->font();
        f.setPointSizeF(f.pointSizeF() * 1.5);
        f.setBold(true);
        title->setFont(f);
        title->setTextColor(textColor());
        m_plot->plotLayout()->addElement(0, 0, title);
        m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    }
    const QString ext = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (ext == QLatin1String("png")) {
        ok = m_plot->savePng(path, size.width(), size.height(), options.pixelRatio);
    } else if (ext == QLatin1String("pdf")) {
        ok = m_plot->savePdf(path, size.width(), size.height(), QCP::epAllowCosmetic,
                             QStringLiteral("Remat Studio"), options.title);
    } else {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(options.title.isEmpty() ? tr("Remat Studio plot") : options.title);
        QCPPainter painter;
        if (painter.begin(&generator)) {
            m_plot->toPainter(&painter, size.width(), size.height());
            ok = painter.end();
        }
    }
    if (title) {
        m_plot->plotLayout()->remove(title);
        m_plot->plotLayout()->simplify();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
    if (!ok || !QFileInfo(path).exists() || QFileInfo(path).size() == 0)
        return fail(
            tr("Could not write \"%1\". Check that the folder exists and is writable.").arg(path));
    return true;
}

}  // namespace remat::ui
