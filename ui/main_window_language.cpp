// MainWindow's language switch (View → Language): the translators of the chosen language are
// installed and every view is built again over the same document. Rebuilding rather than
// retranslating widget by widget makes the switch complete by construction: each string is
// made by the same code, in the same place, that makes it at start-up (docs/architecture.md,
// "Language switch"). What the views showed beyond the document (the selection, the dock
// layout, the step-through's step, the lesson, the other plan, the sweep's settings, a finished
// run) is read before and put back after.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <optional>

#include "device_bar.h"
#include "document.h"
#include "evaluation_progress.h"
#include "fit_dialog.h"
#include "help_browser.h"
#include "language.h"
#include "layer_stack_view.h"
#include "layout_dialog.h"
#include "lesson_panel.h"
#include "lessons.h"
#include "main_window.h"
#include "plan_diff_panel.h"
#include "run_panel.h"
#include "run_worker.h"
#include "step_through_panel.h"
#include "sweep_panel.h"

namespace remat::ui {

void MainWindow::setLanguage(const QString& code) {
    // A lesson shown in the interface's language follows it; one the user chose stays.
    const bool lessonFollows = m_lessons->language() == defaultLessonLanguage();
    const QString lessonLanguage = m_lessons->language();
    installTranslators(*qApp, code);
    rebuildViews(lessonFollows ? defaultLessonLanguage() : lessonLanguage);
}

void MainWindow::rebuildViews(const QString& lessonLanguage) {
    // What the views show beyond the document.
    const QByteArray dockState = saveState();
    const LayerStackView::Rows rows = m_layerStack->rows();
    const std::size_t instruction = m_stepThrough->currentInstruction();
    const QString otherPlan = m_planDiff->otherStrategy();
    const bool planDiffShown = m_planDiffDock->isVisible();
    const bool sweepShown = m_sweep->isShown();
    const int sweepAxis = m_sweep->axisCombo()->currentIndex();
    const int sweepMeasure = m_sweep->measureCombo()->currentIndex();
    const QString sweepValues = m_sweep->valuesEdit()->text();
    const LessonPanel::Place lesson = m_lessons->place();
    const std::optional<RunOutcome> run = m_runPanel->lastOutcome();
    const QString backend = m_runPanel->selectedBackend();
    const bool runStopped = m_runPanel->isRunning();  // its panel goes; the run stops
    struct FitState {
        bool shown;
        int gpus, globalBatch, cluster;
        bool searched;
    };
    std::optional<FitState> fit;
    if (m_fitDialog)
        fit = FitState{m_fitDialog->isVisible(), m_fitDialog->gpusBox()->value(),
                       m_fitDialog->globalBatchBox()->value(),
                       m_fitDialog->clusterBox()->currentIndex(),
                       m_fitDialog->result().has_value()};
    const bool layoutShown = m_deviceBar->layoutButton()->dialog()->isVisible();
    QStringList helpPages;
    for (HelpBrowser* h : findChildren<HelpBrowser*>(Qt::FindDirectChildrenOnly))
        if (h->isVisible()) helpPages << h->objectName();
    QStringList hiddenForPresentation;  // the docks, by name; the status bar stays
    bool statusBarHidden = false;
    for (QWidget* w : m_hiddenForPresentation) {
        if (w == statusBar()) statusBarHidden = true;
        else hiddenForPresentation << w->objectName();
    }
    m_stepThrough->pause();

    // Nothing the old views emit while they are deleted may reach this window's slots, which
    // use the views; the document's connections are made again with the new views.
    for (QObject* o : findChildren<QObject*>()) disconnect(o, nullptr, this, nullptr);
    disconnect(m_document, nullptr, this, nullptr);

    // Dialogs made from the window (the fit search, help pages) go with it; those that were
    // open are opened again below.
    for (QDialog* d : findChildren<QDialog*>(Qt::FindDirectChildrenOnly)) delete d;
    m_fitDialog = nullptr;
    delete takeCentralWidget();
    for (QDockWidget* d : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        removeDockWidget(d);
        delete d;
    }
    for (QToolBar* t : findChildren<QToolBar*>(Qt::FindDirectChildrenOnly)) {
        removeToolBarBreak(t);
        removeToolBar(t);
        delete t;
    }
    delete m_evaluationProgress;
    delete m_timingLabel;
    statusBar()->clearMessage();
    menuBar()->clear();
    for (QMenu* m : menuBar()->findChildren<QMenu*>(Qt::FindDirectChildrenOnly)) delete m;
    for (QActionGroup* g : findChildren<QActionGroup*>(Qt::FindDirectChildrenOnly)) delete g;
    for (QAction* a : findChildren<QAction*>(Qt::FindDirectChildrenOnly)) delete a;
    m_hiddenForPresentation.clear();

    buildViews();
    buildDocks();
    buildActions();
    buildMenus();
    connectDocument();

    // The lesson, the other plan and the sweep's controls first: the document's state given
    // to the views next is then shown, and evaluated, with them.
    m_lessons->setLanguage(lessonLanguage);
    m_lessons->restorePlace(lesson);
    m_planDiff->setOtherStrategy(otherPlan);
    m_sweep->axisCombo()->setCurrentIndex(sweepAxis);
    m_sweep->measureCombo()->setCurrentIndex(sweepMeasure);
    m_sweep->valuesEdit()->setText(sweepValues);
    setUnits(m_units);
    onDocumentChanged();
    m_layerStack->restoreRows(rows);
    m_runPanel->selectBackend(backend);
    if (run && run->ok) m_runPanel->showEarlierOutcome(*run);

    // The docks as they were (their visibility, sizes and tabs), the toolbars' rows included.
    restoreState(dockState);
    // Once more when the new panels have been laid out (their size hints known): restored
    // before, the docks keep sizes the panels' first hints asked for.
    QTimer::singleShot(0, this, [this, dockState] { restoreState(dockState); });
    for (QDockWidget* d : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
        if (hiddenForPresentation.contains(d->objectName())) m_hiddenForPresentation.push_back(d);
    if (statusBarHidden) m_hiddenForPresentation.push_back(statusBar());
    if (m_presentation) {
        const QSignalBlocker block(m_presentationAction);
        m_presentationAction->setChecked(true);
    }
    m_sweep->setShown(sweepShown);
    m_planDiff->setShown(planDiffShown);
    updateStepThroughActive();
    if (instruction != StepThroughPanel::npos) {
        if (m_stepThrough->stepCount() > 0) {
            m_stepThrough->seekInstruction(instruction);
        } else {
            // A long program is indexed in the background: go to the step once it is.
            auto once = std::make_shared<QMetaObject::Connection>();
            *once = connect(m_stepThrough, &StepThroughPanel::programChanged, this,
                            [this, once, instruction] {
                                disconnect(*once);
                                if (m_stepThrough->stepCount() > 0)
                                    m_stepThrough->seekInstruction(instruction);
                            });
        }
    }

    if (fit) {
        m_fitDialog = new FitDialog(m_document, this);
        m_fitDialog->setUnits(m_units);
        m_fitDialog->gpusBox()->setValue(fit->gpus);
        m_fitDialog->globalBatchBox()->setValue(fit->globalBatch);
        m_fitDialog->clusterBox()->setCurrentIndex(fit->cluster);
        if (fit->searched) m_fitDialog->start();  // its result, in the new language
        if (fit->shown) showFitDialog();
    }
    if (runStopped) showMessage(tr("The run was stopped by the language switch; run it again."));
    if (layoutShown) m_deviceBar->layoutButton()->dialog()->show();
    for (const QString& page : helpPages)
        showHelpPage(page == QLatin1String("userGuide") ? QStringLiteral("user-guide")
                                                        : QStringLiteral("glossary"));
}

}  // namespace remat::ui
