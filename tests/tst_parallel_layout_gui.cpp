// The GPUs / layout dialog, the summary of a parallel layout and the "Make it fit" dialog: a
// layout set from the dialog's fields is one undoable edit whose evaluation shows the rank that
// peaks with its step time and MFU; a layout the network does not allow is refused with the
// field named and the document keeps its state; the ZeRO bars follow the ZeRO paper's
// accounting; the fit search fills its table on a worker thread and a row applies to the
// document as one edit. Screenshots of both dialogs go to REMAT_SCREENSHOT_DIR when set.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest/QtTest>

#include "device_bar.h"
#include "layer_stack_view.h"
#include "run_panel.h"
#include "timeline_plot.h"
#include "document.h"
#include "fit_dialog.h"
#include "layout_dialog.h"
#include "model_states_bars.h"
#include "qt_convert.h"
#include "sharding.h"
#include "summary_panel.h"
#include "comparison_model.h"
#include "comparison_panel.h"
#include "plot_adapter.h"
#include "sweep_panel.h"
#include "tradeoff_plot.h"
#include "ui_test_support.h"
#include <QDockWidget>

using namespace remat;
using namespace remat::ui;

class TstParallelLayoutGui : public QObject {
    Q_OBJECT
private slots:
    void zeroStatesFollowThePaper();
    void layoutIsAnUndoableEdit();
    void invalidLayoutKeepsTheState();
    void pipelineShowsTheStage();
    void offloadShowsHostMemory();
    void fitFillsTheTableAndApplies();
    void fitCanBeCancelled();
    void fitSaysWhyNothingFits();
    void comparisonAndSweepArePerGpu();
};

// Rajbhandari et al. 2020, figure 1: Ψ = 7.5B, mixed-precision Adam (K = 12), Nd = 64:
// 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per GPU for stages 0 to 3.
void TstParallelLayoutGui::zeroStatesFollowThePaper() {
    const std::int64_t psi = 7'500'000'000;
    const double gb = 1e9;
    const double expected[4] = {120.0, 31.4, 16.6, 1.9};
    for (int stage = 0; stage < 4; ++stage) {
        const ModelStateBytes s =
            zeroModelStates(psi, Precision::MixedBf16, Optimizer::Adam, stage, 64);
        QCOMPARE(std::round(double(s.total()) / gb * 10.0) / 10.0, expected[stage]);
    }
    // The parts: 2Ψ parameters, 2Ψ gradients, 12Ψ optimizer state, each divided from its stage.
    const ModelStateBytes s2 = zeroModelStates(psi, Precision::MixedBf16, Optimizer::Adam, 2, 64);
    QCOMPARE(s2.parameters, 2 * psi);
    QCOMPARE(s2.gradients, 2 * psi / 64 + (2 * psi % 64 ? 1 : 0));
    QCOMPARE(s2.optimizerState, 12 * psi / 64 + (12 * psi % 64 ? 1 : 0));
    // fp32 SGD: 4 + 4 bytes, no optimizer state, no master weights.
    const ModelStateBytes f = zeroModelStates(1000, Precision::Fp32, Optimizer::Sgd, 0, 8);
    QCOMPARE(f.parameters, 4000);
    QCOMPARE(f.gradients, 4000);
    QCOMPARE(f.optimizerState, 0);
}

void TstParallelLayoutGui::layoutIsAnUndoableEdit() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    Document* doc = w.document();
    LayoutButton* button = w.deviceBar()->layoutButton();
    LayoutDialog* dialog = button->dialog();
    QCOMPARE(button->text(), QStringLiteral("1 GPU"));
    QVERIFY(!doc->parallel());
    QVERIFY(w.summary()->fieldText(SummaryPanel::Field::Rank).isEmpty());
    const std::int64_t singlePeak = doc->evaluation().timeline.peakBytes;
    const int undoBefore = doc->undoStack()->count();

    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(dialog->isVisible());
    dialog->dpBox()->setValue(8);
    QCOMPARE(doc->model().training.parallel.dp, std::int64_t(8));
    dialog->zeroBox()->setCurrentIndex(3);  // ZeRO-3, FSDP FULL_SHARD
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QCOMPARE(doc->model().training.parallel.zeroStage, 3);
    QCOMPARE(doc->undoStack()->count(), undoBefore + 2);
    QCOMPARE(dialog->gpusLabel()->text(), QStringLiteral("8 GPUs"));
    QCOMPARE(button->text(), QStringLiteral("dp 8 (ZeRO-3)"));

    // The summary speaks of the rank that peaks, with the layout's step time and MFU.
    QVERIFY(doc->parallel());
    const QString rank = w.summary()->fieldText(SummaryPanel::Field::Rank);
    QVERIFY2(rank.contains(QStringLiteral("per GPU, pipeline stage 1 of 1")), qPrintable(rank));
    QVERIFY2(rank.contains(QStringLiteral("dp 8 (ZeRO-3)")), qPrintable(rank));
    const QString mfu = w.summary()->fieldText(SummaryPanel::Field::Mfu);
    QVERIFY2(mfu.startsWith(ui::formatPercent(doc->parallel()->mfu)), qPrintable(mfu));
    QVERIFY2(mfu.contains(ui::formatPercent(doc->parallel()->hfu)), qPrintable(mfu));
    QVERIFY(doc->parallel()->mfu > 0.0 && doc->parallel()->mfu < 1.0);
    const QString step = w.summary()->fieldText(SummaryPanel::Field::StepTime);
    QVERIFY2(step.startsWith(ui::formatSeconds(doc->parallel()->time.totalS)), qPrintable(step));
    QVERIFY2(step.contains(QStringLiteral("data-parallel communication")), qPrintable(step));
    // The executors run whole single-GPU steps: the Run panel says so instead of offering a
    // rank's program.
    QVERIFY2(w.runPanel()->statusText().contains(QStringLiteral("1 GPU")),
             qPrintable(w.runPanel()->statusText()));
    // ZeRO-3 shards the model states: the rank's peak is below one GPU's, and the gathered
    // parameters are a category of the peak's breakdown or at least of the program.
    QVERIFY(doc->evaluation().timeline.peakBytes < singlePeak);
    bool gathered = false;
    for (const Buffer& b : doc->evaluation().program.buffers)
        gathered = gathered || b.category == Category::GatheredParameters;
    QVERIFY(gathered);

    // The bars: the rank's parameters at dp 8, stage 3 marked, each stage no larger than the
    // one before, stage 3 an eighth of stage 0 (every state sharded), up to rounding.
    const ModelStatesBars* bars = dialog->statesBars();
    QCOMPARE(bars->shardDegree(), std::int64_t(8));
    const auto& st = bars->stages();
    for (int s = 1; s < 4; ++s) QVERIFY(st[std::size_t(s)].total() < st[std::size_t(s - 1)].total());
    QVERIFY(std::abs(double(st[3].total()) * 8.0 - double(st[0].total())) <= 24.0);
    const Precision precision = doc->model().training.precision;
    QCOMPARE(st[0].parameters,
             doc->graph().parameterCount * dtypeBytes(computeDType(precision)));

    // Undo twice: one GPU again, everywhere.
    doc->undoStack()->undo();
    doc->undoStack()->undo();
    QVERIFY(doc->model().training.parallel.single());
    QVERIFY(!doc->parallel());
    QCOMPARE(button->text(), QStringLiteral("1 GPU"));
    QCOMPARE(dialog->dpBox()->value(), 1);
    QCOMPARE(dialog->zeroBox()->currentIndex(), 0);
    QCOMPARE(doc->evaluation().timeline.peakBytes, singlePeak);
    QVERIFY(w.summary()->fieldText(SummaryPanel::Field::Rank).isEmpty());

    if (const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR"); !dir.isEmpty()) {
        doc->undoStack()->redo();
        doc->undoStack()->redo();
        dialog->tpBox()->setValue(8);  // refused: the message shows under the fields
        dialog->adjustSize();
        QCoreApplication::processEvents();
        QVERIFY(dialog->grab().save(QString::fromLocal8Bit(dir) + "/layout-dialog-gpt2-small.png"));
        QVERIFY(test::showAt(w, QSize(1280, 720)));
        // The comparison works in the background: shot once it has its table.
        QTRY_VERIFY_WITH_TIMEOUT(!w.comparison()->isBusy(), 60000);
        QVERIFY(w.grab().save(QString::fromLocal8Bit(dir) + "/main-window-dp8-zero3.png"));
    }
}

void TstParallelLayoutGui::invalidLayoutKeepsTheState() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    Document* doc = w.document();
    LayoutDialog* dialog = w.deviceBar()->layoutButton()->dialog();
    dialog->dpBox()->setValue(2);
    const int undoBefore = doc->undoStack()->count();
    const ParallelConfig before = doc->model().training.parallel;
    QSignalSpy rejected(doc, &Document::editRejected);

    dialog->tpBox()->setValue(8);  // gpt2-small has 12 heads
    QCOMPARE(rejected.count(), 1);
    const QString message = dialog->message();
    QVERIFY2(message.contains(QStringLiteral("parallel.tp")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("12 attention heads are not divisible by tp 8")), qPrintable(message));
    QCOMPARE(doc->model().training.parallel, before);
    QCOMPARE(doc->undoStack()->count(), undoBefore);
    QCOMPARE(dialog->tpBox()->value(), 1);  // the fields show the state kept
    QCOMPARE(dialog->gpusLabel()->text(), QStringLiteral("2 GPUs"));

    // A valid one clears the message.
    dialog->tpBox()->setValue(4);
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QCOMPARE(doc->model().training.parallel.tp, std::int64_t(4));
    QCOMPARE(dialog->gpusLabel()->text(), QStringLiteral("8 GPUs"));
}

void TstParallelLayoutGui::pipelineShowsTheStage() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    Document* doc = w.document();
    LayoutDialog* dialog = w.deviceBar()->layoutButton()->dialog();
    dialog->ppBox()->setValue(4);
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QVERIFY(doc->parallel());
    QCOMPARE(doc->parallel()->stages.size(), std::size_t(4));
    const QString rank = w.summary()->fieldText(SummaryPanel::Field::Rank);
    const QString expected = QStringLiteral("pipeline stage %1 of 4")
                                 .arg(doc->parallel()->peakStage + 1);
    QVERIFY2(rank.contains(expected), qPrintable(rank));
    // Selecting a layer of the stage shown highlights its instructions in that stage's
    // timeline; a layer of another stage highlights nothing.
    const StageSummary& shown = doc->parallel()->stages[doc->parallel()->peakStage];
    QCOMPARE(doc->rankFirstInstance(), shown.firstLayer);
    w.layerStack()->selectInstance(int(shown.firstLayer + shown.layerCount - 1));
    QVERIFY(!w.timeline()->highlightedSpans().empty());
    const std::int64_t outside =
        shown.firstLayer > 0 ? 0 : shown.firstLayer + shown.layerCount;
    w.layerStack()->selectInstance(int(outside));
    QVERIFY(w.timeline()->highlightedSpans().empty());
    // The rank's graph holds a quarter of the blocks: fewer parameters than the whole model.
    auto whole = lower(doc->network(), doc->model().training.precision);
    QVERIFY(whole);
    QVERIFY(doc->graph().parameterCount < whole->parameterCount);
    // The schedule: interleaved with V = 2 is refused (4 stages x 2 chunks = 8 does not divide
    // 12 blocks), with V = 3 it is taken.
    const int interleaved =
        dialog->scheduleBox()->findData(int(PipelineSchedule::Interleaved));
    const int undoBefore = doc->undoStack()->count();
    dialog->virtualStagesBox()->setValue(2);
    dialog->scheduleBox()->setCurrentIndex(interleaved);
    QVERIFY2(dialog->message().contains(QStringLiteral("parallel.")), qPrintable(dialog->message()));
    QCOMPARE(doc->undoStack()->count(), undoBefore);
    QCOMPARE(doc->model().training.parallel.schedule, PipelineSchedule::OneFOneB);
    dialog->virtualStagesBox()->setValue(3);
    QCOMPARE(doc->undoStack()->count(), undoBefore);  // V alone changes nothing under 1F1B
    dialog->scheduleBox()->setCurrentIndex(interleaved);
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QCOMPARE(doc->model().training.parallel.virtualStages, std::int64_t(3));
    QCOMPARE(w.deviceBar()->layoutButton()->text(),
             QStringLiteral("pp 4 (interleaved:3)"));
}

// ZeRO-Offload: the optimizer state and master weights leave the GPU for the host; the summary
// gives the host memory per node. Activation offload is a layout of its own.
void TstParallelLayoutGui::offloadShowsHostMemory() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    Document* doc = w.document();
    LayoutDialog* dialog = w.deviceBar()->layoutButton()->dialog();
    dialog->dpBox()->setValue(2);
    QVERIFY(doc->parallel());
    const std::int64_t before = doc->evaluation().timeline.peakBytes;
    const std::int64_t optimizerBefore =
        doc->evaluation().timeline.breakdownAtPeak[std::size_t(Category::OptimizerState)];
    QVERIFY(optimizerBefore > 0);
    dialog->offloadOptimizerBox()->setChecked(true);
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QVERIFY(doc->model().training.parallel.offloadOptimizer);
    QVERIFY(doc->parallel()->hostBytesPerNode > 0);
    QVERIFY(doc->evaluation().timeline.peakBytes < before);
    QCOMPARE(doc->evaluation().timeline.breakdownAtPeak[std::size_t(Category::OptimizerState)],
             std::int64_t(0));
    const QString mfu = w.summary()->fieldText(SummaryPanel::Field::Mfu);
    QVERIFY2(mfu.contains(QStringLiteral("host memory %1 per node offloaded")
                              .arg(bytesText(doc->parallel()->hostBytesPerNode,
                                             ByteUnits::Binary))),
             qPrintable(mfu));
    QVERIFY(w.deviceBar()->layoutButton()->toolTip().contains(
        QStringLiteral("optimizer offloaded")));

    dialog->offloadOptimizerBox()->setChecked(false);
    dialog->offloadActivationsBox()->setChecked(true);
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QVERIFY(doc->model().training.parallel.offloadActivations);
    QVERIFY(!doc->model().training.parallel.offloadOptimizer);
    QVERIFY(w.deviceBar()->layoutButton()->toolTip().contains(
        QStringLiteral("activations offloaded")));
}

void TstParallelLayoutGui::fitFillsTheTableAndApplies() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    Document* doc = w.document();
    FitDialog* fit = w.showFitDialog();
    QVERIFY(fit->isVisible());
    fit->gpusBox()->setValue(8);
    QSignalSpy finished(fit, &FitDialog::searchFinished);
    fit->start();
    QVERIFY(fit->isRunning());
    QVERIFY(finished.wait(300000));
    QVERIFY(!fit->isRunning());
    QVERIFY2(fit->result().has_value(), qPrintable(fit->messageText()));
    const FitResult& r = *fit->result();
    QVERIFY(r.fits);
    QCOMPARE(r.gpus, std::int64_t(8));
    QVERIFY(!r.candidates.empty());
    QCOMPARE(fit->table()->rowCount(), int(r.candidates.size()));
    QCOMPARE(fit->table()->item(0, FitDialog::LayoutColumn)->text(),
             toQString(describeLayout(r.candidates[0].layout)));
    QCOMPARE(fit->table()->item(0, FitDialog::MfuColumn)->text(),
             ui::formatPercent(r.candidates[0].mfu));
    for (const FitCandidate& c : r.candidates) QCOMPARE(c.layout.gpus(), std::int64_t(8));

    if (const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR"); !dir.isEmpty()) {
        fit->resize(980, 560);
        QCoreApplication::processEvents();
        QVERIFY(fit->grab().save(QString::fromLocal8Bit(dir) + "/fit-dialog-gpt2-tiny.png"));
    }

    // Applying a row: one undo step that sets layout, strategy and micro-batch.
    const int undoBefore = doc->undoStack()->count();
    const ModelFile before = doc->model();
    const FitCandidate best = r.candidates[0];
    QVERIFY(fit->applyRow(0));
    QCOMPARE(doc->undoStack()->count(), undoBefore + 1);
    QCOMPARE(doc->model().training.parallel, best.layout);
    QCOMPARE(doc->model().training.microBatch, best.microBatch);
    QCOMPARE(doc->model().training.accumulationSteps, best.accumulation);
    QCOMPARE(doc->strategySpelling(), toQString(best.strategy.spelling()));
    QVERIFY(doc->parallel());
    // The document's evaluation of the applied layout predicts what the search did.
    QCOMPARE(doc->evaluation().timeline.peakBytes, best.peakBytes);
    doc->undoStack()->undo();
    QCOMPARE(doc->model(), before);
}

void TstParallelLayoutGui::fitCanBeCancelled() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    FitDialog* fit = w.showFitDialog();
    fit->gpusBox()->setValue(64);
    QSignalSpy finished(fit, &FitDialog::searchFinished);
    fit->start();
    QVERIFY(fit->isRunning());
    fit->cancel();
    QVERIFY(!fit->isRunning());
    QCOMPARE(finished.count(), 1);
    QVERIFY(!fit->result().has_value());
    QCOMPARE(fit->table()->rowCount(), 0);
    // The cancelled search's late result is dropped: nothing arrives in the next moments.
    QTest::qWait(200);
    QCOMPARE(finished.count(), 1);
    QVERIFY(!fit->result().has_value());
}

// GPT-3 175B on 8 GPUs: model states alone are 16 B x 174.6e9 = 2.79 TB; the dialog says so,
// with the smallest GPU count that fits and the rejected families, and lists no candidate but
// the offload plan when there is one.
void TstParallelLayoutGui::fitSaysWhyNothingFits() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt3-175b")));
    w.document()->waitUntilIdle();
    FitDialog* fit = w.showFitDialog();
    fit->gpusBox()->setValue(8);
    QSignalSpy finished(fit, &FitDialog::searchFinished);
    fit->start();
    QVERIFY(finished.wait(300000));
    QVERIFY2(fit->result().has_value(), qPrintable(fit->messageText()));
    const FitResult& r = *fit->result();
    QVERIFY(!r.fits);
    // The rows: the best plan on the smallest count that fits, then the offload plan if any.
    QCOMPARE(fit->table()->rowCount(), 1 + (r.offloadFits ? 1 : 0));
    QCOMPARE(fit->table()->item(0, FitDialog::LayoutColumn)->text(),
             toQString(describeLayout(r.minGpusPlan.layout)) +
                 QStringLiteral(" (on %1 GPUs)").arg(r.minGpus));
    QCOMPARE(r.minGpusPlan.layout.gpus(), r.minGpus);
    const QString text = fit->messageText();
    QVERIFY2(text.contains(QStringLiteral("Does not fit on 8 GPUs")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("2.79 TB")), qPrintable(text));
    QVERIFY(r.minGpus > 8);
    QVERIFY2(text.contains(QStringLiteral("smallest GPU count found that fits: %1")
                               .arg(r.minGpus)),
             qPrintable(text));
    QVERIFY(!r.rejected.empty());
    QVERIFY2(text.contains(printableText(r.rejected.front(), kShownMessageChars)),
             qPrintable(text));
    if (const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR"); !dir.isEmpty()) {
        fit->resize(980, 640);
        QCoreApplication::processEvents();
        QVERIFY(fit->grab().save(QString::fromLocal8Bit(dir) + "/fit-dialog-gpt3-175b-8.png"));
    }
}

// Under a layout the comparison table, the trade-off plot and the sweep show the rank that
// peaks, per GPU, and say so: the current strategy's row is the document's own evaluation (the
// same peak and the layout's step time), and the sweep's points are below one GPU's.
void TstParallelLayoutGui::comparisonAndSweepArePerGpu() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(test::showAt(w, QSize(1600, 1000)));
    Document* doc = w.document();
    ComparisonPanel* cmp = w.comparison();
    QTRY_VERIFY_WITH_TIMEOUT(!cmp->isBusy(), 60000);
    QVERIFY(!cmp->result().perGpu);
    QCOMPARE(cmp->model()->headerData(ComparisonModel::PeakColumn, Qt::Horizontal).toString(),
             QStringLiteral("peak"));
    std::int64_t singleNone = -1;
    for (const ComparisonRow& r : cmp->result().named)
        if (r.spelling == "none") singleNone = r.peakBytes;
    QVERIFY(singleNone > 0);
    const std::size_t singleChain = cmp->result().chainLength;

    ParallelConfig lay;
    lay.dp = 2;
    lay.zeroStage = 3;
    lay.pp = 2;
    QVERIFY(doc->setParallel(lay).ok());
    QVERIFY(doc->parallel());
    QTRY_VERIFY_WITH_TIMEOUT(!cmp->isBusy() && cmp->result().frontierDone, 60000);
    const ComparisonResult& r = cmp->result();
    QVERIFY(r.perGpu);
    QVERIFY2(cmp->model()
                 ->headerData(ComparisonModel::PeakColumn, Qt::Horizontal)
                 .toString()
                 .contains(QStringLiteral("per GPU (rank that peaks)")),
             "peak header");
    QVERIFY2(cmp->statusText().startsWith(QStringLiteral("Per GPU (rank that peaks)")),
             qPrintable(cmp->statusText()));
    QVERIFY(r.frontier.empty());
    QVERIFY(!r.everyK.empty());
    // every:K within a pipeline stage: half of gpt2-tiny's chain.
    QCOMPARE(r.everyK.size(), r.chainLength);
    QCOMPARE(r.chainLength, singleChain / 2);
    const std::string current = toStdString(doc->strategySpelling());
    bool found = false;
    for (const ComparisonRow& row : r.named) {
        QVERIFY2(row.ok, row.error.c_str());
        if (row.spelling == "none") QVERIFY(row.peakBytes < singleNone);
        if (row.spelling != current) continue;
        found = true;
        QCOMPARE(row.peakBytes, doc->evaluation().timeline.peakBytes);
        QCOMPARE(row.stepTimeS, doc->parallel()->time.totalS);
        QCOMPARE(row.fits, doc->parallel()->fits);
    }
    QVERIFY2(found, current.c_str());

    // The sweep: per GPU, below the same sweep on one GPU.
    SweepPanel* sweep = w.sweepPanel();
    QSignalSpy done(sweep, &SweepPanel::finished);
    sweep->valuesEdit()->setText(QStringLiteral("1,2"));
    QDockWidget* dock = nullptr;
    for (QWidget* p = sweep; p && !dock; p = p->parentWidget()) dock = qobject_cast<QDockWidget*>(p);
    QVERIFY(dock);
    dock->raise();
    QVERIFY(sweep->isShown());
    QVERIFY(done.wait(60000));
    QVERIFY(sweep->result());
    QVERIFY2(sweep->statusText().startsWith(QStringLiteral("Per GPU (rank that peaks).")),
             qPrintable(sweep->statusText()));
    TrainingConfig one = doc->model().training;
    one.parallel = ParallelConfig{};
    auto single = remat::sweep(doc->model(), one, doc->device(), sweep->result()->axis, {1, 2},
                               {*parseStrategy("none")});
    QVERIFY(single.ok());
    for (const SweepPoint& p : sweep->result()->points)
        if (p.strategy == "none" && p.error.empty())
            for (const SweepPoint& q : single->points)
                if (q.value == p.value) QVERIFY(p.peakBytes < q.peakBytes);

    if (const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QVERIFY(cmp->grab().save(QString::fromLocal8Bit(dir) + "/comparison-per-gpu-gpt2-tiny.png"));
        QVERIFY(sweep->grab().save(QString::fromLocal8Bit(dir) + "/sweep-per-gpu-gpt2-tiny.png"));
    }
}

QTEST_MAIN(TstParallelLayoutGui)
#include "tst_parallel_layout_gui.moc"
