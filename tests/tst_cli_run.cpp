// `remat run` as a user calls it: the JSON keys of cli-output.md with the measurement beside the
// prediction, the refusals (no GPU, unsafe program, op out of scope, a CPU run estimated too
// long, a CPU run whose host memory would not fit) with their messages and exit codes,
// --allow-unsafe showing the damage and exiting non-zero when the gradients differ, and a
// run under an address-space limit too small for the GEMM library, which ends with a message
// instead of hanging. Exit codes and messages are asserted, never how long anything took.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

class TestCliRun : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void jsonHasPredictionAndMeasurement();
    void textShowsBothColumns();
    void format2BlocksRunOnTheCpu();
    void encoderLayersRunOrAreRefusedByName();
    void cudaWithoutGpuIsExitCode2();
    void unsafeProgramRefusedUnlessAllowed();
    void shrinkRunsPresetsAndSaysWhat();
    void longCpuRunRefusedWithEstimate();
    void allowUnsafeExitsNonZeroWhenGradientsDiffer();
    void hostMemoryRefusedBeforeStarting();
    void addressSpaceTooSmallForGemmEndsWithMessage();

private:
    struct Output {
        bool finished = false;
        int exitCode = -1;
        QByteArray out, err;
    };
    Output run(const QStringList& args);
    // `remat args` under an address-space limit (prlimit --as), as `ulimit -v` sets it.
    Output runLimited(qint64 addressSpaceBytes, const QStringList& args);
    bool canLimitAddressSpace();
    QString writeModel(const char* name, const char* json);

    QTemporaryDir m_dir;
};

TestCliRun::Output TestCliRun::run(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(REMAT_CLI_PATH), args);
    if (!p.waitForFinished(120000)) qFatal("remat did not finish");
    return {true, p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

TestCliRun::Output TestCliRun::runLimited(qint64 addressSpaceBytes, const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral("prlimit"),
            QStringList{QStringLiteral("--as=%1").arg(addressSpaceBytes), QStringLiteral("--"),
                        QStringLiteral(REMAT_CLI_PATH)} +
                args);
    // Generous: the point is that it ends at all (a hang is killed and reported).
    Output o;
    o.finished = p.waitForFinished(180000);
    if (!o.finished) {
        p.kill();
        p.waitForFinished(10000);
    }
    o.exitCode = p.exitCode();
    o.out = p.readAllStandardOutput();
    o.err = p.readAllStandardError();
    return o;
}

bool TestCliRun::canLimitAddressSpace() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return false;  // the sanitizers reserve terabytes of address space for their shadow
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
    return false;
#endif
#endif
    QProcess p;
    p.start(QStringLiteral("prlimit"), {QStringLiteral("--version")});
    return p.waitForFinished(30000) && p.exitCode() == 0;
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

// Model format 2's blocks (GPT-NeoX's parallel attention and MLP, Qwen2's q/k/v-only biases)
// run on the CPU executor exactly as predicted, checkpointed or not.
void TestCliRun::format2BlocksRunOnTheCpu() {
    const QString model = writeModel("format2", R"({"format": "remat-model/2",
        "input": {"tokens": 16, "vocab": 48},
        "layers": [{"kind": "embedding", "dim": 16},
                   {"kind": "transformer_block", "repeat": 2, "heads": 4, "mlp_hidden": 32,
                    "dropout": 0.1, "parallel_residual": true},
                   {"kind": "transformer_block", "heads": 4, "kv_heads": 2, "mlp_hidden": 24,
                    "gated": true, "activation": "silu", "norm": "rmsnorm", "bias": false,
                    "qkv_bias": true},
                   {"kind": "rmsnorm"}, {"kind": "linear", "out": 48, "bias": false},
                   {"kind": "cross_entropy"}]})");
    for (const char* strategy : {"full", "selective:mlp"}) {
        const Output o = run({"run", model, "--backend", "cpu", "--strategy", strategy,
                              "--micro-batch", "2", "--json"});
        QVERIFY2(o.exitCode == 0, o.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(o.out).object();
        QCOMPARE(j["measured"].toObject()["peak_bytes"].toInteger(), j["peak_bytes"].toInteger());
        QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));
        QCOMPARE(j["grad_check"].toObject()["bitwise_equal"].toBool(), true);
    }
}

// BERT's post-LN blocks (non-causal, dropout on) and token-type embeddings run on the CPU
// executor exactly as predicted; ViT's patch tokens, simulated only so far, are refused by name.
void TestCliRun::encoderLayersRunOrAreRefusedByName() {
    const QString model = writeModel("post_ln", R"({"format": "remat-model/3",
        "input": {"tokens": 16, "vocab": 48}, "tie_embeddings": true,
        "layers": [{"kind": "embedding", "dim": 16, "positions": 16}, {"kind": "layernorm"},
                   {"kind": "dropout", "p": 0.1},
                   {"kind": "transformer_block", "repeat": 2, "heads": 4, "mlp_hidden": 32,
                    "dropout": 0.1, "causal": false, "norm_position": "post"},
                   {"kind": "linear", "out": 16}, {"kind": "gelu"}, {"kind": "layernorm"},
                   {"kind": "linear", "out": 48}, {"kind": "cross_entropy"}]})");
    for (const char* strategy : {"none", "full", "selective:attention_core"}) {
        const Output o = run({"run", model, "--backend", "cpu", "--strategy", strategy,
                              "--micro-batch", "2", "--json"});
        QVERIFY2(o.exitCode == 0, o.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(o.out).object();
        QCOMPARE(j["measured"].toObject()["peak_bytes"].toInteger(), j["peak_bytes"].toInteger());
        QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));
        QCOMPARE(j["grad_check"].toObject()["bitwise_equal"].toBool(), true);
    }
    const QString types = writeModel("token_types", R"({"format": "remat-model/3",
        "input": {"tokens": 8, "vocab": 32},
        "layers": [{"kind": "embedding", "dim": 16, "positions": 8, "token_types": 2},
                   {"kind": "transformer_block", "heads": 2, "mlp_hidden": 32, "causal": false,
                    "norm_position": "post"},
                   {"kind": "linear", "out": 32}, {"kind": "cross_entropy"}]})");
    for (const char* strategy : {"none", "full"}) {
        const Output t = run({"run", types, "--backend", "cpu", "--strategy", strategy,
                              "--micro-batch", "2", "--json"});
        QVERIFY2(t.exitCode == 0, t.err.constData());
        const QJsonObject j = QJsonDocument::fromJson(t.out).object();
        QCOMPARE(j["measured"].toObject()["peak_bytes"].toInteger(), j["peak_bytes"].toInteger());
        QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));
        QCOMPARE(j["grad_check"].toObject()["bitwise_equal"].toBool(), true);
    }
    const QString vit = writeModel("vit", R"({"format": "remat-model/3",
        "input": {"shape": [3, 16, 16]},
        "layers": [{"kind": "patch_embedding", "dim": 16, "patch": 8},
                   {"kind": "select_token"}, {"kind": "linear", "out": 4},
                   {"kind": "cross_entropy"}]})");
    const Output v = run({"run", vit, "--backend", "cpu"});
    QCOMPARE(v.exitCode, 2);
    QVERIFY2(v.err.contains("cannot run patch_tokens (layer 0, '0/tokens') yet"), v.err.constData());
}

void TestCliRun::cudaWithoutGpuIsExitCode2() {
#ifdef REMAT_HAVE_CUDA
    QSKIP("this build has the CUDA backend; its device checks live in the CUDA tests");
#else
    const Output o = run({"run", "mlp-3x1024", "--backend", "cuda"});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains("CUDA backend unavailable: "), o.err.constData());
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

// --shrink: ResNet-101 and GPT-2 small run for real, shrunk, with tracked bytes equal to the
// prediction and gradients bitwise plan none's; the changes are printed and in `shrunk`.
void TestCliRun::shrinkRunsPresetsAndSaysWhat() {
    const Output o = run({"run", "resnet-101", "--backend", "cpu", "--shrink", "--strategy",
                          "sqrt", "--json"});
    QVERIFY2(o.exitCode == 0, o.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(o.out).object();
    const QJsonObject s = j["shrunk"].toObject();
    QCOMPARE(s["layers[8].repeat"].toObject()["from"].toInteger(), qint64(22));
    QCOMPARE(s["layers[8].repeat"].toObject()["to"].toInteger(), qint64(2));
    QCOMPARE(s["input.shape[2]"].toObject()["to"].toInteger(), qint64(32));
    QCOMPARE(s["micro_batch"].toObject()["from"].toInteger(), qint64(32));
    QCOMPARE(j["micro_batch"].toInteger(), qint64(2));
    QCOMPARE(j["grad_check"].toObject()["bitwise_equal"].toBool(), true);
    QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));

    const Output t = run({"run", "gpt2-small", "--backend", "cpu", "--shrink", "--strategy",
                          "selective:attention_core", "--micro-batch", "3"});
    QVERIFY2(t.exitCode == 0, t.err.constData());
    const QString text = QString::fromUtf8(t.out);
    QVERIFY2(text.contains("shrunk (--shrink): ") && text.contains("input.tokens 1024 -> 32") &&
                 text.contains("layers[1].heads 12 -> 4") && !text.contains("micro_batch"),
             t.out.constData());
    QVERIFY(text.contains("micro-batch 3 x 1"));
    QVERIFY(text.contains("gradient check against plan none: max |diff| 0, bitwise equal"));

    // A manual plan by expanded-layer index would name other layers once repeats shrink.
    const QString regions = writeModel("regions", R"({"format": "remat-model/1",
        "input": {"tokens": 64, "vocab": 300},
        "layers": [{"kind": "embedding", "dim": 128, "positions": 64},
                   {"kind": "transformer_block", "repeat": 4, "heads": 4, "mlp_hidden": 256},
                   {"kind": "linear", "out": 300}, {"kind": "cross_entropy"}],
        "plan": {"regions": [[2, 3]]}})");
    const Output m = run({"run", regions, "--backend", "cpu", "--shrink", "--strategy", "manual"});
    QCOMPARE(m.exitCode, 2);
    QVERIFY2(m.err.contains("--shrink: the model file's plan names layers by expanded index"),
             m.err.constData());
}

void TestCliRun::longCpuRunRefusedWithEstimate() {
    // GPT-2 small at micro-batch 2 with 256 accumulation steps is hundreds of trillions of
    // FLOPs, hours on a machine's CPU cores however many, in the few GiB of host memory one
    // micro-batch takes (at its preset micro-batch the memory check refuses it first).
    const Output o = run({"run", "gpt2-small", "--backend", "cpu", "--micro-batch", "2",
                          "--accum", "256"});
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains("estimated at") && o.err.contains("--force"), o.err.constData());
    QVERIFY(o.out.isEmpty());
}

void TestCliRun::allowUnsafeExitsNonZeroWhenGradientsDiffer() {
    // An in-place tanh at the start of a checkpointed region overwrites the region's input,
    // which the recompute reads again: the plan is unsafe and its gradients are wrong, while
    // plan none (tanh saves its output) is safe, so the check sees the damage.
    const QString path = writeModel("inplace-region-start", R"({"format": "remat-model/1",
        "name": "inplace-region-start", "input": {"shape": [16]},
        "layers": [{"kind": "linear", "out": 32}, {"kind": "tanh", "inplace": true},
                   {"kind": "linear", "out": 8}, {"kind": "mse"}],
        "plan": {"regions": [[1, 2]]},
        "training": {"micro_batch": 4}})");
    const Output refused = run({"run", path, "--backend", "cpu"});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("keeps as its input for the recompute"),
             refused.err.constData());
    const Output json = run({"run", path, "--backend", "cpu", "--allow-unsafe", "--json"});
    QCOMPARE(json.exitCode, 1);
    const QJsonObject j = QJsonDocument::fromJson(json.out).object();
    QCOMPARE(j["max_live_bytes_difference"].toInteger(), qint64(0));  // memory is still exact
    const QJsonObject g = j["grad_check"].toObject();
    QCOMPARE(g["bitwise_equal"].toBool(), false);
    QCOMPARE(g["reference_unsafe"].toBool(), false);
    QVERIFY(g["max_abs_diff"].toDouble() > 0.0);
    QVERIFY2(json.err.contains("the gradients differ from plan none's") &&
                 json.err.contains("the unsafe plan damaged them"),
             json.err.constData());
    const Output text = run({"run", path, "--backend", "cpu", "--allow-unsafe"});
    QCOMPARE(text.exitCode, 1);
    QVERIFY(text.out.contains("not bitwise equal"));
    QVERIFY(text.out.contains("UNSAFE: "));
}

void TestCliRun::hostMemoryRefusedBeforeStarting() {
    if (!canLimitAddressSpace()) QSKIP("no prlimit, or a sanitizer build");
    // Under a 2 GiB address-space limit the host has less than 2 GiB for the run, whatever the
    // machine: GPT-2 small at micro-batch 64 holds tens of GiB of activations.
    const qint64 limit = qint64(2) << 30;
    const QStringList args = {"run", "gpt2-small", "--backend", "cpu", "--micro-batch", "64"};
    const Output o = runLimited(limit, args);
    QVERIFY(o.finished);
    QCOMPARE(o.exitCode, 2);
    QVERIFY(o.out.isEmpty());
    const QString err = QString::fromUtf8(o.err);
    QVERIFY2(err.contains(QRegularExpression(
                 "this run needs about [0-9.]+ GiB of host memory \\(programs [0-9.]+ GiB at "
                 "their peak")),
             qPrintable(err));
    QVERIFY2(err.contains(QRegularExpression("this machine has [0-9.]+ (KiB|MiB|GiB) available "
                                             "\\(this process's address-space limit")),
             qPrintable(err));
    // The programs alone do not fit: a certain failure, which --force does not override.
    QVERIFY2(err.contains("--force does not override this"), qPrintable(err));
    QCOMPARE(err.count('\n'), 1);
    const Output forced = runLimited(limit, args + QStringList{"--force"});
    QVERIFY(forced.finished);
    QCOMPARE(forced.exitCode, 2);
    QVERIFY2(forced.err.contains("--force does not override this"), forced.err.constData());
    QVERIFY(forced.out.isEmpty());
}

void TestCliRun::addressSpaceTooSmallForGemmEndsWithMessage() {
    if (!canLimitAddressSpace()) QSKIP("no prlimit, or a sanitizer build");
    // Learn how much address space remat maps before a run from a refusal under 1 GiB (the
    // message gives what is left), then leave it about 64 MiB more: enough for a tiny model,
    // too little for OpenBLAS's 128 MiB work buffer, which it would retry mapping forever.
    const qint64 probeLimit = qint64(1) << 30;
    const Output probe =
        runLimited(probeLimit, {"run", "gpt2-small", "--backend", "cpu", "--micro-batch", "64"});
    QVERIFY(probe.finished);
    QCOMPARE(probe.exitCode, 2);
    const QRegularExpressionMatch left =
        QRegularExpression("this machine has ([0-9.]+) (KiB|MiB|GiB) available")
            .match(QString::fromUtf8(probe.err));
    QVERIFY2(left.hasMatch(), probe.err.constData());
    const double unit = left.captured(2) == "KiB" ? 1024.0
                        : left.captured(2) == "MiB" ? 1024.0 * 1024.0
                                                    : 1024.0 * 1024.0 * 1024.0;
    const qint64 mapped = probeLimit - qint64(left.captured(1).toDouble() * unit);
    QVERIFY(mapped > 0);
    const qint64 limit = mapped + (qint64(64) << 20);

    const QString path = writeModel("tiny-mlp", R"({"format": "remat-model/1",
        "name": "tiny-mlp", "input": {"shape": [16]},
        "layers": [{"kind": "linear", "out": 32}, {"kind": "relu"},
                   {"kind": "linear", "out": 8}, {"kind": "mse"}],
        "training": {"micro_batch": 4}})");
    // Unlimited, it runs; the GEMM library whose buffer is at stake is OpenBLAS.
    const Output free = run({"run", path, "--backend", "cpu", "--json"});
    QVERIFY2(free.exitCode == 0, free.err.constData());
    const QString device =
        QJsonDocument::fromJson(free.out).object()["measured"].toObject()["device_name"].toString();
    if (!device.contains("OpenBLAS")) QSKIP("this build's CPU executor does not use OpenBLAS");
    // Without --force the estimate (which counts the GEMM buffer) already refuses it.
    const Output refused = runLimited(limit, {"run", path, "--backend", "cpu"});
    QVERIFY2(refused.finished, "remat hung under an address-space limit");
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("this run needs about") && refused.err.contains("--force"),
             refused.err.constData());
    // --force runs it: a warning, then the GEMM library cannot get its buffer. One clear
    // line, exit 2, and the process ends.
    const Output forced =
        runLimited(limit, {"run", path, "--backend", "cpu", "--force", "--threads", "1"});
    QVERIFY2(forced.finished, "remat hung under an address-space limit");
    QCOMPARE(forced.exitCode, 2);
    QVERIFY2(forced.err.contains("remat: warning: --force: this run needs about"),
             forced.err.constData());
    QVERIFY2(QString::fromUtf8(forced.err).contains(QRegularExpression(
                 "\\nremat: the CPU executor cannot start: OpenBLAS needs 128\\.[0-9]+ MiB of "
                 "address space for its GEMM work buffer and cannot get it \\(this process's "
                 "address-space limit \\(ulimit -v\\) is [0-9.]+ MiB, of which [0-9.]+ MiB is "
                 "mapped already\\)")),
             forced.err.constData());
    QCOMPARE(forced.err.count('\n'), 2);
    QVERIFY(forced.out.isEmpty());
    // On three threads GEMMs run three at a time, each with its own buffer: all three are
    // asked for, and the message says so.
    const Output three =
        runLimited(limit, {"run", path, "--backend", "cpu", "--force", "--threads", "3"});
    QVERIFY2(three.finished, "remat hung under an address-space limit");
    QCOMPARE(three.exitCode, 2);
    QVERIFY2(three.err.contains("384.02 MiB GEMM library buffers"), three.err.constData());
    QVERIFY2(QString::fromUtf8(three.err).contains(QRegularExpression(
                 "\nremat: the CPU executor cannot start: OpenBLAS needs 384\\.[0-9]+ MiB of "
                 "address space for 3 more GEMM work buffers \\(one per thread\\) and cannot get "
                 "it \\(this process's address-space limit \\(ulimit -v\\) is [0-9.]+ MiB, of which "
                 "[0-9.]+ MiB is mapped already\\); raise the limit, free memory or use fewer "
                 "threads")),
             three.err.constData());
}

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_cli_run.moc"
