// The checkpoint implementations (PyTorch non-reentrant with its early stop, PyTorch reentrant,
// Megatron-LM) and the smaller PyTorch semantics checked against PyTorch's code: how far each
// recompute runs and what it keeps, which plans Megatron-LM can express, the reentrant
// checkpoint's "no input requires grad" trap, the cross-entropy backward under mixed
// precision, the batch held by the training loop, and torchvision's in-place ReLUs. Expected
// figures come from the graph's own ops (their FLOPs and tensor sizes), never from the
// compiler under test.
#include <QtTest/QtTest>

#include "compiler.h"
#include "recompute_impl.h"
#include "sim_test_support.h"

using namespace remat;
using namespace remat::test;

namespace {

Built buildPreset(const char* preset, const std::string& strategy, RecomputeImpl impl,
                  std::optional<Precision> precision = std::nullopt) {
    auto m = loadModel(preset);
    if (!m) qFatal("%s", m.error().message.c_str());
    TrainingConfig cfg = m->training;
    cfg.recomputeImpl = impl;
    if (precision) cfg.precision = *precision;
    return build(modelToJson(*m), strategy, &cfg);
}

bool endsWith(const std::string& s, const char* tail) { return s.ends_with(tail); }

// Recompute instructions per op.
std::vector<int> recomputeCounts(const Built& b) {
    std::vector<int> n(b.graph.ops.size(), 0);
    for (const Instruction& ins : b.program.instructions)
        if (ins.kind == InstrKind::Recompute) ++n[ins.op.index()];
    return n;
}

std::size_t firstInstruction(const Built& b, InstrKind kind, const std::string& opName) {
    for (std::size_t i = 0; i < b.program.instructions.size(); ++i) {
        const Instruction& ins = b.program.instructions[i];
        if (ins.kind == kind && ins.op.valid() && b.graph.op(ins.op).name == opName) return i;
    }
    return b.program.instructions.size();
}

std::size_t freeOf(const Built& b, BufferId buffer) {
    for (std::size_t i = 0; i < b.program.instructions.size(); ++i) {
        const Instruction& ins = b.program.instructions[i];
        if (ins.kind == InstrKind::Free && ins.buffer == buffer) return i;
    }
    return b.program.instructions.size();
}

Status compileWith(const Graph& g, const Plan& plan, RecomputeImpl impl) {
    TrainingConfig cfg;
    cfg.recomputeImpl = impl;
    auto p = compile(g, plan, cfg);
    if (!p) return p.error();
    return Ok{};
}

}  // namespace

class TestRecomputeImpl : public QObject {
    Q_OBJECT

private slots:
    // `remat program llama-7b --strategy full`: a block ends ... mlp/mul, mlp/down (a linear,
    // saving only its input), add2. PyTorch packs down's input before its kernel runs, and
    // that is the last saved tensor, so the early stop comes before down: neither down nor
    // add2 runs again. A reentrant checkpoint runs the whole block.
    void llamaFullStopsBeforeTheDownProjection() {
        const Built pt = buildPreset("llama-7b", "full", RecomputeImpl::Pytorch);
        const Built re = buildPreset("llama-7b", "full", RecomputeImpl::PytorchReentrant);
        const auto ptCounts = recomputeCounts(pt);
        const auto reCounts = recomputeCounts(re);
        double skippedFlops = 0.0;
        int blocks = 0;
        for (ModuleId m : pt.graph.chain) {
            const Module& mod = pt.graph.module(m);
            ++blocks;
            for (std::uint32_t o = mod.firstOp; o <= mod.lastOp(); ++o) {
                const Op& op = pt.graph.ops[o];
                const bool skipped = endsWith(op.name, "/mlp/down") || endsWith(op.name, "/add2");
                QCOMPARE(reCounts[o], 1);
                QCOMPARE(ptCounts[o], skipped ? 0 : 1);
                if (skipped) skippedFlops += op.forward.flops.atReal(pt.program.microBatch);
            }
        }
        QCOMPARE(blocks, 32);
        QCOMPARE(re.timeline.flops.recompute - pt.timeline.flops.recompute, skippedFlops);
        // down's backward reads its input from the recompute: the recomputed mlp/mul output.
        const std::size_t down = firstInstruction(pt, InstrKind::Backward, "32/mlp/down");
        QVERIFY(down < pt.program.instructions.size());
        const Buffer& saved = pt.program.buffer(pt.program.instructions[down].saved[0]);
        QVERIFY(saved.recomputed);
        QCOMPARE(pt.graph.tensor(saved.tensor).name, std::string("32/mlp/mul"));
        // Only recompute differs: the forward, backward and saved activations are the same.
        QCOMPARE(pt.timeline.flops.forward, re.timeline.flops.forward);
        QCOMPARE(pt.timeline.flops.backward, re.timeline.flops.backward);
        QCOMPARE(pt.timeline.savedActivationBytes, re.timeline.savedActivationBytes);
    }

    // A reentrant checkpoint back-propagates from the outputs its recompute returned and
    // holds them until that backward returns; the non-reentrant one never recomputes the
    // block's last op (add2 saves nothing).
    void reentrantHoldsTheRegionOutputs() {
        for (RecomputeImpl impl : {RecomputeImpl::PytorchReentrant, RecomputeImpl::Megatron}) {
            const Built b = buildPreset("gpt2-tiny", "full", impl);
            const std::size_t add2 = firstInstruction(b, InstrKind::Recompute, "2/add2");
            QVERIFY(add2 < b.program.instructions.size());
            const BufferId out = b.program.instructions[add2].outputs[0];
            const std::size_t ln1 = firstInstruction(b, InstrKind::Backward, "2/ln1");
            QVERIFY(ln1 < b.program.instructions.size());
            QVERIFY(freeOf(b, out) > ln1);
        }
        const Built pt = buildPreset("gpt2-tiny", "full", RecomputeImpl::Pytorch);
        QCOMPARE(firstInstruction(pt, InstrKind::Recompute, "2/add2"),
                 pt.program.instructions.size());
    }

    // torch.utils.checkpoint(use_reentrant=True) is an autograd Function: with no input that
    // requires grad, its output does not require grad and its parameters get no gradient.
    // mlp-3x1024's first layer reads the data directly.
    void reentrantWithoutGradInputIsUnsafe() {
        for (RecomputeImpl impl : {RecomputeImpl::PytorchReentrant, RecomputeImpl::Megatron}) {
            const Built b = buildPreset("mlp-3x1024", "full", impl);
            QCOMPARE(b.program.unsafeReasons.size(), std::size_t(1));
            QVERIFY2(QString::fromStdString(b.program.unsafeReasons[0])
                         .contains("region '0' has no input that requires grad"),
                     b.program.unsafeReasons[0].c_str());
        }
        QVERIFY(!buildPreset("mlp-3x1024", "full", RecomputeImpl::Pytorch).program.unsafe());
        // Blocks read the embedding's output, which requires grad: safe.
        QVERIFY(!buildPreset("gpt2-tiny", "full", RecomputeImpl::PytorchReentrant)
                     .program.unsafe());
    }

    // Megatron-LM: --recompute-granularity full (one or several whole layers per checkpoint)
    // or selective (the core attention), never nested, always restoring the RNG state.
    void megatronAcceptsOnlyWhatItsFlagsExpress() {
        const Built b = buildPreset("gpt2-tiny", "none", RecomputeImpl::Pytorch);
        const Graph& g = b.graph;
        for (const char* s : {"none", "full", "every:2", "sqrt", "selective:attention_core"}) {
            auto plan = makePlan(g, *parseStrategy(s), std::vector<RegionSpec>{});
            QVERIFY(plan.ok());
            auto st = compileWith(g, *plan, RecomputeImpl::Megatron);
            QVERIFY2(st.ok(), st.ok() ? s : st.error().message.c_str());
        }
        auto message = [&](const Plan& plan) {
            auto st = compileWith(g, plan, RecomputeImpl::Megatron);
            if (st) return QString();
            // Every plan passes under the PyTorch implementations.
            if (!compileWith(g, plan, RecomputeImpl::PytorchReentrant).ok()) return QString("?");
            return QString::fromStdString(st.error().message);
        };
        for (const char* s : {"selective:mlp", "selective:attention"}) {
            auto plan = makePlan(g, *parseStrategy(s), std::vector<RegionSpec>{});
            QVERIFY(plan.ok());
            QVERIFY2(message(*plan).contains("is neither whole layers"), s);
        }
        const Region layer = *regionForLayers(g, 1, 1);
        const Region core = *regionForModule(g, g.findModule("1/attention/attention_core"));
        QVERIFY(message(Plan{"manual", {layer, core}}).contains("is nested in region"));
        Region noRng = layer;
        noRng.preserveRng = false;
        QVERIFY(message(Plan{"manual", {noRng}}).contains("does not preserve the RNG state"));
    }

    // `remat compare` under Megatron-LM lists only what its flags express, and every listed
    // plan compiles; the optimal planners model the non-reentrant recompute only and say so.
    void megatronComparisonAndOptimalPlanners() {
        const Built b = buildPreset("gpt2-tiny", "none", RecomputeImpl::Pytorch);
        const auto all = comparisonStrategies(b.graph);
        const auto megatron = comparisonStrategies(b.graph, RecomputeImpl::Megatron);
        QCOMPARE(megatron.size() + 1, all.size());
        for (const Strategy& s : megatron) {
            QVERIFY(s.spelling() != "selective:attention,mlp");
            auto plan = makePlan(b.graph, s, std::vector<RegionSpec>{});
            QVERIFY(plan.ok());
            auto st = compileWith(b.graph, *plan, RecomputeImpl::Megatron);
            QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
        }
        const DeviceSpec device = unitDevice();
        for (RecomputeImpl impl : {RecomputeImpl::PytorchReentrant, RecomputeImpl::Megatron}) {
            TrainingConfig cfg = b.model.training;
            cfg.recomputeImpl = impl;
            PlanContext context{{}, &cfg, &device, nullptr};
            for (const char* s : {"optimal:1GiB", "optimal-nested:1GiB"}) {
                auto plan = makePlan(b.graph, *parseStrategy(s), context);
                QVERIFY(!plan.ok());
                QVERIFY2(QString::fromStdString(plan.error().message)
                             .contains("model PyTorch's non-reentrant checkpoint"),
                         plan.error().message.c_str());
            }
        }
    }

    // Under mixed precision autograd runs NllLossBackward (fp32 gradient of the
    // log-probabilities), LogSoftmaxBackward (fp32 gradient of the fp32 copy of the logits,
    // the saved log-probabilities alive: three fp32 tensors), frees both, then ToCopyBackward
    // casts into the 16-bit gradient (fp32 + 16-bit). The instruction's live set is the larger
    // of the two: 12 bytes per logit, not 14.
    void crossEntropyBackwardFreesBeforeTheCast() {
        for (Precision precision : {Precision::Fp32, Precision::MixedBf16, Precision::MixedFp16}) {
            const Built b = buildPreset("gpt2-tiny", "none", RecomputeImpl::Pytorch, precision);
            const std::size_t i = firstInstruction(b, InstrKind::Backward, "5/cross_entropy");
            QVERIFY(i < b.program.instructions.size());
            const Instruction& ins = b.program.instructions[i];
            const Op& op = b.graph.op(ins.op);
            const std::int64_t logits = b.graph.tensor(op.inputs[0]).elements() *
                                        b.program.microBatch;
            const auto bytesOf = [&](BufferId id) {
                return b.program.buffer(id).bytes.at(b.program.microBatch);
            };
            const std::int64_t own =
                bytesOf(ins.saved[0]) + bytesOf(ins.workspace) + bytesOf(ins.gradInputs[0]);
            QCOMPARE(own, 3 * 4 * logits);
            QCOMPARE(bytesOf(ins.gradInputs[0]),
                     logits * dtypeBytes(computeDType(precision)));
        }
    }

    // The training loop holds its batch (`for x, y in loader`) for the whole step: the MSE
    // target of the 3 x Linear(1024) example is live at the peak beside x, both
    // micro_batch x 1024 fp32 values, and goes after the last optimizer step.
    void batchIsHeldForTheStep() {
        const Built b = buildPreset("mlp-3x1024", "none", RecomputeImpl::Pytorch);
        const std::int64_t x = b.program.microBatch * 1024 * 4;
        QCOMPARE(b.timeline.breakdownAtPeak[std::size_t(Category::Inputs)], 2 * x);
        std::size_t lastOptimizer = 0;
        for (std::size_t i = 0; i < b.program.instructions.size(); ++i)
            if (b.program.instructions[i].kind == InstrKind::OptimizerStep) lastOptimizer = i;
        for (std::size_t i = 0; i < b.program.instructions.size(); ++i) {
            const Instruction& ins = b.program.instructions[i];
            if (ins.kind == InstrKind::Free &&
                b.program.buffer(ins.buffer).role == BufferRole::Input)
                QVERIFY(i > lastOptimizer);
        }
    }

    // torchvision's ResNet: every ReLU is nn.ReLU(inplace=True), the stem's included.
    void resnetReluIsInPlace() {
        const Built b = buildPreset("resnet-101", "none", RecomputeImpl::Pytorch);
        int relus = 0;
        bool stem = false;
        for (const Op& op : b.graph.ops) {
            if (op.kind != OpKind::Relu) continue;
            ++relus;
            stem = stem || op.name == "2/relu";
            QCOMPARE(op.inPlaceInput, 0);
            QCOMPARE(b.graph.storageOf(op.outputs[0]), b.graph.storageOf(op.inputs[0]));
        }
        QVERIFY(stem);
        QCOMPARE(relus, 1 + 33 * 3);  // the stem, three per bottleneck block
        QVERIFY(!b.program.unsafe());
        QVERIFY(!buildPreset("resnet-101", "full", RecomputeImpl::Pytorch).program.unsafe());
    }
};

QTEST_APPLESS_MAIN(TestRecomputeImpl)
#include "tst_recompute_impl.moc"
