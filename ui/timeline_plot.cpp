#include "timeline_plot.h"

#include <QElapsedTimer>
#include <QEvent>
#include <QFile>
#include <QResizeEvent>
#include <QSaveFile>
#include <QTextStream>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "instruction_caption.h"
#include "plot_adapter.h"
#include "axis_units.h"
#include "qt_convert.h"

namespace remat::ui {
namespace {

constexpr const char* kGroupPhases = "phases";
constexpr const char* kGroupHighlight = "highlight";
constexpr const char* kGroupCursor = "cursor";
constexpr const char* kGroupReference = "reference";
constexpr const char* kLineMeasured = "measured";
constexpr const char* kLineSnapshotAllocated = "snapshot-allocated";
constexpr const char* kLineSnapshotReserved = "snapshot-reserved";
constexpr const char* kLineCapacity = "capacity";
// Headroom above the peak so its label has room.
constexpr double kHeadroom = 1.15;
// A capacity line further above the peak than this would flatten the data; it is then named in
// a note instead of drawn.
constexpr double kCapacityShownUpTo = 1.6;

QColor phaseColor(Phase p) {
    switch (p) {
        case Phase::Forward:
            return QColor(0x3b, 0x82, 0xf6);
        case Phase::Recompute:
            return QColor(0xf5, 0x9e, 0x0b);
        case Phase::Backward:
            return QColor(0xa8, 0x55, 0xf7);
        case Phase::Optimizer:
            return QColor(0x10, 0xb9, 0x81);
        case Phase::Setup:
        case Phase::Teardown:
            break;
    }
    return QColor();
}

// As the phase strip writes it where the full name does not fit.
QString phaseShortName(Phase p) {
    switch (p) {
        case Phase::Forward:
            return TimelinePlot::tr("fwd", "phase strip");
        case Phase::Recompute:
            return TimelinePlot::tr("re", "phase strip");
        case Phase::Backward:
            return TimelinePlot::tr("bwd", "phase strip");
        case Phase::Optimizer:
            return TimelinePlot::tr("opt", "phase strip");
        case Phase::Setup:
        case Phase::Teardown:
            break;
    }
    return {};
}

QString phaseDisplayName(Phase p) {
    switch (p) {
        case Phase::Setup:
            return TimelinePlot::tr("setup");
        case Phase::Forward:
            return TimelinePlot::tr("forward");
        case Phase::Recompute:
            return TimelinePlot::tr("recompute");
        case Phase::Backward:
            return TimelinePlot::tr("backward");
        case Phase::Optimizer:
            return TimelinePlot::tr("optimizer");
        case Phase::Teardown:
            return TimelinePlot::tr("teardown");
    }
    return {};
}

const QColor kCapacityColor(0xdc, 0x26, 0x26);

QString csvField(const std::string& s) {
    QString q = toQString(s);
    if (q.contains(QLatin1Char(',')) || q.contains(QLatin1Char('"')) ||
        q.contains(QLatin1Char('\n')))
        return QLatin1Char('"') + q.replace(QLatin1String("\""), QLatin1String("\"\"")) +
               QLatin1Char('"');
    return q;
}

}  // namespace

TimelinePlot::TimelinePlot(QWidget* parent) : QWidget(parent) {
    m_plot = new PlotAdapter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setHorizontalZoom(true);
    setMouseTracking(true);
    setMinimumSize(320, 200);
    connect(m_plot, &PlotAdapter::hovered, this, &TimelinePlot::onHover);
    connect(m_plot, &PlotAdapter::left, this, [this] {
        QToolTip::hideText();
        emit instructionHovered(-1);
    });
    connect(m_plot, &PlotAdapter::clicked, this, [this](QPointF data, QPoint) { onClick(data); });
    connect(m_plot, &PlotAdapter::xRangeChanged, this, [this](double, double) {
        // Zooming or panning re-decimates for the new visible range.
        if (!m_redrawing && hasData()) {
            redrawSeries();
            if (m_cursor < m_count) drawCursor();  // kept at least two pixels wide
        }
    });
    clear();
}

TimelinePlot::~TimelinePlot() = default;

void TimelinePlot::clear() {
    m_owner.reset();
    m_graph = nullptr;
    m_program = nullptr;
    m_timeline = nullptr;
    m_count = 0;
    m_series = std::make_shared<const TimelineSeriesInputs>();
    m_displayed.clear();
    m_measured.clear();
    m_snapAllocated.clear();
    m_snapReserved.clear();
    m_plot->clearAll();
    m_plot->setAxis(PlotAxis::X, tr("instruction"));
    m_plot->setAxis(PlotAxis::Y, tr("live memory"));
    m_plot->replot();
}

namespace {
struct OwnedData {
    Graph graph;
    Program program;
    Timeline timeline;
};
}  // namespace

void TimelinePlot::setData(const Graph& g, const Program& p, const Timeline& t,
                           const DeviceSpec& device) {
    auto copy = std::make_shared<const OwnedData>(OwnedData{g, p, t});
    setData(copy, copy->graph, copy->program, copy->timeline, device);
}

void TimelinePlot::setData(std::shared_ptr<const void> owner, const Graph& g, const Program& p,
                           const Timeline& t, const DeviceSpec& device,
                           std::shared_ptr<const TimelineSeriesInputs> series) {
    QElapsedTimer timer;
    timer.start();
    m_owner = std::move(owner);
    m_graph = &g;
    m_program = &p;
    m_timeline = &t;
    m_count = std::min({p.instructions.size(), t.live.size(), t.endS.size(), t.durationS.size()});
    m_series = series ? std::move(series)
                      : std::make_shared<const TimelineSeriesInputs>(timelineSeriesInputs(g, p, t));
    m_count = std::min(m_count, m_series->totals.size());
    m_peakInstruction = std::min(t.peakInstruction, m_count ? m_count - 1 : 0);
    m_peakBytes = t.peakBytes;
    m_usableBytes = device.usableBytes();
    m_measured.clear();
    m_snapAllocated.clear();
    m_snapReserved.clear();
    if (m_highlightLayer >= int(g.layerModules.size())) m_highlightLayer = -1;
    if (m_count == 0) {
        clear();
        return;
    }
    rebuild();
    m_lastSetDataMs = double(timer.nsecsElapsed()) / 1e6;
}

void TimelinePlot::setXAxis(XAxis axis) {
    if (axis == m_axis) return;
    m_axis = axis;
    if (hasData()) rebuild();
}

void TimelinePlot::setUnits(ByteUnits units) {
    if (units == m_units) return;
    m_units = units;
    if (hasData()) rebuild();
}

int TimelinePlot::bucketCount() const {
    // One bucket per device pixel column of the plot (its axis area is a little narrower, and
    // is laid out only at the next replot); a plot not laid out yet gets a generous default.
    return std::max(600, int(double(m_plot->width()) * devicePixelRatioF()));
}

void TimelinePlot::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // A wider plot has more pixel columns than the series was decimated for: draw it again so
    // that it is as detailed at every size (and the same for the same size).
    if (hasData() && !m_redrawing && bucketCount() != m_drawnBuckets) {
        redrawSeries();
        m_plot->replot();
    }
}

void TimelinePlot::applyAxes() {
    double top = double(m_peakBytes);
    for (const auto* v : {&m_measured, &m_snapAllocated, &m_snapReserved})
        if (!v->empty()) top = std::max(top, double(*std::max_element(v->begin(), v->end())));
    top *= kHeadroom;
    const bool capacityShown =
        m_usableBytes > 0 && double(m_usableBytes) <= kCapacityShownUpTo * double(m_peakBytes);
    if (capacityShown) top = std::max(top, double(m_usableBytes) * 1.05);
    if (top <= 0) top = 1.0;
    const AxisUnit bytes = byteAxisUnit(top / kHeadroom, m_units);
    m_plot->setAxis(PlotAxis::Y, tr("live memory (%1)").arg(bytes.name), bytes.scale);
    m_plot->setRange(PlotAxis::Y, 0.0, top);
    if (m_axis == XAxis::Instruction) {
        m_plot->setAxis(PlotAxis::X, tr("instruction"));
    } else {
        const AxisUnit time = timeAxisUnit(m_extents.upper());
        m_plot->setAxis(PlotAxis::X, tr("predicted time (%1)").arg(time.name), time.scale);
    }
    m_plot->setRange(PlotAxis::X, m_extents.lower(), m_extents.upper());
}

void TimelinePlot::rebuild() {
    m_redrawing = true;
    // The series was made with the program (off the GUI thread for a long one): choosing the
    // axis and the legend's categories takes no pass over the instructions.
    m_extents = m_axis == XAxis::Instruction ? XExtents::indices(m_count)
                                             : m_series->timeAxis.prefix(m_count);
    m_plot->clearAll();
    std::vector<AreaStyle> styles;
    for (Category c : kAllCategories) {
        // The legend keeps names short: the parenthesised explanation stays in tooltips.
        styles.push_back(AreaStyle{categoryShortName(c), categoryColor(c),
                                   m_series->categoryUsed[std::size_t(c)]});
    }
    m_plot->setStackedAreas(styles);
    applyAxes();
    redrawSeries();
    drawPhases();
    drawReferenceLines();
    drawHighlight();
    drawCursor();
    m_redrawing = false;
    m_plot->replot();
}

void TimelinePlot::redrawSeries() {
    const QPointF xr = m_plot->range(PlotAxis::X);
    m_drawnBuckets = bucketCount();
    m_displayed =
        decimate(m_extents, m_series->totals, xr.x(), xr.y(), m_drawnBuckets, m_peakInstruction,
                 &m_series->extremes);
    const int count = int(m_displayed.size());
    QVector<double> x(count + 1);
    std::vector<QVector<double>> tops(kCategoryCount, QVector<double>(count + 1));
    for (int k = 0; k < count; ++k) {
        const std::size_t i = m_displayed[std::size_t(k)];
        x[k] = m_extents.start(i);
        std::int64_t sum = 0;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            sum += m_timeline->live[i][c];
            tops[c][k] = double(sum);
        }
    }
    // A closing point so the last instruction's step has its width.
    if (count > 0) {
        x[count] = m_extents.end(m_displayed.back());
        for (std::size_t c = 0; c < kCategoryCount; ++c) tops[c][count] = tops[c][count - 1];
    }
    if (count == 0) {
        x.clear();
        for (auto& t : tops) t.clear();
    }
    m_plot->setStackedData(x, tops);
    drawMeasured();
}

void TimelinePlot::drawMeasured() {
    drawStepLine(kLineMeasured, m_measuredLabel, m_measured, QColor(), Qt::DashLine);
    // The snapshot's two curves: allocated (what tensors hold, comparable with the stack) and
    // reserved (what the caching allocator holds from the device).
    drawStepLine(kLineSnapshotReserved, m_snapReservedLabel, m_snapReserved, QColor(148, 103, 189),
                 Qt::DotLine);
    drawStepLine(kLineSnapshotAllocated, m_snapAllocatedLabel, m_snapAllocated,
                 QColor(214, 39, 40), Qt::SolidLine);
}

void TimelinePlot::drawStepLine(const char* id, const QString& label,
                                const std::vector<std::int64_t>& values, const QColor& color,
                                Qt::PenStyle pen) {
    if (values.empty()) {
        m_plot->removeLine(id);
        return;
    }
    const QPointF xr = m_plot->range(PlotAxis::X);
    const auto peakIt = std::max_element(values.begin(), values.end());
    const auto shown = decimate(m_extents, values, xr.x(), xr.y(), bucketCount(),
                                std::size_t(peakIt - values.begin()));
    QVector<double> x, y;
    x.reserve(int(shown.size()) + 1);
    y.reserve(int(shown.size()) + 1);
    for (std::size_t i : shown) {
        x.push_back(m_extents.start(i));
        y.push_back(double(values[i]));
    }
    if (!shown.empty()) {
        x.push_back(m_extents.end(shown.back()));
        y.push_back(y.back());
    }
    LineStyle style;
    style.color = color;
    style.pen = pen;
    style.widthPx = 2.0;
    style.steps = true;
    m_plot->setLine(id, label, x, y, style);
}

void TimelinePlot::drawPhases() {
    m_plot->clearGroup(kGroupPhases);
    for (const PhaseRun& r : m_series->phaseRuns) {
        QColor c = phaseColor(r.phase);
        if (!c.isValid()) continue;
        const double x0 = m_extents.start(r.span.first);
        const double x1 = m_extents.end(r.span.last);
        // Alternate micro-batches slightly so their boundaries show.
        QColor wash = c;
        wash.setAlpha(r.microStep % 2 ? 16 : 30);
        m_plot->addSpan(kGroupPhases, SpanLayer::Behind, x0, x1, wash);
        QColor strip = c;
        strip.setAlpha(r.microStep % 2 ? 170 : 235);
        // The strip names its phases where there is room (full name, else short), which
        // keeps them out of the legend.
        QStringList labels{phaseDisplayName(r.phase), phaseShortName(r.phase)};
        if (r.times > 1) {
            // A repeat's body, drawn once over the time all its iterations take.
            labels.prepend(tr("%1 × %2").arg(phaseDisplayName(r.phase)).arg(r.times));
            labels.prepend(tr("%1, micro-batches %2–%3 (× %4, same memory)")
                               .arg(phaseDisplayName(r.phase))
                               .arg(r.microStep + 1)
                               .arg(std::int64_t(r.microStep) + r.times)
                               .arg(r.times));
        } else if (m_program->accumulationSteps > 1) {
            labels.prepend(
                tr("%1 (micro-batch %2)").arg(phaseDisplayName(r.phase)).arg(r.microStep + 1));
        }
        m_plot->addTopBand(kGroupPhases, x0, x1, strip, labels);
    }
}

void TimelinePlot::drawReferenceLines() {
    m_plot->clearGroup(kGroupReference);
    if (!hasData()) return;
    LineStyle capacityStyle;
    capacityStyle.color = kCapacityColor;
    capacityStyle.pen = Qt::DashLine;
    capacityStyle.widthPx = 2.0;
    if (m_usableBytes > 0) {
        const bool onScale = double(m_usableBytes) <= m_plot->range(PlotAxis::Y).y();
        const QString capacity = bytesText(m_usableBytes, m_units);
        // The legend always names the capacity; the line is drawn when it is on the scale.
        const QString legend = onScale ? tr("usable capacity")
                                       : tr("usable capacity %1, above this scale").arg(capacity);
        m_plot->setLine(kLineCapacity, legend, {}, {}, capacityStyle);
        if (onScale)
            m_plot->addHorizontalLine(kGroupReference, double(m_usableBytes), kCapacityColor,
                                      tr("usable capacity %1").arg(capacity));
    }
    const QString label =
        tr("peak %1\nat %2").arg(bytesText(m_peakBytes, m_units), shortCaption(m_peakInstruction));
    m_plot->addMarker(
        kGroupReference, m_extents.start(m_peakInstruction), double(m_peakBytes), label,
        m_peakBytes > m_usableBytes ? kCapacityColor : palette().color(QPalette::Text));
}

void TimelinePlot::drawHighlight() {
    m_plot->clearGroup(kGroupHighlight);
    if (m_highlightLayer < 0) return;
    QColor fill = palette().color(QPalette::Highlight);
    QColor border = fill;
    fill.setAlpha(70);
    border.setAlpha(200);
    for (const InstructionSpan& s : highlightedSpans())
        m_plot->addSpan(kGroupHighlight, SpanLayer::Over, m_extents.start(s.first),
                        m_extents.end(s.last), fill, border);
}

void TimelinePlot::highlightLayer(int layerIndex) {
    if (layerIndex < -1) layerIndex = -1;
    m_highlightLayer = layerIndex;
    if (!hasData()) return;
    drawHighlight();
    m_plot->replot();
}

void TimelinePlot::drawCursor() {
    m_plot->clearGroup(kGroupCursor);
    m_cursorExtent = QPointF();
    if (m_cursor >= m_count || m_cursor >= m_extents.size()) return;
    double x0 = m_extents.start(m_cursor), x1 = m_extents.end(m_cursor);
    // At least two pixels wide: on the time axis an alloc takes no time, and a long program
    // packs many instructions into one pixel.
    const int width = m_plot->plotAreaWidth();
    const QPointF range = m_plot->range(PlotAxis::X);
    const double minWidth = width > 0 ? 2.0 * (range.y() - range.x()) / width : 0.0;
    if (x1 - x0 < minWidth) {
        const double mid = (x0 + x1) / 2;
        x0 = mid - minWidth / 2;
        x1 = mid + minWidth / 2;
    }
    QColor line = palette().color(QPalette::Text);
    QColor fill = line;
    fill.setAlpha(60);
    line.setAlpha(220);
    m_plot->addSpan(kGroupCursor, SpanLayer::Over, x0, x1, fill, line);
    m_cursorExtent = QPointF(x0, x1);
}

void TimelinePlot::setCursorInstruction(std::size_t index) {
    if (index == m_cursor) return;
    m_cursor = index;
    if (!hasData()) return;
    drawCursor();
    m_plot->replot();
}

std::vector<InstructionSpan> TimelinePlot::highlightedSpans() const {
    return layerSpans(m_series->layers, m_highlightLayer);
}

bool TimelinePlot::setMeasured(std::vector<std::int64_t> liveBytes, const QString& label) {
    if (liveBytes.size() != m_count || liveBytes.empty()) return false;
    m_measured = std::move(liveBytes);
    m_measuredLabel = label.isEmpty() ? tr("measured") : label;
    rebuild();
    return true;
}

bool TimelinePlot::setSnapshotOverlay(std::vector<std::int64_t> allocated,
                                      std::vector<std::int64_t> reserved,
                                      const QString& allocatedLabel, const QString& reservedLabel) {
    if (allocated.size() != m_count || reserved.size() != m_count || allocated.empty()) return false;
    m_snapAllocated = std::move(allocated);
    m_snapReserved = std::move(reserved);
    m_snapAllocatedLabel = allocatedLabel;
    m_snapReservedLabel = reservedLabel;
    rebuild();
    return true;
}

void TimelinePlot::clearSnapshotOverlay() {
    if (m_snapAllocated.empty()) return;
    m_snapAllocated.clear();
    m_snapReserved.clear();
    if (hasData()) rebuild();
}

void TimelinePlot::clearMeasured() {
    if (m_measured.empty()) return;
    m_measured.clear();
    if (hasData()) rebuild();
}

int TimelinePlot::layerOfInstruction(std::size_t index) const {
    return index < m_series->layers.size() ? m_series->layers[index] : -1;
}

QString TimelinePlot::captionOf(std::size_t index) const {
    return index < m_count
               ? instructionCaption(instructionParts(*m_graph, *m_program, index), m_units)
               : QString();
}

QString TimelinePlot::shortCaption(std::size_t index) const {
    // Without an alloc's or free's "(size, category)": the peak label already states the size.
    return index < m_count ? instructionCaption(instructionParts(*m_graph, *m_program, index),
                                                m_units, CaptionDetail::Short)
                           : QString();
}

std::size_t TimelinePlot::instructionAtX(double x) const {
    return instructionAt(m_extents, x);
}

double TimelinePlot::lastReplotMs() const {
    return m_plot->lastReplotMs();
}

QString TimelinePlot::tooltipFor(std::size_t i) const {
    if (i >= m_count) return {};
    const Instruction& ins = m_program->instructions[i];
    const CategoryBytes& live = m_timeline->live[i];
    QString html = QStringLiteral("<b>#%1</b> %2<br>").arg(i).arg(captionOf(i).toHtmlEscaped());
    const std::int64_t times = m_program->timesRun(i);
    if (times > 1)
        html += tr("phase: %1, micro-batches %2–%3 of %4: runs %5 times, with the same memory "
                   "each time; its time is that of all runs")
                    .arg(phaseDisplayName(ins.phase))
                    .arg(ins.microStep + 1)
                    .arg(std::int64_t(ins.microStep) + times)
                    .arg(m_program->accumulationSteps)
                    .arg(times);
    else
        html += tr("phase: %1, micro-batch %2 of %3")
                    .arg(phaseDisplayName(ins.phase))
                    .arg(ins.microStep + 1)
                    .arg(std::max<std::int64_t>(1, m_program->accumulationSteps));
    const int layer = m_series->layers[i];
    if (layer >= 0 && std::size_t(layer) < m_graph->layerModules.size()) {
        const Module& m = m_graph->module(m_graph->layerModules[std::size_t(layer)]);
        html += QStringLiteral("<br>") +
                tr("layer: %1 (%2)").arg(toQString(m.path).toHtmlEscaped(), toQString(m.kind));
    }
    const double endS = m_timeline->endS[i], durationS = m_timeline->durationS[i];
    const QString start = formatSeconds(endS - durationS);
    // Allocs and frees take no time in the model: "0.0 µs" would read as a rounded-down figure.
    html += QStringLiteral("<br>") +
            (durationS > 0.0
                 ? tr("predicted time: starts at %1, takes %2").arg(start, formatSeconds(durationS))
                 : tr("predicted time: starts at %1, takes no time").arg(start));
    html += QStringLiteral("<table cellspacing=0 cellpadding=1>");
    for (Category c : kAllCategories) {
        const std::int64_t v = live[std::size_t(c)];
        if (v == 0) continue;
        html += QStringLiteral(
                    "<tr><td><span style='color:%1'>&#9632;</span> %2</td>"
                    "<td align=right>&nbsp;%3</td></tr>")
                    .arg(categoryColor(c).name(), categoryDisplayName(c).toHtmlEscaped(),
                         bytesText(v, m_units));
    }
    html += QStringLiteral("<tr><td><b>%1</b></td><td align=right>&nbsp;<b>%2</b></td></tr>")
                .arg(tr("live in total"), bytesText(m_series->totals[i], m_units));
    if (!m_measured.empty())
        html += QStringLiteral("<tr><td>%1</td><td align=right>&nbsp;%2</td></tr>")
                    .arg(m_measuredLabel.toHtmlEscaped(), bytesText(m_measured[i], m_units));
    if (!m_snapAllocated.empty())
        html += QStringLiteral("<tr><td>%1</td><td align=right>&nbsp;%2</td></tr>"
                               "<tr><td>%3</td><td align=right>&nbsp;%4</td></tr>")
                    .arg(tr("PyTorch allocated"), bytesText(m_snapAllocated[i], m_units),
                         tr("PyTorch reserved"), bytesText(m_snapReserved[i], m_units));
    html += QStringLiteral("</table>");
    if (i == m_peakInstruction)
        html += QStringLiteral("<b>") + tr("This is the peak.") + QStringLiteral("</b>");
    return html;
}

void TimelinePlot::onHover(QPointF data, QPoint globalPos) {
    const std::size_t i = instructionAtX(data.x());
    if (i >= m_count) {
        QToolTip::hideText();
        emit instructionHovered(-1);
        return;
    }
    QToolTip::showText(globalPos, tooltipFor(i), this);
    emit instructionHovered(int(i));
}

void TimelinePlot::onClick(QPointF data) {
    const std::size_t i = instructionAtX(data.x());
    if (i >= m_series->layers.size()) return;
    if (m_series->layers[i] >= 0) emit layerClicked(m_series->layers[i]);
}

bool TimelinePlot::exportTo(const QString& path, QString* error) {
    if (!hasData()) {
        if (error) *error = tr("There is no timeline to export yet.");
        return false;
    }
    return m_plot->exportTo(path, QSize(), error);
}

bool TimelinePlot::exportCsv(const QString& path, QString* error) const {
    if (!hasData()) {
        if (error) *error = tr("There is no timeline to export yet.");
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) *error = tr("Could not write \"%1\": %2").arg(path, file.errorString());
        return false;
    }
    QTextStream out(&file);
    out << "instruction,micro_batch,phase,kind,layer,caption,start_s,duration_s,end_s";
    for (Category c : kAllCategories) out << ',' << toQString(categoryKey(c)) << "_bytes";
    out << ",total_bytes";
    if (!m_measured.empty()) out << ",measured_bytes";
    out << ",times\n";
    out.setRealNumberPrecision(9);
    for (std::size_t i = 0; i < m_count; ++i) {
        const Instruction& ins = m_program->instructions[i];
        const double endS = m_timeline->endS[i], durationS = m_timeline->durationS[i];
        out << i << ',' << (ins.microStep + 1) << ',' << toQString(phaseName(ins.phase)) << ','
            << toQString(instrKindName(ins.kind)) << ',' << m_series->layers[i] << ','
            << csvField(describeInstruction(*m_graph, *m_program, i)) << ',' << (endS - durationS)
            << ',' << durationS << ',' << endS;
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            out << ',' << qint64(m_timeline->live[i][c]);
        out << ',' << qint64(m_series->totals[i]);
        if (!m_measured.empty()) out << ',' << qint64(m_measured[i]);
        out << ',' << qint64(m_program->timesRun(i)) << '\n';
    }
    out.flush();
    if (!file.commit()) {
        if (error) *error = tr("Could not write \"%1\": %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

void TimelinePlot::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // Spans and labels take their colours from the palette when drawn.
    if (event->type() == QEvent::PaletteChange && hasData()) rebuild();
}

}  // namespace remat::ui
