// The summary of one evaluated plan, in words a practitioner reads at a glance: whether it fits
// on the device (stated plainly, with a symbol and a colour, never the colour alone), the peak
// and how much it saves against no checkpointing, what the peak is made of, where it happens,
// the recompute overhead, the predicted step time and throughput, the largest micro-batch that
// fits, and every reason the compiler found the program unsafe, as warnings. Relative figures
// say what they are a share of (the whole peak, the activations kept for backward, the whole
// step without checkpointing); an unsafe plan that fits is not announced with a plain tick; and
// when model states alone exceed the device, the verdict says so in numbers, since no plan can
// help. Under a parallel layout every figure is per GPU, of the rank that peaks: a row says
// which one ("per GPU, pipeline stage 1 of 4"), the step time lists the layout's parts
// (compute, pipeline bubble and transfers, exposed data-parallel communication, optimizer,
// offload transfers), the throughput is the whole layout's and a row gives MFU.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <QColor>
#include <optional>
#include <utility>
#include <vector>

#include "analysis.h"
#include "device.h"
#include "instruction_caption.h"
#include "parallel_eval.h"
#include "report.h"

class QGridLayout;
class QLabel;
class QVBoxLayout;

namespace remat::ui {

class SummaryPanel : public QWidget {
    Q_OBJECT
public:
    enum class Field {
        Peak,
        KeptActivations,
        PeakAt,
        Overhead,
        StepTime,
        Throughput,
        MaxMicroBatch,
        Rank,
        Mfu
    };

    explicit SummaryPanel(QWidget* parent = nullptr);

    // `graph` is the one the evaluation was made from: it names the op or buffer at the peak.
    // `parallel`: the whole layout's figures when the evaluation is one rank's (null: one GPU).
    void setEvaluation(const Evaluation& evaluation, const DeviceSpec& device, const Graph& graph,
                       const ParallelEvaluation* parallel = nullptr);
    void clear();
    void setUnits(ByteUnits units);

    // What is shown, for tests and accessibility checks.
    bool hasEvaluation() const { return m_has; }
    bool fits() const { return m_fits; }
    QString verdictText() const;
    QString fieldText(Field field) const;
    QStringList breakdownTexts() const;  // "saved activations: 1.20 GiB (17%)", largest first
    QStringList warningTexts() const;
    // The width its widest breakdown row needs whatever the evaluation (the longest category
    // name, the widest amount either unit system prints, a "100.0%" share): what a container
    // that does not follow the panel's size hints (a scroll area) should give it at least. The
    // row's cells have these widths fixed, so new figures never relayout the panel.
    int breakdownWidth() const;

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyVerdictFont();
    // Titles beside their values, or above them when the panel is too narrow for both side
    // by side (a projector): a value column narrower than about 24 characters wraps every
    // figure onto several lines.
    void arrangeFields(bool stacked);
    struct CellWidths {
        int swatch = 0, name = 0, amount = 0, share = 0;
    };
    CellWidths breakdownCellWidths() const;
    void fixBreakdownCells();
    void refresh();
    QLabel* addField(const QString& name);
    void showWarnings(const QStringList& texts);

    // One row of the breakdown per category, made once: an edit rewrites the texts of the rows
    // it needs and hides the rest, so it neither creates widgets nor relays out more than the
    // changed texts ask for.
    struct BreakdownRow {
        QLabel* swatch = nullptr;
        QLabel* name = nullptr;
        QLabel* amount = nullptr;
        QLabel* percent = nullptr;
        int category = -1;  // shown in this row, for its swatch and name
        int swatchPx = 0;
        QRgb swatchColor = 0;
    };

    QLabel* m_verdict = nullptr;
    QGridLayout* m_fields = nullptr;
    std::vector<std::pair<QLabel*, QWidget*>> m_fieldCells;  // title, value box
    bool m_fieldsStacked = false;
    QLabel* m_peak = nullptr;
    QLabel* m_keptActivations = nullptr;
    QLabel* m_peakAt = nullptr;
    QLabel* m_overhead = nullptr;
    QLabel* m_stepTime = nullptr;
    QLabel* m_throughput = nullptr;
    QLabel* m_maxMicroBatch = nullptr;
    QLabel* m_rank = nullptr;
    QLabel* m_mfu = nullptr;
    void setFieldShown(QLabel* value, bool shown);
    QGridLayout* m_breakdown = nullptr;
    std::vector<BreakdownRow> m_breakdownRows;
    int m_breakdownShown = 0;
    QVBoxLayout* m_warnings = nullptr;
    QStringList m_breakdownTexts;
    QStringList m_warningTexts;
    int m_warningCount = 0;  // the first m_warningCount of m_warningTexts are warnings, the rest notes

    // The figures of the last setEvaluation(), kept so units and palette changes redraw them.
    bool m_has = false;
    bool m_fits = false;
    std::int64_t m_peakBytes = 0;
    std::int64_t m_baselinePeakBytes = 0;
    std::int64_t m_usableBytes = 0;
    std::int64_t m_maxMicroBatchValue = 0;
    std::int64_t m_microBatch = 1;
    std::int64_t m_samplesPerStep = 0;
    double m_samplesPerS = 0.0;
    double m_savedFraction = 0.0;  // of the whole peak without checkpointing
    std::int64_t m_keptActivationBytes = 0;
    std::int64_t m_baselineKeptActivationBytes = 0;
    double m_activationsSavedFraction = 0.0;  // of the activations kept without checkpointing
    std::int64_t m_modelStateBytes = 0;  // parameters, gradients, optimizer state: no plan lowers
    double m_baselineTimeS = 0.0;
    double m_overheadFraction = 0.0;
    PhaseTotals m_timeS;
    CategoryBytes m_breakdownBytes{};
    std::optional<InstructionParts> m_peakInstruction;  // captioned in the current units
    QString m_deviceName;
    QString m_strategy;
    QStringList m_unsafe;     // the gradients will differ
    QStringList m_mayDiffer;  // the gradients may differ
    QStringList m_notes;      // in-place writes that are safe, regions that save little
    // Under a parallel layout (m_parallel): the rank shown and the layout's own figures.
    bool m_parallel = false;
    std::int64_t m_stage = 0, m_stages = 1, m_gpus = 1;
    QString m_layout, m_clusterName;
    StepTime m_parallelTime;
    double m_mfuValue = 0.0;
    double m_hfuValue = 0.0;
    std::int64_t m_hostBytesPerNode = 0;
    std::int64_t m_hostMemoryBytes = 0;
    bool m_hostFits = true;
    ByteUnits m_units = ByteUnits::Binary;
};

}  // namespace remat::ui
