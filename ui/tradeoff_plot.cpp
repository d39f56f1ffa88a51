#include "tradeoff_plot.h"

#include <QEvent>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "plot_adapter.h"
#include "axis_units.h"
#include "qt_convert.h"

namespace remat::ui {
namespace {

constexpr const char* kLineCurve = "curve";
constexpr const char* kLineFrontier = "frontier";
constexpr const char* kLineNamed = "named";
constexpr const char* kLineCurrent = "current";
constexpr const char* kLineCapacity = "capacity";
constexpr const char* kLineUnsafe = "unsafe";
constexpr const char* kGroupLabels = "labels";
constexpr const char* kGroupCurveLabels = "curve-labels";
constexpr const char* kGroupReference = "reference";
constexpr double kReachPx = 12.0;
constexpr double kClusterPx = 10.0;
constexpr int kNamesPerLabel = 3;
constexpr double kCapacityShownUpTo = 1.6;
// The peak axis starts at zero unless the peaks would then share less than this fraction of
// its height (differences flattened); it then starts just below the lowest peak and says so.
constexpr double kZeroBasedShareAtLeast = 0.5;

const QColor kCurveColor(0x3b, 0x82, 0xf6);
const QColor kNamedColor(0xf5, 0x9e, 0x0b);
const QColor kFrontierColor(0x8b, 0x5c, 0xf6);
const QColor kCapacityColor(0xdc, 0x26, 0x26);
const QColor kUnsafeColor(0xea, 0x58, 0x0c);

// Which series wins when points of several sit on one spot: the table row (it has a label and a
// simple spelling), then the frontier, then the curve.
int rank(TradeoffPlot::Series s) {
    switch (s) {
        case TradeoffPlot::Series::Named:
            return 2;
        case TradeoffPlot::Series::Frontier:
            return 1;
        case TradeoffPlot::Series::Curve:
            return 0;
    }
    return 0;
}


}  // namespace

TradeoffPlot::TradeoffPlot(QWidget* parent) : QWidget(parent) {
    m_plot = new PlotAdapter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(280, 220);
    m_plot->setZoomPan(true);
    m_plot->setToolTip(tr("Drag to pan, wheel to zoom, double-click to reset; click a point to "
                          "apply its plan."));
    connect(m_plot, &PlotAdapter::clicked, this, [this](QPointF, QPoint pixel) {
        const QString s = strategyAt(pixel);
        if (!s.isEmpty()) emit strategyChosen(s);
    });
    connect(m_plot, &PlotAdapter::hovered, this, [this](QPointF, QPoint globalPos) {
        const QString s = strategyAt(m_plot->mapFromGlobal(globalPos));
        const Point* p = find(s);
        if (!p) {
            QToolTip::hideText();
            return;
        }
        const QString text =
            p->series == Series::Frontier
                ? tr("<b>optimal frontier</b><br>peak %1<br>step time %2<br>click to apply "
                     "%3")
                      .arg(bytesText(p->peakBytes, m_units), formatSeconds(p->stepTimeS),
                           p->spelling.toHtmlEscaped())
                : tr("<b>%1</b><br>peak %2<br>step time %3<br>click to apply")
                      .arg(p->spelling.toHtmlEscaped(), bytesText(p->peakBytes, m_units),
                           formatSeconds(p->stepTimeS));
        QToolTip::showText(globalPos, text, this);
    });
    connect(m_plot, &PlotAdapter::left, this, [] { QToolTip::hideText(); });
    clear();
}

void TradeoffPlot::clear() {
    m_points.clear();
    m_curveDone = false;
    rebuild();
}

void TradeoffPlot::setData(const ComparisonResult& result) {
    m_points.clear();
    m_perGpu = result.perGpu;
    for (const ComparisonRow& r : result.named)
        if (r.ok)
            m_points.push_back(
                Point{toQString(r.spelling), r.stepTimeS, r.peakBytes, Series::Named, r.unsafe});
    for (const ComparisonRow& r : result.everyK)
        if (r.ok)
            m_points.push_back(
                Point{toQString(r.spelling), r.stepTimeS, r.peakBytes, Series::Curve, r.unsafe});
    for (const FrontierPoint& f : result.frontier)
        m_points.push_back(
            Point{toQString(f.spelling), f.stepTimeS, f.peakBytes, Series::Frontier});
    m_usableBytes = result.usableBytes;
    m_deviceName = printableText(result.deviceName);
    m_chainLength = result.chainLength;
    m_curveDone = result.curveDone;
    rebuild();
}

void TradeoffPlot::setCurrentStrategy(const QString& spelling) {
    if (spelling == m_current) return;
    m_current = spelling;
    rebuild();
}

void TradeoffPlot::setUnits(ByteUnits units) {
    if (units == m_units) return;
    m_units = units;
    rebuild();
}

const TradeoffPlot::Point* TradeoffPlot::find(const QString& spelling) const {
    if (spelling.isEmpty()) return nullptr;
    // A named point first: it carries the label.
    const Point* best = nullptr;
    for (const Point& p : m_points)
        if (p.spelling == spelling && (!best || rank(p.series) > rank(best->series))) best = &p;
    return best;
}

QString TradeoffPlot::labelOf(const Point& p) const {
    // optimal:7571371520 names the budget exactly; a person reads the peak.
    if (p.series == Series::Frontier) return tr("optimal, %1").arg(bytesText(p.peakBytes, m_units));
    if (p.unsafe) return tr("%1 (unsafe)").arg(p.spelling);
    return p.spelling;
}

void TradeoffPlot::rebuild() {
    m_plot->clearAll();
    if (m_points.empty()) {
        m_plot->setAxis(PlotAxis::X, tr("predicted step time"));
        m_plot->setAxis(PlotAxis::Y, tr("peak memory"));
        m_plot->replot();
        return;
    }
    double tMin = m_points.front().stepTimeS, tMax = tMin;
    double peakMax = 0, peakMin = double(m_points.front().peakBytes);
    for (const Point& p : m_points) {
        tMin = std::min(tMin, p.stepTimeS);
        tMax = std::max(tMax, p.stepTimeS);
        peakMax = std::max(peakMax, double(p.peakBytes));
        peakMin = std::min(peakMin, double(p.peakBytes));
    }
    const double pad = std::max((tMax - tMin) * 0.08, tMax * 0.01);
    const AxisUnit time = timeAxisUnit(tMax);
    const bool capacityOnScale =
        m_usableBytes > 0 && double(m_usableBytes) <= kCapacityShownUpTo * peakMax;
    double top = peakMax * 1.15;
    if (capacityOnScale) top = std::max(top, double(m_usableBytes) * 1.08);
    if (top <= 0) top = 1.0;
    const AxisUnit bytes = byteAxisUnit(peakMax, m_units);
    // Peaks that differ by a few percent would sit on one line over a zero-based axis.
    double bottom = 0.0;
    if (peakMax > 0 && (top - peakMin) / top < kZeroBasedShareAtLeast) {
        const double spread = std::max(top - peakMin, 0.02 * top);
        bottom = std::max(0.0, peakMin - 0.25 * spread);
        // The capacity line stays in view when it is below every peak (nothing fits).
        if (capacityOnScale) bottom = std::min(bottom, 0.9 * double(m_usableBytes));
        if (bottom < 0.1 * top) bottom = 0.0;
    }
    m_yFromZero = bottom == 0.0;
    m_plot->setAxis(PlotAxis::X, tr("predicted step time (%1)").arg(time.name), time.scale);
    m_plot->setAxis(PlotAxis::Y,
                    (m_perGpu ? tr("peak per GPU (%1)") : tr("peak memory (%1)")).arg(bytes.name),
                    bytes.scale);
    m_plot->setRange(PlotAxis::X, tMin - pad, tMax + pad);
    m_plot->setRange(PlotAxis::Y, bottom, top);

    QVector<double> cx, cy, nx, ny, ux, uy;
    std::vector<const Point*> frontier;
    for (const Point& p : m_points) {
        if (p.series == Series::Frontier) {
            frontier.push_back(&p);
            continue;
        }
        if (p.unsafe) {
            ux.push_back(p.stepTimeS);
            uy.push_back(double(p.peakBytes));
        }
        const bool named = p.series == Series::Named;
        (named ? nx : cx).push_back(p.stepTimeS);
        (named ? ny : cy).push_back(double(p.peakBytes));
    }
    if (!cx.isEmpty()) {
        LineStyle curve;
        curve.color = kCurveColor;
        curve.parametric = true;
        curve.marker = MarkerShape::Circle;
        curve.markerSizePx = 5;
        m_plot->setLine(kLineCurve, tr("every:K for K = 1 … %1").arg(m_chainLength), cx, cy, curve);
    }
    if (!frontier.empty()) {
        // By step time: each plan's peak holds until a slower plan lowers it, so the staircase
        // is the least peak reachable within each step time.
        std::sort(frontier.begin(), frontier.end(),
                  [](const Point* a, const Point* b) { return a->stepTimeS < b->stepTimeS; });
        QVector<double> fx, fy;
        for (const Point* p : frontier) {
            fx.push_back(p->stepTimeS);
            fy.push_back(double(p->peakBytes));
        }
        LineStyle steps;
        steps.color = kFrontierColor;
        steps.steps = true;
        steps.widthPx = 2.0;
        steps.marker = MarkerShape::Square;
        steps.markerSizePx = 4;
        m_plot->setLine(kLineFrontier, tr("optimal frontier"), fx, fy, steps);
    }
    LineStyle named;
    named.color = kNamedColor;
    named.widthPx = 0;
    named.marker = MarkerShape::Disc;
    named.markerSizePx = 9;
    m_plot->setLine(kLineNamed, tr("named strategies"), nx, ny, named);
    if (!ux.isEmpty()) {
        // Over the disc or curve point: a plan that fits here may still be wrong to train with.
        LineStyle unsafe;
        unsafe.color = kUnsafeColor;
        unsafe.widthPx = 0;
        unsafe.marker = MarkerShape::Triangle;
        unsafe.markerSizePx = 12;
        m_plot->setLine(kLineUnsafe, tr("unsafe: gradients differ"), ux, uy, unsafe);
    }

    if (const Point* current = find(m_current)) {
        LineStyle ring;
        ring.widthPx = 0;
        ring.marker = MarkerShape::Circle;
        ring.markerSizePx = 18;
        m_plot->setLine(kLineCurrent, tr("current plan"), {current->stepTimeS},
                        {double(current->peakBytes)}, ring);
    }

    if (m_usableBytes > 0) {
        LineStyle capacity;
        capacity.color = kCapacityColor;
        capacity.pen = Qt::DashLine;
        capacity.widthPx = 2.0;
        const QString amount = bytesText(m_usableBytes, m_units);
        m_plot->setLine(kLineCapacity,
                        capacityOnScale ? tr("usable capacity")
                                        : tr("usable capacity %1 (above this scale)").arg(amount),
                        {}, {}, capacity);
        if (capacityOnScale)
            m_plot->addHorizontalLine(kGroupReference, double(m_usableBytes), kCapacityColor,
                                      tr("usable capacity %1").arg(amount));
    }

    if (!m_yFromZero)
        // Said where there is room for it (a long axis title is cut on a short plot).
        m_plot->addLegendSwatch(
            tr("peak axis starts at %1, not 0")
                .arg(bytesText(std::int64_t(bottom), m_units)),
            palette().color(QPalette::Mid));

    m_plot->replot();
    updateLabels();
}

void TradeoffPlot::updateLabels() {
    m_plot->clearGroup(kGroupLabels);
    // Strategies whose points land within a few pixels of each other share one label, the
    // current plan's cluster first so its label is placed first.
    struct Cluster {
        QPointF pixel;
        double x = 0, y = 0;
        QStringList names;
        bool current = false;
    };
    std::vector<Cluster> clusters;
    std::vector<const Point*> labelled;
    if (const Point* c = find(m_current)) labelled.push_back(c);
    for (const Point& p : m_points)
        if (p.series == Series::Named && p.spelling != m_current) labelled.push_back(&p);
    for (const Point* p : labelled) {
        const QPointF pixel = m_plot->dataToPixel(p->stepTimeS, double(p->peakBytes));
        auto near = std::find_if(clusters.begin(), clusters.end(), [&](const Cluster& c) {
            return std::hypot(c.pixel.x() - pixel.x(), c.pixel.y() - pixel.y()) < kClusterPx;
        });
        if (near == clusters.end()) {
            clusters.push_back(Cluster{pixel, p->stepTimeS, double(p->peakBytes), {}, false});
            near = clusters.end() - 1;
        }
        const QString name = labelOf(*p);
        if (!near->names.contains(name)) near->names << name;
        near->current = near->current || p->spelling == m_current;
    }
    std::vector<PointLabel> labels;
    for (const Cluster& c : clusters) {
        QString text = c.names.mid(0, kNamesPerLabel).join(QStringLiteral(", "));
        if (c.names.size() > kNamesPerLabel)
            text = tr("%1 +%2 more").arg(text).arg(c.names.size() - kNamesPerLabel);
        labels.push_back(PointLabel{c.x, c.y, text, QColor(), c.current});
    }
    m_plot->addPointLabels(kGroupLabels, labels);

    // K beside the curve's points, wherever there is room for it.
    m_plot->clearGroup(kGroupCurveLabels);
    std::vector<PointLabel> kLabels;
    const QString prefix = QStringLiteral("every:");
    for (const Point& p : m_points) {
        if (p.series != Series::Curve || !p.spelling.startsWith(prefix)) continue;
        const QString k = p.spelling.mid(prefix.size());
        PointLabel label{p.stepTimeS, double(p.peakBytes), tr("K=%1").arg(k), kCurveColor, false};
        label.optional = true;
        kLabels.push_back(label);
    }
    m_plot->addPointLabels(kGroupCurveLabels, kLabels);
    m_plot->layoutPointLabels();
}

QStringList TradeoffPlot::curveLabels() const {
    return m_plot->visiblePointLabels(QString::fromLatin1(kGroupCurveLabels));
}

void TradeoffPlot::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Clusters depend on pixel distances: recompute them once the new size is laid out.
    if (!m_points.empty()) QTimer::singleShot(0, this, [this] { updateLabels(); });
}

QString TradeoffPlot::strategyAt(const QPoint& pixel) const {
    if (!m_plot->insidePlotArea(pixel)) return {};
    const Point* best = nullptr;
    double bestDistance = kReachPx;
    for (const Point& p : m_points) {
        const QPointF at = m_plot->dataToPixel(p.stepTimeS, double(p.peakBytes));
        const double d = std::hypot(at.x() - pixel.x(), at.y() - pixel.y());
        // Named points win ties with the curve or frontier point under them.
        if (d < bestDistance ||
            (best && d == bestDistance && rank(p.series) > rank(best->series))) {
            best = &p;
            bestDistance = d;
        }
    }
    return best ? best->spelling : QString();
}

QPointF TradeoffPlot::pixelOf(const QString& spelling) const {
    const Point* p = find(spelling);
    return p ? m_plot->dataToPixel(p->stepTimeS, double(p->peakBytes)) : QPointF(-1, -1);
}

bool TradeoffPlot::exportTo(const QString& path, QString* error) {
    if (m_points.empty()) {
        if (error) *error = tr("There is no comparison to export yet.");
        return false;
    }
    return m_plot->exportTo(path, QSize(), error);
}

void TradeoffPlot::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) rebuild();
}

}  // namespace remat::ui
