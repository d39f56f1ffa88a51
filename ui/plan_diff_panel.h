// Two plans side by side: the plan on show (A) and another one typed in its CLI spelling (B,
// `none` at first), evaluated for the same model, training settings and device. Both timelines
// on one plot against predicted time into the step (a recompute makes a plan longer, so time is
// what lines the two up), the gap between them shaded; a headline with both peaks; and the
// tensors that differ at the two peaks, largest first — live at one plan's peak and not at the
// other's (sim/plan_diff.h). Plan B is evaluated in the background, only while the panel is
// shown, and again after every edit; a newer request cancels the one in flight.
#pragma once

#include <QString>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "analysis.h"
#include "plan_diff.h"
#include "report.h"

class QLineEdit;
class QTreeWidget;
template <typename T>
class QFutureWatcher;

namespace remat::ui {

class PlotAdapter;
class WrapLabel;
struct DocumentState;

class PlanDiffPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlanDiffPanel(QWidget* parent = nullptr);
    ~PlanDiffPanel() override;

    // The document's state and the spelling of its strategy (plan A).
    void setState(std::shared_ptr<const DocumentState> state, const QString& spelling);
    // Evaluates only while shown.
    void setShown(bool shown);
    void setOtherStrategy(const QString& spelling);
    QString otherStrategy() const;
    void setUnits(ByteUnits units);

    bool isBusy() const { return m_watcher != nullptr; }
    bool hasResult() const { return m_difference.has_value(); }
    const PeakDifference& difference() const { return *m_difference; }
    QString headline() const;
    PlotAdapter* plotAdapter() const { return m_plot; }
    QTreeWidget* table() const { return m_table; }

signals:
    // Plan B was evaluated (or refused: the headline says why).
    void finished();

private:
    struct Outcome;
    void start();
    void stop();
    void install(const Outcome& outcome);
    void redraw();

    std::shared_ptr<const DocumentState> m_state;
    QString m_spellingA;
    bool m_shown = false;
    bool m_stale = false;
    ByteUnits m_units = ByteUnits::Binary;

    QLineEdit* m_other;
    WrapLabel* m_headline;
    PlotAdapter* m_plot;
    QTreeWidget* m_table;

    QFutureWatcher<Outcome>* m_watcher = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    // The last result: A's state, B's evaluation and what differs.
    std::shared_ptr<const DocumentState> m_shownState;
    std::shared_ptr<const Evaluation> m_evaluationB;
    QString m_spellingB;
    std::optional<PeakDifference> m_difference;
};

}  // namespace remat::ui
