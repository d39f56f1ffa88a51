// Tests of the run panel: a CPU run of the mlp-3x1024 preset started from the panel completes
// in the background and shows measured = predicted (tracked peak and every instruction's live
// bytes), emits live bytes that lay over the timeline, and passes the gradient check; the GPU
// option is disabled with its reason when no CUDA device is usable; Cancel stops a long run
// and its result never shows; an unsafe plan runs only when asked and then shows the damage.
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QThreadPool>
#include <QtTest>

#include "analysis.h"
#include "compiler.h"
#include "lower.h"
#include "model_file.h"
#include "qt_convert.h"
#include "run_panel.h"
#include "timeline_plot.h"

using namespace remat;
using namespace remat::ui;

namespace {

struct Case {
    Graph graph;
    Evaluation evaluation;
    DeviceSpec device;
};

std::shared_ptr<Case> evaluatePreset(const std::string& preset, const std::string& strategy = {},
                                     std::int64_t microBatch = 0) {
    auto c = std::make_shared<Case>();
    auto model = loadModel(preset);
    if (!model) qFatal("%s", model.error().message.c_str());
    TrainingConfig training = model->training;
    if (microBatch > 0) training.microBatch = microBatch;
    auto g = lower(model->network, training.precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    c->graph = std::move(*g);
    auto d = findDevice(model->device.empty() ? "a100-80gb" : model->device);
    if (!d) qFatal("%s", d.error().message.c_str());
    c->device = *d;
    auto s = parseStrategy(strategy.empty() ? defaultStrategy(*model) : strategy);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto e = evaluate(c->graph, *s, manualRegions(*model), training, c->device);
    if (!e) qFatal("%s", e.error().message.c_str());
    c->evaluation = std::move(*e);
    return c;
}

}  // namespace

class TestRunPanel : public QObject {
    Q_OBJECT
private slots:
    void gpuOptionExplainsItself();
    void cpuRunOfMlpMatchesPrediction();
    void cancelStopsALongRun();
    void unsafePlanRunsOnlyWhenAsked();
    void newProgramClearsResults();
};

void TestRunPanel::gpuOptionExplainsItself() {
    RunPanel panel;
    QTRY_VERIFY_WITH_TIMEOUT(
        panel.gpuUnavailableReason() != "checking for a CUDA device…" || panel.gpuAvailable(),
        30000);
    if (panel.gpuAvailable()) {
        QVERIFY(panel.gpuOption()->isEnabled());
        QSKIP("a CUDA device is usable here: nothing to explain");
    }
    QVERIFY(!panel.gpuOption()->isEnabled());
    // The cause in the GUI's words (translatable), not the backend's bare English message; a
    // device probe's own detail may follow.
    const QString reason = panel.gpuUnavailableReason();
    QVERIFY2(reason.startsWith("this build has no CUDA executor") ||
                 reason.startsWith("no usable CUDA device: ") ||
                 reason.startsWith("this build of Remat Studio has no executors"),
             qPrintable(reason));
    QVERIFY2(!reason.contains("no GPU: "), qPrintable(reason));
    QVERIFY(panel.gpuOption()->toolTip().contains(panel.gpuUnavailableReason()));
    bool shown = false;
    for (QLabel* l : panel.findChildren<QLabel*>())
        if (l->text().contains(panel.gpuUnavailableReason()) && !l->isHidden()) shown = true;
    QVERIFY(shown);
    auto c = evaluatePreset("mlp-3x1024");
    panel.setProgram(c, c->graph, c->evaluation.program, c->evaluation.timeline, c->device);
    QVERIFY(!panel.start("cuda"));
    QVERIFY(panel.statusText().contains(panel.gpuUnavailableReason()));
    QCOMPARE(panel.selectedBackend(), QString("cpu"));
}

void TestRunPanel::cpuRunOfMlpMatchesPrediction() {
    auto c = evaluatePreset("mlp-3x1024");  // the file's plan: the middle layer checkpointed
    const Evaluation& e = c->evaluation;
    QVERIFY(!e.program.plan.regions.empty());
    RunPanel panel;
    panel.resize(700, 520);
    panel.show();
    panel.setProgram(c, c->graph, e.program, e.timeline, c->device);
    QVERIFY(panel.runButton()->isEnabled());
    QSignalSpy measured(&panel, &RunPanel::measured);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    // Clicking Run starts the work and returns: the result arrives through the event loop.
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QVERIFY(panel.isRunning());
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(panel.cancelButton()->isEnabled());
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(!panel.isRunning());

    QVERIFY(panel.lastOutcome().has_value());
    const RunOutcome& o = *panel.lastOutcome();
    QVERIFY2(o.ok, o.error.c_str());
    QCOMPARE(o.backend, std::string("cpu"));
    QCOMPARE(o.peakBytes, e.timeline.peakBytes);
    QCOMPARE(o.predictedPeakBytes, e.timeline.peakBytes);
    QCOMPARE(o.peakInstruction, e.timeline.peakInstruction);
    QVERIFY(o.liveBytesMatch());
    QVERIFY(o.deviceReservedPeakBytes >= o.peakBytes);
    QVERIFY(o.timeS.total() > 0);
    QVERIFY(o.gradChecked);
    QVERIFY(o.grad.bitwiseEqual);
    QCOMPARE(o.grad.maxAbsDiff, 0.0);

    // What the panel shows says so.
    QCOMPARE(panel.resultsTable()->item(0, 1)->text(),
             bytesText(e.timeline.peakBytes, ByteUnits::Binary));
    QCOMPARE(panel.resultsTable()->item(0, 2)->text(),
             bytesText(e.timeline.peakBytes, ByteUnits::Binary));
    QCOMPARE(panel.resultsTable()->item(0, 3)->text(), QString("0 B"));
    QVERIFY(panel.liveCheckText().startsWith(
        QStringLiteral("✔ Tracked live bytes equal the prediction")));
    QVERIFY(panel.gradCheckText().startsWith(QStringLiteral("✔ Gradients equal")));

    // The measured live bytes equal the prediction instruction by instruction and lay over
    // the timeline of the same program.
    QCOMPARE(measured.count(), 1);
    const auto live = measured.at(0).at(0).value<std::vector<std::int64_t>>();
    QCOMPARE(live.size(), e.timeline.live.size());
    for (std::size_t i = 0; i < live.size(); ++i) QCOMPARE(live[i], totalBytes(e.timeline.live[i]));
    TimelinePlot plot;
    plot.setData(c, c->graph, e.program, e.timeline, c->device);
    QVERIFY(plot.setMeasured(live, panel.measuredLabel()));
    QCOMPARE(panel.measuredLabel(), QString("measured (CPU)"));

    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        panel.grab().save(QString::fromLocal8Bit(dir) + "/run-panel-mlp.png");
        QPalette pal;
        pal.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
        pal.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1b));
        pal.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
        pal.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
        pal.setColor(QPalette::Button, QColor(0x2d, 0x30, 0x33));
        pal.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
        panel.setPalette(pal);
        panel.grab().save(QString::fromLocal8Bit(dir) + "/run-panel-mlp-dark.png");
        plot.resize(1100, 480);
        plot.grab().save(QString::fromLocal8Bit(dir) + "/timeline-measured-mlp.png");
    }
}

void TestRunPanel::cancelStopsALongRun() {
    // GPT-2 small at micro-batch 2 takes many seconds on one CPU core.
    auto c = evaluatePreset("gpt2-small", "none", 2);
    QThreadPool::globalInstance()->waitForDone();
    RunPanel panel;
    panel.setProgram(c, c->graph, c->evaluation.program, c->evaluation.timeline, c->device);
    QSignalSpy measured(&panel, &RunPanel::measured);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    QVERIFY(panel.start("cpu"));
    QTest::qWait(300);
    QVERIFY(panel.isRunning());
    // Once the CPU is probed the status gives the run's estimated length.
    QTRY_VERIFY_WITH_TIMEOUT(panel.statusText().contains("About "), 20000);
    QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
    QVERIFY(!panel.isRunning());
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QCOMPARE(panel.statusText(), QString("Run cancelled."));
    // The worker stops between instructions and frees what it holds.
    QVERIFY(QThreadPool::globalInstance()->waitForDone(30000));
    QTest::qWait(50);
    QCOMPARE(measured.count(), 0);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!panel.lastOutcome().has_value());
    QVERIFY(panel.runButton()->isEnabled());
}

void TestRunPanel::unsafePlanRunsOnlyWhenAsked() {
    auto c = std::make_shared<Case>();
    auto model = loadModel("gpt2-tiny");
    QVERIFY(model);
    auto g = lower(model->network, model->training.precision);
    QVERIFY(g);
    c->graph = std::move(*g);
    c->device = *findDevice("a100-80gb");
    auto plan = makePlan(c->graph, *parseStrategy("full"));
    QVERIFY(plan);
    for (Region& r : plan->regions) r.preserveRng = false;  // dropout draws new masks on recompute
    auto program = compile(c->graph, *plan, model->training, compileOptionsFor(c->device));
    QVERIFY(program);
    QVERIFY(program->unsafe());
    c->evaluation.strategy = *parseStrategy("full");
    c->evaluation.timeline = simulate(c->graph, *program, c->device);
    c->evaluation.program = std::move(*program);

    RunPanel panel;
    panel.setProgram(c, c->graph, c->evaluation.program, c->evaluation.timeline, c->device);
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(panel.runButton()->toolTip().contains("unsafe"));
    QVERIFY(!panel.start("cpu"));
    auto* consent = panel.findChild<QCheckBox*>();
    QVERIFY(consent && !consent->isHidden());
    consent->setChecked(true);
    QVERIFY(panel.runButton()->isEnabled());
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    QVERIFY(panel.start("cpu"));
    QVERIFY(finished.wait(120000));
    QVERIFY(finished.at(0).at(0).toBool());
    const RunOutcome& o = *panel.lastOutcome();
    // Memory is still exactly as predicted; the gradients are what the plan damaged.
    QVERIFY(o.liveBytesMatch());
    QVERIFY(o.gradChecked);
    QVERIFY(!o.grad.bitwiseEqual);
    QVERIFY(o.grad.maxAbsDiff > 0);
    QVERIFY(panel.gradCheckText().startsWith(QStringLiteral("✘ Gradients differ")));
}

void TestRunPanel::newProgramClearsResults() {
    auto c = evaluatePreset("mlp-3x1024", "full");
    RunPanel panel;
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    panel.setProgram(c, c->graph, c->evaluation.program, c->evaluation.timeline, c->device);
    QVERIFY(panel.start("cpu"));
    QVERIFY(finished.wait(120000));
    QVERIFY(panel.lastOutcome().has_value());
    auto d = evaluatePreset("mlp-3x1024", "none");
    panel.setProgram(d, d->graph, d->evaluation.program, d->evaluation.timeline, d->device);
    QVERIFY(!panel.lastOutcome().has_value());
    QVERIFY(panel.resultsTable()->isHidden());
    panel.clearProgram();
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(!panel.start());
}

QTEST_MAIN(TestRunPanel)
#include "tst_run_panel.moc"
