// The convolutional preset for real on the CPU: ResNet-101 shrunk (sim/shrink.h) runs one
// training step of two accumulated micro-steps under none, full, every:2, sqrt, a selective
// plan and the optimal plan for a budget between full's and none's peaks, in fp32 and
// mixed-bf16. After every instruction the tracked bytes equal the simulator's prediction;
// gradients and losses are bitwise those of plan `none`; batch norm's running statistics are
// bitwise plan `none`'s and were updated once per micro-step, never by a recompute; in fp32
// the host-memory replay (its im2col columns included) equals what the allocator obtained.
// The same step gives the same bits with 1 and 3 threads.
#include <QtTest>
#include <cstring>

#include "compiler.h"
#include "cpu/cpu_backend.h"
#include "cpu/host_budget.h"
#include "device.h"
#include "lower.h"
#include "model_file.h"
#include "program_driver.h"
#include "reference_ops.h"
#include "shrink.h"
#include "simulator.h"
#include "strategy.h"
#include "verification.h"

using namespace remat;

namespace {

struct Shrunk {
    Network network;
    TrainingConfig training;
    Graph graph;
};

Shrunk shrunkResnet(Precision precision) {
    auto model = loadModel("resnet-101");
    if (!model) qFatal("%s", model.error().message.c_str());
    TrainingConfig cfg = model->training;
    cfg.accumulationSteps = 2;
    cfg.precision = precision;
    auto s = shrinkNetwork(model->network, cfg);
    if (!s) qFatal("%s", s.error().message.c_str());
    auto g = lower(s->network, s->training);
    if (!g) qFatal("%s", g.error().message.c_str());
    return {s->network, s->training, std::move(*g)};
}

const DeviceSpec& device() {
    static const DeviceSpec d = [] {
        auto r = findDevice("v100-32gb");
        if (!r) qFatal("no v100-32gb profile");
        DeviceSpec spec = *r;
        spec.gemmWorkspaceBytes = 0;
        return spec;
    }();
    return d;
}

Program compileFor(const Shrunk& s, const std::string& strategy) {
    auto st = parseStrategy(strategy);
    if (!st) qFatal("%s", st.error().message.c_str());
    PlanContext context;
    context.training = &s.training;
    context.device = &device();
    auto plan = makePlan(s.graph, *st, context);
    if (!plan) qFatal("%s: %s", strategy.c_str(), plan.error().message.c_str());
    auto p = compile(s.graph, *plan, s.training, CompileOptions{});
    if (!p) qFatal("%s", p.error().message.c_str());
    return std::move(*p);
}

struct Run {
    Measurement m;
    std::map<std::uint32_t, cpu::RunningStatistics::Entry> running;
};

Run execute(const Shrunk& s, const Program& p, int threads = 0) {
    ProgramDriver driver(std::make_unique<CpuBackend>(threads));
    auto m = driver.execute(s.graph, p, ExecuteOptions{});
    if (!m) qFatal("execute: %s", m.error().message.c_str());
    const auto& cpu = static_cast<const CpuBackend&>(driver.backend());
    return {std::move(*m), cpu.runningStatistics().all()};
}

// One op on the CPU backend against the float64 reference, forward and backward, fp32: the
// largest |cpu - reference| over each result, relative to its largest |reference|.
struct OpCase {
    const char* name;
    Op op;
    Shape x;
    std::vector<Shape> outputs;  // [0] the result; batch norm's statistics and pool indices
    std::vector<DType> outputTypes;
    std::vector<Shape> params;
    std::vector<int> saved;  // < 100: input, else output - 100
};

std::vector<float> randomValues(std::int64_t n, std::uint32_t seed) {
    std::vector<float> v(static_cast<std::size_t>(n));
    std::uint32_t state = seed * 2654435761u + 1;
    for (auto& x : v) {
        state = state * 1664525u + 1013904223u;
        x = float(state >> 8) / float(1u << 24) * 2.0f - 1.0f;
    }
    return v;
}

std::int64_t count(const Shape& s) {
    std::int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
}

double relativeError(const std::vector<float>& got, const reference::Values& want) {
    double maxRef = 1e-3, maxDiff = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        maxRef = std::max(maxRef, std::fabs(want.v[i]));
        maxDiff = std::max(maxDiff, std::fabs(double(got[i]) - want.v[i]));
    }
    return maxDiff / maxRef;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

void expectSameRun(const Run& reference, const Run& run) {
    auto c = compareGradients(reference.m, run.m);
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    QVERIFY(c->parameters > 0);
    if (!c->bitwiseEqual)
        QFAIL(qPrintable(QString("gradients differ: max |diff| %1 in %2")
                             .arg(c->maxAbsDiff)
                             .arg(QString::fromStdString(c->worstParameter))));
    QVERIFY(sameBits(reference.m.losses, run.m.losses));
    QCOMPARE(run.running.size(), reference.running.size());
    for (const auto& [op, e] : run.running) {
        const auto& r = reference.running.at(op);
        QVERIFY2(sameBits(e.mean, r.mean) && sameBits(e.var, r.var),
                 "batch norm running statistics differ from plan none's");
        QCOMPARE(e.updates, r.updates);
    }
}

}  // namespace

class TestConvExecutor : public QObject {
    Q_OBJECT

private slots:
    void shrunkResnetEveryPlan_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<bool>("mixed");
        for (bool mixed : {false, true})
            for (const char* s : {"full", "every:2", "sqrt", "selective:shortcut", "optimal"})
                QTest::newRow((std::string(s) + (mixed ? " bf16" : " fp32")).c_str())
                    << QString(s) << mixed;
    }

    void shrunkResnetEveryPlan() {
        QFETCH(QString, strategy);
        QFETCH(bool, mixed);
        const Shrunk s = shrunkResnet(mixed ? Precision::MixedBf16 : Precision::Fp32);
        const Program none = compileFor(s, "none");
        std::string spelling = strategy.toStdString();
        if (spelling == "optimal") {
            // A budget halfway between full's peak and none's: the planner must trade.
            const std::int64_t hi = simulate(s.graph, none, device()).peakBytes;
            const std::int64_t lo = simulate(s.graph, compileFor(s, "full"), device()).peakBytes;
            QVERIFY(lo < hi);
            spelling = "optimal:" + std::to_string((lo + hi) / 2);
        }
        const Program p = compileFor(s, spelling);
        QVERIFY(!p.unsafe());
        QVERIFY2(!p.plan.regions.empty(), "the plan checkpoints nothing");
        const Run reference = execute(s, none);
        const Run run = execute(s, p);

        const Timeline t = simulate(s.graph, p, device());
        const LiveBytesDifference d = compareLiveBytes(t, run.m);
        QVERIFY(d.sameLength);
        if (d.maxAbsBytes != 0 || d.maxAbsCategoryBytes != 0)
            QFAIL(qPrintable(
                QString("live bytes differ by %1 at instruction %2 (%3)")
                    .arg(d.maxAbsBytes)
                    .arg(d.instruction)
                    .arg(QString::fromStdString(describeInstruction(s.graph, p, d.instruction)))));
        QCOMPARE(run.m.peakBytes, t.peakBytes);
        QCOMPARE(run.m.peakInstruction, t.peakInstruction);
        QCOMPARE(run.m.losses.size(), std::size_t(2));
        for (float l : run.m.losses) QVERIFY(std::isfinite(l));
        expectSameRun(reference, run);

        // One entry per batch norm, each updated once per micro-step (two), not by recomputes.
        std::size_t batchNorms = 0;
        for (const Op& op : s.graph.ops) batchNorms += op.kind == OpKind::BatchNorm2d;
        QVERIFY(batchNorms > 10);
        QCOMPARE(run.running.size(), batchNorms);
        for (const auto& [op, e] : run.running) {
            QCOMPARE(e.updates, std::int64_t(2));
            QCOMPARE(std::int64_t(e.mean.size()), s.graph.op(OpId(op)).attrs.in);
        }
        std::size_t recomputedBatchNorms = 0;
        for (const Instruction& ins : p.instructions)
            recomputedBatchNorms +=
                ins.kind == InstrKind::Recompute && s.graph.op(ins.op).kind == OpKind::BatchNorm2d;
        if (spelling == "full") QVERIFY(recomputedBatchNorms > 0);

        const std::int64_t replay = cpuAllocatorPeakBytes(p);
        if (mixed)
            QVERIFY(replay >= run.m.device.reservedPeakBytes);
        else
            QCOMPARE(replay, run.m.device.reservedPeakBytes);
    }

    // A network of dilated, grouped and depthwise convolutions (MobileNet's separable pair
    // after a dilated grouped one), two micro-steps, under checkpointing plans: tracked bytes
    // equal the prediction after every instruction, gradients and running statistics are
    // bitwise plan none's, and the host-memory replay (one group's columns) equals what the
    // allocator obtained.
    void groupedAndDilatedNetworkEveryPlan() {
        Network n;
        n.name = "grouped";
        n.input.shape = {4, 12, 12};
        auto conv = [](std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t pad,
                       std::int64_t dil, std::int64_t groups) {
            Layer l;
            l.kind = LayerKind::Conv2d;
            l.outChannels = out;
            l.kernel = k;
            l.stride = stride;
            l.padding = pad;
            l.dilation = dil;
            l.groups = groups;
            l.bias = false;
            return l;
        };
        Layer bn;
        bn.kind = LayerKind::BatchNorm2d;
        Layer relu;
        relu.kind = LayerKind::Relu;
        relu.inplace = true;
        Layer gap, flat, fc, ce;
        gap.kind = LayerKind::GlobalAvgPool;
        flat.kind = LayerKind::Flatten;
        fc.kind = LayerKind::Linear;
        fc.out = 10;
        ce.kind = LayerKind::CrossEntropy;
        n.layers = {conv(8, 3, 1, 2, 2, 2), bn, relu, conv(8, 3, 2, 1, 1, 8), bn, relu,
                    conv(16, 1, 1, 0, 1, 4), bn, relu, gap, flat, fc, ce};
        TrainingConfig cfg;
        cfg.microBatch = 3;
        cfg.accumulationSteps = 2;
        auto g = lower(n, cfg);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().message.c_str());
        const Shrunk s{n, cfg, std::move(*g)};
        const Run reference = execute(s, compileFor(s, "none"));
        QCOMPARE(reference.running.size(), std::size_t(3));
        for (const char* strategy : {"full", "every:2", "sqrt"}) {
            const Program p = compileFor(s, strategy);
            QVERIFY2(!p.plan.regions.empty(), strategy);
            const Run run = execute(s, p);
            const Timeline t = simulate(s.graph, p, device());
            const LiveBytesDifference d = compareLiveBytes(t, run.m);
            QVERIFY(d.sameLength);
            QVERIFY2(d.maxAbsBytes == 0 && d.maxAbsCategoryBytes == 0, strategy);
            QCOMPARE(run.m.peakBytes, t.peakBytes);
            expectSameRun(reference, run);
            for (const auto& [op, e] : run.running) QCOMPARE(e.updates, std::int64_t(2));
            QCOMPARE(cpuAllocatorPeakBytes(p), run.m.device.reservedPeakBytes);
            QVERIFY(run.m.device.scratchPeakBytes > 0);
        }
    }

    // Geometries the ResNet does not have: a 5x5 kernel with stride 3 and padding 2 over sides
    // the stride does not divide, a 1x1 kernel with stride 2 (columns, not the direct path), a
    // bias; a dilated convolution in two groups, a depthwise one, a grouped 1x1; a 2x2 max pool without padding; batch norm over a 1x1 plane; all within 1e-5 of
    // the float64 reference forward and backward (gradients pre-filled: backward accumulates).
    void oddGeometriesAgainstFloat64() {
        std::vector<OpCase> cases;
        {
            OpCase c{"conv 5x5/3 pad 2 + bias", {}, {2, 3, 11, 8}, {{2, 7, 4, 3}}, {DType::F32},
                     {{7, 3, 5, 5}, {7}},       {0}};
            c.op.kind = OpKind::Conv2d;
            c.op.attrs.in = 3;
            c.op.attrs.out = 7;
            c.op.attrs.kernel = 5;
            c.op.attrs.stride = 3;
            c.op.attrs.padding = 2;
            c.op.attrs.bias = true;
            cases.push_back(c);
        }
        {
            OpCase c{"conv 1x1/2",   {}, {3, 4, 7, 6}, {{3, 5, 4, 3}}, {DType::F32},
                     {{5, 4, 1, 1}}, {0}};
            c.op.kind = OpKind::Conv2d;
            c.op.attrs.in = 4;
            c.op.attrs.out = 5;
            c.op.attrs.kernel = 1;
            c.op.attrs.stride = 2;
            cases.push_back(c);
        }
        {
            // (9 + 4 - 2·2 - 1) / 2 + 1 = 5 and (8 + 4 - 5) / 2 + 1 = 4.
            OpCase c{"conv 3x3/2 dilation 2, 2 groups", {}, {2, 4, 9, 8}, {{2, 6, 5, 4}},
                     {DType::F32}, {{6, 2, 3, 3}}, {0}};
            c.op.kind = OpKind::Conv2d;
            c.op.attrs.in = 4;
            c.op.attrs.out = 6;
            c.op.attrs.kernel = 3;
            c.op.attrs.stride = 2;
            c.op.attrs.padding = 2;
            c.op.attrs.dilation = 2;
            c.op.attrs.groups = 2;
            cases.push_back(c);
        }
        {
            OpCase c{"conv depthwise 3x3 + bias", {}, {2, 5, 6, 7}, {{2, 5, 6, 7}},
                     {DType::F32}, {{5, 1, 3, 3}, {5}}, {0}};
            c.op.kind = OpKind::Conv2d;
            c.op.attrs.in = 5;
            c.op.attrs.out = 5;
            c.op.attrs.kernel = 3;
            c.op.attrs.padding = 1;
            c.op.attrs.groups = 5;
            c.op.attrs.bias = true;
            cases.push_back(c);
        }
        {
            OpCase c{"conv 1x1, 3 groups (input as columns)", {}, {2, 6, 4, 5}, {{2, 9, 4, 5}},
                     {DType::F32}, {{9, 2, 1, 1}}, {0}};
            c.op.kind = OpKind::Conv2d;
            c.op.attrs.in = 6;
            c.op.attrs.out = 9;
            c.op.attrs.kernel = 1;
            c.op.attrs.groups = 3;
            cases.push_back(c);
        }
        {
            OpCase c{"maxpool 2x2/2",          {}, {2, 3, 7, 6}, {{2, 3, 3, 3}, {2, 3, 3, 3}},
                     {DType::F32, DType::I64}, {}, {0, 101}};
            c.op.kind = OpKind::MaxPool2d;
            c.op.attrs.kernel = 2;
            c.op.attrs.stride = 2;
            cases.push_back(c);
        }
        {
            OpCase c{"batchnorm 1x1 planes",
                     {},
                     {5, 6, 1, 1},
                     {{5, 6, 1, 1}, {6}, {6}},
                     {DType::F32, DType::F32, DType::F32},
                     {{6}, {6}},
                     {0, 101, 102}};
            c.op.kind = OpKind::BatchNorm2d;
            c.op.attrs.in = 6;
            cases.push_back(c);
        }
        std::uint32_t seed = 1;
        for (OpCase& k : cases) {
            CpuBackend cpu(2);
            QVERIFY(cpu.beginStep(0).ok());
            reference::Call rc;
            OpCall sc;
            rc.op = sc.op = &k.op;
            rc.opId = sc.opId = OpId(3);
            std::vector<std::vector<float>> store;  // every CPU operand's floats
            store.reserve(32);
            auto add = [&](const Shape& shape, std::vector<TensorRef>& refs,
                           std::vector<reference::Values>& values, bool random) {
                store.push_back(random ? randomValues(count(shape), seed++)
                                       : std::vector<float>(std::size_t(count(shape)), 0.0f));
                refs.push_back(TensorRef{store.back().data(), DType::F32, shape});
                reference::Values v(shape);
                v.v.assign(store.back().begin(), store.back().end());
                values.push_back(std::move(v));
            };
            add(k.x, sc.inputs, rc.inputs, true);
            for (const Shape& p : k.params) add(p, sc.params, rc.params, true);
            std::vector<std::vector<std::int64_t>> indices;
            indices.reserve(2);
            for (std::size_t i = 0; i < k.outputs.size(); ++i) {
                if (k.outputTypes[i] == DType::I64) {
                    indices.emplace_back(std::size_t(count(k.outputs[i])), -7);
                    sc.outputs.push_back(
                        TensorRef{indices.back().data(), DType::I64, k.outputs[i]});
                    rc.outputs.emplace_back(k.outputs[i]);
                    continue;
                }
                add(k.outputs[i], sc.outputs, rc.outputs, false);
            }
            QVERIFY(reference::forward(rc).ok());
            QVERIFY2(runOp(cpu, sc, false).ok(), k.name);
            for (std::size_t i = 0; i < k.outputs.size(); ++i) {
                if (k.outputTypes[i] == DType::I64) {
                    for (std::size_t j = 0; j < indices[0].size(); ++j)
                        QCOMPARE(double(indices[0][j]), rc.outputs[i].v[j]);
                    continue;
                }
                const auto* f = static_cast<const float*>(sc.outputs[i].data);
                const std::vector<float> got(f, f + count(k.outputs[i]));
                const double e = relativeError(got, rc.outputs[i]);
                QVERIFY2(e < 1e-5,
                         qPrintable(QString("%1 forward output %2: %3").arg(k.name).arg(i).arg(e)));
            }

            // Backward from the CPU's own forward results (identical to the reference's up to
            // fp32 rounding; the indices are identical).
            reference::Call rb;
            OpCall sb;
            rb.op = sb.op = &k.op;
            rb.opId = sb.opId = OpId(3);
            for (int sv : k.saved) {
                const TensorRef& t =
                    sv >= 100 ? sc.outputs[std::size_t(sv - 100)] : sc.inputs[std::size_t(sv)];
                sb.saved.push_back(t);
                reference::Values v(t.shape);
                if (t.dtype == DType::I64)
                    for (std::int64_t j = 0; j < t.elements(); ++j)
                        v.v[std::size_t(j)] = double(static_cast<const std::int64_t*>(t.data)[j]);
                else
                    for (std::int64_t j = 0; j < t.elements(); ++j)
                        v.v[std::size_t(j)] = static_cast<const float*>(t.data)[j];
                rb.saved.push_back(std::move(v));
            }
            sb.params = sc.params;
            rb.params = rc.params;
            add(k.outputs[0], sb.gradOutputs, rb.gradOutputs, true);
            for (std::size_t i = 1; i < k.outputs.size(); ++i) {
                sb.gradOutputs.emplace_back();
                rb.gradOutputs.emplace_back();
            }
            add(k.x, sb.gradInputs, rb.gradInputs, true);
            for (const Shape& p : k.params) add(p, sb.paramGrads, rb.paramGrads, true);
            QVERIFY(reference::backward(rb).ok());
            QVERIFY2(runOp(cpu, sb, true).ok(), k.name);
            std::vector<std::pair<const TensorRef*, const reference::Values*>> grads;
            grads.emplace_back(&sb.gradInputs[0], &rb.gradInputs[0]);
            for (std::size_t i = 0; i < sb.paramGrads.size(); ++i)
                grads.emplace_back(&sb.paramGrads[i], &rb.paramGrads[i]);
            for (const auto& [got, want] : grads) {
                const auto* f = static_cast<const float*>(got->data);
                const double e = relativeError(std::vector<float>(f, f + got->elements()), *want);
                QVERIFY2(e < 1e-5, qPrintable(QString("%1 backward: %2").arg(k.name).arg(e)));
            }
            QVERIFY(cpu.endStep().ok());
        }
    }

    void threadCountsGiveSameBits() {
        const Shrunk s = shrunkResnet(Precision::Fp32);
        const Program p = compileFor(s, "sqrt");
        const Run one = execute(s, p, 1);
        const Run three = execute(s, p, 3);
        expectSameRun(one, three);
    }
};

QTEST_GUILESS_MAIN(TestConvExecutor)
#include "tst_conv_executor.moc"
