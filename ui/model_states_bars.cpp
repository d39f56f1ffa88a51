#include "model_states_bars.h"

#include <QPainter>
#include <QPaintEvent>
#include <algorithm>

#include "qt_convert.h"

namespace remat::ui {

namespace {
constexpr std::array<Category, 3> kStateCategories = {Category::Parameters, Category::Gradients,
                                                      Category::OptimizerState};

std::int64_t part(const ModelStateBytes& s, std::size_t i) {
    return i == 0 ? s.parameters : (i == 1 ? s.gradients : s.optimizerState);
}
}  // namespace

ModelStatesBars::ModelStatesBars(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("modelStatesBars"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Model states per GPU under each ZeRO stage: stage 1 shards the optimizer "
                  "state over the data-parallel ranks, stage 2 the gradients too, stage 3 the "
                  "parameters too (Rajbhandari et al. 2020)"));
}

void ModelStatesBars::setStates(std::int64_t parameterCount, Precision precision,
                                Optimizer optimizer, std::int64_t shardDegree, int currentStage,
                                std::int64_t usableBytes) {
    for (int stage = 0; stage < 4; ++stage)
        m_stages[std::size_t(stage)] =
            zeroModelStates(parameterCount, precision, optimizer, stage, shardDegree);
    m_shardDegree = shardDegree;
    m_current = currentStage;
    m_usable = usableBytes;
    update();
}

void ModelStatesBars::setUnits(ByteUnits units) {
    m_units = units;
    update();
}

QStringList ModelStatesBars::texts() const {
    QStringList out;
    for (int stage = 0; stage < 4; ++stage) {
        const ModelStateBytes& s = m_stages[std::size_t(stage)];
        out << tr("ZeRO-%1: %2 (parameters %3, gradients %4, optimizer state %5)")
                   .arg(stage)
                   .arg(bytesText(s.total(), m_units), bytesText(s.parameters, m_units),
                        bytesText(s.gradients, m_units), bytesText(s.optimizerState, m_units));
    }
    return out;
}

QSize ModelStatesBars::sizeHint() const {
    const int line = fontMetrics().height();
    return {fontMetrics().averageCharWidth() * 48, line * 7 + 8};
}

QSize ModelStatesBars::minimumSizeHint() const {
    return {fontMetrics().averageCharWidth() * 30, sizeHint().height()};
}

void ModelStatesBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height();
    const QColor text = palette().color(QPalette::WindowText);
    p.setPen(text);
    p.drawText(QRect(0, 0, width(), line), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Model states per GPU by ZeRO stage (sharded over %1)").arg(m_shardDegree));

    const QString labels[4] = {tr("ZeRO-0"), tr("ZeRO-1"), tr("ZeRO-2"), tr("ZeRO-3")};
    // The current stage is drawn bold with a marker: measure the labels that way.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics boldMetrics(bold);
    int labelWidth = 0;
    for (const QString& l : labels)
        labelWidth = std::max(labelWidth, boldMetrics.horizontalAdvance(QStringLiteral("▸") + l));
    labelWidth += fm.averageCharWidth();
    const int amountWidth = fm.horizontalAdvance(bytesText(std::int64_t(999) << 30, m_units)) +
                            fm.averageCharWidth();
    const int barLeft = labelWidth + 4;
    const int barWidth = std::max(10, width() - barLeft - amountWidth - 4);
    std::int64_t scale = 1;
    for (const ModelStateBytes& s : m_stages) scale = std::max(scale, s.total());
    const bool usableShown = m_usable > 0 && m_usable < scale;

    for (int stage = 0; stage < 4; ++stage) {
        const int y = line * (stage + 1) + 4;
        const ModelStateBytes& s = m_stages[std::size_t(stage)];
        QFont f = font();
        f.setBold(stage == m_current);
        p.setFont(f);
        p.setPen(text);
        p.drawText(QRect(0, y, labelWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
                   (stage == m_current ? QStringLiteral("▸") : QStringLiteral(" ")) +
                       labels[stage]);
        double x = barLeft;
        for (std::size_t i = 0; i < kStateCategories.size(); ++i) {
            const double w = double(barWidth) * double(part(s, i)) / double(scale);
            p.fillRect(QRectF(x, y + 2, w, line - 4), categoryColor(kStateCategories[i]));
            x += w;
        }
        p.setFont(font());
        p.setPen(text);
        p.drawText(QRect(barLeft + barWidth + 4, y, amountWidth, line),
                   Qt::AlignRight | Qt::AlignVCenter, bytesText(s.total(), m_units));
    }
    p.setFont(font());
    if (usableShown) {
        const double x = barLeft + double(barWidth) * double(m_usable) / double(scale);
        QPen pen(text, 1, Qt::DashLine);
        p.setPen(pen);
        p.drawLine(QPointF(x, line + 2), QPointF(x, line * 5 + 6));
    }
    // Legend.
    int x = 0;
    const int y = line * 5 + 8;
    const int sw = line * 2 / 3;
    for (Category c : kStateCategories) {
        p.fillRect(QRect(x, y + (line - sw) / 2, sw, sw), categoryColor(c));
        x += sw + 4;
        p.setPen(text);
        const QString name = categoryShortName(c);
        p.drawText(QRect(x, y, fm.horizontalAdvance(name) + 2, line),
                   Qt::AlignLeft | Qt::AlignVCenter, name);
        x += fm.horizontalAdvance(name) + fm.averageCharWidth() * 2;
    }
    if (usableShown) {
        p.setPen(text);
        p.drawText(QRect(x, y, width() - x, line), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("┆ usable %1").arg(bytesText(m_usable, m_units)));
    }
}

}  // namespace remat::ui
