// Golden timelines for two- and three-op networks: the exact instruction sequence and the live
// bytes after every instruction, each byte accounted for in the comments. A change to the
// compiler's lifetimes or the simulator's sums shows up here first.
#include <QtTest/QtTest>

#include "sim_test_support.h"

using namespace remat;
using namespace remat::test;

class TestGoldenTimeline : public QObject {
    Q_OBJECT

private slots:
    // input [4] -> Linear(4->3) -> MSE, micro-batch 2, fp32, SGD (no optimizer state).
    // Sizes: weight 3x4x4 B = 48, bias 3x4 = 12, input 2x4x4 = 32, target 2x3x4 = 24,
    // linear output 2x3x4 = 24, loss scalar 4.
    void linearMse() {
        const char* model = R"({"format":"remat-model/1","input":{"shape":[4]},
            "layers":[{"kind":"linear","out":3},{"kind":"mse"}],"training":{"micro_batch":2}})";
        Built b = build(model, "none");
        struct Row {
            InstrKind kind;
            const char* label;  // buffer label (alloc/free) or op/parameter name
            std::int64_t live;
        };
        const std::vector<Row> expected = {
            {InstrKind::Alloc, "0/linear.weight", 48},       // resident parameters
            {InstrKind::Alloc, "0/linear.bias", 60},
            {InstrKind::Alloc, "input", 92},                 // +32: the micro-batch's data
            {InstrKind::Alloc, "target", 116},               // +24: MSE target
            {InstrKind::Alloc, "0/linear", 140},             // +24: saved by MSE for backward
            {InstrKind::Forward, "0/linear", 140},
            {InstrKind::Alloc, "1/loss", 144},               // +4: the loss scalar
            {InstrKind::Forward, "1/mse", 144},
            {InstrKind::Free, "1/loss", 140},                // nothing needs the loss value later
            {InstrKind::Alloc, "grad 0/linear", 164},        // +24: dL/dy written by MSE backward
            {InstrKind::Backward, "1/mse", 164},
            {InstrKind::Free, "0/linear", 140},              // MSE's saved input is released
            {InstrKind::Alloc, "grad 0/linear.weight", 188},  // +48
            {InstrKind::Alloc, "grad 0/linear.bias", 200},    // +12: the peak
            {InstrKind::Backward, "0/linear", 200},           // reads the saved input
            {InstrKind::Free, "grad 0/linear", 176},          // -24
            {InstrKind::OptimizerStep, "0/linear.weight", 176},
            {InstrKind::Free, "grad 0/linear.weight", 128},   // freed right after its update
            {InstrKind::OptimizerStep, "0/linear.bias", 128},
            // The training loop holds the batch (`for x, y in loader`) through the optimizer
            // step: input and target go with the step's last instruction, not after the
            // backward of the last op that saved them.
            {InstrKind::Free, "input", 96},                   // -32
            {InstrKind::Free, "target", 72},                  // -24
            {InstrKind::Free, "grad 0/linear.bias", 60},
            {InstrKind::Free, "0/linear.bias", 48},           // teardown
            {InstrKind::Free, "0/linear.weight", 0},
        };
        QCOMPARE(b.program.instructions.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const Instruction& ins = b.program.instructions[i];
            QCOMPARE(int(ins.kind), int(expected[i].kind));
            std::string label;
            if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free)
                label = bufferLabel(b.graph, b.program.buffer(ins.buffer));
            else if (ins.kind == InstrKind::OptimizerStep)
                label = b.graph.tensor(ins.parameter).name;
            else
                label = b.graph.op(ins.op).name;
            QCOMPARE(QString::fromStdString(label), QString(expected[i].label));
            QCOMPARE(liveAt(b, i), expected[i].live);
        }
        QCOMPARE(b.timeline.peakBytes, std::int64_t(200));
        QCOMPARE(b.timeline.peakInstruction, std::size_t(13));
        const CategoryBytes& at = b.timeline.breakdownAtPeak;
        QCOMPARE(at[std::size_t(Category::Parameters)], std::int64_t(60));
        QCOMPARE(at[std::size_t(Category::Gradients)], std::int64_t(60));
        QCOMPARE(at[std::size_t(Category::Inputs)], std::int64_t(32 + 24));
        QCOMPARE(at[std::size_t(Category::Transient)], std::int64_t(24));
        QCOMPARE(at[std::size_t(Category::SavedActivations)], std::int64_t(0));
        // Just before MSE backward: input 32 + target 24 + linear output 24 are held.
        QCOMPARE(b.timeline.savedActivationBytes, std::int64_t(80));
        QCOMPARE(b.timeline.flops.recompute, 0.0);
    }

    // input [4] -> Linear(4->4) -> ReLU (checkpointed) -> Linear(4->2) -> MSE, micro-batch 2.
    // Checkpointing the ReLU alone makes things worse: ReLU saves its output, which the second
    // linear (outside the region) saves too, so nothing is dropped; but the region keeps its
    // input (the first linear's output, 32 B) that nobody needed, and the recompute adds a
    // second copy of the ReLU output while its backward runs.
    void checkpointedReluDoesNotPay() {
        const char* model = R"({"format":"remat-model/1","input":{"shape":[4]},
            "layers":[{"kind":"linear","out":4},{"kind":"relu","checkpoint":true},
                      {"kind":"linear","out":2},{"kind":"mse"}],"training":{"micro_batch":2}})";
        Built none = build(model, "none");
        Built manual = build(model, "manual");
        // Parameters: 64 + 16 + 32 + 8 = 120. `none` keeps input 32 (linear 1), ReLU output 32
        // (ReLU and linear 2), linear 2 output 16 and target 16 (MSE).
        QCOMPARE(none.timeline.savedActivationBytes, std::int64_t(32 + 32 + 16 + 16));
        // The region also keeps its input, the first linear's output.
        QCOMPARE(manual.timeline.savedActivationBytes, std::int64_t(32 + 32 + 32 + 16 + 16));
        // `none` peaks when the last gradient is allocated: 120 params + 120 gradients +
        // input 32 + the first linear output's gradient 32 + the target 16 (the training loop
        // holds the batch for the whole step).
        QCOMPARE(none.timeline.peakBytes, std::int64_t(320));
        // The plan peaks at the ReLU's backward: 120 params + 40 gradients of linear 2 +
        // input 32 + target 16 + kept region input 32 + recomputed ReLU output 32 + its
        // gradient 32 + the gradient of the first linear's output 32.
        QCOMPARE(manual.timeline.peakBytes, std::int64_t(336));
        QCOMPARE(countKind(manual.program, InstrKind::Recompute), std::size_t(1));
        QCOMPARE(countKind(none.program, InstrKind::Recompute), std::size_t(0));
        QVERIFY(manual.timeline.timeS.total() > none.timeline.timeS.total());
        QCOMPARE(manual.timeline.breakdownAtPeak[std::size_t(Category::RecomputedActivations)],
                 std::int64_t(32));
    }

    void layerNormSavesStatistics() {
        // input [3, 8] -> LayerNorm -> MSE, micro-batch 2, fp32: LayerNorm saves its input
        // (2x3x8x4 = 192 B), mean and rstd (fp32, one per row: 2x3x4 = 24 B each).
        const char* model = R"({"format":"remat-model/1","input":{"shape":[3,8]},
            "layers":[{"kind":"layernorm"},{"kind":"mse"}],"training":{"micro_batch":2}})";
        Built b = build(model, "none");
        // Saved before the first backward: input 192 + mean 24 + rstd 24 + LN output 192
        // (saved by MSE) + target 192.
        QCOMPARE(b.timeline.savedActivationBytes, std::int64_t(192 + 24 + 24 + 192 + 192));
        // Checkpointing the layernorm keeps its input, drops mean/rstd (48 B).
        const char* ck = R"({"format":"remat-model/1","input":{"shape":[3,8]},
            "layers":[{"kind":"layernorm","checkpoint":true},{"kind":"mse"}],
            "training":{"micro_batch":2}})";
        Built c = build(ck, "manual");
        QCOMPARE(c.timeline.savedActivationBytes, std::int64_t(192 + 192 + 192));
    }

    // Dropout saves a one-byte mask; p = 0 is not lowered at all.
    void dropoutMask() {
        const char* model = R"({"format":"remat-model/1","input":{"shape":[16]},
            "layers":[{"kind":"dropout","p":0.5},{"kind":"linear","out":16},{"kind":"mse"}],
            "training":{"micro_batch":1}})";
        Built b = build(model, "none");
        // No gradient flows into dropout (no parameters, its input does not require grad), so
        // autograd records nothing and the mask is not kept: input 64 (held by the training
        // loop, saved by nobody), dropout output 64 saved by the linear, linear output 64 and
        // target 64 saved by MSE.
        QCOMPARE(b.timeline.savedActivationBytes, std::int64_t(64 + 64 + 64 + 64));
        const char* model2 = R"({"format":"remat-model/1","input":{"shape":[16]},
            "layers":[{"kind":"linear","out":16},{"kind":"dropout","p":0.5},{"kind":"mse"}],
            "training":{"micro_batch":1}})";
        Built c = build(model2, "none");
        // input 64 (saved by linear) + mask 16 + dropout output 64 + target 64.
        QCOMPARE(c.timeline.savedActivationBytes, std::int64_t(64 + 16 + 64 + 64));
        const char* model3 = R"({"format":"remat-model/1","input":{"shape":[16]},
            "layers":[{"kind":"linear","out":16},{"kind":"dropout","p":0.0},{"kind":"mse"}],
            "training":{"micro_batch":1}})";
        Built d = build(model3, "none");
        QCOMPARE(d.graph.ops.size(), std::size_t(2));
    }
};

QTEST_APPLESS_MAIN(TestGoldenTimeline)
#include "tst_golden_timeline.moc"
