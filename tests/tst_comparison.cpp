// Tests of the strategy comparison: the table model passes QAbstractItemModelTester; the
// background computation finishes and every row and every point of the every:K curve equals
// remat::evaluate for that strategy; a second request cancels the first (its result never
// shows, the worker stops early); clicking a row or a point of the trade-off plot chooses that
// strategy; the exports write what the table shows; a busy indicator shows while computing.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

#include "analysis.h"
#include "background_priority.h"
#include "comparison_model.h"
#include "comparison_panel.h"
#include "comparison_worker.h"
#include "deep_model.h"
#include "instruction_caption.h"
#include "progress_strip.h"
#include "lower.h"
#include "model_file.h"
#include "plot_adapter.h"
#include "tradeoff_plot.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;
using namespace remat::test;

namespace {

// The row remat::evaluate gives for `spelling`, computed here independently of the panel.
ComparisonRow expectedRow(const Inputs& in, const Graph& g, const std::string& spelling) {
    auto s = parseStrategy(spelling);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto e = evaluate(g, *s, manualRegions(in.model), in.training, in.device);
    if (!e) qFatal("%s", e.error().message.c_str());
    return summarise(g, *e);
}

void compareRows(const ComparisonRow& got, const ComparisonRow& want) {
    QCOMPARE(got.spelling, want.spelling);
    QVERIFY2(got.ok, got.error.c_str());
    QCOMPARE(got.peakBytes, want.peakBytes);
    QCOMPARE(got.baselinePeakBytes, want.baselinePeakBytes);
    QCOMPARE(got.stepTimeS, want.stepTimeS);
    QCOMPARE(got.recomputeOverhead, want.recomputeOverhead);
    QCOMPARE(got.memorySavedFraction, want.memorySavedFraction);
    QCOMPARE(got.maxMicroBatch, want.maxMicroBatch);
    QCOMPARE(got.fits, want.fits);
    QCOMPARE(got.peakCaption, want.peakCaption);
    QCOMPARE(got.activationsSavedFraction, want.activationsSavedFraction);
    QCOMPARE(got.unsafe, want.unsafe);
    QCOMPARE(got.unsafeReason, want.unsafeReason);
}

ComparisonRow fakeRow(const std::string& spelling, std::int64_t peak, double time, bool fits) {
    ComparisonRow r;
    r.spelling = spelling;
    r.peakBytes = peak;
    r.baselinePeakBytes = 2 * peak;
    r.memorySavedFraction = 0.5;
    r.recomputeOverhead = 0.2;
    r.stepTimeS = time;
    r.maxMicroBatch = 12;
    r.fits = fits;
    return r;
}

}  // namespace

class TestComparison : public QObject {
    Q_OBJECT
private slots:
    void burstOfRequestsComputesOnce();
    void progressStripCountsWithoutRelayout();
    void modelPassesTester();
    void namedStrategiesIncludeManualAndCurrent();
    void workerMatchesEvaluate();
    void panelComputesInBackground();
    void secondRequestCancelsFirst();
    void cancelledWorkerStopsBetweenStrategies();
    void strategyOnlyChangeDoesNotRecompute();
    void rowClickChoosesStrategy();
    void pointClickChoosesStrategy();
    void exportsWriteTable();
    void badModelShowsError();
    void backgroundGivesWayToTheWindow();
    void unsafePlansAreMarkedInTableAndPlot();
    void refusedFrontierIsSaid();
};

void TestComparison::modelPassesTester() {
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setRows({fakeRow("none", 4000, 1.0, false), fakeRow("full", 1000, 1.3, true),
                   fakeRow("every:2", 1500, 1.2, true)});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(ComparisonModel::ColumnCount));
    model.setCurrentStrategy("full");
    QCOMPARE(model.data(model.index(1, 0)).toString(), QString("full (current)"));
    QCOMPARE(model.data(model.index(1, 0), ComparisonModel::StrategyRole).toString(),
             QString("full"));
    QCOMPARE(model.data(model.index(1, ComparisonModel::FitsColumn)).toString(), QString("yes"));
    QCOMPARE(model.data(model.index(0, ComparisonModel::FitsColumn)).toString(), QString("no"));
    QCOMPARE(model.data(model.index(0, ComparisonModel::PeakColumn), ComparisonModel::SortRole)
                 .toLongLong(),
             4000LL);
    model.setUnits(ByteUnits::Decimal);
    QCOMPARE(model.data(model.index(0, ComparisonModel::PeakColumn)).toString(),
             QString("4.00 kB"));
    model.setUnits(ByteUnits::Binary);
    QCOMPARE(model.data(model.index(0, ComparisonModel::PeakColumn)).toString(),
             QString("3.91 KiB"));
    ComparisonRow failed;
    failed.spelling = "manual";
    failed.ok = false;
    failed.error = "bad region";
    model.setRows({fakeRow("none", 4000, 1.0, false), failed});
    QVERIFY(model.data(model.index(1, 0), Qt::ToolTipRole).toString().contains("bad region"));
    QVERIFY(!model.data(model.index(1, 0), ComparisonModel::OkRole).toBool());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestComparison::namedStrategiesIncludeManualAndCurrent() {
    Inputs mlp = preset("mlp-3x1024");  // per-layer checkpoint flags: a manual plan
    const Graph g = lowered(mlp);
    auto names = [](const std::vector<Strategy>& v) {
        QStringList out;
        for (const Strategy& s : v) out << QString::fromStdString(s.spelling());
        return out;
    };
    const QStringList plain = names(comparisonStrategies(g));
    const QStringList withManual = names(namedStrategies(g, mlp.model, "none"));
    QCOMPARE(withManual.size(), plain.size() + 1);
    QCOMPARE(withManual.at(1), QString("manual"));
    const QStringList withCurrent = names(namedStrategies(g, mlp.model, "selective:mlp"));
    QCOMPARE(withCurrent.back(), QString("selective:mlp"));
    // A strategy already listed is not added twice; an unparsable one is ignored.
    QCOMPARE(names(namedStrategies(g, mlp.model, "full")).size(), withManual.size());
    QCOMPARE(names(namedStrategies(g, mlp.model, "nonsense:3")).size(), withManual.size());
}

void TestComparison::workerMatchesEvaluate() {
    Inputs in = preset("gpt2-tiny");
    const Graph g = lowered(in);
    int progressCalls = 0, lastTotal = 0, namedReadyCalls = 0;
    ComparisonHooks hooks;
    hooks.progress = [&](int done, int total) {
        ++progressCalls;
        QCOMPARE(done, progressCalls);
        lastTotal = total;
    };
    hooks.namedReady = [&](const ComparisonResult& partial) {
        ++namedReadyCalls;
        QVERIFY(partial.everyK.empty());
        QVERIFY(!partial.curveDone);
    };
    const ComparisonResult r =
        computeComparison(ComparisonRequest{in.model, in.training, in.device, "every:2"}, hooks);
    QVERIFY(r.error.empty());
    QVERIFY(r.curveDone);
    QCOMPARE(namedReadyCalls, 1);
    QCOMPARE(r.chainLength, g.chain.size());
    QCOMPARE(r.everyK.size(), g.chain.size());
    QCOMPARE(progressCalls, lastTotal);
    // The optimal frontier is the last step (tst_tradeoff_frontier checks its points).
    QVERIFY(r.frontierDone);
    QCOMPARE(std::size_t(lastTotal), r.named.size() + r.everyK.size() + 1);
    const auto named = namedStrategies(g, in.model, "every:2");
    QCOMPARE(r.named.size(), named.size());
    for (std::size_t i = 0; i < named.size(); ++i)
        compareRows(r.named[i], expectedRow(in, g, named[i].spelling()));
    for (std::size_t k = 1; k <= g.chain.size(); ++k)
        compareRows(r.everyK[k - 1], expectedRow(in, g, "every:" + std::to_string(k)));
    // The peak's tooltip is captioned in the GUI's own (translated) words, units included; the
    // English caption stays for the CSV.
    ComparisonModel model;
    model.setRows(r.named);
    for (std::size_t i = 0; i < named.size(); ++i) {
        auto e = evaluate(g, named[i], manualRegions(in.model), in.training, in.device);
        QVERIFY(e);
        const ComparisonRow& row = r.named[i];
        QVERIFY(row.peakAt.has_value());
        QCOMPARE(row.peakAt->index, e->timeline.peakInstruction);
        QCOMPARE(row.peakAt->kind, e->program.instructions[e->timeline.peakInstruction].kind);
        for (ByteUnits units : {ByteUnits::Binary, ByteUnits::Decimal}) {
            model.setUnits(units);
            const QString tip = model.data(model.index(int(i), ComparisonModel::PeakColumn),
                                           Qt::ToolTipRole)
                                    .toString();
            QVERIFY2(tip.endsWith(instructionCaption(*row.peakAt, units)), qPrintable(tip));
        }
    }
}

// The busy bar's text follows its value, its size hint does not (progress must not relayout
// the panel), and it paints only when the event loop paints.
void TestComparison::progressStripCountsWithoutRelayout() {
    ProgressStrip strip;
    strip.setFormat(QStringLiteral("computing %v of %m strategies"));
    strip.setRange(0, 12);
    const QSize hint = strip.sizeHint();
    strip.setValue(3);
    QCOMPARE(strip.text(), QStringLiteral("computing 3 of 12 strategies"));
    strip.setValue(12);
    QCOMPARE(strip.text(), QStringLiteral("computing 12 of 12 strategies"));
    QCOMPARE(strip.sizeHint(), hint);
    strip.setValue(40);  // clamped to the range
    QCOMPARE(strip.value(), 12);
    strip.setFormat(QStringLiteral("%p%"));
    strip.setValue(6);
    QCOMPARE(strip.text(), QStringLiteral("50%"));
    strip.setRange(0, 0);  // busy, amount unknown: no misleading "0 of 0"
    QCOMPARE(strip.value(), 0);
    QVERIFY(strip.text().isEmpty());
    // Drawn by the style as a progress bar: at 5 of 12 its left part is the filled chunk.
    strip.setRange(0, 12);
    strip.setFormat(QStringLiteral("computing %v of %m strategies"));
    strip.setValue(5);
    strip.resize(strip.sizeHint());
    const QImage painted = strip.grab().toImage();
    QVERIFY(!painted.isNull());
    const int y = painted.height() / 2;
    QVERIFY(painted.pixelColor(3, y) != painted.pixelColor(painted.width() - 4, y));
}

// Requests made in one burst (edits faster than a frame) start one computation, the last one's;
// a cancel before it starts leaves nothing running.
void TestComparison::burstOfRequestsComputesOnce() {
    Inputs in = preset("gpt2-tiny");
    ComparisonPanel panel;
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "every:2");
    panel.request(in.model, in.training, in.device, "every:3");
    panel.request(in.model, in.training, in.device, "sqrt");
    QVERIFY(panel.isBusy());
    QVERIFY(computed.wait(60000));
    QTest::qWait(200);  // nothing else arrives
    QCOMPARE(computed.count(), 1);
    QVERIFY(panel.model()->rowOf("sqrt") >= 0);
    QVERIFY(!panel.isBusy());
    // Cancelled before its start: never runs.
    in.training.microBatch += 1;  // other inputs, so the request is not already answered
    panel.request(in.model, in.training, in.device, "every:2");
    QVERIFY(panel.isBusy());
    panel.cancel();
    QVERIFY(!panel.isBusy());
    QVERIFY(!computed.wait(300));
}

void TestComparison::panelComputesInBackground() {
    Inputs in = preset("gpt2-small");
    const Graph g = lowered(in);
    ComparisonPanel panel;
    panel.resize(1200, 500);
    panel.show();
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    QSignalSpy busy(&panel, &ComparisonPanel::busyChanged);
    panel.request(in.model, in.training, in.device, "every:3");
    // request() returns before the work is done: the busy bar shows.
    QVERIFY(panel.isBusy());
    QVERIFY(panel.busyBar()->isVisible());
    QVERIFY(computed.wait(60000));
    QVERIFY(!panel.isBusy());
    QVERIFY(!panel.busyBar()->isVisible());
    QCOMPARE(busy.count(), 2);
    const ComparisonResult& r = panel.result();
    QVERIFY(r.curveDone);
    ComparisonModel* model = panel.model();
    QCOMPARE(model->rowCount(), int(r.named.size()));
    for (int row = 0; row < model->rowCount(); ++row) {
        const std::string spelling =
            model->data(model->index(row, 0), ComparisonModel::StrategyRole)
                .toString()
                .toStdString();
        compareRows(model->rows()[std::size_t(row)], expectedRow(in, g, spelling));
    }
    for (std::size_t k = 1; k <= g.chain.size(); ++k)
        compareRows(r.everyK[k - 1], expectedRow(in, g, "every:" + std::to_string(k)));
    // The current plan is marked in the table and ringed on the plot.
    const int current = model->rowOf("every:3");
    QVERIFY(current >= 0);
    QVERIFY(model->data(model->index(current, 0)).toString().contains("current"));
    QVERIFY(panel.plot()->plotAdapter()->hasLine("current"));
    // The curve holds every K and the named points; all are drawn.
    const auto curve = panel.plot()->plotAdapter()->lineData("curve");
    QCOMPARE(std::size_t(curve.size()), g.chain.size());
    QCOMPARE(std::size_t(panel.plot()->plotAdapter()->lineData("named").size()), r.named.size());
}

void TestComparison::secondRequestCancelsFirst() {
    Inputs big = preset("gpt3-175b");  // ~100 evaluations of ~20k instructions: seconds
    Inputs small = preset("mlp-3x1024");
    QThreadPool::globalInstance()->waitForDone();
    ComparisonPanel panel;
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(big.model, big.training, big.device, "none");
    QTest::qWait(50);
    panel.request(small.model, small.training, small.device, "manual");
    QVERIFY(computed.wait(60000));
    QCOMPARE(computed.count(), 1);
    QCOMPARE(panel.result().modelName, std::string("mlp-3x1024"));
    // The first worker was cancelled: it stops at its next check instead of running ~100
    // GPT-3 evaluations, and what it reports is never shown.
    QVERIFY(QThreadPool::globalInstance()->waitForDone(20000));
    QTest::qWait(100);
    QCOMPARE(computed.count(), 1);
    QCOMPARE(panel.result().modelName, std::string("mlp-3x1024"));
    QVERIFY(panel.model()->rowOf("manual") >= 0);
}

void TestComparison::cancelledWorkerStopsBetweenStrategies() {
    Inputs in = preset("gpt2-small");
    int evaluated = 0;
    ComparisonHooks hooks;
    hooks.progress = [&](int, int) { ++evaluated; };
    hooks.cancelled = [&] { return evaluated >= 3; };
    const ComparisonResult r =
        computeComparison(ComparisonRequest{in.model, in.training, in.device, ""}, hooks);
    QVERIFY(r.cancelled);
    QCOMPARE(evaluated, 3);
    QCOMPARE(r.named.size(), std::size_t(3));
    QVERIFY(!r.curveDone);
}

void TestComparison::strategyOnlyChangeDoesNotRecompute() {
    Inputs in = preset("gpt2-tiny");
    ComparisonPanel panel;
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "none");
    QVERIFY(computed.wait(60000));
    // Choosing a strategy the result already holds only moves the highlight.
    panel.request(in.model, in.training, in.device, "every:2");
    QVERIFY(!panel.isBusy());
    QCOMPARE(panel.model()->currentStrategy(), QString("every:2"));
    // A change of settings recomputes.
    TrainingConfig other = in.training;
    other.microBatch += 1;
    panel.request(in.model, other, in.device, "every:2");
    QVERIFY(panel.isBusy());
    QVERIFY(computed.wait(60000));
}

void TestComparison::rowClickChoosesStrategy() {
    Inputs in = preset("gpt2-tiny");
    ComparisonPanel panel;
    QVERIFY(showAt(panel, QSize(1200, 500)));
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    QSignalSpy chosen(&panel, &ComparisonPanel::strategyChosen);
    panel.request(in.model, in.training, in.device, "none");
    QVERIFY(computed.wait(60000));
    QTableView* table = panel.table();
    const int row = panel.model()->rowOf("full");
    QVERIFY(row >= 0);
    const QRect cell = table->visualRect(table->model()->index(row, 1));
    QVERIFY(cell.isValid());
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QString("full"));
}

void TestComparison::pointClickChoosesStrategy() {
    Inputs in = preset("gpt2-small");
    ComparisonPanel panel;
    QVERIFY(showAt(panel, QSize(1300, 600)));
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    QSignalSpy chosen(&panel, &ComparisonPanel::strategyChosen);
    panel.request(in.model, in.training, in.device, "none");
    QVERIFY(computed.wait(60000));
    TradeoffPlot* plot = panel.plot();
    // A point of the curve that is no table row and that no other strategy shares (every:6
    // and every:7 on 12 blocks have the same peak and time, every:10 is alone).
    const QPointF at = plot->pixelOf("every:10");
    QVERIFY(at.x() >= 0);
    QCOMPARE(plot->strategyAt(at.toPoint()), QString("every:10"));
    clickPlot(plot, at);
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QString("every:10"));
    // Far from every point nothing is chosen.
    QCOMPARE(plot->strategyAt(QPoint(2, 2)), QString());
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        panel.setCurrentStrategy("every:3");
        QTest::qWait(50);
        panel.grab().save(QString::fromLocal8Bit(dir) + "/comparison-gpt2-small.png");
        QPalette pal;
        pal.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
        pal.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1b));
        pal.setColor(QPalette::AlternateBase, QColor(0x24, 0x26, 0x28));
        pal.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
        pal.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
        pal.setColor(QPalette::Button, QColor(0x2d, 0x30, 0x33));
        pal.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
        panel.setPalette(pal);
        QTest::qWait(50);
        panel.grab().save(QString::fromLocal8Bit(dir) + "/comparison-gpt2-small-dark.png");
    }
}

void TestComparison::exportsWriteTable() {
    Inputs in = preset("gpt2-tiny");
    ComparisonPanel panel;
    QTemporaryDir dir;
    QString error;
    QVERIFY(!panel.exportCsv(dir.filePath("empty.csv"), &error));
    QVERIFY(!error.isEmpty());
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "full");
    QVERIFY(computed.wait(60000));
    const ComparisonResult& r = panel.result();

    QVERIFY2(panel.exportCsv(dir.filePath("c.csv"), &error), qPrintable(error));
    QFile csv(dir.filePath("c.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), qsizetype(1 + r.named.size() + r.everyK.size() + r.frontier.size()));
    QVERIFY(!r.frontier.empty());
    QVERIFY(lines.back().startsWith(QString::fromStdString(r.frontier.back().spelling) +
                                    ",optimal frontier," +
                                    QString::number(r.frontier.back().peakBytes) + ","));
    QVERIFY(lines[0].startsWith("strategy,series,peak_bytes"));
    QVERIFY(lines[1].startsWith(QString::fromStdString(r.named[0].spelling) + ",table," +
                                QString::number(r.named[0].peakBytes) + ","));

    QVERIFY2(panel.exportMarkdown(dir.filePath("c.md"), &error), qPrintable(error));
    QFile md(dir.filePath("c.md"));
    QVERIFY(md.open(QIODevice::ReadOnly | QIODevice::Text));
    const QString text = QString::fromUtf8(md.readAll());
    QVERIFY(text.startsWith("# "));
    QVERIFY(text.contains("| strategy | peak |"));
    QVERIFY(text.contains("| full (current) |"));
    QCOMPARE(text.count(QStringLiteral("\n| ")), qsizetype(2 + r.named.size()));

    for (const char* ext : {"png", "svg", "pdf"}) {
        const QString path = dir.filePath(QStringLiteral("plot.") + ext);
        QVERIFY2(panel.exportPlot(path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 1000);
    }
    QVERIFY(!panel.exportCsv(dir.filePath("missing/dir/c.csv"), &error));
}

void TestComparison::badModelShowsError() {
    Inputs in = preset("mlp-3x1024");
    in.model.network.layers[1].out = 0;  // a linear layer with no outputs: lowering refuses
    ComparisonPanel panel;
    QSignalSpy busy(&panel, &ComparisonPanel::busyChanged);
    panel.request(in.model, in.training, in.device, "none");
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
    QVERIFY(!panel.result().error.empty());
    QCOMPARE(panel.model()->rowCount(), 0);
    QVERIFY(panel.statusText().contains(QString::fromStdString(panel.result().error)));
}

namespace {
// Nice values of the process's threads, from /proc (Linux).
QList<int> threadNiceValues() {
    QList<int> values;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString& tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(tasks.filePath(tid + QStringLiteral("/stat")));
        if (!stat.open(QIODevice::ReadOnly)) continue;
        // "pid (comm) state ..." : the nice value is field 19, the 17th after the comm.
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 16) values << fields[16].toInt();
    }
    return values;
}
}  // namespace

// The comparison's thread yields to the window's: its nice value is raised, the GUI thread's
// is not.
void TestComparison::backgroundGivesWayToTheWindow() {
#ifndef __linux__
    QSKIP("thread priorities are checked through /proc on Linux");
#else
    const int windowNice = threadNiceValue();
    Inputs in = preset("gpt2-tiny");
    in.training.microBatch += 2;  // inputs no other test asked for
    ComparisonPanel panel;
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "every:2");
    QVERIFY(computed.wait(60000));
    QCOMPARE(threadNiceValue(), windowNice);
    // The pool keeps its thread for a while after the job: it is there to be read.
    const QList<int> nice = threadNiceValues();
    QVERIFY2(nice.contains(std::max(windowNice, 10)), qPrintable(QString::number(nice.size())));
#endif
}

// An in-place tanh right after a checkpointed region's boundary overwrites the region's input,
// which the region keeps for its recompute, and the recompute keeps tanh(tanh(x)): the compiler
// marks such plans unsafe (valid, but the gradients differ). The table says "UNSAFE" in words and colours the strategy; the trade-off
// plot puts a warning triangle on the point and "(unsafe)" in its label; the CSV has the verdict.
void TestComparison::unsafePlansAreMarkedInTableAndPlot() {
    Inputs in = preset("mlp-3x1024");
    auto m = parseModel(
        R"({"format": "remat-model/1", "name": "inplace-mlp", "input": {"shape": [256]},
            "layers": [{"kind": "linear", "out": 256}, {"kind": "tanh", "inplace": true},
                       {"kind": "linear", "out": 256}, {"kind": "tanh", "inplace": true},
                       {"kind": "linear", "out": 256}, {"kind": "mse"}],
            "training": {"micro_batch": 8}})",
        "inplace-mlp");
    QVERIFY2(m, m ? "" : m.error().message.c_str());
    in.model = *m;
    in.training = m->training;
    const ComparisonResult r =
        computeComparison(ComparisonRequest{in.model, in.training, in.device, "none"});
    QVERIFY(r.error.empty());
    int unsafeRows = 0, safeRows = 0;
    for (const ComparisonRow& row : r.named) {
        QVERIFY2(row.ok, row.error.c_str());
        // The verdict is the compiler's, row by row.
        const Graph g = lowered(in);
        auto e = evaluate(g, *parseStrategy(row.spelling), {}, in.training, in.device);
        QVERIFY(e);
        QCOMPARE(row.unsafe, e->program.unsafe());
        (row.unsafe ? unsafeRows : safeRows)++;
    }
    QVERIFY2(unsafeRows > 0, "full checkpointing of an in-place network must be unsafe");
    QVERIFY(safeRows > 0);  // `none` at least

    ComparisonModel model;
    model.setRows(r.named);
    QCOMPARE(model.headerData(ComparisonModel::SafeColumn, Qt::Horizontal).toString(),
             QString("safe"));
    QVERIFY(model.headerData(ComparisonModel::SavedColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("whole peak"));
    for (int i = 0; i < model.rowCount(); ++i) {
        const ComparisonRow& row = r.named[std::size_t(i)];
        const QString safe = model.data(model.index(i, ComparisonModel::SafeColumn)).toString();
        QCOMPARE(safe, row.unsafe ? QString("UNSAFE") : QString("yes"));
        const QVariant colour =
            model.data(model.index(i, ComparisonModel::StrategyColumn), Qt::ForegroundRole);
        QCOMPARE(colour.isValid(), row.unsafe);
        if (row.unsafe)
            QVERIFY(model.data(model.index(i, ComparisonModel::StrategyColumn), Qt::ToolTipRole)
                        .toString()
                        .contains(QString::fromStdString(row.unsafeReason)));
    }
    const QStringList csv = model.toCsv().split('\n', Qt::SkipEmptyParts);
    QVERIFY(csv[0].contains(",fits,safe,"));
    QCOMPARE(csv.filter(",UNSAFE,").size(), qsizetype(unsafeRows));

    TradeoffPlot plot;
    plot.resize(900, 500);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setData(r);
    int markedNamed = 0;
    for (const TradeoffPlot::Point& p : plot.points()) {
        if (p.series == TradeoffPlot::Series::Frontier) continue;
        const ComparisonRow* row = nullptr;
        for (const ComparisonRow& c : (p.series == TradeoffPlot::Series::Named ? r.named : r.everyK))
            if (QString::fromStdString(c.spelling) == p.spelling) row = &c;
        QVERIFY(row);
        QCOMPARE(p.unsafe, row->unsafe);
        markedNamed += p.series == TradeoffPlot::Series::Named && p.unsafe;
    }
    QCOMPARE(markedNamed, unsafeRows);
    int unsafePoints = 0;
    for (const TradeoffPlot::Point& p : plot.points()) unsafePoints += p.unsafe;
    QVERIFY(plot.plotAdapter()->hasLine(QStringLiteral("unsafe")));
    QCOMPARE(plot.plotAdapter()->lineData(QStringLiteral("unsafe")).size(), qsizetype(unsafePoints));
    QVERIFY(!plot.plotAdapter()->legendIcon(QStringLiteral("unsafe")).isNull());
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        ComparisonPanel panel;
        panel.resize(1300, 420);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.request(in.model, in.training, in.device, "none");
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
        panel.grab().save(QString::fromLocal8Bit(dir) + "/comparison-unsafe.png");
    }
}


// A frontier over its work limit (docs/reliability.md, "Limits") ends with its refusal in the
// status line; the table and the every:K curve are complete. GPT-2 small with 48 blocks: its
// frontier would have over a thousand points.
void TestComparison::refusedFrontierIsSaid() {
    Inputs in = preset("gpt2-small");
    in.model = presetWithInstances(52);
    ComparisonPanel panel;
    panel.resize(1200, 500);
    panel.show();
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "every:3");
    QVERIFY(computed.wait(120000));
    const ComparisonResult& r = panel.result();
    QVERIFY(r.frontierDone);
    QVERIFY(r.frontier.empty());
    QVERIFY2(r.frontierError.rfind("the optimal frontier (", 0) == 0, r.frontierError.c_str());
    QVERIFY2(r.frontierError.find("more than the largest search supported (32000000)") !=
                 std::string::npos,
             r.frontierError.c_str());
    QCOMPARE(r.everyK.size(), std::size_t(48));
    QVERIFY2(panel.statusText().contains(QStringLiteral("no optimal frontier: the optimal frontier (")),
             qPrintable(panel.statusText()));
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) panel.grab().save(QString::fromLocal8Bit(dir) + "/comparison-frontier-refused.png");
}

QTEST_MAIN(TestComparison)
#include "tst_comparison.moc"
