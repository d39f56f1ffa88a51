// Revolve (`revolve:C`): Griewank's closed form t(l, c) = r l - C(c + r, r - 1) equals the
// minimum of the binomial recursion t(l, c) = min_s s + t(l - s, c - 1) + t(s, c), and the nested
// regions planRevolve builds make every chain element run forward exactly t(l, c) + l times in
// the compiled program (Forward and Recompute instructions counted per element), for
// homogeneous MLP and transformer chains of many lengths and slot counts. The programs validate,
// and their peaks fall as slots are taken away while the work grows.
#include <QtTest/QtTest>
#include <limits>

#include "compiler.h"
#include "lower.h"
#include "model_file.h"
#include "optimal_test_support.h"
#include "revolve.h"
#include "strategy.h"

using namespace remat;
using namespace remat::test;

namespace {

// Forward executions of chain elements: instructions running each element's first op.
std::int64_t chainForwards(const Graph& g, const Program& p) {
    std::vector<bool> first(g.ops.size(), false);
    for (ModuleId m : g.chain) first[g.module(m).firstOp] = true;
    std::int64_t n = 0;
    for (const Instruction& ins : p.instructions)
        if ((ins.kind == InstrKind::Forward || ins.kind == InstrKind::Recompute) && ins.op.valid() &&
            first[ins.op.index()] && ins.microStep == 0)
            ++n;
    return n;
}

}  // namespace

class TestRevolve : public QObject {
    Q_OBJECT

private slots:
    void closedFormEqualsRecursion() {
        const int maxL = 80, maxC = 12;
        constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
        // t[c][l] by the recursion over the first advance s.
        std::vector<std::vector<std::int64_t>> t(maxC + 1, std::vector<std::int64_t>(maxL + 1, kInf));
        for (int c = 0; c <= maxC; ++c) t[std::size_t(c)][1] = 0;
        for (int c = 1; c <= maxC; ++c)
            for (int l = 2; l <= maxL; ++l)
                for (int s = 1; s < l; ++s) {
                    const std::int64_t rest = t[std::size_t(c) - 1][std::size_t(l - s)];
                    if (rest >= kInf) continue;
                    t[std::size_t(c)][std::size_t(l)] = std::min(
                        t[std::size_t(c)][std::size_t(l)], s + rest + t[std::size_t(c)][std::size_t(s)]);
                }
        for (int c = 1; c <= maxC; ++c)
            for (int l = 1; l <= maxL; ++l)
                QCOMPARE(revolveAdvances(l, c), t[std::size_t(c)][std::size_t(l)]);
        // Known values: one slot replays from the start; enough slots store every state.
        QCOMPARE(revolveAdvances(10, 1), std::int64_t{45});
        QCOMPARE(revolveAdvances(10, 9), std::int64_t{9});
        QCOMPARE(revolveAdvances(10, 2), std::int64_t{20});
        QCOMPARE(revolveForwardSteps(10, 2), std::int64_t{30});
    }

    void forwardCountsOfHomogeneousMlps() {
        const DeviceSpec d = optimalTestDevice();
        int programs = 0;
        for (int l = 1; l <= 24; ++l) {
            Network net = homogeneousMlp(l, 16);
            Graph g = lowerOrDie(net, Precision::Fp32);
            TrainingConfig cfg;
            cfg.microBatch = 2;
            // Revolve's count has every recompute advance through its whole segment, as a
            // reentrant checkpoint does. PyTorch's non-reentrant one runs fewer: a bare linear
            // saves only its input, so the recompute stops before the segment's last one.
            TrainingConfig reentrant = cfg;
            reentrant.recomputeImpl = RecomputeImpl::PytorchReentrant;
            std::int64_t previousPeak = 0;
            for (int c = l + 1; c >= 1; --c) {
                auto plan = planRevolve(g, c);
                QVERIFY(plan.ok());
                auto whole = compile(g, *plan, reentrant, compileOptionsFor(d));
                QVERIFY2(whole.ok(), whole.ok() ? "" : whole.error().message.c_str());
                QCOMPARE(chainForwards(g, *whole), revolveForwardSteps(l, c));
                auto p = compile(g, *plan, cfg, compileOptionsFor(d));
                QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
                QVERIFY(chainForwards(g, *p) <= revolveForwardSteps(l, c));
                if (!plan->regions.empty())
                    QVERIFY(chainForwards(g, *p) < revolveForwardSteps(l, c));
                const Timeline t = simulate(g, *p, d);
                // Fewer slots never need more memory.
                if (c <= l) QVERIFY(t.peakBytes <= previousPeak || previousPeak == 0);
                previousPeak = t.peakBytes;
                ++programs;
            }
        }
        qInfo("%d programs", programs);
    }

    // A homogeneous transformer stack (one entry repeated): blocks end with saving ops, so the
    // early stop leaves the first op of every recomputed block running.
    void forwardCountsOfTransformerStacks() {
        const DeviceSpec d = optimalTestDevice();
        for (int l : {3, 7, 12}) {
            std::mt19937 rng(31);
            Network net = randomTransformer(rng, 1);
            net.layers[1].repeat = l;
            Graph g = lowerOrDie(net, Precision::Fp32);
            QCOMPARE(int(g.chain.size()), l);
            TrainingConfig cfg;
            cfg.microBatch = 2;
            cfg.accumulationSteps = 2;
            for (int c = 1; c <= l; ++c) {
                auto plan = planRevolve(g, c);
                QVERIFY(plan.ok());
                auto p = compile(g, *plan, cfg, compileOptionsFor(d));
                QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
                QCOMPARE(chainForwards(g, *p), revolveForwardSteps(l, c));
            }
        }
    }

    void strategySpelling() {
        auto s = parseStrategy("revolve:3");
        QVERIFY(s.ok());
        auto model = loadModel("gpt2-small");
        Graph g = lowerOrDie(model->network, model->training.precision);
        auto plan = makePlan(g, *s);
        QVERIFY(plan.ok());
        QCOMPARE(plan->strategy, std::string("revolve:3"));
        QVERIFY(!plan->regions.empty());
        QVERIFY(!parseStrategy("revolve:x").ok());
    }
};

QTEST_GUILESS_MAIN(TestRevolve)
#include "tst_revolve.moc"
