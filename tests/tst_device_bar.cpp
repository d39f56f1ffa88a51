// The device bar with a calibrated profile (docs/devices.md, "Calibrated profiles"): hidden for
// a datasheet profile; for a profile calibrated on the open model, how many ops have a measured
// time; for one calibrated on another model, that it was, with what it was measured on and the
// warning in the tooltip.
#include <QtTest/QtTest>

#include <QLabel>
#include <QTemporaryDir>
#include <fstream>

#include "calibration.h"
#include "device.h"
#include "device_bar.h"
#include "document.h"
#include "lower.h"
#include "model_file.h"

using namespace remat;
using namespace remat::ui;

namespace {

// A profile whose measured times cover every op shape of `model` at its precision.
std::string writeCalibrated(const QTemporaryDir& dir, const std::string& model) {
    auto m = loadModel(model);
    auto g = lower(m->network, m->training.precision);
    DeviceSpec d = *findDevice("a100-80gb");
    d.id = "a100-80gb-calibrated";
    d.calibrationMicroBatch = m->training.microBatch;
    d.calibrationOrigin = {m->network.name, std::string(precisionName(m->training.precision)),
                           "cuda", "NVIDIA A100-SXM4-80GB", "2026-12-02T11:20:00Z"};
    for (const Op& op : g->ops)
        if (op.kind != OpKind::Flatten)
            d.measuredByShape[opShapeKey(*g, op, m->training.precision)] = {1e-5, 2e-5};
    const std::string path = dir.filePath("calibrated.json").toStdString();
    std::ofstream(path) << deviceToJson(d);
    return path;
}

}  // namespace

class TstDeviceBar : public QObject {
    Q_OBJECT

private slots:
    void calibratedProfileIsShownWithItsOrigin() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string profile = writeCalibrated(dir, "gpt2-tiny");
        Document doc;
        QVERIFY(doc.open("gpt2-tiny").ok());
        DeviceBar bar(&doc);
        QLabel* label = bar.calibrationLabel();
        QVERIFY(label->isHidden());

        QVERIFY(doc.setDeviceId(QString::fromStdString(profile)).ok());
        QVERIFY(!label->isHidden());
        const CalibrationCoverage cover =
            calibrationCoverage(doc.device(), doc.graph(), doc.model().training.precision);
        QCOMPARE(cover.measured, cover.ops);
        QCOMPARE(label->text(), QStringLiteral("Calibrated: %1 of %2 ops measured")
                                    .arg(cover.ops)
                                    .arg(cover.ops));
        QVERIFY2(label->toolTip().contains("NVIDIA A100-SXM4-80GB"), qPrintable(label->toolTip()));

        // Another model with that profile: said, with the warning.
        QVERIFY(doc.open("gpt2-small").ok());
        QVERIFY(doc.setDeviceId(QString::fromStdString(profile)).ok());
        QVERIFY(label->text().startsWith("Calibrated on other work: "));
        QVERIFY2(label->toolTip().contains("measured on model 'gpt2-tiny'") ||
                     label->toolTip().contains("was measured at"),
                 qPrintable(label->toolTip()));

        // Back to a datasheet profile: hidden.
        QVERIFY(doc.setDeviceId("h100-80gb-sxm").ok());
        QVERIFY(label->isHidden());
    }
};

QTEST_MAIN(TstDeviceBar)
#include "tst_device_bar.moc"
