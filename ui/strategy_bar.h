// The strategy bar: how the step is planned and run — the checkpointing strategy (manual,
// none, full, every-k with k, sqrt, selective with its sub-module kinds, and whichever budget
// planners the simulator provides), micro-batch, accumulation steps, precision and optimizer
// (the device is on the DeviceBar, device_bar.h). It shows the document's settings and turns
// each change into one document edit (spin boxes merge into one undo step while typing).
#pragma once

#include <QWidget>

#include "report.h"

class QCheckBox;
class QComboBox;
class QSpinBox;
class QDoubleSpinBox;
class QToolButton;
class QLabel;
class QMenu;

namespace remat::ui {

class Document;

class StrategyBar : public QWidget {
    Q_OBJECT
public:
    explicit StrategyBar(Document* document, QWidget* parent = nullptr);

    void setUnits(ByteUnits units);
    // The spelling the widgets describe now ("every:3").
    QString composedSpelling() const;

    QComboBox* strategyCombo() const { return m_strategy; }
    QSpinBox* kSpin() const { return m_k; }
    QSpinBox* microBatchSpin() const { return m_microBatch; }
    // The "Preserve RNG" switch (the model file's preserve_rng_state), kept in sync like the
    // other widgets; the window lays it out on the device row.
    QCheckBox* preserveRngCheck() const { return m_preserveRng; }
private:
    void sync();
    void updateParameterWidgets();
    void strategyEdited();
    QString selectiveKinds() const;

    Document* m_document;
    ByteUnits m_units = ByteUnits::Binary;
    QComboBox* m_strategy;
    QSpinBox* m_k;
    QToolButton* m_kinds;
    QMenu* m_kindsMenu;
    QDoubleSpinBox* m_budget;
    QSpinBox* m_microBatch;
    QSpinBox* m_accumulation;
    QComboBox* m_precision;
    QComboBox* m_optimizer;
    QCheckBox* m_preserveRng;
    bool m_syncing = false;
};

}  // namespace remat::ui
