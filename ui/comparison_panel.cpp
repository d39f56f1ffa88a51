#include "comparison_panel.h"

#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPromise>
#include <QSaveFile>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "background_priority.h"
#include "comparison_model.h"
#include "frozen_column_view.h"
#include "progress_strip.h"
#include "qt_convert.h"
#include "status_colors.h"
#include "tradeoff_plot.h"
#include "wrap_label.h"

namespace remat::ui {
namespace {

bool hasManualPlan(const ModelFile& m) {
    return m.planForm == PlanForm::PerLayer || m.planForm == PlanForm::Regions;
}

bool writeText(const QString& path, const QString& text, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text) || file.write(text.toUtf8()) < 0 ||
        !file.commit()) {
        if (error)
            *error =
                ComparisonPanel::tr("Could not write \"%1\": %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

}  // namespace

ComparisonPanel::ComparisonPanel(QWidget* parent) : QWidget(parent) {
    m_model = new ComparisonModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ComparisonModel::SortRole);

    // The strategy column stays in place while the figures scroll sideways.
    m_table = new FrozenColumnTableView(this);
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    // Display order (that of `remat compare`) until the user sorts by a column.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    m_table->setToolTip(tr("Click a row to apply that strategy"));

    m_plot = new TradeoffPlot(this);

    m_start = new QTimer(this);
    m_start->setSingleShot(true);
    m_start->setInterval(kStartDelayMs);
    connect(m_start, &QTimer::timeout, this, &ComparisonPanel::startPending);

    auto* status = new WrapBox(this);
    m_status = status->label();
    // The status takes two lines in a narrow window (a projector, a long model or device
    // name); reserving them keeps the panel's minimum height true, so the plot below is never
    // squeezed under its own minimum and cut off.
    status->setMinimumHeight(2 * status->fontMetrics().lineSpacing());
    m_busy = new ProgressStrip(this);
    m_busy->setMaximumWidth(260);
    m_busy->setFormat(tr("computing %v of %m strategies"));
    m_busy->setVisible(false);
    // Showing and hiding it on every edit must not move the rest of the panel.
    QSizePolicy keep = m_busy->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    m_busy->setSizePolicy(keep);

    m_export = new QToolButton(this);
    m_export->setText(tr("Export"));
    m_export->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_export);
    menu->addAction(tr("Table as CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the comparison as CSV"),
                                                          QString(), tr("CSV files (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportCsv(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    menu->addAction(tr("Table as Markdown…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export the comparison as Markdown"), QString(), tr("Markdown files (*.md)"));
        QString error;
        if (!path.isEmpty() && !exportMarkdown(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    menu->addAction(tr("Trade-off plot as PNG, SVG or PDF…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export the trade-off plot"), QString(),
            tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !exportPlot(path, &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    m_export->setMenu(menu);

    auto* top = new QHBoxLayout;
    top->addWidget(status, 1);
    top->addWidget(m_busy);
    top->addWidget(m_export);
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(m_table);
    m_split->addWidget(m_plot);
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_split, 1);

    auto choose = [this](const QModelIndex& index) {
        const QModelIndex source = m_proxy->mapToSource(index);
        if (!source.isValid() || !source.data(ComparisonModel::OkRole).toBool()) return;
        emit strategyChosen(source.data(ComparisonModel::StrategyRole).toString());
    };
    connect(m_table, &QTableView::clicked, this, choose);
    connect(m_table, &QTableView::activated, this, choose);
    connect(m_plot, &TradeoffPlot::strategyChosen, this, &ComparisonPanel::strategyChosen);
    m_status->setText(tr("No model yet."));
}

ComparisonPanel::~ComparisonPanel() {
    cancel();
}

namespace {

bool sameLink(const LinkSpec& a, const LinkSpec& b) {
    return a.bandwidthBytesPerS == b.bandwidthBytesPerS && a.latencyS == b.latencyS;
}

bool sameCluster(const ClusterSpec& a, const ClusterSpec& b) {
    return a.id == b.id && a.gpusPerNode == b.gpusPerNode && sameLink(a.intraNode, b.intraNode) &&
           sameLink(a.interNode, b.interNode) && sameLink(a.hostLink, b.hostLink) &&
           a.hostMemoryBytes == b.hostMemoryBytes &&
           a.hostMemoryBandwidthBytesPerS == b.hostMemoryBandwidthBytesPerS &&
           deviceToJson(a.device) == deviceToJson(b.device);
}

}  // namespace

bool ComparisonPanel::sameInputs(const ComparisonRequest& a, const ComparisonRequest& b) const {
    return a.model.network == b.model.network && hasManualPlan(a.model) == hasManualPlan(b.model) &&
           manualRegions(a.model) == manualRegions(b.model) && a.training == b.training &&
           deviceToJson(a.device) == deviceToJson(b.device) &&
           a.cluster.has_value() == b.cluster.has_value() &&
           (!a.cluster || sameCluster(*a.cluster, *b.cluster));
}

bool ComparisonPanel::holds(const QString& spelling) const {
    if (m_model->rowOf(spelling) >= 0) return true;
    for (const ComparisonRow& r : m_result.everyK)
        if (toQString(r.spelling) == spelling) return true;
    for (const FrontierPoint& p : m_result.frontier)
        if (toQString(p.spelling) == spelling) return true;
    return false;
}

namespace {

// Comparisons run one at a time. A cancelled one finishes the strategy it is on while the next
// waits, so a burst of edits never has several background threads competing with the window's
// own thread for the cores; and the one thread gives way to the window's (lowerThreadPriority).
QThreadPool* comparisonPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

}  // namespace

void ComparisonPanel::request(const ModelFile& model, const TrainingConfig& training,
                              const DeviceSpec& device, const QString& currentStrategy,
                              const ClusterSpec* cluster) {
    ComparisonRequest req{model, training, device, toStdString(currentStrategy), {}};
    if (cluster) req.cluster = *cluster;
    setCurrentStrategy(currentStrategy);
    if (!isBusy() && m_lastRequest && m_result.frontierDone && sameInputs(req, *m_lastRequest) &&
        holds(currentStrategy))
        return;
    stopWatcher();  // the busy bar stays up: hiding and showing it would relayout the panel
    // The work starts a frame later: the edit that asked for it gets the cores to itself until
    // its frame is painted, and a burst of edits starts one comparison, not one per edit.
    m_pending = std::move(req);
    m_start->start();
    m_busy->setRange(0, 0);
    setBusy(true);
    // Nothing shown yet (the first model, or after an error): say what the bar is for.
    if (m_model->rowCount() == 0) m_status->setText(tr("Comparing the strategies…"));
}

void ComparisonPanel::startPending() {
    if (!m_pending) return;
    const ComparisonRequest req = std::move(*m_pending);
    m_pending.reset();
    auto* watcher = new QFutureWatcher<ComparisonResult>(this);
    m_watcher = watcher;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancelFlag = cancelFlag;
    connect(watcher, &QFutureWatcherBase::resultReadyAt, this, [this, watcher, req](int i) {
        if (watcher != m_watcher) return;  // an older request's late result
        m_lastRequest = req;
        install(watcher->resultAt(i));
    });
    connect(watcher, &QFutureWatcherBase::progressRangeChanged, this,
            [this, watcher](int lo, int hi) {
                if (watcher == m_watcher) m_busy->setRange(lo, hi);
            });
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher](int v) {
        if (watcher == m_watcher) m_busy->setValue(v);
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        if (watcher == m_watcher) finishWatcher();
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(
        comparisonPool(), [req, cancelFlag](QPromise<ComparisonResult>& promise) {
            lowerThreadPriority();  // the pool's one thread runs nothing else
            ComparisonHooks hooks;
            hooks.cancelled = [&promise] { return promise.isCanceled(); };
            hooks.cancelFlag = cancelFlag.get();
            hooks.progress = [&promise](int done, int total) {
                promise.setProgressRange(0, total);
                promise.setProgressValue(done);
            };
            hooks.namedReady = [&promise](const ComparisonResult& partial) {
                promise.addResult(partial);
            };
            hooks.curveReady = [&promise](const ComparisonResult& partial) {
                promise.addResult(partial);
            };
            ComparisonResult result = computeComparison(req, hooks);
            if (!result.cancelled) promise.addResult(result);
        }));
}

void ComparisonPanel::cancel() {
    if (!isBusy()) return;
    stopWatcher();
    setBusy(false);
}

void ComparisonPanel::stopWatcher() {
    m_start->stop();
    m_pending.reset();
    if (!m_watcher) return;
    QFutureWatcher<ComparisonResult>* old = m_watcher;
    m_watcher = nullptr;
    if (m_cancelFlag) m_cancelFlag->store(true);
    m_cancelFlag.reset();
    // The worker stops at its next check; whatever it still reports is ignored above, and the
    // watcher deletes itself when the future finishes.
    old->cancel();
}

void ComparisonPanel::finishWatcher() {
    m_watcher = nullptr;
    m_cancelFlag.reset();
    setBusy(false);
}

void ComparisonPanel::setBusy(bool busy) {
    if (m_busy->isVisibleTo(this) == busy) return;
    m_busy->setVisible(busy);
    emit busyChanged(busy);
}

void ComparisonPanel::install(const ComparisonResult& result) {
    m_result = result;
    QPalette pal = m_status->palette();
    if (!result.error.empty()) {
        finishWatcher();
        m_model->clear();
        m_plot->clear();
        pal.setColor(QPalette::WindowText, statusColor(Status::Bad, palette()));
        m_status->setPalette(pal);
        m_status->setText(
            tr("The strategies could not be compared: %1").arg(printableText(result.error, kShownMessageChars)));
        return;
    }
    m_status->setPalette(palette());
    m_model->setRows(result.named);
    m_model->setPerGpu(result.perGpu);
    m_model->setCurrentStrategy(m_current);
    if (!m_splitSized && m_split->width() > 0) {
        // The table as wide as its columns (at most half the panel), the plot the rest.
        const int tableWidth = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth() +
                               m_table->verticalScrollBar()->sizeHint().width();
        const int total = m_split->width();
        const int left = std::min(tableWidth, total / 2);
        m_split->setSizes({left, total - left});
        m_splitSized = true;
    }
    m_plot->setData(result);
    m_plot->setCurrentStrategy(m_current);
    const QString subject =
        result.modelName.empty()
            ? tr("%1 strategies").arg(result.named.size())
            : tr("%1 strategies for %2").arg(result.named.size()).arg(printableText(result.modelName));
    const QString device = printableText(result.deviceName);
    QString status;
    if (!result.curveDone)
        status = tr("%1 on %2; computing the every:K curve…").arg(subject, device);
    else if (!result.frontierDone)
        status = tr("%1 on %2; the curve is every:K for K = 1 … %3; computing the optimal "
                    "frontier…")
                     .arg(subject, device)
                     .arg(result.chainLength);
    else if (!result.frontierError.empty())
        status = tr("%1 on %2; the curve is every:K for K = 1 … %3; no optimal frontier: %4")
                     .arg(subject, device)
                     .arg(result.chainLength)
                     .arg(printableText(result.frontierError, kShownMessageChars));
    else if (result.frontier.size() == 1)
        status = tr("%1 on %2; the curve is every:K for K = 1 … %3; the optimal frontier is one "
                    "point: no plan lowers the peak.")
                     .arg(subject, device)
                     .arg(result.chainLength);
    else
        status = tr("%1 on %2; the curve is every:K for K = 1 … %3; %4 plans on the optimal "
                    "frontier.")
                     .arg(subject, device)
                     .arg(result.chainLength)
                     .arg(result.frontier.size());
    if (result.perGpu) status = tr("Per GPU (rank that peaks): %1").arg(status);
    m_status->setText(status);
    if (result.frontierDone) {
        // The work is done once the frontier is: the watcher's own "finished" may come later.
        finishWatcher();
        emit computed();
    }
}

void ComparisonPanel::resetScroll() {
    m_table->resetScroll();
}

void ComparisonPanel::setCurrentStrategy(const QString& spelling) {
    m_current = spelling;
    m_model->setCurrentStrategy(spelling);
    m_plot->setCurrentStrategy(spelling);
}

void ComparisonPanel::setUnits(ByteUnits units) {
    m_units = units;
    m_model->setUnits(units);
    m_plot->setUnits(units);
}

void ComparisonPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) m_model->setPalette(palette());
}

QString ComparisonPanel::statusText() const {
    return m_status->text();
}

bool ComparisonPanel::exportCsv(const QString& path, QString* error) const {
    if (m_model->rowCount() == 0) {
        if (error) *error = tr("There is no comparison to export yet.");
        return false;
    }
    return writeText(path, m_model->toCsv(m_result.everyK, m_result.frontier), error);
}

bool ComparisonPanel::exportMarkdown(const QString& path, QString* error) const {
    if (m_model->rowCount() == 0 || !m_lastRequest) {
        if (error) *error = tr("There is no comparison to export yet.");
        return false;
    }
    const TrainingConfig& t = m_lastRequest->training;
    const DeviceSpec& d = m_lastRequest->device;
    QString text = QStringLiteral("# ") +
                   tr("Checkpointing strategies for %1")
                       .arg(toQString(m_result.modelName.empty() ? std::string("the model")
                                                                 : m_result.modelName)) +
                   QStringLiteral("\n\n");
    text += tr("%1 (usable %2), micro-batch %3 × %4 accumulation steps, %5, %6.")
                .arg(printableText(d.name), bytesText(d.usableBytes(), m_units))
                .arg(t.microBatch)
                .arg(t.accumulationSteps)
                .arg(toQString(precisionName(t.precision)), toQString(optimizerName(t.optimizer))) +
            QStringLiteral("\n\n");
    text += m_model->toMarkdown();
    return writeText(path, text, error);
}

bool ComparisonPanel::exportPlot(const QString& path, QString* error) {
    return m_plot->exportTo(path, error);
}

}  // namespace remat::ui
