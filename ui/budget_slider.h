// The memory-budget slider and field: "give it a budget, get the plan". Dragging the slider or
// typing a size ("40GiB", "9.5 GiB", "512MB") re-plans live with the single-level optimal
// planner (`optimal:BUDGET`): the document's strategy becomes that spelling, so the stack,
// the timeline and the summary follow as for any other edit. The slider spans the smallest
// peak any single-level plan reaches to the peak without checkpointing, for the current
// network, settings and device (recomputed when those change, from the planner's own tables);
// the text beside it always states the range of the model that is open, or why it has none.
// On a long chain the range is computed, and each budget planned, in the background: dragging
// then never blocks the window, and only the latest position is planned (Document supersedes
// the plan in flight).
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <string>

#include "device.h"
#include "graph.h"
#include "network.h"
#include "report.h"

class QLabel;
class QLineEdit;
class QSlider;

namespace remat::ui {

class Document;

// The slider's span for a lowered network: the smallest peak a single-level plan reaches and
// the peak without checkpointing (lo == hi when no plan lowers it), or why the planner does not
// model this chain. Seconds for chains of thousands of elements: long chains get it computed
// in the background (the slider is disabled meanwhile and says so).
struct BudgetRange {
    std::int64_t lo = 0, hi = 0;
    std::string error;
};
BudgetRange computeBudgetRange(const Graph& graph, const TrainingConfig& training,
                               const DeviceSpec& device);

class BudgetSlider : public QWidget {
    Q_OBJECT
public:
    explicit BudgetSlider(Document* document, QWidget* parent = nullptr);
    ~BudgetSlider() override;

    void setUnits(ByteUnits units);
    // The budget range the slider spans now (0, 0 when the chain is outside the planner's model;
    // equal bounds when no single-level plan lowers the peak: the slider is then disabled).
    std::int64_t minimumBytes() const { return m_lo; }
    std::int64_t maximumBytes() const { return m_hi; }

    QSlider* slider() const { return m_slider; }
    QLineEdit* field() const { return m_field; }
    // The text beside the field: the range, or why there is none.
    QString rangeText() const;

    // Sets the budget as the slider or the field would (false when refused).
    bool applyBudget(std::int64_t bytes);

private:
    void sync();
    void refreshRange();
    void setRange(const BudgetRange& range);
    std::int64_t bytesAt(int position) const;
    int positionOf(std::int64_t bytes) const;
    void fieldEdited();

    static constexpr int kTicks = 1000;

    Document* m_document;
    ByteUnits m_units = ByteUnits::Binary;
    QSlider* m_slider;
    QLineEdit* m_field;
    QLabel* m_range;
    std::int64_t m_lo = 0, m_hi = 0;
    QString m_plannerError;  // why the planner does not model this chain (then no range)
    // What the range was computed for: the network (by value: a graph's address says nothing
    // once that graph is gone, and a new model's graph may be built at the same address) and
    // the settings' spelling.
    Network m_rangeNetwork;
    QString m_rangeKey;
    QString m_shownText;  // the budget (or peak) the field shows when not being typed in
    bool m_rangeValid = false;
    bool m_rangePending = false;  // being computed in the background
    quint64 m_rangeRequest = 0;   // the latest range asked for
    bool m_syncing = false;
};

}  // namespace remat::ui
