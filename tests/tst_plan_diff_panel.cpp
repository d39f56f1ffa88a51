// Two plans side by side in the main window: the tab evaluates the other plan when shown, puts
// both timelines on one plot with the gap shaded, and lists exactly the tensors that differ at
// the two peaks (checked against sim/plan_diff on the same programs); a bad spelling is refused
// in the headline; an edit of plan A compares again.
#include <QDockWidget>
#include <QFile>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "document.h"
#include "document_evaluation.h"
#include "main_window.h"
#include "plan_diff_panel.h"
#include "plot_adapter.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

// 4 x Linear(16) at micro-batch 4096: each activation 256 KiB (tst_step_through's two plans).
const char* kModel = R"({"format":"remat-model/1","input":{"shape":[16]},
    "layers":[{"kind":"linear","out":16},{"kind":"linear","out":16},{"kind":"linear","out":16},
              {"kind":"linear","out":16},{"kind":"mse"}],
    "plan":{"strategy":"every:2"},"training":{"micro_batch":4096}})";

}  // namespace

class TestPlanDiffPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void comparesWithNone() {
        QVERIFY(m_dir.isValid());
        const QString path = m_dir.filePath(QStringLiteral("m.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kModel);
        f.close();

        MainWindow w(test::testOptions());
        QVERIFY(w.openModel(path));
        QVERIFY(test::showAt(w, QSize(1280, 720)));
        PlanDiffPanel* panel = w.planDiff();
        QVERIFY(!panel->hasResult());  // hidden: nothing evaluated
        QCOMPARE(panel->otherStrategy(), QStringLiteral("none"));
        w.planDiffDock()->raise();
        QTRY_VERIFY_WITH_TIMEOUT(panel->hasResult() && !panel->isBusy(), 20000);

        // The same difference sim/plan_diff gives for the document's program and none's.
        const auto state = w.document()->stateHandle();
        const Evaluation none = *evaluate(*state->graph, *parseStrategy("none"), {},
                                          state->model.training, state->device);
        const PeakDifference expected =
            peakDifference(*state->graph, state->evaluation.program, state->evaluation.timeline,
                           none.program, none.timeline);
        const PeakDifference& d = panel->difference();
        QCOMPARE(d.peakA, state->evaluation.timeline.peakBytes);
        QCOMPARE(d.peakB, none.timeline.peakBytes);
        QVERIFY(d.peakB > d.peakA);  // checkpointing saves here
        QStringList expectedRows;
        for (const auto* side : {&expected.onlyA, &expected.onlyB})
            for (const PeakTensor& t : *side) expectedRows << QString::fromStdString(t.label);
        // Listed: every differing tensor, plan A's first, each with the plan it is live in.
        QTreeWidget* table = panel->table();
        QCOMPARE(table->topLevelItemCount(), int(d.onlyA.size() + d.onlyB.size()));
        // Both peak at layer 3's backward: none holds the kept outputs of layers 0 and 2 there,
        // every:2 only layer 2's recomputed copy (tst_step_through's twoPlansAtTheirPeaks).
        QCOMPARE(d.onlyB.size(), std::size_t(2));
        QCOMPARE(table->topLevelItem(0)->text(2), QStringLiteral("every:2"));
        QCOMPARE(table->topLevelItem(table->topLevelItemCount() - 1)->text(2),
                 QStringLiteral("none"));
        QStringList rows;
        for (int i = 0; i < table->topLevelItemCount(); ++i)
            rows << table->topLevelItem(i)->text(0);
        QCOMPARE(rows, expectedRows);
        QStringList noneOnly;
        for (int i = int(d.onlyA.size()); i < table->topLevelItemCount(); ++i)
            noneOnly << table->topLevelItem(i)->text(0);
        QCOMPARE(noneOnly, (QStringList{QStringLiteral("0/linear"), QStringLiteral("2/linear")}));
        // Both timelines and the shaded gap on one plot; the headline names both peaks.
        QVERIFY(panel->plotAdapter()->hasLine(QStringLiteral("planA")));
        QVERIFY(panel->plotAdapter()->hasLine(QStringLiteral("planB")));
        QCOMPARE(panel->plotAdapter()->stackedLayerCount(), 2);
        QVERIFY(panel->headline().contains(QStringLiteral("every:2")));
        QVERIFY(panel->headline().contains(QStringLiteral("none")));

        // A spelling that is not a strategy: refused in the headline, nothing listed.
        panel->setOtherStrategy(QStringLiteral("every:zero"));
        QVERIFY(panel->headline().startsWith(QStringLiteral("Cannot compare with 'every:zero'")));
        QVERIFY(!panel->hasResult());
        QCOMPARE(table->topLevelItemCount(), 0);

        // An edit of plan A compares again, with the other plan kept.
        panel->setOtherStrategy(QStringLiteral("none"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->hasResult() && !panel->isBusy(), 20000);
        QVERIFY(w.document()->setStrategy(QStringLiteral("full")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isBusy() && panel->headline().contains("full"), 20000);
        QCOMPARE(panel->difference().peakA,
                 w.document()->stateHandle()->evaluation.timeline.peakBytes);
    }
};

QTEST_MAIN(TestPlanDiffPanel)
#include "tst_plan_diff_panel.moc"
