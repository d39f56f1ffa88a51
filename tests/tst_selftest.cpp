// Tests of `remat selftest` and `remat calibrate`, run through the built binary. The selftest
// compares a backend with the independent float64 reference; it is exercised on the CPU
// backend everywhere (every op kind, dtype and direction must be covered and within its
// stated tolerance, the errors must be those of a real comparison — not zero across the
// board, below fp32 and 16-bit rounding bounds — and a deliberately corrupted op must be
// caught); against CUDA only where makeBackend("cuda") finds a device — elsewhere the CLI
// must answer "CUDA backend unavailable: ..." with exit code 2 and the CUDA checks are
// skipped. Calibration is checked on the CPU backend: the profile it writes must parse, hold
// every op's measured times, and make the simulator predict exactly those times (scaled by
// micro-batch).
#include <QtTest/QtTest>

#include <QDateTime>
#include <QProcess>
#include <QTemporaryDir>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "backends.h"
#include "calibration.h"
#include "compiler.h"
#include "device.h"
#include "lower.h"
#include "model_file.h"
#include "simulator.h"

using nlohmann::json;
using namespace remat;

namespace {

const QString kCli = QStringLiteral(REMAT_CLI_PATH);
constexpr int kTimeoutMs = 300000;

struct RunResult {
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int exitCode = -1;
    QString out;
    QString err;
};

RunResult runRemat(const QStringList& args) {
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(REMAT_SOURCE_DIR));
    p.start(kCli, args);
    RunResult r;
    r.finished = p.waitForStarted(kTimeoutMs) && p.waitForFinished(kTimeoutMs);
    if (!r.finished) p.kill();
    r.status = p.exitStatus();
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QByteArray describe(const QStringList& args, const RunResult& r) {
    return ("remat " + args.join(' ') + " -> exit " + QString::number(r.exitCode) + "\nstdout:\n" +
            r.out.left(3000) + "\nstderr:\n" + r.err.left(3000))
        .toUtf8();
}

// Op kinds every backend implements (everything in scope but flatten, which runs nothing).
const std::set<std::string> kOpKinds = {"conv2d",
                                        "batchnorm2d",
                                        "maxpool2d",
                                        "global_avg_pool",
                                        "linear",
                                        "relu",
                                        "gelu",
                                        "silu",
                                        "tanh",
                                        "sigmoid",
                                        "softmax",
                                        "layernorm",
                                        "rmsnorm",
                                        "dropout",
                                        "mul",
                                        "add",
                                        "embedding",
                                        "attention_scores",
                                        "attention_context",
                                        "expand_kv",
                                        "flash_attention",
                                        "cross_entropy",
                                        "mse"};
const std::set<std::string> kDtypes = {"fp32", "bf16", "fp16"};

// Why there is no CUDA device here, or empty when there is one.
std::string cudaUnavailable() {
    auto b = makeBackend("cuda");
    return b ? std::string() : b.error().message;
}

}  // namespace

class TestSelftest : public QObject {
    Q_OBJECT

private slots:
    void cpuAgainstFloat64CoversEveryOpWithinTolerance() {
        const QStringList args{"selftest", "--backend", "cpu", "--json"};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
        QVERIFY2(r.exitCode == 0, describe(args, r).constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("backend").get<std::string>(), std::string("cpu"));
        QCOMPARE(j.at("reference").get<std::string>(), std::string("float64"));
        QCOMPARE(j.at("failed").get<int>(), 0);
        std::set<std::string> seen;
        std::map<std::string, double> worstByDtype;
        for (const json& c : j.at("cases")) {
            QVERIFY2(c.at("pass").get<bool>(), c.dump().c_str());
            const double error = c.at("error").get<double>();
            const double tol = c.at("tolerance").get<double>();
            QVERIFY2(error <= tol && tol > 0.0, c.dump().c_str());
            const std::string dtype = c.at("dtype").get<std::string>();
            worstByDtype[dtype] = std::max(worstByDtype[dtype], error);
            seen.insert(c.at("kind").get<std::string>() + "/" + dtype + "/" +
                        c.at("direction").get<std::string>());
        }
        // A real comparison: fp32 errors are fp32 rounding (above 0, far below 1e-5), 16-bit
        // errors about one ulp of the format (bf16 2^-8, fp16 2^-11) and no more.
        QVERIFY2(worstByDtype["fp32"] > 0.0 && worstByDtype["fp32"] < 2e-6,
                 qPrintable(QString::number(worstByDtype["fp32"])));
        QVERIFY2(worstByDtype["bf16"] > 1e-3 && worstByDtype["bf16"] <= 0x1p-8 * 1.01,
                 qPrintable(QString::number(worstByDtype["bf16"])));
        QVERIFY2(worstByDtype["fp16"] > 1e-4 && worstByDtype["fp16"] <= 0x1p-11 * 1.01,
                 qPrintable(QString::number(worstByDtype["fp16"])));
        for (const auto& kind : kOpKinds)
            for (const auto& dtype : kDtypes)
                for (const char* dir : {"forward", "backward"}) {
                    const std::string key = kind + "/" + dtype + "/" + dir;
                    QVERIFY2(seen.count(key), ("not covered: " + key).c_str());
                }
        for (const char* opt : {"sgd", "momentum", "adam", "adamw"})
            for (const auto& dtype : kDtypes) {
                const std::string key = std::string("optimizer_") + opt + "/" + dtype + "/step";
                QVERIFY2(seen.count(key), ("not covered: " + key).c_str());
            }
    }

    void harnessCatchesACorruptedOp() {
        const QStringList args{"selftest", "--backend",           "cpu",      "--dtype", "bf16",
                               "--json",   "--selfcheck-perturb", "layernorm"};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
        QVERIFY2(r.exitCode == 1, describe(args, r).constData());
        const json j = json::parse(r.out.toStdString());
        int failedLayerNorm = 0;
        for (const json& c : j.at("cases")) {
            const bool isLayerNorm = c.at("kind") == "layernorm";
            QVERIFY2(c.at("pass").get<bool>() != isLayerNorm, c.dump().c_str());
            if (isLayerNorm) {
                ++failedLayerNorm;
                QVERIFY(c.at("error").get<double>() > c.at("tolerance").get<double>());
            }
        }
        QVERIFY(failedLayerNorm >= 2);  // forward and backward
        QCOMPARE(j.at("failed").get<int>(), failedLayerNorm);
    }

    void cudaAgainstFloat64() {
        const std::string why = cudaUnavailable();
        if (!why.empty()) {
            // The no-GPU path is itself a contract: exit 2, one "CUDA backend unavailable: ..."
            // line, no crash.
            QVERIFY2(why.rfind("CUDA backend unavailable: ", 0) == 0, why.c_str());
            const QStringList args{"selftest", "--backend", "cuda"};
            const RunResult r = runRemat(args);
            QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
            QVERIFY2(r.exitCode == 2, describe(args, r).constData());
            QVERIFY2(r.err.contains("CUDA backend unavailable: "), describe(args, r).constData());
            QSKIP(("no CUDA device: " + why).c_str());
        }
        const QStringList args{"selftest", "--backend", "cuda", "--json"};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
        const json j = json::parse(r.out.toStdString());
        for (const json& c : j.at("cases")) QVERIFY2(c.at("pass").get<bool>(), c.dump().c_str());
        QCOMPARE(j.at("failed").get<int>(), 0);
        QCOMPARE(r.exitCode, 0);
    }

    void calibrateCpuWritesAProfileTheSimulatorUses() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("cpu-calibrated.json");
        const QStringList args{"calibrate", "mlp-3x1024", "--backend", "cpu", "--out", out,
                               "--steps",   "2",          "--warmup",  "0",   "--json"};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
        QVERIFY2(r.exitCode == 0, describe(args, r).constData());
        const json summary = json::parse(r.out.toStdString());
        QCOMPARE(summary.at("micro_batch").get<int>(), 64);
        const double share = summary.at("gemm_share").get<double>();
        QVERIFY2(share > 0.0 && share <= 1.0, summary.dump().c_str());

        std::ifstream in(out.toStdString());
        std::stringstream text;
        text << in.rdbuf();
        auto profile = parseDevice(text.str(), out.toStdString());
        QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
        QCOMPARE(profile->calibrationMicroBatch, std::int64_t(64));

        auto model = loadModel("mlp-3x1024");
        QVERIFY(model);
        // What the times were measured on.
        const CalibrationOrigin& origin = profile->calibrationOrigin;
        QCOMPARE(origin.model, model->network.name.empty() ? std::string("mlp-3x1024")
                                                           : model->network.name);
        QCOMPARE(origin.precision, std::string(precisionName(model->training.precision)));
        QCOMPARE(origin.backend, std::string("cpu"));
        QVERIFY(!origin.deviceName.empty());
        QVERIFY2(QDateTime::fromString(QString::fromStdString(origin.date), Qt::ISODate).isValid(),
                 origin.date.c_str());
        // Keyed by op kind and shape, not by name: the three linears of one shape share a key.
        QVERIFY(profile->measured.empty());
        auto g = lower(model->network, model->training.precision);
        QVERIFY(g);
        for (const Op& op : g->ops) {
            auto it = profile->measuredByShape.find(opShapeKey(*g, op, model->training.precision));
            QVERIFY2(it != profile->measuredByShape.end(), op.name.c_str());
            QVERIFY2(it->second.forwardS > 0.0, op.name.c_str());
            QVERIFY2(it->second.backwardS > 0.0, op.name.c_str());
        }
        QVERIFY(profile->measuredByShape.size() < g->ops.size());
        // Applied to the model it was measured on, the one thing said is that these are a
        // CPU's times.
        const auto warnings =
            calibrationWarnings(*profile, *g, model->training.precision, origin.model);
        QCOMPARE(warnings.size(), std::size_t(1));
        QVERIFY2(warnings[0].find("measured on the cpu backend") != std::string::npos,
                 warnings[0].c_str());

        // The simulator now predicts each compute instruction from the measured figures, and
        // scales them with the micro-batch.
        for (std::int64_t batch : {std::int64_t(64), std::int64_t(128)}) {
            TrainingConfig cfg = model->training;
            cfg.microBatch = batch;
            Plan none;
            none.strategy = "none";
            auto p = compile(*g, none, cfg);
            QVERIFY(p);
            const double scale = double(batch) / 64.0;
            for (const Instruction& ins : p->instructions) {
                if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Backward) continue;
                const MeasuredOpTime& m = profile->measuredByShape.at(
                    opShapeKey(*g, g->op(ins.op), model->training.precision));
                const double want = (ins.kind == InstrKind::Forward ? m.forwardS : m.backwardS);
                QCOMPARE(instructionTime(*g, *p, ins, *profile), want * scale);
            }
        }
    }

    void calibrateRefusesWithoutAnOutputOrADevice() {
        {
            const QStringList args{"calibrate", "mlp-3x1024", "--backend", "cpu"};
            const RunResult r = runRemat(args);
            QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
            QVERIFY2(r.exitCode != 0, describe(args, r).constData());
        }
        if (cudaUnavailable().empty())
            QSKIP("a CUDA device exists: the no-GPU answer is not tested");
        QTemporaryDir dir;
        const QStringList args{"calibrate", "mlp-3x1024", "--backend",
                               "cuda",      "--out",      dir.filePath("x.json")};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.status == QProcess::NormalExit, describe(args, r).constData());
        QVERIFY2(r.exitCode == 2 && r.err.contains("CUDA backend unavailable: "),
                 describe(args, r).constData());
        QVERIFY(!QFile::exists(dir.filePath("x.json")));
    }

    void calibrateCuda() {
        const std::string why = cudaUnavailable();
        if (!why.empty()) QSKIP(("no CUDA device: " + why).c_str());
        QTemporaryDir dir;
        const QString out = dir.filePath("cuda-calibrated.json");
        const QStringList args{"calibrate", "gpt2-tiny", "--backend", "cuda",
                               "--out",     out,         "--json"};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.exitCode == 0, describe(args, r).constData());
        std::ifstream in(out.toStdString());
        std::stringstream text;
        text << in.rdbuf();
        auto profile = parseDevice(text.str(), out.toStdString());
        QVERIFY2(profile, profile ? "" : profile.error().message.c_str());
        QVERIFY(!profile->measuredByShape.empty());
        QCOMPARE(profile->calibrationOrigin.backend, std::string("cuda"));
    }
};

QTEST_GUILESS_MAIN(TestSelftest)
#include "tst_selftest.moc"
