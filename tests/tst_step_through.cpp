// The step-through's and the schedule grid's logic on programs whose every instruction is known:
// four linear layers and an MSE loss with every:2 (regions 0-1 and 2-3), cell by cell; linear,
// ReLU, linear, ReLU with every:2 for a recompute run of two layers; a nested manual plan for the
// region depths; and, on presets with a compact accumulation repeat, the live set after every
// instruction against the simulator's live bytes per category.
#include <QtTest/QtTest>

#include <algorithm>
#include <set>
#include <string>

#include "model_file.h"
#include "plan_diff.h"
#include "schedule_grid.h"
#include "sim_test_support.h"
#include "step_through.h"

using namespace remat;
using namespace remat::test;

namespace {

// input [8] -> 4 x Linear(8) -> MSE, micro-batch 2: the program `remat program` lists in
// docs/user-guide.md's schedule-grid section. Work instructions (the grid's columns):
//   c0 fwd 0 (11)  c1 fwd 1 (13)  c2 fwd 2 (16)  c3 fwd 3 (18)  c4 fwd mse (21)
//   c5 bwd mse (24)  c6 rec 2 (27)  c7 bwd 3 (31)  c8 bwd 2 (37)
//   c9 rec 0 (41)  c10 bwd 1 (45)  c11 bwd 0 (50)
// Each region's last op that saves something is its second linear, which saves only its input:
// PyTorch's early stop ends the recompute before it, so a recompute re-runs the region's first
// layer alone (docs/memory-model.md, "Checkpoint implementations"). The inputs stay live until
// the optimizer step (67 and 68). The unit device has no GEMM workspace: setup is instructions
// 0-7, the parameters.
const char* kFourLinear = R"({"format":"remat-model/1","input":{"shape":[8]},
    "layers":[{"kind":"linear","out":8},{"kind":"linear","out":8},{"kind":"linear","out":8},
              {"kind":"linear","out":8},{"kind":"mse"}],"training":{"micro_batch":2}})";

// input [8] -> Linear(8), ReLU, Linear(8), ReLU -> MSE, micro-batch 2. Each region ends with a
// ReLU, which saves its output, so a recompute runs the whole region: the linear, then the ReLU.
// Recompute instructions 23 (2/linear) and 25 (3/relu) for region 2-3, 38 (0/linear) and 40
// (1/relu) for region 0-1; setup is instructions 0-3, the two linears' parameters.
const char* kLinearRelu = R"({"format":"remat-model/1","input":{"shape":[8]},
    "layers":[{"kind":"linear","out":8},{"kind":"relu"},{"kind":"linear","out":8},
              {"kind":"relu"},{"kind":"mse"}],"training":{"micro_batch":2}})";

std::set<std::string> labels(const Built& b, const std::vector<BufferId>& ids) {
    std::set<std::string> out;
    for (BufferId id : ids) out.insert(bufferLabel(b.graph, b.program.buffer(id)));
    return out;
}

// Every instruction: the live set's bytes per category equal the simulator's.
void checkLiveSetAgainstSimulator(const Built& b) {
    const LiveSetIndex live(b.graph, b.program);
    QCOMPARE(live.instructionCount(), b.program.instructions.size());
    std::vector<BufferId> set;
    for (std::size_t i = 0; i < b.program.instructions.size(); ++i) {
        live.liveAfter(i, set);
        CategoryBytes sum{};
        for (BufferId id : set) {
            const Buffer& buf = b.program.buffer(id);
            sum[std::size_t(buf.category)] += buf.bytes.at(b.program.microBatch);
        }
        if (sum != b.timeline.live[i])
            QFAIL(qPrintable(QStringLiteral("instruction %1: live set sums to %2 bytes, the "
                                            "simulator has %3")
                                 .arg(i)
                                 .arg(totalBytes(sum))
                                 .arg(totalBytes(b.timeline.live[i]))));
    }
    live.liveAfter(b.program.instructions.size() - 1, set);
    QVERIFY(set.empty());  // everything freed at the end
}

}  // namespace

class TestStepThrough : public QObject {
    Q_OBJECT

private slots:
    void liveSetAfterInstructions() {
        const Built b = build(kFourLinear, "every:2");
        const LiveSetIndex live(b.graph, b.program);
        const std::set<std::string> params = {
            "0/linear.weight", "0/linear.bias", "1/linear.weight", "1/linear.bias",
            "2/linear.weight", "2/linear.bias", "3/linear.weight", "3/linear.bias"};
        auto with = [&](std::set<std::string> extra) {
            extra.insert(params.begin(), params.end());
            return extra;
        };
        // After the forward of layer 2 (16): layer 0's output was freed at 14 (inside region
        // 0-1), layer 1's is kept (region 2-3's input), layer 2's is transient.
        QCOMPARE(labels(b, live.liveAfter(16)), with({"input", "target", "1/linear", "2/linear"}));
        // After recomputing layer 2 (27): the kept 3/linear was freed after the loss's
        // backward (25); layer 2's recomputed copy and the loss's gradient live. Layer 3 is not
        // run again: its linear saves only its input, layer 2's output.
        QCOMPARE(labels(b, live.liveAfter(27)),
                 with({"input", "target", "1/linear", "grad 3/linear", "2/linear (recompute)"}));
        // After the last backward (50): the inputs are held until the optimizer step.
        QCOMPARE(
            labels(b, live.liveAfter(50)),
            with({"input", "target", "grad 0/linear", "grad 0/linear.weight", "grad 0/linear.bias",
                  "grad 1/linear.weight", "grad 1/linear.bias", "grad 2/linear.weight",
                  "grad 2/linear.bias", "grad 3/linear.weight", "grad 3/linear.bias"}));
        QVERIFY(live.liveAfter(b.program.instructions.size()).empty());

        // Layers and kinds of the blocks.
        for (std::size_t i = 0; i < b.program.buffers.size(); ++i) {
            const BufferId id(static_cast<std::uint32_t>(i));
            const std::string label = bufferLabel(b.graph, b.program.buffer(id));
            if (label == "1/linear") {
                QCOMPARE(live.layerOf(id), 1);
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Kept));
                QCOMPARE(live.allocAt(id), std::size_t(12));
                QCOMPARE(live.freeAt(id), std::size_t(38));  // after layer 2's backward
            } else if (label == "2/linear (recompute)") {
                QCOMPARE(live.layerOf(id), 2);
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Recomputed));
            } else if (label == "0/linear") {
                QCOMPARE(live.layerOf(id), 0);
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Transient));
            } else if (label == "grad 3/linear") {
                QCOMPARE(live.layerOf(id), 3);  // the gradient of layer 3's output
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Gradient));
            } else if (label == "grad 2/linear.weight") {
                QCOMPARE(live.layerOf(id), 2);
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Gradient));
            } else if (label == "input") {
                QCOMPARE(live.layerOf(id), -1);
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Other));
            } else if (label == "1/linear.weight") {
                QCOMPARE(live.layerOf(id), 1);
                QCOMPARE(int(live.kindOf(id)), int(BlockKind::Other));
            }
        }
    }

    void liveSetMatchesSimulator_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("accumulation");
        QTest::newRow("4 linear every:2") << QString() << "every:2" << 1;
        QTest::newRow("4 linear none") << QString() << "none" << 1;
        QTest::newRow("gpt2-tiny full, G=6") << "gpt2-tiny"
                                             << "full" << 6;
        QTest::newRow("gpt2-tiny selective, G=2") << "gpt2-tiny"
                                                  << "selective:attention" << 2;
        QTest::newRow("mlp-3x1024 sqrt") << "mlp-3x1024"
                                         << "sqrt" << 1;
    }
    void liveSetMatchesSimulator() {
        QFETCH(QString, model);
        QFETCH(QString, strategy);
        QFETCH(int, accumulation);
        std::string text = kFourLinear;
        if (!model.isEmpty()) {
            auto m = loadModel(model.toStdString());
            QVERIFY2(m, m ? "" : m.error().message.c_str());
            text = modelToJson(*m);
        }
        TrainingConfig cfg = parseModel(text, "m.json")->training;
        cfg.accumulationSteps = accumulation;
        const Built b = build(text, strategy.toStdString(), &cfg);
        QCOMPARE(b.program.repeat.has_value(), accumulation >= 4);
        checkLiveSetAgainstSimulator(b);
    }

    // The scale of the blocks: per layer the most bytes it holds at once, as the live sets
    // after every instruction give it.
    void peakLayerBytes() {
        TrainingConfig cfg = parseModel(kFourLinear, "m.json")->training;
        cfg.accumulationSteps = 4;
        for (const char* strategy : {"none", "every:2", "full"}) {
            const Built b = build(kFourLinear, strategy, &cfg);
            const LiveSetIndex live(b.graph, b.program);
            const int layers = int(b.graph.layerModules.size());
            std::vector<std::int64_t> expected(static_cast<std::size_t>(layers));
            for (std::size_t i = 0; i < b.program.instructions.size(); ++i) {
                std::vector<std::int64_t> sum(static_cast<std::size_t>(layers));
                for (BufferId id : live.liveAfter(i))
                    if (live.layerOf(id) >= 0 && isLayerBlock(live.kindOf(id)))
                        sum[std::size_t(live.layerOf(id))] +=
                            b.program.buffer(id).bytes.at(b.program.microBatch);
                for (int l = 0; l < layers; ++l)
                    expected[std::size_t(l)] =
                        std::max(expected[std::size_t(l)], sum[std::size_t(l)]);
            }
            QCOMPARE(peakLayerBlockBytes(b.program, live, layers), expected);
            // Layer 1 holds at least its 64-byte output (micro-batch 2 x 8 floats) at some point.
            QVERIFY(expected[1] >= 64);
        }
    }

    void scheduleGridCells() {
        const Built b = build(kFourLinear, "every:2");
        const LiveSetIndex live(b.graph, b.program);
        const ScheduleGrid grid(b.graph, b.program, live);
        QCOMPARE(grid.rowCount(), 5);
        QCOMPARE(grid.columnCount(), std::size_t(12));
        QCOMPARE(grid.maxDepth(), 1);
        const std::vector<std::size_t> instructions = {11, 13, 16, 18, 21, 24,
                                                       27, 31, 37, 41, 45, 50};
        for (std::size_t c = 0; c < instructions.size(); ++c)
            QCOMPARE(grid.instructionOfColumn(c), instructions[c]);
        // An alloc maps to the work it prepares; the optimizer and teardown to the last column.
        QCOMPARE(grid.columnOfInstruction(26), std::size_t(6));
        QCOMPARE(grid.columnOfInstruction(0), std::size_t(0));
        QCOMPARE(grid.columnOfInstruction(67), std::size_t(11));

        // . empty  F forward  K kept  R recompute  r recomputed (held)  B backward
        const char* table[] = {
            "F........RrB", ".FKKKKKKK.B.", "..F...RrB...", "...FKK.B....", "....FB......",
        };
        for (int row = 0; row < 5; ++row) {
            QString got;
            for (std::size_t c = 0; c < grid.columnCount(); ++c) {
                const ScheduleCell cell = grid.cell(row, c);
                switch (cell.kind) {
                    case CellKind::Empty:
                        got += '.';
                        break;
                    case CellKind::Kept:
                        got += 'K';
                        break;
                    case CellKind::Recomputed:
                        got += 'r';
                        break;
                    case CellKind::Forward:
                        got += 'F';
                        break;
                    case CellKind::Recompute:
                        got += 'R';
                        break;
                    case CellKind::Backward:
                        got += 'B';
                        break;
                }
                if (cell.kind == CellKind::Recompute || cell.kind == CellKind::Recomputed)
                    QCOMPARE(cell.depth, 1);
                else
                    QCOMPARE(cell.depth, 0);
            }
            QCOMPARE(got, QString::fromLatin1(table[row]));
        }
        // Held spans as stored: layer 1 kept from its forward through layer 2's backward, the
        // last use of region 2-3's input, and never recomputed (region 0-1's recompute stops
        // before layer 1's linear); layer 0's recomputed copy from its recompute to layer 1's
        // backward, which reads it (the column's own action, the recompute, is drawn over the
        // span's first column).
        QCOMPARE(grid.heldSpans(1), (std::vector<ScheduleSpan>{{1, 9, {CellKind::Kept, 0}}}));
        QCOMPARE(grid.heldSpans(0),
                 (std::vector<ScheduleSpan>{{9, 11, {CellKind::Recomputed, 1}}}));
        QCOMPARE(grid.heldSpans(3), (std::vector<ScheduleSpan>{{3, 6, {CellKind::Kept, 0}}}));
    }

    void microStepBands() {
        TrainingConfig cfg = parseModel(kFourLinear, "m.json")->training;
        cfg.accumulationSteps = 5;  // micro-step 0, a body for 1..3, micro-step 4
        const Built b = build(kFourLinear, "every:2", &cfg);
        const LiveSetIndex live(b.graph, b.program);
        const ScheduleGrid grid(b.graph, b.program, live);
        QCOMPARE(grid.columnCount(), std::size_t(3 * 12));
        QCOMPARE(grid.microStepBands(),
                 (std::vector<MicroStepBand>{{0, 12, 0, 1}, {12, 24, 1, 3}, {24, 36, 4, 1}}));
        const Built one = build(kFourLinear, "none");
        const LiveSetIndex oneLive(one.graph, one.program);
        const ScheduleGrid single(one.graph, one.program, oneLive);
        QCOMPARE(single.microStepBands().size(), std::size_t(1));
    }

    void nestedDepths() {
        // Regions [0, 3] and [1, 2]: the inner one is recomputed at depth 2 during the outer's
        // backward.
        const char* model = R"({"format":"remat-model/1","input":{"shape":[8]},
            "layers":[{"kind":"linear","out":8},{"kind":"linear","out":8},
                      {"kind":"linear","out":8},{"kind":"linear","out":8},{"kind":"mse"}],
            "plan":{"regions":[[0,3],[1,2]]},"training":{"micro_batch":2}})";
        const Built b = build(model, "manual");
        const LiveSetIndex live(b.graph, b.program);
        const ScheduleGrid grid(b.graph, b.program, live);
        QCOMPARE(grid.maxDepth(), 2);
        const std::vector<int> layers = opLayers(b.graph);
        int depthOne = 0, depthTwo = 0;
        for (std::size_t c = 0; c < grid.columnCount(); ++c) {
            const ScheduleCell a = grid.actionOfColumn(c);
            if (a.kind != CellKind::Recompute) continue;
            const std::size_t i = grid.instructionOfColumn(c);
            const RecomputeContext ctx = recomputeContext(b.program, layers, i);
            QVERIFY(ctx.valid);
            QCOMPARE(ctx.depth, a.depth);
            const Region& r = b.program.plan.regions[ctx.region];
            QCOMPARE(r.label, std::string(a.depth == 1 ? "0-3" : "1-2"));
            (a.depth == 1 ? depthOne : depthTwo)++;
        }
        // The outer recompute runs layers 0..2 and stops before layer 3, whose linear saves only
        // its input (its last pack); the inner one runs layer 1 again and stops before layer 2's
        // linear for the same reason.
        QCOMPARE(depthOne, 3);
        QCOMPARE(depthTwo, 1);
        // A recomputed copy made at depth 2 is drawn at depth 2.
        bool sawDepthTwoHeld = false;
        for (int row = 0; row < grid.rowCount(); ++row)
            for (const ScheduleSpan& s : grid.heldSpans(row))
                sawDepthTwoHeld |= s.cell == ScheduleCell{CellKind::Recomputed, 2};
        QVERIFY(sawDepthTwoHeld);
    }

    void recomputeContextNamesRegionAndRun() {
        const Built b = build(kLinearRelu, "every:2");
        const std::vector<int> layers = opLayers(b.graph);
        for (std::size_t i : {std::size_t(23), std::size_t(25)}) {
            const RecomputeContext c = recomputeContext(b.program, layers, i);
            QVERIFY(c.valid);
            QCOMPARE(b.program.plan.regions[c.region].label, std::string("2-3"));
            QCOMPARE(c.depth, 1);
            QCOMPARE(c.regionFirstLayer, 2);
            QCOMPARE(c.regionLastLayer, 3);
            QCOMPARE(c.runFirst, std::size_t(23));
            QCOMPARE(c.runLast, std::size_t(25));
            QCOMPARE(c.runFirstLayer, 2);
            QCOMPARE(c.runLastLayer, 3);
        }
        const RecomputeContext first = recomputeContext(b.program, layers, 40);
        QCOMPARE(b.program.plan.regions[first.region].label, std::string("0-1"));
        QCOMPARE(first.runFirst, std::size_t(38));
        QCOMPARE(first.runLast, std::size_t(40));
        QCOMPARE(first.runFirstLayer, 0);
        QCOMPARE(first.runLastLayer, 1);
        QVERIFY(!recomputeContext(b.program, layers, 12).valid);  // a forward
        QVERIFY(!recomputeContext(b.program, layers, 22).valid);  // an alloc
    }

    // Two plans side by side: 4 x Linear(16) at micro-batch 4096, where each activation is
    // 256 KiB (4096 x 16 x 4 B) and the weights 1 KiB and 64 B. Both plans peak at layer 3's
    // backward, with the inputs (held until the optimizer step), layer 1's output, the gradients
    // of layer 3's output and input, and layer 3's weight gradients: without checkpointing also
    // the kept outputs of layers 0 and 2, with every:2 layer 2's recomputed copy instead (region
    // 2-3's recompute stops before layer 3's linear, which saves only its input).
    void twoPlansAtTheirPeaks() {
        const char* model = R"({"format":"remat-model/1","input":{"shape":[16]},
            "layers":[{"kind":"linear","out":16},{"kind":"linear","out":16},
                      {"kind":"linear","out":16},{"kind":"linear","out":16},{"kind":"mse"}],
            "training":{"micro_batch":4096}})";
        const Built a = build(model, "none");
        const Built b = build(model, "every:2");
        const std::int64_t act = 4096 * 16 * 4, params = 4 * (1024 + 64);
        const PeakDifference d =
            peakDifference(a.graph, a.program, a.timeline, b.program, b.timeline);
        QCOMPARE(d.peakA, params + 7 * act + 1024 + 64);
        QCOMPARE(d.peakB, params + 6 * act + 1024 + 64);
        auto names = [](const std::vector<PeakTensor>& v) {
            std::vector<std::string> out;
            for (const PeakTensor& t : v) out.push_back(t.label);
            return out;
        };
        QCOMPARE(names(d.onlyA), (std::vector<std::string>{"0/linear", "2/linear"}));
        QCOMPARE(names(d.onlyB), (std::vector<std::string>{"2/linear (recompute)"}));
        QCOMPARE(d.onlyA[1].bytes, act);
        QCOMPARE(int(d.onlyA[1].category), int(Category::SavedActivations));
        QCOMPARE(d.onlyB[0].bytes, act);
        QCOMPARE(int(d.onlyB[0].category), int(Category::RecomputedActivations));
        // Shared: the weights, the input and target, layer 1's kept output, the gradients of
        // layer 3's output and input, layer 3's weight gradients.
        QCOMPARE(d.sharedBytes, params + 5 * act + 1024 + 64);
        // Both ways round, the lists swap.
        const PeakDifference r =
            peakDifference(a.graph, b.program, b.timeline, a.program, a.timeline);
        QCOMPARE(names(r.onlyA), names(d.onlyB));
        QCOMPARE(names(r.onlyB), names(d.onlyA));

        // Resampled onto time: every slice's maximum, the peak in the slice where it runs, and
        // nothing past the plan's end.
        const double end = a.timeline.endS.back();
        const auto half = resampleTotals(a.timeline, 2 * end, 200);
        QCOMPARE(half.size(), std::size_t(200));
        QCOMPARE(*std::max_element(half.begin(), half.end()), a.timeline.peakBytes);
        for (std::size_t k = 101; k < 200; ++k) QCOMPARE(half[k], std::int64_t(-1));
        const auto whole = resampleTotals(a.timeline, end, 50);
        QCOMPARE(*std::max_element(whole.begin(), whole.end()), a.timeline.peakBytes);
        for (std::int64_t v : whole) QVERIFY(v >= 0);  // the plan fills its own span
        const double peakAt = a.timeline.endS[a.timeline.peakInstruction];
        QCOMPARE(whole[std::size_t(std::min(49.0, peakAt / end * 50))], a.timeline.peakBytes);
    }

    void stepsAndPhases() {
        const Built b = build(kFourLinear, "every:2");
        const auto all = playbackSteps(b.program, true);
        QCOMPARE(all.size(), b.program.instructions.size());
        const auto work = playbackSteps(b.program, false);
        // 5 forwards, 2 recomputes (layers 2 and 0), 5 backwards, 8 optimizer steps.
        QCOMPARE(work.size(), std::size_t(20));
        QCOMPARE(work.front(), 11u);
        QCOMPARE(work.back(), 66u);
        // Phase runs: setup 0-7, forward 8-22, backward 23-25, recompute 26-27, backward 28-39...
        QCOMPARE(nextPhaseStart(b.program, 0), std::size_t(8));
        QCOMPARE(nextPhaseStart(b.program, 11), std::size_t(23));
        QCOMPARE(nextPhaseStart(b.program, 23), std::size_t(26));
        QCOMPARE(nextPhaseStart(b.program, 26), std::size_t(28));
        QCOMPARE(previousPhaseStart(b.program, 27), std::size_t(26));  // its own run's start
        QCOMPARE(previousPhaseStart(b.program, 26), std::size_t(23));
        QCOMPARE(previousPhaseStart(b.program, 8), std::size_t(0));
        QCOMPARE(previousPhaseStart(b.program, 0), LiveSetIndex::npos);
        QCOMPARE(nextPhaseStart(b.program, b.program.instructions.size() - 1), LiveSetIndex::npos);
    }
};

QTEST_APPLESS_MAIN(TestStepThrough)
#include "tst_step_through.moc"
