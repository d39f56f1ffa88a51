#include "main_window.h"

#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QScreen>
#include <QStatusBar>
#include <QStyle>
#include <QThreadPool>
#include <QToolBar>
#include <QTreeView>
#include <QUrl>
#include <algorithm>
#include <utility>

#include "app_settings.h"
#include "autosave.h"
#include "background_priority.h"
#include "budget_slider.h"
#include "comparison_panel.h"
#include "device_bar.h"
#include "document.h"
#include "evaluation_progress.h"
#include "fit_dialog.h"
#include "inspector.h"
#include "layer_insert.h"
#include "layer_numbering.h"
#include "layer_stack_view.h"
#include "lesson_panel.h"
#include "palette.h"
#include "plan_diff_panel.h"
#include "qt_convert.h"
#include "refusal_notice.h"
#include "run_panel.h"
#include "schedule_grid_view.h"
#include "step_through_panel.h"
#include "strategy_bar.h"
#include "summary_panel.h"
#include "sweep_panel.h"
#include "timeline_plot.h"

namespace remat::ui {
namespace {

// Superseded document states (a large model's program is tens of megabytes) are freed off the
// GUI thread, one at a time, at background priority.
QThreadPool* disposalPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : MainWindow(Options{}, parent) {}

MainWindow::MainWindow(const Options& options, QWidget* parent)
    : QMainWindow(parent), m_options(options), m_document(new Document(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    AppSettings settings;
    m_units = settings.units();
    if (!settings.lastDevice().isEmpty()) m_document->setFallbackDeviceId(settings.lastDevice());

    buildViews();
    buildDocks();
    buildActions();
    buildMenus();
    connectDocument();
    if (m_options.autosave)
        m_autosaver = std::make_unique<Autosaver>(m_document, m_options.autosaveDirectory);

    resize(defaultSize());
    fitDocksToWindow();
    if (m_options.restoreSettings) {
        restoreGeometry(settings.geometry());
        m_docksFitted = restoreState(settings.windowState());
    }
    setUnits(m_units);
    onDocumentChanged();
    updateTitle();
}

MainWindow::~MainWindow() {
    // The document outlives this body (it is deleted with the children): nothing it emits from
    // now on may reach this half-destroyed window.
    disconnect(m_document, nullptr, this, nullptr);
    disconnect(m_document->undoStack(), nullptr, this, nullptr);
    // Nor may the docks, which QWidget's destructor hides (visibilityChanged) before deleting
    // them.
    for (QObject* dock : findChildren<QDockWidget*>()) disconnect(dock, nullptr, this, nullptr);
}

void MainWindow::buildViews() {
    m_timeline = new TimelinePlot(this);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_timeline->setXAxis(AppSettings().timeAxis() ? TimelinePlot::XAxis::Time
                                                  : TimelinePlot::XAxis::Instruction);
    setCentralWidget(m_timeline);

    m_layerStack = new LayerStackView(m_document, this);
    m_palette = new Palette(this);
    m_inspector = new Inspector(m_document, this);
    m_summary = new SummaryPanel(this);
    m_comparison = new ComparisonPanel(this);
    m_runPanel = new RunPanel(this);
    // A window that asks nothing (scripts, headless jobs) runs what it is told to run.
    if (!m_options.interactive)
        m_runPanel->setLongRunQuestion([](const QString&, bool*) { return true; });
    m_sweep = new SweepPanel(this);
    m_stepThrough = new StepThroughPanel(this);
    m_schedule = new ScheduleGridView(this);
    m_planDiff = new PlanDiffPanel(this);
    m_lessons = new LessonPanel(m_document, this);

    m_strategyBar = new StrategyBar(m_document, this);
    auto* bar = new QToolBar(tr("Strategy and training"), this);
    bar->setObjectName(QStringLiteral("strategyToolBar"));
    bar->setMovable(false);
    bar->addWidget(m_strategyBar);
    addToolBar(Qt::TopToolBarArea, bar);
    // The device and the memory budget (optimal planner), on their own row under the strategy
    // bar: each row fits a 1280-pixel projector.
    m_deviceBar = new DeviceBar(m_document, this);
    auto* budget = new QToolBar(tr("Device and memory budget"), this);
    budget->setObjectName(QStringLiteral("budgetToolBar"));
    budget->setMovable(false);
    budget->addWidget(m_deviceBar);
    budget->addWidget(new BudgetSlider(m_document, this));
    // The strategy bar's RNG switch, on this row: the strategy row fills a 1280-pixel projector.
    auto* rng = new QWidget(this);
    auto* rngLayout = new QHBoxLayout(rng);
    rngLayout->setContentsMargins(8, 0, 4, 0);
    rngLayout->addWidget(m_strategyBar->preserveRngCheck());
    budget->addWidget(rng);
    addToolBarBreak(Qt::TopToolBarArea);
    addToolBar(Qt::TopToolBarArea, budget);

    m_evaluationProgress = new EvaluationProgress(m_document, this);
    statusBar()->addPermanentWidget(m_evaluationProgress);
    m_timingLabel = new QLabel(this);
    m_timingLabel->setToolTip(tr("Time the last edit took to simulate and redraw"));
    statusBar()->addPermanentWidget(m_timingLabel);
}

void MainWindow::buildDocks() {
    auto dock = [this](const QString& title, const char* name, QWidget* w,
                       Qt::DockWidgetArea area, int scrollWidth = 0) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QString::fromLatin1(name));
        if (scrollWidth > 0) {
            // A panel whose texts change with every edit: the scroll area keeps its new size
            // hints from relaying out the whole window, and a short dock scrolls it.
            auto* scroll = new QScrollArea(d);
            scroll->setWidgetResizable(true);
            scroll->setFrameShape(QFrame::NoFrame);
            scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
            scroll->setMinimumWidth(scrollWidth +
                                    scroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent));
            scroll->setWidget(w);
            d->setWidget(scroll);
        } else {
            d->setWidget(w);
        }
        addDockWidget(area, d);
        return d;
    };
    m_stackDock = dock(tr("Layer stack"), "layerStackDock", m_layerStack, Qt::LeftDockWidgetArea);
    m_inspectorDock = dock(tr("Inspector"), "inspectorDock", m_inspector, Qt::LeftDockWidgetArea);
    m_paletteDock = dock(tr("Palette"), "paletteDock", m_palette, Qt::LeftDockWidgetArea);
    tabifyDockWidget(m_inspectorDock, m_paletteDock);
    m_inspectorDock->raise();
    m_summaryDock = dock(tr("Summary"), "summaryDock", m_summary, Qt::RightDockWidgetArea,
                         m_summary->breakdownWidth());
    m_comparisonDock =
        dock(tr("Comparison"), "comparisonDock", m_comparison, Qt::BottomDockWidgetArea);
    m_runDock = dock(tr("Run"), "runDock", m_runPanel, Qt::BottomDockWidgetArea);
    m_sweepDock = dock(tr("Sweep"), "sweepDock", m_sweep, Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_comparisonDock, m_runDock);
    tabifyDockWidget(m_runDock, m_sweepDock);
    connect(m_sweepDock, &QDockWidget::visibilityChanged, m_sweep, &SweepPanel::setShown);
    // The step-through shares the right side with the summary; the schedule grid, wide and
    // short, sits with the comparison under the plot.
    m_stepDock =
        dock(tr("Step-through"), "stepThroughDock", m_stepThrough, Qt::RightDockWidgetArea);
    tabifyDockWidget(m_summaryDock, m_stepDock);
    m_scheduleDock = dock(tr("Schedule"), "scheduleDock", m_schedule, Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_sweepDock, m_scheduleDock);
    m_planDiffDock = dock(tr("Two plans"), "planDiffDock", m_planDiff, Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_scheduleDock, m_planDiffDock);
    connect(m_planDiffDock, &QDockWidget::visibilityChanged, m_planDiff, &PlanDiffPanel::setShown);
    connect(m_stepDock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
        m_stepDockShown = shown;
        updateStepThroughActive();
    });
    connect(m_scheduleDock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
        m_scheduleDockShown = shown;
        updateStepThroughActive();
    });
    // The lessons share the right side with the summary and the step-through.
    m_lessonDock = dock(tr("Lessons"), "lessonDock", m_lessons, Qt::RightDockWidgetArea,
                        m_summary->breakdownWidth());
    tabifyDockWidget(m_stepDock, m_lessonDock);
    m_summaryDock->raise();
    m_comparisonDock->raise();
    // The stack runs the full height on the left; the comparison sits under the plot and the
    // summary, where its table has the width it needs.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
}

QSize MainWindow::defaultSize() const {
    const QSize preferred(1600, 1000);
    const QScreen* s = screen();
    return s ? preferred.boundedTo(s->availableGeometry().size()) : preferred;
}

void MainWindow::fitDocksToWindow() {
    // Shares of the window, within what each panel needs: at 1600 x 1000 the stack takes 576
    // pixels, the summary 400 (its titles beside their figures) and the comparison 320; on a
    // 1280 x 720 projector they shrink towards their minimum so that the timeline keeps the
    // room it needs.
    const int w = width(), h = height();
    m_fittedSize = size();
    resizeDocks({m_stackDock, m_inspectorDock}, {h * 2 / 3, h / 3}, Qt::Vertical);
    resizeDocks({m_stackDock}, {std::clamp(w * 9 / 25, 380, 580)}, Qt::Horizontal);
    // Presentation mode's larger font needs a wider summary for the same figures.
    const double grow = m_presentation ? kPresentationScale : 1.0;
    resizeDocks({m_summaryDock},
                {int(std::clamp(w / 4, 340, 420) * grow)}, Qt::Horizontal);
    resizeDocks({m_comparisonDock}, {std::clamp(h * 8 / 25, 200, 320)}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    // The first time the window is shown, at another size than the default it was fitted to
    // (the caller chose one), unless the user's own layout was restored.
    if (!m_docksFitted) {
        m_docksFitted = true;
        if (size() != m_fittedSize) fitDocksToWindow();
    }
}

void MainWindow::connectDocument() {
    connect(m_document, &Document::changed, this, &MainWindow::onDocumentChanged);
    connect(m_document, &Document::editRejected, this, [this](const QString& message) {
        m_lastError = message;
        showMessage(tr("Edit refused: %1").arg(message));
    });
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::opened, this, &MainWindow::onOpened);
    // Another model: the comparison starts from its first row and column again.
    connect(m_document, &Document::modelReplaced, m_comparison, &ComparisonPanel::resetScroll);
    connect(m_document, &Document::openFailed, this, [this](const QString& message) {
        showError(tr("Cannot open model"),
                  tr("The model was not opened; the current one is unchanged.\n\n%1")
                      .arg(printableText(message, kShownMessageChars)));
    });

    connect(m_document->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);

    // Selecting a layer highlights its instructions; clicking the plot selects the layer.
    // Under pipeline parallelism the timeline is one stage's: its layers are the network's
    // from the stage's first instance on.
    connect(m_layerStack, &LayerStackView::currentInstanceChanged, m_timeline, [this](int instance) {
        const std::int64_t local = instance < 0 ? -1 : instance - m_document->rankFirstInstance();
        m_timeline->highlightLayer(local < 0 ? -1 : int(local));
    });
    connect(m_timeline, &TimelinePlot::layerClicked, m_layerStack, [this](int layer) {
        m_layerStack->selectInstance(layer < 0 ? layer
                                               : layer + int(m_document->rankFirstInstance()));
    });
    connect(m_layerStack, &LayerStackView::currentEntryChanged, m_inspector, [this](int entry) {
        m_inspector->setEntry(entry);
        updateEditActions();
        if (entry >= -1) m_inspectorDock->raise();
    });
    connect(m_layerStack, &LayerStackView::message, this, &MainWindow::showMessage);
    connect(m_palette, &Palette::addRequested, this,
            [this](LayerKind kind) { addLayerFromPalette(int(kind)); });
    connect(m_deviceBar, &DeviceBar::deviceChosen, this, [this](const QString& id) {
        AppSettings().setLastDevice(id);
        m_document->setFallbackDeviceId(id);
    });
    connect(m_comparison, &ComparisonPanel::strategyChosen, this, [this](const QString& spelling) {
        EditOrigin origin(*m_document, m_comparison);
        (void)m_document->setStrategy(spelling);
    });
    // Where a refused edit came from a panel with nothing to revert: the reason at its top.
    for (QWidget* panel : {static_cast<QWidget*>(m_palette), static_cast<QWidget*>(m_comparison)})
        connectRefusals(m_document, panel, [panel](QWidget*, const QString&) {
            return RefusalPlace{panel, QRect(0, 0, panel->width(), 1)};
        });
    // A run executes exactly the program on the plot, so its live bytes line up with it.
    connect(m_runPanel, &RunPanel::measured, this, [this](const std::vector<std::int64_t>& live) {
        m_timeline->setMeasured(live, m_runPanel->measuredLabel());
    });
    // The step-through's instruction: a cursor on the timeline and the grid, its layer marked in
    // the stack; a click on the grid goes there.
    connect(m_stepThrough, &StepThroughPanel::currentInstructionChanged, this,
            &MainWindow::showStepInstruction);
    connect(m_stepThrough, &StepThroughPanel::programChanged, m_schedule,
            &ScheduleGridView::setProgram);
    connect(m_schedule, &ScheduleGridView::instructionClicked, this, [this](qint64 index) {
        if (index >= 0) m_stepThrough->seekInstruction(std::size_t(index));
    });
    connect(m_runPanel, &RunPanel::runFinished, this, [this](bool ok) {
        showMessage(ok ? tr("Run finished: %1").arg(m_runPanel->statusText())
                       : tr("Run did not finish: %1").arg(m_runPanel->statusText()));
    });
}

void MainWindow::onDocumentChanged() {
    QElapsedTimer timer;
    timer.start();
    const double startCpu = threadCpuMs();
    const auto state = m_document->stateHandle();
    // The state shown until now: freeing a large program (GPT-3's has 40,000 instructions) takes
    // a millisecond or more, so the last reference is dropped on a pool thread after the views
    // have let go of it.
    std::shared_ptr<const DocumentState> previous = std::exchange(m_shownState, state);
    // The plot keeps its highlighted layer across new data: no second replot for it.
    m_timeline->setData(state, *state->graph, state->evaluation.program, state->evaluation.timeline,
                        state->device, state->series);
    if (m_snapshot) applySnapshotOverlay();
    m_summary->setEvaluation(state->evaluation, state->device, *state->graph,
                             state->parallel.get());
    m_lastUpdateMs = state->evaluateMs + double(timer.nsecsElapsed()) / 1e6;
    m_lastUpdateCpuMs = state->evaluateCpuMs + threadCpuMs() - startCpu;
    // The comparison, the trade-off curve and the run panel's predictions follow in the
    // background; a newer request cancels the one in flight.
    m_comparison->request(state->model, state->model.training, state->device,
                          m_document->strategySpelling(), &state->cluster);
    if (state->parallel)
        // A rank's program (sharded states, gathered parameters) is a prediction only: the
        // executors run whole single-GPU steps.
        m_runPanel->clearProgram(
            tr("Runs are of one GPU: set the layout to 1 GPU to run the step and measure it."));
    else
        m_runPanel->setProgram(state, *state->graph, state->evaluation.program,
                               state->evaluation.timeline, state->device);
    m_sweep->setModel(state->model, state->model.training, state->device, &state->cluster);  // when it is shown
    // The captions and the grid's rows name layers as the stack numbers its rows.
    const LayerNumbering numbering(state->model.network, m_document->rankFirstInstance());
    m_stepThrough->setNumbering(numbering);
    m_schedule->setNumbering(numbering);
    m_stepThrough->setProgram(state, *state->graph, state->evaluation.program,
                              state->evaluation.timeline, state->series);  // indexed when shown
    m_planDiff->setState(state, m_document->strategySpelling());  // evaluated when shown
    m_timingLabel->setText(tr("updated in %1 ms").arg(m_lastUpdateMs, 0, 'f', 1));
    updateEditActions();
    updateTitle();
    if (previous && previous != state)
        disposalPool()->start([old = std::move(previous)]() mutable {
            lowerThreadPriority();
            old.reset();
        });
}

void MainWindow::updateEditActions() {
    const bool hasLayer = m_layerStack->currentEntry() >= 0;
    m_duplicateAction->setEnabled(hasLayer);
    m_deleteAction->setEnabled(hasLayer);
    m_moveUpAction->setEnabled(hasLayer);
    m_moveDownAction->setEnabled(hasLayer);
}

void MainWindow::updateTitle() {
    // displayName() is escaped and cut: a model's name may hold anything.
    setWindowTitle(tr("%1[*] — Remat Studio").arg(m_document->displayName()));
    setWindowModified(m_document->isModified());
}

void MainWindow::showMessage(const QString& message) {
    // Messages quote files (names, values); the status bar is one line.
    statusBar()->showMessage(printableText(message.simplified(), kShownMessageChars), 8000);
}

void MainWindow::showError(const QString& title, const QString& message) {
    m_lastError = message;
    showMessage(message);
    if (m_options.interactive) {
        // Escaped and cut per line: a broken file's message stays a few readable lines.
        QStringList lines = message.split(QLatin1Char('\n'));
        for (QString& line : lines) line = printableText(line, kShownMessageChars);
        QMessageBox::warning(this, title, lines.join(QLatin1Char('\n')));
    }
}

FitDialog* MainWindow::showFitDialog() {
    if (!m_fitDialog) {
        m_fitDialog = new FitDialog(m_document, this);
        m_fitDialog->setUnits(m_units);
    }
    m_fitDialog->show();
    m_fitDialog->raise();
    m_fitDialog->activateWindow();
    return m_fitDialog;
}

void MainWindow::setUnits(ByteUnits units) {
    m_units = units;
    AppSettings().setUnits(units);
    m_timeline->setUnits(units);
    m_strategyBar->setUnits(units);
    m_deviceBar->setUnits(units);
    if (auto* budget = findChild<BudgetSlider*>()) budget->setUnits(units);
    m_summary->setUnits(units);
    m_comparison->setUnits(units);
    m_runPanel->setUnits(units);
    m_sweep->setUnits(units);
    m_stepThrough->setUnits(units);
    m_planDiff->setUnits(units);
    if (m_fitDialog) m_fitDialog->setUnits(units);
    if (m_gibUnits) m_gibUnits->setChecked(units == ByteUnits::Binary);
    if (m_gbUnits) m_gbUnits->setChecked(units == ByteUnits::Decimal);
}

void MainWindow::setTheme(Theme theme) {
    AppSettings().setTheme(theme);
    applyTheme(theme);
    if (m_lightTheme) m_lightTheme->setChecked(theme == Theme::Light);
    if (m_darkTheme) m_darkTheme->setChecked(theme == Theme::Dark);
}

void MainWindow::updateStepThroughActive() {
    m_stepThrough->setActive(m_stepDockShown || m_scheduleDockShown);
}

void MainWindow::showStepInstruction(qint64 index) {
    const std::size_t i = index < 0 ? TimelinePlot::npos : std::size_t(index);
    m_timeline->setCursorInstruction(i);
    m_schedule->setCursorInstruction(i);
    const auto data = m_stepThrough->data();
    m_layerStack->markInstance(index < 0 || !data ? -1 : data->layerOfInstruction(i));
}

void MainWindow::addLayerFromPalette(int kindValue) {
    const auto kind = LayerKind(kindValue);
    const Network& net = m_document->network();
    // After the current layer; with nothing selected, just before the loss.
    int entry = m_layerStack->currentEntry();
    std::size_t position =
        entry >= 0 ? std::size_t(entry) + 1 : (entry == -1 ? 0 : net.layers.size());
    if (entry == -2 && !net.layers.empty() && isLoss(net.layers.back().kind))
        position = net.layers.size() - 1;
    EditOrigin origin(*m_document, m_palette);
    if (insertLayerOfKind(*m_document, kind, position)) m_layerStack->selectEntry(int(position));
}

void MainWindow::moveSelected(int delta) {
    const int entry = m_layerStack->currentEntry();
    if (entry < 0) return;
    const int to = entry + delta;
    if (to < 0 || to >= int(m_document->network().layers.size())) return;
    EditOrigin origin(*m_layerStack->beginEdit(), m_layerStack->tree());
    if (m_document->moveLayer(std::size_t(entry), std::size_t(to))) m_layerStack->selectEntry(to);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_terminating) {
        // The work was written for recovery (prepareForTermination): neither ask nor discard.
        event->accept();
        return;
    }
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    if (m_options.restoreSettings) {
        AppSettings settings;
        settings.setGeometry(saveGeometry());
        settings.setWindowState(saveState());
    }
    if (m_autosaver) m_autosaver->discard();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QMimeData* mime = event->mimeData();
    if (mime->hasUrls() && mime->urls().size() == 1 && mime->urls().front().isLocalFile() &&
        mime->urls().front().toLocalFile().endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QMimeData* mime = event->mimeData();
    if (!mime->hasUrls() || mime->urls().isEmpty()) return;
    event->acceptProposedAction();
    const QString path = mime->urls().front().toLocalFile();
    // A file named config.json is a Hugging Face config (docs/import.md): imported, not opened.
    const bool hfConfig = QFileInfo(path).fileName() == QLatin1String("config.json");
    // Opening may show a dialog; not from inside the drop handler, where the drag source waits.
    QMetaObject::invokeMethod(
        this,
        [this, path, hfConfig] {
            if (!maybeSave()) return;
            if (hfConfig) importHfConfig(path);
            else openModel(path);
        },
        Qt::QueuedConnection);
}

}  // namespace remat::ui
