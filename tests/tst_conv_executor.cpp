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
            QFAIL(qPrintable(QString("live bytes differ by %1 at instruction %2 (%3)")
                                 .arg(d.maxAbsBytes)
                                 .arg(d.instruction)
                                 .arg(QString::fromStdString(
                                     describeInstruction(s.graph, p, d.instruction)))));
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
            recomputedBatchNorms += ins.kind == InstrKind::Recompute &&
                                    s.graph.op(ins.op).kind == OpKind::BatchNorm2d;
        if (spelling == "full") QVERIFY(recomputedBatchNorms > 0);

        const std::int64_t replay = cpuAllocatorPeakBytes(p);
        if (mixed)
            QVERIFY(replay >= run.m.device.reservedPeakBytes);
        else
            QCOMPARE(replay, run.m.device.reservedPeakBytes);
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
