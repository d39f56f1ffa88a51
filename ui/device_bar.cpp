#include "device_bar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include "calibration.h"
#include "device.h"
#include "document.h"
#include "layout_dialog.h"
#include "qt_convert.h"
#include "refusal_notice.h"

namespace remat::ui {

DeviceBar::DeviceBar(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_device(new QComboBox(this)),
      m_capacity(new QLabel(this)),
      m_calibration(new QLabel(this)),
      m_layout(new LayoutButton(document, this)) {
    for (const DeviceSpec& d : builtinDevices())
        m_device->addItem(printableText(d.name), toQString(d.id));
    m_device->setObjectName(QStringLiteral("device"));
    m_device->setToolTip(tr("Device profile: capacity, peak FLOP/s, bandwidth"));
    // Long profile names ("NVIDIA H100 80GB HBM3 (SXM5)") are elided, not allowed to widen
    // the row; the list itself shows them whole.
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_device->setMinimumContentsLength(18);
    m_capacity->setObjectName(QStringLiteral("capacity"));
    m_capacity->setToolTip(
        tr("Device memory, and what is left after the CUDA context and library reserve"));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    auto* caption = new QLabel(tr("Device"), this);
    caption->setContentsMargins(8, 0, 2, 0);
    layout->addWidget(caption);
    layout->addWidget(m_device);
    layout->addWidget(m_capacity);
    m_calibration->setObjectName(QStringLiteral("calibration"));
    m_calibration->setVisible(false);
    layout->addWidget(m_calibration);
    layout->addWidget(m_layout);

    connect(m_device, &QComboBox::currentIndexChanged, this, [this] {
        if (m_syncing) return;
        const QString id = m_device->currentData().toString();
        EditOrigin origin(*m_document, m_device);
        if (m_document->setDeviceId(id))
            emit deviceChosen(id);
        else
            sync();
    });
    connect(m_document, &Document::changed, this, &DeviceBar::sync);
    // A device the model does not fit the rules of (its program, its layout): the previous one
    // is shown again, the reason under the list.
    connectRefusals(m_document, this, [this](QWidget*, const QString&) {
        sync();
        return RefusalPlace{};
    });
    sync();
}

void DeviceBar::setUnits(ByteUnits units) {
    m_units = units;
    m_layout->setUnits(units);
    sync();
}

void DeviceBar::sync() {
    m_syncing = true;
    const DeviceSpec& d = m_document->device();
    int index = m_device->findData(toQString(d.id));
    if (index < 0) {
        // A profile loaded from a file: list it so that the combo can show it.
        m_device->addItem(printableText(d.name), toQString(d.id));
        index = m_device->count() - 1;
    }
    m_device->setCurrentIndex(index);
    m_capacity->setText(
        tr("%1 (usable %2)")
            .arg(bytesText(d.memoryBytes, m_units), bytesText(d.usableBytes(), m_units)));
    syncCalibration();
    m_syncing = false;
}

void DeviceBar::syncCalibration() {
    const DeviceSpec& d = m_document->device();
    if (!d.calibrated()) {
        m_calibration->setVisible(false);
        m_calibration->clear();
        m_calibration->setToolTip({});
        return;
    }
    const ModelFile& model = m_document->model();
    const Precision precision = model.training.precision;
    const std::string name = model.network.name.empty() ? toStdString(m_document->displayName())
                                                        : model.network.name;
    const CalibrationCoverage cover = calibrationCoverage(d, m_document->graph(), precision);
    const std::vector<std::string> warnings =
        calibrationWarnings(d, m_document->graph(), precision, name);
    m_calibration->setText(
        (warnings.empty() ? tr("Calibrated: %1 of %2 ops measured")
                          : tr("Calibrated on other work: %1 of %2 ops measured"))
            .arg(cover.measured)
            .arg(cover.ops));
    const CalibrationOrigin& o = d.calibrationOrigin;
    QString tip = o.known() ? tr("Measured on model %1, %2, %3 backend (%4), %5")
                                  .arg(printableText(o.model), printableText(o.precision),
                                       printableText(o.backend), printableText(o.deviceName, 200),
                                       printableText(o.date))
                            : tr("What these times were measured on is not recorded");
    for (const std::string& w : warnings) tip += QStringLiteral("\n") + printableText(w, 600);
    m_calibration->setToolTip(tip);
    m_calibration->setVisible(true);
}

}  // namespace remat::ui
