// The step-through and the schedule grid in the main window, driven offscreen as a person
// drives them: the step-through visits every instruction (allocs and frees shown) and at each
// one its blocks equal the simulator's live bytes per category, the timeline's cursor, the
// layer stack's marked row and the grid's cursor follow it; captions name the region being
// recomputed (a run of two layers, and one layer alone under PyTorch's early stop); the keyboard
// plays, steps and jumps; playback stops at the end; a click on the grid goes to that column's
// instruction. A program of hundreds of thousands of instructions is indexed off the GUI thread:
// the panel says so meanwhile, then shows the same index as one built on the spot, and a newer
// program given meanwhile wins.
#include <QDockWidget>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "deep_model.h"
#include "document.h"
#include "layer_stack_model.h"
#include "layer_stack_view.h"
#include "live_blocks_view.h"
#include "main_window.h"
#include "schedule_grid_view.h"
#include "step_through_panel.h"
#include "timeline_plot.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

// Linear, ReLU, linear, ReLU and an MSE loss (tst_step_through's kLinearRelu), checkpointed
// every 2 layers. Each region ends with a ReLU, which saves its output, so PyTorch's early stop
// comes after it: every recompute runs both layers of its region. Work instructions (the grid's
// columns): forward 0-4, the loss's backward, recompute 2 and 3, backward 3 and 2, recompute 0
// and 1, backward 1 and 0.
const char* kLinearRelu = R"({"format":"remat-model/1","input":{"shape":[8]},
    "layers":[{"kind":"linear","out":8},{"kind":"relu"},{"kind":"linear","out":8},
              {"kind":"relu"},{"kind":"mse"}],
    "plan":{"strategy":"every:2"},"training":{"micro_batch":2}})";

// Four linear layers and an MSE loss (tst_step_through's kFourLinear) with every:2: a region's
// last saving op is its second linear, which saves only its input, so the recompute stops before
// it and re-runs the region's first layer alone.
const char* kFourLinear = R"({"format":"remat-model/1","input":{"shape":[8]},
    "layers":[{"kind":"linear","out":8},{"kind":"linear","out":8},{"kind":"linear","out":8},
              {"kind":"linear","out":8},{"kind":"mse"}],
    "plan":{"strategy":"every:2"},"training":{"micro_batch":2}})";

void settle() {
    for (int i = 0; i < 5; ++i) {
        QTest::qWait(10);
        QApplication::processEvents();
    }
}

}  // namespace

class TestStepThroughPanel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;

    // A window showing the linear-ReLU model with the step-through and the schedule raised.
    std::unique_ptr<MainWindow> window() {
        auto w = std::make_unique<MainWindow>(test::testOptions());
        if (!w->openModel(m_model)) qFatal("%s", qPrintable(w->lastError()));
        w->resize(1280, 720);
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get())) qFatal("window not exposed");
        w->stepThroughDock()->raise();
        w->scheduleDock()->raise();
        settle();
        return w;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath(QStringLiteral("linear-relu.json"));
        QFile f(m_model);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kLinearRelu);
    }

    void inactiveUntilShown() {
        MainWindow w(test::testOptions());
        QVERIFY(w.openModel(m_model));
        QVERIFY(test::showAt(w, QSize(1280, 720)));
        settle();
        // Behind the summary and the comparison: nothing indexed, nothing marked.
        QVERIFY(!w.stepThrough()->isActive());
        QVERIFY(!w.stepThrough()->data());
        QCOMPARE(w.timeline()->cursorInstruction(), TimelinePlot::npos);
        w.stepThroughDock()->raise();
        settle();
        QVERIFY(w.stepThrough()->isActive());
        QVERIFY(w.stepThrough()->data());
        QCOMPARE(w.timeline()->cursorInstruction(), w.stepThrough()->currentInstruction());
        // Hidden again: the marks go.
        w.findChild<QDockWidget*>(QStringLiteral("summaryDock"))->raise();
        settle();
        QVERIFY(!w.stepThrough()->isActive());
        QCOMPARE(w.timeline()->cursorInstruction(), TimelinePlot::npos);
        QCOMPARE(w.layerStack()->model()->markedInstance(), std::int64_t(-1));
    }

    void visitsEveryInstruction() {
        auto w = window();
        StepThroughPanel* panel = w->stepThrough();
        QVERIFY(panel->isActive());
        panel->setShowAllocFree(true);
        panel->goToFirst();
        const auto data = panel->data();
        QVERIFY(data);
        const Program& program = *data->program;
        const Timeline& timeline = *data->timeline;
        QCOMPARE(panel->stepCount(), program.instructions.size());
        std::size_t visited = 0;
        for (;;) {
            const std::size_t i = panel->currentInstruction();
            QCOMPARE(i, visited);
            // The blocks per category equal the simulator's live bytes of the categories a
            // layer's tensors make up (activation gradients are transient memory).
            CategoryBytes drawn{};
            for (int layer = 0; layer < data->layerCount(); ++layer)
                for (BufferId b : panel->blocks()->rowBlocks(layer)) {
                    const Buffer& buf = program.buffer(b);
                    drawn[std::size_t(buf.category)] += buf.bytes.at(program.microBatch);
                }
            for (Category c : {Category::SavedActivations, Category::RecomputedActivations,
                               Category::Transient, Category::Gradients})
                if (drawn[std::size_t(c)] != timeline.live[i][std::size_t(c)])
                    QFAIL(qPrintable(QStringLiteral("instruction %1: blocks of %2 hold %3 bytes, "
                                                    "the simulator %4")
                                         .arg(i)
                                         .arg(int(c))
                                         .arg(drawn[std::size_t(c)])
                                         .arg(timeline.live[i][std::size_t(c)])));
            // Everything else is not a layer's: parameters, optimizer state, inputs, workspace.
            QCOMPARE(w->timeline()->cursorInstruction(), i);
            QCOMPARE(w->layerStack()->model()->markedInstance(),
                     std::int64_t(w->timeline()->layerOfInstruction(i)));
            QCOMPARE(panel->blocks()->markedRow(), w->timeline()->layerOfInstruction(i));
            QCOMPARE(w->scheduleGrid()->cursorColumn(), data->grid.columnOfInstruction(i));
            QVERIFY(!panel->caption().isEmpty());
            ++visited;
            if (panel->currentStep() + 1 == panel->stepCount()) break;
            panel->stepForward();
        }
        QCOMPARE(visited, program.instructions.size());
    }

    void workStepsAndCaptions() {
        auto w = window();
        StepThroughPanel* panel = w->stepThrough();
        QVERIFY(!panel->showsAllocFree());
        const Program& program = *panel->data()->program;
        std::size_t work = 0, firstRecompute = 0, secondRecompute = 0, forward0 = 0;
        for (std::size_t i = 0; i < program.instructions.size(); ++i) {
            const Instruction& ins = program.instructions[i];
            work += isWorkInstruction(ins.kind);
            if (ins.kind == InstrKind::Recompute && firstRecompute == 0)
                firstRecompute = i;
            else if (ins.kind == InstrKind::Recompute && secondRecompute == 0)
                secondRecompute = i;
            if (ins.kind == InstrKind::Forward && forward0 == 0) forward0 = i;
        }
        QCOMPARE(panel->stepCount(), work);
        // An alloc is not a stop: seeking it lands on the work it prepares.
        panel->seekInstruction(firstRecompute - 1);
        QCOMPARE(panel->currentInstruction(), firstRecompute);
        QCOMPARE(panel->caption(),
                 QStringLiteral("backward reaches region 2 (2-3): recompute layers 2–3 from the "
                                "kept input of layer 2 (linear)"));
        panel->seekInstruction(secondRecompute);
        QCOMPARE(panel->caption(),
                 QStringLiteral("recompute layer 3 (relu): 3/relu, inside region 2 (2-3)"));
        panel->seekInstruction(forward0);
        QCOMPARE(panel->caption(),
                 QStringLiteral("forward through layer 0 (linear): 0/linear; inside region 1 (0-1) its "
                                "output is freed once used and recomputed in backward"));
        panel->stepForward();
        QCOMPARE(panel->caption(),
                 QStringLiteral("forward through layer 1 (relu): 1/relu; its output is kept for "
                                "backward"));
        // The marked row: layer 1 in the stack and in the blocks.
        QCOMPARE(w->layerStack()->model()->markedInstance(), std::int64_t(1));
        QCOMPARE(panel->blocks()->markedRow(), 1);
        const QModelIndex row = w->layerStack()->model()->indexForInstance(1);
        QCOMPARE(row.data(Qt::BackgroundRole).value<QBrush>().color(),
                 LayerStackModel::markColor(true));
        QVERIFY(!w->layerStack()->model()->indexForInstance(0).data(Qt::BackgroundRole).isValid());
    }

    // Under PyTorch's early stop a recompute of one layer is named as such, and the grid has no
    // column for the layers left out.
    void earlyStopCaption() {
        const QString path = m_dir.filePath(QStringLiteral("four-linear.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kFourLinear);
        f.close();
        MainWindow w(test::testOptions());
        QVERIFY(w.openModel(path));
        QVERIFY(test::showAt(w, QSize(1280, 720)));
        w.stepThroughDock()->raise();
        settle();
        StepThroughPanel* panel = w.stepThrough();
        QVERIFY(panel->isActive());
        const Program& program = *panel->data()->program;
        std::vector<std::size_t> recomputes;
        for (std::size_t i = 0; i < program.instructions.size(); ++i)
            if (program.instructions[i].kind == InstrKind::Recompute) recomputes.push_back(i);
        QCOMPARE(recomputes.size(), std::size_t(2));  // layer 2, then layer 0
        panel->seekInstruction(recomputes[0]);
        QCOMPARE(panel->caption(),
                 QStringLiteral("backward reaches region 2 (2-3): recompute layer 2 (linear) from the kept "
                                "input of layer 2 (linear)"));
        panel->stepForward();
        QCOMPARE(panel->caption(), QStringLiteral("backward through layer 3 (linear): 3/linear"));
        QCOMPARE(panel->data()->grid.columnCount(), std::size_t(12));
    }

    void keyboard() {
        auto w = window();
        StepThroughPanel* panel = w->stepThrough();
        panel->setFocus();
        QTRY_VERIFY(panel->hasFocus());
        panel->goToFirst();
        QCOMPARE(panel->currentStep(), std::size_t(0));
        QTest::keyClick(panel, Qt::Key_Right);
        QCOMPARE(panel->currentStep(), std::size_t(1));
        QTest::keyClick(panel, Qt::Key_Right);
        QTest::keyClick(panel, Qt::Key_Left);
        QCOMPARE(panel->currentStep(), std::size_t(1));
        QTest::keyClick(panel, Qt::Key_End);
        QCOMPARE(panel->currentStep(), panel->stepCount() - 1);
        QTest::keyClick(panel, Qt::Key_Home);
        QCOMPARE(panel->currentStep(), std::size_t(0));
        // Page Down: the first stop of the next phase (the backward, after the forward).
        const Program& program = *panel->data()->program;
        QCOMPARE(program.instructions[panel->currentInstruction()].phase, Phase::Forward);
        QTest::keyClick(panel, Qt::Key_PageDown);
        QCOMPARE(program.instructions[panel->currentInstruction()].phase, Phase::Backward);
        QTest::keyClick(panel, Qt::Key_PageDown);
        QCOMPARE(program.instructions[panel->currentInstruction()].phase, Phase::Recompute);
        QTest::keyClick(panel, Qt::Key_PageUp);
        QCOMPARE(program.instructions[panel->currentInstruction()].phase, Phase::Backward);
        QTest::keyClick(panel, Qt::Key_PageUp);
        QCOMPARE(panel->currentStep(), std::size_t(0));
        // P: the peak, or the work right after it when the peak is an alloc.
        QTest::keyClick(panel, Qt::Key_P);
        const std::size_t peak = panel->data()->timeline->peakInstruction;
        QVERIFY(panel->currentInstruction() >= peak);
        for (std::size_t i = peak; i < panel->currentInstruction(); ++i)
            QVERIFY(!isWorkInstruction(program.instructions[i].kind));
        // Space plays and pauses.
        QTest::keyClick(panel, Qt::Key_Space);
        QVERIFY(panel->isPlaying());
        QTest::keyClick(panel, Qt::Key_Space);
        QVERIFY(!panel->isPlaying());
    }

    void playsToTheEnd() {
        auto w = window();
        StepThroughPanel* panel = w->stepThrough();
        panel->setSpeedIndex(6);  // 1000 steps per second
        panel->goToFirst();
        panel->play();
        QVERIFY(panel->isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isPlaying(), 10000);
        QCOMPARE(panel->currentStep(), panel->stepCount() - 1);
        // Play again from the end starts over.
        panel->play();
        QVERIFY(panel->currentStep() < panel->stepCount() - 1);
        panel->pause();
    }

    void gridClickSeeks() {
        auto w = window();
        ScheduleGridView* grid = w->scheduleGrid();
        QVERIFY(grid->isVisible());
        const ScheduleGrid* g = grid->grid();
        QVERIFY(g);
        QCOMPARE(g->columnCount(), std::size_t(14));
        const QRect r = grid->gridRect();
        QVERIFY(r.width() > 14 && r.height() > 0);
        const std::size_t column = 8;  // layer 3's backward
        const int x = int((grid->columnX(column) + grid->columnX(column + 1)) / 2);
        QCOMPARE(grid->columnAt(x), column);
        QTest::mouseClick(grid, Qt::LeftButton, {}, QPoint(x, r.center().y()));
        QCOMPARE(w->stepThrough()->currentInstruction(), g->instructionOfColumn(column));
        QCOMPARE(grid->cursorColumn(), column);
        // Named as the layer stack numbers the row (layer_numbering.h).
        QCOMPARE(w->stepThrough()->caption(),
                 QStringLiteral("backward through layer 3 (relu): 3/relu"));
        // The legend names one recompute depth for every:2: no depths spelled out.
        QStringList names;
        for (const auto& e : grid->legendEntries()) names << e.second;
        QVERIFY(names.contains(QStringLiteral("recompute")));
        QVERIFY(names.contains(QStringLiteral("recomputed, held")));
        QVERIFY(names.filter(QStringLiteral("depth")).isEmpty());
    }

    void longProgramIsIndexedInTheBackground() {
        Document doc;
        QVERIFY(doc.openModel(remat::test::presetWithInstances(800, "gpt2-tiny"), QString()).ok());
        QVERIFY(doc.waitUntilIdle().ok());
        QVERIFY(doc.setStrategy(QStringLiteral("revolve:4")).ok());
        QVERIFY(doc.waitUntilIdle().ok());
        const auto state = doc.stateHandle();
        const std::size_t n = state->evaluation.program.instructions.size();
        QVERIFY(n >= kIndexInBackgroundFrom);

        StepThroughPanel panel;
        panel.setActive(true);
        QSignalSpy changed(&panel, &StepThroughPanel::programChanged);
        panel.setProgram(state, *state->graph, state->evaluation.program,
                         state->evaluation.timeline, state->series);
        // Back before the index exists: nothing to step yet, and the panel says why.
        QVERIFY(!panel.data());
        QCOMPARE(panel.stepCount(), std::size_t(0));
        QVERIFY2(panel.caption().contains(QString::number(n)), qPrintable(panel.caption()));
        if (const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR"); !dir.isEmpty()) {
            panel.resize(420, 360);
            QVERIFY(panel.grab().save(QString::fromLocal8Bit(dir) + "/step-through-indexing.png"));
        }
        QTRY_VERIFY_WITH_TIMEOUT(panel.data() != nullptr, 120000);
        QCOMPARE(panel.data()->instructionCount(), n);
        QCOMPARE(changed.count(), 2);  // cleared, then the new index
        const auto direct = makePlaybackProgram(state, *state->graph, state->evaluation.program,
                                                state->evaluation.timeline, state->series);
        QCOMPARE(panel.steps(), playbackSteps(state->evaluation.program, false));
        QCOMPARE(panel.data()->blockScaleBytes, direct->blockScaleBytes);
        QCOMPARE(panel.data()->grid.maxDepth(), direct->grid.maxDepth());
        QCOMPARE(panel.currentInstruction(), std::size_t(panel.steps().front()));
        QVERIFY(!panel.caption().isEmpty());
        QVERIFY(!panel.caption().contains(QString::number(n)));

        // A newer program given while the long one is indexed is the one shown.
        Document small;
        QVERIFY(small.open(QStringLiteral("gpt2-tiny")).ok());
        const auto tiny = small.stateHandle();
        panel.setProgram(state, *state->graph, state->evaluation.program,
                         state->evaluation.timeline, state->series);
        QVERIFY(!panel.data());
        panel.setProgram(tiny, *tiny->graph, tiny->evaluation.program, tiny->evaluation.timeline,
                         tiny->series);
        QVERIFY(panel.data());
        QCOMPARE(panel.data()->program, &tiny->evaluation.program);
        // The long program's indexing, dropped, ends without replacing what is shown. Indexings
        // run one at a time: one started now by another panel ends after it.
        StepThroughPanel other;
        other.setActive(true);
        other.setProgram(state, *state->graph, state->evaluation.program,
                         state->evaluation.timeline, state->series);
        QVERIFY(!other.data());
        QTRY_VERIFY_WITH_TIMEOUT(other.data() != nullptr, 120000);
        QCOMPARE(other.data()->program, &state->evaluation.program);
        QCOMPARE(panel.data()->program, &tiny->evaluation.program);
    }

    void followsEdits() {
        auto w = window();
        StepThroughPanel* panel = w->stepThrough();
        panel->goToLast();
        const auto before = panel->data();
        QVERIFY(w->document()->setStrategy(QStringLiteral("none")));
        settle();
        QVERIFY(panel->data() != before);
        QCOMPARE(w->scheduleGrid()->grid(), &panel->data()->grid);
        QCOMPARE(panel->data()->grid.maxDepth(), 0);
        QCOMPARE(w->timeline()->cursorInstruction(), panel->currentInstruction());
    }
};

QTEST_MAIN(TestStepThroughPanel)
#include "tst_step_through_panel.moc"
