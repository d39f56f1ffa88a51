// File -> Compare with a PyTorch snapshot, offscreen: the synthetic snapshot
// (tests/data/snapshots/synthetic.pickle) laid over mlp-3x1024's timeline as two lines whose
// highest points are the measured step's peaks, the legend stating the peak difference, the
// overlay following a change of plan, and a file that is not a snapshot refused with its name.
// With REMAT_SNAPSHOT_SHOT set, the window is saved there as a PNG.
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "document.h"
#include "main_window.h"
#include "memory_snapshot.h"
#include "plot_adapter.h"
#include "timeline_plot.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {
const QString kSnapshot = QStringLiteral(REMAT_TEST_DATA_DIR "/snapshots/synthetic.pickle");

double maxY(const QVector<QPointF>& points) {
    double m = 0;
    for (const QPointF& p : points) m = std::max(m, p.y());
    return m;
}
}  // namespace

class TestSnapshotOverlay : public QObject {
    Q_OBJECT
private slots:
    void overlayOnTheTimeline();
    void refusedFiles();
};

void TestSnapshotOverlay::overlayOnTheTimeline() {
    MainWindow w(remat::test::testOptions());
    QVERIFY(remat::test::showAt(w, QSize(1600, 1000)));
    QVERIFY(w.openModel(QStringLiteral("mlp-3x1024")));
    QVERIFY2(w.compareWithSnapshot(kSnapshot), qPrintable(w.lastError()));
    TimelinePlot* plot = w.timeline();
    QVERIFY(plot->hasSnapshotOverlay());

    auto snap = readMemorySnapshot(kSnapshot.toStdString());
    QVERIFY(snap);
    const auto& ev = w.document()->state().evaluation;
    auto ov = alignSnapshot(*snap, ev.program, ev.timeline);
    QVERIFY(ov);
    PlotAdapter* a = plot->plotAdapter();
    QVERIFY(a->hasLine(QStringLiteral("snapshot-allocated")));
    QVERIFY(a->hasLine(QStringLiteral("snapshot-reserved")));
    QCOMPARE(maxY(a->lineData(QStringLiteral("snapshot-allocated"))),
             double(ov->measuredPeakAllocated));
    QCOMPARE(maxY(a->lineData(QStringLiteral("snapshot-reserved"))),
             double(ov->measuredPeakReserved));
    // The legend names the measured peak and the difference (28.02 MiB measured against
    // 32.90 MiB predicted).
    QVERIFY(!a->legendIcon(QStringLiteral("snapshot-allocated")).isNull());
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("28.02 MiB allocated")),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(plot->tooltipFor(ov->spans[1].firstInstruction).contains(QStringLiteral("PyTorch reserved")));

    if (qEnvironmentVariableIsSet("REMAT_SNAPSHOT_SHOT"))
        QVERIFY(w.grab().save(qEnvironmentVariable("REMAT_SNAPSHOT_SHOT")));

    // Another plan: the overlay is aligned again with the new program.
    QVERIFY(w.document()->setStrategy(QStringLiteral("every:2")));
    QTRY_VERIFY(plot->hasSnapshotOverlay());
    QCOMPARE(a->lineData(QStringLiteral("snapshot-allocated")).isEmpty(), false);
    w.clearSnapshotComparison();
    QVERIFY(!plot->hasSnapshotOverlay());
    QVERIFY(!a->hasLine(QStringLiteral("snapshot-allocated")));
}

void TestSnapshotOverlay::refusedFiles() {
    MainWindow w(remat::test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("mlp-3x1024")));
    QTemporaryDir dir;
    const QString evil = dir.filePath(QStringLiteral("evil.pickle"));
    {
        std::ofstream f(evil.toStdString(), std::ios::binary);
        f << "\x80\x02" "cos\nsystem\n.";
    }
    QVERIFY(!w.compareWithSnapshot(evil));
    QVERIFY2(w.lastError().contains(QStringLiteral("evil.pickle: pickle: byte 2: GLOBAL")),
             qPrintable(w.lastError()));
    QVERIFY(!w.timeline()->hasSnapshotOverlay());
    // A good file after a refused one is laid over as usual.
    QVERIFY(w.compareWithSnapshot(kSnapshot));
    QVERIFY(w.timeline()->hasSnapshotOverlay());
}

QTEST_MAIN(TestSnapshotOverlay)
#include "tst_snapshot_overlay.moc"
