// The comparison panel: every strategy for the current model side by side, as a sortable table
// (the columns of `remat compare`) and as the memory-versus-time trade-off plot. request()
// starts the computation in the background (QtConcurrent) and returns at once; a newer request
// cancels the older one, whose result is ignored if it still arrives. The table appears as soon
// as its rows are done, the every:K curve follows, then the optimal frontier. A click on a row
// or a point (of the frontier too: `optimal:PEAK`) emits strategyChosen(spelling) for the main
// window to apply. A busy bar shows progress.
#pragma once

#include <QFutureWatcher>
#include <QString>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "comparison_worker.h"
#include "device.h"
#include "frozen_column_view.h"
#include "model_file.h"
#include "network.h"
#include "report.h"

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTimer;
class QToolButton;

namespace remat::ui {

class ComparisonModel;
class ProgressStrip;
class TradeoffPlot;

class ComparisonPanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonPanel(QWidget* parent = nullptr);
    ~ComparisonPanel() override;

    // Compares every strategy for this model, settings and device in the background.
    // `currentStrategy` (a CLI spelling) is highlighted. When only it changed since the last
    // complete result and that result already holds it, nothing is recomputed.
    // `cluster`: the cluster a parallel layout of `training` runs on (the device's own when
    // null); under a layout every figure is per GPU, of the rank that peaks.
    void request(const ModelFile& model, const TrainingConfig& training, const DeviceSpec& device,
                 const QString& currentStrategy, const ClusterSpec* cluster = nullptr);
    void setCurrentStrategy(const QString& spelling);
    void cancel();
    bool isBusy() const { return m_watcher != nullptr || m_pending.has_value(); }
    void setUnits(ByteUnits units);

    bool exportCsv(const QString& path, QString* error = nullptr) const;
    bool exportMarkdown(const QString& path, QString* error = nullptr) const;
    bool exportPlot(const QString& path, QString* error = nullptr);

    const ComparisonResult& result() const { return m_result; }
    ComparisonModel* model() const { return m_model; }
    TradeoffPlot* plot() const { return m_plot; }
    // The table (its first column, the strategy, frozen: frozen_column_view.h).
    FrozenColumnTableView* table() const { return m_table; }
    // The table back to its first row and column: another model was opened (an edit of the
    // plan or the budget keeps where it was scrolled to).
    void resetScroll();
    ProgressStrip* busyBar() const { return m_busy; }
    QString statusText() const;

signals:
    void strategyChosen(const QString& spelling);
    // A complete result (table, curve and frontier) is shown.
    void computed();
    void busyChanged(bool busy);

protected:
    void changeEvent(QEvent* event) override;

private:
    void install(const ComparisonResult& result);
    void finishWatcher();
    // Drops the running or pending request (late results are ignored) without touching the busy
    // bar.
    void stopWatcher();
    void startPending();
    static constexpr int kStartDelayMs = 16;  // one frame
    void setBusy(bool busy);
    void chooseExport();
    bool sameInputs(const ComparisonRequest& a, const ComparisonRequest& b) const;
    bool holds(const QString& spelling) const;

    ComparisonModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    FrozenColumnTableView* m_table = nullptr;
    TradeoffPlot* m_plot = nullptr;
    QLabel* m_status = nullptr;
    ProgressStrip* m_busy = nullptr;
    QToolButton* m_export = nullptr;
    QSplitter* m_split = nullptr;
    bool m_splitSized = false;
    QFutureWatcher<ComparisonResult>* m_watcher = nullptr;  // the request in flight
    std::optional<ComparisonRequest> m_pending;              // the request about to start
    QTimer* m_start = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;        // stops its frontier
    std::optional<ComparisonRequest> m_lastRequest;         // of m_result
    ComparisonResult m_result;
    QString m_current;
    ByteUnits m_units = ByteUnits::Binary;
};

}  // namespace remat::ui
