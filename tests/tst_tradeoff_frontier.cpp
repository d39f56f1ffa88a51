// Tests of the optimal frontier in the comparison: the background worker computes it after the
// every:K curve (ascending in peak, descending in step time, ending at no checkpointing, the
// same plans remat::computeTradeoff finds); the exact budget `optimal:PEAK` of every point gives
// back a plan no higher and no slower; the panel draws it once the worker finishes and cancels
// it with the next request; and in the main window a click on a frontier point of the trade-off
// plot makes the document's strategy that budget, with a simulated peak within the point's,
// the point ringed, nothing recomputed, and undo going back.
#include <QSignalSpy>
#include <QStandardPaths>
#include <QThreadPool>
#include <QUndoStack>
#include <QtTest>
#include <algorithm>
#include <atomic>

#include "analysis.h"
#include "comparison_panel.h"
#include "comparison_worker.h"
#include "document.h"
#include "lower.h"
#include "main_window.h"
#include "model_file.h"
#include "pareto.h"
#include "plot_adapter.h"
#include "tradeoff_plot.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;
using namespace remat::test;

namespace {

// Whether any pixel of `image` in the rectangle from (x0, y0) to (x1, y1), inclusive, is drawn.
bool inked(const QImage& image, int x0, int y0, int x1, int y1) {
    for (int y = std::max(0, y0); y <= std::min(image.height() - 1, y1); ++y)
        for (int x = std::max(0, x0); x <= std::min(image.width() - 1, x1); ++x)
            if (qAlpha(image.pixel(x, y)) > 0) return true;
    return false;
}

}  // namespace

class TestTradeoffFrontier : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void workerComputesFrontierAfterCurve();
    void exactBudgetGivesThePointBack();
    void panelDrawsFrontierWhenDone();
    void cancelFlagStopsFrontier();
    void nextRequestCancelsFrontier();
    void clickingAFrontierPointAppliesIt();
    void curveLabelsNeverOverlap();
    void peakAxisLeavesZeroOnlyWhenPeaksAreClose();
    void wheelZoomsBothAxesAndDoubleClickResets();
};

void TestTradeoffFrontier::workerComputesFrontierAfterCurve() {
    Inputs in = preset("gpt2-small");
    const Graph g = lowered(in);
    int curveReadyCalls = 0, lastDone = 0, lastTotal = 0;
    ComparisonHooks hooks;
    hooks.curveReady = [&](const ComparisonResult& partial) {
        ++curveReadyCalls;
        QVERIFY(partial.curveDone);
        QVERIFY(!partial.frontierDone);
        QVERIFY(partial.frontier.empty());
        QCOMPARE(partial.everyK.size(), g.chain.size());
    };
    hooks.progress = [&](int done, int total) {
        lastDone = done;
        lastTotal = total;
    };
    const ComparisonResult r =
        computeComparison(ComparisonRequest{in.model, in.training, in.device, "none"}, hooks);
    QVERIFY(r.error.empty());
    QCOMPARE(curveReadyCalls, 1);
    QVERIFY(r.frontierDone);
    QVERIFY2(r.frontierError.empty(), r.frontierError.c_str());
    QCOMPARE(lastDone, lastTotal);
    QCOMPARE(std::size_t(lastTotal), r.named.size() + r.everyK.size() + 1);
    // A real frontier: several plans, ascending in peak and strictly descending in time.
    QVERIFY(r.frontier.size() >= 3);
    for (std::size_t i = 1; i < r.frontier.size(); ++i) {
        QVERIFY(r.frontier[i].peakBytes > r.frontier[i - 1].peakBytes);
        QVERIFY(r.frontier[i].stepTimeS < r.frontier[i - 1].stepTimeS);
    }
    // It ends at no checkpointing: the table's "none" row.
    const auto none = std::find_if(r.named.begin(), r.named.end(),
                                   [](const ComparisonRow& row) { return row.spelling == "none"; });
    QVERIFY(none != r.named.end());
    QCOMPARE(r.frontier.back().peakBytes, none->peakBytes);
    QCOMPARE(r.frontier.back().recomputeTimeS, 0.0);
    // No named strategy and no every:K beats it: each is matched in memory at no more time.
    for (const ComparisonRow& row : r.named) {
        if (!row.ok) continue;
        const bool matched = std::any_of(r.frontier.begin(), r.frontier.end(), [&](auto& f) {
            return f.peakBytes <= row.peakBytes && f.stepTimeS <= row.stepTimeS * (1 + 1e-9);
        });
        // Selective plans cut inside blocks, which the single-level chain planner cannot:
        // only the plans on the chain are bound to be matched.
        if (row.spelling.rfind("selective", 0) != 0) QVERIFY2(matched, row.spelling.c_str());
    }
    // The same plans as the library's own trade-off explorer, each spelled by its exact peak.
    auto t = computeTradeoff(g, in.training, in.device);
    QVERIFY(t);
    QCOMPARE(r.frontier.size(), t->frontier.size());
    for (std::size_t i = 0; i < r.frontier.size(); ++i) {
        QCOMPARE(r.frontier[i].peakBytes, t->frontier[i].peakBytes);
        QCOMPARE(r.frontier[i].stepTimeS, t->frontier[i].stepTimeS);
        QCOMPARE(r.frontier[i].spelling,
                 (Strategy{StrategyKind::Optimal, 0, {}, r.frontier[i].peakBytes, {}}.spelling()));
        auto parsed = parseStrategy(r.frontier[i].spelling);
        QVERIFY(parsed);
        QCOMPARE(int(parsed->kind), int(StrategyKind::Optimal));
        QCOMPARE(parsed->budgetBytes, r.frontier[i].peakBytes);
        QCOMPARE(r.frontier[i].fits, r.frontier[i].peakBytes <= in.device.usableBytes());
    }
}

void TestTradeoffFrontier::exactBudgetGivesThePointBack() {
    for (const char* name : {"gpt2-small", "resnet-101"}) {
        Inputs in = preset(name);
        const Graph g = lowered(in);
        const ComparisonResult r =
            computeComparison(ComparisonRequest{in.model, in.training, in.device, "none"});
        QVERIFY(r.frontierDone);
        QVERIFY(!r.frontier.empty());
        int equal = 0;
        for (const FrontierPoint& f : r.frontier) {
            auto s = parseStrategy(f.spelling);
            QVERIFY(s);
            auto e = evaluate(g, *s, manualRegions(in.model), in.training, in.device);
            QVERIFY2(e, f.spelling.c_str());
            const Timeline& t = e->timeline;
            QVERIFY2(t.peakBytes <= f.peakBytes, f.spelling.c_str());
            QVERIFY2(t.timeS.total() <= f.stepTimeS * (1 + 1e-9), f.spelling.c_str());
            if (t.peakBytes == f.peakBytes) ++equal;
        }
        qInfo("%s: %d of %zu frontier budgets give back exactly the point's peak", name, equal,
              r.frontier.size());
    }
}

void TestTradeoffFrontier::panelDrawsFrontierWhenDone() {
    Inputs in = preset("gpt2-small");
    ComparisonPanel panel;
    QVERIFY(showAt(panel, QSize(1300, 600)));
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "none");
    QVERIFY(panel.isBusy());
    QVERIFY(!panel.plot()->plotAdapter()->hasLine("frontier"));
    QVERIFY(computed.wait(60000));
    const ComparisonResult& r = panel.result();
    QVERIFY(r.frontierDone);
    QVERIFY(!r.frontier.empty());
    // Drawn as one line, ordered by step time: the staircase from no checkpointing (fastest,
    // highest) down to the smallest peak (slowest).
    PlotAdapter* adapter = panel.plot()->plotAdapter();
    QVERIFY(adapter->hasLine("frontier"));
    const QVector<QPointF> drawn = adapter->lineData("frontier");
    QCOMPARE(std::size_t(drawn.size()), r.frontier.size());
    for (std::size_t i = 0; i < r.frontier.size(); ++i) {
        const FrontierPoint& f = r.frontier[r.frontier.size() - 1 - i];
        QCOMPARE(drawn[qsizetype(i)].x(), f.stepTimeS);
        QCOMPARE(drawn[qsizetype(i)].y(), double(f.peakBytes));
    }
    // Every frontier point is a point of the plot, found where it is drawn.
    std::size_t frontierPoints = 0;
    for (const TradeoffPlot::Point& p : panel.plot()->points())
        if (p.series == TradeoffPlot::Series::Frontier) ++frontierPoints;
    QCOMPARE(frontierPoints, r.frontier.size());
    const FrontierPoint& middle = r.frontier[r.frontier.size() / 2];
    const QPointF at = panel.plot()->pixelOf(QString::fromStdString(middle.spelling));
    QVERIFY(at.x() >= 0);
    const QPointF back = adapter->pixelToData(at.toPoint());
    QVERIFY(std::abs(back.x() - middle.stepTimeS) <= 0.02 * middle.stepTimeS);
    QVERIFY(panel.statusText().contains(QString::number(r.frontier.size())));

    // The legend shows the ring around the current plan whole, not clipped to the icon's height
    // (which left two arcs, "( )"): drawn above, below, left and right of the icon's centre on
    // its middle column and row, and hollow.
    panel.setCurrentStrategy(QString::fromStdString(middle.spelling));
    const QImage ring = adapter->legendIcon("current");
    QVERIFY(!ring.isNull());
    const int cx = ring.width() / 2, cy = ring.height() / 2;
    QVERIFY(inked(ring, cx, 0, cx, cy - 3));
    QVERIFY(inked(ring, cx, cy + 3, cx, ring.height() - 1));
    QVERIFY(inked(ring, 0, cy, cx - 3, cy));
    QVERIFY(inked(ring, cx + 3, cy, ring.width() - 1, cy));
    QVERIFY(!inked(ring, cx - 1, cy - 1, cx, cy));
    QVERIFY(adapter->legendIcon("no such line").isNull());

    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        panel.setCurrentStrategy(QString::fromStdString(middle.spelling));
        QTest::qWait(50);
        panel.grab().save(QString::fromLocal8Bit(dir) + "/comparison-frontier-gpt2-small.png");
    }
}

// A comparison of `n` every:K points whose peaks run from `low` to `high` bytes, for the plot.
static ComparisonResult syntheticCurve(int n, double low, double high) {
    ComparisonResult r;
    r.chainLength = std::size_t(n);
    r.curveDone = true;
    for (int k = 1; k <= n; ++k) {
        ComparisonRow row;
        row.ok = true;
        row.spelling = "every:" + std::to_string(k);
        row.stepTimeS = 1.0 + 0.3 / k;
        row.peakBytes = std::int64_t(low + (high - low) * double(k - 1) / std::max(1, n - 1));
        r.everyK.push_back(row);
    }
    return r;
}

void TestTradeoffFrontier::curveLabelsNeverOverlap() {
    Inputs in = preset("gpt2-small");
    ComparisonPanel panel;
    QVERIFY(showAt(panel, QSize(1300, 600)));
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(in.model, in.training, in.device, "none");
    QVERIFY(computed.wait(60000));
    QTest::qWait(50);
    const QStringList k = panel.plot()->curveLabels();
    // Some K are labelled, each naming a point of the curve...
    QVERIFY(!k.isEmpty());
    for (const QString& label : k) {
        QVERIFY2(label.startsWith("K="), qPrintable(label));
        const int value = label.mid(2).toInt();
        QVERIFY(value >= 1 && std::size_t(value) <= panel.result().everyK.size());
    }
    // ...and no shown K label overlaps any other shown label, named or K.
    PlotAdapter* adapter = panel.plot()->plotAdapter();
    const std::vector<QRectF> all = adapter->visiblePointLabelRects();
    const std::vector<QRectF> kRects = adapter->visiblePointLabelRects("curve-labels");
    QCOMPARE(kRects.size(), std::size_t(k.size()));
    QVERIFY(all.size() > kRects.size());
    for (const QRectF& a : kRects) {
        int overlapping = 0;  // itself, once
        for (const QRectF& b : all)
            if (a.intersects(b)) ++overlapping;
        QVERIFY2(overlapping == 1, "a K label overlaps another label");
    }
    // On a narrow plot fewer K fit, and still none overlaps.
    panel.resize(420, 300);
    QTest::qWait(80);
    QVERIFY(panel.plot()->curveLabels().size() <= k.size());
}

void TestTradeoffFrontier::peakAxisLeavesZeroOnlyWhenPeaksAreClose() {
    TradeoffPlot plot;
    QVERIFY(showAt(plot, QSize(700, 420)));
    // Peaks within 5% of each other: a zero-based axis would draw one flat line.
    plot.setData(syntheticCurve(12, 100.0 * (1 << 30), 105.0 * (1 << 30)));
    QVERIFY(!plot.peakAxisFromZero());
    const QPointF y = plot.plotAdapter()->range(PlotAxis::Y);
    QVERIFY(y.x() > 50.0 * (1 << 30));
    QVERIFY(y.x() < 100.0 * (1 << 30));
    // The legend says where the axis starts.
    QVERIFY(!plot.plotAdapter()->legendSwatchNames().filter("not 0").isEmpty());
    // Peaks from 1 to 10 GiB: the axis starts at zero.
    plot.setData(syntheticCurve(12, 1.0 * (1 << 30), 10.0 * (1 << 30)));
    QVERIFY(plot.peakAxisFromZero());
    QCOMPARE(plot.plotAdapter()->range(PlotAxis::Y).x(), 0.0);
    QVERIFY(plot.plotAdapter()->legendSwatchNames().filter("not 0").isEmpty());
}

void TestTradeoffFrontier::wheelZoomsBothAxesAndDoubleClickResets() {
    TradeoffPlot plot;
    QVERIFY(showAt(plot, QSize(700, 420)));
    plot.setData(syntheticCurve(12, 1.0 * (1 << 30), 10.0 * (1 << 30)));
    PlotAdapter* adapter = plot.plotAdapter();
    const QPointF x0 = adapter->range(PlotAxis::X), y0 = adapter->range(PlotAxis::Y);
    QWidget* canvas = nullptr;
    for (QWidget* w : adapter->findChildren<QWidget*>())
        if (w->inherits("QCustomPlot")) canvas = w;
    QVERIFY(canvas);
    const QPointF centre = QPointF(canvas->rect().center());
    QWheelEvent wheel(centre, canvas->mapToGlobal(centre), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas, &wheel);
    const QPointF x1 = adapter->range(PlotAxis::X), y1 = adapter->range(PlotAxis::Y);
    QVERIFY(x1.y() - x1.x() < x0.y() - x0.x());
    QVERIFY(y1.y() - y1.x() < y0.y() - y0.x());
    QTest::mouseDClick(canvas, Qt::LeftButton, Qt::NoModifier, centre.toPoint());
    QCOMPARE(adapter->range(PlotAxis::X), x0);
    QCOMPARE(adapter->range(PlotAxis::Y), y0);
}

void TestTradeoffFrontier::cancelFlagStopsFrontier() {
    // The flag raised once the curve is done (as the panel raises it from the GUI thread when
    // the next edit comes): the frontier is not computed and the result says it was cancelled.
    Inputs in = preset("llama-7b");
    std::atomic<bool> cancel{false};
    int progressAfterCurve = 0;
    bool curveSeen = false;
    ComparisonHooks hooks;
    hooks.cancelFlag = &cancel;
    hooks.curveReady = [&](const ComparisonResult&) {
        curveSeen = true;
        cancel = true;
    };
    hooks.progress = [&](int, int) {
        if (curveSeen) ++progressAfterCurve;
    };
    const ComparisonResult r =
        computeComparison(ComparisonRequest{in.model, in.training, in.device, "none"}, hooks);
    QVERIFY(curveSeen);
    QVERIFY(r.cancelled);
    QVERIFY(r.curveDone);
    QVERIFY(!r.frontierDone);
    QVERIFY(r.frontier.empty());
    QCOMPARE(progressAfterCurve, 0);
    // Without the flag the same request does compute it.
    cancel = false;
    hooks.curveReady = nullptr;
    const ComparisonResult full =
        computeComparison(ComparisonRequest{in.model, in.training, in.device, "none"}, hooks);
    QVERIFY(!full.cancelled);
    QVERIFY(full.frontierDone);
    QVERIFY(full.frontier.size() > 1);
}

void TestTradeoffFrontier::nextRequestCancelsFrontier() {
    // resnet-101's frontier takes about a second; a new request while it runs stops it.
    Inputs big = preset("resnet-101");
    Inputs small = preset("mlp-3x1024");
    QThreadPool::globalInstance()->waitForDone();
    ComparisonPanel panel;
    QSignalSpy computed(&panel, &ComparisonPanel::computed);
    panel.request(big.model, big.training, big.device, "none");
    // Wait until the curve is shown: the worker is in the frontier now.
    QTRY_VERIFY_WITH_TIMEOUT(panel.result().curveDone, 60000);
    QVERIFY(!panel.result().frontierDone);
    panel.request(small.model, small.training, small.device, "manual");
    QVERIFY(computed.wait(60000));
    QVERIFY(QThreadPool::globalInstance()->waitForDone(20000));
    QTest::qWait(100);
    QCOMPARE(computed.count(), 1);
    QCOMPARE(panel.result().modelName, std::string("mlp-3x1024"));
    QVERIFY(panel.result().frontierDone);
}

void TestTradeoffFrontier::clickingAFrontierPointAppliesIt() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel("gpt2-small"));
    QVERIFY(showAt(w, QSize(1600, 1000)));
    ComparisonPanel* panel = w.comparison();
    QSignalSpy computed(panel, &ComparisonPanel::computed);
    if (panel->isBusy()) QVERIFY(computed.wait(60000));
    QVERIFY(panel->result().frontierDone);
    const std::vector<FrontierPoint> frontier = panel->result().frontier;
    QVERIFY(frontier.size() >= 3);
    TradeoffPlot* plot = panel->plot();
    // A point inside the frontier (not no checkpointing, which the table's "none" covers):
    // the one the plot finds at its own pixel.
    const FrontierPoint* chosen = nullptr;
    QPointF at;
    for (std::size_t i = frontier.size() / 3; i + 1 < frontier.size() && !chosen; ++i) {
        const QString spelling = QString::fromStdString(frontier[i].spelling);
        at = plot->pixelOf(spelling);
        if (at.x() >= 0 && plot->strategyAt(at.toPoint()) == spelling) chosen = &frontier[i];
    }
    QVERIFY2(chosen, "no frontier point can be clicked on its own");
    const QString spelling = QString::fromStdString(chosen->spelling);
    const QString before = w.document()->strategySpelling();
    const std::int64_t peakBefore = w.document()->evaluation().timeline.peakBytes;
    QSignalSpy chosenSpy(plot, &TradeoffPlot::strategyChosen);
    clickPlot(plot, at);
    QCOMPARE(chosenSpy.count(), 1);
    QCOMPARE(chosenSpy.at(0).at(0).toString(), spelling);
    // The document now plans with the point's exact peak as the budget.
    QCOMPARE(w.document()->strategySpelling(), spelling);
    auto s = parseStrategy(w.document()->strategySpelling().toStdString());
    QVERIFY(s);
    QCOMPARE(int(s->kind), int(StrategyKind::Optimal));
    QCOMPARE(s->budgetBytes, chosen->peakBytes);
    const Timeline& t = w.document()->evaluation().timeline;
    QVERIFY(t.peakBytes <= chosen->peakBytes);
    QVERIFY(t.timeS.total() <= chosen->stepTimeS * (1 + 1e-9));
    QVERIFY(t.peakBytes < peakBefore);
    // The comparison already holds the point: nothing is recomputed, the ring moves there.
    QVERIFY(!panel->isBusy());
    const QVector<QPointF> ring = plot->plotAdapter()->lineData("current");
    QCOMPARE(ring.size(), qsizetype(1));
    QCOMPARE(ring.front().x(), chosen->stepTimeS);
    QCOMPARE(ring.front().y(), double(chosen->peakBytes));
    // One undo step back to where it was.
    QCOMPARE(w.document()->undoStack()->count(), 1);
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->strategySpelling(), before);
    QCOMPARE(w.document()->evaluation().timeline.peakBytes, peakBefore);
}

QTEST_MAIN(TestTradeoffFrontier)
#include "tst_tradeoff_frontier.moc"
