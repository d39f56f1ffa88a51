#include "summary_panel.h"

#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QPixmap>
#include <QVBoxLayout>
#include <algorithm>

#include "instruction_caption.h"
#include "qt_convert.h"
#include "region_savings.h"
#include "simulator.h"
#include "status_colors.h"
#include "wrap_label.h"

namespace remat::ui {
namespace {

// Differences in memory smaller than this are reported as "the same".
constexpr double kSameFraction = 0.0005;

QString samplesText(double perS) {
    return QString::number(perS, 'f', perS < 10 ? 2 : (perS < 1000 ? 1 : 0));
}

QPixmap swatch(const QColor& c, int size) {
    QPixmap p(size, size);
    p.fill(c);
    return p;
}

void clearLayout(QLayout* layout) {
    while (QLayoutItem* item = layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

}  // namespace

SummaryPanel::SummaryPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);

    auto* verdict = new WrapBox(this);
    m_verdict = verdict->label();
    m_verdict->setObjectName(QStringLiteral("summaryVerdict"));
    applyVerdictFont();
    layout->addWidget(verdict);

    m_fields = new QGridLayout;
    m_fields->setColumnStretch(1, 1);
    m_fields->setHorizontalSpacing(12);
    // Under a parallel layout: which GPU the figures below are of.
    m_rank = addField(tr("Figures are"));
    m_peak = addField(tr("Peak memory"));
    m_keptActivations = addField(tr("Activations kept for backward"));
    m_peakAt = addField(tr("Peak reached at"));
    m_overhead = addField(tr("Recompute overhead"));
    m_stepTime = addField(tr("Predicted step time"));
    m_throughput = addField(tr("Throughput"));
    m_mfu = addField(tr("MFU"));
    m_maxMicroBatch = addField(tr("Largest micro-batch that fits"));
    m_mfu->setToolTip(tr("Model FLOPs utilization: the model's forward and backward FLOPs per "
                         "step (no recompute) over the step time, the GPUs and their peak"));
    setFieldShown(m_rank, false);
    setFieldShown(m_mfu, false);
    layout->addLayout(m_fields);

    auto* breakdownTitle = new QLabel(tr("What the peak is made of"), this);
    QFont bold = breakdownTitle->font();
    bold.setBold(true);
    breakdownTitle->setFont(bold);
    layout->addWidget(breakdownTitle);
    m_breakdown = new QGridLayout;
    m_breakdown->setColumnStretch(1, 1);
    m_breakdown->setHorizontalSpacing(8);
    for (int row = 0; row < int(kAllCategories.size()); ++row) {
        BreakdownRow r;
        r.swatch = new QLabel(this);
        r.name = new QLabel(this);
        r.amount = new QLabel(this);
        r.amount->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        r.percent = new QLabel(this);
        r.percent->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_breakdown->addWidget(r.swatch, row, 0);
        m_breakdown->addWidget(r.name, row, 1);
        m_breakdown->addWidget(r.amount, row, 2);
        m_breakdown->addWidget(r.percent, row, 3);
        for (QLabel* l : {r.swatch, r.name, r.amount, r.percent}) l->setVisible(false);
        m_breakdownRows.push_back(r);
    }
    fixBreakdownCells();
    layout->addLayout(m_breakdown);

    m_warnings = new QVBoxLayout;
    layout->addLayout(m_warnings);
    layout->addStretch(1);
    clear();
}

QLabel* SummaryPanel::addField(const QString& name) {
    const int row = m_fields->rowCount();
    auto* title = new QLabel(name, this);
    title->setAlignment(Qt::AlignRight | Qt::AlignTop);
    auto* value = new WrapBox(this);
    m_fields->addWidget(title, row, 0);
    m_fields->addWidget(value, row, 1);
    m_fieldCells.emplace_back(title, value);
    return value->label();
}

void SummaryPanel::setFieldShown(QLabel* value, bool shown) {
    for (const auto& [title, box] : m_fieldCells)
        if (box->isAncestorOf(value)) {
            if (title->isHidden() != shown) return;  // already as asked: no relayout
            title->setVisible(shown);
            box->setVisible(shown);
        }
}

void SummaryPanel::clear() {
    m_has = false;
    m_unsafe.clear();
    m_mayDiffer.clear();
    m_notes.clear();
    refresh();
}

void SummaryPanel::setEvaluation(const Evaluation& e, const DeviceSpec& device,
                                 const Graph& graph, const ParallelEvaluation* parallel) {
    const Timeline& t = e.timeline;
    m_parallel = parallel != nullptr;
    if (parallel) {
        m_stage = std::int64_t(parallel->peakStage);
        m_stages = std::int64_t(parallel->stages.size());
        m_gpus = parallel->layout.gpus();
        m_layout = toQString(describeLayout(parallel->layout));
        m_clusterName = printableText(parallel->cluster.name);
        m_parallelTime = parallel->time;
        m_mfuValue = parallel->mfu;
        m_hfuValue = parallel->hfu;
        m_hostBytesPerNode = parallel->hostBytesPerNode;
        m_hostFits = parallel->hostFits;
        m_hostMemoryBytes = parallel->cluster.hostMemoryBytes;
    }
    m_has = true;
    m_fits = t.fits && (!parallel || parallel->hostFits);
    m_peakBytes = t.peakBytes;
    m_baselinePeakBytes = e.baselinePeakBytes;
    m_usableBytes = device.usableBytes();
    m_maxMicroBatchValue = t.maxMicroBatch;
    m_microBatch = e.program.microBatch;
    m_samplesPerStep = parallel ? parallel->globalBatch : t.samplesPerStep;
    m_samplesPerS = parallel ? parallel->samplesPerS() : t.samplesPerS();
    m_savedFraction = e.memorySavedFraction();
    m_keptActivationBytes = t.savedActivationBytes;
    m_baselineKeptActivationBytes = e.baselineSavedActivationBytes;
    m_activationsSavedFraction = e.activationsSavedFraction();
    m_modelStateBytes = modelStateBytes(t);
    m_baselineTimeS = e.baselineTimeS;
    m_overheadFraction = e.recomputeOverhead();
    m_timeS = t.timeS;
    m_breakdownBytes = t.breakdownAtPeak;
    m_peakInstruction.reset();
    if (t.peakInstruction < e.program.instructions.size())
        m_peakInstruction = instructionParts(graph, e.program, t.peakInstruction);
    m_deviceName = printableText(device.name);
    m_strategy = toQString(e.strategy.spelling());
    m_unsafe.clear();
    for (const std::string& reason : e.program.unsafeReasons)
        m_unsafe << printableText(reason, kShownMessageChars);
    m_mayDiffer.clear();
    for (const std::string& reason : e.program.mayDifferReasons)
        m_mayDiffer << printableText(reason, kShownMessageChars);
    m_notes.clear();
    for (const std::string& note : e.program.safeNotes)
        m_notes << printableText(note, kShownMessageChars);
    for (const std::string& note : littleSavingNotes(graph, e.program.plan, e.program.microBatch,
                                                      e.baselineSavedActivationBytes))
        m_notes << printableText(note, kShownMessageChars);
    refresh();
}

void SummaryPanel::setUnits(ByteUnits units) {
    if (units == m_units) return;
    m_units = units;
    refresh();
}

void SummaryPanel::refresh() {
    m_breakdownTexts.clear();
    QPalette verdictPalette = palette();
    if (!m_has) {
        m_verdict->setPalette(verdictPalette);
        m_verdict->setText(tr("No plan evaluated yet."));
        for (QLabel* l : {m_peak, m_keptActivations, m_peakAt, m_overhead, m_stepTime,
                          m_throughput, m_maxMicroBatch, m_rank, m_mfu})
            l->clear();
        setFieldShown(m_rank, false);
        setFieldShown(m_mfu, false);
        for (BreakdownRow& r : m_breakdownRows)
            for (QLabel* l : {r.swatch, r.name, r.amount, r.percent}) l->setVisible(false);
        m_breakdownShown = 0;
        showWarnings({});
        return;
    }

    const QString peak = bytesText(m_peakBytes, m_units);
    const QString usable = bytesText(m_usableBytes, m_units);
    const bool unsafe = !m_unsafe.isEmpty() || !m_mayDiffer.isEmpty();
    // Model states (parameters, gradients, optimizer state) are what no plan removes: when they
    // alone exceed the device, no checkpointing plan and no micro-batch fits.
    const bool statesExceed = m_modelStateBytes >= m_usableBytes;
    Status verdictStatus = Status::Good;
    if (m_fits) {
        const double share = m_usableBytes > 0 ? double(m_peakBytes) / double(m_usableBytes) : 0.0;
        if (unsafe) {
            // A tick would read as "go ahead"; an unsafe plan changes the gradients.
            verdictStatus = Status::Warning;
            m_verdict->setText(
                m_unsafe.isEmpty()
                    ? tr("⚠ Fits on %1: peak %2 of %3 usable (%4), but the plan is unsafe: its "
                         "gradients may differ from training without checkpointing.")
                          .arg(m_deviceName, peak, usable, formatPercent(share))
                    : tr("⚠ Fits on %1: peak %2 of %3 usable (%4), but the plan is "
                         "unsafe: its gradients differ from training without "
                         "checkpointing.")
                          .arg(m_deviceName, peak, usable, formatPercent(share)));
        } else {
            m_verdict->setText(tr("✔ Fits on %1: peak %2 of %3 usable (%4).")
                                   .arg(m_deviceName, peak, usable, formatPercent(share)));
        }
    } else {
        verdictStatus = Status::Bad;
        QString text =
            m_parallel && !m_hostFits && m_peakBytes <= m_usableBytes
                ? tr("✘ Does not fit on %1: the state offloaded to host memory takes %2 "
                     "per node, more than the node's %3.")
                      .arg(m_clusterName, bytesText(m_hostBytesPerNode, m_units),
                           bytesText(m_hostMemoryBytes, m_units))
            : statesExceed
                ? tr("✘ Does not fit on %1, whatever the plan: model states alone (parameters, "
                     "gradients, optimizer state) take %2 of the device's %3 usable; no "
                     "checkpointing plan or micro-batch changes that.")
                      .arg(m_deviceName, bytesText(m_modelStateBytes, m_units), usable)
                : tr("✘ Does not fit on %1: the peak of %2 exceeds the %3 usable by %4.")
                      .arg(m_deviceName, peak, usable,
                           bytesText(m_peakBytes - m_usableBytes, m_units));
        if (unsafe) text += QLatin1Char(' ') + tr("The plan is also unsafe (see below).");
        m_verdict->setText(text);
    }
    verdictPalette.setColor(QPalette::WindowText, statusColor(verdictStatus, palette()));
    m_verdict->setPalette(verdictPalette);

    const QString baseline = bytesText(m_baselinePeakBytes, m_units);
    // Shares say what they are a share of: the peak here, the kept activations below.
    if (m_savedFraction > kSameFraction)
        m_peak->setText(tr("%1, %2 less than the peak without checkpointing (%3)")
                            .arg(peak, formatPercent(m_savedFraction), baseline));
    else if (m_savedFraction < -kSameFraction)
        m_peak->setText(tr("%1, %2 more than the peak without checkpointing (%3)")
                            .arg(peak, formatPercent(-m_savedFraction), baseline));
    else
        m_peak->setText(tr("%1, the same as without checkpointing").arg(peak));
    const QString kept = bytesText(m_keptActivationBytes, m_units);
    const QString keptBaseline = bytesText(m_baselineKeptActivationBytes, m_units);
    if (m_activationsSavedFraction > kSameFraction)
        m_keptActivations->setText(
            tr("%1, %2 less than the activations kept without checkpointing (%3)")
                .arg(kept, formatPercent(m_activationsSavedFraction), keptBaseline));
    else if (m_activationsSavedFraction < -kSameFraction)
        m_keptActivations->setText(
            tr("%1, %2 more than the activations kept without checkpointing (%3)")
                .arg(kept, formatPercent(-m_activationsSavedFraction), keptBaseline));
    else
        m_keptActivations->setText(tr("%1, the same as without checkpointing").arg(kept));
    m_peakAt->setText(m_peakInstruction ? instructionCaption(*m_peakInstruction, m_units)
                                        : QString());

    if (m_timeS.recompute > 0)
        m_overhead->setText(
            tr("%1 more step time than the whole step without checkpointing (%2), from %3 of "
               "recompute per step")
                .arg(formatPercent(m_overheadFraction), formatSeconds(m_baselineTimeS),
                     formatSeconds(m_timeS.recompute)));
    else
        m_overhead->setText(tr("none: nothing is recomputed"));
    if (m_parallel) {
        const StepTime& p = m_parallelTime;
        m_stepTime->setText(
            tr("%1 (compute %2, pipeline bubble %3, pipeline transfers %4, data-parallel "
               "communication %5 exposed of %6, optimizer %7, offload transfers %8)")
                .arg(formatSeconds(p.totalS), formatSeconds(p.computeS), formatSeconds(p.bubbleS),
                     formatSeconds(p.pipelineTransferS), formatSeconds(p.dataParallelExposedS),
                     formatSeconds(p.dataParallelS), formatSeconds(p.optimizerS),
                     formatSeconds(p.offloadTransferS)));
        m_rank->setText(tr("per GPU, pipeline stage %1 of %2 (the rank that peaks) of %3 on %4 "
                           "GPUs (%5)")
                            .arg(m_stage + 1)
                            .arg(m_stages)
                            .arg(m_layout)
                            .arg(m_gpus)
                            .arg(m_clusterName));
        QString mfu = tr("%1 (hardware FLOPs utilization, recompute counted: %2)")
                          .arg(formatPercent(m_mfuValue), formatPercent(m_hfuValue));
        if (m_hostBytesPerNode > 0)
            mfu += QStringLiteral("; ") + tr("host memory %1 per node offloaded")
                                              .arg(bytesText(m_hostBytesPerNode, m_units));
        m_mfu->setText(mfu);
    } else {
        m_stepTime->setText(tr("%1 (forward %2, backward %3, recompute %4, optimizer %5)")
                                .arg(formatSeconds(m_timeS.total()),
                                     formatSeconds(m_timeS.forward),
                                     formatSeconds(m_timeS.backward),
                                     formatSeconds(m_timeS.recompute),
                                     formatSeconds(m_timeS.optimizer)));
        m_rank->clear();
        m_mfu->clear();
    }
    setFieldShown(m_rank, m_parallel);
    setFieldShown(m_mfu, m_parallel);
    m_throughput->setText(
        m_samplesPerStep == 1
            ? tr("%1 samples/s (1 sample per step)").arg(samplesText(m_samplesPerS))
            : tr("%1 samples/s (%2 samples per step)")
                  .arg(samplesText(m_samplesPerS))
                  .arg(m_samplesPerStep));
    if (m_maxMicroBatchValue >= kMaxMicroBatch)
        m_maxMicroBatch->setText(tr("unbounded: memory does not grow with the micro-batch"));
    else if (m_maxMicroBatchValue <= 0 && statesExceed)
        m_maxMicroBatch->setText(
            tr("none: model states alone take %1 of the %2 usable")
                .arg(bytesText(m_modelStateBytes, m_units), usable));
    else if (m_maxMicroBatchValue <= 0)
        m_maxMicroBatch->setText(
            tr("none: not even one sample fits; model states take %1, leaving %2 of the %3 "
               "usable for activations and workspace")
                .arg(bytesText(m_modelStateBytes, m_units),
                     bytesText(m_usableBytes - m_modelStateBytes, m_units), usable));
    else
        m_maxMicroBatch->setText(tr("%1 (now %2)").arg(m_maxMicroBatchValue).arg(m_microBatch));

    // Largest share first.
    std::vector<Category> order(kAllCategories.begin(), kAllCategories.end());
    std::stable_sort(order.begin(), order.end(), [&](Category a, Category b) {
        return m_breakdownBytes[std::size_t(a)] > m_breakdownBytes[std::size_t(b)];
    });
    const std::int64_t total = std::max<std::int64_t>(1, totalBytes(m_breakdownBytes));
    const int swatchPx = fontMetrics().height() * 2 / 3;
    int row = 0;
    for (Category c : order) {
        const std::int64_t bytes = m_breakdownBytes[std::size_t(c)];
        if (bytes == 0) continue;
        const double fraction = double(bytes) / double(total);
        // A small but present share is not "0.0%".
        const QString share = fraction < 0.0005 ? tr("< 0.1%") : formatPercent(fraction);
        BreakdownRow& r = m_breakdownRows[std::size_t(row)];
        const QColor color = categoryColor(c);
        if (r.category != int(c) || r.swatchPx != swatchPx || r.swatchColor != color.rgba()) {
            r.swatch->setPixmap(swatch(color, swatchPx));
            r.category = int(c);
            r.swatchPx = swatchPx;
            r.swatchColor = color.rgba();
        }
        // The short name keeps the panel narrow enough for a projector; the tooltip explains.
        r.name->setText(categoryShortName(c));
        r.name->setToolTip(categoryDisplayName(c));
        r.amount->setText(bytesText(bytes, m_units));
        r.percent->setText(share);
        m_breakdownTexts
            << tr("%1: %2 (%3)").arg(categoryDisplayName(c), bytesText(bytes, m_units), share);
        ++row;
    }
    // Visibility changes only when the number of categories present does.
    for (int i = 0; i < int(m_breakdownRows.size()); ++i) {
        const bool shown = i < row;
        if (shown == (i < m_breakdownShown)) continue;
        const BreakdownRow& r = m_breakdownRows[std::size_t(i)];
        for (QLabel* l : {r.swatch, r.name, r.amount, r.percent}) l->setVisible(shown);
    }
    m_breakdownShown = row;

    QStringList warnings;
    for (const QString& reason : m_unsafe)
        warnings << tr("⚠ Unsafe plan: %1. Gradients will differ from a run without "
                       "checkpointing.")
                        .arg(reason);
    for (const QString& reason : m_mayDiffer)
        warnings << tr("⚠ Possibly unsafe plan: %1. Gradients may differ from a run without "
                       "checkpointing.")
                        .arg(reason);
    m_warningCount = int(warnings.size());
    for (const QString& note : m_notes) warnings << tr("ℹ %1.").arg(note);
    showWarnings(warnings);
}

// Rebuilt only when the warnings change (rare: an unsafe plan appears or goes).
void SummaryPanel::showWarnings(const QStringList& texts) {
    if (texts == m_warningTexts && m_warnings->count() == texts.size()) return;
    clearLayout(m_warnings);
    m_warningTexts = texts;
    for (int i = 0; i < int(texts.size()); ++i) {
        auto* label = new QLabel(texts[i], this);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        // Warnings in the warning colour; notes (why something is safe, or saves little) plain.
        if (i < m_warningCount) {
            QPalette pal = label->palette();
            pal.setColor(QPalette::WindowText, statusColor(Status::Warning, palette()));
            label->setPalette(pal);
        }
        m_warnings->addWidget(label);
    }
}

SummaryPanel::CellWidths SummaryPanel::breakdownCellWidths() const {
    const QFontMetrics fm = fontMetrics();
    CellWidths w;
    w.swatch = fm.height() * 2 / 3;
    for (Category c : kAllCategories)
        w.name = std::max(w.name, fm.horizontalAdvance(categoryShortName(c)));
    // The widest figures either unit system prints (below 1024 of a unit, two decimals).
    for (ByteUnits units : {ByteUnits::Binary, ByteUnits::Decimal})
        for (std::int64_t bytes : {std::int64_t(1023) << 20, std::int64_t(1023) << 30,
                                   std::int64_t(999) * 1000 * 1000 * 1000})
            w.amount = std::max(w.amount, fm.horizontalAdvance(bytesText(bytes, units)));
    for (const QString& share : {formatPercent(1.0), tr("< 0.1%")})
        w.share = std::max(w.share, fm.horizontalAdvance(share));
    // A little room for rounding in the text engine.
    const int slack = fm.averageCharWidth();
    w.name += slack;
    w.amount += slack;
    w.share += slack;
    return w;
}

void SummaryPanel::fixBreakdownCells() {
    // Fixed sizes: a label of fixed size does not ask the layout to redo itself when its text
    // changes, and the figures change on every edit.
    const CellWidths w = breakdownCellWidths();
    const int height = std::max(fontMetrics().height(), w.swatch);
    for (BreakdownRow& r : m_breakdownRows) {
        r.swatch->setFixedSize(w.swatch, height);
        r.name->setFixedSize(w.name, height);
        r.amount->setFixedSize(w.amount, height);
        r.percent->setFixedSize(w.share, height);
    }
}

void SummaryPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    int titles = 0;
    for (const auto& [title, value] : m_fieldCells)
        titles = std::max(titles, title->sizeHint().width());
    const QMargins m = layout()->contentsMargins();
    const int valueWidth = width() - m.left() - m.right() - titles - m_fields->horizontalSpacing();
    const bool stacked = valueWidth < 24 * fontMetrics().averageCharWidth();
    if (stacked != m_fieldsStacked) arrangeFields(stacked);
}

void SummaryPanel::arrangeFields(bool stacked) {
    m_fieldsStacked = stacked;
    for (const auto& [title, value] : m_fieldCells) {
        m_fields->removeWidget(title);
        m_fields->removeWidget(value);
    }
    const int indent = stacked ? fontMetrics().averageCharWidth() * 2 : 0;
    int row = 0;
    for (const auto& [title, value] : m_fieldCells) {
        title->setAlignment(stacked ? Qt::AlignLeft | Qt::AlignTop : Qt::AlignRight | Qt::AlignTop);
        value->setContentsMargins(indent, 0, 0, 0);
        if (stacked) {
            m_fields->addWidget(title, row++, 0, 1, 2);
            m_fields->addWidget(value, row++, 0, 1, 2);
        } else {
            m_fields->addWidget(title, row, 0);
            m_fields->addWidget(value, row++, 1);
        }
    }
}

int SummaryPanel::breakdownWidth() const {
    const CellWidths w = breakdownCellWidths();
    const QMargins m = layout()->contentsMargins();
    return m.left() + w.swatch + w.name + w.amount + w.share +
           3 * m_breakdown->horizontalSpacing() + m.right();
}

QString SummaryPanel::verdictText() const {
    return m_verdict->text();
}

QString SummaryPanel::fieldText(Field field) const {
    switch (field) {
        case Field::Peak:
            return m_peak->text();
        case Field::KeptActivations:
            return m_keptActivations->text();
        case Field::PeakAt:
            return m_peakAt->text();
        case Field::Overhead:
            return m_overhead->text();
        case Field::StepTime:
            return m_stepTime->text();
        case Field::Throughput:
            return m_throughput->text();
        case Field::MaxMicroBatch:
            return m_maxMicroBatch->text();
        case Field::Rank:
            return m_rank->text();
        case Field::Mfu:
            return m_mfu->text();
    }
    return {};
}

QStringList SummaryPanel::breakdownTexts() const {
    return m_breakdownTexts;
}
QStringList SummaryPanel::warningTexts() const {
    return m_warningTexts;
}

void SummaryPanel::applyVerdictFont() {
    QFont big = font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.25);
    m_verdict->setFont(big);
}

void SummaryPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        applyVerdictFont();  // follows the panel's font (presentation mode)
        fixBreakdownCells();
    }
    if (event->type() == QEvent::PaletteChange) {
        m_warningTexts.clear();  // their colour follows the palette: rebuild them
        clearLayout(m_warnings);
        refresh();
    }
}

}  // namespace remat::ui
