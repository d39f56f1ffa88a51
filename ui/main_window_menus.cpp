// MainWindow's menus, actions and file handling (open, save, recent files, presets, exports,
// recovery). Kept apart from main_window.cpp, which builds the views and wires the document.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTreeView>
#include <QUndoStack>
#include <cmath>

#include "app_settings.h"
#include "autosave.h"
#include "comparison_panel.h"
#include "document.h"
#include "export_plan_dialog.h"
#include "help_browser.h"
#include "hf_import.h"
#include "language.h"
#include "json_input.h"
#include "layer_stack_view.h"
#include "main_window.h"
#include "memory_snapshot.h"
#include "model_file.h"
#include "qt_convert.h"
#include "timeline_plot.h"

namespace remat::ui {

namespace {

// A description's first sentence (up to the first ". " that does not end an abbreviation such
// as "et al." or "e.g."), for a status line.
QString firstSentence(const QString& text) {
    qsizetype end = -1;
    for (qsizetype at = text.indexOf(QLatin1String(". ")); at >= 0;
         at = text.indexOf(QLatin1String(". "), at + 1)) {
        const qsizetype wordStart = text.lastIndexOf(QLatin1Char(' '), at) + 1;
        const QString word = text.mid(wordStart, at - wordStart);
        static const QStringList kAbbreviations = {QStringLiteral("al"), QStringLiteral("e.g"),
                                                   QStringLiteral("i.e"), QStringLiteral("etc"),
                                                   QStringLiteral("vs"), QStringLiteral("cf")};
        if (word.size() > 1 && !kAbbreviations.contains(word)) {
            end = at;
            break;
        }
    }
    QString s = (end < 0 ? text : text.left(end + 1)).simplified();
    if (s.size() > 160) s = s.left(159) + QChar(0x2026);
    return s;
}

}  // namespace

void MainWindow::buildActions() {
    m_duplicateAction = new QAction(tr("&Duplicate layer"), this);
    m_duplicateAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(m_duplicateAction, &QAction::triggered, this, [this] {
        const int e = m_layerStack->currentEntry();
        EditOrigin origin(*m_layerStack->beginEdit(), m_layerStack->tree());
        if (e >= 0 && m_document->duplicateLayer(std::size_t(e))) m_layerStack->selectEntry(e + 1);
    });
    m_deleteAction = new QAction(tr("De&lete layer"), this);
    m_deleteAction->setShortcut(QKeySequence::Delete);
    connect(m_deleteAction, &QAction::triggered, this,
            [this] {
                EditOrigin origin(*m_layerStack->beginEdit(), m_layerStack->tree());
                (void)m_document->removeLayers(m_layerStack->selectedEntries());
            });
    m_moveUpAction = new QAction(tr("Move layer &up"), this);
    m_moveUpAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    connect(m_moveUpAction, &QAction::triggered, this, [this] { moveSelected(-1); });
    m_moveDownAction = new QAction(tr("Move layer do&wn"), this);
    m_moveDownAction->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    connect(m_moveDownAction, &QAction::triggered, this, [this] { moveSelected(+1); });
    // The same actions on the stack's context menu.
    for (QAction* a : {m_duplicateAction, m_deleteAction, m_moveUpAction, m_moveDownAction})
        m_layerStack->tree()->addAction(a);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newModel);
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Import Hugging Face config…"), this, &MainWindow::importHfDialog);
    file->addAction(tr("Compare with a PyTorch &snapshot…"), this,
                    &MainWindow::compareSnapshotDialog);
    QMenu* presets = file->addMenu(tr("&Presets"));
    presets->setToolTipsVisible(true);
    for (const std::string& name : builtinModelNames()) {
        const QString preset = toQString(name);
        QAction* a = presets->addAction(preset, this, [this, preset] {
            if (maybeSave()) openModel(preset);
        });
        // What the preset is and where its figures come from, before opening it.
        const QString description = toQString(builtinModelDescription(name));
        a->setToolTip(QStringLiteral("<p>%1</p>").arg(description.toHtmlEscaped()));
        a->setStatusTip(firstSentence(description));
    }
    file->addSeparator();
    m_saveAction = file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::saveAsDialog);
    file->addSeparator();
    QMenu* exports = file->addMenu(tr("&Export"));
    exports->addAction(tr("Timeline plot (PNG, SVG, PDF)…"), this,
                       [this] { exportDialog(QStringLiteral("timeline")); });
    exports->addAction(tr("Trade-off plot (PNG, SVG, PDF)…"), this,
                       [this] { exportDialog(QStringLiteral("tradeoff")); });
    exports->addAction(tr("For &slides (title, size, PNG density)…"), this,
                       &MainWindow::exportForSlidesDialog);
    exports->addAction(tr("Timeline as CSV…"), this,
                       [this] { exportDialog(QStringLiteral("csv")); });
    exports->addAction(tr("Comparison as CSV…"), this,
                       [this] { exportDialog(QStringLiteral("comparison-csv")); });
    exports->addAction(tr("Comparison as Markdown…"), this,
                       [this] { exportDialog(QStringLiteral("comparison-md")); });
    // The plan as PyTorch or Hugging Face code, Megatron-LM flags or a DeepSpeed section.
    QAction* planAsCode = file->addAction(tr("Export plan as &code…"), this, [this] {
        auto* dialog = new ExportPlanDialog(m_document->model(), m_document->device(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    planAsCode->setObjectName(QStringLiteral("exportPlanAsCode"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(m_duplicateAction);
    edit->addAction(m_deleteAction);
    edit->addAction(m_moveUpAction);
    edit->addAction(m_moveDownAction);
    edit->addSeparator();
    edit->addAction(m_layerStack->checkpointSelectionAction());
    edit->addAction(tr("&Clear plan"), this, [this] {
        EditOrigin origin(*m_layerStack->beginEdit(), m_layerStack->tree());
        (void)m_document->clearPlan();
    });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* axis = view->addMenu(tr("Timeline &x axis"));
    auto* axisGroup = new QActionGroup(this);
    m_instructionAxis = axis->addAction(tr("&Instruction"));
    m_timeAxis = axis->addAction(tr("Predicted &time"));
    for (QAction* a : {m_instructionAxis, m_timeAxis}) {
        a->setCheckable(true);
        axisGroup->addAction(a);
    }
    m_instructionAxis->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    m_timeAxis->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    (m_timeline->xAxis() == TimelinePlot::XAxis::Time ? m_timeAxis : m_instructionAxis)
        ->setChecked(true);
    connect(axisGroup, &QActionGroup::triggered, this, [this](QAction* a) {
        const bool time = a == m_timeAxis;
        AppSettings().setTimeAxis(time);
        m_timeline->setXAxis(time ? TimelinePlot::XAxis::Time : TimelinePlot::XAxis::Instruction);
    });
    QMenu* units = view->addMenu(tr("&Units"));
    auto* unitGroup = new QActionGroup(this);
    m_gibUnits = units->addAction(tr("GiB (2^30 bytes)"));
    m_gbUnits = units->addAction(tr("GB (10^9 bytes)"));
    for (QAction* a : {m_gibUnits, m_gbUnits}) {
        a->setCheckable(true);
        unitGroup->addAction(a);
    }
    connect(unitGroup, &QActionGroup::triggered, this, [this](QAction* a) {
        setUnits(a == m_gbUnits ? ByteUnits::Decimal : ByteUnits::Binary);
    });
    QMenu* palette = view->addMenu(tr("&Palette"));
    auto* themeGroup = new QActionGroup(this);
    m_lightTheme = palette->addAction(tr("&Light"));
    m_darkTheme = palette->addAction(tr("&Dark"));
    for (QAction* a : {m_lightTheme, m_darkTheme}) {
        a->setCheckable(true);
        themeGroup->addAction(a);
    }
    (AppSettings().theme() == Theme::Dark ? m_darkTheme : m_lightTheme)->setChecked(true);
    connect(themeGroup, &QActionGroup::triggered, this,
            [this](QAction* a) { setTheme(a == m_darkTheme ? Theme::Dark : Theme::Light); });
    // The language switches at once: the choice is saved for the next start too.
    QMenu* language = view->addMenu(tr("&Language"));
    language->setObjectName(QStringLiteral("languageMenu"));
    auto* languageGroup = new QActionGroup(this);
    const QString savedLanguage = AppSettings().language();
    QAction* systemLanguage = language->addAction(tr("System default"));
    systemLanguage->setData(QString());
    for (const LanguageChoice& l : availableLanguages())
        language->addAction(l.nativeName)->setData(l.code);
    for (QAction* a : language->actions()) {
        a->setCheckable(true);
        a->setChecked(a->data().toString() == savedLanguage);
        languageGroup->addAction(a);
    }
    connect(languageGroup, &QActionGroup::triggered, this, [this](QAction* a) {
        const QString code = a->data().toString();
        AppSettings().setLanguage(code);
        // The switch deletes this menu and its actions: not from inside their signal.
        QMetaObject::invokeMethod(this, [this, code] { setLanguage(code); },
                                  Qt::QueuedConnection);
    });
    m_presentationAction = view->addAction(tr("&Presentation mode"));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_presentationAction->setStatusTip(
        tr("Larger fonts and lines for a projector; the palette, inspector and status bar "
           "hidden"));
    connect(m_presentationAction, &QAction::toggled, this, &MainWindow::setPresentationMode);
    view->addSeparator();
    for (QDockWidget* d :
         {m_stackDock, m_inspectorDock, m_paletteDock, m_summaryDock, m_comparisonDock, m_runDock,
          m_sweepDock, m_stepDock, m_scheduleDock, m_planDiffDock, m_lessonDock})
        view->addAction(d->toggleViewAction());

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    tools->setObjectName(QStringLiteral("toolsMenu"));
    tools->addAction(tr("Make it &fit…"), this, [this] { showFitDialog(); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    help->addAction(tr("&Lessons"), this, [this] {
        m_lessonDock->show();
        m_lessonDock->raise();
    });
    help->addAction(tr("&User guide"), this, [this] { showHelpPage(QStringLiteral("user-guide")); });
    help->addAction(tr("&Glossary"), this, [this] { showHelpPage(QStringLiteral("glossary")); });
    help->addSeparator();
    help->addAction(tr("&About Remat Studio"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    rebuildRecentMenu();
}

void MainWindow::showHelpPage(const QString& which) {
    const bool guide = which == QLatin1String("user-guide");
    auto* page = new HelpBrowser(guide ? tr("Remat Studio user guide") : tr("Glossary"),
                                 guide ? QStringLiteral(":/docs/user-guide.md")
                                       : QStringLiteral(":/docs/glossary.md"),
                                 this);
    page->setObjectName(guide ? QStringLiteral("userGuide") : QStringLiteral("glossary"));
    page->show();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList files = AppSettings().recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* a = m_recentMenu->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        a->setToolTip(path);
        connect(a, &QAction::triggered, this, [this, path] {
            if (maybeSave()) openModel(path);
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

bool MainWindow::openModel(const QString& pathOrPreset) {
    auto st = m_document->open(pathOrPreset);
    if (!st) {
        showError(tr("Cannot open model"),
                  tr("The model was not opened; the current one is unchanged.\n\n%1")
                      .arg(printableText(st.error().message, kShownMessageChars)));
        return false;
    }
    // Opened now (Document::opened has run), or being evaluated in the background.
    if (m_document->isBusy())
        showMessage(tr("Opening %1… %2").arg(printableText(pathOrPreset), m_document->busyText()));
    return true;
}

void MainWindow::onOpened() {
    if (!m_document->filePath().isEmpty()) {
        AppSettings().addRecentFile(m_document->filePath());
        rebuildRecentMenu();
    }
    m_layerStack->selectEntry(-1);
    const QString about = firstSentence(printableText(m_document->model().description, 400));
    showMessage(about.isEmpty() ? tr("Opened %1").arg(m_document->displayName())
                                : tr("Opened %1: %2").arg(m_document->displayName(), about));
}

bool MainWindow::importHfConfig(const QString& path) {
    auto imported = remat::importHfConfigFile(toStdString(path));
    if (!imported) {
        showError(tr("Cannot import Hugging Face config"),
                  tr("The config was not imported; the current model is unchanged.\n\n%1")
                      .arg(printableText(imported.error().message, kShownMessageChars)));
        return false;
    }
    auto st = m_document->openUnsaved(imported->model);
    if (!st) {
        showError(tr("Cannot import Hugging Face config"),
                  tr("The config was not imported; the current model is unchanged.\n\n%1")
                      .arg(printableText(st.error().message, kShownMessageChars)));
        return false;
    }
    m_layerStack->selectEntry(-1);
    showMessage(tr("Imported %1 (model_type %2) as a new unsaved model; %n field(s) of the "
                   "config ignored as changing neither memory nor time",
                   nullptr, int(imported->ignored.size()))
                    .arg(m_document->displayName(), printableText(imported->modelType)));
    return true;
}

void MainWindow::importHfDialog() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import Hugging Face config"), QString(),
        tr("Hugging Face configs (config.json *.json);;All files (*)"));
    if (!path.isEmpty()) importHfConfig(path);
}

void MainWindow::compareSnapshotDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Compare with a PyTorch snapshot"), QString(),
        tr("PyTorch memory snapshots (*.pickle *.pkl);;All files (*)"));
    if (!path.isEmpty()) (void)compareWithSnapshot(path);
}

bool MainWindow::compareWithSnapshot(const QString& path) {
    auto s = readMemorySnapshot(path.toStdString());
    if (!s) {
        showError(tr("Cannot compare with the snapshot"), toQString(s.error().message));
        return false;
    }
    m_snapshot = std::make_shared<const MemorySnapshot>(std::move(*s));
    m_snapshotName = QFileInfo(path).fileName();
    applySnapshotOverlay();
    return m_timeline->hasSnapshotOverlay();
}

void MainWindow::clearSnapshotComparison() {
    m_snapshot.reset();
    m_snapshotName.clear();
    m_timeline->clearSnapshotOverlay();
}

// The snapshot aligned with the plan shown; the legend carries the measured peaks and the
// difference from the predicted one.
void MainWindow::applySnapshotOverlay() {
    if (!m_snapshot || !m_shownState) return;
    const auto& ev = m_shownState->evaluation;
    auto ov = m_shownState->parallel
                  ? Result<SnapshotOverlay>(makeError(
                        tr("a PyTorch snapshot is of one GPU; set the layout to 1 GPU").toStdString()))
                  : alignSnapshot(*m_snapshot, ev.program, ev.timeline);
    if (!ov) {
        m_timeline->clearSnapshotOverlay();
        m_lastError = tr("%1 cannot be laid over this plan: %2")
                          .arg(m_snapshotName, toQString(ov.error().message));
        showMessage(m_lastError);
        return;
    }
    const std::int64_t diff = ov->peakDifference();
    const QString sign = diff < 0 ? QStringLiteral("−") : QStringLiteral("+");
    const QString signedDiff = sign + bytesText(diff < 0 ? -diff : diff, m_units);
    const QString percent =
        sign + QString::number(100.0 * std::abs(ov->peakDifferenceFraction()), 'f', 1);
    const QString allocated = tr("PyTorch allocated, peak %1 (%2, %3% vs predicted)")
                                  .arg(bytesText(ov->measuredPeakAllocated, m_units), signedDiff,
                                       percent);
    const QString reserved =
        tr("PyTorch reserved, peak %1").arg(bytesText(ov->measuredPeakReserved, m_units));
    m_timeline->setSnapshotOverlay(std::move(ov->allocated), std::move(ov->reserved), allocated,
                                   reserved);
    showMessage(tr("Compared with %1: measured peak %2 allocated, %3 reserved; predicted %4")
                    .arg(m_snapshotName, bytesText(ov->measuredPeakAllocated, m_units),
                         bytesText(ov->measuredPeakReserved, m_units),
                         bytesText(ov->predictedPeak, m_units)));
}

bool MainWindow::saveTo(const QString& path) {
    auto st = m_document->save(path);
    if (!st) {
        showError(tr("Cannot save"), toQString(st.error().message));
        return false;
    }
    AppSettings().addRecentFile(path);
    rebuildRecentMenu();
    showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()));
    return true;
}

void MainWindow::newModel() {
    if (!maybeSave()) return;
    // A small network to start from, not tied to any file.
    auto m = loadModel("mlp-3x1024");
    if (!m) return;
    m->network.name = "untitled";
    m->description.clear();
    auto st = m_document->openModel(*m, QString());
    if (!st) showError(tr("New model"), toQString(st.error().message));
}

void MainWindow::openDialog() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                      tr("Remat models (*.json);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

bool MainWindow::save() {
    if (m_document->filePath().isEmpty()) return saveAsDialog();
    return saveTo(m_document->filePath());
}

bool MainWindow::saveAsDialog() {
    QString suggested = m_document->filePath();
    if (suggested.isEmpty()) suggested = m_document->displayName() + QStringLiteral(".json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save model"), suggested,
                                                      tr("Remat models (*.json)"));
    return !path.isEmpty() && saveTo(path);
}

bool MainWindow::maybeSave() {
    if (!m_document->isModified() || !m_options.interactive) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"),
        tr("%1 has unsaved changes. Save them first?").arg(m_document->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

bool MainWindow::exportTimelinePlot(const QString& path) {
    QString error;
    if (m_timeline->exportTo(path, &error)) return true;
    showError(tr("Export failed"), error);
    return false;
}

bool MainWindow::exportTimelineCsv(const QString& path) {
    QString error;
    if (m_timeline->exportCsv(path, &error)) return true;
    showError(tr("Export failed"), error);
    return false;
}

bool MainWindow::exportTradeOffPlot(const QString& path) {
    QString error;
    if (m_comparison->exportPlot(path, &error)) return true;
    showError(tr("Export failed"), error);
    return false;
}

bool MainWindow::exportComparison(const QString& path, bool markdown) {
    QString error;
    const bool ok = markdown ? m_comparison->exportMarkdown(path, &error)
                             : m_comparison->exportCsv(path, &error);
    if (!ok) showError(tr("Export failed"), error);
    return ok;
}

void MainWindow::setPresentationMode(bool on) {
    if (on == m_presentation) return;
    m_presentation = on;
    if (m_presentationAction && m_presentationAction->isChecked() != on)
        m_presentationAction->setChecked(on);
    if (on) {
        m_hiddenForPresentation.clear();
        for (QWidget* w : {static_cast<QWidget*>(m_paletteDock),
                           static_cast<QWidget*>(m_inspectorDock),
                           static_cast<QWidget*>(statusBar())})
            if (!w->isHidden()) {  // shown, or to be shown with the window
                m_hiddenForPresentation.push_back(w);
                w->hide();
            }
        QFont f = QApplication::font();
        f.setPointSizeF(f.pointSizeF() * kPresentationScale);
        setFont(f);
    } else {
        setFont(QFont());  // back to the application's font
        for (QWidget* w : m_hiddenForPresentation) w->show();
        m_hiddenForPresentation.clear();
    }
    fitDocksToWindow();
}

void MainWindow::exportDialog(const QString& what) {
    const QString base = QFileInfo(m_document->displayName()).completeBaseName();
    QString filter, suggested;
    if (what == QLatin1String("timeline") || what == QLatin1String("tradeoff")) {
        filter = tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
        suggested = base + QLatin1Char('-') + what + QStringLiteral(".png");
    } else if (what == QLatin1String("comparison-md")) {
        filter = tr("Markdown (*.md)");
        suggested = base + QStringLiteral("-comparison.md");
    } else {
        filter = tr("CSV (*.csv)");
        suggested = base + (what == QLatin1String("csv") ? QStringLiteral("-timeline.csv")
                                                         : QStringLiteral("-comparison.csv"));
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export"), suggested, filter);
    if (path.isEmpty()) return;
    bool ok = false;
    if (what == QLatin1String("timeline"))
        ok = exportTimelinePlot(path);
    else if (what == QLatin1String("tradeoff"))
        ok = exportTradeOffPlot(path);
    else if (what == QLatin1String("csv"))
        ok = exportTimelineCsv(path);
    else
        ok = exportComparison(path, what == QLatin1String("comparison-md"));
    if (ok) showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()));
}

void MainWindow::offerRecovery() {
    recoverLostWork(m_options.interactive);
}

bool MainWindow::recoverLostWork(bool ask) {
    const QString directory = m_autosaver ? m_autosaver->directory()
                                          : m_options.autosaveDirectory;
    for (const OrphanedAutosave& o : Autosaver::findOrphans(directory)) {
        // Read like any file a user hands the app: regular files only, size-limited, never
        // blocking; every parse or validation error is a message, not an exception.
        auto text = readInputFile(toStdString(o.modelPath), "autosave");
        Result<ModelFile> model =
            text ? parseModel(*text, toStdString(o.modelPath)) : Result<ModelFile>(text.error());
        if (!model) {
            setAsideUnreadableAutosave(o, toQString(model.error().message), ask);
            continue;
        }
        const QString what = o.sourcePath.isEmpty()
                                 ? printableText(model->network.name)
                                 : printableText(QFileInfo(o.sourcePath).fileName());
        if (ask) {
            const auto answer = QMessageBox::question(
                this, tr("Recover unsaved work"),
                tr("Remat Studio closed unexpectedly. Recover the unsaved changes to %1 from %2?")
                    .arg(what, QLocale().toString(o.savedAt, QLocale::ShortFormat)),
                QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
            if (answer != QMessageBox::Yes) {
                Autosaver::removeOrphan(o);  // the user's choice
                continue;
            }
        }
        auto st = m_document->recover(*model, o.sourcePath);
        if (!st) {
            setAsideUnreadableAutosave(o, toQString(st.error().message), ask);
            continue;
        }
        // The recovered work is this session's unsaved work now: written at once, so that the
        // old copy can go without a moment in which a second crash would lose it.
        if (m_autosaver) m_autosaver->saveNow();
        Autosaver::removeOrphan(o);
        showMessage(tr("Recovered the unsaved changes to %1.").arg(what));
        return true;
    }
    return false;
}

void MainWindow::setAsideUnreadableAutosave(const OrphanedAutosave& orphan, const QString& reason,
                                            bool dialog) {
    const QString moved = Autosaver::moveAside(orphan);
    const QString why = printableText(reason, kShownMessageChars);
    const QString note =
        moved.isEmpty()
            ? tr("An autosave of unsaved work could not be read, nor moved aside; it stays at "
                 "%1.\n\n%2")
                  .arg(printableText(orphan.modelPath, kShownMessageChars), why)
            : tr("An autosave of unsaved work could not be read. It was kept, not deleted: it "
                 "is now %1.\n\n%2")
                  .arg(printableText(moved, kShownMessageChars), why);
    m_recoveryNotes << note;
    m_lastError = note;
    showMessage(note);
    if (dialog) QMessageBox::warning(this, tr("Unreadable autosave"), note);
}

void MainWindow::prepareForTermination() {
    m_terminating = true;
    if (m_autosaver) m_autosaver->flushForRecovery();
}

void MainWindow::about() {
    QMessageBox::about(
        this, tr("About Remat Studio"),
        tr("<h3>Remat Studio %1</h3>"
           "<p>A lab for activation checkpointing: stack layers, choose what to recompute, and "
           "see the memory and time it costs — predicted by the simulator, confirmed by running "
           "the plan on the CPU or a GPU.</p>")
            .arg(QApplication::applicationVersion()));
}

}  // namespace remat::ui
