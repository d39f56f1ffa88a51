// Sweeps (sim/sweep.h) against the growth laws they are for, derived here from the one-block
// figures and not from the sweep's own numbers at the size checked: without checkpointing the
// blocks' activations are N times one block's; with full checkpointing N block inputs plus one
// block recomputed; with sqrt(N) segments of k = sqrt(N) blocks, N/k inputs plus k blocks
// recomputed; activations are linear in the micro-batch. Also: the activation peak walked from
// the program equals the simulator's own categories, refused values and plans are points with
// their message, and the value lists and axes parse and refuse as documented.
#include <QtTest/QtTest>

#include "analysis.h"
#include "lower.h"
#include "model_file.h"
#include "sim_test_support.h"
#include "simulator.h"
#include "sweep.h"

using namespace remat;

namespace {

struct Setup {
    ModelFile model;
    DeviceSpec device;
};

Setup preset(const char* name) {
    auto m = loadModel(name);
    if (!m) qFatal("%s", m.error().message.c_str());
    auto d = findDevice(m->device.empty() ? "a100-80gb" : m->device);
    if (!d) qFatal("%s", d.error().message.c_str());
    return {*m, *d};
}

std::vector<Strategy> strategies(std::initializer_list<const char*> spellings) {
    std::vector<Strategy> out;
    for (const char* s : spellings) {
        auto p = parseStrategy(s);
        if (!p) qFatal("%s", p.error().message.c_str());
        out.push_back(*p);
    }
    return out;
}

const SweepPoint& at(const SweepResult& r, std::int64_t value, const std::string& strategy) {
    for (const SweepPoint& p : r.points)
        if (p.value == value && p.strategy == strategy) return p;
    qFatal("no point %lld %s", static_cast<long long>(value), strategy.c_str());
}

}  // namespace

class TstSweep : public QObject {
    Q_OBJECT
private slots:
    void depthFollowsTheGrowthLaws();
    void activationPeakMatchesTheSimulator();
    void batchIsLinear();
    void refusedValuesArePoints();
    void refusals();
    void values_data();
    void values();
};

void TstSweep::depthFollowsTheGrowthLaws() {
    const Setup s = preset("gpt2-small");
    auto r = sweep(s.model, s.model.training, s.device, SweepAxis::Depth, {1, 4, 16, 64},
                   strategies({"none", "full", "sqrt"}));
    QVERIFY2(r, r ? "" : r.error().message.c_str());
    QCOMPARE(r->sweptLayer, std::string("transformer_block"));
    QCOMPARE(r->points.size(), std::size_t(12));
    for (const SweepPoint& p : r->points) QVERIFY2(p.error.empty(), p.error.c_str());

    // One block's activations (a) and one block's kept input (x), from depth 1.
    const std::int64_t a = at(*r, 1, "none").blockActivationPeakBytes;
    const std::int64_t x = at(*r, 1, "full").blockActivationPeakBytes - a;
    QVERIFY(a > 0 && x > 0 && x < a);
    for (std::int64_t n : {4, 16, 64}) {
        QCOMPARE(at(*r, n, "none").blockActivationPeakBytes, n * a);
        QCOMPARE(at(*r, n, "full").blockActivationPeakBytes, n * x + a);
        const std::int64_t k = n == 4 ? 2 : n == 16 ? 4 : 8;  // sqrt(n) blocks per segment
        QCOMPARE(at(*r, n, "sqrt").blockActivationPeakBytes, (n / k) * x + k * a);
    }
    // The growth summary: 64x the blocks, 64x the activations without checkpointing, 8x with
    // sqrt(N) segments.
    QCOMPARE(r->growth.size(), std::size_t(3));
    QCOMPARE(r->growth[0].strategy, std::string("none"));
    QCOMPARE(r->growth[0].valueRatio, 64.0);
    QCOMPARE(r->growth[0].blockActivationRatio, 64.0);
    QCOMPARE(r->growth[2].blockActivationRatio, double(8 * x + 8 * a) / double(x + a));
    // Every plan recomputes something and keeps less.
    for (std::int64_t n : {4, 16, 64}) {
        QVERIFY(at(*r, n, "full").recomputeOverhead > 0.0);
        QVERIFY(at(*r, n, "sqrt").peakBytes < at(*r, n, "none").peakBytes);
        QCOMPARE(at(*r, n, "none").recomputeOverhead, 0.0);
    }
}

void TstSweep::activationPeakMatchesTheSimulator() {
    // The walk over the program's activation buffers equals the highest saved + recomputed
    // live bytes of the simulator's timeline, for plans with and without recompute.
    const Setup s = preset("gpt2-tiny");
    for (const char* spelling : {"none", "full", "every:2", "selective:attention_core"}) {
        auto r = sweep(s.model, s.model.training, s.device, SweepAxis::Depth, {3},
                       strategies({spelling}));
        QVERIFY(r);
        ModelFile m = s.model;
        for (Layer& l : m.network.layers)
            if (l.repeat > 1) l.repeat = 3;
        auto g = lower(m.network, m.training.precision);
        QVERIFY(g);
        auto e = evaluate(*g, *parseStrategy(spelling), {}, m.training, s.device);
        QVERIFY(e);
        std::int64_t peak = 0;
        for (const CategoryBytes& live : e->timeline.live)
            peak = std::max(peak, live[std::size_t(Category::SavedActivations)] +
                                      live[std::size_t(Category::RecomputedActivations)]);
        QCOMPARE(r->points.front().activationPeakBytes, peak);
        QCOMPARE(r->points.front().peakBytes, e->timeline.peakBytes);
        QVERIFY(r->points.front().blockActivationPeakBytes <= peak);
    }
}

void TstSweep::batchIsLinear() {
    const Setup s = preset("gpt2-tiny");
    auto r = sweep(s.model, s.model.training, s.device, SweepAxis::MicroBatch, {1, 3, 8},
                   strategies({"none", "full"}));
    QVERIFY(r);
    for (const char* st : {"none", "full"}) {
        const std::int64_t one = at(*r, 1, st).blockActivationPeakBytes;
        QCOMPARE(at(*r, 3, st).blockActivationPeakBytes, 3 * one);
        QCOMPARE(at(*r, 8, st).blockActivationPeakBytes, 8 * one);
        QCOMPARE(at(*r, 8, st).keptActivationBytes, 8 * at(*r, 1, st).keptActivationBytes);
    }
}

void TstSweep::refusedValuesArePoints() {
    // GPT-2 small has 1024 learned positions: a 2048-token sequence is refused at that value
    // only, with the lowering's message; the other values evaluate.
    const Setup s = preset("gpt2-small");
    auto r = sweep(s.model, s.model.training, s.device, SweepAxis::SequenceLength, {256, 2048},
                   strategies({"none", "full"}));
    QVERIFY(r);
    QVERIFY(at(*r, 256, "none").error.empty());
    QVERIFY(at(*r, 256, "none").peakBytes > 0);
    const std::string& why = at(*r, 2048, "full").error;
    QVERIFY2(why.find("position") != std::string::npos, why.c_str());
    QVERIFY(r->growth.empty());  // one value evaluated per strategy: no growth to state
    // A depth past the layer limit is a refused point too.
    auto deep = sweep(s.model, s.model.training, s.device, SweepAxis::Depth, {2, 5000},
                      strategies({"none"}));
    QVERIFY(deep);
    QVERIFY(at(*deep, 2, "none").error.empty());
    QVERIFY(at(*deep, 5000, "none").error.find("layer instances") != std::string::npos);
}

void TstSweep::refusals() {
    const Setup mlp = preset("mlp-3x1024");
    auto noRepeat = sweep(mlp.model, mlp.model.training, mlp.device, SweepAxis::Depth, {1, 2},
                          strategies({"none"}));
    QVERIFY(!noRepeat);
    QVERIFY(noRepeat.error().message.find("no repeated layer") != std::string::npos);
    auto noTokens = sweep(mlp.model, mlp.model.training, mlp.device, SweepAxis::SequenceLength,
                          {1, 2}, strategies({"none"}));
    QVERIFY(!noTokens);
    QVERIFY(noTokens.error().message.find("token model") != std::string::npos);
    const Setup gpt = preset("gpt2-tiny");
    auto manual = sweep(gpt.model, gpt.model.training, gpt.device, SweepAxis::Depth, {1},
                        {Strategy{StrategyKind::Manual, 0, {}}});
    QVERIFY(!manual);
    QVERIFY(manual.error().message.find("manual") != std::string::npos);
    QVERIFY(!parseSweepAxis("width"));
    QCOMPARE(*parseSweepAxis("seq"), SweepAxis::SequenceLength);
    QCOMPARE(*parseSweepAxis("micro-batch"), SweepAxis::MicroBatch);
    // Cancelling from the progress callback stops the sweep.
    int calls = 0;
    auto cancelled = sweep(gpt.model, gpt.model.training, gpt.device, SweepAxis::Depth, {1, 2, 3},
                           strategies({"none", "full"}), [&](int done, int total) {
                               ++calls;
                               return done < 2 && total == 6;
                           });
    QVERIFY(!cancelled);
    QCOMPARE(calls, 2);
}

void TstSweep::values_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<qint64>>("expected");  // empty: refused
    QTest::newRow("list") << "8,1,4,4" << QList<qint64>{1, 4, 8};
    QTest::newRow("range") << "4..7" << QList<qint64>{4, 5, 6, 7};
    QTest::newRow("range with step") << "1..8:3" << QList<qint64>{1, 4, 7};
    QTest::newRow("one") << "12" << QList<qint64>{12};
    QTest::newRow("zero") << "0,1" << QList<qint64>{};
    QTest::newRow("negative") << "-3" << QList<qint64>{};
    QTest::newRow("word") << "a,b" << QList<qint64>{};
    QTest::newRow("empty item") << "1,,2" << QList<qint64>{};
    QTest::newRow("empty range") << "8..4" << QList<qint64>{};
    QTest::newRow("too many") << "1..65" << QList<qint64>{};
    QTest::newRow("zero step") << "1..4:0" << QList<qint64>{};
    QTest::newRow("overflow") << "99999999999999999999" << QList<qint64>{};
}

void TstSweep::values() {
    QFETCH(QString, text);
    QFETCH(QList<qint64>, expected);
    auto v = parseSweepValues(text.toStdString());
    if (expected.isEmpty()) {
        QVERIFY(!v);
        QVERIFY(v.error().message.rfind("sweep values", 0) == 0);
        return;
    }
    QVERIFY2(v, v ? "" : v.error().message.c_str());
    QCOMPARE(QList<qint64>(v->begin(), v->end()), expected);
}

QTEST_MAIN(TstSweep)
#include "tst_sweep.moc"
