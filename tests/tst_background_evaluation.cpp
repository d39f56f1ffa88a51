// Expensive edits are evaluated in the background (ui/document.h): the edit call returns to the
// event loop before its result exists, the document says it is busy, and the result is then
// accepted exactly as a cheap edit's (undo stack, changed()). A newer edit supersedes the one in
// flight, Cancel returns to the last accepted state with the undo stack as it was, a failing
// expensive edit is refused with its message, undo and redo of expensive states work the same
// way, opening a large model too, and the budget slider on a long chain plans only its latest
// position. Cheap edits still apply within the call. In the main window a progress strip with
// a Cancel button shows while the work runs (a screenshot goes to REMAT_SCREENSHOT_DIR when set).
// The expensive edits are deep recomputes — revolve with few checkpoints — on GPT-2 tiny with
// many blocks (accumulation steps no longer make a program large: the compiler writes at most
// three micro-steps, docs/architecture.md), and which of them are expensive comes from the
// document's own estimate: nothing here depends on how fast the machine is.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QtTest>

#include "budget_slider.h"
#include "comparison_panel.h"
#include "deep_model.h"
#include "document.h"
#include "evaluation_progress.h"
#include "main_window.h"
#include "model_file.h"
#include "plot_adapter.h"
#include "strategy.h"
#include "strategy_bar.h"
#include "timeline_plot.h"
#include "timeline_series.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

constexpr int kWaitMs = 120000;  // for results under sanitizers on a loaded machine

// The model the expensive scenarios edit: GPT-2 tiny (small enough to fit any device, so that
// the screenshot shows a plan that fits) with 800 layer instances. Lowering it is expensive
// (opening it runs in the background), its plans `none` and `full` are cheap, and a deep
// recompute on it — revolve with few checkpoints, a forward op run again up to a dozen times —
// makes a program of about half a million instructions; `revolve:1` would make one of over 14
// million, more than the compiler builds (kMaxProgramInstructions).
ModelFile deepModel() {
    return remat::test::presetWithInstances(800, "gpt2-tiny");
}

// `model` planned with `spelling`, as Document::setStrategy stores a strategy.
ModelFile withStrategy(ModelFile model, const QString& spelling) {
    for (Layer& l : model.network.layers) l.checkpoint = false;
    model.regions.clear();
    model.planForm = PlanForm::Strategy;
    model.planStrategy = spelling.toStdString();
    return model;
}

QString revolve(int checkpoints) {
    return QStringLiteral("revolve:%1").arg(checkpoints);
}

// The most checkpoints C (up to 64) for which plan revolve:C of `model` is expensive by the
// document's estimate: of the revolve plans the document evaluates in the background, the one
// with the least work (revolve:C+1 is cheap). 0 when none is expensive.
int expensiveCheckpoints(const Document& doc, const ModelFile& model) {
    for (int c = 64; c >= 1; --c)
        if (doc.estimate(withStrategy(model, revolve(c))).work != EvaluationWork::Cheap) return c;
    return 0;
}

// Opens deepModel() in `doc` and returns the checkpoints C of its cheapest expensive
// revolve plan; 0 when opening failed or no revolve plan is expensive. At least 2, so that
// revolve:C-1, deeper still, is a second expensive edit.
int openDeepModel(Document& doc) {
    if (!doc.openModel(deepModel(), QString()).ok() || !doc.waitUntilIdle().ok()) return 0;
    const int c = expensiveCheckpoints(doc, doc.model());
    return c >= 2 ? c : 0;
}

}  // namespace

class TstBackgroundEvaluation : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void cheapEditsApplyWithinTheCall() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("gpt2-small")).ok());
        QSignalSpy busy(&doc, &Document::busyChanged);
        QVERIFY(doc.setStrategy(QStringLiteral("every:3")).ok());
        QVERIFY(!doc.isBusy());
        QCOMPARE(doc.strategySpelling(), QStringLiteral("every:3"));
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(busy.count(), 0);
    }

    void expensiveEditReturnsFirstThenApplies() {
        Document doc;
        const int c = openDeepModel(doc);
        QVERIFY(c >= 2);
        bool timerFired = false, firedWhileBusy = false, changedBeforeTimer = false;
        int changes = 0;
        connect(&doc, &Document::changed, this, [&] {
            ++changes;
            if (!timerFired) changedBeforeTimer = true;
        });
        QTimer::singleShot(0, this, [&] {
            timerFired = true;
            firedWhileBusy = doc.isBusy();
        });
        QVERIFY(doc.setStrategy(revolve(c)).ok());
        // Not accepted yet: busy, the model and the history as they were.
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.busyWork(), EvaluationWork::Simulating);
        QVERIFY(!doc.busyText().isEmpty());
        QCOMPARE(doc.strategySpelling(), QStringLiteral("none"));
        QCOMPARE(doc.undoStack()->count(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QVERIFY(timerFired);
        QVERIFY(firedWhileBusy);
        QVERIFY(!changedBeforeTimer);
        QCOMPARE(changes, 1);
        QCOMPARE(doc.strategySpelling(), revolve(c));
        QCOMPARE(QString::fromStdString(doc.evaluation().strategy.spelling()), revolve(c));
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY(doc.isModified());

        // Undo to the cheap state is immediate; redo evaluates in the background again.
        doc.undoStack()->undo();
        QVERIFY(!doc.isBusy());
        QCOMPARE(doc.strategySpelling(), QStringLiteral("none"));
        doc.undoStack()->redo();
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.strategySpelling(), QStringLiteral("none"));
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(doc.strategySpelling(), revolve(c));
        QCOMPARE(doc.undoStack()->index(), 1);
    }

    void newerEditSupersedes() {
        Document doc;
        const int c = openDeepModel(doc);
        QVERIFY(c >= 2);
        QSignalSpy changed(&doc, &Document::changed);

        // A cheap edit supersedes: it applies at once, from the accepted state.
        QVERIFY(doc.setStrategy(revolve(c)).ok());
        QVERIFY(doc.isBusy());
        QVERIFY(doc.setOptimizer(Optimizer::Sgd).ok());
        QVERIFY(!doc.isBusy());
        QCOMPARE(doc.model().training.optimizer, Optimizer::Sgd);
        QCOMPARE(doc.strategySpelling(), QStringLiteral("none"));
        QCOMPARE(changed.count(), 1);

        // A newer expensive edit supersedes the one in flight, whose result is never shown.
        QVERIFY(doc.setStrategy(revolve(c)).ok());
        QVERIFY(doc.setStrategy(revolve(c - 1)).ok());
        QVERIFY(doc.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(doc.strategySpelling(), revolve(c - 1));
        QCOMPARE(doc.model().training.optimizer, Optimizer::Sgd);
        // Evaluations run one at a time: the dropped ones ended before this one was applied.
        QCOMPARE(changed.count(), 2);
        QCOMPARE(doc.undoStack()->count(), 2);
    }

    void cancelRestoresTheAcceptedState() {
        Document doc;
        const int c = openDeepModel(doc);
        QVERIFY(c >= 2);
        QVERIFY(doc.setStrategy(QStringLiteral("full")).ok());
        QVERIFY(!doc.isBusy());
        const ModelFile accepted = doc.model();
        QSignalSpy changed(&doc, &Document::changed);
        QSignalSpy busy(&doc, &Document::busyChanged);
        QVERIFY(doc.setStrategy(revolve(c)).ok());
        QVERIFY(doc.isBusy());
        doc.cancelEvaluation();
        QVERIFY(!doc.isBusy());
        QCOMPARE(busy.count(), 2);
        QCOMPARE(busy.at(1).at(0).toBool(), false);
        QVERIFY(doc.model() == accepted);
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Strategy full"));
        // The cancelled result never lands: a later evaluation (they run one at a time) ends
        // after it.
        QVERIFY(doc.setStrategy(revolve(c - 1)).ok());
        QVERIFY(doc.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(doc.strategySpelling(), revolve(c - 1));
        QCOMPARE(changed.count(), 1);

        // An undo or redo in flight is taken back on the undo stack.
        QVERIFY(doc.setStrategy(QStringLiteral("full")).ok());  // cheap
        QVERIFY(!doc.isBusy());
        QVERIFY(doc.setStrategy(revolve(c)).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        const int index = doc.undoStack()->index();
        const ModelFile expensive = doc.model();
        doc.undoStack()->undo();  // to a cheap state: immediate
        QVERIFY(!doc.isBusy());
        QCOMPARE(doc.strategySpelling(), QStringLiteral("full"));
        doc.undoStack()->redo();  // to the expensive one: in the background
        QVERIFY(doc.isBusy());
        doc.cancelEvaluation();
        QCOMPARE(doc.undoStack()->index(), index - 1);
        QVERIFY(doc.undoStack()->canRedo());
        QCOMPARE(doc.strategySpelling(), QStringLiteral("full"));
        doc.undoStack()->redo();
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QVERIFY(doc.model() == expensive);
        QCOMPARE(doc.undoStack()->index(), index);
    }

    void failingExpensiveEditIsRefused() {
        Document doc;
        QVERIFY(openDeepModel(doc) >= 2);
        const ModelFile accepted = doc.model();
        QSignalSpy rejected(&doc, &Document::editRejected);
        QSignalSpy changed(&doc, &Document::changed);
        // Far over the largest program: the compiler refuses it with the instruction count.
        QVERIFY(doc.setStrategy(revolve(1)).ok());
        QVERIFY(doc.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(rejected.count(), 1);
        const QString message = rejected.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("plan 'revolve:1' would compile to about")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("instructions")), qPrintable(message));
        QVERIFY(doc.model() == accepted);
        QCOMPARE(doc.undoStack()->count(), 0);
        QCOMPARE(changed.count(), 0);
    }

    // An optimal plan whose search would be too large (docs/reliability.md, "Limits") is
    // refused on the worker with the planner's estimate; the model and the history stay.
    void tooLargeOptimalSearchIsRefusedWithTheEstimate() {
        Document doc;
        QVERIFY(doc.openModel(remat::test::presetWithInstances(2000, "gpt2-tiny"), QString()).ok());
        QVERIFY(doc.waitUntilIdle().ok());
        const ModelFile accepted = doc.model();
        QSignalSpy rejected(&doc, &Document::editRejected);
        // 10 GiB lies between the smallest reachable peak (5.91 GiB) and no checkpointing
        // (16.88 GiB): a search is needed.
        QVERIFY(doc.setStrategy(QStringLiteral("optimal:10GiB")).ok());
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.busyWork(), EvaluationWork::Planning);
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(rejected.count(), 1);
        const QString message = rejected.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral(
                     "optimal: a chain of 1998 units with 1995004 segment choices needs a search "
                     "of about 3986017992 steps (units x choices); the largest search supported "
                     "has 300000000")),
                 qPrintable(message));
        QVERIFY(doc.model() == accepted);
        QCOMPARE(doc.undoStack()->count(), 0);
    }

    void largeModelOpensInTheBackground() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("mlp-3x1024")).ok());
        // Too many layer instances to lower within the call (judged before lowering).
        const ModelFile big = deepModel();
        QVERIFY(doc.estimate(big).work != EvaluationWork::Cheap);
        QSignalSpy opened(&doc, &Document::opened);
        QVERIFY(doc.openModel(big, QString()).ok());
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.model().network.name, std::string("mlp-3x1024"));
        QVERIFY(doc.waitUntilIdle().ok());
        QCOMPARE(opened.count(), 1);
        QVERIFY(doc.model() == big);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(!doc.isModified());

        // A failing one: the current model stays, the message names what is wrong.
        const ModelFile current = doc.model();
        QSignalSpy failed(&doc, &Document::openFailed);
        const ModelFile refused = withStrategy(big, revolve(1));
        QVERIFY(doc.openModel(refused, QStringLiteral("/tmp/big.json")).ok());
        QVERIFY(doc.isBusy());
        const Status st = doc.waitUntilIdle();
        QVERIFY(!st.ok());
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(
            message.startsWith(QStringLiteral("/tmp/big.json: plan 'revolve:1' would compile")),
            qPrintable(message));
        QVERIFY(doc.model() == current);
        QCOMPARE(opened.count(), 1);
        QVERIFY(doc.filePath().isEmpty());
    }

    void sliderOnALongChainPlansOnlyTheLatestPosition() {
        Document doc;
        QVERIFY(doc.openModel(remat::test::presetWithInstances(kCheapPlannerUnits + 50), QString())
                    .ok());
        QVERIFY(doc.waitUntilIdle().ok());
        BudgetSlider slider(&doc);
        // The range of a long chain is computed in the background.
        QTRY_VERIFY_WITH_TIMEOUT(slider.slider()->isEnabled(), kWaitMs);
        QVERIFY(slider.minimumBytes() < slider.maximumBytes());
        QSignalSpy changed(&doc, &Document::changed);
        QSlider* s = slider.slider();
        for (int position : {200, 400, 600, 700}) {
            s->setValue(position);
            QVERIFY(doc.isBusy());
            QCOMPARE(doc.busyWork(), EvaluationWork::Planning);
        }
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(doc.undoStack()->count(), 1);
        auto strategy = parseStrategy(doc.strategySpelling().toStdString());
        QVERIFY(strategy.ok());
        QCOMPARE(int(strategy->kind), int(StrategyKind::Optimal));
        QVERIFY(doc.evaluation().timeline.peakBytes <= strategy->budgetBytes);
        QCOMPARE(s->value(), 700);
    }

    // A long program's result comes with everything the timeline derives from it, made on the
    // worker thread (ui/timeline_series.h: totals, layers, phase runs, the time axis, the
    // categories in use, the totals' block extremes); the window draws from those exactly what
    // a decimation reading every instruction of the program draws, on both axes, peak included.
    void longResultIsDrawnFromWhatTheWorkerMade() {
        MainWindow w(test::testOptions());
        Document* doc = w.document();
        const int c = openDeepModel(*doc);
        QVERIFY(c >= 2);
        QVERIFY(test::showAt(w, QSize(1600, 1000)));
        QVERIFY(doc->setStrategy(revolve(c)).ok());
        QVERIFY(doc->isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!doc->isBusy(), kWaitMs);
        QCOMPARE(doc->strategySpelling(), revolve(c));
        const auto state = doc->stateHandle();
        const Timeline& t = state->evaluation.timeline;
        const std::size_t n = t.live.size();
        QVERIFY(n > 20000);  // decimated on any screen
        QVERIFY(state->series);
        const TimelineSeriesInputs& series = *state->series;
        QCOMPARE(series.totals.size(), n);
        QCOMPARE(series.timeAxis.size(), n);
        QCOMPARE(series.extremes.maxAt.size(), (n + kDecimationBlock - 1) / kDecimationBlock);
        std::vector<std::int64_t> totals(n);
        for (std::size_t i = 0; i < n; ++i) totals[i] = totalBytes(t.live[i]);
        QVERIFY(series.totals == totals);
        for (std::size_t k = 0; k < kCategoryCount; ++k) {
            bool used = false;
            for (std::size_t i = 0; i < n && !used; ++i) used = t.live[i][k] != 0;
            QCOMPARE(series.categoryUsed[k], used);
        }
        TimelinePlot* plot = w.timeline();
        QCOMPARE(plot->peakInstruction(), t.peakInstruction);
        for (XAxis axis : {XAxis::Time, XAxis::Instruction}) {
            plot->setXAxis(axis);
            const XExtents x = instructionExtents(t, axis);
            const QPointF range = plot->plotAdapter()->range(PlotAxis::X);
            QCOMPARE(range.x(), x.lower());
            QCOMPARE(range.y(), x.upper());
            const auto expected = decimate(x, totals, range.x(), range.y(), plot->drawnBuckets(),
                                           t.peakInstruction);
            QVERIFY(expected.size() < n / 10);  // decimated
            QVERIFY(plot->displayedInstructions() == expected);
        }
    }

    void mainWindowShowsProgressAndCancels() {
        MainWindow w(test::testOptions());
        Document* doc = w.document();
        // A chain the budget slider spans within the call, on which revolve with few
        // checkpoints is expensive.
        QVERIFY(doc->openModel(remat::test::presetWithInstances(kCheapPlannerUnits, "gpt2-tiny"),
                               QString())
                    .ok());
        QVERIFY(doc->waitUntilIdle().ok());
        const int c = expensiveCheckpoints(*doc, doc->model());
        QVERIFY(c >= 1);
        QVERIFY(test::showAt(w, QSize(1600, 1000)));
        auto* progress = w.findChild<EvaluationProgress*>();
        auto* bar = w.findChild<StrategyBar*>();
        QVERIFY(progress);
        QVERIFY(bar);
        QComboBox* strategy = bar->strategyCombo();
        QSpinBox* k = bar->kSpin();
        QVERIFY(!progress->isVisible());
        const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
        // For the screenshot: the comparison, computed in the background, shows this model (the
        // optimal frontier of so long a chain takes minutes more).
        auto* comparison = w.findChild<ComparisonPanel*>();
        QVERIFY(comparison);
        auto comparesThisModel = [&] {
            const QString name = QString::fromStdString(doc->model().network.name);
            for (QLabel* l : comparison->findChildren<QLabel*>())
                if (l->text().contains(name)) return true;
            return false;
        };
        if (!dir.isEmpty()) QTRY_VERIFY_WITH_TIMEOUT(comparesThisModel(), kWaitMs);
        // Typed into the strategy bar: every k blocks with k = C + 1, then revolve with as many
        // checkpoints. Cheap: each applies within the call.
        strategy->setCurrentIndex(strategy->findData(QStringLiteral("every")));
        QVERIFY(k->isVisible());
        k->setValue(c + 1);
        strategy->setCurrentIndex(strategy->findData(QStringLiteral("revolve")));
        QVERIFY(!doc->isBusy());
        QVERIFY(!progress->isVisible());
        QCOMPARE(doc->strategySpelling(), revolve(c + 1));
        const ModelFile accepted = doc->model();
        // One checkpoint fewer: expensive, so it runs in the background.
        k->setValue(c);
        QVERIFY(doc->isBusy());
        QCOMPARE(doc->busyWork(), EvaluationWork::Simulating);
        // What the user typed stays while it runs; the document is as it was.
        QCOMPARE(k->value(), c);
        QCOMPARE(strategy->currentData().toString(), QStringLiteral("revolve"));
        QVERIFY(doc->model() == accepted);
        QVERIFY(progress->isVisible());
        QVERIFY(progress->text().startsWith(doc->busyText()));
        if (!dir.isEmpty()) {
            // Lay the status bar out; the result, were it ready, is not delivered meanwhile.
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QVERIFY(doc->isBusy());
            QVERIFY(
                w.grab().save(QString::fromLocal8Bit(dir) + "/main-window-long-evaluation.png"));
        }
        QTest::mouseClick(progress->cancelButton(), Qt::LeftButton);
        QVERIFY(!doc->isBusy());
        QVERIFY(!progress->isVisible());
        QVERIFY(doc->model() == accepted);
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Strategy %1").arg(revolve(c + 1)));
        // The fields show the accepted plan again.
        QCOMPARE(k->value(), c + 1);
        QCOMPARE(strategy->currentData().toString(), QStringLiteral("revolve"));
    }
};

QTEST_MAIN(TstBackgroundEvaluation)
#include "tst_background_evaluation.moc"
