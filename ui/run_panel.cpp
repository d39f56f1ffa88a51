#include "run_panel.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPromise>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>
#include <cmath>

#include "app_settings.h"
#include "cpu/host_budget.h"
#include "progress_strip.h"
#include "qt_convert.h"
#include "status_colors.h"
#include "text.h"
#include "wrap_label.h"

namespace remat::ui {
namespace {

constexpr int kProgressSteps = 1000;
// Messages from the executors carry our own figures and can be long; the cut only guards
// against runaway text from a file (op and buffer names are echoed in them).
constexpr std::size_t kRunMessageChars = 2000;

struct OwnedProgram {
    Graph graph;
    Program program;
    Timeline timeline;
};

QString signedBytes(std::int64_t bytes, ByteUnits units) {
    if (bytes == 0) return QStringLiteral("0 B");
    return (bytes > 0 ? QStringLiteral("+") : QStringLiteral("−")) +
           bytesText(bytes > 0 ? bytes : -bytes, units);
}

QString ratioText(double measured, double predicted) {
    if (predicted <= 0.0) return QString();
    const double r = measured / predicted - 1.0;
    return (r >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + formatPercent(std::fabs(r));
}

}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    prepareRunEnvironment();  // here, on the GUI thread, before any worker runs
    m_cpu = new QRadioButton(tr("CPU (reference executor)"), this);
    m_gpu = new QRadioButton(tr("GPU (CUDA)"), this);
    m_cpu->setChecked(true);
    m_gpu->setEnabled(false);
    m_gpuNote = new QLabel(this);
    m_gpuNote->setWordWrap(true);
    m_allowUnsafe =
        new QCheckBox(tr("Run even though the plan is unsafe (to see the damage)"), this);
    m_allowUnsafe->setVisible(false);
    m_askLongRun = new QCheckBox(this);
    m_askLongRun->setObjectName(QStringLiteral("askLongRun"));
    m_askLongRun->setToolTip(
        tr("Before a CPU run whose predicted length (warm-up, the measured step and the "
           "reference run for the gradient check) is over this, ask with the estimate"));
    m_run = new QPushButton(tr("Run"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_progress = new ProgressStrip(this);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setVisible(false);
    auto* status = new WrapBox(this);
    m_status = status->label();

    m_table = new QTableWidget(0, 4, this);
    m_table->setHorizontalHeaderLabels(
        {QString(), tr("predicted"), tr("measured"), tr("measured − predicted")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setVisible(false);
    m_liveCheck = new QLabel(this);
    m_gradCheck = new QLabel(this);
    m_losses = new QLabel(this);
    for (QLabel* l : {m_liveCheck, m_gradCheck, m_losses}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }

    auto* where = new QHBoxLayout;
    where->addWidget(new QLabel(tr("Run on:"), this));
    where->addWidget(m_cpu);
    where->addWidget(m_gpu);
    where->addStretch(1);
    where->addWidget(m_run);
    where->addWidget(m_cancel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(where);
    layout->addWidget(m_gpuNote);
    layout->addWidget(m_allowUnsafe);
    layout->addWidget(m_askLongRun);
    layout->addWidget(m_progress);
    layout->addWidget(status);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_liveCheck);
    layout->addWidget(m_gradCheck);
    layout->addWidget(m_losses);

    connect(m_run, &QPushButton::clicked, this, [this] { start(); });
    connect(m_cancel, &QPushButton::clicked, this, &RunPanel::cancel);
    connect(m_allowUnsafe, &QCheckBox::toggled, this, [this] {
        if (m_graph)
            m_cpuRefusal =
                toQString(printable(cpuRefusal(*m_graph, *m_program, m_allowUnsafe->isChecked()),
                                    kRunMessageChars));
        updateControls();
    });
    connect(m_cpu, &QRadioButton::toggled, this, [this] { updateControls(); });
    setLongRunThreshold(AppSettings().longCpuRunSeconds());
    connect(m_askLongRun, &QCheckBox::toggled, this, [this](bool ask) {
        const double s = ask ? (m_longRunS > 0.0 ? m_longRunS : kLongCpuRunSeconds) : 0.0;
        setLongRunThreshold(s);
        AppSettings().setLongCpuRunSeconds(s);
    });

    // Whether a CUDA device is usable: instant without the CUDA executor, a device probe (in the
    // background) with it.
    const auto backends = runBackends();
    if (std::find(backends.begin(), backends.end(), "cuda") == backends.end()) {
        m_gpuProbed = true;
        m_gpuReason = cudaUnavailableReason();
    } else {
        m_gpuReason = tr("checking for a CUDA device…");
        m_probe = new QFutureWatcher<QString>(this);
        connect(m_probe, &QFutureWatcherBase::finished, this, [this] {
            m_gpuReason = m_probe->result();
            m_gpuProbed = true;
            m_probe->deleteLater();
            m_probe = nullptr;
            updateControls();
            emit gpuProbed(gpuAvailable());
        });
        m_probe->setFuture(QtConcurrent::run([] { return cudaUnavailableReason(); }));
    }
    clearProgram();
}

RunPanel::~RunPanel() {
    // The worker holds its own reference to the program; it only needs to stop.
    if (m_cancelFlag) m_cancelFlag->store(true);
}

void RunPanel::setProgram(const Graph& graph, const Program& program, const Timeline& predicted,
                          const DeviceSpec& device) {
    auto copy = std::make_shared<const OwnedProgram>(OwnedProgram{graph, program, predicted});
    setProgram(copy, copy->graph, copy->program, copy->timeline, device);
}

void RunPanel::setProgram(std::shared_ptr<const void> owner, const Graph& graph,
                          const Program& program, const Timeline& predicted,
                          const DeviceSpec& device) {
    if (isRunning()) cancel();
    m_owner = std::move(owner);
    m_graph = &graph;
    m_program = &program;
    m_predicted = &predicted;
    m_device = device;
    m_outcome.reset();
    m_allowUnsafe->setVisible(program.unsafe());
    if (!program.unsafe()) m_allowUnsafe->setChecked(false);
    m_cpuRefusal = toQString(
        printable(cpuRefusal(graph, program, m_allowUnsafe->isChecked()), kRunMessageChars));
    showOutcome();
    setStatus(tr("Ready: one training step, %1 instructions. Choose where to run it and press Run.")
                  .arg(program.executedInstructions()));
    updateControls();
}

void RunPanel::clearProgram(const QString& reason) {
    if (isRunning()) cancel();
    m_owner.reset();
    m_graph = nullptr;
    m_program = nullptr;
    m_predicted = nullptr;
    m_outcome.reset();
    m_cpuRefusal.clear();
    m_allowUnsafe->setVisible(false);
    showOutcome();
    setStatus(reason.isEmpty() ? tr("No plan to run yet.") : reason);
    updateControls();
}

void RunPanel::setUnits(ByteUnits units) {
    if (units == m_units) return;
    m_units = units;
    showOutcome();
}

QString RunPanel::selectedBackend() const {
    return m_gpu->isChecked() ? QStringLiteral("cuda") : QStringLiteral("cpu");
}

void RunPanel::selectBackend(const QString& backend) {
    if (backend == QLatin1String("cuda") && gpuAvailable())
        m_gpu->setChecked(true);
    else
        m_cpu->setChecked(true);
}

QString RunPanel::measuredLabel() const {
    if (!m_outcome) return tr("measured");
    return m_outcome->backend == "cuda" ? tr("measured (GPU)") : tr("measured (CPU)");
}

void RunPanel::updateControls() {
    const bool running = isRunning();
    m_gpu->setEnabled(gpuAvailable() && !running);
    m_cpu->setEnabled(!running);
    if (!gpuAvailable() && m_gpu->isChecked()) m_cpu->setChecked(true);
    if (!m_gpuProbed)
        m_gpuNote->setText(m_gpuReason);
    else if (!m_gpuReason.isEmpty())
        m_gpuNote->setText(tr("GPU option unavailable: %1").arg(m_gpuReason));
    else
        m_gpuNote->setText(QString());
    m_gpuNote->setVisible(!m_gpuNote->text().isEmpty());
    m_gpu->setToolTip(m_gpuNote->text());

    bool canRun = m_program != nullptr && !running;
    QString why;
    if (m_program && m_program->unsafe() && !m_allowUnsafe->isChecked()) {
        canRun = false;
        why = tr("The plan is unsafe (%1); tick the box above to run it anyway.")
                  .arg(toQString(m_program->allUnsafeReasons().front()));
    } else if (m_program && selectedBackend() == QLatin1String("cpu") && !m_cpuRefusal.isEmpty()) {
        canRun = false;
        why = tr("The CPU executor cannot run this plan: %1").arg(m_cpuRefusal);
    }
    m_run->setEnabled(canRun);
    m_run->setToolTip(why);
    m_cancel->setEnabled(running);
    if (!why.isEmpty() && !running && !m_outcome) setStatus(why, true);
}

bool RunPanel::start() {
    return start(selectedBackend());
}

bool RunPanel::start(const QString& backend) {
    if (isRunning()) return false;
    if (!m_program) {
        setStatus(tr("No plan to run yet."), true);
        return false;
    }
    if (backend == QLatin1String("cuda") && !gpuAvailable()) {
        setStatus(tr("The GPU cannot be used: %1").arg(m_gpuReason), true);
        return false;
    }
    if (m_program->unsafe() && !m_allowUnsafe->isChecked()) {
        setStatus(tr("The plan is unsafe; tick the box to run it anyway."), true);
        return false;
    }
    if (backend == QLatin1String("cpu") && !m_cpuRefusal.isEmpty()) {
        setStatus(tr("The CPU executor cannot run this plan: %1").arg(m_cpuRefusal), true);
        return false;
    }
    selectBackend(backend);
    RunRequest request;
    request.owner = m_owner;
    request.graph = m_graph;
    request.program = m_program;
    request.predicted = m_predicted;
    request.device = m_device;
    request.backend = toStdString(backend);
    request.allowUnsafe = m_allowUnsafe->isChecked();
    if (!std::exchange(m_longRunConfirmed, false)) request.confirmAboveS = m_longRunS;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    auto flag = m_cancelFlag;
    auto* watcher = new QFutureWatcher<RunOutcome>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher](int v) {
        if (watcher == m_watcher) m_progress->setValue(v);
    });
    // The progress text carries "stage;estimated seconds".
    connect(watcher, &QFutureWatcherBase::progressTextChanged, this,
            [this, watcher, backend](const QString& text) {
                if (watcher != m_watcher) return;
                const QStringList parts = text.split(QLatin1Char(';'));
                m_progress->setFormat(stageText(parts.value(0).toInt()));
                const double estimateS = parts.value(1).toDouble();
                if (estimateS > 0)
                    setStatus((backend == QLatin1String("cuda")
                                   ? tr("Running one training step on the GPU…")
                                   : tr("Running one training step on the CPU…")) +
                              QLatin1Char(' ') +
                              tr("About %1 in all, the reference run without checkpointing "
                                 "for the gradient check included.")
                                  .arg(formatSeconds(estimateS)));
            });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] { onFinished(watcher); });
    watcher->setFuture(QtConcurrent::run([request, flag](QPromise<RunOutcome>& promise) {
        promise.setProgressRange(0, kProgressSteps);
        RunHooks hooks;
        hooks.progress = [&promise](double fraction, RunStage stage, double estimateS) {
            promise.setProgressValueAndText(
                int(std::lround(std::clamp(fraction, 0.0, 1.0) * kProgressSteps)),
                QStringLiteral("%1;%2").arg(int(stage)).arg(estimateS, 0, 'g', 6));
        };
        promise.addResult(runPlan(request, flag.get(), hooks));
    }));
    m_outcome.reset();
    showOutcome();
    m_progress->setValue(0);
    m_progress->setFormat(stageText(int(RunStage::Preparing)));
    m_progress->setVisible(true);
    setStatus(backend == QLatin1String("cuda") ? tr("Running one training step on the GPU…")
                                               : tr("Running one training step on the CPU…"));
    updateControls();
    emit runStarted();
    return true;
}

void RunPanel::cancel() {
    if (!m_watcher) return;
    m_cancelFlag->store(true);
    // The worker stops between instructions and frees what it holds; its outcome is dropped.
    QFutureWatcher<RunOutcome>* old = m_watcher;
    m_watcher = nullptr;
    connect(old, &QFutureWatcherBase::finished, this, [this, old] {
        if (old->future().resultCount() > 0) {
            const RunOutcome& o = old->future().resultAt(0);
            if (o.poolInUseAfterBytes >= 0)
                emit runReleased(o.poolInUseAfterBytes, o.poolHeldAfterBytes);
        }
        old->deleteLater();
    });
    m_progress->setVisible(false);
    setStatus(tr("Run cancelled."));
    updateControls();
    emit runFinished(false);
}

void RunPanel::onFinished(QFutureWatcher<RunOutcome>* watcher) {
    if (watcher != m_watcher) return;  // cancelled: cancel() arranged its deletion
    m_watcher = nullptr;
    watcher->deleteLater();
    m_progress->setVisible(false);
    if (watcher->future().resultCount() == 0) {
        setStatus(tr("The run ended without a result."), true);
        updateControls();
        emit runFinished(false);
        return;
    }
    RunOutcome outcome = watcher->result();
    if (outcome.needsConfirmation) {
        confirmLongRun(toQString(outcome.backend), outcome.estimateS);
        return;
    }
    if (outcome.poolInUseAfterBytes >= 0)
        emit runReleased(outcome.poolInUseAfterBytes, outcome.poolHeldAfterBytes);
    if (!outcome.ok) {
        const QString error = toQString(printable(outcome.error, kRunMessageChars));
        if (outcome.cancelled)
            setStatus(tr("Run cancelled."));
        else if (outcome.refused)
            setStatus(tr("The run cannot start: %1").arg(error), true);
        else
            setStatus(tr("The run failed: %1").arg(error), true);
        updateControls();
        emit runFinished(false);
        return;
    }
    showEarlierOutcome(outcome);
    emit runFinished(true);
}

void RunPanel::showEarlierOutcome(const RunOutcome& outcome) {
    m_outcome = outcome;
    const QString where = m_outcome->backend == "cuda" ? tr("the GPU") : tr("the CPU");
    setStatus(
        tr("Done: one training step on %1 (%2).").arg(where, toQString(m_outcome->deviceName)));
    showOutcome();
    updateControls();
    if (m_outcome->sameLength) emit measured(m_outcome->liveBytes);
}

void RunPanel::setLongRunThreshold(double seconds) {
    m_longRunS = std::max(0.0, seconds);
    const QSignalBlocker block(m_askLongRun);
    m_askLongRun->setChecked(m_longRunS > 0.0);
    m_askLongRun->setText(
        m_longRunS > 0.0
            ? tr("Ask before a CPU run longer than %1").arg(formatSeconds(m_longRunS))
            : tr("Ask before a long CPU run"));
}

QString RunPanel::longRunQuestionText(double estimateS) const {
    return tr("This CPU run is estimated at %1 on this machine: warm-up, the measured step and "
              "the reference run without checkpointing for the gradient check, over the %2 "
              "you are asked above. A smaller micro-batch, fewer layers or a smaller model "
              "(the gpt2-tiny and mlp-3x1024 presets) run in seconds; `remat run --shrink` "
              "runs a shrunk copy of this model. Run it anyway?")
        .arg(formatSeconds(estimateS), formatSeconds(m_longRunS));
}

void RunPanel::confirmLongRun(const QString& backend, double estimateS) {
    const QString text = longRunQuestionText(estimateS);
    bool dontAsk = false;
    bool run = false;
    if (m_longRunQuestion) {
        run = m_longRunQuestion(text, &dontAsk);
    } else {
        QMessageBox box(QMessageBox::Question, tr("Long CPU run"), text,
                        QMessageBox::Yes | QMessageBox::No, this);
        box.setDefaultButton(QMessageBox::No);
        box.button(QMessageBox::Yes)->setText(tr("Run"));
        box.button(QMessageBox::No)->setText(tr("Don't run"));
        auto* again = new QCheckBox(tr("Don't ask again"), &box);
        box.setCheckBox(again);
        run = box.exec() == QMessageBox::Yes;
        dontAsk = again->isChecked();
    }
    if (dontAsk) {
        setLongRunThreshold(0.0);
        AppSettings().setLongCpuRunSeconds(0.0);
    }
    if (run) {
        m_longRunConfirmed = true;
        if (start(backend)) return;
        m_longRunConfirmed = false;
    } else {
        setStatus(tr("Not started: the run is estimated at %1 on this CPU. Choose a smaller "
                     "micro-batch or model to run it in seconds.")
                      .arg(formatSeconds(estimateS)),
                  true);
    }
    updateControls();
    emit runFinished(false);
}

QString RunPanel::stageText(int stage) const {
    switch (RunStage(stage)) {
        case RunStage::Preparing:
            return tr("preparing (probing the device) — %p%");
        case RunStage::Warmup:
            return tr("warm-up step — %p%");
        case RunStage::Measured:
            return tr("measured step — %p%");
        case RunStage::Reference:
            return tr("reference run without checkpointing — %p%");
    }
    return QStringLiteral("%p%");
}

void RunPanel::setStatus(const QString& text, bool error) {
    m_statusIsError = error;
    QPalette pal = palette();
    if (error) pal.setColor(QPalette::WindowText, statusColor(Status::Bad, palette()));
    m_status->setPalette(pal);
    m_status->setText(text);
}

QString RunPanel::statusText() const {
    return m_status->text();
}
QString RunPanel::liveCheckText() const {
    return m_liveCheck->text();
}
QString RunPanel::gradCheckText() const {
    return m_gradCheck->text();
}

void RunPanel::showOutcome() {
    m_table->setRowCount(0);
    const bool has = m_outcome.has_value();
    for (QWidget* w : {static_cast<QWidget*>(m_table), static_cast<QWidget*>(m_liveCheck),
                       static_cast<QWidget*>(m_gradCheck), static_cast<QWidget*>(m_losses)})
        w->setVisible(has);
    if (!has) return;
    const RunOutcome& o = *m_outcome;
    auto addRow = [this](const QString& what, const QString& predicted, const QString& measured,
                         const QString& difference) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QString cells[] = {what, predicted, measured, difference};
        for (int c = 0; c < 4; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(c == 0 ? Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter)
                                          : Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
            m_table->setItem(row, c, item);
        }
    };
    addRow(tr("peak, tracked"), bytesText(o.predictedPeakBytes, m_units),
           bytesText(o.peakBytes, m_units),
           signedBytes(o.peakBytes - o.predictedPeakBytes, m_units));
    addRow(tr("  reached after instruction"), QString::number(o.predictedPeakInstruction),
           QString::number(o.peakInstruction), QString());
    addRow(
        tr("peak, device level (allocator reserved)"), QString(),
        bytesText(o.deviceReservedPeakBytes, m_units),
        tr("%1 over tracked").arg(signedBytes(o.deviceReservedPeakBytes - o.peakBytes, m_units)));
    addRow(tr("  allocator in use (rounding included)"), QString(),
           bytesText(o.deviceUsedPeakBytes, m_units), QString());
    if (o.scratchPeakBytes > 0)
        addRow(tr("  of which the executor's own scratch"), QString(),
               bytesText(o.scratchPeakBytes, m_units), QString());
    const std::pair<QString, std::pair<double, double>> phases[] = {
        {tr("forward"), {o.predictedTimeS.forward, o.timeS.forward}},
        {tr("recompute"), {o.predictedTimeS.recompute, o.timeS.recompute}},
        {tr("backward"), {o.predictedTimeS.backward, o.timeS.backward}},
        {tr("optimizer"), {o.predictedTimeS.optimizer, o.timeS.optimizer}},
        {tr("training step"), {o.predictedTimeS.total(), o.timeS.total()}},
    };
    for (const auto& [name, t] : phases)
        addRow(tr("time: %1").arg(name), formatSeconds(t.first), formatSeconds(t.second),
               ratioText(t.second, t.first));
    m_table->resizeRowsToContents();
    m_table->setToolTip(o.timeFromCpuRates
                            ? tr("Predicted times use this CPU's measured rates (%1 GFLOP/s "
                                 "sgemm); predicted memory is the device profile's.")
                                  .arg(o.cpuGemmFlopsPerS / 1e9, 0, 'f', 1)
                            : tr("Predicted times use the device profile."));

    QPalette good = palette(), bad = palette();
    good.setColor(QPalette::WindowText, statusColor(Status::Good, palette()));
    bad.setColor(QPalette::WindowText, statusColor(Status::Bad, palette()));
    if (o.liveBytesMatch()) {
        m_liveCheck->setText(tr("✔ Tracked live bytes equal the prediction after every one of "
                                "the %1 instructions (largest difference 0 B).")
                                 .arg(o.liveBytes.size()));
        m_liveCheck->setPalette(good);
    } else if (!o.sameLength) {
        m_liveCheck->setText(
            tr("✘ The measurement does not have one entry per instruction of "
               "the program: a bug in the executor."));
        m_liveCheck->setPalette(bad);
    } else {
        m_liveCheck->setText(
            tr("✘ Tracked live bytes differ from the prediction by up to %1 "
               "(after instruction %2): a bug — prediction and execution "
               "share one program.")
                .arg(bytesText(std::max(o.maxLiveDifferenceBytes, o.maxCategoryDifferenceBytes),
                               m_units))
                .arg(o.maxLiveDifferenceInstruction));
        m_liveCheck->setPalette(bad);
    }
    if (!o.gradChecked) {
        m_gradCheck->setText(tr("Gradient check not run: %1").arg(toQString(o.gradError)));
        m_gradCheck->setPalette(bad);
    } else {
        const RunGradCheck& g = o.grad;
        const QString worst = g.worstParameter.empty()
                                  ? QString()
                                  : tr(" (largest in %1)").arg(toQString(g.worstParameter));
        if (g.bitwiseEqual) {
            m_gradCheck->setText(tr("✔ Gradients equal those of the same network without "
                                    "checkpointing, bit for bit (%1 parameters).")
                                     .arg(g.parameters));
            m_gradCheck->setPalette(good);
        } else {
            m_gradCheck->setText(
                tr("%1 Gradients differ from the run without checkpointing: "
                   "largest absolute difference %2, relative %3%4.")
                    .arg(g.maxAbsDiff == 0 ? QStringLiteral("✔") : QStringLiteral("✘"))
                    .arg(g.maxAbsDiff, 0, 'g', 3)
                    .arg(g.maxRelDiff, 0, 'g', 3)
                    .arg(worst));
            m_gradCheck->setPalette(g.maxAbsDiff == 0 ? good : bad);
        }
        if (g.referenceUnsafe)
            m_gradCheck->setText(m_gradCheck->text() + QLatin1Char(' ') +
                                 tr("The plan without checkpointing is unsafe too (the damage "
                                    "is in the network), so agreement proves nothing."));
    }
    QStringList losses;
    for (float l : o.losses) losses << QString::number(double(l), 'g', 6);
    m_losses->setText(tr("Loss per micro-batch: %1. Alloc, free and data initialisation took %2 "
                         "(not part of the step time).")
                          .arg(losses.join(QStringLiteral(", ")), formatSeconds(o.memoryOpsS)));
}

void RunPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        showOutcome();
        setStatus(m_status->text(), m_statusIsError);
    }
}

}  // namespace remat::ui
