// Tests of the summary panel: it states "fits" or "does not fit" in words (and a colour that
// follows the palette), the peak and its saving against no checkpointing, what the peak is made
// of (adding up to the peak), the largest micro-batch, and shows every unsafe-program reason as
// a warning. An edit rewrites the panel's labels in place (no widgets made or destroyed), and
// the figures can be copied from their context menu.
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QVBoxLayout>
#include <QtTest>

#include "analysis.h"
#include "compiler.h"
#include "lower.h"
#include "model_file.h"
#include "qt_convert.h"
#include "report.h"
#include "status_colors.h"
#include "summary_panel.h"
#include "wrap_label.h"

using namespace remat;
using namespace remat::ui;

namespace {

// The app shows the panel in a scroll area, never squeezed below the height its wrapped rows
// need; the screenshot gets that height too (after the relayout the rows posted).
void saveShot(QWidget& panel, const QByteArray& dir, const char* file) {
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const int needed = panel.hasHeightForWidth() ? panel.heightForWidth(panel.width())
                                                 : panel.minimumSizeHint().height();
    panel.resize(panel.width(), std::max(panel.height(), needed));
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    panel.grab().save(QString::fromLocal8Bit(dir) + "/" + file);
}

struct Case {
    Graph graph;
    Evaluation evaluation;
    DeviceSpec device;
};

Case evaluatePreset(const std::string& preset, const std::string& strategy) {
    Case c;
    auto model = loadModel(preset);
    if (!model) qFatal("%s", model.error().message.c_str());
    auto g = lower(model->network, model->training.precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    c.graph = std::move(*g);
    auto d = findDevice(model->device.empty() ? "a100-80gb" : model->device);
    if (!d) qFatal("%s", d.error().message.c_str());
    c.device = *d;
    auto s = parseStrategy(strategy);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto e = evaluate(c.graph, *s, manualRegions(*model), model->training, c.device);
    if (!e) qFatal("%s", e.error().message.c_str());
    c.evaluation = std::move(*e);
    return c;
}

}  // namespace

class TestSummaryPanel : public QObject {
    Q_OBJECT
private slots:
    void fitsIsStatedPlainly();
    void doesNotFitIsStatedPlainly();
    void unsafeReasonsAreWarnings();
    void peakOverTheDeviceIsStatedWithTheExcess();
    void unitsAndEmptyState();
    void editsReuseTheLabels();
    void figuresCanBeCopied();
    void wrapBoxPassesOnOnlyHeightChanges();
};

void TestSummaryPanel::fitsIsStatedPlainly() {
    Case c = evaluatePreset("gpt2-small", "every:3");
    const Evaluation& e = c.evaluation;
    QVERIFY(e.timeline.fits);
    SummaryPanel panel;
    panel.resize(520, 480);
    panel.setEvaluation(e, c.device, c.graph);
    QVERIFY(panel.fits());
    QVERIFY(panel.verdictText().startsWith(QStringLiteral("✔ Fits on ")));
    QVERIFY(panel.verdictText().contains(bytesText(e.timeline.peakBytes, ByteUnits::Binary)));
    // Each share says what it is a share of: the peak, the kept activations, the whole step.
    QVERIFY(panel.fieldText(SummaryPanel::Field::Peak)
                .contains(remat::ui::formatPercent(e.memorySavedFraction()) +
                          " less than the peak without checkpointing (" +
                          bytesText(e.baselinePeakBytes, ByteUnits::Binary) + ")"));
    QVERIFY(e.activationsSavedFraction() > e.memorySavedFraction());
    QCOMPARE(panel.fieldText(SummaryPanel::Field::KeptActivations),
             bytesText(e.timeline.savedActivationBytes, ByteUnits::Binary) + ", " +
                 remat::ui::formatPercent(e.activationsSavedFraction()) +
                 " less than the activations kept without checkpointing (" +
                 bytesText(e.baselineSavedActivationBytes, ByteUnits::Binary) + ")");
    // Where the peak is, in the GUI's words: the kind and category as the interface names
    // them (not the simulator's snake_case keys), the buffer as the model names it.
    const Instruction& at = e.program.instructions[e.timeline.peakInstruction];
    QCOMPARE(at.kind, InstrKind::Alloc);
    const Buffer& peakBuffer = e.program.buffer(at.buffer);
    QCOMPARE(panel.fieldText(SummaryPanel::Field::PeakAt),
             QString("alloc %1 (%2, %3)")
                 .arg(toQString(bufferLabel(c.graph, peakBuffer)),
                      bytesText(peakBuffer.bytes.at(e.program.microBatch), ByteUnits::Binary),
                      categoryShortName(peakBuffer.category)));
    QVERIFY(panel.fieldText(SummaryPanel::Field::Overhead)
                .startsWith(remat::ui::formatPercent(e.recomputeOverhead()) +
                            " more step time than the whole step without checkpointing (" +
                            remat::ui::formatSeconds(e.baselineTimeS) + ")"));
    QVERIFY(panel.fieldText(SummaryPanel::Field::StepTime)
                .startsWith(remat::ui::formatSeconds(e.timeline.timeS.total())));
    QVERIFY(panel.fieldText(SummaryPanel::Field::MaxMicroBatch)
                .startsWith(QString::number(e.timeline.maxMicroBatch) + " (now 8)"));
    // The breakdown lists every non-zero category, largest first, and sums to the peak.
    const QStringList parts = panel.breakdownTexts();
    int nonZero = 0;
    for (auto b : e.timeline.breakdownAtPeak) nonZero += b != 0;
    QCOMPARE(parts.size(), nonZero);
    QCOMPARE(totalBytes(e.timeline.breakdownAtPeak), e.timeline.peakBytes);
    QVERIFY(panel.warningTexts().isEmpty());
    // The verdict's colour is a green in a light palette, readable against the background.
    auto* verdict = panel.findChild<QLabel*>(QStringLiteral("summaryVerdict"));
    QVERIFY(verdict);
    const QColor good = verdict->palette().color(QPalette::WindowText);
    QVERIFY(good.green() > good.red());
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) saveShot(panel, dir, "summary-gpt2-small.png");
}

void TestSummaryPanel::doesNotFitIsStatedPlainly() {
    Case c = evaluatePreset("gpt3-175b", "full");
    QVERIFY(!c.evaluation.timeline.fits);
    SummaryPanel panel;
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
    dark.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1b));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    panel.setPalette(dark);
    panel.resize(520, 480);
    panel.setEvaluation(c.evaluation, c.device, c.graph);
    QVERIFY(!panel.fits());
    // 175 billion parameters with Adam: no plan can help, and the verdict says why in numbers.
    const std::int64_t states = modelStateBytes(c.evaluation.timeline);
    QVERIFY(states > c.device.usableBytes());
    const QString usable = bytesText(c.device.usableBytes(), ByteUnits::Binary);
    QCOMPARE(panel.verdictText(),
             QString("✘ Does not fit on %1, whatever the plan: model states alone (parameters, "
                     "gradients, optimizer state) take %2 of the device's %3 usable; no "
                     "checkpointing plan or micro-batch changes that.")
                 .arg(QString::fromStdString(c.device.name),
                      bytesText(states, ByteUnits::Binary), usable));
    QCOMPARE(panel.fieldText(SummaryPanel::Field::MaxMicroBatch),
             QString("none: model states alone take %1 of the %2 usable")
                 .arg(bytesText(states, ByteUnits::Binary), usable));
    auto* verdict = panel.findChild<QLabel*>(QStringLiteral("summaryVerdict"));
    const QColor bad = verdict->palette().color(QPalette::WindowText);
    QVERIFY(bad.red() > bad.green());
    QVERIFY(bad.lightness() > 128);  // light red on the dark background
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        saveShot(panel, dir, "summary-gpt3-175b-dark.png");
}

void TestSummaryPanel::unsafeReasonsAreWarnings() {
    // Dropout inside checkpointed regions whose RNG state is not preserved: a valid program
    // whose gradients differ from the run without checkpointing.
    auto model = loadModel("gpt2-tiny");
    QVERIFY(model);
    auto g = lower(model->network, model->training.precision);
    QVERIFY(g);
    auto plan = makePlan(*g, *parseStrategy("full"));
    QVERIFY(plan);
    for (Region& r : plan->regions) r.preserveRng = false;
    auto d = findDevice("a100-80gb");
    QVERIFY(d);
    auto program = compile(*g, *plan, model->training, compileOptionsFor(*d));
    QVERIFY(program);
    QVERIFY(program->unsafe());
    Evaluation e;
    e.strategy = *parseStrategy("full");
    e.timeline = simulate(*g, *program, *d);
    e.program = std::move(*program);
    e.baselinePeakBytes = e.timeline.peakBytes;
    e.baselineTimeS = e.timeline.timeS.total();
    SummaryPanel panel;
    panel.setEvaluation(e, *d, *g);
    const QStringList warnings = panel.warningTexts();
    QCOMPARE(warnings.size(), qsizetype(e.program.unsafeReasons.size()));
    for (std::size_t i = 0; i < e.program.unsafeReasons.size(); ++i)
        QVERIFY(warnings[qsizetype(i)].contains(toQString(e.program.unsafeReasons[i])));
    QVERIFY(warnings[0].startsWith(QStringLiteral("⚠ Unsafe plan: ")));
    // It fits, but the headline is no plain tick: the gradients would be wrong.
    QVERIFY(e.timeline.fits);
    QVERIFY2(panel.verdictText().startsWith(QStringLiteral("⚠ Fits on ")),
             qPrintable(panel.verdictText()));
    QVERIFY(panel.verdictText().contains(QStringLiteral("but the plan is unsafe")));
    auto* verdict = panel.findChild<QLabel*>(QStringLiteral("summaryVerdict"));
    QCOMPARE(verdict->palette().color(QPalette::WindowText),
             statusColor(remat::ui::Status::Warning, panel.palette()));
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        panel.resize(520, 640);
        saveShot(panel, dir, "summary-unsafe.png");
    }
}

void TestSummaryPanel::peakOverTheDeviceIsStatedWithTheExcess() {
    // The model states fit a T4; the activations of 64 samples do not.
    Case c = evaluatePreset("gpt2-small", "none");
    auto t4 = findDevice("t4-16gb");
    QVERIFY(t4);
    auto model = loadModel("gpt2-small");
    QVERIFY(model);
    model->training.microBatch = 64;
    auto e = evaluate(c.graph, *parseStrategy("none"), {}, model->training, *t4);
    QVERIFY(e);
    QVERIFY(!e->timeline.fits);
    QVERIFY(modelStateBytes(e->timeline) < t4->usableBytes());
    SummaryPanel panel;
    panel.setEvaluation(*e, *t4, c.graph);
    QCOMPARE(panel.verdictText(),
             QString("✘ Does not fit on %1: the peak of %2 exceeds the %3 usable by %4.")
                 .arg(QString::fromStdString(t4->name),
                      bytesText(e->timeline.peakBytes, ByteUnits::Binary),
                      bytesText(t4->usableBytes(), ByteUnits::Binary),
                      bytesText(e->timeline.peakBytes - t4->usableBytes(), ByteUnits::Binary)));
    QVERIFY(e->timeline.maxMicroBatch > 0);
    QVERIFY(panel.fieldText(SummaryPanel::Field::MaxMicroBatch)
                .startsWith(QString::number(e->timeline.maxMicroBatch) + " (now 64)"));
}

void TestSummaryPanel::unitsAndEmptyState() {
    SummaryPanel panel;
    QVERIFY(!panel.hasEvaluation());
    QCOMPARE(panel.verdictText(), QString("No plan evaluated yet."));
    Case c = evaluatePreset("mlp-3x1024", "manual");
    panel.setEvaluation(c.evaluation, c.device, c.graph);
    const Program& program = c.evaluation.program;
    const Instruction& at = program.instructions[c.evaluation.timeline.peakInstruction];
    QCOMPARE(at.kind, InstrKind::Alloc);
    QVERIFY(panel.fieldText(SummaryPanel::Field::PeakAt)
                .startsWith("alloc " + toQString(bufferLabel(c.graph, program.buffer(at.buffer))) +
                            " ("));
    panel.setUnits(ByteUnits::Decimal);
    // The caption follows the units too.
    QVERIFY(panel.fieldText(SummaryPanel::Field::PeakAt)
                .contains(bytesText(program.buffer(at.buffer).bytes.at(program.microBatch),
                                    ByteUnits::Decimal)));
    QVERIFY(panel.verdictText().contains(
        bytesText(c.evaluation.timeline.peakBytes, ByteUnits::Decimal)));
    QVERIFY(panel.verdictText().contains(" MB") || panel.verdictText().contains(" GB"));
    panel.clear();
    QVERIFY(!panel.hasEvaluation());
}

void TestSummaryPanel::editsReuseTheLabels() {
    SummaryPanel panel;
    panel.resize(400, 600);
    panel.show();
    auto labels = [&] { return panel.findChildren<QLabel*>(); };
    // Shown breakdown rows: four labels each (swatch, name, amount, share).
    auto shownBreakdownLabels = [&] {
        int n = 0;
        for (QLabel* l : labels())
            if (l->isVisibleTo(&panel) && !l->text().isEmpty() &&
                panel.breakdownTexts().filter(l->text()).size() > 0)
                ++n;
        return n;
    };
    Case none = evaluatePreset("gpt2-small", "none");
    panel.setEvaluation(none.evaluation, none.device, none.graph);
    const QList<QLabel*> first = labels();
    const QStringList noneRows = panel.breakdownTexts();
    QVERIFY(noneRows.size() >= 3);
    QVERIFY(shownBreakdownLabels() >= noneRows.size());
    for (const std::string strategy : {"full", "every:3", "selective:attention_core", "none"}) {
        Case c = evaluatePreset("gpt2-small", strategy);
        panel.setEvaluation(c.evaluation, c.device, c.graph);
        // The same label objects, rewritten.
        QCOMPARE(labels(), first);
        // As many breakdown rows shown as categories present, the rest hidden.
        int present = 0;
        for (std::int64_t b : c.evaluation.timeline.breakdownAtPeak) present += b > 0 ? 1 : 0;
        QCOMPARE(panel.breakdownTexts().size(), qsizetype(present));
        int visibleRows = 0;
        for (QLabel* l : labels())
            if (l->isVisibleTo(&panel) && l->alignment() == (Qt::AlignRight | Qt::AlignVCenter) &&
                l->text().endsWith(QLatin1Char('%')))
                ++visibleRows;
        QCOMPARE(visibleRows, present);
    }
    panel.clear();
    QCOMPARE(labels(), first);
    QVERIFY(panel.breakdownTexts().isEmpty());
}

void TestSummaryPanel::figuresCanBeCopied() {
    SummaryPanel panel;
    Case c = evaluatePreset("mlp-3x1024", "manual");
    panel.setEvaluation(c.evaluation, c.device, c.graph);
    const QString peak = panel.fieldText(SummaryPanel::Field::Peak);
    QLabel* shown = nullptr;
    for (QLabel* l : panel.findChildren<QLabel*>())
        if (l->text() == peak) shown = l;
    QVERIFY(shown);
    QCOMPARE(shown->contextMenuPolicy(), Qt::ActionsContextMenu);
    QCOMPARE(shown->actions().size(), 1);
    QGuiApplication::clipboard()->clear();
    shown->actions().front()->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), peak);
}

namespace {
struct LayoutRequests : QObject {
    int count = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::LayoutRequest) ++count;
        return false;
    }
};
}  // namespace

// A figure rewritten with as many lines leaves the layout around it alone; one that needs
// another line grows its box, and the label fills the box.
void TestSummaryPanel::wrapBoxPassesOnOnlyHeightChanges() {
    QWidget host;
    auto* layout = new QVBoxLayout(&host);
    auto* box = new WrapBox(&host);
    layout->addWidget(box);
    layout->addStretch(1);
    host.resize(320, 400);
    host.show();
    box->label()->setText(QStringLiteral("12.34 GiB, 5.6% less than without"));
    QApplication::processEvents();
    const int oneLine = box->height();
    QVERIFY(oneLine > 0);
    LayoutRequests requests;
    host.installEventFilter(&requests);
    box->label()->setText(QStringLiteral("98.76 GiB, 4.3% less than without"));
    QApplication::processEvents();
    QCOMPARE(requests.count, 0);
    QCOMPARE(box->height(), oneLine);
    QString longer;
    for (int i = 0; i < 12; ++i) longer += QStringLiteral("more words than one line holds ");
    box->label()->setText(longer);
    // The box passes the request on; the layout around it runs in the next turn.
    QTRY_VERIFY(requests.count > 0);
    QTRY_VERIFY2(box->height() > 2 * oneLine, qPrintable(QString::number(box->height())));
    QCOMPARE(box->height(), box->heightForWidth(box->width()));
    QCOMPARE(box->label()->geometry(), box->rect());
    // Rewritten while hidden (a dock tabbed away): shown again, it has the height of its text.
    host.hide();
    box->label()->setText(QStringLiteral("short"));
    host.show();
    QTRY_COMPARE(box->height(), oneLine);
    QCOMPARE(box->label()->geometry(), box->rect());
}

QTEST_MAIN(TestSummaryPanel)
#include "tst_summary_panel.moc"
