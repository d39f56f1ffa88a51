// Tests of the run panel: a CPU run of the mlp-3x1024 preset started from the panel completes
// in the background and shows measured = predicted (tracked peak and every instruction's live
// bytes), emits live bytes that lay over the timeline, and passes the gradient check; the GPU
// option is disabled with its reason when no CUDA device is usable; Cancel stops a long run
// and its result never shows, the worker then hands every byte back and the next run works; a
// fault mid-run (out of memory, a kernel error, injected into the CPU backend) ends the run
// with the cause named and the pool empty; a run whose host memory would not fit is refused
// before it starts, with both figures; an unsafe plan runs only when asked and then shows the
// damage.
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QThreadPool>
#include <QtTest>
#include <fstream>
#include <sys/resource.h>

#include "analysis.h"
#include "fault_injection.h"
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
    void faultMidRunReleasesMemory_data();
    void faultMidRunReleasesMemory();
    void runTooLargeForHostIsRefusedUpFront();
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
    QVERIFY2(!reason.contains("CUDA backend unavailable: "), qPrintable(reason));
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
    // A long run on purpose: not asked about first (tst_gui_polish covers the question).
    panel.setLongRunThreshold(0.0);
    QSignalSpy measured(&panel, &RunPanel::measured);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    QSignalSpy released(&panel, &RunPanel::runReleased);
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
    // The cancelled worker gave every block back to its pool.
    QTRY_COMPARE_WITH_TIMEOUT(released.count(), 1, 30000);
    QCOMPARE(released.at(0).at(0).toLongLong(), qint64(0));
    QCOMPARE(released.at(0).at(1).toLongLong(), qint64(0));
    // The panel is idle and usable: the next run completes.
    auto small = evaluatePreset("mlp-3x1024", "full");
    panel.setProgram(small, small->graph, small->evaluation.program, small->evaluation.timeline,
                     small->device);
    QVERIFY(panel.start("cpu"));
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QVERIFY(panel.lastOutcome().has_value() && panel.lastOutcome()->liveBytesMatch());
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

void TestRunPanel::faultMidRunReleasesMemory_data() {
    QTest::addColumn<bool>("kernel");  // a kernel error, else out of memory
    QTest::addColumn<int>("nth");
    QTest::addRow("out of memory, early") << false << 3;
    QTest::addRow("out of memory, late") << false << 60;
    QTest::addRow("kernel error") << true << 12;
}

void TestRunPanel::faultMidRunReleasesMemory() {
    QFETCH(bool, kernel);
    QFETCH(int, nth);
    auto c = evaluatePreset("gpt2-tiny", "full");
    RunRequest request;
    request.owner = c;
    request.graph = &c->graph;
    request.program = &c->evaluation.program;
    request.predicted = &c->evaluation.timeline;
    request.device = c->device;
    RunHooks hooks;
    hooks.wrapBackend = [&](std::unique_ptr<Backend> b) -> std::unique_ptr<Backend> {
        auto f = std::make_unique<FaultInjectingBackend>(std::move(b));
        if (kernel) f->failKernel(nth);
        else f->failAllocation(nth);
        return f;
    };
    const RunOutcome failed = runPlan(request, nullptr, hooks);
    QVERIFY(!failed.ok);
    QVERIFY(!failed.cancelled && !failed.refused);
    QVERIFY2(failed.error.find(kernel ? "kernel failed (injected fault)"
                                      : "out of host memory: requested ") != std::string::npos,
             failed.error.c_str());
    QVERIFY2(failed.error.rfind("instruction ", 0) == 0, failed.error.c_str());
    QCOMPARE(failed.poolInUseAfterBytes, std::int64_t{0});
    QCOMPARE(failed.poolHeldAfterBytes, std::int64_t{0});
    // The application carries on: the same request without the fault runs and checks out.
    const RunOutcome ok = runPlan(request, nullptr);
    QVERIFY2(ok.ok, ok.error.c_str());
    QVERIFY(ok.liveBytesMatch());
    QVERIFY(ok.gradChecked && ok.grad.bitwiseEqual);
    QCOMPARE(ok.poolInUseAfterBytes, std::int64_t{0});
    QCOMPARE(ok.poolHeldAfterBytes, std::int64_t{0});
}

namespace {

std::int64_t mappedBytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmSize:") {
            std::int64_t kib = 0;
            status >> kib;
            return kib * 1024;
        }
        status.ignore(1 << 12, '\n');
    }
    return -1;
}

}  // namespace

void TestRunPanel::runTooLargeForHostIsRefusedUpFront() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    QSKIP("the sanitizers reserve terabytes of address space: no limit can be set");
#else
    // GPT-2 small at micro-batch 16 needs several GiB; under an address-space limit 256 MiB
    // above what the test maps already, the host has about 256 MiB for it.
    auto c = evaluatePreset("gpt2-small", "none", 16);
    QThreadPool::globalInstance()->waitForDone();
    RunPanel panel;
    panel.setProgram(c, c->graph, c->evaluation.program, c->evaluation.timeline, c->device);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    QSignalSpy released(&panel, &RunPanel::runReleased);
    rlimit saved{};
    QVERIFY(getrlimit(RLIMIT_AS, &saved) == 0);
    const std::int64_t mapped = mappedBytes();
    QVERIFY(mapped > 0);
    rlimit tight = saved;
    tight.rlim_cur = rlim_t(mapped + (std::int64_t{256} << 20));
    QVERIFY(setrlimit(RLIMIT_AS, &tight) == 0);
    const bool started = panel.start("cpu");
    const bool done = started && finished.wait(120000);
    QVERIFY(setrlimit(RLIMIT_AS, &saved) == 0);
    QVERIFY(started && done);
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    const QString status = panel.statusText();
    QVERIFY2(status.startsWith("The run cannot start: this run needs about ") &&
                 status.contains(" GiB of host memory") && status.contains("available") &&
                 status.contains("address-space limit"),
             qPrintable(status));
    QVERIFY(!panel.isRunning());
    QVERIFY(panel.runButton()->isEnabled());
    QCOMPARE(released.count(), 0);  // nothing was allocated: no backend pool was used
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        panel.resize(700, 520);
        panel.show();
        QTest::qWait(50);
        panel.grab().save(QString::fromLocal8Bit(dir) + "/run-panel-refused.png");
    }
#endif
}

QTEST_MAIN(TestRunPanel)
#include "tst_run_panel.moc"
