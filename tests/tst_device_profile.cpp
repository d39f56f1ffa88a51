// Device and calibrated profiles from outside (docs/devices.md): every broken profile of the
// corpus in tests/data/bad-devices is refused with one message naming the file, the JSON path
// and what is wrong — wrong types, numbers beyond double range, values outside the documented
// plausible ranges (a denormal FLOP rate, a launch overhead of 1e308), nesting far deeper than
// the format — and never with an exception; the same through a model's "device" key; every
// built-in profile is inside the ranges; and a profile round-trips through deviceToJson, its
// efficiency model and calibration (what it was measured on, times keyed by op shape) included.
// Calibrated profiles: the warning when one is applied to another model, precision or backend,
// and measured times keyed by op kind and shape transferring to another model sharing shapes.
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <set>
#include <string>

#include "calibration.h"
#include "compiler.h"
#include "device.h"
#include "lower.h"
#include "model_file.h"
#include "simulator.h"

using namespace remat;

namespace {

const QString kDir = QStringLiteral(REMAT_TEST_DATA_DIR) + "/bad-devices";

std::string readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = f.readAll();
    return std::string(bytes.constData(), std::size_t(bytes.size()));
}

std::vector<std::pair<QString, QString>> manifest() {
    std::vector<std::pair<QString, QString>> out;
    QFile f(kDir + "/expected.tsv");
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return out;
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).chopped(1);
        if (line.isEmpty() || line.startsWith('#')) continue;
        const qsizetype tab = line.indexOf('\t');
        out.push_back({line.left(tab), tab < 0 ? QString() : line.mid(tab + 1)});
    }
    return out;
}

}  // namespace

class TstDeviceProfile : public QObject {
    Q_OBJECT

private slots:
    void badCorpus_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        for (const auto& [file, expected] : manifest())
            QTest::newRow(file.toUtf8().constData()) << file << expected;
    }

    void badCorpus() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        QVERIFY(!expected.isEmpty());
        const QString path = kDir + "/" + file;
        auto parsed = parseDevice(readText(path), path.toStdString());
        QVERIFY2(!parsed.ok(), qPrintable(file + " was accepted"));
        const QString message = QString::fromStdString(parsed.error().message);
        QVERIFY2(message.startsWith(path + ": $"), qPrintable(message));
        QVERIFY2(message.contains(expected),
                 qPrintable("message: " + message + "\nexpected to contain: " + expected));
        // One line, nothing raw from the file.
        QVERIFY2(!message.contains('\n') && !message.contains(QChar(0x1b)), qPrintable(message));
        QVERIFY2(message.size() < 600, qPrintable(QString::number(message.size())));

        // By path, and through a model file that names the profile.
        auto found = findDevice(path.toStdString());
        QVERIFY(!found.ok());
        QCOMPARE(QString::fromStdString(found.error().message), message);
    }

    void manifestIsComplete() {
        std::set<QString> listed;
        for (const auto& [file, expected] : manifest()) QVERIFY(listed.insert(file).second);
        const QStringList files = QDir(kDir).entryList({"*.json"}, QDir::Files);
        for (const QString& f : files) QVERIFY2(listed.count(f), qPrintable(f + " is not listed"));
        QCOMPARE(listed.size(), std::size_t(files.size()));
    }

    void builtinProfilesAreInsideTheRanges() {
        QVERIFY(builtinDevices().size() >= 8);
        for (const DeviceSpec& d : builtinDevices()) {
            auto again = parseDevice(deviceToJson(d), d.id);
            QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
            QCOMPARE(again->memoryBytes, d.memoryBytes);
            QCOMPARE(again->peakBf16, d.peakBf16);
            QCOMPARE(again->launchOverheadS, d.launchOverheadS);
            // Every built-in profile carries achievable efficiency, with its sources.
            QVERIFY2(d.efficiency.present, d.id.c_str());
            QVERIFY2(!d.efficiency.source.empty(), d.id.c_str());
            QVERIFY(d.efficiency.smCount > 0);
            for (double f : {d.efficiency.gemmFp32, d.efficiency.gemmTf32, d.efficiency.gemmBf16,
                             d.efficiency.gemmFp16, d.efficiency.bandwidth})
                QVERIFY2(f > 0.0 && f < 1.0, d.id.c_str());
        }
    }

    void efficiencyAndCalibrationRoundTrip() {
        DeviceSpec d = *findDevice("h100-80gb-sxm");
        d.efficiency.gemmTf32 = 0.5;
        d.efficiency.tileM = 64;
        d.efficiency.tileN = 32;
        d.efficiency.epilogueExposed = 0.25;
        d.efficiency.bandwidth = 0.7;
        d.calibrationMicroBatch = 3;
        d.calibrationOrigin = {"gpt2-tiny", "mixed-bf16", "cuda", "NVIDIA H100 80GB HBM3",
                               "2026-12-02T11:20:00Z"};
        d.measuredByShape["linear mixed-bf16 [128,128] -> [128,384] in=128 out=384 bias"] = {1e-5, 2e-5};
        d.measured["0/embed"] = {3e-6, 4e-6};
        auto again = parseDevice(deviceToJson(d), "round.json");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        const DeviceEfficiency& e = again->efficiency;
        QVERIFY(e.present);
        QCOMPARE(e.gemmTf32, 0.5);
        QCOMPARE(e.gemmBf16, d.efficiency.gemmBf16);
        QCOMPARE(e.smCount, d.efficiency.smCount);
        QCOMPARE(e.tileM, std::int64_t(64));
        QCOMPARE(e.tileN, std::int64_t(32));
        QCOMPARE(e.epilogueExposed, 0.25);
        QCOMPARE(e.bandwidth, 0.7);
        QCOMPARE(e.source, d.efficiency.source);
        QCOMPARE(again->calibrationMicroBatch, std::int64_t(3));
        QCOMPARE(again->calibrationOrigin.model, std::string("gpt2-tiny"));
        QCOMPARE(again->calibrationOrigin.precision, std::string("mixed-bf16"));
        QCOMPARE(again->calibrationOrigin.backend, std::string("cuda"));
        QCOMPARE(again->calibrationOrigin.deviceName, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(again->calibrationOrigin.date, std::string("2026-12-02T11:20:00Z"));
        QCOMPARE(again->measuredByShape.size(), std::size_t(1));
        QCOMPARE(again->measuredByShape.begin()->second.backwardS, 2e-5);
        QCOMPARE(again->measured.at("0/embed").forwardS, 3e-6);
        // Written again, the same text.
        QCOMPARE(deviceToJson(*again), deviceToJson(d));
        // A profile without the object: the datasheet roofline, and none is written.
        d.efficiency = {};
        auto plain = parseDevice(deviceToJson(d), "plain.json");
        QVERIFY(plain.ok());
        QVERIFY(!plain->efficiency.present);
        QVERIFY(deviceToJson(*plain).find("\"efficiency\"") == std::string::npos);
    }

    // Measured times are keyed by op kind and shape: a profile measured on a 2-block GPT-2 tiny
    // times every op of a 5-block one (same widths) from the measurements, and none of a model
    // whose widths differ; it says so when applied to another model or precision.
    void calibrationTransfersByShapeAndWarnsOnMismatch() {
        auto small = loadModel("gpt2-tiny");
        QVERIFY(small.ok());
        ModelFile deep = *small;
        bool found = false;
        for (Layer& l : deep.network.layers)
            if (l.repeat > 1) {
                l.repeat = 5;
                found = true;
            }
        QVERIFY(found);
        const Precision prec = small->training.precision;
        auto gs = lower(small->network, prec);
        auto gd = lower(deep.network, prec);
        QVERIFY(gs.ok() && gd.ok());
        QVERIFY(gd->ops.size() > gs->ops.size());

        // A calibration of the small model: every shape gets its own, distinct time.
        DeviceSpec d = *findDevice("a100-80gb");
        d.id = "a100-80gb-calibrated";
        d.calibrationMicroBatch = small->training.microBatch;
        d.calibrationOrigin = {small->network.name, std::string(precisionName(prec)), "cuda",
                               "NVIDIA A100-SXM4-80GB", "2026-12-02T11:20:00Z"};
        double next = 1e-5;
        for (const Op& op : gs->ops) {
            if (op.kind == OpKind::Flatten) continue;
            const std::string key = opShapeKey(*gs, op, prec);
            if (!d.measuredByShape.count(key)) {
                d.measuredByShape[key] = {next, 2 * next};
                next += 1e-6;
            }
        }
        auto reread = parseDevice(deviceToJson(d), "calibrated.json");
        QVERIFY(reread.ok());
        d = *reread;
        QVERIFY(calibrationWarnings(d, *gs, prec, small->network.name).empty());
        const CalibrationCoverage cover = calibrationCoverage(d, *gd, prec);
        QCOMPARE(cover.measured, cover.ops);

        // The deep model's instructions take the measured times of their shape.
        Plan none;
        none.strategy = "none";
        TrainingConfig cfg = deep.training;
        auto p = compile(*gd, none, cfg);
        QVERIFY(p.ok());
        const double scale = double(cfg.microBatch) / double(d.calibrationMicroBatch);
        int checked = 0;
        for (const Instruction& ins : p->instructions) {
            if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Backward) continue;
            const Op& op = gd->op(ins.op);
            if (op.kind == OpKind::Flatten) continue;
            const MeasuredOpTime& m = d.measuredByShape.at(opShapeKey(*gd, op, prec));
            QCOMPARE(instructionTime(*gd, *p, ins, d),
                     (ins.kind == InstrKind::Forward ? m.forwardS : m.backwardS) * scale);
            ++checked;
        }
        QVERIFY(checked > int(gs->ops.size()));

        // Another model: said, with the coverage.
        const std::string deepName = "gpt2-tiny-deep";
        const auto other = calibrationWarnings(d, *gd, prec, deepName);
        QCOMPARE(other.size(), std::size_t(1));
        QVERIFY2(other[0].find("measured on model '" + small->network.name + "', applied to '" +
                               deepName + "'") != std::string::npos,
                 other[0].c_str());
        QVERIFY2(other[0].find(std::to_string(cover.ops) + " of " + std::to_string(cover.ops)) !=
                     std::string::npos,
                 other[0].c_str());

        // Another precision: no shape matches (the key holds the precision), and it is said.
        const Precision otherPrec = prec == Precision::Fp32 ? Precision::MixedBf16 : Precision::Fp32;
        auto g16 = lower(small->network, otherPrec);
        QVERIFY(g16.ok());
        QCOMPARE(calibrationCoverage(d, *g16, otherPrec).measured, 0);
        const auto mixed = calibrationWarnings(d, *g16, otherPrec, small->network.name);
        QCOMPARE(mixed.size(), std::size_t(1));
        QVERIFY2(mixed[0].find("measured at " + std::string(precisionName(prec))) != std::string::npos,
                 mixed[0].c_str());

        // A model of other widths: nothing transfers, those ops use the efficiency model.
        ModelFile wide = *small;
        wide.network.layers.front().dim *= 2;
        for (Layer& l : wide.network.layers)
            if (l.mlpHidden > 0) l.mlpHidden *= 2;
        auto gw = lower(wide.network, prec);
        QVERIFY2(gw.ok(), gw.ok() ? "" : gw.error().message.c_str());
        const CalibrationCoverage wideCover = calibrationCoverage(d, *gw, prec);
        QVERIFY(wideCover.measured < wideCover.ops / 4);

        // Where the profile does not say what it was measured on, that is said.
        d.calibrationOrigin = {};
        const auto unknown = calibrationWarnings(d, *gs, prec, small->network.name);
        QCOMPARE(unknown.size(), std::size_t(1));
        QVERIFY2(unknown[0].find("does not record what it was measured on") != std::string::npos,
                 unknown[0].c_str());
        // An uncalibrated profile: nothing to say.
        QVERIFY(calibrationWarnings(*findDevice("a100-80gb"), *gs, prec, "x").empty());
    }

    // The range edges themselves: the bounds are accepted, just past them refused.
    void rangeEdges() {
        DeviceSpec d = builtinDevices().front();
        d.launchOverheadS = kDeviceLaunchOverheadRange.hi;
        d.peakFp32 = kDeviceFlopsRange.lo;
        QVERIFY(parseDevice(deviceToJson(d), "edge.json").ok());
        d.launchOverheadS = kDeviceLaunchOverheadRange.hi * 1.0001;
        QVERIFY(!parseDevice(deviceToJson(d), "edge.json").ok());
        d.launchOverheadS = 0;
        d.peakFp32 = kDeviceFlopsRange.lo * 0.999;
        QVERIFY(!parseDevice(deviceToJson(d), "edge.json").ok());
    }

    void modelNamingABrokenProfileIsRefusedWithTheProfilesMessage() {
        QTemporaryDir dir;
        const QString model = dir.filePath("m.json");
        const QString device = kDir + "/fp32_matmul_number.json";
        QFile f(model);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(R"({"format": "remat-model/1", "input": {"shape": [8]},
            "layers": [{"kind": "linear", "out": 4}, {"kind": "mse"}], "device": "%1"})")
                    .arg(device)
                    .toUtf8());
        f.close();
        auto m = loadModel(model.toStdString());
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
        auto d = findDevice(m->device);
        QVERIFY(!d.ok());
        QVERIFY2(QString::fromStdString(d.error().message).contains("$.fp32_matmul: expected a string"),
                 d.error().message.c_str());
    }

    void unknownDeviceListsTheBuiltIns() {
        auto d = findDevice("no-such-gpu");
        QVERIFY(!d.ok());
        const QString msg = QString::fromStdString(d.error().message);
        QVERIFY2(msg.contains("'no-such-gpu'") && msg.contains("a100-80gb"), qPrintable(msg));
    }
};

QTEST_GUILESS_MAIN(TstDeviceProfile)
#include "tst_device_profile.moc"
