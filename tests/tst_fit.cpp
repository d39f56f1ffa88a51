// `fit`: the search answers for every preset, and for GPT-3 175B on 8 x A100 80GB it says no
// in the terms of model states (16 B x 174.6e9 = 2.79 TB against 8 x 80 GiB), with the reason
// the offload plan does not help there either; on enough GPUs it finds plans that fit, best
// throughput first.
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
