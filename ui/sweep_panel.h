// The sweep panel: the growth law of checkpointing as a picture. It sweeps the current model
// over its depth (the repeat count of its repeated block), its sequence length or its
// micro-batch for none, full, every:2, every:4 and sqrt(N) (sim/sweep.h) and plots one line per
// strategy of the measure chosen: the activations of the swept blocks (where O(N) against
// O(sqrt N) shows), all activations, the whole peak, or the recompute overhead. The sweep runs
// in the background when the panel comes on screen and again after every edit while it is (newer
// requests supersede older ones), with a progress bar and Cancel; under the plot, how much the
// block activations grew over the range per strategy, and any value the model refused.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "device.h"
#include "model_file.h"
#include "report.h"
#include "sweep.h"

class QComboBox;
class QLineEdit;
class QLabel;
class QTimer;
class QToolButton;

namespace remat::ui {

class PlotAdapter;
class ProgressStrip;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    enum class Measure { BlockActivations, Activations, Peak, RecomputeOverhead };

    explicit SweepPanel(QWidget* parent = nullptr);
    ~SweepPanel() override;

    // The model the sweep is of. Sweeps at once when the panel is on screen, else when it comes
    // on screen.
    // Under a parallel layout of `training` every point is per GPU, of the rank that peaks, on
    // `cluster` (the device's own when null).
    void setModel(const ModelFile& model, const TrainingConfig& training, const DeviceSpec& device,
                  const ClusterSpec* cluster = nullptr);
    void setUnits(ByteUnits units);
    // Whether the panel is on screen: a dock's tab behind another is still "visible" to Qt, so
    // the dock's visibilityChanged drives this.
    void setShown(bool shown);
    bool isShown() const { return m_shown; }
    void cancel();
    bool isBusy() const;

    // The last complete sweep (empty before one finished) and what the panel says about it.
    const std::optional<SweepResult>& result() const { return m_result; }
    QString statusText() const;
    PlotAdapter* plot() const { return m_plot; }
    QComboBox* axisCombo() const { return m_axis; }
    QComboBox* measureCombo() const { return m_measure; }
    QLineEdit* valuesEdit() const { return m_values; }

signals:
    // A sweep finished (or failed, with the message on the panel).
    void finished();

private:
    void schedule();
    void start();
    struct Outcome {
        std::optional<SweepResult> result;
        QString error;
        bool cancelled = false;
        bool perGpu = false;  // a layout's sweep
    };
    void install(const Outcome& outcome);
    void redraw();
    void stopWatcher();

    struct Request {
        ModelFile model;
        TrainingConfig training;
        DeviceSpec device;
        std::optional<ClusterSpec> cluster;
    };
    std::optional<Request> m_request;
    bool m_stale = false;  // the request changed since the last sweep started
    bool m_shown = false;
    ByteUnits m_units = ByteUnits::Binary;
    std::optional<SweepResult> m_result;
    bool m_resultPerGpu = false;  // m_result is a layout's: per GPU, the rank that peaks

    QComboBox* m_axis;
    QLineEdit* m_values;
    QComboBox* m_measure;
    ProgressStrip* m_busy;
    QToolButton* m_cancel;
    QLabel* m_status;
    PlotAdapter* m_plot;
    QTimer* m_start;
    QFutureWatcher<Outcome>* m_watcher = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
};

}  // namespace remat::ui
