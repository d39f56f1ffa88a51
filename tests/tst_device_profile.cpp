// Device and calibrated profiles from outside (docs/devices.md): every broken profile of the
// corpus in tests/data/bad-devices is refused with one message naming the file, the JSON path
// and what is wrong — wrong types, numbers beyond double range, values outside the documented
// plausible ranges (a denormal FLOP rate, a launch overhead of 1e308), nesting far deeper than
// the format — and never with an exception; the same through a model's "device" key; every
// built-in profile is inside the ranges; and a profile round-trips through deviceToJson.
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <set>
#include <string>

#include "device.h"
#include "model_file.h"

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
        }
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
