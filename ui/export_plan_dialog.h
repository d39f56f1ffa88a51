// File -> Export plan as code: the document's plan written for PyTorch, Hugging Face,
// Megatron-LM or DeepSpeed (sim/export_plan.h), previewed before it is saved or copied. It runs
// exportStrategy on the model's network, training settings, strategy and manual regions and the
// document's device, the same call `remat export MODEL --to TARGET --device ID` makes, so the
// preview is the CLI's text. A plan the target cannot express shows the refusal instead, and
// Save and Copy are disabled.
#pragma once

#include <QDialog>
#include <QString>

#include "device.h"
#include "export_plan.h"
#include "model_file.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace remat::ui {

class ExportPlanDialog : public QDialog {
    Q_OBJECT
public:
    ExportPlanDialog(const ModelFile& model, const DeviceSpec& device, QWidget* parent = nullptr);

    ExportTarget target() const;
    void setTarget(ExportTarget target);
    // The export of the current target, or empty when the target refuses the plan.
    QString text() const { return m_text; }
    // Why the target refuses the plan; empty when it does not.
    QString refusal() const { return m_refusal; }
    // "gpt2-small-every-2.py": the model, the strategy and the target's file type.
    QString suggestedFileName() const;
    // Writes text() to `path`; false (with a message box when interactive) on failure.
    bool saveTo(const QString& path);

private:
    void refresh();
    void saveDialog();

    ModelFile m_model;
    DeviceSpec m_device;
    QString m_text, m_refusal;
    QComboBox* m_targetBox = nullptr;
    QPlainTextEdit* m_preview = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_save = nullptr;
    QPushButton* m_copy = nullptr;
};

}  // namespace remat::ui
