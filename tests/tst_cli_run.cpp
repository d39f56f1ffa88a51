// `remat run` as a user calls it: the JSON keys of DESIGN §6 with the measurement beside the
// prediction, the refusals (no GPU, unsafe program, op out of scope, a CPU run estimated too
// long) with their messages and exit codes, and --allow-unsafe showing the damage.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class TestCliRun : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void jsonHasPredictionAndMeasurement();
    void textShowsBothColumns();
    void cudaWithoutGpuIsExitCode2();
    void unsafeProgramRefusedUnlessAllowed();
    void opOutOfScopeRefusedByName();
    void longCpuRunRefusedWithEstimate();

private:
    struct Output {
        int exitCode = -1;
        QByteArray out, err;
    };
    Output run(const QStringList& args);
    QString writeModel(const char* name, const char* json);

    QTemporaryDir m_dir;
};

TestCliRun::Output TestCliRun::run(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(REMAT_CLI_PATH), args);
    if (!p.waitForFinished(120000)) qFatal("remat did not finish");
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QString TestCliRun::writeModel(const char* name, const char* json) {
    const QString path = m_dir.filePath(QString::fromLatin1(name) + ".json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(json);
    return path;
}

void TestCliRun::initTestCase() { QVERIFY(m_dir.isValid()); }

void TestCliRun::jsonHasPredictionAndMeasurement() {
    const Output o = run({"run", "gpt2-tiny", "--backend", "cpu", "--strategy", "sqrt",
                          "--micro-batch", "2", "--json"});
    QVERIFY2(o.exitCode == 0, o.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(o.out).object();
    // Everything `simulate --json` prints ...
    for (const char* key : {"peak_bytes", "peak_instruction", "breakdown_at_peak",
                            "saved_activation_bytes", "flops", "time_s", "recompute_overhead"})
        QVERIFY2(j.contains(key), key);
    // ... and the measurement.
    const QJsonObject m = j["measured"].toObject();
    QCOMPARE(m["peak_bytes"].toInteger(), j["peak_bytes"].toInteger());
    QVERIFY(m["device_peak_bytes"].toInteger() >= m["peak_bytes"].toInteger());
    const QJsonObject t = m["time_s"].toObject();
    for (const char* key : {"forward", "backward", "recompute", "optimizer", "total"})
        QVERIFY2(t.contains(key), key);
    QVERIFY(t["recompute"].toDouble() > 0.0);
    const QJsonObject g = j["grad_check"].toObject();
    QCOMPARE(g["reference"].toString(), QString("none"));
    QCOMPARE(g["bitwise_equal"].toBool(), true);
    QCOMPARE(g["max_abs_diff"].toDouble(), 0.0);
    QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));
    QCOMPARE(j["micro_batch"].toInteger(), qint64(2));
    QCOMPARE(m["losses"].toArray().size(), qsizetype(1));
}

void TestCliRun::textShowsBothColumns() {
    const Output o = run({"run", "mlp-3x1024", "--backend", "cpu", "--micro-batch", "8"});
    QVERIFY2(o.exitCode == 0, o.err.constData());
    const QString text = QString::fromUtf8(o.out);
    QVERIFY(text.contains("predicted") && text.contains("measured"));
    QVERIFY(text.contains("peak (device level)"));
    QVERIFY(text.contains("largest per-instruction live-bytes difference: 0 B"));
    QVERIFY(text.contains("gradient check against plan none: max |diff| 0, bitwise equal"));
}

void TestCliRun::cudaWithoutGpuIsExitCode2() {
#ifdef REMAT_HAVE_CUDA
    QSKIP("this build has the CUDA backend; its device checks live in the CUDA tests");
#else
    const Output o = run({"run", "mlp-3x1024", "--backend", "cuda"});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains("no GPU: "), o.err.constData());
    QVERIFY(o.out.isEmpty());
#endif
}

void TestCliRun::unsafeProgramRefusedUnlessAllowed() {
    const QString path = writeModel("inplace-gelu", R"({"format": "remat-model/1",
        "name": "inplace-gelu", "input": {"shape": [16]},
        "layers": [{"kind": "linear", "out": 32}, {"kind": "gelu", "inplace": true},
                   {"kind": "linear", "out": 8}, {"kind": "mse"}],
        "training": {"micro_batch": 4}})");
    const Output refused = run({"run", path, "--backend", "cpu"});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("unsafe") && refused.err.contains("--allow-unsafe"),
             refused.err.constData());
    const Output allowed = run({"run", path, "--backend", "cpu", "--allow-unsafe", "--json"});
    QVERIFY2(allowed.exitCode == 0, allowed.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(allowed.out).object();
    QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));
    QVERIFY(!j["unsafe"].toArray().isEmpty());
    // The plan-`none` reference is the same unsafe network, so it carries the same damage:
    // the comparison shows agreement, and the reason is in `unsafe`.
    QCOMPARE(j["grad_check"].toObject()["bitwise_equal"].toBool(), true);
    QCOMPARE(j["grad_check"].toObject()["reference_unsafe"].toBool(), true);
}

void TestCliRun::opOutOfScopeRefusedByName() {
    const QString path = writeModel("conv", R"({"format": "remat-model/1", "name": "conv",
        "input": {"shape": [3, 8, 8]},
        "layers": [{"kind": "conv2d", "out_channels": 4, "kernel": 3, "padding": 1},
                   {"kind": "relu"}, {"kind": "flatten"}, {"kind": "linear", "out": 4},
                   {"kind": "mse"}]})");
    const Output o = run({"run", path, "--backend", "cpu"});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains("the CPU executor cannot run conv2d (layer 0"), o.err.constData());
}

void TestCliRun::longCpuRunRefusedWithEstimate() {
    // GPT-2 small at its preset micro-batch is trillions of FLOPs: minutes on a CPU.
    const Output o = run({"run", "gpt2-small", "--backend", "cpu"});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains("estimated at") && o.err.contains("--force"), o.err.constData());
    QVERIFY(o.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_cli_run.moc"
