// Training settings: gradient accumulation (memory follows the micro-batch; the peak is the
// same for every accumulation count >= 2 and lower by at most the gradient bytes for 1; time is
// steps x micro-batch time + optimizer time) and bytes per parameter for every precision and
// optimizer (mixed precision with Adam: 2 + 2 + 4 + 4 + 4 = 16).
#include <QtTest/QtTest>

#include "sim_test_support.h"

using namespace remat;
using namespace remat::test;

namespace {

Built buildPreset(const char* preset, const std::string& strategy, TrainingConfig cfg) {
    auto m = loadModel(preset);
    if (!m) qFatal("%s", m.error().message.c_str());
    return build(modelToJson(*m), strategy, &cfg);
}

std::int64_t paramGradBytes(const Built& b) {
    std::int64_t sum = 0;
    for (const auto& buf : b.program.buffers)
        if (buf.role == BufferRole::ParamGrad) sum += buf.bytes.at(b.program.microBatch);
    return sum;
}

}  // namespace

class TestTrainingConfig : public QObject {
    Q_OBJECT

private slots:
    void accumulationPeak() {
        for (const char* preset : {"gpt2-tiny", "mlp-3x1024"})
            for (const char* strategy : {"none", "full"}) {
                TrainingConfig cfg;
                cfg.microBatch = 2;
                cfg.precision = Precision::Fp32;
                cfg.optimizer = Optimizer::AdamW;
                cfg.accumulationSteps = 1;
                Built one = buildPreset(preset, strategy, cfg);
                cfg.accumulationSteps = 2;
                Built two = buildPreset(preset, strategy, cfg);
                for (std::int64_t steps : {3, 4, 7}) {
                    cfg.accumulationSteps = steps;
                    Built more = buildPreset(preset, strategy, cfg);
                    QCOMPARE(more.timeline.peakBytes, two.timeline.peakBytes);
                    // Memory follows the micro-batch: the same saved activations.
                    QCOMPARE(more.timeline.savedActivationBytes, two.timeline.savedActivationBytes);
                }
                const std::int64_t diff = two.timeline.peakBytes - one.timeline.peakBytes;
                QVERIFY(diff >= 0);
                QVERIFY(diff <= paramGradBytes(two));
            }
    }

    void accumulationTime() {
        TrainingConfig cfg;
        cfg.microBatch = 3;
        cfg.optimizer = Optimizer::Adam;
        cfg.accumulationSteps = 1;
        Built one = buildPreset("gpt2-tiny", "sqrt", cfg);
        const double micro = one.timeline.timeS.forward + one.timeline.timeS.backward +
                             one.timeline.timeS.recompute;
        for (std::int64_t steps : {2, 5}) {
            cfg.accumulationSteps = steps;
            Built b = buildPreset("gpt2-tiny", "sqrt", cfg);
            const double expected = double(steps) * micro + one.timeline.timeS.optimizer;
            QVERIFY(std::abs(b.timeline.timeS.total() - expected) <= 1e-9 * expected);
            QCOMPARE(b.timeline.timeS.optimizer, one.timeline.timeS.optimizer);
            QCOMPARE(b.timeline.samplesPerStep, 3 * steps);
        }
    }

    void bytesPerParameter_data() {
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<int>("bytes");
        // parameters + gradients + optimizer state (master weights count as state).
        QTest::newRow("fp32 sgd") << int(Precision::Fp32) << int(Optimizer::Sgd) << 4 + 4;
        QTest::newRow("fp32 momentum") << int(Precision::Fp32) << int(Optimizer::Momentum) << 4 + 4 + 4;
        QTest::newRow("fp32 adam") << int(Precision::Fp32) << int(Optimizer::Adam) << 4 + 4 + 8;
        QTest::newRow("bf16 sgd") << int(Precision::MixedBf16) << int(Optimizer::Sgd) << 2 + 2 + 4;
        QTest::newRow("bf16 momentum") << int(Precision::MixedBf16) << int(Optimizer::Momentum) << 2 + 2 + 8;
        QTest::newRow("bf16 adam") << int(Precision::MixedBf16) << int(Optimizer::Adam) << 2 + 2 + 12;
        QTest::newRow("fp16 adamw") << int(Precision::MixedFp16) << int(Optimizer::AdamW) << 2 + 2 + 12;
    }
    void bytesPerParameter() {
        QFETCH(int, precision);
        QFETCH(int, optimizer);
        QFETCH(int, bytes);
        TrainingConfig cfg;
        cfg.microBatch = 1;
        cfg.precision = Precision(precision);
        cfg.optimizer = Optimizer(optimizer);
        Built b = buildPreset("gpt2-tiny", "none", cfg);
        // At the first optimizer instruction every gradient exists and nothing else but
        // parameters, optimizer state and the batch (token ids and targets, int64, which the
        // training loop holds through the step) is live.
        std::size_t first = 0;
        while (b.program.instructions[first].kind != InstrKind::OptimizerStep) ++first;
        const CategoryBytes& live = b.timeline.live[first];
        const std::int64_t model = live[std::size_t(Category::Parameters)] +
                                   live[std::size_t(Category::Gradients)] +
                                   live[std::size_t(Category::OptimizerState)];
        QCOMPARE(model, std::int64_t(bytes) * b.graph.parameterCount);
        const std::int64_t tokens = b.model.network.input.tokens;
        QCOMPARE(live[std::size_t(Category::Inputs)], 2 * tokens * 8);
        QCOMPARE(totalBytes(live), model + 2 * tokens * 8);
    }
};

QTEST_APPLESS_MAIN(TestTrainingConfig)
#include "tst_training_config.moc"
