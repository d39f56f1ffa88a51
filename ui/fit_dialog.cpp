#include "fit_dialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "background_priority.h"
#include "document.h"
#include "refusal_notice.h"
#include "progress_strip.h"
#include "qt_convert.h"
#include "status_colors.h"

namespace remat::ui {

namespace {

// One search at a time, on a thread of its own that gives way to the GUI thread.
QThreadPool* fitPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

QString gpusText(std::int64_t n) {
    return n == 1 ? FitDialog::tr("1 GPU") : FitDialog::tr("%1 GPUs").arg(n);
}

// The rejected families listed under the table; the rest are counted.
constexpr int kRejectedShown = 8;

}  // namespace

FitDialog::FitDialog(Document* document, QWidget* parent)
    : QDialog(parent), m_document(document) {
    setObjectName(QStringLiteral("fitDialog"));
    setWindowTitle(tr("Make it fit"));

    m_gpus = new QSpinBox(this);
    m_gpus->setObjectName(QStringLiteral("fitGpus"));
    m_gpus->setRange(1, int(std::min<std::int64_t>(kMaxParallelDegree, 1 << 30)));
    m_gpus->setValue(8);
    m_gpus->setToolTip(tr("GPUs to spread the step over: every layout whose degrees multiply "
                          "to this count is tried"));
    m_globalBatch = new QSpinBox(this);
    m_globalBatch->setObjectName(QStringLiteral("fitGlobalBatch"));
    m_globalBatch->setRange(0, 1 << 30);
    m_globalBatch->setSpecialValueText(tr("the model's"));
    m_globalBatch->setToolTip(tr("Samples per step, split into data-parallel ranks, "
                                 "micro-batches and accumulation steps; the model's: its "
                                 "micro-batch x accumulation steps on every GPU"));
    m_cluster = new QComboBox(this);
    m_cluster->setObjectName(QStringLiteral("fitCluster"));
    m_cluster->setToolTip(tr("The cluster the GPUs are in"));
    m_search = new QPushButton(tr("Search"), this);
    m_search->setObjectName(QStringLiteral("fitSearch"));
    m_search->setDefault(true);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("fitCancel"));
    m_progress = new ProgressStrip(this);
    m_progress->setRange(0, 0);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("fitStatus"));
    m_status->setWordWrap(true);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("fitTable"));
    m_table->setHorizontalHeaderLabels({tr("Layout"), tr("Strategy"), tr("Micro-batch x accum."),
                                        tr("Peak/GPU"), tr("Step time"), tr("MFU"),
                                        tr("Samples/s")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(LayoutColumn, QHeaderView::Stretch);
    m_table->setToolTip(tr("Double-click a row to apply its layout, strategy and micro-batch"));
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("fitMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("GPUs"), m_gpus);
    form->addRow(tr("Global batch"), m_globalBatch);
    form->addRow(tr("Cluster"), m_cluster);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_search);
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_progress, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_message);

    connect(m_search, &QPushButton::clicked, this, &FitDialog::start);
    connect(m_cancelButton, &QPushButton::clicked, this, &FitDialog::cancel);
    connect(m_table, &QTableWidget::cellDoubleClicked, this,
            [this](int row, int) { (void)applyRow(row); });
    // A candidate the document refuses: the reason under its row (the model is unchanged).
    connectRefusals(m_document, m_table, [this](QWidget*, const QString&) {
        const QModelIndex i = m_table->model()->index(m_editedRow, 0);
        const QRect row = m_table->visualRect(i);
        return RefusalPlace{m_table->viewport(),
                            QRect(0, row.top(), m_table->viewport()->width(), row.height())};
    });
    connect(m_document, &Document::changed, this, &FitDialog::syncClusters);
    syncClusters();
    setRunning(false);
    m_status->setText(tr("Choose the GPU count and press Search."));
    resize(sizeHint().expandedTo(QSize(fontMetrics().averageCharWidth() * 120,
                                       fontMetrics().height() * 28)));
}

FitDialog::~FitDialog() {
    // A search still running finishes on its own thread with its own copies; nothing waits.
    if (m_cancel) m_cancel->store(true);
}

void FitDialog::syncClusters() {
    // The built-in clusters, and the document's own when its device has none built in.
    std::vector<ClusterSpec> list = builtinClusters();
    const ClusterSpec& own = m_document->cluster();
    bool listed = false;
    for (const ClusterSpec& c : list) listed = listed || c.id == own.id;
    if (!listed) list.push_back(own);
    const QString current = m_cluster->count() > 0 ? m_cluster->currentData().toString()
                                                    : toQString(own.id);
    bool same = list.size() == m_clusters.size();
    for (std::size_t i = 0; same && i < list.size(); ++i) same = list[i].id == m_clusters[i].id;
    if (same) return;
    m_clusters = std::move(list);
    m_cluster->clear();
    for (const ClusterSpec& c : m_clusters)
        m_cluster->addItem(printableText(c.name), toQString(c.id));
    const int index = m_cluster->findData(current);
    m_cluster->setCurrentIndex(index >= 0 ? index : m_cluster->findData(toQString(own.id)));
}

void FitDialog::setUnits(ByteUnits units) {
    m_units = units;
    if (m_result) showResult();
}

void FitDialog::setRunning(bool running) {
    m_cancelButton->setEnabled(running);
    m_progress->setVisible(running);
}

void FitDialog::start() {
    cancel();
    const int index = m_cluster->currentIndex();
    if (index < 0 || std::size_t(index) >= m_clusters.size()) return;
    const ClusterSpec cluster = m_clusters[std::size_t(index)];
    FitOptions options;
    options.gpus = m_gpus->value();
    options.globalBatch = m_globalBatch->value();
    options.top = 20;
    TrainingConfig base = m_document->model().training;
    base.parallel = ParallelConfig{};
    const Network net = m_document->network();
    m_cancel = std::make_shared<CancelFlag>(false);
    const quint64 id = ++m_searchId;
    auto* watcher = new QFutureWatcher<Result<FitResult>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, cluster] {
        watcher->deleteLater();
        if (id != m_searchId) return;  // cancelled or superseded: dropped
        m_cancel.reset();
        setRunning(false);
        Result<FitResult> r = watcher->result();
        if (!r) {
            showFailure(toQString(r.error().message));
        } else {
            m_result = std::move(*r);
            m_resultCluster = cluster;
            showResult();
        }
        emit searchFinished();
    });
    watcher->setFuture(QtConcurrent::run(
        fitPool(), [net, base, cluster, options, cancel = m_cancel]() -> Result<FitResult> {
            lowerThreadPriority();
            return fitSearch(net, base, cluster, options, cancel.get());
        }));
    setRunning(true);
    m_status->setText(tr("Searching layouts, strategies and micro-batches for %1 of %2…")
                          .arg(gpusText(m_gpus->value()), printableText(cluster.name)));
}

void FitDialog::cancel() {
    if (!m_cancel) return;
    m_cancel->store(true);
    m_cancel.reset();
    ++m_searchId;  // the result of the one in flight is dropped
    setRunning(false);
    m_status->setText(tr("Search cancelled."));
    emit searchFinished();
}

void FitDialog::showFailure(const QString& text) {
    m_result.reset();
    m_rows.clear();
    m_table->setRowCount(0);
    m_status->setText(tr("The search failed: %1").arg(printableText(text, kShownMessageChars)));
    m_message->clear();
}

void FitDialog::showResult() {
    const FitResult& r = *m_result;
    // Nothing fits: the best plan on the smallest GPU count that fits and the offload plan on
    // the count asked for are the rows, so that either applies with a double-click.
    m_rows = r.candidates;
    if (!r.fits && r.minGpus > 0) m_rows.push_back(r.minGpusPlan);
    if (!r.fits && r.offloadFits) m_rows.push_back(r.offloadPlan);
    m_table->setRowCount(int(m_rows.size()));
    for (int row = 0; row < int(m_rows.size()); ++row) {
        const FitCandidate& c = m_rows[std::size_t(row)];
        // A row on another GPU count than the one searched (the smallest that fits) says so.
        QString layoutText = toQString(describeLayout(c.layout));
        if (c.layout.gpus() != r.gpus) layoutText += tr(" (on %1)").arg(gpusText(c.layout.gpus()));
        const QString cells[ColumnCount] = {
            layoutText,
            toQString(c.strategy.spelling()),
            tr("%1 x %2").arg(c.microBatch).arg(c.accumulation),
            bytesText(c.peakBytes, m_units),
            formatSeconds(c.stepTimeS),
            formatPercent(c.mfu),
            QString::number(c.samplesPerS, 'f', c.samplesPerS < 10 ? 2 : 1)};
        for (int col = 0; col < ColumnCount; ++col) {
            auto* item = new QTableWidgetItem(cells[col]);
            if (col >= PeakColumn) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, col, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(LayoutColumn, QHeaderView::Stretch);

    const QString where = tr("%1 of %2, global batch %3")
                              .arg(gpusText(r.gpus), printableText(m_resultCluster.name))
                              .arg(r.globalBatch);
    QPalette pal = m_status->palette();
    pal.setColor(QPalette::WindowText, statusColor(r.fits ? Status::Good : Status::Bad, palette()));
    m_status->setPalette(pal);
    m_status->setText(
        r.fits ? tr("✔ Fits on %1: the best of %2 layouts x strategies x micro-batch splits "
                    "searched, by predicted throughput. Double-click a row to apply it.")
                     .arg(where)
                     .arg(r.evaluated)
               : tr("✘ Does not fit on %1 (%2 layouts x strategies x micro-batch splits "
                    "searched).")
                     .arg(where)
                     .arg(r.evaluated));
    QStringList lines;
    if (!r.fits) {
        if (!r.modelStatesMessage.empty()) {
            // "model states alone are 16 B x 1.746e+11 parameters = 2.79 TB ...", as a sentence.
            QString states = printableText(r.modelStatesMessage, kShownMessageChars);
            states[0] = states[0].toUpper();
            lines << states + QLatin1Char('.');
        }
        if (r.minGpus > 0)
            lines << tr("The smallest GPU count found that fits: %1 (its best plan is the "
                        "table's first row).")
                         .arg(r.minGpus);
        if (r.offloadFits)
            lines << tr("With offload to host memory it fits on %1: the table's last row.")
                         .arg(gpusText(r.gpus));
        else if (!r.offloadMessage.empty())
            lines << tr("Offload to host memory does not make it fit either: %1.")
                         .arg(printableText(r.offloadMessage, kShownMessageChars));
    }
    if (!r.rejected.empty()) {
        lines << tr("Rejected layouts (every strategy and micro-batch tried):");
        for (int i = 0; i < int(r.rejected.size()) && i < kRejectedShown; ++i)
            lines << QStringLiteral("  • ") +
                         printableText(r.rejected[std::size_t(i)], kShownMessageChars);
        if (int(r.rejected.size()) > kRejectedShown)
            lines << tr("  … and %1 more").arg(int(r.rejected.size()) - kRejectedShown);
    }
    m_message->setText(lines.join(QLatin1Char('\n')));
}

QString FitDialog::messageText() const {
    return m_status->text() + QLatin1Char('\n') + m_message->text();
}

remat::Status FitDialog::applyRow(int row) {
    if (row < 0 || std::size_t(row) >= m_rows.size()) return makeError("no such row");
    const QString device = m_resultCluster.device.id == m_document->device().id
                               ? QString()
                               : toQString(m_resultCluster.device.id);
    EditOrigin origin(*m_document, m_table->viewport());
    m_editedRow = row;
    return m_document->applyFitCandidate(m_rows[std::size_t(row)], device);
}

}  // namespace remat::ui
