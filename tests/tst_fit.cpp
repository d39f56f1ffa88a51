// `fit`: the search answers for every preset, and for GPT-3 175B on 8 x A100 80GB it says no
// in the terms of model states (16 B x 174.6e9 = 2.79 TB against 8 x 80 GiB), with the reason
// the offload plan does not help there either; on enough GPUs it finds plans that fit, best
// throughput first. The search shares lowered stages, compiled programs and op times across
// candidates; it answers exactly what evaluating every candidate on its own does.
#include <QtTest/QtTest>

#include "fit.h"
#include "model_file.h"

using namespace remat;

class TestFit : public QObject {
    Q_OBJECT

private slots:
    void gpt3On8A100IsNo() {
        auto m = loadModel("gpt3-175b");
        QVERIFY(m.ok());
        FitOptions o;
        o.gpus = 8;
        o.globalBatch = 1536;
        o.searchMinGpus = false;
        auto r = fitSearch(m->network, m->training, *findCluster("dgx-a100-80gb"), o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QVERIFY(!r->fits);
        QVERIFY(r->candidates.empty());
        const QString why = QString::fromStdString(r->modelStatesMessage);
        QVERIFY2(why.contains("16 B x 1.746e+11 parameters = 2.79 TB"), qPrintable(why));
        QVERIFY2(why.contains("8 x 79.00 GiB usable"), qPrintable(why));
        QVERIFY(!r->offloadFits);
        QVERIFY2(QString::fromStdString(r->offloadMessage).contains("host memory"),
                 r->offloadMessage.c_str());
        QVERIFY(!r->rejected.empty());
    }

    // The shared search against the reference (every candidate evaluated whole): the same
    // candidates in the same order with the same figures, the same rejections and counts, on
    // layouts with pipelines (the in-flight band), every ZeRO stage and the smallest-count and
    // offload searches of a model that does not fit.
    void sharedSearchEqualsReference_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<qint64>("globalBatch");
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<qint64>("gpuBytes");  // 0: the cluster's GPU as it is
        QTest::newRow("gpt2-small x 16")
            << "gpt2-small" << qint64(16) << qint64(64) << "dgx-a100-80gb" << true << qint64(0);
        // A 512 MiB GPU: ZeRO-1 does not fit where ZeRO-3 does, and whole layout families are
        // rejected with their reasons.
        QTest::newRow("gpt2-small x 16, small GPUs")
            << "gpt2-small" << qint64(16) << qint64(64) << "dgx-a100-80gb" << true
            << (qint64(1) << 29);
        QTest::newRow("gpt2-tiny x 8") << "gpt2-tiny" << qint64(8) << qint64(0) << "dgx-a100-40gb"
                                       << true << qint64(0);
        QTest::newRow("mlp x 4") << "mlp-3x1024" << qint64(4) << qint64(0) << "dgx-a100-80gb"
                                 << true << qint64(0);
        // Does not fit on one 40 GB GPU: the smallest count and the offload plan are searched too.
        QTest::newRow("llama-7b x 1") << "llama-7b" << qint64(1) << qint64(0) << "dgx-a100-40gb"
                                      << false << qint64(0);
    }
    void sharedSearchEqualsReference() {
        QFETCH(QString, model);
        QFETCH(qint64, gpus);
        QFETCH(qint64, globalBatch);
        QFETCH(QString, cluster);
        QFETCH(bool, fits);
        QFETCH(qint64, gpuBytes);
        auto m = loadModel(model.toStdString());
        QVERIFY(m.ok());
        auto c = findCluster(cluster.toStdString());
        QVERIFY(c.ok());
        if (gpuBytes > 0) c->device.memoryBytes = c->device.reserveBytes + gpuBytes;
        FitOptions o;
        o.gpus = gpus;
        o.globalBatch = globalBatch;
        o.top = 1000;
        auto fast = fitSearch(m->network, m->training, *c, o);
        o.reference = true;
        auto full = fitSearch(m->network, m->training, *c, o);
        QVERIFY2(fast.ok(), fast.ok() ? "" : fast.error().message.c_str());
        QVERIFY2(full.ok(), full.ok() ? "" : full.error().message.c_str());
        QVERIFY(full->evaluated > 0);
        QCOMPARE(full->fits, fits);
        if (!fits) QVERIFY(full->minGpus > 0);
        if (gpuBytes > 0) QVERIFY(!full->rejected.empty());
        QCOMPARE(fast->evaluated, full->evaluated);
        QCOMPARE(fast->fits, full->fits);
        QCOMPARE(fast->rejected, full->rejected);
        QCOMPARE(fast->modelStatesMessage, full->modelStatesMessage);
        QCOMPARE(fast->minGpus, full->minGpus);
        QCOMPARE(fast->offloadFits, full->offloadFits);
        QCOMPARE(fast->offloadMessage, full->offloadMessage);
        auto same = [](const FitCandidate& a, const FitCandidate& b) {
            return a.layout == b.layout && a.strategy.spelling() == b.strategy.spelling() &&
                   a.microBatch == b.microBatch && a.accumulation == b.accumulation &&
                   a.peakBytes == b.peakBytes && a.stepTimeS == b.stepTimeS && a.mfu == b.mfu &&
                   a.samplesPerS == b.samplesPerS && a.hostBytesPerNode == b.hostBytesPerNode;
        };
        QCOMPARE(fast->candidates.size(), full->candidates.size());
        for (std::size_t i = 0; i < full->candidates.size(); ++i)
            QVERIFY2(same(fast->candidates[i], full->candidates[i]),
                     qPrintable(QString("candidate %1: %2 x %3, peak %4 vs %5, step %6 vs %7")
                                    .arg(i)
                                    .arg(full->candidates[i].microBatch)
                                    .arg(full->candidates[i].accumulation)
                                    .arg(fast->candidates[i].peakBytes)
                                    .arg(full->candidates[i].peakBytes)
                                    .arg(fast->candidates[i].stepTimeS, 0, 'g', 17)
                                    .arg(full->candidates[i].stepTimeS, 0, 'g', 17)));
        if (full->minGpus > 0) QVERIFY(same(fast->minGpusPlan, full->minGpusPlan));
        if (full->offloadFits) QVERIFY(same(fast->offloadPlan, full->offloadPlan));
    }

    void everyPresetGetsAnAnswer() {
        for (const std::string name :
             {"gpt2-tiny", "gpt2-small", "mlp-3x1024", "resnet-101", "llama-7b"}) {
            auto m = loadModel(name);
            QVERIFY(m.ok());
            FitOptions o;
            o.gpus = 8;
            o.searchMinGpus = false;
            auto r = fitSearch(m->network, m->training, *findCluster("dgx-a100-80gb"), o);
            QVERIFY2(r.ok(), r.ok() ? "" : (name + ": " + r.error().message).c_str());
            QVERIFY2(r->fits, name.c_str());
            QVERIFY(r->evaluated > 0);
            QCOMPARE(r->globalBatch, m->training.microBatch * m->training.accumulationSteps * 8);
            for (std::size_t i = 0; i < r->candidates.size(); ++i) {
                const FitCandidate& c = r->candidates[i];
                QCOMPARE(c.layout.gpus(), std::int64_t(8));
                QCOMPARE(c.microBatch * c.accumulation * c.layout.dp, r->globalBatch);
                QVERIFY(c.peakBytes <= findCluster("dgx-a100-80gb")->device.usableBytes());
                if (i > 0) QVERIFY(c.samplesPerS <= r->candidates[i - 1].samplesPerS);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestFit)
#include "tst_fit.moc"
