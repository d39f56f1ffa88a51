// Expensive edits are evaluated in the background (ui/document.h): the edit call returns to the
// event loop before its result exists, the document says it is busy, and the result is then
// accepted exactly as a cheap edit's (undo stack, changed()). A newer edit supersedes the one in
// flight, Cancel returns to the last accepted state with the undo stack as it was, a failing
// expensive edit is refused with its message, undo and redo of expensive states work the same
// way, opening a large model too, and the budget slider on a long chain plans only its latest
// position. Cheap edits still apply within the call. In the main window a progress strip with
// a Cancel button shows while the work runs (a screenshot goes to REMAT_SCREENSHOT_DIR when set).
// Which edits are expensive comes from the document's own estimate: nothing here depends on how
// fast the machine is.
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QtTest>

#include "budget_slider.h"
#include "document.h"
#include "evaluation_progress.h"
#include "main_window.h"
#include "model_file.h"
#include "strategy.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

constexpr int kWaitMs = 120000;  // for results under sanitizers on a loaded machine

// The smallest power-of-two accumulation steps (from 2) for which an edit of `model` to that many
// is expensive by the document's estimate.
std::int64_t expensiveSteps(const Document& doc, ModelFile model) {
    for (std::int64_t n = 2; n <= 4096; n *= 2) {
        model.training.accumulationSteps = n;
        if (doc.estimate(model).work != EvaluationWork::Cheap) return n;
    }
    return 0;
}

// GPT-2 small with its blocks repeated to `instances` layer instances in all.
ModelFile gpt2Blocks(std::int64_t instances) {
    ModelFile m = *loadModel("gpt2-small");
    std::int64_t others = 0;
    Layer* blocks = nullptr;
    for (Layer& l : m.network.layers) {
        if (l.repeat > 1 && !blocks)
            blocks = &l;
        else
            others += l.repeat;
    }
    if (blocks) blocks->repeat = instances - others;
    return m;
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
        QVERIFY(doc.open(QStringLiteral("gpt2-small")).ok());
        const std::int64_t n = expensiveSteps(doc, doc.model());
        QVERIFY(n > 1);
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
        QVERIFY(doc.setAccumulationSteps(n).ok());
        // Not accepted yet: busy, the model and the history as they were.
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.busyWork(), EvaluationWork::Simulating);
        QVERIFY(!doc.busyText().isEmpty());
        QCOMPARE(doc.model().training.accumulationSteps, std::int64_t(1));
        QCOMPARE(doc.undoStack()->count(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QVERIFY(timerFired);
        QVERIFY(firedWhileBusy);
        QVERIFY(!changedBeforeTimer);
        QCOMPARE(changes, 1);
        QCOMPARE(doc.model().training.accumulationSteps, n);
        QCOMPARE(doc.evaluation().program.accumulationSteps, n);
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY(doc.isModified());

        // Undo to the cheap state is immediate; redo evaluates in the background again.
        doc.undoStack()->undo();
        QVERIFY(!doc.isBusy());
        QCOMPARE(doc.model().training.accumulationSteps, std::int64_t(1));
        doc.undoStack()->redo();
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.model().training.accumulationSteps, std::int64_t(1));
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(doc.model().training.accumulationSteps, n);
        QCOMPARE(doc.undoStack()->index(), 1);
    }

    void newerEditSupersedes() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("gpt2-small")).ok());
        const std::int64_t n = expensiveSteps(doc, doc.model());
        QVERIFY(n > 1);
        QSignalSpy changed(&doc, &Document::changed);

        // A cheap edit supersedes: it applies at once, from the accepted state.
        QVERIFY(doc.setAccumulationSteps(n).ok());
        QVERIFY(doc.isBusy());
        QVERIFY(doc.setNetworkName(QStringLiteral("renamed")).ok());
        QVERIFY(!doc.isBusy());
        QCOMPARE(doc.model().network.name, std::string("renamed"));
        QCOMPARE(doc.model().training.accumulationSteps, std::int64_t(1));
        QCOMPARE(changed.count(), 1);

        // A newer expensive edit supersedes the one in flight, whose result is never shown.
        QVERIFY(doc.setAccumulationSteps(n).ok());
        QVERIFY(doc.setAccumulationSteps(n + 1).ok());
        QVERIFY(doc.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(doc.model().training.accumulationSteps, n + 1);
        QCOMPARE(doc.model().network.name, std::string("renamed"));
        // Evaluations run one at a time: the dropped ones ended before this one was applied.
        QCOMPARE(changed.count(), 2);
        QCOMPARE(doc.undoStack()->count(), 2);
    }

    void cancelRestoresTheAcceptedState() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("gpt2-small")).ok());
        QVERIFY(doc.setStrategy(QStringLiteral("full")).ok());
        const ModelFile accepted = doc.model();
        const std::int64_t n = expensiveSteps(doc, doc.model());
        QVERIFY(n > 1);
        QSignalSpy changed(&doc, &Document::changed);
        QSignalSpy busy(&doc, &Document::busyChanged);
        QVERIFY(doc.setAccumulationSteps(n).ok());
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
        QVERIFY(doc.setAccumulationSteps(n + 1).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(doc.model().training.accumulationSteps, n + 1);
        QCOMPARE(changed.count(), 1);

        // An undo or redo in flight is taken back on the undo stack.
        QVERIFY(doc.setAccumulationSteps(n).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        const int index = doc.undoStack()->index();
        const ModelFile expensive = doc.model();
        doc.undoStack()->undo();  // to a cheap state: immediate
        QVERIFY(!doc.isBusy());
        doc.undoStack()->redo();  // to the expensive one: in the background
        QVERIFY(doc.isBusy());
        doc.cancelEvaluation();
        QCOMPARE(doc.undoStack()->index(), index - 1);
        QVERIFY(doc.undoStack()->canRedo());
        QCOMPARE(doc.model().training.accumulationSteps, std::int64_t(1));
        doc.undoStack()->redo();
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QVERIFY(doc.model() == expensive);
        QCOMPARE(doc.undoStack()->index(), index);
    }

    void failingExpensiveEditIsRefused() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("gpt2-small")).ok());
        const ModelFile accepted = doc.model();
        QSignalSpy rejected(&doc, &Document::editRejected);
        QSignalSpy changed(&doc, &Document::changed);
        // Far over the largest program: the compiler refuses it with the instruction count.
        QVERIFY(doc.setAccumulationSteps(1000000).ok());
        QVERIFY(doc.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!doc.isBusy(), kWaitMs);
        QCOMPARE(rejected.count(), 1);
        const QString message = rejected.at(0).at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("instructions")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("accumulation steps")), qPrintable(message));
        QVERIFY(doc.model() == accepted);
        QCOMPARE(doc.undoStack()->count(), 0);
        QCOMPARE(changed.count(), 0);
    }

    void largeModelOpensInTheBackground() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("mlp-3x1024")).ok());
        ModelFile big = *loadModel("gpt2-small");
        big.training.accumulationSteps = expensiveSteps(doc, big);
        QVERIFY(big.training.accumulationSteps > 1);
        QSignalSpy opened(&doc, &Document::opened);
        QVERIFY(doc.openModel(big, QString()).ok());
        QVERIFY(doc.isBusy());
        QCOMPARE(doc.model().network.name, std::string("mlp-3x1024"));
        QVERIFY(doc.waitUntilIdle().ok());
        QCOMPARE(opened.count(), 1);
        QCOMPARE(doc.model().training.accumulationSteps, big.training.accumulationSteps);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(!doc.isModified());

        // A failing one: the current model stays, the message names what is wrong.
        const ModelFile current = doc.model();
        QSignalSpy failed(&doc, &Document::openFailed);
        big.training.accumulationSteps = 1000000;
        QVERIFY(doc.openModel(big, QStringLiteral("/tmp/big.json")).ok());
        QVERIFY(doc.isBusy());
        const Status st = doc.waitUntilIdle();
        QVERIFY(!st.ok());
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().startsWith(QStringLiteral("/tmp/big.json: ")));
        QVERIFY(doc.model() == current);
        QCOMPARE(opened.count(), 1);
        QVERIFY(doc.filePath().isEmpty());
    }

    void sliderOnALongChainPlansOnlyTheLatestPosition() {
        Document doc;
        QVERIFY(doc.openModel(gpt2Blocks(kCheapPlannerUnits + 50), QString()).ok());
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

    void mainWindowShowsProgressAndCancels() {
        MainWindow w(test::testOptions());
        QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
        QVERIFY(test::showAt(w, QSize(1600, 1000)));
        Document* doc = w.document();
        auto* progress = w.findChild<EvaluationProgress*>();
        QVERIFY(progress);
        QVERIFY(!progress->isVisible());
        QVERIFY(doc->setStrategy(QStringLiteral("full")).ok());
        QVERIFY(!progress->isVisible());
        const ModelFile accepted = doc->model();
        // The program-size limit's own example, typed into the strategy bar: about 4.7 million
        // instructions.
        auto* steps = w.findChild<QSpinBox*>(QStringLiteral("accumulationSteps"));
        QVERIFY(steps);
        steps->setValue(2400);
        QVERIFY(doc->isBusy());
        QCOMPARE(doc->busyWork(), EvaluationWork::Simulating);
        QCOMPARE(steps->value(), 2400);  // what the user typed stays while it runs
        QVERIFY(progress->isVisible());
        QVERIFY(progress->text().startsWith(doc->busyText()));
        const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
        if (!dir.isEmpty()) {
            QTest::qWait(1200);  // the elapsed seconds appear
            if (doc->isBusy())
                w.grab().save(QString::fromLocal8Bit(dir) + "/main-window-long-evaluation.png");
        }
        QTest::mouseClick(progress->cancelButton(), Qt::LeftButton);
        QVERIFY(!doc->isBusy());
        QVERIFY(!progress->isVisible());
        QVERIFY(doc->model() == accepted);
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Strategy full"));
        QCOMPARE(steps->value(), 1);  // the field shows the accepted value again
    }
};

QTEST_MAIN(TstBackgroundEvaluation)
#include "tst_background_evaluation.moc"
