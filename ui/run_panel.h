// The run panel: executes the plan on screen for real — on the CPU reference executor or on
// the GPU (CUDA), the GPU option disabled with the reason shown when no CUDA device is usable —
// in a worker thread with a progress bar and Cancel, so the window never freezes. It then shows
// predicted against measured: tracked peak, device-level peak, time per phase, the largest
// per-instruction live-bytes difference (zero unless there is a bug) and the gradient check
// against the same network without checkpointing. The measured live bytes are emitted so the
// main window can lay them over the timeline.
//
// How the main window drives it:
//   setProgram(owner, graph, program, timeline, device) after every edit, with exactly the
//   program and timeline the TimelinePlot shows (the run executes that program, so
//   measured(liveBytes) lines up with the plot instruction by instruction and can go straight
//   to TimelinePlot::setMeasured(liveBytes, measuredLabel())). A new program cancels a run in
//   progress and clears the previous results.
#pragma once

#include <QFutureWatcher>
#include <QString>
#include <QWidget>
#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "device.h"
#include "graph.h"
#include "program.h"
#include "report.h"
#include "run_worker.h"
#include "simulator.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QRadioButton;
class QTableWidget;

namespace remat::ui {

class ProgressStrip;

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override;

    // The plan to run. `owner` keeps graph, program and timeline alive and unchanged while the
    // panel holds them (e.g. the document's immutable state); the overload without it copies.
    void setProgram(std::shared_ptr<const void> owner, const Graph& graph, const Program& program,
                    const Timeline& predicted, const DeviceSpec& device);
    void setProgram(const Graph& graph, const Program& program, const Timeline& predicted,
                    const DeviceSpec& device);
    // Nothing to run; `reason`, when given, is the status line (why there is nothing).
    void clearProgram(const QString& reason = QString());
    void setUnits(ByteUnits units);

    // Starts a run on the selected backend ("cpu" or "cuda"); false (with the reason in the
    // status line) when it cannot start.
    bool start();
    bool start(const QString& backend);
    void cancel();
    bool isRunning() const { return m_watcher != nullptr; }

    // A CPU run predicted longer than `seconds` is asked about before it starts (with the
    // estimate and what runs faster); 0: never. Starts from the setting (AppSettings), and
    // the question's "Don't ask again" sets both to 0.
    void setLongRunThreshold(double seconds);
    double longRunThreshold() const { return m_longRunS; }
    // How the question is put: returns whether to run; `dontAskAgain` may be set. By default a
    // message box with a "Don't ask again" check box; tests answer it themselves.
    using LongRunQuestion = std::function<bool(const QString& text, bool* dontAskAgain)>;
    void setLongRunQuestion(LongRunQuestion question) { m_longRunQuestion = std::move(question); }
    // The question's text for a run estimated at `estimateS` seconds.
    QString longRunQuestionText(double estimateS) const;

    QString selectedBackend() const;
    void selectBackend(const QString& backend);
    // GPU availability is probed in the background when the build has the CUDA executor.
    bool gpuAvailable() const { return m_gpuReason.isEmpty() && m_gpuProbed; }
    QString gpuUnavailableReason() const { return m_gpuReason; }

    const std::optional<RunOutcome>& lastOutcome() const { return m_outcome; }
    // Shows `outcome`, a finished run of the program set last, as if it had just finished here
    // (a new panel over the same program: the window rebuilt in another language).
    void showEarlierOutcome(const RunOutcome& outcome);
    QString measuredLabel() const;  // "measured (CPU)", for the timeline's legend
    QString statusText() const;
    QString liveCheckText() const;
    QString gradCheckText() const;
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QRadioButton* gpuOption() const { return m_gpu; }
    QTableWidget* resultsTable() const { return m_table; }

signals:
    // Tracked live bytes after every instruction of the program given to setProgram().
    void measured(std::vector<std::int64_t> liveBytes);
    void runStarted();
    void runFinished(bool ok);
    // The worker is done with the backend it ran on — after a result, a failure or a cancel
    // (then later than runFinished(false)): the bytes its pool still hands out and still
    // holds from the system. Both 0: every block went back. Not emitted for a run refused
    // before a backend ran anything.
    void runReleased(qint64 inUseBytes, qint64 heldBytes);
    void gpuProbed(bool available);

protected:
    void changeEvent(QEvent* event) override;

private:
    void updateControls();
    void showOutcome();
    void setStatus(const QString& text, bool error = false);
    void onFinished(QFutureWatcher<RunOutcome>* watcher);
    QString stageText(int stage) const;
    // The run stopped before starting because it is long: ask, then run it or say it did not.
    void confirmLongRun(const QString& backend, double estimateS);

    QRadioButton* m_cpu = nullptr;
    QRadioButton* m_gpu = nullptr;
    QLabel* m_gpuNote = nullptr;
    QCheckBox* m_allowUnsafe = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    ProgressStrip* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_liveCheck = nullptr;
    QLabel* m_gradCheck = nullptr;
    QLabel* m_losses = nullptr;

    std::shared_ptr<const void> m_owner;
    const Graph* m_graph = nullptr;
    const Program* m_program = nullptr;
    const Timeline* m_predicted = nullptr;
    DeviceSpec m_device;
    QString m_cpuRefusal;  // why the CPU executor refuses this program, empty if it does not

    QFutureWatcher<RunOutcome>* m_watcher = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    QFutureWatcher<QString>* m_probe = nullptr;
    bool m_gpuProbed = false;
    QString m_gpuReason;
    std::optional<RunOutcome> m_outcome;
    bool m_statusIsError = false;
    ByteUnits m_units = ByteUnits::Binary;
    QCheckBox* m_askLongRun = nullptr;
    double m_longRunS = 0.0;
    LongRunQuestion m_longRunQuestion;
    bool m_longRunConfirmed = false;  // the next start goes ahead whatever its estimate
};

}  // namespace remat::ui
