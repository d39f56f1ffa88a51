// The device bar: the device profile the step is planned for and its capacity ("80.00 GiB
// (usable 79.00 GiB)"). It sits on the main window's second toolbar row beside the memory
// budget, so that the strategy and training settings above it fit a 1280-pixel projector on one
// row. It shows the document's device and turns a choice into one document edit. A calibrated
// profile (one with measured op times) adds a label saying how many of the model's ops have a
// measured time, and, when the profile was measured on another model, precision or backend,
// that it was (the tooltip gives what it was measured on and the warnings). Beside the
// device, a button shows the GPUs / layout ("1 GPU", "dp 8 (ZeRO-3)") and opens its dialog
// (layout_dialog.h).
#pragma once

#include <QWidget>

#include "report.h"

class QComboBox;
class QLabel;

namespace remat::ui {

class Document;
class LayoutButton;

class DeviceBar : public QWidget {
    Q_OBJECT
public:
    explicit DeviceBar(Document* document, QWidget* parent = nullptr);

    void setUnits(ByteUnits units);
    QComboBox* deviceCombo() const { return m_device; }
    QLabel* calibrationLabel() const { return m_calibration; }
    LayoutButton* layoutButton() const { return m_layout; }

signals:
    // The user picked a device profile (the main window remembers it as the last device).
    void deviceChosen(const QString& id);

private:
    void sync();
    void syncCalibration();

    Document* m_document;
    ByteUnits m_units = ByteUnits::Binary;
    QComboBox* m_device;
    QLabel* m_capacity;
    QLabel* m_calibration;
    LayoutButton* m_layout;
    bool m_syncing = false;
};

}  // namespace remat::ui
