// The frameworks' own behaviour, selectable (docs/memory-model.md): precision modes (Megatron
// mixed precision with and without fp32 main gradients, PyTorch autocast, pure bf16), the
// optimizer's implementation (fused, foreach, for-loop temporaries), the chunked cross-entropy
// and TF32. Every byte count is derived here by hand from the rule it checks.
#include <QtTest/QtTest>

#include "optimal_model.h"
#include "sim_test_support.h"
#include "training_rules.h"

using namespace remat;
using namespace remat::test;

namespace {

// input [64] -> linear 64x32 (bias) -> relu -> linear 32x8 (bias) -> mse.
// Parameters: 64*32 + 32 + 32*8 + 8 = 2,344.
const char* kMlp = R"({"format": "remat-model/1", "input": {"shape": [64]},
    "layers": [{"kind": "linear", "out": 32}, {"kind": "relu"},
               {"kind": "linear", "out": 8}, {"kind": "mse"}]})";
constexpr std::int64_t kMlpParams = 2344;

TrainingConfig config(Precision p, Optimizer o = Optimizer::Adam, std::int64_t microBatch = 2) {
    TrainingConfig c;
    c.precision = p;
    c.optimizer = o;
    c.microBatch = microBatch;
    return c;
}

std::int64_t roleBytes(const Built& b, BufferRole role) {
    std::int64_t sum = 0;
    for (const Buffer& buf : b.program.buffers)
        if (buf.role == role) sum += buf.bytes.at(b.program.microBatch);
    return sum;
}

const Tensor& tensorNamed(const Graph& g, const std::string& name) {
    for (const Tensor& t : g.tensors)
        if (t.name == name) return t;
    qFatal("no tensor '%s'", name.c_str());
}

const Op& opOfKind(const Graph& g, OpKind k) {
    for (const Op& op : g.ops)
        if (op.kind == k) return op;
    qFatal("no op of kind %s", std::string(opKindName(k)).c_str());
}

std::vector<const Buffer*> optimizerWorkspaces(const Built& b) {
    std::vector<const Buffer*> out;
    for (const Buffer& buf : b.program.buffers)
        if (buf.role == BufferRole::Workspace && buf.optimizer) out.push_back(&buf);
    return out;
}

// Index of the first instruction that allocates `buffer`.
std::size_t allocOf(const Built& b, const Buffer* buffer) {
    for (std::size_t i = 0; i < b.program.instructions.size(); ++i) {
        const Instruction& ins = b.program.instructions[i];
        if (ins.kind == InstrKind::Alloc && &b.program.buffer(ins.buffer) == buffer) return i;
    }
    qFatal("buffer never allocated");
}

Built buildPreset(const char* preset, const std::string& strategy, const TrainingConfig& cfg,
                  const DeviceSpec& d = unitDevice()) {
    auto m = loadModel(preset);
    if (!m) qFatal("%s", m.error().message.c_str());
    return build(modelToJson(*m), strategy, &cfg, d);
}

}  // namespace

class TestFrameworkSettings : public QObject {
    Q_OBJECT

private slots:
    // Parameters, master weights, optimizer state and parameter gradients per parameter with
    // Adam: fp32 4+0+8+4; Megatron mixed 2+4+8+2, with fp32 main gradients 2+4+8+4 = 18;
    // autocast 4+0+8+4 (fp32 parameters and gradients); pure bf16 2+0+4+2 (bf16 moments).
    void modelStateBytesPerParameter() {
        struct Row {
            Precision precision;
            MainGrads grads;
            std::int64_t param, master, state, grad;
        };
        const Row rows[] = {
            {Precision::Fp32, MainGrads::Param, 4, 0, 8, 4},
            {Precision::MixedBf16, MainGrads::Param, 2, 4, 8, 2},
            {Precision::MixedBf16, MainGrads::Fp32, 2, 4, 8, 4},
            {Precision::MixedFp16, MainGrads::Fp32, 2, 4, 8, 4},
            {Precision::AutocastBf16, MainGrads::Param, 4, 0, 8, 4},
            {Precision::AutocastFp16, MainGrads::Param, 4, 0, 8, 4},
            {Precision::Bf16, MainGrads::Param, 2, 0, 4, 2},
            // Where gradients are fp32 anyway, fp32 main gradients change nothing.
            {Precision::AutocastBf16, MainGrads::Fp32, 4, 0, 8, 4},
        };
        for (const Row& r : rows) {
            TrainingConfig cfg = config(r.precision);
            cfg.mainGrads = r.grads;
            Built b = build(kMlp, "none", &cfg);
            const QByteArray what = QByteArray(precisionName(r.precision).data()) + " " +
                                    QByteArray(mainGradsName(r.grads).data());
            QVERIFY2(b.graph.parameterCount == kMlpParams, what);
            QCOMPARE(roleBytes(b, BufferRole::Parameter), r.param * kMlpParams);
            QCOMPARE(roleBytes(b, BufferRole::MasterWeight), r.master * kMlpParams);
            QCOMPARE(roleBytes(b, BufferRole::OptimizerState), r.state * kMlpParams);
            QCOMPARE(roleBytes(b, BufferRole::ParamGrad), r.grad * kMlpParams);
        }
        TrainingConfig bad = config(Precision::Bf16);
        bad.mainGrads = MainGrads::Fp32;
        auto g = lower(parseModel(kMlp, "m.json")->network, bad);
        QVERIFY(g.ok());
        auto p = compile(*g, Plan{}, bad);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message.find("main_grads fp32") != std::string::npos,
                 p.error().message.c_str());
    }

    // Autocast: the fp32 input is cast to bf16 (the copy is what the first linear saves), each
    // linear's weight and bias are cast and the weight copy is saved (2 bytes per weight
    // element, independent of the batch), relu keeps bf16, and mse_loss (autocast's fp32
    // list) saves an fp32 copy of its input beside the fp32 target. The training loop holds
    // the fp32 input data through the micro-step although no op saves it. Live at the first
    // backward at micro-batch B: x 64*4 + x16 64*2 + relu out 32*2 + mse input 8*4 + target
    // 8*4 = 512 B per sample, weight copies 2048*2 + 256*2 = 4,608 B. In fp32: x 64*4 (the
    // data, which the first linear saves) + relu 32*4 + linear out 8*4 + target 8*4 = 448 B
    // per sample.
    void autocastSavesSixteenBitCopies() {
        for (std::int64_t b : {1, 2, 5}) {
            const TrainingConfig autocast = config(Precision::AutocastBf16, Optimizer::Sgd, b);
            const TrainingConfig fp32 = config(Precision::Fp32, Optimizer::Sgd, b);
            Built ac = build(kMlp, "none", &autocast);
            QCOMPARE(ac.timeline.savedActivationBytes, 512 * b + 4608);
            Built fp = build(kMlp, "none", &fp32);
            QCOMPARE(fp.timeline.savedActivationBytes, 448 * b);
        }
        TrainingConfig cfg = config(Precision::AutocastBf16);
        Built b = build(kMlp, "none", &cfg);
        const Graph& g = b.graph;
        // Ops: cast(input), cast(0's weight and bias), linear, relu, cast(2's weight and
        // bias), linear, cast(mse input), mse.
        std::vector<OpKind> kinds;
        for (const Op& op : g.ops) kinds.push_back(op.kind);
        const std::vector<OpKind> expected = {OpKind::Cast, OpKind::Cast, OpKind::Linear,
                                              OpKind::Relu, OpKind::Cast, OpKind::Linear,
                                              OpKind::Cast, OpKind::Mse};
        QVERIFY(kinds == expected);
        QCOMPARE(g.tensor(g.inputs[0]).dtype, DType::F32);  // data as loaded
        QCOMPARE(tensorNamed(g, "0/linear.weight").dtype, DType::F32);
        QCOMPARE(tensorNamed(g, "0/linear.weight_cast").dtype, DType::BF16);
        QCOMPARE(tensorNamed(g, "0/linear").dtype, DType::BF16);
        QCOMPARE(tensorNamed(g, "3/input_cast").dtype, DType::F32);
        // The weight copies' gradients flow back through the casts into fp32 gradients.
        for (const Buffer& buf : b.program.buffers)
            if (buf.role == BufferRole::ParamGrad) QCOMPARE(buf.dtype, DType::F32);
    }

    // GPT-2 under autocast: the residual stream and layer norms in fp32, the projections and
    // attention matmuls in bf16, softmax in fp32 (its probabilities then cast for the matmul
    // with V); the cross-entropy's log_softmax writes fp32 log-probabilities straight from the
    // bf16 logits, so its only workspace is the fp32 gradient of the log-probabilities
    // (128 x 512 x 4 B per sample; fp32 the same). Megatron's explicit fp32 copy of the logits
    // costs 128 x 512 x 4 forward; its backward peaks at three fp32 tensors per logit (the
    // log-probabilities, their gradient, the copy's gradient) before the cast into the bf16
    // gradient, and the instruction binds the log-probabilities and the bf16 logits' gradient:
    // 12 - 4 - 2 = 6 B per logit. Pure bf16 keeps bf16 log-probabilities (backward
    // 128 x 512 x 2).
    void autocastTransformerDtypes() {
        auto m = loadModel("gpt2-tiny");
        QVERIFY(m.ok());
        TrainingConfig cfg = m->training;
        cfg.precision = Precision::AutocastBf16;
        auto g = lower(m->network, cfg);
        QVERIFY(g.ok());
        const struct {
            const char* name;
            DType dtype;
        } expected[] = {
            {"0/embed", DType::F32},
            {"1/ln1", DType::F32},
            {"1/attention/qkv", DType::BF16},
            {"1/attention/attention_core/scores", DType::BF16},
            {"1/attention/attention_core/softmax", DType::F32},
            {"1/attention/attention_core/dropout", DType::F32},
            {"1/attention/attention_core/probs_cast", DType::BF16},
            {"1/attention/attention_core/context", DType::BF16},
            {"1/attention/proj", DType::BF16},
            {"1/add1", DType::F32},
            {"1/mlp/fc1", DType::BF16},
            {"1/mlp/act", DType::BF16},
            {"1/add2", DType::F32},
            {"3/layernorm", DType::F32},
            {"4/linear", DType::BF16},
            {"5/log_probs", DType::F32},
        };
        for (const auto& e : expected) QVERIFY2(tensorNamed(*g, e.name).dtype == e.dtype, e.name);
        for (TensorId p : g->parameters) QCOMPARE(g->tensor(p).dtype, DType::F32);

        const std::int64_t tv = 128 * 512;
        const struct {
            Precision precision;
            std::int64_t forward, backward;
        } ce[] = {
            {Precision::Fp32, 0, 4 * tv},         {Precision::MixedBf16, 4 * tv, 6 * tv},
            {Precision::AutocastBf16, 0, 4 * tv}, {Precision::AutocastFp16, 0, 4 * tv},
            {Precision::Bf16, 0, 2 * tv},
        };
        for (const auto& row : ce) {
            auto gg = lower(m->network, row.precision);
            QVERIFY(gg.ok());
            const Op& op = opOfKind(*gg, OpKind::CrossEntropy);
            QVERIFY2(op.workspaceForward == (Affine{row.forward, 0}),
                     precisionName(row.precision).data());
            QVERIFY2(op.workspaceBackward == (Affine{row.backward, 0}),
                     precisionName(row.precision).data());
        }
    }

    // foreach Adam: one list of sqrt(exp_avg_sq) temporaries over every parameter
    // (4 B x 2,344), live from the first parameter's step to the last; at its allocation the
    // step holds parameters and moments (12 B/param), every gradient (4 B/param), the list
    // (4 B/param) and the micro-batch the training loop still holds (2 samples x (64 inputs +
    // 8 targets) x 4 B = 576 B): 20 B x 2,344 + 576 = 47,456 B, the step's peak. for-loop: two
    // temporaries of the parameter being updated; at the first (the 64x32 weight) every
    // gradient is still live: 12 x 2,344 + 4 x 2,344 + 2 x 4 x 2,048 + 576 = 54,464 B. fused,
    // and SGD or momentum in any implementation: none (16 x 2,344 + 576 = 38,080 B). The
    // optimal planners' model has the same optimizer-phase floor.
    void optimizerTemporaries() {
        const DeviceSpec d = unitDevice();
        const std::int64_t batch = 2 * (64 + 8) * 4;
        for (OptimizerImpl impl :
             {OptimizerImpl::Fused, OptimizerImpl::Foreach, OptimizerImpl::ForLoop}) {
            TrainingConfig cfg = config(Precision::Fp32);
            cfg.optimizerImpl = impl;
            Built b = build(kMlp, "none", &cfg);
            const auto ws = optimizerWorkspaces(b);
            auto model = ChainModel::build(b.graph, cfg, d);
            QVERIFY(model.ok());
            if (impl == OptimizerImpl::Fused) {
                QVERIFY(ws.empty());
                QCOMPARE(model->floorBytes(), 16 * kMlpParams + batch);
                continue;
            }
            if (impl == OptimizerImpl::Foreach) {
                QCOMPARE(int(ws.size()), 1);
                QCOMPARE(ws[0]->bytes, (Affine{0, 4 * kMlpParams}));
                QCOMPARE(bufferLabel(b.graph, *ws[0]),
                         std::string("optimizer temporaries (foreach)"));
                const std::size_t at = allocOf(b, ws[0]);
                QCOMPARE(b.program.instructions[at + 1].kind, InstrKind::OptimizerStep);
                QCOMPARE(liveAt(b, at), 20 * kMlpParams + batch);
                QCOMPARE(b.timeline.peakBytes, 20 * kMlpParams + batch);
                QCOMPARE(model->floorBytes(), 20 * kMlpParams + batch);
                // Every optimizer step names the list as its workspace.
                for (const Instruction& ins : b.program.instructions)
                    if (ins.kind == InstrKind::OptimizerStep)
                        QVERIFY(&b.program.buffer(ins.workspace) == ws[0]);
            } else {
                QCOMPARE(int(ws.size()), 4);
                const std::int64_t sizes[] = {2048, 32, 256, 8};
                for (int i = 0; i < 4; ++i) {
                    QCOMPARE(ws[std::size_t(i)]->bytes, (Affine{0, 8 * sizes[i]}));
                    const std::size_t at = allocOf(b, ws[std::size_t(i)]);
                    QCOMPARE(b.program.instructions[at + 1].kind, InstrKind::OptimizerStep);
                    QCOMPARE(b.program.instructions[at + 1].parameter, ws[std::size_t(i)]->tensor);
                }
                QCOMPARE(bufferLabel(b.graph, *ws[0]),
                         std::string("0/linear.weight optimizer temporaries (for-loop)"));
                QCOMPARE(liveAt(b, allocOf(b, ws[0])), 16 * kMlpParams + 8 * 2048 + batch);
                QCOMPARE(b.timeline.peakBytes, 16 * kMlpParams + 8 * 2048 + batch);
                QCOMPARE(model->floorBytes(), 16 * kMlpParams + 8 * 2048 + batch);
            }
        }
        for (Optimizer o : {Optimizer::Sgd, Optimizer::Momentum})
            for (OptimizerImpl impl : {OptimizerImpl::Foreach, OptimizerImpl::ForLoop}) {
                TrainingConfig cfg = config(Precision::Fp32, o);
                cfg.optimizerImpl = impl;
                QVERIFY(optimizerWorkspaces(build(kMlp, "none", &cfg)).empty());
            }
        // Temporaries follow the moments' dtype: bf16 under pure bf16, fp32 (the master's)
        // under Megatron mixed precision.
        QCOMPARE(optimizerTemporaryBytes(1000, Precision::Bf16, Optimizer::AdamW,
                                         OptimizerImpl::Foreach),
                 std::int64_t{2000});
        QCOMPARE(optimizerTemporaryBytes(1000, Precision::MixedBf16, Optimizer::Adam,
                                         OptimizerImpl::ForLoop),
                 std::int64_t{8000});
        // Their traffic (written and read once) is in the step's time: the 64x32 weight's
        // foreach step moves 2 x 4 x 2,048 B more than its fused step.
        TrainingConfig fused = config(Precision::Fp32), foreach = fused;
        foreach
            .optimizerImpl = OptimizerImpl::Foreach;
        Built bf = build(kMlp, "none", &fused), be = build(kMlp, "none", &foreach);
        auto firstStep = [](const Built& b) -> const Instruction& {
            for (const Instruction& ins : b.program.instructions)
                if (ins.kind == InstrKind::OptimizerStep) return ins;
            qFatal("no optimizer step");
        };
        const double extra = instructionTime(be.graph, be.program, firstStep(be), d) -
                             instructionTime(bf.graph, bf.program, firstStep(bf), d);
        QVERIFY2(std::abs(extra - 2.0 * 4 * 2048 / d.bandwidthBytesPerS) < 1e-15,
                 qPrintable(QString::number(extra)));

        // With accumulation written as a repeat, the temporaries come once, after the last
        // micro-step: the compact program expands to the flat one and peaks alike.
        for (OptimizerImpl impl : {OptimizerImpl::Foreach, OptimizerImpl::ForLoop}) {
            TrainingConfig cfg = config(Precision::MixedBf16, Optimizer::AdamW);
            cfg.optimizerImpl = impl;
            cfg.accumulationSteps = 6;
            Built compact = build(kMlp, "none", &cfg);
            QVERIFY(compact.program.repeat.has_value());
            auto expanded = expandProgram(compact.program);
            QVERIFY(expanded.ok());
            CompileOptions flatOptions;
            flatOptions.expandAccumulation = true;
            auto flat = compile(compact.graph, compact.program.plan, cfg, flatOptions);
            QVERIFY(flat.ok());
            QCOMPARE(expanded->instructions.size(), flat->instructions.size());
            QCOMPARE(simulate(compact.graph, *flat, d).peakBytes, compact.timeline.peakBytes);
            QCOMPARE(int(optimizerWorkspaces(compact).size()),
                     impl == OptimizerImpl::Foreach ? 1 : 4);
        }
    }

    // The chunked cross-entropy on gpt2-tiny (128 tokens, vocabulary 512, width 128, tied
    // head) in mixed bf16: one fused op replaces the head linear and the loss; it saves the
    // hidden states (which the head's linear saved anyway), fp32 log-sum-exp per row and the
    // targets, not the fp32 log-probabilities: 128 x (512 x 4 - 4) B less per sample. Its
    // workspaces hold one chunk of logits: forward bf16 logits and their fp32 form (6 B per
    // element), backward recomputed logits, fp32 gradient and its bf16 cast (8 B); while the
    // micro-batch's rows fit in one chunk of 1,024 rows they scale with it, past it they stay
    // at 1,024 rows.
    void chunkedCrossEntropy() {
        const std::int64_t t = 128, v = 512;
        for (std::int64_t b : {4, 8, 16}) {
            TrainingConfig cfg = config(Precision::MixedBf16, Optimizer::AdamW, b);
            Built standard = buildPreset("gpt2-tiny", "none", cfg);
            cfg.lossImpl = LossImpl::Chunked;
            Built chunked = buildPreset("gpt2-tiny", "none", cfg);
            QCOMPARE(chunked.graph.parameterCount, standard.graph.parameterCount);
            QCOMPARE(standard.timeline.savedActivationBytes - chunked.timeline.savedActivationBytes,
                     b * t * (v * 4 - 4));
            const Op& op = opOfKind(chunked.graph, OpKind::LinearCrossEntropy);
            QCOMPARE(op.saved.size(), std::size_t(3));
            const std::int64_t rows = std::min<std::int64_t>(b * t, kLossChunkRows);
            QCOMPARE(opWorkspace(op, false, b).at(b), rows * v * 6);
            QCOMPARE(opWorkspace(op, true, b).at(b), rows * v * 8);
            std::int64_t seen = 0;
            for (const Buffer& buf : chunked.program.buffers)
                if (buf.role == BufferRole::Workspace && buf.op.valid() &&
                    chunked.graph.op(buf.op).kind == OpKind::LinearCrossEntropy) {
                    QCOMPARE(buf.bytes.at(b), rows * v * (buf.backward ? 8 : 6));
                    ++seen;
                }
            QCOMPARE(seen, std::int64_t{2});
            // Past the blocks (the final norm, the head, the loss) no tensor of the logits' shape
            // exists (the MLP's hidden layer has it too, as it happens).
            for (const Tensor& tt : chunked.graph.tensors)
                if (tt.producer.valid() &&
                    chunked.graph.module(chunked.graph.op(tt.producer).module).layerIndex >= 3)
                    QVERIFY2(tt.shape != (Shape{t, v}), tt.name.c_str());
            // The head's layer has no ops of its own; its weight (tied: the embedding's) still
            // gets a gradient.
            QVERIFY(!chunked.graph.module(chunked.graph.layerModules[4]).hasOps());
            QVERIFY(standard.timeline.peakBytes > chunked.timeline.peakBytes);
        }
        // An fp32 model: 4 B forward (the logits), 8 B backward (logits and gradient).
        auto m = loadModel("gpt2-tiny");
        TrainingConfig cfg = config(Precision::Fp32, Optimizer::AdamW, 1);
        cfg.lossImpl = LossImpl::Chunked;
        auto g = lower(m->network, cfg);
        QVERIFY(g.ok());
        const Op& op = opOfKind(*g, OpKind::LinearCrossEntropy);
        QCOMPARE(op.workspaceForward, (Affine{t * v * 4, 0}));
        QCOMPARE(op.workspaceBackward, (Affine{t * v * 8, 0}));
        // A network whose loss does not follow a linear keeps the standard cross-entropy.
        const char* noHead = R"({"format": "remat-model/1", "input": {"tokens": 8, "vocab": 16},
            "layers": [{"kind": "embedding", "dim": 16}, {"kind": "cross_entropy"}]})";
        auto plain = lower(parseModel(noHead, "n.json")->network, cfg);
        QVERIFY(plain.ok());
        QCOMPARE(plain->ops.back().kind, OpKind::CrossEntropy);
    }

    // TF32: convolutions use the device's TF32 rate by default (cudnn.allow_tf32), matmuls
    // do not (cuda.matmul.allow_tf32); --tf32 none/matmul/all switches each. A card without
    // TF32 lists its FP32 rate, so nothing changes there; 16-bit GEMMs never use it. The time
    // is the op's GEMMs at the rate; a profile without an efficiency object runs them at the
    // peak. At micro-batch 4 the convolution is one implicit GEMM over 4 x 8 x 8 output
    // pixels, 4 channels and a reduction over 3 x 3 x 3: 2 x 256 x 4 x 27 = 55,296 FLOPs; the
    // linear [4 x 256] [256 x 5]: 2 x 4 x 256 x 5 = 10,240 FLOPs (its bias is added in addmm's
    // epilogue, no GEMM work).
    void tf32Rates() {
        const char* convNet = R"({"format": "remat-model/1", "input": {"shape": [3, 8, 8]},
            "layers": [{"kind": "conv2d", "out_channels": 4, "kernel": 3, "padding": 1},
                       {"kind": "flatten"}, {"kind": "linear", "out": 5},
                       {"kind": "cross_entropy"}]})";
        DeviceSpec d = unitDevice();
        d.peakFp32 = 1e12;
        d.peakTf32 = 8e12;
        d.bandwidthBytesPerS = 1e18;  // compute-bound: the time is FLOPs / peak
        auto timeOf = [&](Tf32Mode mode, OpKind kind, Precision p, const DeviceSpec& dev) {
            TrainingConfig cfg = config(p, Optimizer::Sgd, 4);
            cfg.tf32 = mode;
            Built b = build(convNet, "none", &cfg, dev);
            for (const Instruction& ins : b.program.instructions)
                if (ins.kind == InstrKind::Forward && b.graph.op(ins.op).kind == kind)
                    return instructionTime(b.graph, b.program, ins, dev);
            qFatal("no such op");
        };
        const double convF = 2.0 * (4 * 8 * 8) * 4 * (3 * 3 * 3);
        const double linF = 2.0 * 4 * (4 * 8 * 8) * 5;
        const struct {
            Tf32Mode mode;
            double convPeak, linearPeak;
        } rows[] = {{Tf32Mode::Conv, 8e12, 1e12},
                    {Tf32Mode::None, 1e12, 1e12},
                    {Tf32Mode::Matmul, 1e12, 8e12},
                    {Tf32Mode::All, 8e12, 8e12}};
        for (const auto& r : rows) {
            const double convS = timeOf(r.mode, OpKind::Conv2d, Precision::Fp32, d);
            QVERIFY2(std::abs(convS - convF / r.convPeak) <= 1e-9 * convS,
                     qPrintable(QString::number(convS)));
            const double linS = timeOf(r.mode, OpKind::Linear, Precision::Fp32, d);
            QVERIFY2(std::abs(linS - linF / r.linearPeak) <= 1e-9 * linS,
                     qPrintable(QString::number(linS)));
        }
        DeviceSpec v100 = d;
        v100.peakTf32 = v100.peakFp32;
        const double noTf32 = timeOf(Tf32Mode::All, OpKind::Conv2d, Precision::Fp32, v100);
        QVERIFY(std::abs(noTf32 - convF / 1e12) <= 1e-9 * noTf32);
        DeviceSpec half = d;
        half.peakBf16 = 2e12;
        const double bf16S = timeOf(Tf32Mode::All, OpKind::Conv2d, Precision::MixedBf16, half);
        QVERIFY(std::abs(bf16S - convF / 2e12) <= 1e-9 * bf16S);
    }
};

QTEST_GUILESS_MAIN(TestFrameworkSettings)
#include "tst_framework_settings.moc"
