// "Make it fit" (Tools menu): `remat fit` in the desktop app. The GPU count, the global batch
// and the cluster go to fitSearch (sim/fit.h), which runs on a worker thread — it simulates
// hundreds of layouts x strategies x micro-batch splits and can take seconds — with a busy strip
// and a Cancel button. The result is a table of the candidates that fit, best predicted
// throughput first (layout, recompute strategy, micro-batch x accumulation, peak per GPU, step
// time, MFU, samples/s), and, when nothing fits, why in numbers: the model states against the
// GPUs' memory, the smallest GPU count that fits, the offload plan, each rejected layout family.
// Double-clicking a row applies its layout, strategy and micro-batch to the document as one
// undoable edit.
#pragma once

#include <QDialog>
#include <memory>
#include <optional>
#include <vector>

#include "cancel.h"
#include "cluster.h"
#include "fit.h"
#include "report.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace remat::ui {

class Document;
class ProgressStrip;

class FitDialog : public QDialog {
    Q_OBJECT
public:
    enum Column { LayoutColumn, StrategyColumn, SplitColumn, PeakColumn, StepColumn, MfuColumn,
                  ThroughputColumn, ColumnCount };

    explicit FitDialog(Document* document, QWidget* parent = nullptr);
    ~FitDialog() override;

    void setUnits(ByteUnits units);
    // Starts a search with the fields' values, cancelling one in flight.
    void start();
    // Stops the search in flight; its result is dropped.
    void cancel();
    bool isRunning() const { return m_cancel != nullptr; }
    // Applies the candidate of table row `row` to the document (one undo step).
    remat::Status applyRow(int row);

    const std::optional<FitResult>& result() const { return m_result; }
    QString messageText() const;
    QSpinBox* gpusBox() const { return m_gpus; }
    QSpinBox* globalBatchBox() const { return m_globalBatch; }
    QComboBox* clusterBox() const { return m_cluster; }
    QTableWidget* table() const { return m_table; }

signals:
    // A search ended: its result is shown, or it failed or was cancelled.
    void searchFinished();

private:
    void showResult();
    void showFailure(const QString& text);
    void setRunning(bool running);
    void syncClusters();

    Document* m_document;
    QSpinBox* m_gpus;
    QSpinBox* m_globalBatch;
    QComboBox* m_cluster;
    std::vector<ClusterSpec> m_clusters;  // the combo's entries
    QPushButton* m_search;
    QPushButton* m_cancelButton;
    ProgressStrip* m_progress;
    QLabel* m_status;
    QTableWidget* m_table;
    int m_editedRow = -1;  // the row last applied, where a refusal is shown
    QLabel* m_message;
    std::vector<FitCandidate> m_rows;  // the table's rows
    std::optional<FitResult> m_result;
    ClusterSpec m_resultCluster;       // the cluster of the shown result
    std::shared_ptr<CancelFlag> m_cancel;  // the search in flight
    quint64 m_searchId = 0;
    ByteUnits m_units = ByteUnits::Binary;
};

}  // namespace remat::ui
