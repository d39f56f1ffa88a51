// The GPUs / layout of the training step: a button for the device bar whose text is the layout
// ("1 GPU", "dp 8 (ZeRO-3) x tp 2 (SP)") and the dialog it opens, with the data-parallel degree
// and ZeRO stage (FSDP's names in the tooltip), tensor parallelism and sequence parallelism,
// pipeline stages and schedule, context parallelism, offload to host memory, the cluster the
// GPUs are in, the total GPU count (their product, read-only) and the model states each ZeRO
// stage leaves on one GPU. Every change is one undoable edit of the document's training
// settings; a layout the network does not allow is refused with validateLayout's message, shown
// under the fields, and the document keeps its last valid layout.
#pragma once

#include <QDialog>
#include <QToolButton>

#include "parallel.h"
#include "report.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace remat::ui {

class Document;
class ModelStatesBars;

class LayoutDialog : public QDialog {
    Q_OBJECT
public:
    explicit LayoutDialog(Document* document, QWidget* parent = nullptr);

    void setUnits(ByteUnits units);
    // The layout the fields describe now.
    ParallelConfig fieldLayout() const;
    // The refusal of the last change, empty when it was accepted.
    QString message() const;
    QLabel* gpusLabel() const { return m_gpus; }
    QSpinBox* dpBox() const { return m_dp; }
    QComboBox* zeroBox() const { return m_zero; }
    QSpinBox* tpBox() const { return m_tp; }
    QCheckBox* sequenceParallelBox() const { return m_sp; }
    QSpinBox* ppBox() const { return m_pp; }
    QComboBox* scheduleBox() const { return m_schedule; }
    QSpinBox* virtualStagesBox() const { return m_virtual; }
    QSpinBox* cpBox() const { return m_cp; }
    QCheckBox* offloadOptimizerBox() const { return m_offloadOptimizer; }
    QCheckBox* offloadParametersBox() const { return m_offloadParameters; }
    QCheckBox* offloadActivationsBox() const { return m_offloadActivations; }
    QComboBox* clusterBox() const { return m_cluster; }
    ModelStatesBars* statesBars() const { return m_bars; }

private:
    void sync();
    void apply();
    void applyCluster();
    void showMessage(const QString& text);

    Document* m_document;
    QLabel* m_gpus;
    QSpinBox* m_dp;
    QComboBox* m_zero;
    QSpinBox* m_tp;
    QCheckBox* m_sp;
    QSpinBox* m_pp;
    QComboBox* m_schedule;
    QSpinBox* m_virtual;
    QSpinBox* m_cp;
    QCheckBox* m_offloadOptimizer;
    QCheckBox* m_offloadParameters;
    QCheckBox* m_offloadActivations;
    QComboBox* m_cluster;
    QLabel* m_clusterInfo;
    QLabel* m_message;
    ModelStatesBars* m_bars;
    ByteUnits m_units = ByteUnits::Binary;
    bool m_syncing = false;
};

// The device bar's button: shows describeLayout() of the document's layout and opens the
// dialog.
class LayoutButton : public QToolButton {
    Q_OBJECT
public:
    explicit LayoutButton(Document* document, QWidget* parent = nullptr);
    LayoutDialog* dialog() const { return m_dialog; }
    void setUnits(ByteUnits units);

private:
    void sync();
    Document* m_document;
    LayoutDialog* m_dialog;
};

}  // namespace remat::ui
