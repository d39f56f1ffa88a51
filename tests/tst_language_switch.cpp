// Switching the interface language without a restart (View → Language, MainWindow::setLanguage):
// after English → Simplified Chinese no text on screen (menus and their tooltips, labels,
// buttons, dock and toolbar titles, tabs, combo boxes, table headers, the plots' axis titles,
// legends and labels) is an English string the .ts file translates, and after switching back
// no Chinese is left; the document, its undo stack and their contents are the same objects,
// and so are the selection, the dock layout, the window's size, the step-through's step, the
// open lesson, the other plan, the sweep's settings, a finished run's results, presentation
// mode, expanded blocks and the open windows (Make it fit, layout, user guide); repeated round
// trips leave no widget, action or translator behind. With REMAT_SCREENSHOT_DIR set it saves the window at
// 1280 x 720 before and after the switch there (scripts/screenshots.sh).
#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QStandardPaths>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTableWidget>
#include <QToolBar>
#include <QTranslator>
#include <QTreeView>
#include <QUndoStack>
#include <QXmlStreamReader>
#include <QtTest>

#include "app_settings.h"
#include "device_bar.h"
#include "document.h"
#include "fit_dialog.h"
#include "model_file.h"
#include "language.h"
#include "layout_dialog.h"
#include "layer_stack_view.h"
#include "lesson_panel.h"
#include "main_window.h"
#include "plan_diff_panel.h"
#include "plot_adapter.h"
#include "run_panel.h"
#include "step_through_panel.h"
#include "sweep_panel.h"
#include "ui_test_support.h"

using namespace remat::ui;

namespace {

const QString kTsPath =
    QStringLiteral(REMAT_SOURCE_DIR) + QStringLiteral("/resources/translations/remat_zh_CN.ts");

bool hasHan(const QString& s) {
    for (const QChar c : s)
        if (c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff) return true;
    return false;
}

// The English sources the .ts file translates into something else (finished, non-empty and
// not the source itself), as source → translation.
QHash<QString, QString> translatedSources(QString* error) {
    QHash<QString, QString> out;
    QFile file(kTsPath);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return out;
    }
    QXmlStreamReader xml(&file);
    QString source;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            const bool unfinished =
                !xml.attributes().value(QLatin1String("type")).isEmpty();
            // A numerus message's forms are child elements: not a text shown as it is.
            const QString translation =
                xml.readElementText(QXmlStreamReader::SkipChildElements).trimmed();
            if (!unfinished && !translation.isEmpty() && translation != source)
                out.insert(source, translation);
        }
    }
    if (xml.hasError()) *error = xml.errorString();
    return out;
}

struct Shown {
    QString where;
    QString text;
};

void addMenuTexts(const QList<QAction*>& actions, const QString& where, std::vector<Shown>* out) {
    for (QAction* a : actions) {
        if (a->isSeparator()) continue;
        const QString here = where + QLatin1String(" > ") + a->text();
        out->push_back({here, a->text()});
        out->push_back({here + QLatin1String(" (tooltip)"), a->toolTip()});
        out->push_back({here + QLatin1String(" (status tip)"), a->statusTip()});
        if (QMenu* m = a->menu()) {
            out->push_back({here + QLatin1String(" (title)"), m->title()});
            addMenuTexts(m->actions(), here, out);
        }
    }
}

// Every text a person sees in the window or reaches from its menus.
std::vector<Shown> shownTexts(MainWindow& w) {
    std::vector<Shown> out;
    out.push_back({QStringLiteral("window title"), w.windowTitle()});
    addMenuTexts(w.menuBar()->actions(), QStringLiteral("menu"), &out);
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        out.push_back({QStringLiteral("dock ") + d->objectName(), d->windowTitle()});
    for (QToolBar* t : w.findChildren<QToolBar*>())
        out.push_back({QStringLiteral("toolbar ") + t->objectName(), t->windowTitle()});
    for (QWidget* x : w.findChildren<QWidget*>()) {
        if (!x->isVisible()) continue;
        const QString where = QString::fromLatin1(x->metaObject()->className()) +
                              QLatin1Char(' ') + x->objectName();
        out.push_back({where + QLatin1String(" (tooltip)"), x->toolTip()});
        if (auto* l = qobject_cast<QLabel*>(x)) out.push_back({where, l->text()});
        if (auto* b = qobject_cast<QAbstractButton*>(x)) out.push_back({where, b->text()});
        if (auto* g = qobject_cast<QGroupBox*>(x)) out.push_back({where, g->title()});
        if (auto* e = qobject_cast<QLineEdit*>(x)) out.push_back({where, e->placeholderText()});
        if (auto* c = qobject_cast<QComboBox*>(x))
            for (int i = 0; i < c->count(); ++i) out.push_back({where, c->itemText(i)});
        if (auto* t = qobject_cast<QTabBar*>(x))
            for (int i = 0; i < t->count(); ++i) out.push_back({where, t->tabText(i)});
        if (auto* h = qobject_cast<QHeaderView*>(x); h && h->model())
            for (int i = 0; i < h->count(); ++i) {
                const QVariant v = h->model()->headerData(i, h->orientation(), Qt::DisplayRole);
                if (v.typeId() == QMetaType::QString) out.push_back({where, v.toString()});
                out.push_back(
                    {where + QLatin1String(" (tooltip)"),
                     h->model()->headerData(i, h->orientation(), Qt::ToolTipRole).toString()});
            }
        if (auto* p = qobject_cast<PlotAdapter*>(x))
            for (const QString& s : p->shownTexts()) out.push_back({where, s});
    }
    std::erase_if(out, [](const Shown& s) { return s.text.trimmed().isEmpty(); });
    return out;
}

QAction* languageAction(MainWindow& w, const QString& code) {
    auto* menu = w.findChild<QMenu*>(QStringLiteral("languageMenu"));
    if (!menu) return nullptr;
    for (QAction* a : menu->actions())
        if (a->data().toString() == code) return a;
    return nullptr;
}

// Chooses a language from View → Language, as a person does, and waits for the window to be
// rebuilt in it.
bool chooseLanguage(MainWindow& w, const QString& code, const QString& menuTitle) {
    QAction* a = languageAction(w, code);
    if (!a) return false;
    a->trigger();
    const auto rebuilt = [&] {
        return w.menuBar()->actions().value(0) &&
               w.menuBar()->actions().value(0)->text() == menuTitle;
    };
    const bool ok = QTest::qWaitFor(rebuilt, 5000);
    QTest::qWait(50);  // the dock layout is restored once more after the first layout
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    return ok;
}

struct Dock {
    QString name;
    bool visible;
    Qt::DockWidgetArea area;
    QRect geometry;  // of a dock on screen (not a tab behind another)
    bool operator==(const Dock&) const = default;
};

// The docks; `heights` false leaves out their tops and heights, which follow the toolbars'
// and the panels' text heights (Chinese glyphs are a pixel or so taller).
std::vector<Dock> docks(MainWindow& w, bool heights = true) {
    std::vector<Dock> out;
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
        QRect g = d->visibleRegion().isEmpty() ? QRect() : d->geometry();
        if (!heights && g.isValid()) g = QRect(g.x(), 0, g.width(), 1);
        out.push_back({d->objectName(), d->isVisible(), w.dockWidgetArea(d), g});
    }
    std::sort(out.begin(), out.end(), [](const Dock& a, const Dock& b) { return a.name < b.name; });
    return out;
}

QString describe(const std::vector<Dock>& docks) {
    QStringList out;
    for (const Dock& d : docks)
        out << QStringLiteral("%1 %2 %3 %4,%5 %6x%7")
                   .arg(d.name)
                   .arg(d.visible)
                   .arg(int(d.area))
                   .arg(d.geometry.x())
                   .arg(d.geometry.y())
                   .arg(d.geometry.width())
                   .arg(d.geometry.height());
    return out.join(QLatin1String("; "));
}

QStringList undoTexts(QUndoStack* s) {
    QStringList out;
    for (int i = 0; i < s->count(); ++i) out << s->text(i);
    return out;
}

void saveScreenshot(MainWindow& w, const QString& name) {
    const QString dir = qEnvironmentVariable("REMAT_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(QDir(dir).filePath(name)));
}

}  // namespace

class TstLanguageSwitch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        AppSettings().setLanguage(QString());
        QVERIFY(!installTranslators(*qApp, QStringLiteral("en")));
    }
    // Each test starts in English, whatever an earlier one left.
    void init() {
        AppSettings().setLanguage(QString());
        installTranslators(*qApp, QStringLiteral("en"));
    }
    void cleanupTestCase() { installTranslators(*qApp, QStringLiteral("en")); }
    void everyShownTextFollowsTheLanguage();
    void documentAndViewStateSurvive();
    void finishedRunSurvives();
    void windowsAndModesSurvive();
    void roundTripLeavesNothingBehind();
};

void TstLanguageSwitch::everyShownTextFollowsTheLanguage() {
    QString error;
    const QHash<QString, QString> translated = translatedSources(&error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(translated.size() > 500);

    MainWindow w(remat::test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    QVERIFY(remat::test::showAt(w, QSize(1280, 720)));
    // The step-through and the two plans on screen too, with their plots and tables.
    w.stepThroughDock()->raise();
    w.planDiffDock()->raise();
    w.planDiff()->setOtherStrategy(QStringLiteral("none"));
    QTRY_VERIFY_WITH_TIMEOUT(w.planDiff()->hasResult() && !w.planDiff()->isBusy(), 30000);
    saveScreenshot(w, QStringLiteral("language-switch-before.png"));
    // English to start with: the check below would see nothing to flag in an untranslated UI
    // only if the English strings were missing from it.
    int english = 0;
    for (const Shown& s : shownTexts(w)) english += translated.contains(s.text) ? 1 : 0;
    QVERIFY2(english > 100, qPrintable(QString::number(english)));

    QVERIFY(chooseLanguage(w, QStringLiteral("zh_CN"), QString::fromUtf8("文件(&F)")));
    QCOMPARE(AppSettings().language(), QStringLiteral("zh_CN"));
    QVERIFY(languageAction(w, QStringLiteral("zh_CN"))->isChecked());
    QTRY_VERIFY_WITH_TIMEOUT(w.planDiff()->hasResult() && !w.planDiff()->isBusy(), 30000);
    QStringList untranslated;
    int chinese = 0;
    for (const Shown& s : shownTexts(w)) {
        if (translated.contains(s.text)) untranslated << s.where + QLatin1String(": ") + s.text;
        chinese += hasHan(s.text) ? 1 : 0;
    }
    untranslated.removeDuplicates();
    QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(QLatin1Char('\n'))));
    QVERIFY(chinese > 100);
    saveScreenshot(w, QStringLiteral("language-switch-after.png"));

    QVERIFY(chooseLanguage(w, QStringLiteral("en"), QStringLiteral("&File")));
    QTRY_VERIFY_WITH_TIMEOUT(w.planDiff()->hasResult() && !w.planDiff()->isBusy(), 30000);
    QStringList leftChinese;
    for (const Shown& s : shownTexts(w))
        // The languages' own names are the same in every language.
        if (hasHan(s.text) && s.text != QString::fromUtf8("简体中文"))
            leftChinese << s.where + QLatin1String(": ") + s.text;
    leftChinese.removeDuplicates();
    QVERIFY2(leftChinese.isEmpty(), qPrintable(leftChinese.join(QLatin1Char('\n'))));
}

void TstLanguageSwitch::documentAndViewStateSurvive() {
    MainWindow w(remat::test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    QVERIFY(remat::test::showAt(w, QSize(1280, 720)));
    // A lesson opened and revealed (it sets the model up), then edits of the user's own.
    LessonPanel* lessons = w.lessons();
    w.lessonDock()->raise();
    QVERIFY(lessons->showStep(1, 1));
    lessons->choose(0);
    QVERIFY(lessons->reveal());
    QVERIFY(w.document()->setStrategy(QStringLiteral("every:3")));
    QVERIFY(w.document()->setMicroBatch(2));
    w.layerStack()->selectEntry(2);
    w.stepThroughDock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(w.stepThrough()->stepCount() > 0, 30000);
    w.stepThrough()->goToPeak();
    w.planDiff()->setOtherStrategy(QStringLiteral("full"));
    w.sweepPanel()->measureCombo()->setCurrentIndex(2);
    w.sweepPanel()->valuesEdit()->setText(QStringLiteral("2,4,8"));
    w.lessonDock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(!w.document()->isBusy(), 30000);

    Document* document = w.document();
    QUndoStack* undo = document->undoStack();
    const remat::ModelFile model = document->model();
    const QString strategy = document->strategySpelling();
    const int undoCount = undo->count(), undoIndex = undo->index();
    const QStringList history = undoTexts(undo);
    const std::vector<std::size_t> selected = w.layerStack()->selectedEntries();
    const int current = w.layerStack()->currentEntry();
    const std::size_t instruction = w.stepThrough()->currentInstruction();
    const LessonPanel::Place place = lessons->place();
    const QString revealEnglish = lessons->revealText();
    const auto layoutAcross = docks(w, false);
    const QSize size = w.size();
    QVERIFY(!selected.empty());
    QVERIFY(instruction != StepThroughPanel::npos);
    QVERIFY(lessons->revealed());

    QVERIFY(chooseLanguage(w, QStringLiteral("zh_CN"), QString::fromUtf8("文件(&F)")));
    QCOMPARE(w.document(), document);
    QCOMPARE(w.document()->undoStack(), undo);
    QVERIFY(w.document()->model() == model);
    QCOMPARE(w.document()->strategySpelling(), strategy);
    QCOMPARE(undo->count(), undoCount);
    QCOMPARE(undo->index(), undoIndex);
    QCOMPARE(undoTexts(undo), history);
    QCOMPARE(w.layerStack()->selectedEntries(), selected);
    QCOMPARE(w.layerStack()->currentEntry(), current);
    QCOMPARE(w.size(), size);
    QVERIFY2(docks(w, false) == layoutAcross,
             qPrintable(describe(docks(w, false)) + QLatin1String(" != ") + describe(layoutAcross)));
    QTRY_VERIFY_WITH_TIMEOUT(w.stepThrough()->stepCount() > 0, 30000);
    QCOMPARE(w.stepThrough()->currentInstruction(), instruction);
    QCOMPARE(w.planDiff()->otherStrategy(), QStringLiteral("full"));
    QCOMPARE(w.sweepPanel()->measureCombo()->currentIndex(), 2);
    QCOMPARE(w.sweepPanel()->valuesEdit()->text(), QStringLiteral("2,4,8"));
    // The lesson where it was, answered, its text now in Chinese with the same figures.
    LessonPanel* lessonsZh = w.lessons();
    QCOMPARE(lessonsZh->currentLesson(), place.lesson);
    QCOMPARE(lessonsZh->currentStep(), place.step);
    QCOMPARE(lessonsZh->place().choice, place.choice);
    QVERIFY(lessonsZh->revealed());
    QCOMPARE(lessonsZh->language(), QStringLiteral("zh_CN"));
    QVERIFY2(hasHan(lessonsZh->revealText()), qPrintable(lessonsZh->revealText()));

    // The undo history still works on the same document.
    QVERIFY(undo->canUndo());
    undo->undo();
    QCOMPARE(undo->index(), undoIndex - 1);
    QVERIFY(!(w.document()->model() == model));
    undo->redo();
    QVERIFY(w.document()->model() == model);

    QVERIFY(chooseLanguage(w, QStringLiteral("en"), QStringLiteral("&File")));
    QCOMPARE(w.document(), document);
    QCOMPARE(w.lessons()->language(), QStringLiteral("en"));
    QCOMPARE(w.lessons()->revealText(), revealEnglish);
    QCOMPARE(w.layerStack()->selectedEntries(), selected);
    QVERIFY2(docks(w, false) == layoutAcross,
             qPrintable(describe(docks(w, false)) + QLatin1String(" != ") + describe(layoutAcross)));
    QCOMPARE(w.size(), size);
}

void TstLanguageSwitch::finishedRunSurvives() {
    MainWindow w(remat::test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("mlp-3x1024")));
    QVERIFY(remat::test::showAt(w, QSize(1280, 720)));
    RunPanel* run = w.runPanel();
    QVERIFY(run->start(QStringLiteral("cpu")));
    QTRY_VERIFY_WITH_TIMEOUT(!run->isRunning(), 120000);
    QVERIFY2(run->lastOutcome() && run->lastOutcome()->ok, qPrintable(run->statusText()));
    const std::int64_t peak = run->lastOutcome()->peakBytes;
    const int rows = run->resultsTable()->rowCount();
    QVERIFY(rows > 0);

    QVERIFY(chooseLanguage(w, QStringLiteral("zh_CN"), QString::fromUtf8("文件(&F)")));
    QVERIFY(w.runPanel() != run || w.runPanel()->lastOutcome());
    QVERIFY(w.runPanel()->lastOutcome().has_value());
    QCOMPARE(w.runPanel()->lastOutcome()->peakBytes, peak);
    QCOMPARE(w.runPanel()->resultsTable()->rowCount(), rows);
    QVERIFY2(hasHan(w.runPanel()->statusText()), qPrintable(w.runPanel()->statusText()));
    QVERIFY(chooseLanguage(w, QStringLiteral("en"), QStringLiteral("&File")));
}

void TstLanguageSwitch::windowsAndModesSurvive() {
    MainWindow w(remat::test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    QVERIFY(remat::test::showAt(w, QSize(1280, 720)));
    // A block expanded in the stack, presentation mode, Make it fit with an input changed, the
    // user guide open.
    QTreeView* tree = w.layerStack()->tree();
    QModelIndex block;
    for (int r = 0; r < tree->model()->rowCount() && !block.isValid(); ++r)
        if (tree->model()->hasChildren(tree->model()->index(r, 0)))
            block = tree->model()->index(r, 0);
    QVERIFY(block.isValid());
    tree->expand(block);
    const int blockRow = block.row();
    w.setPresentationMode(true);
    const double pointSize = w.font().pointSizeF();
    FitDialog* fit = w.showFitDialog();
    fit->globalBatchBox()->setValue(96);
    fit->start();
    QTRY_VERIFY_WITH_TIMEOUT(!fit->isRunning(), 60000);
    QVERIFY(fit->result().has_value());
    const int fitRows = fit->table()->rowCount();
    QVERIFY(fitRows > 0);
    w.showHelpPage(QStringLiteral("user-guide"));
    QVERIFY(w.findChild<QDialog*>(QStringLiteral("userGuide")));
    w.deviceBar()->layoutButton()->click();
    QVERIFY(w.deviceBar()->layoutButton()->dialog()->isVisible());

    QVERIFY(chooseLanguage(w, QStringLiteral("zh_CN"), QString::fromUtf8("文件(&F)")));
    QVERIFY(w.presentationMode());
    QCOMPARE(w.font().pointSizeF(), pointSize);
    QVERIFY(!w.statusBar()->isVisible());
    QVERIFY(!w.findChild<QDockWidget*>(QStringLiteral("paletteDock"))->isVisible());
    QVERIFY(!w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"))->isVisible());
    tree = w.layerStack()->tree();
    QVERIFY(tree->isExpanded(tree->model()->index(blockRow, 0)));
    auto* fitZh = w.findChild<FitDialog*>();
    QVERIFY(fitZh && fitZh->isVisible());
    QCOMPARE(fitZh->globalBatchBox()->value(), 96);
    QVERIFY2(hasHan(fitZh->windowTitle()), qPrintable(fitZh->windowTitle()));
    // Its search made again, its answer in the new language.
    QTRY_VERIFY_WITH_TIMEOUT(!fitZh->isRunning() && fitZh->result().has_value(), 60000);
    QCOMPARE(fitZh->table()->rowCount(), fitRows);
    QVERIFY2(hasHan(fitZh->messageText()), qPrintable(fitZh->messageText()));
    const auto guides = w.findChildren<QDialog*>(QStringLiteral("userGuide"));
    QCOMPARE(guides.size(), 1);
    QVERIFY(guides.front()->isVisible());
    QVERIFY2(hasHan(guides.front()->windowTitle()), qPrintable(guides.front()->windowTitle()));

    LayoutDialog* layout = w.deviceBar()->layoutButton()->dialog();
    QVERIFY(layout->isVisible());
    QVERIFY2(hasHan(layout->windowTitle()), qPrintable(layout->windowTitle()));

    // Leaving presentation mode shows what it hid, in the rebuilt window.
    w.setPresentationMode(false);
    QVERIFY(w.statusBar()->isVisible());
    QVERIFY(w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"))->isVisible() ||
            w.findChild<QDockWidget*>(QStringLiteral("paletteDock"))->isVisible());
}

void TstLanguageSwitch::roundTripLeavesNothingBehind() {
    MainWindow w(remat::test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    QVERIFY(remat::test::showAt(w, QSize(1280, 720)));
    const auto settle = [] {
        QTest::qWait(100);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    };
    // One round trip first: Qt's main window layout keeps the tab bars of docks it no longer
    // shows for reuse, a fixed number.
    QVERIFY(chooseLanguage(w, QStringLiteral("zh_CN"), QString::fromUtf8("文件(&F)")));
    QVERIFY(chooseLanguage(w, QStringLiteral("en"), QStringLiteral("&File")));
    settle();
    const qsizetype widgets = w.findChildren<QWidget*>().size();
    // Not every QObject: the plots' items follow background results that may still be coming.
    const qsizetype actions = w.findChildren<QAction*>().size();
    const qsizetype groups = w.findChildren<QActionGroup*>().size();
    const qsizetype topLevel = QApplication::topLevelWidgets().size();
    for (int i = 0; i < 3; ++i) {
        QVERIFY(chooseLanguage(w, QStringLiteral("zh_CN"), QString::fromUtf8("文件(&F)")));
        QVERIFY(chooseLanguage(w, QStringLiteral("en"), QStringLiteral("&File")));
    }
    settle();
    QCOMPARE(w.findChildren<QWidget*>().size(), widgets);
    QCOMPARE(w.findChildren<QAction*>().size(), actions);
    QCOMPARE(w.findChildren<QActionGroup*>().size(), groups);
    QCOMPARE(QApplication::topLevelWidgets().size(), topLevel);
    // One translator of ours and Qt's at most, however often the language changed.
    QVERIFY(qApp->findChildren<QTranslator*>().size() <= 2);
}

QTEST_MAIN(TstLanguageSwitch)
#include "tst_language_switch.moc"
