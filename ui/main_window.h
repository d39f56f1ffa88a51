// Remat Studio's one screen: the layer stack (with palette and inspector) on the left, the
// memory timeline in the centre, the summary, comparison, run, sweep, step-through and schedule
// panels and two plans side by side around it, and the
// strategy bar on top. It wires the document to every view (each edit redraws the timeline and
// summary; the comparison recomputes in the background, and so does an expensive edit, with
// its progress and a Cancel button in the status bar), owns the menus and
// shortcuts, and handles files: open, save, recent files, presets, drag-and-drop, exports,
// autosave and crash recovery, and the settings kept between sessions.
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <memory>
#include <utility>
#include <vector>

#include "report.h"
#include "slide_export.h"
#include "theme.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;

namespace remat {
struct MemorySnapshot;
}

namespace remat::ui {

class Autosaver;
struct OrphanedAutosave;
class ComparisonPanel;
class Document;
class EvaluationProgress;
struct DocumentState;
class Inspector;
class LayerStackView;
class Palette;
class RunPanel;
class StrategyBar;
class SweepPanel;
class DeviceBar;
class FitDialog;
class SummaryPanel;
class TimelinePlot;
class StepThroughPanel;
class ScheduleGridView;
class PlanDiffPanel;
class LessonPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        // Dialogs (errors, save prompts, recovery) need a person; tests and the screenshot
        // mode turn them off: errors then go to the status bar and lastError().
        bool interactive = true;
        bool autosave = true;
        bool restoreSettings = true;
        // Where autosaves go and are looked for; empty: Autosaver::defaultDirectory().
        QString autosaveDirectory;
    };

    explicit MainWindow(QWidget* parent = nullptr);
    explicit MainWindow(const Options& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_document; }
    LayerStackView* layerStack() const { return m_layerStack; }
    TimelinePlot* timeline() const { return m_timeline; }
    StrategyBar* strategyBar() const { return m_strategyBar; }
    DeviceBar* deviceBar() const { return m_deviceBar; }
    Inspector* inspector() const { return m_inspector; }
    SummaryPanel* summary() const { return m_summary; }
    ComparisonPanel* comparison() const { return m_comparison; }
    RunPanel* runPanel() const { return m_runPanel; }
    SweepPanel* sweepPanel() const { return m_sweep; }
    // Tools → Make it fit…: the fit search's dialog, made on first use and shown.
    FitDialog* showFitDialog();
    StepThroughPanel* stepThrough() const { return m_stepThrough; }
    ScheduleGridView* scheduleGrid() const { return m_schedule; }
    QDockWidget* stepThroughDock() const { return m_stepDock; }
    QDockWidget* scheduleDock() const { return m_scheduleDock; }
    PlanDiffPanel* planDiff() const { return m_planDiff; }
    QDockWidget* planDiffDock() const { return m_planDiffDock; }
    LessonPanel* lessons() const { return m_lessons; }
    QDockWidget* lessonDock() const { return m_lessonDock; }
    // Help → User guide / Glossary: the embedded page in a window of its own.
    void showHelpPage(const QString& which);
    Autosaver* autosaver() const { return m_autosaver.get(); }

    // A file path or a preset name. On failure the current model stays and the error (naming
    // the file and the JSON path) is shown; returns whether it opened, or (a large model, see
    // Document::open) is being opened in the background.
    bool openModel(const QString& pathOrPreset);
    // A Hugging Face config.json (or a checkpoint folder holding one) imported as a new unsaved
    // document (docs/import.md). On failure the current model stays and the error is shown.
    bool importHfConfig(const QString& path);
    bool saveTo(const QString& path);
    QString lastError() const { return m_lastError; }
    // File -> Compare with a PyTorch snapshot: reads a torch.cuda.memory._dump_snapshot pickle
    // and lays its allocated and reserved bytes over the timeline, aligned by phase
    // (sim/memory_snapshot.h), again after every edit until cleared. False with lastError() set
    // when the file cannot be read.
    bool compareWithSnapshot(const QString& path);
    void clearSnapshotComparison();
    // Milliseconds the last edit took end to end: evaluation plus redrawing the timeline and
    // the summary.
    double lastUpdateMs() const { return m_lastUpdateMs; }
    // The same in CPU time of the GUI thread: what the update costs without other load.
    double lastUpdateCpuMs() const { return m_lastUpdateCpuMs; }

    // Exports (by extension for plots: .png, .svg, .pdf). Return false with lastError() set.
    bool exportTimelinePlot(const QString& path);
    bool exportTimelineCsv(const QString& path);
    bool exportTradeOffPlot(const QString& path);
    bool exportComparison(const QString& path, bool markdown);
    // A picture for a slide (File → Export → For slides…): `key` is one of slidePictures()'
    // keys (timeline, tradeoff, sweep, schedule, two-plans); `options` as ui/slide_export.h.
    bool exportForSlides(const QString& key, const QString& path, const SlideOptions& options);
    // The pictures the slide export offers, as (key, name) pairs.
    std::vector<std::pair<QString, QString>> slidePictures() const;

    void setUnits(ByteUnits units);
    void setTheme(Theme theme);
    // Switches the user interface to language `code` ("en", "zh_CN"; empty: the system's) at
    // once (View → Language): installs its translators (ui/language.h) and rebuilds the menus,
    // toolbars, docks and their views over the same document, undo history included, keeping
    // the selection, the dock layout, the step-through's step, the open lesson, the other plan,
    // the sweep's settings and a finished run's results (main_window_language.cpp).
    void setLanguage(const QString& code);
    // Presentation mode (View → Presentation mode, Ctrl+Shift+P): fonts, lines and markers
    // kPresentationScale times larger (the summary dock widened to match), and the chrome a lecture does not need hidden (the
    // palette and inspector docks, the status bar); leaving it restores what was shown.
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presentation; }
    static constexpr double kPresentationScale = 1.3;
    // Offers to recover work an earlier session lost in a crash (asks the user when the window
    // is interactive).
    void offerRecovery();
    // Recovers the newest work an earlier session left behind, asking first when `ask`; returns
    // whether a model was recovered. The recovered work is autosaved again at once. Autosaves
    // that cannot be read are moved aside (Autosaver::moveAside) and the user is told where, in
    // a message box (interactive) and the status bar; recoveryNotes() lists those messages.
    bool recoverLostWork(bool ask);
    QStringList recoveryNotes() const { return m_recoveryNotes; }
    // The process is being terminated (SIGTERM): writes the unsaved work to the autosave and
    // keeps it for the next start; closing then neither asks nor discards it.
    void prepareForTermination();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildViews();
    void buildDocks();
    // Deletes the views, docks, toolbars and menus and builds them again in the current
    // language, carrying over what they showed beyond the document (setLanguage); the lesson is
    // shown in `lessonLanguage`.
    void rebuildViews(const QString& lessonLanguage);
    // 1600 x 1000, or the screen's available size where that is smaller (a projector).
    QSize defaultSize() const;
    // Sizes the docks as shares of the window's size, each within what its panel needs.
    void fitDocksToWindow();
    void buildActions();
    void buildMenus();
    void connectDocument();
    void onDocumentChanged();
    void onOpened();
    void updateTitle();
    void updateEditActions();
    void showError(const QString& title, const QString& message);
    void showMessage(const QString& message);
    void setAsideUnreadableAutosave(const OrphanedAutosave& orphan, const QString& reason,
                                    bool dialog);
    bool maybeSave();
    void newModel();
    void openDialog();
    void importHfDialog();
    void compareSnapshotDialog();
    void applySnapshotOverlay();
    bool save();
    bool saveAsDialog();
    void rebuildRecentMenu();
    void addLayerFromPalette(int kind);
    void moveSelected(int delta);
    void exportDialog(const QString& what);
    void exportForSlidesDialog();
    void about();
    // The step-through indexes the program only while it or the schedule grid is shown.
    void updateStepThroughActive();
    void showStepInstruction(qint64 index);

    Options m_options;
    Document* m_document = nullptr;
    LayerStackView* m_layerStack = nullptr;
    Palette* m_palette = nullptr;
    Inspector* m_inspector = nullptr;
    StrategyBar* m_strategyBar = nullptr;
    bool m_docksFitted = false;  // the docks were sized to the shown window (or restored)
    QSize m_fittedSize;          // the window size the docks were last sized for
    DeviceBar* m_deviceBar = nullptr;
    TimelinePlot* m_timeline = nullptr;
    SummaryPanel* m_summary = nullptr;
    ComparisonPanel* m_comparison = nullptr;
    RunPanel* m_runPanel = nullptr;
    SweepPanel* m_sweep = nullptr;
    StepThroughPanel* m_stepThrough = nullptr;
    ScheduleGridView* m_schedule = nullptr;
    PlanDiffPanel* m_planDiff = nullptr;
    LessonPanel* m_lessons = nullptr;
    QDockWidget* m_lessonDock = nullptr;
    std::unique_ptr<Autosaver> m_autosaver;

    QDockWidget* m_stackDock = nullptr;
    QDockWidget* m_paletteDock = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    QDockWidget* m_summaryDock = nullptr;
    QDockWidget* m_comparisonDock = nullptr;
    QDockWidget* m_runDock = nullptr;
    QDockWidget* m_sweepDock = nullptr;
    FitDialog* m_fitDialog = nullptr;
    QDockWidget* m_stepDock = nullptr;
    QDockWidget* m_scheduleDock = nullptr;
    QDockWidget* m_planDiffDock = nullptr;
    bool m_stepDockShown = false;
    bool m_scheduleDockShown = false;
    QLabel* m_timingLabel = nullptr;
    EvaluationProgress* m_evaluationProgress = nullptr;

    QMenu* m_recentMenu = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_duplicateAction = nullptr;
    QAction* m_deleteAction = nullptr;
    QAction* m_moveUpAction = nullptr;
    QAction* m_moveDownAction = nullptr;
    QAction* m_instructionAxis = nullptr;
    QAction* m_timeAxis = nullptr;
    QAction* m_gibUnits = nullptr;
    QAction* m_gbUnits = nullptr;
    QAction* m_lightTheme = nullptr;
    QAction* m_darkTheme = nullptr;
    QAction* m_presentationAction = nullptr;
    bool m_presentation = false;
    std::vector<QWidget*> m_hiddenForPresentation;

    ByteUnits m_units = ByteUnits::Binary;
    QString m_lastError;
    QStringList m_recoveryNotes;
    bool m_terminating = false;
    std::shared_ptr<const DocumentState> m_shownState;  // what the views show
    std::shared_ptr<const MemorySnapshot> m_snapshot;   // the PyTorch snapshot compared with
    QString m_snapshotName;
    double m_lastUpdateMs = 0.0;
    double m_lastUpdateCpuMs = 0.0;
};

}  // namespace remat::ui
