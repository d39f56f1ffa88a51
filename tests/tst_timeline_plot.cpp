// Tests of the memory timeline plot: what it draws equals the simulator's timeline (the stacked
// tops sum the categories exactly, the peak is drawn at Timeline::peakInstruction with its
// exact bytes even when the program is decimated for display), a highlighted layer covers
// exactly that layer's instructions, a click reports the layer under the cursor, the measured
// overlay and the exports work, and a rendered plot is not blank. Re-plot times for GPT-2 small
// and GPT-3 175B are printed.
#include <algorithm>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <ctime>
#include <map>
#include <random>
#include <set>

#include "analysis.h"
#include "lower.h"
#include "model_file.h"
#include "plot_adapter.h"
#include "qt_convert.h"
#include "timeline_plot.h"
#include "timeline_series.h"

using namespace remat;
using namespace remat::ui;

namespace {

struct Case {
    Graph graph;
    Evaluation evaluation;
    DeviceSpec device;
};

Case evaluatePreset(const std::string& preset, const std::string& strategy = {},
                    std::int64_t accumulationSteps = 0) {
    Case c;
    auto model = loadModel(preset);
    if (!model) qFatal("%s", model.error().message.c_str());
    if (accumulationSteps > 0) model->training.accumulationSteps = accumulationSteps;
    auto g = lower(model->network, model->training.precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    c.graph = std::move(*g);
    auto d = findDevice(model->device.empty() ? "a100-80gb" : model->device);
    if (!d) qFatal("%s", d.error().message.c_str());
    c.device = *d;
    auto s = parseStrategy(strategy.empty() ? defaultStrategy(*model) : strategy);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto e = evaluate(c.graph, *s, manualRegions(*model), model->training, c.device);
    if (!e) qFatal("%s", e.error().message.c_str());
    c.evaluation = std::move(*e);
    return c;
}

bool isCompute(InstrKind k) {
    return k == InstrKind::Forward || k == InstrKind::Recompute || k == InstrKind::Backward;
}

int distinctColors(const QImage& image) {
    std::set<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colors.insert(image.pixel(x, y));
    return int(colors.size());
}

}  // namespace

class TestTimelinePlot : public QObject {
    Q_OBJECT
private slots:
    void drawnStackEqualsTimeline_data();
    void drawnStackEqualsTimeline();
    void peakDrawnExactlyWhenDecimated();
    void decimationKeepsEveryBucketsMaximum();
    void blockExtremesDecimateAsInstructionByInstruction();
    void timeAxisUsesPredictedTimes();
    void highlightCoversExactlyTheLayer();
    void clickReportsLayer();
    void tooltipSaysWhatAnInstructionIs();
    void repeatedMicroBatchesDrawnOnceOverTheirTime();
    void measuredOverlay();
    void exportsWriteFiles();
    void renderedGrabIsNotBlank();
    void sharedAndCopiedDataDrawTheSame_data();
    void sharedAndCopiedDataDrawTheSame();
};

void TestTimelinePlot::drawnStackEqualsTimeline_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("strategy");
    QTest::newRow("mlp manual") << "mlp-3x1024"
                                << "";
    QTest::newRow("gpt2-small every:3") << "gpt2-small"
                                        << "every:3";
    QTest::newRow("resnet-101 sqrt") << "resnet-101"
                                     << "sqrt";
    QTest::newRow("gpt3-175b full") << "gpt3-175b"
                                    << "full";
}

void TestTimelinePlot::drawnStackEqualsTimeline() {
    QFETCH(QString, preset);
    QFETCH(QString, strategy);
    Case c = evaluatePreset(preset.toStdString(), strategy.toStdString());
    const Timeline& t = c.evaluation.timeline;
    TimelinePlot plot;
    plot.resize(1000, 500);
    plot.setData(c.graph, c.evaluation.program, t, c.device);

    const auto& shown = plot.displayedInstructions();
    QVERIFY(!shown.empty());
    QVERIFY(std::is_sorted(shown.begin(), shown.end()));
    PlotAdapter* adapter = plot.plotAdapter();
    QCOMPARE(adapter->stackedLayerCount(), int(kCategoryCount));
    std::vector<QVector<QPointF>> drawn;
    for (int k = 0; k < int(kCategoryCount); ++k) drawn.push_back(adapter->stackedData(k));
    // One point per shown instruction plus the closing point.
    for (const auto& layer : drawn) QCOMPARE(layer.size(), qsizetype(shown.size() + 1));
    for (std::size_t s = 0; s < shown.size(); ++s) {
        const std::size_t i = shown[s];
        QCOMPARE(drawn[0][qsizetype(s)].x(), double(i));
        std::int64_t cumulative = 0;
        for (std::size_t k = 0; k < kCategoryCount; ++k) {
            cumulative += t.live[i][k];
            QCOMPARE(std::int64_t(drawn[k][qsizetype(s)].y()), cumulative);
        }
        QCOMPARE(std::int64_t(drawn.back()[qsizetype(s)].y()), totalBytes(t.live[i]));
    }
    // Small programs are drawn whole.
    if (t.live.size() <= 1200) QCOMPARE(shown.size(), t.live.size());
}

void TestTimelinePlot::peakDrawnExactlyWhenDecimated() {
    Case c = evaluatePreset("gpt3-175b", "every:4");
    const Timeline& t = c.evaluation.timeline;
    TimelinePlot plot;
    plot.resize(900, 500);
    plot.setData(c.graph, c.evaluation.program, t, c.device);
    const auto& shown = plot.displayedInstructions();
    QVERIFY2(shown.size() < t.live.size() / 2, "GPT-3 should be decimated for display");
    QCOMPARE(plot.peakInstruction(), t.peakInstruction);
    QVERIFY(std::binary_search(shown.begin(), shown.end(), t.peakInstruction));
    double drawnMax = 0;
    double xAtMax = -1;
    for (const QPointF& p : plot.plotAdapter()->stackedData(int(kCategoryCount) - 1))
        if (p.y() > drawnMax) {
            drawnMax = p.y();
            xAtMax = p.x();
        }
    QCOMPARE(std::int64_t(drawnMax), t.peakBytes);
    QCOMPARE(xAtMax, double(t.peakInstruction));
    // The peak marker and its label are drawn (marker, label, arrow) with the capacity note.
    QVERIFY(plot.plotAdapter()->groupSize("reference") >= 3);

    // Zooming into a range away from the peak re-decimates for that range.
    const double lo = double(t.live.size()) * 0.70, hi = double(t.live.size()) * 0.72;
    plot.plotAdapter()->setRange(PlotAxis::X, lo, hi);
    const auto& zoomed = plot.displayedInstructions();
    QVERIFY(zoomed.size() < shown.size() + t.live.size());
    std::size_t inside = 0;
    for (std::size_t i : zoomed)
        if (double(i) >= lo && double(i) <= hi) ++inside;
    // Every instruction in a 2% window of ~20k fits the pixel budget: all are drawn.
    QCOMPARE(inside, std::size_t(std::floor(hi) - std::ceil(lo) + 1));
}

void TestTimelinePlot::decimationKeepsEveryBucketsMaximum() {
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::int64_t> bytes(0, 1'000'000);
    const std::size_t n = 20000;
    std::vector<std::int64_t> totals(n);
    std::vector<double> endS(n), durationS(n);
    for (std::size_t i = 0; i < n; ++i) totals[i] = bytes(rng);
    const XExtents x = instructionExtents(endS, durationS, XAxis::Instruction);
    const int buckets = 500;
    const auto kept = decimate(x, totals, 0.0, double(n), buckets);
    QVERIFY(kept.size() <= 2 * std::size_t(buckets) + 3);
    const double width = double(n) / buckets;
    std::vector<std::int64_t> allMax(buckets, -1), keptMax(buckets, -1), allMin(buckets, 1 << 30),
        keptMin(buckets, 1 << 30);
    for (std::size_t i = 0; i < n; ++i) {
        const int b = std::min(buckets - 1, int(double(i) / width));
        allMax[b] = std::max(allMax[b], totals[i]);
        allMin[b] = std::min(allMin[b], totals[i]);
    }
    for (std::size_t i : kept) {
        const int b = std::min(buckets - 1, int(double(i) / width));
        keptMax[b] = std::max(keptMax[b], totals[i]);
        keptMin[b] = std::min(keptMin[b], totals[i]);
    }
    QCOMPARE(keptMax, allMax);
    QCOMPARE(keptMin, allMin);
    QCOMPARE(kept.front(), std::size_t(0));
    QCOMPARE(kept.back(), n - 1);
}

// decimate() with the totals' block extremes (what the document's worker makes with a program)
// draws exactly the instructions it draws reading every instruction: on both axes, over the
// whole range and zoomed windows, with few and many buckets, with ties between totals (the
// first of equals is drawn) and with a time axis whose starts carry the simulator's rounding.
void TestTimelinePlot::blockExtremesDecimateAsInstructionByInstruction() {
    std::mt19937 rng(11);
    const std::size_t n = 50000 + 37;  // not a whole number of blocks
    std::vector<std::int64_t> totals(n);
    std::uniform_int_distribution<std::int64_t> level(0, 40);  // many equal totals
    for (std::size_t i = 0; i < n; ++i) totals[i] = level(rng) * 1024;
    // Durations as a program has them: many allocs and frees that take no time.
    std::vector<double> endS(n), durationS(n);
    std::uniform_real_distribution<double> duration(1e-6, 3e-3);
    std::bernoulli_distribution timed(0.4);
    double clock = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        durationS[i] = timed(rng) ? duration(rng) : 0.0;
        clock += durationS[i];
        endS[i] = clock;
    }
    const BlockExtremes extremes = blockExtremes(totals);
    QCOMPARE(extremes.maxAt.size(), (n + kDecimationBlock - 1) / kDecimationBlock);
    int compared = 0, decimated = 0;
    for (XAxis axis : {XAxis::Instruction, XAxis::Time}) {
        const XExtents x = instructionExtents(endS, durationS, axis);
        QCOMPARE(x.size(), n);
        std::uniform_real_distribution<double> where(x.lower(), x.upper());
        for (int trial = 0; trial < 60; ++trial) {
            double lo = x.lower(), hi = x.upper();
            if (trial % 3 != 0) {  // a zoomed window
                lo = where(rng);
                hi = where(rng);
                if (lo > hi) std::swap(lo, hi);
            }
            for (int buckets : {1, 7, 600, 2400}) {
                const std::size_t keep = trial % 2 ? std::size_t(rng() % n) : std::size_t(-1);
                const auto plain = decimate(x, totals, lo, hi, buckets, keep);
                const auto fast = decimate(x, totals, lo, hi, buckets, keep, &extremes);
                QCOMPARE(fast, plain);
                ++compared;
                std::size_t visible = 0;
                for (std::size_t i = 0; i < n; ++i) visible += x.end(i) >= lo && x.start(i) <= hi;
                if (plain.size() < visible) ++decimated;
            }
        }
        // Extremes of other totals are not used: the result stays right.
        const BlockExtremes other = blockExtremes(std::vector<std::int64_t>(n / 2, 0));
        QCOMPARE(decimate(x, totals, x.lower(), x.upper(), 600, std::size_t(-1), &other),
                 decimate(x, totals, x.lower(), x.upper(), 600));
    }
    QCOMPARE(compared, 2 * 60 * 4);
    QVERIFY(decimated > 100);  // most cases did drop instructions
}

void TestTimelinePlot::timeAxisUsesPredictedTimes() {
    Case c = evaluatePreset("gpt2-small", "sqrt");
    const Timeline& t = c.evaluation.timeline;
    TimelinePlot plot;
    plot.resize(1000, 500);
    plot.setData(c.graph, c.evaluation.program, t, c.device);
    plot.setXAxis(TimelinePlot::XAxis::Time);
    const auto& shown = plot.displayedInstructions();
    const auto drawn = plot.plotAdapter()->stackedData(int(kCategoryCount) - 1);
    for (std::size_t s = 0; s < shown.size(); ++s) {
        const std::size_t i = shown[s];
        QCOMPARE(drawn[qsizetype(s)].x(), t.endS[i] - t.durationS[i]);
    }
    QCOMPARE(drawn.back().x(), t.endS.back());
    QVERIFY(std::abs(plot.plotAdapter()->range(PlotAxis::X).y() - t.timeS.total()) <
            1e-9 * t.timeS.total() + 1e-12);
    // Hovering a time inside a compute instruction finds that instruction, not the allocs
    // before it that take no time.
    for (std::size_t i = 0; i < t.live.size(); ++i)
        if (t.durationS[i] > 0) {
            const double mid = t.endS[i] - t.durationS[i] / 2;
            QCOMPARE(plot.instructionAtX(mid), i);
            break;
        }
}

void TestTimelinePlot::highlightCoversExactlyTheLayer() {
    Case c = evaluatePreset("gpt2-small", "every:3");
    const Program& p = c.evaluation.program;
    TimelinePlot plot;
    plot.resize(1000, 500);
    plot.setData(c.graph, p, c.evaluation.timeline, c.device);
    const int layer = 4;  // a transformer block inside a checkpointed group: fwd, recompute, bwd
    plot.highlightLayer(layer);
    QCOMPARE(plot.highlightedLayer(), layer);
    const auto spans = plot.highlightedSpans();
    QVERIFY(!spans.empty());
    QCOMPARE(plot.plotAdapter()->groupSize("highlight"), int(spans.size()));
    std::vector<bool> covered(p.instructions.size(), false);
    for (const InstructionSpan& s : spans)
        for (std::size_t i = s.first; i <= s.last; ++i) covered[i] = true;
    int computeCovered = 0;
    std::set<Phase> phases;
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (!isCompute(ins.kind)) continue;
        const int opLayer = c.graph.module(c.graph.op(ins.op).module).layerIndex;
        QCOMPARE(covered[i], opLayer == layer);
        if (covered[i]) {
            ++computeCovered;
            phases.insert(ins.phase);
        }
    }
    QVERIFY(computeCovered > 0);
    QVERIFY(phases.count(Phase::Forward) && phases.count(Phase::Recompute) &&
            phases.count(Phase::Backward));
    plot.highlightLayer(-1);
    QCOMPARE(plot.plotAdapter()->groupSize("highlight"), 0);
}

void TestTimelinePlot::clickReportsLayer() {
    Case c = evaluatePreset("mlp-3x1024");
    const Program& p = c.evaluation.program;
    TimelinePlot plot;
    plot.resize(900, 450);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setData(c.graph, p, c.evaluation.timeline, c.device);
    QSignalSpy spy(&plot, &TimelinePlot::layerClicked);
    // The forward of the second linear layer.
    std::size_t target = p.instructions.size();
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (ins.kind == InstrKind::Forward &&
            c.graph.module(c.graph.op(ins.op).module).layerIndex == 1) {
            target = i;
            break;
        }
    }
    QVERIFY(target < p.instructions.size());
    const QPointF pixel = plot.plotAdapter()->dataToPixel(
        double(target) + 0.5, double(c.evaluation.timeline.peakBytes) / 2);
    QWidget* surface = plot.plotAdapter()->childAt(pixel.toPoint());
    QVERIFY(surface);
    const QPoint local = surface->mapFrom(plot.plotAdapter(), pixel.toPoint());
    QTest::mouseClick(surface, Qt::LeftButton, {}, local);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 1);
    QVERIFY(plot.tooltipFor(target).contains(plot.captionOf(target).toHtmlEscaped()));
}

void TestTimelinePlot::tooltipSaysWhatAnInstructionIs() {
    // The GUI writes microseconds as "µs" (the CLI keeps "us").
    QCOMPARE(remat::ui::formatSeconds(2.5e-6), QString::fromUtf8("2.5 µs"));
    QCOMPARE(remat::ui::formatSeconds(0.0125), QString("12.50 ms"));
    QCOMPARE(remat::ui::formatSeconds(1.5), QString("1.500 s"));

    // every:2, not the preset's plan: its lone checkpointed linear saves only its input, which
    // PyTorch's non-reentrant checkpoint takes before the kernel runs, so nothing is
    // recomputed. every:2's first region recomputes its first linear.
    Case c = evaluatePreset("mlp-3x1024", "every:2");
    const Program& p = c.evaluation.program;
    const Timeline& t = c.evaluation.timeline;
    TimelinePlot plot;
    plot.setData(c.graph, p, t, c.device);
    // An alloc of a saved activation (a category whose simulator key is snake_case) and a
    // recompute, which takes time.
    std::size_t alloc = p.instructions.size(), recompute = p.instructions.size();
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (alloc == p.instructions.size() && ins.kind == InstrKind::Alloc &&
            p.buffer(ins.buffer).category == Category::SavedActivations)
            alloc = i;
        if (recompute == p.instructions.size() && ins.kind == InstrKind::Recompute) recompute = i;
    }
    QVERIFY(alloc < p.instructions.size());
    QVERIFY(recompute < p.instructions.size());

    QCOMPARE(t.durationS[alloc], 0.0);
    const Buffer& b = p.buffer(p.instructions[alloc].buffer);
    const QString allocTip = plot.tooltipFor(alloc);
    const QString firstLine = allocTip.section(QStringLiteral("<br>"), 0, 0);
    QCOMPARE(firstLine, QString("<b>#%1</b> alloc %2 (%3, saved activations)")
                            .arg(alloc)
                            .arg(toQString(bufferLabel(c.graph, b)).toHtmlEscaped(),
                                 bytesText(b.bytes.at(p.microBatch), ByteUnits::Binary)));
    QVERIFY2(allocTip.contains("takes no time"), qPrintable(allocTip));
    QVERIFY2(!allocTip.contains("takes 0"), qPrintable(allocTip));
    QVERIFY2(!allocTip.contains(" us") && !allocTip.contains("saved_activations"),
             qPrintable(allocTip));
    // The caption follows the chosen units.
    plot.setUnits(ByteUnits::Decimal);
    QVERIFY(
        plot.captionOf(alloc).contains(bytesText(b.bytes.at(p.microBatch), ByteUnits::Decimal)));

    QVERIFY(t.durationS[recompute] > 0.0);
    const QString recomputeTip = plot.tooltipFor(recompute);
    QVERIFY(recomputeTip.startsWith(
        QString("<b>#%1</b> recompute %2<br>")
            .arg(recompute)
            .arg(toQString(c.graph.op(p.instructions[recompute].op).name).toHtmlEscaped())));
    QVERIFY2(recomputeTip.contains("takes " + remat::ui::formatSeconds(t.durationS[recompute])),
             qPrintable(recomputeTip));
}

// Seven micro-batches: the 2nd to the 6th are one repeated body, drawn once. Its phase runs say
// how many micro-batches they stand for; on the time axis it spans the time of all five, so the
// last micro-batch starts at its true time; the tooltip and the CSV say how often it runs.
void TestTimelinePlot::repeatedMicroBatchesDrawnOnceOverTheirTime() {
    Case c = evaluatePreset("mlp-3x1024", {}, 7);
    const Program& p = c.evaluation.program;
    const Timeline& t = c.evaluation.timeline;
    QVERIFY(p.repeat.has_value());
    QCOMPARE(p.repeat->times, std::int64_t(5));
    int repeatedRuns = 0;
    for (const PhaseRun& r : phaseRuns(p)) {
        const bool inside = p.inRepeat(r.span.first);
        QCOMPARE(p.inRepeat(r.span.last), inside);
        QCOMPARE(r.times, inside ? std::int64_t(5) : std::int64_t(1));
        repeatedRuns += inside;
    }
    QVERIFY(repeatedRuns >= 2);  // forward and backward at least

    // The body spans five times the last micro-batch's compute, to rounding.
    const XExtents x = instructionExtents(t, XAxis::Time);
    const double body = x.end(p.repeat->end - 1) - x.start(p.repeat->begin);
    double last = 0.0;
    for (std::size_t i = 0; i < p.instructions.size(); ++i)
        if (p.instructions[i].microStep == 6 && p.instructions[i].phase != Phase::Optimizer &&
            p.instructions[i].phase != Phase::Teardown)
            last += t.durationS[i];
    QVERIFY(last > 0.0);
    QVERIFY2(std::fabs(body - 5.0 * last) <= 1e-12 * body,
             qPrintable(QString("%1 vs %2").arg(body).arg(5.0 * last)));

    TimelinePlot plot;
    plot.setData(c.graph, p, t, c.device);
    std::size_t compute = p.repeat->begin;
    while (!isCompute(p.instructions[compute].kind)) ++compute;
    const QString tip = plot.tooltipFor(compute);
    QVERIFY2(tip.contains(QString::fromUtf8("micro-batches 2–6 of 7")) &&
                 tip.contains("runs 5 times"),
             qPrintable(tip));
    QVERIFY(plot.tooltipFor(p.repeat->end).contains("micro-batch 7 of 7"));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    QVERIFY2(plot.exportCsv(dir.filePath("t.csv"), &error), qPrintable(error));
    QFile csv(dir.filePath("t.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines[0].endsWith(",times"));
    std::int64_t runs = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) runs += lines[i].section(',', -1).toLongLong();
    QCOMPARE(runs, p.executedInstructions());
}

void TestTimelinePlot::measuredOverlay() {
    Case c = evaluatePreset("mlp-3x1024");
    const Timeline& t = c.evaluation.timeline;
    TimelinePlot plot;
    plot.setData(c.graph, c.evaluation.program, t, c.device);
    std::vector<std::int64_t> measured;
    for (const auto& b : t.live) measured.push_back(totalBytes(b) + 4096);
    QVERIFY(!plot.setMeasured(std::vector<std::int64_t>(3, 0), "bad"));
    QVERIFY(!plot.hasMeasured());
    QVERIFY(plot.setMeasured(measured, "measured (cpu)"));
    QVERIFY(plot.plotAdapter()->hasLine("measured"));
    const auto line = plot.plotAdapter()->lineData("measured");
    QCOMPARE(line.size(), qsizetype(t.live.size() + 1));
    for (std::size_t i = 0; i < t.live.size(); ++i)
        QCOMPARE(std::int64_t(line[qsizetype(i)].y()), measured[i]);
    QVERIFY(plot.tooltipFor(0).contains("measured (cpu)"));
    plot.clearMeasured();
    QVERIFY(!plot.plotAdapter()->hasLine("measured"));
}

void TestTimelinePlot::exportsWriteFiles() {
    Case c = evaluatePreset("gpt2-small", "every:2");
    const Timeline& t = c.evaluation.timeline;
    TimelinePlot plot;
    plot.resize(1000, 500);
    QString error;
    QTemporaryDir dir;
    QVERIFY(!plot.exportTo(dir.filePath("empty.png"), &error));
    QVERIFY(!error.isEmpty());
    plot.setData(c.graph, c.evaluation.program, t, c.device);
    for (const char* ext : {"png", "svg", "pdf"}) {
        const QString path = dir.filePath(QStringLiteral("timeline.") + ext);
        QVERIFY2(plot.exportTo(path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 1000);
    }
    QImage png(dir.filePath("timeline.png"));
    QVERIFY(!png.isNull());
    QVERIFY(distinctColors(png) > 20);
    QFile svg(dir.filePath("timeline.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    QVERIFY(!plot.exportTo(dir.filePath("timeline.bmpx"), &error));
    QVERIFY(error.contains(".png"));

    const QString csvPath = dir.filePath("timeline.csv");
    QVERIFY2(plot.exportCsv(csvPath, &error), qPrintable(error));
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), qsizetype(t.live.size() + 1));
    QVERIFY(lines[0].startsWith("instruction,micro_batch,phase,kind,layer,caption,start_s"));
    QVERIFY(lines[0].contains("saved_activations_bytes"));
    // The peak row carries the peak's bytes in its total column.
    const QString peakRow = lines[qsizetype(t.peakInstruction + 1)];
    QVERIFY(peakRow.startsWith(QString::number(t.peakInstruction) + ","));
    QVERIFY(peakRow.contains("," + QString::number(t.peakBytes)));
    QVERIFY(!plot.exportCsv(dir.filePath("no/such/dir/x.csv"), &error));
}

void TestTimelinePlot::renderedGrabIsNotBlank() {
    Case c = evaluatePreset("gpt2-small", "every:3");
    for (bool dark : {false, true}) {
        TimelinePlot plot;
        if (dark) {
            QPalette pal;
            pal.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
            pal.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1b));
            pal.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
            pal.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
            pal.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xf0));
            plot.setPalette(pal);
        }
        plot.resize(1100, 520);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setData(c.graph, c.evaluation.program, c.evaluation.timeline, c.device);
        plot.highlightLayer(5);
        QImage image = plot.grab().toImage();
        QVERIFY(distinctColors(image) > 30);
        // Saved activations (drawn in their category colour) take visible space.
        const QRgb saved = categoryColor(Category::SavedActivations).rgb();
        int hits = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2)
                if (image.pixel(x, y) == saved) ++hits;
        QVERIFY(hits > 50);
        // The background follows the palette.
        const QColor corner = image.pixelColor(3, 3);
        QCOMPARE(corner.lightness() < 128, dark);
        // Phases are washed in their colours over that background, above the data too: a light
        // tint of the base colour, different for forward and backward.
        const QColor base = plot.palette().color(QPalette::Base);
        auto washAt = [&](Phase phase) {
            const auto& ins = c.evaluation.program.instructions;
            std::size_t best = 0, bestLength = 0;
            for (std::size_t i = 0; i < ins.size();) {
                std::size_t j = i;
                while (j < ins.size() && ins[j].phase == ins[i].phase) ++j;
                if (ins[i].phase == phase && j - i > bestLength) {
                    best = (i + j) / 2;
                    bestLength = j - i;
                }
                i = j;
            }
            const double top = double(c.evaluation.timeline.peakBytes) * 1.1;
            const QPoint at = plot.plotAdapter()
                                  ->dataToPixel(double(best), top)
                                  .toPoint() +
                              plot.plotAdapter()->mapTo(&plot, QPoint(0, 0));
            // The most frequent colour of a short run (a grid dot may fall on one pixel).
            std::map<QRgb, int> votes;
            for (int dx = -4; dx <= 4; ++dx) ++votes[image.pixel(at.x() + dx, at.y())];
            return QColor(std::max_element(votes.begin(), votes.end(), [](auto& a, auto& b) {
                              return a.second < b.second;
                          })->first);
        };
        const QColor forward = washAt(Phase::Forward), backward = washAt(Phase::Backward);
        QVERIFY2(forward != backward, qPrintable(forward.name() + " " + backward.name()));
        for (const QColor& wash : {forward, backward}) {
            QVERIFY2(wash != base, qPrintable(wash.name()));
            QVERIFY2(std::abs(wash.red() - base.red()) < 48 &&
                         std::abs(wash.green() - base.green()) < 48 &&
                         std::abs(wash.blue() - base.blue()) < 48,
                     qPrintable(wash.name() + " over " + base.name()));
        }
        const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            image.save(QString::fromLocal8Bit(dir) +
                       (dark ? "/timeline-gpt2-small-dark.png" : "/timeline-gpt2-small.png"));
    }
    // The time axis and a decimated GPT-3 175B render too.
    struct View {
        const char* preset;
        const char* strategy;
        std::int64_t accumulation;
        TimelinePlot::XAxis axis;
        const char* file;
    };
    for (const View& v :
         {View{"gpt2-small", "every:3", 0, TimelinePlot::XAxis::Time, "timeline-time-axis"},
          View{"gpt2-small", "sqrt", 2, TimelinePlot::XAxis::Time, "timeline-accumulation"},
          View{"gpt3-175b", "every:4", 0, TimelinePlot::XAxis::Instruction,
               "timeline-gpt3-175b"}}) {
        Case big = evaluatePreset(v.preset, v.strategy, v.accumulation);
        TimelinePlot plot;
        plot.resize(1100, 520);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.setXAxis(v.axis);
        plot.setData(big.graph, big.evaluation.program, big.evaluation.timeline, big.device);
        const QImage image = plot.grab().toImage();
        QVERIFY(distinctColors(image) > 30);
        const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
        if (!dir.isEmpty()) image.save(QString::fromLocal8Bit(dir) + "/" + v.file + ".png");
    }
}

void TestTimelinePlot::sharedAndCopiedDataDrawTheSame_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("strategy");
    QTest::newRow("gpt2-small every:3") << "gpt2-small"
                                        << "every:3";
    QTest::newRow("gpt3-175b sqrt") << "gpt3-175b"
                                    << "sqrt";
}

// The interactive path hands the plot the caller's state (nothing copied); the copying overload
// must draw exactly the same. How long either takes is reported by bench_edit
// (BM_replotPreset), not asserted: tests check behaviour.
void TestTimelinePlot::sharedAndCopiedDataDrawTheSame() {
    QFETCH(QString, preset);
    QFETCH(QString, strategy);
    auto c = std::make_shared<Case>(evaluatePreset(preset.toStdString(), strategy.toStdString()));
    const Evaluation& e = c->evaluation;
    TimelinePlot plot;
    plot.resize(1400, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    // The first data lays the axes out (their labels set the plot area's width, which sets the
    // decimation); from then on the same data is drawn the same way.
    plot.setData(c, c->graph, e.program, e.timeline, c->device);
    QCoreApplication::processEvents();
    plot.setData(c, c->graph, e.program, e.timeline, c->device);
    const std::vector<std::size_t> shared = plot.displayedInstructions();
    QCOMPARE(plot.peakInstruction(), e.timeline.peakInstruction);
    plot.setData(c->graph, e.program, e.timeline, c->device);
    QCOMPARE(plot.displayedInstructions(), shared);
    QCOMPARE(plot.peakInstruction(), e.timeline.peakInstruction);
    // The peak is among the drawn instructions, however far the program was decimated.
    QVERIFY(std::find(shared.begin(), shared.end(), e.timeline.peakInstruction) != shared.end());
}

QTEST_MAIN(TestTimelinePlot)
#include "tst_timeline_plot.moc"
