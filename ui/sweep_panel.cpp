#include "sweep_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>

#include "axis_units.h"
#include "background_priority.h"
#include "plot_adapter.h"
#include "progress_strip.h"
#include "qt_convert.h"
#include "wrap_label.h"

namespace remat::ui {

namespace {

constexpr int kStartDelayMs = 300;

// The strategies of the lesson, each with a colour that stays apart in light and dark palettes.
struct SweptStrategy {
    const char* spelling;
    QColor color;
};
const SweptStrategy kStrategies[] = {
    {"none", QColor(0x64, 0x74, 0x8b)},    {"full", QColor(0xdc, 0x26, 0x26)},
    {"every:2", QColor(0xf5, 0x9e, 0x0b)}, {"every:4", QColor(0x10, 0xb9, 0x81)},
    {"sqrt", QColor(0x3b, 0x82, 0xf6)},
};

// Sweeps run one at a time on a thread that gives way to the window's.
QThreadPool* sweepPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

QString ratioText(double r) {
    return QStringLiteral("×%1").arg(r, 0, 'g', r < 10 ? 2 : 3);
}

}  // namespace

SweepPanel::SweepPanel(QWidget* parent)
    : QWidget(parent),
      m_axis(new QComboBox(this)),
      m_values(new QLineEdit(this)),
      m_measure(new QComboBox(this)),
      m_busy(new ProgressStrip(this)),
      m_cancel(new QToolButton(this)),
      m_status(nullptr),
      m_plot(new PlotAdapter(this)),
      m_start(new QTimer(this)) {
    m_axis->addItem(tr("depth (blocks)"), int(SweepAxis::Depth));
    m_axis->addItem(tr("sequence length"), int(SweepAxis::SequenceLength));
    m_axis->addItem(tr("micro-batch"), int(SweepAxis::MicroBatch));
    m_axis->setToolTip(
        tr("What grows: the repeat count of the repeated block, the tokens per "
           "sample, or the samples per micro-batch"));
    m_values->setPlaceholderText(tr("default values"));
    m_values->setToolTip(
        tr("Values to sweep: a list (1,2,4,8) or a range (4..48 or 4..48:4); "
           "empty for the defaults"));
    m_values->setClearButtonEnabled(true);
    m_measure->addItem(tr("activations of the blocks"), int(Measure::BlockActivations));
    m_measure->addItem(tr("all activations"), int(Measure::Activations));
    m_measure->addItem(tr("whole peak"), int(Measure::Peak));
    m_measure->addItem(tr("recompute overhead"), int(Measure::RecomputeOverhead));
    m_measure->setToolTip(
        tr("Activations of the blocks: the saved and recomputed activations made inside the "
           "swept blocks, at their highest — where O(N) against O(sqrt N) shows. The whole peak "
           "also holds what does not grow with the blocks (parameters, optimizer state, the "
           "loss's workspace)."));
    m_busy->setFormat(tr("sweeping %v of %m"));
    m_busy->setMaximumWidth(200);
    m_busy->setVisible(false);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the sweep"));
    m_cancel->setVisible(false);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Sweep"), this));
    controls->addWidget(m_axis);
    controls->addWidget(m_values, 1);
    controls->addWidget(new QLabel(tr("Show"), this));
    controls->addWidget(m_measure);
    controls->addWidget(m_busy);
    controls->addWidget(m_cancel);

    auto* status = new WrapBox(this);
    m_status = status->label();
    m_status->setObjectName(QStringLiteral("sweepStatus"));
    status->setMinimumHeight(2 * status->fontMetrics().lineSpacing());

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(status);
    layout->addWidget(m_plot, 1);
    m_plot->setMinimumHeight(160);

    m_start->setSingleShot(true);
    m_start->setInterval(kStartDelayMs);
    connect(m_start, &QTimer::timeout, this, &SweepPanel::start);
    connect(m_axis, &QComboBox::currentIndexChanged, this, [this] {
        m_values->clear();  // the other axis's values rarely make sense for this one
        m_stale = true;
        schedule();
    });
    connect(m_values, &QLineEdit::editingFinished, this, [this] {
        m_stale = true;
        schedule();
    });
    connect(m_measure, &QComboBox::currentIndexChanged, this, &SweepPanel::redraw);
    connect(m_cancel, &QToolButton::clicked, this, &SweepPanel::cancel);
    m_status->setText(tr("Sweeps the model over its depth, sequence length or micro-batch."));
}

SweepPanel::~SweepPanel() {
    stopWatcher();
}

void SweepPanel::setModel(const ModelFile& model, const TrainingConfig& training,
                          const DeviceSpec& device, const ClusterSpec* cluster) {
    m_request = Request{model, training, device, {}};
    if (cluster) m_request->cluster = *cluster;
    m_stale = true;
    schedule();
}

void SweepPanel::setUnits(ByteUnits units) {
    m_units = units;
    redraw();
}

void SweepPanel::setShown(bool shown) {
    m_shown = shown;
    if (shown) schedule();
}

void SweepPanel::schedule() {
    // Only a panel on screen sweeps; a hidden one sweeps when it comes on screen.
    if (!m_stale || !m_request || !m_shown) return;
    m_start->start();
}

void SweepPanel::start() {
    if (!m_request) return;
    stopWatcher();
    m_stale = false;
    const auto axis = SweepAxis(m_axis->currentData().toInt());
    std::vector<std::int64_t> values;
    if (!m_values->text().trimmed().isEmpty()) {
        auto parsed = parseSweepValues(toStdString(m_values->text().trimmed()));
        if (!parsed) {
            m_status->setText(printableText(parsed.error().message, kShownMessageChars));
            return;
        }
        values = std::move(*parsed);
    } else {
        values = defaultSweepValues(axis, m_request->model, m_request->training);
    }
    std::vector<Strategy> strategies;
    for (const SweptStrategy& s : kStrategies)
        if (auto p = parseStrategy(s.spelling)) strategies.push_back(*p);

    auto* watcher = new QFutureWatcher<Outcome>(this);
    m_watcher = watcher;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancelFlag = cancelFlag;
    m_busy->setRange(0, int(values.size() * strategies.size()));
    m_busy->setValue(0);
    m_busy->setVisible(true);
    m_cancel->setVisible(true);
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher](int v) {
        if (watcher == m_watcher) m_busy->setValue(v);
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        if (watcher == m_watcher) {
            m_watcher = nullptr;
            m_cancelFlag.reset();
            m_busy->setVisible(false);
            m_cancel->setVisible(false);
            if (watcher->future().resultCount() > 0) install(watcher->result());
        }
        watcher->deleteLater();
    });
    const Request req = *m_request;
    watcher->setFuture(QtConcurrent::run(
        sweepPool(), [req, axis, values, strategies, cancelFlag](QPromise<Outcome>& promise) {
            lowerThreadPriority();
            auto r = sweep(req.model, req.training, req.device, axis, values, strategies,
                           [&](int done, int) {
                               promise.setProgressValue(done);
                               return !cancelFlag->load() && !promise.isCanceled();
                           },
                           req.cluster ? &*req.cluster : nullptr);
            Outcome o;
            o.perGpu = !req.training.parallel.single();
            if (r)
                o.result = std::move(*r);
            else if (cancelFlag->load() || promise.isCanceled())
                o.cancelled = true;
            else
                o.error = toQString(r.error().message);
            promise.addResult(std::move(o));
        }));
}

void SweepPanel::cancel() {
    const bool running = m_watcher != nullptr;
    stopWatcher();
    if (running) m_status->setText(tr("Sweep cancelled."));
}

void SweepPanel::stopWatcher() {
    m_start->stop();
    m_busy->setVisible(false);
    m_cancel->setVisible(false);
    if (!m_watcher) return;
    QFutureWatcher<Outcome>* old = m_watcher;
    m_watcher = nullptr;
    if (m_cancelFlag) m_cancelFlag->store(true);
    m_cancelFlag.reset();
    old->cancel();  // deletes itself when its future finishes (the finished handler above)
}

void SweepPanel::install(const Outcome& outcome) {
    if (outcome.cancelled) return;
    if (!outcome.result) {
        m_result.reset();
        m_plot->clearAll();
        m_plot->replot();
        m_status->setText(tr("The sweep could not run: %1")
                              .arg(printableText(outcome.error, kShownMessageChars)));
        emit finished();
        return;
    }
    m_result = outcome.result;
    m_resultPerGpu = outcome.perGpu;
    redraw();
    emit finished();
}

bool SweepPanel::isBusy() const {
    return m_watcher != nullptr || m_start->isActive();
}

QString SweepPanel::statusText() const {
    return m_status->text();
}

void SweepPanel::redraw() {
    if (!m_result) return;
    const SweepResult& r = *m_result;
    const auto measure = Measure(m_measure->currentData().toInt());
    auto valueOf = [measure](const SweepPoint& p) {
        switch (measure) {
            case Measure::BlockActivations:
                return double(p.blockActivationPeakBytes);
            case Measure::Activations:
                return double(p.activationPeakBytes);
            case Measure::Peak:
                return double(p.peakBytes);
            case Measure::RecomputeOverhead:
                return p.recomputeOverhead;
        }
        return 0.0;
    };
    m_plot->clearAll();
    double top = 0;
    int refused = 0;
    QString firstRefusal;
    for (const SweptStrategy& s : kStrategies) {
        QVector<double> x, y;
        for (const SweepPoint& p : r.points) {
            if (p.strategy != s.spelling) continue;
            if (!p.error.empty()) {
                if (refused++ == 0) firstRefusal = printableText(p.error, kShownMessageChars);
                continue;
            }
            x.push_back(double(p.value));
            y.push_back(valueOf(p));
            top = std::max(top, y.back());
        }
        LineStyle style;
        style.color = s.color;
        style.marker = MarkerShape::Disc;
        style.widthPx = 2.0;
        m_plot->setLine(QString::fromLatin1(s.spelling), QString::fromLatin1(s.spelling), x, y,
                        style);
    }
    const QString axisTitle = r.axis == SweepAxis::Depth
                                  ? tr("blocks (repeats of %1)").arg(printableText(r.sweptLayer))
                              : r.axis == SweepAxis::SequenceLength ? tr("sequence length (tokens)")
                                                                    : tr("micro-batch (samples)");
    m_plot->setAxis(PlotAxis::X, axisTitle);
    const double lo = double(r.values.front()), hi = double(r.values.back());
    const double pad = std::max((hi - lo) * 0.04, 0.5);
    m_plot->setRange(PlotAxis::X, lo - pad, hi + pad);
    if (measure == Measure::RecomputeOverhead) {
        m_plot->setAxis(PlotAxis::Y, tr("recompute overhead (%)"), 0.01);
    } else {
        const AxisUnit unit = byteAxisUnit(top, m_units);
        // Short: the axis title runs along the plot's height.
        const QString what = measure == Measure::BlockActivations ? tr("block activations")
                             : measure == Measure::Activations    ? tr("activations")
                                                                  : tr("peak");
        m_plot->setAxis(PlotAxis::Y, QStringLiteral("%1 (%2)").arg(what, unit.name), unit.scale);
    }
    m_plot->setRange(PlotAxis::Y, 0.0, top > 0 ? top * 1.08 : 1.0);
    m_plot->replot();

    QStringList growth;
    for (const SweepGrowth& g : r.growth)
        growth << QStringLiteral("%1 %2").arg(printableText(g.strategy),
                                              ratioText(g.blockActivationRatio));
    QString text;
    if (!r.growth.empty()) {
        const SweepGrowth& g0 = r.growth.front();
        text = tr("Activations of the blocks from %1 to %2 (%3): %4.")
                   .arg(g0.fromValue)
                   .arg(g0.toValue)
                   .arg(ratioText(g0.valueRatio), growth.join(QStringLiteral(", ")));
    }
    if (refused > 0)
        text += (text.isEmpty() ? QString() : QStringLiteral(" ")) +
                tr("%n point(s) refused: %1", nullptr, refused).arg(firstRefusal);
    if (m_resultPerGpu)
        text = tr("Per GPU (rank that peaks).") + (text.isEmpty() ? QString() : QStringLiteral(" ")) +
               text;
    m_status->setText(text);
}

}  // namespace remat::ui
