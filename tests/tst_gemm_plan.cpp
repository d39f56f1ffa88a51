// Tests of the CUDA backend's GEMM plans (gpu/cuda/gemm_plan.h) without a GPU: each plan is
// executed by a host GEMM with cuBLAS's column-major semantics (op(A) m x k, op(B) k x n, C m x
// n, leading dimensions, strides between batch entries, beta = 0 ignoring C) and compared with
// the CPU reference backend's linear and attention entries on the same operands. The plans hold
// all of the CUDA attention's index arithmetic (heads read in place from qkv, grouped KV heads
// with or without expansion, heads merged into the context), so a wrong stride or transpose
// shows here, on any machine.
#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <vector>

#include "backends.h"
#include "counter_rng.h"
#include "host_gemm_plan.h"
#include "cuda/gemm_plan.h"

using namespace remat;
using namespace remat::gpu::cuda;

namespace {

using Buffers = test::GemmBuffers;

// The plan's cuBLAS calls, run on the host (host_gemm_plan.h).
void run(const std::vector<GemmCall>& calls, const Buffers& buffers) {
    test::runGemms(calls, buffers);
}

std::vector<float> randomValues(std::int64_t n, std::uint64_t stream) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 2.0f * rng::uniform01(stream, i) - 1.0f;
    return v;
}

TensorRef ref(std::vector<float>& v, Shape shape) {
    return TensorRef{v.data(), DType::F32, shape};
}

double maxDiff(const std::vector<float>& a, const std::vector<float>& b) {
    double m = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isinf(a[i]) || std::isinf(b[i])) {
            if (a[i] != b[i]) return INFINITY;
            continue;
        }
        m = std::max(m, double(std::fabs(a[i] - b[i])));
    }
    return m;
}

constexpr double kTolerance = 1e-5;

}  // namespace

class TestGemmPlan : public QObject {
    Q_OBJECT

private slots:
    void linearMatchesTheReference() {
        auto cpu = makeBackend("cpu");
        QVERIFY(cpu);
        const std::int64_t rows = 6, in = 7, out = 5;
        Op op;
        op.kind = OpKind::Linear;
        op.name = "linear";
        op.attrs.in = in;
        op.attrs.out = out;
        op.attrs.bias = false;
        std::vector<float> x = randomValues(rows * in, 1), w = randomValues(out * in, 2);
        std::vector<float> yRef(std::size_t(rows * out)), yPlan(std::size_t(rows * out));
        OpCall c;
        c.op = &op;
        c.microBatch = rows;
        c.inputs = {ref(x, {rows, in})};
        c.outputs = {ref(yRef, {rows, out})};
        c.params = {ref(w, {out, in})};
        QVERIFY((*cpu)->linearForward(c));
        run(linearForwardGemms(rows, in, out, false),
            {{GemmOperand::X, &x}, {GemmOperand::W, &w}, {GemmOperand::Y, &yPlan}});
        QVERIFY2(maxDiff(yRef, yPlan) < kTolerance, "linear forward");

        // Backward accumulates into gradients that already hold values.
        std::vector<float> dy = randomValues(rows * out, 3);
        std::vector<float> dxRef = randomValues(rows * in, 4), dwRef = randomValues(out * in, 5);
        std::vector<float> dxPlan = dxRef, dwPlan = dwRef;
        OpCall b;
        b.op = &op;
        b.microBatch = rows;
        b.saved = {ref(x, {rows, in})};
        b.params = {ref(w, {out, in})};
        b.gradOutputs = {ref(dy, {rows, out})};
        b.gradInputs = {ref(dxRef, {rows, in})};
        b.paramGrads = {ref(dwRef, {out, in})};
        QVERIFY((*cpu)->linearBackward(b));
        run(linearBackwardGemms(rows, in, out, true, true), {{GemmOperand::X, &x},
                                                             {GemmOperand::W, &w},
                                                             {GemmOperand::DY, &dy},
                                                             {GemmOperand::DX, &dxPlan},
                                                             {GemmOperand::DW, &dwPlan}});
        QVERIFY2(maxDiff(dxRef, dxPlan) < kTolerance, "linear input gradient");
        QVERIFY2(maxDiff(dwRef, dwPlan) < kTolerance, "linear weight gradient");
    }

    void attention_data() {
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<bool>("expanded");
        QTest::addColumn<bool>("causal");
        QTest::newRow("multi-head, causal") << 4 << false << true;
        QTest::newRow("multi-head, unmasked") << 4 << false << false;
        QTest::newRow("grouped KV, expanded") << 2 << true << true;
        QTest::newRow("grouped KV, read in place") << 2 << false << true;
        QTest::newRow("multi-query, read in place") << 1 << false << false;
    }

    void attention() {
        QFETCH(int, kvHeads);
        QFETCH(bool, expanded);
        QFETCH(bool, causal);
        auto cpu = makeBackend("cpu");
        QVERIFY(cpu);
        AttnShape s;
        s.batch = 2;
        s.tokens = 5;
        s.heads = 4;
        s.kvHeads = kvHeads;
        s.headDim = 3;
        s.causal = causal;
        QVERIFY(attnShapeProblem(s) == nullptr);
        const std::int64_t B = s.batch, T = s.tokens, H = s.heads, D = s.headDim;
        const std::int64_t W = (H + 2 * kvHeads) * D;
        Op op;
        op.attrs.tokens = T;
        op.attrs.heads = H;
        op.attrs.kvHeads = kvHeads;
        op.attrs.headDim = D;
        op.attrs.causal = causal;
        const Shape qkvShape{B, T, W}, expShape{B, H, T, D}, sqShape{B, H, T, T},
            ctxShape{B, T, H * D};
        std::vector<float> qkv = randomValues(B * T * W, 11);
        std::vector<float> kx = randomValues(B * H * T * D, 12),
                           vx = randomValues(B * H * T * D, 13);

        // ---- scores forward ----
        op.kind = OpKind::AttnScores;
        op.name = "scores";
        std::vector<float> sRef(std::size_t(B * H * T * T)), sPlan(sRef.size());
        OpCall c;
        c.op = &op;
        c.microBatch = B;
        c.inputs = {ref(qkv, qkvShape)};
        if (expanded) c.inputs.push_back(ref(kx, expShape));
        c.outputs = {ref(sRef, sqShape)};
        QVERIFY((*cpu)->attnScoresForward(c));
        run(attnScoresForwardGemms(s, expanded),
            {{GemmOperand::Qkv, &qkv}, {GemmOperand::KExp, &kx}, {GemmOperand::Scores, &sPlan}});
        if (causal)  // what causalMaskKernel does after the GEMMs
            for (std::size_t idx = 0; idx < sPlan.size(); ++idx)
                if (std::int64_t(idx) % T > (std::int64_t(idx) / T) % T) sPlan[idx] = -INFINITY;
        QVERIFY2(maxDiff(sRef, sPlan) < kTolerance, "scores forward");

        // ---- scores backward ----
        std::vector<float> dS = randomValues(B * H * T * T, 14);
        std::vector<float> dQkvRef = randomValues(B * T * W, 15), dQkvPlan = dQkvRef;
        std::vector<float> dKRef = randomValues(B * H * T * D, 16), dKPlan = dKRef;
        OpCall b;
        b.op = &op;
        b.microBatch = B;
        b.saved = c.inputs;
        b.gradOutputs = {ref(dS, sqShape)};
        b.gradInputs = {ref(dQkvRef, qkvShape)};
        if (expanded) b.gradInputs.push_back(ref(dKRef, expShape));
        QVERIFY((*cpu)->attnScoresBackward(b));
        run(attnScoresBackwardGemms(s, expanded, true, true), {{GemmOperand::Qkv, &qkv},
                                                               {GemmOperand::KExp, &kx},
                                                               {GemmOperand::DScores, &dS},
                                                               {GemmOperand::DQkv, &dQkvPlan},
                                                               {GemmOperand::DKExp, &dKPlan}});
        QVERIFY2(maxDiff(dQkvRef, dQkvPlan) < kTolerance, "scores backward, qkv gradient");
        QVERIFY2(maxDiff(dKRef, dKPlan) < kTolerance, "scores backward, expanded K gradient");

        // ---- context forward ----
        op.kind = OpKind::AttnContext;
        op.name = "context";
        std::vector<float> p = randomValues(B * H * T * T, 17);
        std::vector<float> yRef(std::size_t(B * T * H * D)), yPlan(yRef.size());
        OpCall cf;
        cf.op = &op;
        cf.microBatch = B;
        cf.inputs = {ref(p, sqShape), expanded ? ref(vx, expShape) : ref(qkv, qkvShape)};
        cf.outputs = {ref(yRef, ctxShape)};
        QVERIFY((*cpu)->attnContextForward(cf));
        run(attnContextForwardGemms(s, expanded), {{GemmOperand::Probs, &p},
                                                   {GemmOperand::Qkv, &qkv},
                                                   {GemmOperand::VExp, &vx},
                                                   {GemmOperand::Context, &yPlan}});
        QVERIFY2(maxDiff(yRef, yPlan) < kTolerance, "context forward");

        // ---- context backward ----
        std::vector<float> dY = randomValues(B * T * H * D, 18);
        std::vector<float> dPRef = randomValues(B * H * T * T, 19), dPPlan = dPRef;
        std::vector<float> dVRef =
            expanded ? randomValues(B * H * T * D, 20) : randomValues(B * T * W, 21);
        std::vector<float> dVPlan = dVRef;
        OpCall cb;
        cb.op = &op;
        cb.microBatch = B;
        cb.saved = cf.inputs;
        cb.gradOutputs = {ref(dY, ctxShape)};
        cb.gradInputs = {ref(dPRef, sqShape), ref(dVRef, expanded ? expShape : qkvShape)};
        QVERIFY((*cpu)->attnContextBackward(cb));
        Buffers buffers{{GemmOperand::Probs, &p},
                        {GemmOperand::Qkv, &qkv},
                        {GemmOperand::VExp, &vx},
                        {GemmOperand::DContext, &dY},
                        {GemmOperand::DProbs, &dPPlan}};
        buffers[expanded ? GemmOperand::DVExp : GemmOperand::DQkv] = &dVPlan;
        run(attnContextBackwardGemms(s, expanded, true, true), buffers);
        QVERIFY2(maxDiff(dPRef, dPPlan) < kTolerance, "context backward, probabilities gradient");
        QVERIFY2(maxDiff(dVRef, dVPlan) < kTolerance, "context backward, values gradient");
    }

    void groupMembersRunAsSeparateCalls() {
        // Without expansion a kv head is shared by H / KV query heads; each batched call must
        // write every kv head at most once, so no call races with itself on a shared gradient.
        AttnShape s;
        s.batch = 3;
        s.tokens = 4;
        s.heads = 8;
        s.kvHeads = 2;
        s.headDim = 2;
        const auto calls = attnScoresBackwardGemms(s, false, true, true);
        QCOMPARE(calls.size(), std::size_t(3 * 4 * 2));
        for (const GemmCall& g : calls) {
            QCOMPARE(g.batch, std::int64_t(2));
            QVERIFY(g.c.stride != 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestGemmPlan)
#include "tst_gemm_plan.moc"
