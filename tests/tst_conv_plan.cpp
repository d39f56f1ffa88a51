// Tests of the CUDA convolution's host-side plan (gpu/cuda/conv_plan.h) without a GPU: the
// im2col and col2im index functions the kernels call (convColumnSource, convTapColumn) and the
// per-sample cuBLAS plans are executed on the host — a host GEMM with cuBLAS's column-major
// semantics, as tst_gemm_plan runs the linear and attention plans — and compared with the CPU
// backend's conv2d forward, input gradient and weight gradient on the same operands, for
// strides, padding, dilation, channel groups (depthwise included) and the 1x1 convolution that
// reads its input as its columns. A wrong tap offset, group stride or transpose shows here.
#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <vector>

#include "backends.h"
#include "counter_rng.h"
#include "host_gemm_plan.h"
#include "cuda/conv_plan.h"

using namespace remat;
using namespace remat::gpu::cuda;

namespace {

using Buffers = test::GemmBuffers;

// The plan's cuBLAS calls, run on the host (host_gemm_plan.h).
void run(const std::vector<GemmCall>& calls, const Buffers& buffers) {
    test::runGemms(calls, buffers);
}

// What im2colKernel writes for sample n.
void im2col(const ConvShape& g, const std::vector<float>& x, std::int64_t n,
            std::vector<float>& columns) {
    const std::int64_t cols = g.colCols(), rows = g.c * g.k * g.k;
    const float* xn = x.data() + n * g.c * g.h * g.w;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t q = 0; q < cols; ++q) {
            const std::int64_t src = convColumnSource(g, r, q);
            columns[std::size_t(r * cols + q)] = src >= 0 ? xn[src] : 0.0f;
        }
}

// What col2imKernel adds into dx for sample n.
void col2im(const ConvShape& g, const std::vector<float>& dcolumns, std::int64_t n,
            std::vector<float>& dx) {
    const std::int64_t cols = g.colCols();
    float* dxn = dx.data() + n * g.c * g.h * g.w;
    for (std::int64_t ci = 0; ci < g.c; ++ci)
        for (std::int64_t ih = 0; ih < g.h; ++ih)
            for (std::int64_t iw = 0; iw < g.w; ++iw) {
                float acc = 0.0f;
                for (std::int64_t ki = 0; ki < g.k; ++ki)
                    for (std::int64_t kj = 0; kj < g.k; ++kj) {
                        const std::int64_t q = convTapColumn(g, ih, iw, ki, kj);
                        if (q >= 0) acc += dcolumns[std::size_t(((ci * g.k + ki) * g.k + kj) * cols + q)];
                    }
                dxn[(ci * g.h + ih) * g.w + iw] += acc;
            }
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
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::fabs(a[i] - b[i])));
    return m;
}

constexpr double kTolerance = 1e-5;

}  // namespace

class TestConvPlan : public QObject {
    Q_OBJECT

private slots:
    void matchesTheCpuBackend_data() {
        QTest::addColumn<QList<int>>("dims");  // n c h w o k stride pad dilation groups
        QTest::addColumn<bool>("bias");
        QTest::newRow("3x3, stride 2, padding 1") << QList<int>{2, 4, 7, 6, 6, 3, 2, 1, 1, 1} << true;
        QTest::newRow("dilation 2, two groups") << QList<int>{2, 4, 7, 7, 6, 3, 1, 2, 2, 2} << false;
        QTest::newRow("depthwise with bias") << QList<int>{2, 6, 5, 5, 6, 3, 1, 1, 1, 6} << true;
        QTest::newRow("depthwise, channel multiplier 2")
            << QList<int>{1, 3, 6, 5, 6, 3, 2, 1, 1, 3} << false;
        QTest::newRow("1x1 in two groups, input as columns")
            << QList<int>{2, 4, 5, 5, 8, 1, 1, 0, 1, 2} << true;
        QTest::newRow("1x1, stride 2") << QList<int>{2, 4, 5, 5, 4, 1, 2, 0, 1, 1} << false;
        QTest::newRow("2x2, dilation 3, stride 3") << QList<int>{1, 3, 8, 9, 4, 2, 3, 0, 3, 1} << true;
    }

    void matchesTheCpuBackend() {
        QFETCH(QList<int>, dims);
        QFETCH(bool, bias);
        auto cpu = makeBackend("cpu");
        QVERIFY(cpu);
        ConvShape g;
        g.n = dims[0];
        g.c = dims[1];
        g.h = dims[2];
        g.w = dims[3];
        g.o = dims[4];
        g.k = dims[5];
        g.stride = dims[6];
        g.pad = dims[7];
        g.dil = dims[8];
        g.groups = dims[9];
        g.ho = convOutputSize(g.h, g.k, g.stride, g.pad, g.dil);
        g.wo = convOutputSize(g.w, g.k, g.stride, g.pad, g.dil);
        QVERIFY2(convShapeProblem(g) == nullptr, convShapeProblem(g));
        const bool direct = g.k == 1 && g.stride == 1 && g.pad == 0;
        QCOMPARE(g.direct(), direct);
        QCOMPARE(convColumnElements(g), direct ? 0 : g.c * g.k * g.k * g.ho * g.wo);

        Op op;
        op.kind = OpKind::Conv2d;
        op.name = "conv";
        op.attrs.in = g.c;
        op.attrs.out = g.o;
        op.attrs.kernel = g.k;
        op.attrs.stride = g.stride;
        op.attrs.padding = g.pad;
        op.attrs.dilation = g.dil;
        op.attrs.groups = g.groups;
        op.attrs.bias = bias;
        const Shape xs{g.n, g.c, g.h, g.w}, ys{g.n, g.o, g.ho, g.wo},
            ws{g.o, g.cg(), g.k, g.k};
        std::vector<float> x = randomValues(g.n * g.c * g.h * g.w, 1);
        std::vector<float> w = randomValues(g.o * g.cg() * g.k * g.k, 2);
        std::vector<float> b = randomValues(g.o, 3);
        std::vector<float> columns(std::size_t(std::max<std::int64_t>(convColumnElements(g), 1)));

        // ---- forward: bias broadcast, then per sample im2col and the groups' GEMM ----
        std::vector<float> yRef(std::size_t(g.n * g.o * g.ho * g.wo)), yPlan(yRef.size());
        OpCall c;
        c.op = &op;
        c.microBatch = g.n;
        c.inputs = {ref(x, xs)};
        c.outputs = {ref(yRef, ys)};
        c.params = {ref(w, ws)};
        if (bias) c.params.push_back(ref(b, {g.o}));
        QVERIFY((*cpu)->conv2dForward(c));
        if (bias)
            for (std::size_t i = 0; i < yPlan.size(); ++i)
                yPlan[i] = b[(i / std::size_t(g.ho * g.wo)) % std::size_t(g.o)];
        const Buffers fwd{{GemmOperand::X, &x},
                          {GemmOperand::W, &w},
                          {GemmOperand::Y, &yPlan},
                          {GemmOperand::Columns, &columns}};
        for (std::int64_t n = 0; n < g.n; ++n) {
            if (!direct) im2col(g, x, n, columns);
            run(convForwardGemms(g, n, bias), fwd);
        }
        QVERIFY2(maxDiff(yRef, yPlan) < kTolerance, "forward");

        // ---- backward: gradients that already hold values are accumulated into ----
        std::vector<float> dy = randomValues(g.n * g.o * g.ho * g.wo, 4);
        std::vector<float> dxRef = randomValues(g.n * g.c * g.h * g.w, 5), dxPlan = dxRef;
        std::vector<float> dwRef = randomValues(g.o * g.cg() * g.k * g.k, 6), dwPlan = dwRef;
        std::vector<float> dbRef = randomValues(g.o, 7);
        OpCall bw;
        bw.op = &op;
        bw.microBatch = g.n;
        bw.saved = {ref(x, xs)};
        bw.params = c.params;
        bw.gradOutputs = {ref(dy, ys)};
        bw.gradInputs = {ref(dxRef, xs)};
        bw.paramGrads = {ref(dwRef, ws)};
        if (bias) bw.paramGrads.push_back(ref(dbRef, {g.o}));
        QVERIFY((*cpu)->conv2dBackward(bw));
        std::vector<float> dcolumns(columns.size());
        const Buffers back{{GemmOperand::X, &x},          {GemmOperand::W, &w},
                           {GemmOperand::DY, &dy},        {GemmOperand::DX, &dxPlan},
                           {GemmOperand::DW, &dwPlan},    {GemmOperand::Columns, &columns},
                           {GemmOperand::DColumns, &dcolumns}};
        for (std::int64_t n = 0; n < g.n; ++n) {
            if (!direct) im2col(g, x, n, columns);
            run(convWeightGradGemms(g, n), back);
            run(convInputGradGemms(g, n), back);
            if (!direct) col2im(g, dcolumns, n, dxPlan);
        }
        QVERIFY2(maxDiff(dwRef, dwPlan) < kTolerance, "weight gradient");
        QVERIFY2(maxDiff(dxRef, dxPlan) < kTolerance, "input gradient");
    }

    // The column entries name exactly the input elements a direct loop over the definition
    // reads: y[o, oh, ow] = Σ w[o, cl, ki, kj] x[g·C/G + cl, oh·s − p + ki·d, ow·s − p + kj·d].
    void columnSourcesFollowTheDefinition() {
        ConvShape g;
        g.n = 1;
        g.c = 4;
        g.h = 6;
        g.w = 7;
        g.o = 4;
        g.k = 3;
        g.stride = 2;
        g.pad = 2;
        g.dil = 2;
        g.groups = 2;
        g.ho = convOutputSize(g.h, g.k, g.stride, g.pad, g.dil);
        g.wo = convOutputSize(g.w, g.k, g.stride, g.pad, g.dil);
        QCOMPARE(g.ho, 3);
        QCOMPARE(g.wo, 4);
        std::int64_t inside = 0;
        for (std::int64_t ci = 0; ci < g.c; ++ci)
            for (std::int64_t ki = 0; ki < g.k; ++ki)
                for (std::int64_t kj = 0; kj < g.k; ++kj)
                    for (std::int64_t oh = 0; oh < g.ho; ++oh)
                        for (std::int64_t ow = 0; ow < g.wo; ++ow) {
                            const std::int64_t ih = oh * 2 - 2 + ki * 2, iw = ow * 2 - 2 + kj * 2;
                            const bool in = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
                            const std::int64_t row = (ci * 3 + ki) * 3 + kj, col = oh * g.wo + ow;
                            QCOMPARE(convColumnSource(g, row, col),
                                     in ? (ci * g.h + ih) * g.w + iw : std::int64_t(-1));
                            // The gather of col2im finds the same column from the other side.
                            if (in) {
                                QCOMPARE(convTapColumn(g, ih, iw, ki, kj), col);
                                ++inside;
                            }
                        }
        QVERIFY(inside > 0);
        // A tap that lands between two strided windows reads nothing.
        QCOMPARE(convTapColumn(g, 1, 0, 0, 0), std::int64_t(-1));
    }

    void shapeProblemsAreNamed() {
        ConvShape g;
        g.n = 1;
        g.c = 6;
        g.h = g.w = 5;
        g.o = 4;
        g.k = 3;
        g.pad = 1;
        g.ho = g.wo = 5;
        QVERIFY(convShapeProblem(g) == nullptr);
        g.groups = 4;
        QVERIFY(convShapeProblem(g) != nullptr);
        QVERIFY(QString(convShapeProblem(g)).contains("groups"));
        g.groups = 2;
        g.dil = 2;  // 5 + 2 - 4 - 1 = 2: output 3, not 5
        QVERIFY(convShapeProblem(g) != nullptr);
        g.ho = g.wo = 3;
        QVERIFY(convShapeProblem(g) == nullptr);
    }
};

QTEST_GUILESS_MAIN(TestConvPlan)
#include "tst_conv_plan.moc"
