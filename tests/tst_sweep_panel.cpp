// The sweep panel in the main window: it sweeps only once shown, in the background; its plot has
// one line per strategy with a point per value (the blocks' activations linear in the depth
// without checkpointing), the measure can be switched, the status states the growth, an edit
// re-sweeps, Cancel stops a sweep, and values it cannot read are refused in words. With
// REMAT_SCREENSHOT_DIR set it saves the window showing the sweep.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

#include "document.h"
#include "main_window.h"
#include "plot_adapter.h"
#include "sweep_panel.h"
#include "ui_test_support.h"

using namespace remat;
using ui::SweepPanel;

namespace {

constexpr int kWaitMs = 60000;  // a bound for a hung sweep, not a duration being tested

QDockWidget* dockOf(QWidget* w) {
    for (QWidget* p = w; p; p = p->parentWidget())
        if (auto* d = qobject_cast<QDockWidget*>(p)) return d;
    return nullptr;
}

}  // namespace

class TstSweepPanel : public QObject {
    Q_OBJECT
private slots:
    void sweepsWhenShownAndPlotsEveryStrategy();
    void editResweepsAndCancelStops();
    void unreadableValuesAreRefused();
};

void TstSweepPanel::sweepsWhenShownAndPlotsEveryStrategy() {
    ui::MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(test::showAt(w, QSize(1600, 1000)));
    SweepPanel* panel = w.sweepPanel();
    QVERIFY(!panel->isShown());  // a tab behind the comparison
    QTest::qWait(500);
    QVERIFY(!panel->isBusy());
    QVERIFY(!panel->result());  // hidden: nothing swept

    QSignalSpy done(panel, &SweepPanel::finished);
    panel->valuesEdit()->setText(QStringLiteral("1,2,4,8"));
    dockOf(panel)->raise();
    QVERIFY(panel->isShown());
    QVERIFY(done.wait(kWaitMs));
    QVERIFY(panel->result());
    const SweepResult& r = *panel->result();
    QCOMPARE(r.values, (std::vector<std::int64_t>{1, 2, 4, 8}));
    for (const char* s : {"none", "full", "every:2", "every:4", "sqrt"}) {
        const QVector<QPointF> line = panel->plot()->lineData(QString::fromLatin1(s));
        QCOMPARE(line.size(), 4);
        QCOMPARE(line.front().x(), 1.0);
        QCOMPARE(line.back().x(), 8.0);
    }
    const QVector<QPointF> none = panel->plot()->lineData(QStringLiteral("none"));
    QCOMPARE(none.at(3).y(), 8 * none.at(0).y());
    QVERIFY(panel->plot()->lineData(QStringLiteral("sqrt")).at(3).y() < none.at(3).y());
    QVERIFY2(panel->statusText().contains(QStringLiteral("from 1 to 8 (×8)")),
             qPrintable(panel->statusText()));

    // Another measure redraws without sweeping again.
    panel->measureCombo()->setCurrentIndex(
        panel->measureCombo()->findData(int(SweepPanel::Measure::RecomputeOverhead)));
    QVERIFY(!panel->isBusy());
    for (const QPointF& p : panel->plot()->lineData(QStringLiteral("none"))) QCOMPARE(p.y(), 0.0);
    QVERIFY(panel->plot()->lineData(QStringLiteral("full")).at(2).y() > 0.0);

    const QString dir = qEnvironmentVariable("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        panel->measureCombo()->setCurrentIndex(0);
        panel->valuesEdit()->setText(QStringLiteral("1..24"));
        emit panel->valuesEdit()->editingFinished();
        QVERIFY(done.wait(kWaitMs));
        QTest::qWait(100);
        w.grab().save(dir + QStringLiteral("/main-window-sweep.png"));
    }
}

void TstSweepPanel::editResweepsAndCancelStops() {
    ui::MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(test::showAt(w, QSize(1600, 1000)));
    SweepPanel* panel = w.sweepPanel();
    QSignalSpy done(panel, &SweepPanel::finished);
    panel->valuesEdit()->setText(QStringLiteral("1,2"));
    dockOf(panel)->raise();
    QVERIFY(done.wait(kWaitMs));
    const std::int64_t before = panel->result()->points.front().peakBytes;

    // An edit while the panel shows re-sweeps with the new settings.
    QVERIFY(w.document()->setMicroBatch(w.document()->model().training.microBatch * 2).ok());
    QVERIFY(panel->isBusy());
    QVERIFY(done.wait(kWaitMs));
    QVERIFY(panel->result()->points.front().peakBytes > before);

    // Cancel: the sweep stops, the last complete result stays, the panel says so.
    const std::int64_t kept = panel->result()->points.front().peakBytes;
    panel->valuesEdit()->setText(QStringLiteral("1..64"));
    emit panel->valuesEdit()->editingFinished();
    QVERIFY(panel->isBusy());
    panel->cancel();
    QVERIFY(!panel->isBusy());
    QCOMPARE(panel->result()->points.front().peakBytes, kept);
    QTest::qWait(300);
    QVERIFY(!panel->isBusy());
    QCOMPARE(panel->result()->points.front().peakBytes, kept);
}

void TstSweepPanel::unreadableValuesAreRefused() {
    ui::MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(test::showAt(w, QSize(1600, 1000)));
    SweepPanel* panel = w.sweepPanel();
    dockOf(panel)->raise();
    panel->valuesEdit()->setText(QStringLiteral("0,3"));
    emit panel->valuesEdit()->editingFinished();
    QTRY_VERIFY_WITH_TIMEOUT(panel->statusText().contains(QStringLiteral("sweep values")), kWaitMs);
    QVERIFY(!panel->isBusy());
    // A model without a repeated block cannot be swept over its depth: said on the panel.
    QSignalSpy done(panel, &SweepPanel::finished);
    QVERIFY(w.openModel(QStringLiteral("mlp-3x1024")));
    panel->valuesEdit()->clear();
    emit panel->valuesEdit()->editingFinished();
    QVERIFY(done.wait(kWaitMs));
    QVERIFY(!panel->result());
    QVERIFY2(panel->statusText().contains(QStringLiteral("no repeated layer")),
             qPrintable(panel->statusText()));
}

QTEST_MAIN(TstSweepPanel)
#include "tst_sweep_panel.moc"
