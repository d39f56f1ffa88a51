#include "budget_slider.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "background_priority.h"
#include "document.h"
#include "optimal.h"
#include "optimal_budget.h"
#include "qt_convert.h"
#include "refusal_notice.h"
#include "strategy.h"

namespace remat::ui {

BudgetSlider::BudgetSlider(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_slider(new QSlider(Qt::Horizontal, this)),
      m_field(new QLineEdit(this)),
      m_range(new QLabel(this)) {
    m_slider->setObjectName(QStringLiteral("budgetSlider"));
    m_slider->setRange(0, kTicks);
    m_slider->setTracking(true);  // re-plan while dragging, not only on release
    m_slider->setMinimumWidth(220);
    m_slider->setToolTip(tr("Memory budget: the optimal plan re-plans as you drag"));
    m_field->setObjectName(QStringLiteral("budgetField"));
    m_field->setPlaceholderText(tr("e.g. 40GiB"));
    m_field->setMaximumWidth(120);
    m_field->setToolTip(tr("Memory budget (40GiB, 9.5 GiB, 512MB or bytes)"));
    m_range->setObjectName(QStringLiteral("budgetRange"));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    auto* caption = new QLabel(tr("Budget"), this);
    caption->setContentsMargins(8, 0, 2, 0);
    layout->addWidget(caption);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_field);
    layout->addWidget(m_range);

    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        if (m_syncing) return;
        EditOrigin origin(*m_document, m_slider);
        applyBudget(bytesAt(position));
    });
    connect(m_field, &QLineEdit::editingFinished, this, &BudgetSlider::fieldEdited);
    connect(m_document, &Document::changed, this, &BudgetSlider::sync);
    // A refused budget: the slider and the field show the budget in effect again (the field
    // even while it has the focus), the reason under the one that was edited.
    connectRefusals(m_document, this, [this](QWidget*, const QString&) {
        sync();
        m_field->setText(m_shownText);
        return RefusalPlace{};
    });
    // A budget whose plan was refused or cancelled in the background: show the document's.
    connect(m_document, &Document::busyChanged, this, [this](bool busy) {
        if (!busy && !m_document->isBusy()) sync();
    });
    sync();
}

BudgetSlider::~BudgetSlider() = default;

void BudgetSlider::setUnits(ByteUnits units) {
    m_units = units;
    sync();
}

std::int64_t BudgetSlider::bytesAt(int position) const {
    if (m_hi <= m_lo) return m_hi;
    return m_lo + std::int64_t(std::llround(double(m_hi - m_lo) * double(position) / kTicks));
}

int BudgetSlider::positionOf(std::int64_t bytes) const {
    if (m_hi <= m_lo) return kTicks;
    const double f = double(bytes - m_lo) / double(m_hi - m_lo);
    return int(std::lround(std::clamp(f, 0.0, 1.0) * kTicks));
}

QString BudgetSlider::rangeText() const {
    return m_range->text();
}

bool BudgetSlider::applyBudget(std::int64_t bytes) {
    const QString spelling = QStringLiteral("optimal:") + toQString(byteSizeSpelling(bytes));
    if (m_document->setStrategy(spelling)) return true;
    sync();  // refused (the document says why): show the document's state again
    return false;
}

void BudgetSlider::fieldEdited() {
    if (m_syncing) return;
    auto bytes = parseByteSize(toStdString(m_field->text().trimmed()));
    if (!bytes) {
        // Not a size: the budget in effect is shown again, the reason under the field.
        m_field->setText(m_shownText);
        showRefusal(m_field, toQString(bytes.error().message));
        return;
    }
    EditOrigin origin(*m_document, m_field);
    applyBudget(*bytes);
}

namespace {

// Ranges of long chains are computed one at a time, at background priority; a newer request
// makes the result of an older one ignored.
QThreadPool* rangePool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

}  // namespace

BudgetRange computeBudgetRange(const Graph& graph, const TrainingConfig& training,
                               const DeviceSpec& device) {
    BudgetRange range;
    auto model = ChainModel::build(graph, training, device);
    if (!model) {
        range.error = model.error().message;
        return range;
    }
    const OptimalPlanner planner(*model);
    range.lo = planner.minimumPeak().predictedPeakBytes;
    std::vector<UnitSegment> kept;
    for (int u = 0; u < model->unitCount(); ++u) kept.push_back(UnitSegment{u, u, false});
    range.hi = model->predict(kept)->peakBytes;
    return range;
}

// The planner's smallest reachable peak and the no-checkpoint peak for the current network,
// settings and device; recomputed when the network or the key (the settings) differ from what
// the range was computed for.
void BudgetSlider::refreshRange() {
    const ModelFile& m = m_document->model();
    const QString key = QStringLiteral("%1/%2/%3/%4/%5")
                            .arg(m.training.microBatch)
                            .arg(m.training.accumulationSteps)
                            .arg(int(m.training.precision))
                            .arg(int(m.training.optimizer))
                            .arg(toQString(m_document->device().id));
    if (m_rangeValid && key == m_rangeKey && sameStructure(m.network, m_rangeNetwork)) return;
    m_rangeNetwork = m.network;
    m_rangeKey = key;
    m_rangeValid = true;
    m_lo = m_hi = 0;
    m_plannerError.clear();
    m_rangePending = false;
    const quint64 request = ++m_rangeRequest;
    const std::shared_ptr<const DocumentState> state = m_document->stateHandle();
    if (expandedLayerCount(m.network) <= kCheapPlannerUnits || !m_document->backgroundEvaluation()) {
        setRange(computeBudgetRange(*state->graph, m.training, state->device));
        return;
    }
    // A long chain: the planner's tables take seconds. The slider waits, the window does not.
    m_rangePending = true;
    m_slider->setEnabled(false);
    auto* watcher = new QFutureWatcher<BudgetRange>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request] {
        watcher->deleteLater();
        if (request != m_rangeRequest) return;  // computed for a model no longer shown
        m_rangePending = false;
        setRange(watcher->result());
        sync();
    });
    watcher->setFuture(QtConcurrent::run(rangePool(), [state] {
        lowerThreadPriority();
        return computeBudgetRange(*state->graph, state->model.training, state->device);
    }));
}

void BudgetSlider::setRange(const BudgetRange& range) {
    m_lo = range.lo;
    m_hi = range.hi;
    m_plannerError = toQString(range.error);
    m_slider->setEnabled(range.error.empty() && m_hi > m_lo);
}

void BudgetSlider::sync() {
    m_syncing = true;
    refreshRange();
    auto s = parseStrategy(toStdString(m_document->strategySpelling()));
    const bool budgeted =
        s && (s->kind == StrategyKind::Optimal || s->kind == StrategyKind::OptimalNested);
    // Without a budget planner in effect, show where the current plan's peak sits.
    const std::int64_t shown =
        budgeted ? s->budgetBytes : m_document->evaluation().timeline.peakBytes;
    m_slider->setValue(positionOf(shown));
    m_shownText = bytesText(shown, m_units);
    if (!m_field->hasFocus()) m_field->setText(m_shownText);
    // Always from the range just computed: a label left as it was would show the previous
    // model's range.
    if (m_rangePending)
        m_range->setText(tr("(computing the budget range…)"));
    else if (!m_plannerError.isEmpty())
        m_range->setText(tr("(no budget planner: %1)").arg(m_plannerError));
    else if (m_hi > m_lo)
        m_range->setText(tr("%1 … %2").arg(bytesText(m_lo, m_units), bytesText(m_hi, m_units)));
    else
        m_range->setText(tr("%1: no plan lowers the peak").arg(bytesText(m_hi, m_units)));
    m_range->setToolTip(
        tr("From the smallest peak any single-level plan reaches to the peak "
           "without checkpointing"));
    m_syncing = false;
}

}  // namespace remat::ui
