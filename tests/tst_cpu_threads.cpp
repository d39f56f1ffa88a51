// The CPU backend's threads change no bit: every op, forward and backward, and the optimizer
// step give byte-identical results with 1, 2, 3 and 8 threads, on shapes chosen to cut work
// unevenly (odd sizes, GEMMs that are not a multiple of the tile, row and column chunks with
// a short tail, attention heads sharing a KV head, convolutions over several GEMM tiles,
// batch norm and pooling over many channels and planes), in fp32 and bf16; the tiled parallel
// GEMM equals itself across thread counts for every transpose combination; and the thread
// pool runs every task exactly once and reports the first failing task's exception. The
// whole-model check (1 vs 3 threads under several plans) is in tst_cpu_executor.
#include <QtTest>
#include <atomic>
#include <cstring>
#include <random>
#include <stdexcept>

#include "cpu/cpu_backend.h"
#include "cpu/gemm.h"
#include "cpu/thread_pool.h"

using namespace remat;

namespace {

constexpr int kThreadCounts[] = {1, 2, 3, 8};

struct HostTensor {
    DType dtype = DType::F32;
    Shape shape;
    std::vector<std::uint8_t> bytes;

    HostTensor() = default;
    HostTensor(DType t, Shape s) : dtype(t), shape(std::move(s)) {
        bytes.assign(std::size_t(elements() * dtypeBytes(dtype)), 0);
    }
    std::int64_t elements() const {
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
    TensorRef ref() { return TensorRef{bytes.data(), dtype, shape}; }
};

HostTensor randomTensor(DType t, Shape s, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
    HostTensor h(t, std::move(s));
    std::uniform_real_distribution<float> d(lo, hi);
    for (std::int64_t i = 0; i < h.elements(); ++i) cpu::storeElement(h.ref(), i, d(rng));
    return h;
}

HostTensor ids(Shape s, std::int64_t classes, std::mt19937& rng) {
    HostTensor h(DType::I64, std::move(s));
    std::uniform_int_distribution<std::int64_t> d(0, classes - 1);
    auto* p = reinterpret_cast<std::int64_t*>(h.bytes.data());
    for (std::int64_t i = 0; i < h.elements(); ++i) p[i] = d(rng);
    return h;
}

// One op with all its operands: forward inputs, outputs and parameters, what backward reads
// (saved: indices into inputs, or outputs when >= 100) and which gradients exist.
struct Case {
    std::string name;
    Op op;
    std::int64_t microBatch = 1;
    std::vector<HostTensor> inputs, outputs, params;
    std::vector<int> saved;
    std::vector<bool> inputGrad, outputGrad;
};

// Everything an op wrote, forward then backward, as bytes.
std::vector<std::vector<std::uint8_t>> runCase(Case k, int threads) {
    CpuBackend backend(threads);
    if (backend.threads() != threads) qFatal("asked for %d threads, got %d", threads, backend.threads());
    if (auto st = backend.beginStep(0); !st) qFatal("%s", st.error().message.c_str());
    std::vector<std::vector<std::uint8_t>> written;
    OpCall f;
    f.op = &k.op;
    f.opId = OpId(9);
    f.microBatch = k.microBatch;
    f.seed = 5;
    f.rngDraw = 1;
    for (auto& t : k.inputs) f.inputs.push_back(t.ref());
    for (auto& t : k.outputs) f.outputs.push_back(t.ref());
    for (auto& t : k.params) f.params.push_back(t.ref());
    if (auto st = runOp(backend, f, false); !st)
        qFatal("%s forward: %s", k.name.c_str(), st.error().message.c_str());
    for (auto& t : k.outputs) written.push_back(t.bytes);

    std::mt19937 rng(77);
    OpCall b;
    b.op = &k.op;
    b.opId = OpId(9);
    b.microBatch = k.microBatch;
    b.seed = 5;
    b.rngDraw = 1;
    b.lossGradScale = 0.5f;
    for (int s : k.saved) b.saved.push_back(s >= 100 ? k.outputs[std::size_t(s - 100)].ref()
                                                     : k.inputs[std::size_t(s)].ref());
    for (auto& t : k.params) b.params.push_back(t.ref());
    std::vector<HostTensor> grads;
    grads.reserve(k.outputs.size() + k.inputs.size() + k.params.size());
    for (std::size_t i = 0; i < k.outputs.size(); ++i) {
        if (!k.outputGrad[i]) {
            b.gradOutputs.emplace_back();
            continue;
        }
        grads.push_back(randomTensor(k.outputs[i].dtype, k.outputs[i].shape, rng));
        b.gradOutputs.push_back(grads.back().ref());
    }
    // Gradients start non-zero: backward accumulates.
    for (std::size_t i = 0; i < k.inputs.size(); ++i) {
        if (!k.inputGrad[i]) {
            b.gradInputs.emplace_back();
            continue;
        }
        grads.push_back(randomTensor(k.inputs[i].dtype, k.inputs[i].shape, rng));
        b.gradInputs.push_back(grads.back().ref());
    }
    for (auto& p : k.params) {
        grads.push_back(randomTensor(p.dtype, p.shape, rng));
        b.paramGrads.push_back(grads.back().ref());
    }
    if (auto st = runOp(backend, b, true); !st)
        qFatal("%s backward: %s", k.name.c_str(), st.error().message.c_str());
    for (auto& g : grads) written.push_back(g.bytes);
    if (auto st = backend.endStep(); !st) qFatal("%s", st.error().message.c_str());
    return written;
}

OpAttrs attention(std::int64_t tokens, std::int64_t heads, std::int64_t kvHeads, std::int64_t dim) {
    OpAttrs a;
    a.tokens = tokens;
    a.heads = heads;
    a.kvHeads = kvHeads;
    a.headDim = dim;
    a.causal = true;
    return a;
}

// Shapes that cut unevenly: GEMMs of 526 x 517 x 300 (three by three tiles of 256, short
// edges), element counts a little over two chunks of 16384, rows of 129 and 200 elements
// (chunks of 127 and 81 rows), columns in chunks of 64 with a tail.
std::vector<Case> cases(DType dt) {
    std::mt19937 rng(2024);
    std::vector<Case> out;
    auto add = [&](Case c) {
        if (c.inputGrad.empty()) c.inputGrad.assign(c.inputs.size(), true);
        if (c.outputGrad.empty()) c.outputGrad.assign(c.outputs.size(), false), c.outputGrad[0] = true;
        out.push_back(std::move(c));
    };
    for (bool bias : {true, false}) {
        Case c;
        c.name = bias ? "linear" : "linear_nobias";
        c.op.kind = OpKind::Linear;
        c.op.attrs.in = 300;
        c.op.attrs.out = 517;
        c.microBatch = 2;
        c.inputs.push_back(randomTensor(dt, {2, 263, 300}, rng));
        c.outputs.emplace_back(dt, Shape{2, 263, 517});
        c.params.push_back(randomTensor(dt, {517, 300}, rng, -0.06f, 0.06f));
        if (bias) c.params.push_back(randomTensor(dt, {517}, rng));
        c.saved = {0};
        add(std::move(c));
    }
    const Shape wide{3, 10965};  // 32895 elements: two chunks and a tail of 127
    for (OpKind kind : {OpKind::Relu, OpKind::Gelu, OpKind::Silu, OpKind::Tanh, OpKind::Sigmoid}) {
        Case c;
        c.name = std::string(opKindName(kind));
        c.op.kind = kind;
        c.inputs.push_back(randomTensor(dt, wide, rng, -3.0f, 3.0f));
        c.outputs.emplace_back(dt, wide);
        const bool savesOutput = kind == OpKind::Relu || kind == OpKind::Tanh || kind == OpKind::Sigmoid;
        c.saved = {savesOutput ? 100 : 0};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "softmax";
        c.op.kind = OpKind::Softmax;
        c.inputs.push_back(randomTensor(dt, {300, 129}, rng, -4.0f, 4.0f));
        c.outputs.emplace_back(dt, Shape{300, 129});
        c.saved = {100};
        add(std::move(c));
    }
    for (OpKind kind : {OpKind::LayerNorm, OpKind::RmsNorm}) {
        Case c;
        c.name = std::string(opKindName(kind));
        c.op.kind = kind;
        c.op.attrs.in = 200;
        c.inputs.push_back(randomTensor(dt, {3, 101, 200}, rng, -2.0f, 2.0f));
        c.outputs.emplace_back(dt, Shape{3, 101, 200});
        c.outputs.emplace_back(DType::F32, Shape{3, 101});
        if (kind == OpKind::LayerNorm) c.outputs.emplace_back(DType::F32, Shape{3, 101});
        c.params.push_back(randomTensor(dt, {200}, rng, 0.5f, 1.5f));
        if (kind == OpKind::LayerNorm) c.params.push_back(randomTensor(dt, {200}, rng));
        c.saved = kind == OpKind::LayerNorm ? std::vector<int>{0, 101, 102} : std::vector<int>{0, 101};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "dropout";
        c.op.kind = OpKind::Dropout;
        c.op.attrs.p = 0.3;
        c.inputs.push_back(randomTensor(dt, wide, rng));
        c.outputs.emplace_back(dt, wide);
        c.outputs.emplace_back(DType::U8, wide);
        c.saved = {101};
        add(std::move(c));
    }
    for (OpKind kind : {OpKind::Mul, OpKind::Add}) {
        Case c;
        c.name = std::string(opKindName(kind));
        c.op.kind = kind;
        c.inputs.push_back(randomTensor(dt, wide, rng));
        c.inputs.push_back(randomTensor(dt, wide, rng));
        c.outputs.emplace_back(dt, wide);
        if (kind == OpKind::Mul) c.saved = {0, 1};
        add(std::move(c));
    }
    for (bool positions : {true, false}) {
        Case c;
        c.name = positions ? "embedding" : "embedding_nopos";
        c.op.kind = OpKind::Embedding;
        c.op.attrs.vocab = 50;  // 2 x 150 tokens over 50 ids: every row repeats
        c.op.attrs.positions = positions ? 150 : 0;
        c.op.attrs.tokens = 150;
        c.op.attrs.out = 130;
        c.microBatch = 2;
        c.inputs.push_back(ids({2, 150}, 50, rng));
        c.inputGrad = {false};
        c.outputs.emplace_back(dt, Shape{2, 150, 130});
        c.params.push_back(randomTensor(dt, {50, 130}, rng));
        if (positions) c.params.push_back(randomTensor(dt, {150, 130}, rng));
        c.saved = {0};
        add(std::move(c));
    }
    // Attention: 3 samples, 37 tokens, 4 query heads over 2 KV heads of size 5.
    const OpAttrs gqa = attention(37, 4, 2, 5);
    const std::int64_t qkvWidth = (4 + 2 * 2) * 5;
    for (bool expanded : {false, true}) {
        Case c;
        c.name = expanded ? "attention_scores_expanded" : "attention_scores";
        c.op.kind = OpKind::AttnScores;
        c.op.attrs = gqa;
        c.microBatch = 3;
        c.inputs.push_back(randomTensor(dt, {3, 37, qkvWidth}, rng));
        if (expanded) c.inputs.push_back(randomTensor(dt, {3, 4, 37, 5}, rng));
        c.outputs.emplace_back(dt, Shape{3, 4, 37, 37});
        c.saved = expanded ? std::vector<int>{0, 1} : std::vector<int>{0};
        add(std::move(c));
    }
    for (bool expanded : {false, true}) {
        Case c;
        c.name = expanded ? "attention_context_expanded" : "attention_context";
        c.op.kind = OpKind::AttnContext;
        c.op.attrs = gqa;
        c.microBatch = 3;
        c.inputs.push_back(randomTensor(dt, {3, 4, 37, 37}, rng, 0.0f, 0.1f));
        if (expanded) c.inputs.push_back(randomTensor(dt, {3, 4, 37, 5}, rng));
        else c.inputs.push_back(randomTensor(dt, {3, 37, qkvWidth}, rng));
        c.outputs.emplace_back(dt, Shape{3, 37, 20});
        c.saved = {0, 1};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "expand_kv";
        c.op.kind = OpKind::ExpandKv;
        c.op.attrs = gqa;
        c.microBatch = 3;
        c.inputs.push_back(randomTensor(dt, {3, 37, qkvWidth}, rng));
        c.outputs.emplace_back(dt, Shape{3, 4, 37, 5});
        c.outputs.emplace_back(dt, Shape{3, 4, 37, 5});
        c.outputGrad = {true, true};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "cross_entropy";
        c.op.kind = OpKind::CrossEntropy;
        c.op.attrs.vocab = 130;
        c.microBatch = 3;
        c.inputs.push_back(randomTensor(dt, {3, 100, 130}, rng, -3.0f, 3.0f));
        c.inputs.push_back(ids({3, 100}, 130, rng));
        c.inputGrad = {true, false};
        c.outputs.emplace_back(DType::F32, Shape{});
        c.outputs.emplace_back(DType::F32, Shape{3, 100, 130});
        c.outputGrad = {false, false};
        c.saved = {101, 1};
        add(std::move(c));
    }
    {
        // 300 output channels and 19 x 15 positions: GEMMs of two by two tiles with short
        // edges; 5 x 3 x 3 column rows in chunks.
        Case c;
        c.name = "conv2d";
        c.op.kind = OpKind::Conv2d;
        c.op.attrs.in = 5;
        c.op.attrs.out = 300;
        c.op.attrs.kernel = 3;
        c.op.attrs.stride = 2;
        c.op.attrs.padding = 1;
        c.op.attrs.bias = true;
        c.microBatch = 2;
        c.inputs.push_back(randomTensor(dt, {2, 5, 37, 29}, rng));
        c.outputs.emplace_back(dt, Shape{2, 300, 19, 15});
        c.params.push_back(randomTensor(dt, {300, 5, 3, 3}, rng, -0.2f, 0.2f));
        c.params.push_back(randomTensor(dt, {300}, rng));
        c.saved = {0};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "batchnorm2d";
        c.op.kind = OpKind::BatchNorm2d;
        c.op.attrs.in = 70;
        c.microBatch = 3;
        c.inputs.push_back(randomTensor(dt, {3, 70, 11, 13}, rng, -2.0f, 2.0f));
        c.outputs.emplace_back(dt, Shape{3, 70, 11, 13});
        c.outputs.emplace_back(DType::F32, Shape{70});
        c.outputs.emplace_back(DType::F32, Shape{70});
        c.params.push_back(randomTensor(dt, {70}, rng, 0.5f, 1.5f));
        c.params.push_back(randomTensor(dt, {70}, rng));
        c.saved = {0, 101, 102};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "maxpool2d";
        c.op.kind = OpKind::MaxPool2d;
        c.op.attrs.kernel = 3;
        c.op.attrs.stride = 2;
        c.op.attrs.padding = 1;
        c.microBatch = 2;
        c.inputs.push_back(randomTensor(dt, {2, 3, 33, 31}, rng));
        c.outputs.emplace_back(dt, Shape{2, 3, 17, 16});
        c.outputs.emplace_back(DType::I64, Shape{2, 3, 17, 16});
        c.outputGrad = {true, false};
        c.saved = {0, 101};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "global_avg_pool";
        c.op.kind = OpKind::GlobalAvgPool;
        c.microBatch = 3;
        c.inputs.push_back(randomTensor(dt, {3, 40, 7, 9}, rng));
        c.outputs.emplace_back(dt, Shape{3, 40, 1, 1});
        c.saved = {0};
        add(std::move(c));
    }
    {
        Case c;
        c.name = "mse";
        c.op.kind = OpKind::Mse;
        c.inputs.push_back(randomTensor(dt, wide, rng));
        c.inputs.push_back(randomTensor(dt, wide, rng));
        c.inputGrad = {true, false};
        c.outputs.emplace_back(DType::F32, Shape{});
        c.outputGrad = {false};
        c.saved = {0, 1};
        add(std::move(c));
    }
    return out;
}

std::vector<std::uint8_t> optimizerRun(Optimizer opt, DType dt, int threads) {
    constexpr std::int64_t n = 40000;
    std::mt19937 rng(31);
    HostTensor w = randomTensor(dt, {n}, rng), g = randomTensor(dt, {n}, rng);
    HostTensor master = randomTensor(DType::F32, {n}, rng);
    HostTensor m1 = randomTensor(DType::F32, {n}, rng, -0.1f, 0.1f);
    HostTensor m2 = randomTensor(DType::F32, {n}, rng, 0.0f, 0.01f);
    OptimizerCall c;
    c.optimizer = opt;
    c.param = w.ref();
    c.grad = g.ref();
    if (dt != DType::F32) c.master = master.ref();
    if (opt != Optimizer::Sgd) c.state1 = m1.ref();
    if (opt == Optimizer::Adam || opt == Optimizer::AdamW) c.state2 = m2.ref();
    c.step = 2;
    CpuBackend backend(threads);
    if (auto st = backend.optimizerStep(c); !st) qFatal("%s", st.error().message.c_str());
    std::vector<std::uint8_t> all = w.bytes;
    for (const HostTensor* t : {&master, &m1, &m2}) all.insert(all.end(), t->bytes.begin(), t->bytes.end());
    return all;
}

}  // namespace

class TestCpuThreads : public QObject {
    Q_OBJECT

private slots:
    void poolRunsEveryTaskOnce();
    void poolRethrowsTheFirstFailure();
    void threadCountFromEnvironment();
    void gemmTilesGiveSameBitsAnyThreadCount();
    void everyOpSameBitsAnyThreadCount_data();
    void everyOpSameBitsAnyThreadCount();
    void optimizerSameBitsAnyThreadCount();
};

void TestCpuThreads::poolRunsEveryTaskOnce() {
    for (int threads : kThreadCounts) {
        cpu::ThreadPool pool(threads);
        QCOMPARE(pool.threads(), threads);
        for (std::int64_t tasks : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{7}, std::int64_t{1000}}) {
            std::vector<std::atomic<int>> hits(static_cast<std::size_t>(tasks));
            pool.run(tasks, [&](std::int64_t i) { hits[std::size_t(i)].fetch_add(1); });
            for (auto& h : hits) QCOMPARE(h.load(), 1);
        }
        // Chunks cover the range exactly, cut the same way for every thread count.
        std::vector<std::int64_t> cover(50001, 0);
        std::vector<std::pair<std::int64_t, std::int64_t>> chunks(4);
        cpu::forEachChunk(pool, 50001, 16384, [&](std::int64_t b, std::int64_t e) {
            chunks[std::size_t(b / 16384)] = {b, e};
            for (std::int64_t i = b; i < e; ++i) ++cover[std::size_t(i)];
        });
        for (auto c : cover) QCOMPARE(c, std::int64_t(1));
        QCOMPARE(chunks[3], (std::pair<std::int64_t, std::int64_t>{49152, 50001}));
    }
}

void TestCpuThreads::poolRethrowsTheFirstFailure() {
    for (int threads : kThreadCounts) {
        cpu::ThreadPool pool(threads);
        std::atomic<int> ran{0};
        try {
            pool.run(40, [&](std::int64_t i) {
                ran.fetch_add(1);
                if (i == 11 || i == 29) throw std::runtime_error("task " + std::to_string(i));
            });
            QFAIL("no exception");
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()), std::string("task 11"));
        }
        QCOMPARE(ran.load(), 40);
        // The pool is usable afterwards.
        std::atomic<int> again{0};
        pool.run(5, [&](std::int64_t) { again.fetch_add(1); });
        QCOMPARE(again.load(), 5);
    }
}

void TestCpuThreads::threadCountFromEnvironment() {
    const QByteArray old = qgetenv("REMAT_CPU_THREADS");
    qputenv("REMAT_CPU_THREADS", "3");
    QCOMPARE(cpu::defaultThreadCount(), 3);
    QCOMPARE(CpuBackend().threads(), 3);
    qputenv("REMAT_CPU_THREADS", "zero");  // not a number: the cores this process may use
    QVERIFY(cpu::defaultThreadCount() >= 1);
    QVERIFY(cpu::defaultThreadCount() <= std::max(1, int(std::thread::hardware_concurrency())));
    qputenv("REMAT_CPU_THREADS", "0");  // out of range: the same
    const int cores = cpu::defaultThreadCount();
    qputenv("REMAT_CPU_THREADS", "1000");
    QCOMPARE(cpu::defaultThreadCount(), cores);
    if (old.isNull()) qunsetenv("REMAT_CPU_THREADS");
    else qputenv("REMAT_CPU_THREADS", old);
    QVERIFY(CpuBackend(5).deviceName().find("5 threads") != std::string::npos);
}

void TestCpuThreads::gemmTilesGiveSameBitsAnyThreadCount() {
    QVERIFY(cpu::prepareGemm(8).ok());
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    struct Shape3 {
        std::int64_t m, n, k;
    };
    // Tile-aligned, one short edge, both short edges, a thin and a tall product.
    const Shape3 shapes[] = {{512, 512, 64}, {300, 517, 129}, {263, 777, 300}, {7, 1100, 96},
                             {1029, 33, 70}};
    int blockedEqualsWhole = 0, total = 0;
    for (const Shape3& s : shapes)
        for (cpu::Transpose ta : {cpu::Transpose::No, cpu::Transpose::Yes})
            for (cpu::Transpose tb : {cpu::Transpose::No, cpu::Transpose::Yes}) {
                const bool transA = ta == cpu::Transpose::Yes, transB = tb == cpu::Transpose::Yes;
                std::vector<float> a(std::size_t(s.m * s.k)), b(std::size_t(s.k * s.n)),
                    c0(std::size_t(s.m * s.n));
                for (auto& v : a) v = d(rng);
                for (auto& v : b) v = d(rng);
                for (auto& v : c0) v = d(rng);
                const std::int64_t lda = transA ? s.m : s.k, ldb = transB ? s.k : s.n;
                std::vector<float> first;
                for (int threads : kThreadCounts) {
                    cpu::ThreadPool pool(threads);
                    std::vector<float> c = c0;  // beta = 1: accumulates into C
                    cpu::parallelSgemm(pool, ta, tb, s.m, s.n, s.k, 0.75f, a.data(), lda,
                                       b.data(), ldb, 1.0f, c.data(), s.n);
                    if (first.empty()) first = c;
                    else if (std::memcmp(first.data(), c.data(), c.size() * 4) != 0)
                        QFAIL(qPrintable(QString("%1x%2x%3 (%4%5): %6 threads differ from 1")
                                             .arg(s.m).arg(s.n).arg(s.k)
                                             .arg(transA ? "T" : "N").arg(transB ? "T" : "N")
                                             .arg(threads)));
                }
                // The tiles against one call over the whole of C: reported, not required —
                // the thread count cannot change the tiles, whatever the library's kernels do.
                std::vector<float> whole = c0;
                cpu::sgemm(ta, tb, s.m, s.n, s.k, 0.75f, a.data(), lda, b.data(), ldb, 1.0f,
                           whole.data(), s.n);
                ++total;
                blockedEqualsWhole += std::memcmp(first.data(), whole.data(), whole.size() * 4) == 0;
            }
    qInfo("tiled GEMM bitwise equal to one whole call in %d of %d shapes and transposes",
          blockedEqualsWhole, total);
}

void TestCpuThreads::everyOpSameBitsAnyThreadCount_data() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("fp32") << int(DType::F32);
    QTest::newRow("bf16") << int(DType::BF16);
}

void TestCpuThreads::everyOpSameBitsAnyThreadCount() {
    QFETCH(int, dtype);
    for (const Case& k : cases(DType(dtype))) {
        const auto reference = runCase(k, 1);
        for (int threads : kThreadCounts) {
            if (threads == 1) continue;
            const auto got = runCase(k, threads);
            QCOMPARE(got.size(), reference.size());
            for (std::size_t t = 0; t < got.size(); ++t)
                if (got[t] != reference[t])
                    QFAIL(qPrintable(QString("%1: tensor %2 (outputs first, then gradients) "
                                             "differs with %3 threads")
                                         .arg(QString::fromStdString(k.name)).arg(t).arg(threads)));
        }
    }
}

void TestCpuThreads::optimizerSameBitsAnyThreadCount() {
    for (DType dt : {DType::F32, DType::BF16, DType::F16})
        for (Optimizer opt : {Optimizer::Sgd, Optimizer::Momentum, Optimizer::Adam, Optimizer::AdamW}) {
            const auto reference = optimizerRun(opt, dt, 1);
            for (int threads : kThreadCounts)
                QVERIFY2(optimizerRun(opt, dt, threads) == reference,
                         qPrintable(QString("%1, %2 threads")
                                        .arg(QString::fromLatin1(optimizerName(opt).data()))
                                        .arg(threads)));
        }
}

QTEST_GUILESS_MAIN(TestCpuThreads)
#include "tst_cpu_threads.moc"
