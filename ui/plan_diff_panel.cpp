#include "plan_diff_panel.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>

#include "axis_units.h"
#include "background_priority.h"
#include "document_evaluation.h"
#include "model_file.h"
#include "plot_adapter.h"
#include "qt_convert.h"
#include "wrap_label.h"

namespace remat::ui {
namespace {

constexpr int kBuckets = 600;
constexpr const char* kLineA = "planA";
constexpr const char* kLineB = "planB";
const QColor kColorA(0x3b, 0x82, 0xf6);
const QColor kColorB(0xe1, 0x57, 0x59);

QThreadPool* diffPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

}  // namespace

struct PlanDiffPanel::Outcome {
    std::shared_ptr<const DocumentState> state;
    QString spelling;
    std::shared_ptr<const Evaluation> evaluation;
    QString error;
    bool cancelled = false;
};

PlanDiffPanel::PlanDiffPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("planDiff"));
    m_other = new QLineEdit(QStringLiteral("none"), this);
    m_other->setObjectName(QStringLiteral("planDiffOther"));
    m_other->setToolTip(
        tr("The plan to compare with, spelled as on the command line: none, "
           "full, every:3, sqrt, selective:mlp, optimal:40GiB, ..."));
    m_other->setMaximumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 24);
    connect(m_other, &QLineEdit::editingFinished, this, [this] {
        if (m_other->text().trimmed() != m_spellingB || !hasResult()) start();
    });
    auto* box = new WrapBox(this, 80);
    m_headline = box->label();

    m_plot = new PlotAdapter(this);
    m_plot->setMinimumSize(240, 120);
    m_table = new QTreeWidget(this);
    m_table->setObjectName(QStringLiteral("planDiffTensors"));
    m_table->setRootIsDecorated(false);
    m_table->setHeaderLabels({tr("Tensor"), tr("Size"), tr("Live only at the peak of")});
    m_table->header()->setStretchLastSection(true);
    m_table->setColumnWidth(0, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 28);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Compare with:"), this));
    top->addWidget(m_other);
    top->addWidget(box, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({1000, 1000});  // half each
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);
}

PlanDiffPanel::~PlanDiffPanel() {
    stop();
}

void PlanDiffPanel::setState(std::shared_ptr<const DocumentState> state, const QString& spelling) {
    m_state = std::move(state);
    m_spellingA = spelling;
    m_stale = true;
    if (m_shown) start();
}

void PlanDiffPanel::setShown(bool shown) {
    m_shown = shown;
    if (shown && m_stale) start();
    if (!shown) stop();
}

void PlanDiffPanel::setOtherStrategy(const QString& spelling) {
    m_other->setText(spelling);
    start();
}

QString PlanDiffPanel::otherStrategy() const {
    return m_other->text().trimmed();
}

void PlanDiffPanel::setUnits(ByteUnits units) {
    m_units = units;
    redraw();
}

QString PlanDiffPanel::headline() const {
    return m_headline->text();
}

void PlanDiffPanel::stop() {
    if (m_cancel) m_cancel->store(true);
    m_cancel.reset();
    if (m_watcher) {
        QFutureWatcher<Outcome>* old = m_watcher;
        m_watcher = nullptr;
        old->cancel();  // deletes itself when its future finishes
    }
    if (m_state) m_stale = true;
}

void PlanDiffPanel::start() {
    if (!m_state) return;
    stop();
    m_stale = false;
    const QString spelling = otherStrategy();
    auto parsed = parseStrategy(toStdString(spelling));
    if (!parsed) {
        m_difference.reset();
        m_evaluationB.reset();
        redraw();
        m_headline->setText(tr("Cannot compare with '%1': %2")
                                .arg(printableText(spelling),
                                     printableText(parsed.error().message, kShownMessageChars)));
        emit finished();
        return;
    }
    m_headline->setText(tr("Evaluating %1…").arg(printableText(spelling)));
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        if (watcher == m_watcher) {
            m_watcher = nullptr;
            m_cancel.reset();
            if (watcher->future().resultCount() > 0) install(watcher->result());
        }
        watcher->deleteLater();
    });
    const std::shared_ptr<const DocumentState> state = m_state;
    const Strategy strategy = *parsed;
    watcher->setFuture(QtConcurrent::run(diffPool(), [state, strategy, spelling, cancel] {
        lowerThreadPriority();
        Outcome o;
        o.state = state;
        o.spelling = spelling;
        const Evaluation& a = state->evaluation;
        const Baseline baseline{a.baselinePeakBytes, a.baselineTimeS,
                                a.baselineSavedActivationBytes};
        auto r = evaluate(*state->graph, strategy, manualRegions(state->model),
                          state->model.training, state->device, &baseline, cancel.get());
        if (r)
            o.evaluation = std::make_shared<const Evaluation>(std::move(*r));
        else if (cancel->load())
            o.cancelled = true;
        else
            o.error = toQString(r.error().message);
        return o;
    }));
}

void PlanDiffPanel::install(const Outcome& o) {
    if (o.cancelled) return;
    if (!o.evaluation) {
        m_difference.reset();
        m_evaluationB.reset();
        m_headline->setText(
            tr("Cannot compare with '%1': %2")
                .arg(printableText(o.spelling), printableText(o.error, kShownMessageChars)));
        redraw();
        emit finished();
        return;
    }
    m_shownState = o.state;
    m_evaluationB = o.evaluation;
    m_spellingB = o.spelling;
    const Evaluation& a = o.state->evaluation;
    m_difference = peakDifference(*o.state->graph, a.program, a.timeline, o.evaluation->program,
                                  o.evaluation->timeline);
    redraw();
    emit finished();
}

void PlanDiffPanel::redraw() {
    m_plot->clearAll();
    m_table->clear();
    if (!m_difference || !m_shownState || !m_evaluationB) {
        m_plot->replot();
        return;
    }
    const Timeline& ta = m_shownState->evaluation.timeline;
    const Timeline& tb = m_evaluationB->timeline;
    const QString nameA = m_spellingA, nameB = m_spellingB;
    const PeakDifference& d = *m_difference;
    const std::int64_t gap = d.peakA - d.peakB;
    m_headline->setText(
        tr("Peak %1 with %2, %3 with %4: %5 %6. At the peaks they share %7; the tensors that "
           "differ are listed.")
            .arg(bytesText(d.peakA, m_units), printableText(nameA), bytesText(d.peakB, m_units),
                 printableText(nameB), bytesText(gap < 0 ? -gap : gap, m_units),
                 gap == 0 ? tr("the same")
                          : (gap > 0 ? tr("more with %1").arg(printableText(nameA))
                                     : tr("more with %1").arg(printableText(nameB))),
                 bytesText(d.sharedBytes, m_units)));

    const double endA = ta.endS.empty() ? 0.0 : ta.endS.back();
    const double endB = tb.endS.empty() ? 0.0 : tb.endS.back();
    const double end = std::max(endA, endB);
    if (end > 0) {
        const auto a = resampleTotals(ta, end, kBuckets);
        const auto b = resampleTotals(tb, end, kBuckets);
        QVector<double> x, ya, yb, lo, hi;
        for (int k = 0; k < kBuckets; ++k) {
            const double at = end * k / kBuckets;
            x.push_back(at);
            const double va = a[std::size_t(k)] < 0 ? qQNaN() : double(a[std::size_t(k)]);
            const double vb = b[std::size_t(k)] < 0 ? qQNaN() : double(b[std::size_t(k)]);
            ya.push_back(va);
            yb.push_back(vb);
            // The gap is shaded where both plans run.
            const bool both = !qIsNaN(va) && !qIsNaN(vb);
            lo.push_back(both ? std::min(va, vb) : 0.0);
            hi.push_back(both ? std::max(va, vb) : 0.0);
        }
        QColor gapColor = palette().color(QPalette::Text);
        gapColor.setAlpha(60);
        m_plot->setStackedAreas({AreaStyle{QString(), Qt::transparent, false},
                                 AreaStyle{tr("difference"), gapColor, true}});
        m_plot->setStackedData(x, {lo, hi});
        LineStyle sa;
        sa.color = kColorA;
        sa.steps = true;
        LineStyle sb = sa;
        sb.color = kColorB;
        m_plot->setLine(QString::fromLatin1(kLineA), printableText(nameA), x, ya, sa);
        m_plot->setLine(QString::fromLatin1(kLineB), printableText(nameB), x, yb, sb);
        const double top = double(std::max(d.peakA, d.peakB)) * 1.1;
        const AxisUnit bytes = byteAxisUnit(top, m_units);
        const AxisUnit time = timeAxisUnit(end);
        m_plot->setAxis(PlotAxis::X, tr("time into the step (%1)").arg(time.name), time.scale);
        m_plot->setAxis(PlotAxis::Y, tr("live memory (%1)").arg(bytes.name), bytes.scale);
        m_plot->setRange(PlotAxis::X, 0, end);
        m_plot->setRange(PlotAxis::Y, 0, top);
    }
    m_plot->replot();

    auto addRows = [&](const std::vector<PeakTensor>& tensors, const QString& plan) {
        for (const PeakTensor& t : tensors) {
            QString label = printableText(t.label);
            if (t.count > 1) label = tr("%1 (× %2)").arg(label).arg(t.count);
            auto* item = new QTreeWidgetItem(m_table, {label, bytesText(t.bytes, m_units), plan});
            item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(0,
                             QStringLiteral("%1 (%2)").arg(label, categoryDisplayName(t.category)));
            item->setData(0, Qt::DecorationRole, categoryColor(t.category));
        }
    };
    addRows(d.onlyA, printableText(nameA));
    addRows(d.onlyB, printableText(nameB));
}

}  // namespace remat::ui
