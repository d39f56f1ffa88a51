#include "comparison_model.h"

#include <QFont>
#include <QGuiApplication>

#include "qt_convert.h"
#include "simulator.h"
#include "status_colors.h"

namespace remat::ui {
namespace {

QString csvField(QString s) {
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) ||
        s.contains(QLatin1Char('\n')))
        return QLatin1Char('"') + s.replace(QLatin1String("\""), QLatin1String("\"\"")) +
               QLatin1Char('"');
    return s;
}

QString csvRow(const ComparisonRow& r, const QString& series) {
    QStringList f;
    f << csvField(toQString(r.spelling)) << series;
    if (r.ok) {
        f << QString::number(r.peakBytes) << QString::number(r.memorySavedFraction, 'g', 9)
          << QString::number(r.activationsSavedFraction, 'g', 9)
          << QString::number(r.recomputeOverhead, 'g', 9) << QString::number(r.stepTimeS, 'g', 9)
          << QString::number(r.maxMicroBatch) << QLatin1String(r.fits ? "yes" : "no")
          << QLatin1String(r.unsafe ? "UNSAFE" : "yes") << csvField(toQString(r.peakCaption))
          << QString();
    } else {
        f << QString() << QString() << QString() << QString() << QString() << QString() << QString()
          << QString() << QString() << csvField(toQString(r.error));
    }
    return f.join(QLatin1Char(','));
}

}  // namespace

QString maxMicroBatchText(std::int64_t n) {
    if (n >= kMaxMicroBatch) return ComparisonModel::tr("unbounded");
    return QString::number(n);
}

ComparisonModel::ComparisonModel(QObject* parent)
    : QAbstractTableModel(parent), m_palette(QGuiApplication::palette()) {}

void ComparisonModel::setPalette(const QPalette& palette) {
    m_palette = palette;
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1),
                         {Qt::ForegroundRole});
}

void ComparisonModel::setRows(std::vector<ComparisonRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void ComparisonModel::clear() {
    setRows({});
}

void ComparisonModel::setCurrentStrategy(const QString& spelling) {
    if (spelling == m_current) return;
    const int before = rowOf(m_current);
    m_current = spelling;
    const int after = rowOf(m_current);
    for (int row : {before, after})
        if (row >= 0) emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void ComparisonModel::setUnits(ByteUnits units) {
    if (units == m_units) return;
    m_units = units;
    if (!m_rows.empty())
        emit dataChanged(index(0, PeakColumn), index(int(m_rows.size()) - 1, PeakColumn),
                         {Qt::DisplayRole, Qt::ToolTipRole});
}

int ComparisonModel::rowOf(const QString& spelling) const {
    if (spelling.isEmpty()) return -1;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (toQString(m_rows[i].spelling) == spelling) return int(i);
    return -1;
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString ComparisonModel::displayText(const ComparisonRow& r, int column) const {
    const bool current = toQString(r.spelling) == m_current;
    if (column == StrategyColumn)
        return current ? tr("%1 (current)").arg(toQString(r.spelling)) : toQString(r.spelling);
    if (!r.ok) return column == PeakColumn ? tr("error") : QString();
    switch (column) {
        case PeakColumn:
            return bytesText(r.peakBytes, m_units);
        case SavedColumn:
            return formatPercent(r.memorySavedFraction);
        case ActivationsSavedColumn:
            return formatPercent(r.activationsSavedFraction);
        case OverheadColumn:
            return formatPercent(r.recomputeOverhead);
        case StepTimeColumn:
            return formatSeconds(r.stepTimeS);
        case MaxMicroBatchColumn:
            return maxMicroBatchText(r.maxMicroBatch);
        case FitsColumn:
            return r.fits ? tr("yes") : tr("no");
        case SafeColumn:
            //: The compiler's verdict on a plan whose gradients differ from training without
            //: checkpointing; upper case as in `remat compare`.
            return r.unsafe ? tr("UNSAFE") : tr("yes");
        default:
            break;
    }
    return {};
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= int(m_rows.size()) ||
        index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const ComparisonRow& r = m_rows[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole:
            return displayText(r, column);
        case SortRole:
            if (column == StrategyColumn || !r.ok) return toQString(r.spelling);
            switch (column) {
                case PeakColumn:
                    return qint64(r.peakBytes);
                case SavedColumn:
                    return r.memorySavedFraction;
                case ActivationsSavedColumn:
                    return r.activationsSavedFraction;
                case OverheadColumn:
                    return r.recomputeOverhead;
                case StepTimeColumn:
                    return r.stepTimeS;
                case MaxMicroBatchColumn:
                    return qint64(r.maxMicroBatch);
                case FitsColumn:
                    return r.fits;
                case SafeColumn:
                    return !r.unsafe;
                default:
                    return {};
            }
        case StrategyRole:
            return toQString(r.spelling);
        case OkRole:
            return r.ok;
        case Qt::TextAlignmentRole:
            return column == StrategyColumn ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                            : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
        case Qt::FontRole:
            if (toQString(r.spelling) == m_current) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case Qt::ForegroundRole:
            if (column == FitsColumn && r.ok)
                return statusColor(r.fits ? Status::Good : Status::Bad, m_palette);
            if ((column == SafeColumn || column == StrategyColumn) && r.ok && r.unsafe)
                return statusColor(Status::Warning, m_palette);
            if (!r.ok) return statusColor(Status::Bad, m_palette);
            return {};
        case Qt::ToolTipRole:
            if (!r.ok)
                return tr("This strategy could not be evaluated: %1").arg(printableText(r.error, kShownMessageChars));
            if (column == PeakColumn)
                return tr("Peak %1 (no checkpointing: %2), reached at %3")
                    .arg(bytesText(r.peakBytes, m_units), bytesText(r.baselinePeakBytes, m_units),
                         r.peakAt ? instructionCaption(*r.peakAt, m_units)
                                  : toQString(r.peakCaption));
            if (r.unsafe && (column == StrategyColumn || column == SafeColumn || column == FitsColumn))
                return tr("Unsafe plan: %1. Gradients will differ from a run without "
                          "checkpointing.")
                    .arg(printableText(r.unsafeReason, kShownMessageChars));
            if (column == StrategyColumn) return tr("Click to apply %1").arg(toQString(r.spelling));
            return {};
        default:
            return {};
    }
}

void ComparisonModel::setPerGpu(bool perGpu) {
    if (perGpu == m_perGpu) return;
    m_perGpu = perGpu;
    emit headerDataChanged(Qt::Horizontal, PeakColumn, PeakColumn);
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case SavedColumn:
                return tr("Share of the whole peak without checkpointing that this plan saves");
            case ActivationsSavedColumn:
                return tr("Share of the activations kept for backward without checkpointing that "
                          "this plan saves");
            case OverheadColumn:
                return tr("Extra step time over the whole step without checkpointing (forward, "
                          "backward and optimizer)");
            case SafeColumn:
                return tr("UNSAFE: the plan changes the gradients (dropout without a preserved "
                          "RNG state, an in-place op overwriting a kept tensor)");
            default:
                return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
        case StrategyColumn:
            return tr("strategy");
        case PeakColumn:
            return m_perGpu ? tr("peak per GPU (rank that peaks)") : tr("peak");
        case SavedColumn:
            return tr("peak saved");
        case ActivationsSavedColumn:
            return tr("activations saved");
        case OverheadColumn:
            return tr("recompute overhead");
        case StepTimeColumn:
            return tr("step time");
        case MaxMicroBatchColumn:
            return tr("largest micro-batch");
        case FitsColumn:
            return tr("fits");
        case SafeColumn:
            return tr("safe");
        default:
            return {};
    }
}

QString ComparisonModel::toCsv(const std::vector<ComparisonRow>& curve,
                               const std::vector<FrontierPoint>& frontier) const {
    QStringList lines;
    lines << QStringLiteral(
        "strategy,series,peak_bytes,peak_saved,activations_saved,recompute_overhead,"
        "step_time_s,largest_micro_batch,fits,safe,peak_instruction,error");
    for (const ComparisonRow& r : m_rows) lines << csvRow(r, QStringLiteral("table"));
    for (const ComparisonRow& r : curve) lines << csvRow(r, QStringLiteral("every-k curve"));
    for (const FrontierPoint& p : frontier) {
        QStringList f;
        // The frontier's plans are not compiled one by one: no activations share, no verdict.
        f << csvField(toQString(p.spelling)) << QStringLiteral("optimal frontier")
          << QString::number(p.peakBytes) << QString::number(p.memorySavedFraction, 'g', 9)
          << QString() << QString::number(p.recomputeOverhead, 'g', 9)
          << QString::number(p.stepTimeS, 'g', 9) << QString()
          << QLatin1String(p.fits ? "yes" : "no") << QString() << QString() << QString();
        lines << f.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString ComparisonModel::toMarkdown() const {
    QStringList header, rule;
    for (int c = 0; c < ColumnCount; ++c) {
        header << headerData(c, Qt::Horizontal).toString();
        rule << (c == StrategyColumn ? QStringLiteral(":---") : QStringLiteral("---:"));
    }
    QStringList lines;
    lines << QStringLiteral("| ") + header.join(QStringLiteral(" | ")) + QStringLiteral(" |");
    lines << QStringLiteral("| ") + rule.join(QStringLiteral(" | ")) + QStringLiteral(" |");
    for (const ComparisonRow& r : m_rows) {
        QStringList cells;
        for (int c = 0; c < ColumnCount; ++c) {
            QString text = displayText(r, c);
            if (!r.ok && c == PeakColumn) text = tr("error: %1").arg(printableText(r.error, kShownMessageChars));
            cells << text.replace(QLatin1Char('|'), QLatin1String("\\|"));
        }
        lines << QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |");
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace remat::ui
