// The comparison table as a Qt item model: one row per named strategy with the columns of
// `remat compare` (strategy, peak, peak saved, activations saved, recompute overhead, step time,
// largest micro-batch, fits, safe); the headers' tooltips say what each share is of. A plan the
// compiler marks unsafe says "UNSAFE" in words, its strategy is drawn in the warning colour and
// the tooltip gives the reason. Display text follows the user's byte units; SortRole gives the raw number
// so a proxy sorts numerically; StrategyRole gives the CLI spelling a click applies. The row of
// the plan in effect is marked in words ("current"), not by font alone, and "fits" says yes or
// no besides its colour.
#pragma once

#include <QAbstractTableModel>
#include <QPalette>
#include <QString>
#include <vector>

#include "comparison_worker.h"
#include "report.h"

namespace remat::ui {

class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        StrategyColumn,
        PeakColumn,
        SavedColumn,             // of the whole peak without checkpointing
        ActivationsSavedColumn,  // of the activations kept for backward without it
        OverheadColumn,
        StepTimeColumn,
        MaxMicroBatchColumn,
        FitsColumn,
        SafeColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, StrategyRole, OkRole };

    explicit ComparisonModel(QObject* parent = nullptr);

    void setRows(std::vector<ComparisonRow> rows);
    void clear();
    const std::vector<ComparisonRow>& rows() const { return m_rows; }
    void setCurrentStrategy(const QString& spelling);
    QString currentStrategy() const { return m_current; }
    void setUnits(ByteUnits units);
    // Under a parallel layout the peak is per GPU, of the rank that peaks: the header says so.
    void setPerGpu(bool perGpu);
    bool perGpu() const { return m_perGpu; }
    // The palette the view draws on: the status colours of "fits" follow it (light or dark).
    void setPalette(const QPalette& palette);
    int rowOf(const QString& spelling) const;  // -1 when absent

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The table as text, for export: comma-separated with raw numbers (the rows of `curve`
    // appended, marked as the every-k curve, then the plans of `frontier`, marked as the
    // optimal frontier, without the figures only a full evaluation gives: largest micro-batch
    // and peak instruction), or a Markdown table of the displayed text.
    QString toCsv(const std::vector<ComparisonRow>& curve = {},
                  const std::vector<FrontierPoint>& frontier = {}) const;
    QString toMarkdown() const;

private:
    QString displayText(const ComparisonRow& r, int column) const;

    std::vector<ComparisonRow> m_rows;
    QString m_current;
    ByteUnits m_units = ByteUnits::Binary;
    bool m_perGpu = false;
    QPalette m_palette;
};

// "unbounded" for kMaxMicroBatch, else the number.
QString maxMicroBatchText(std::int64_t n);

}  // namespace remat::ui
