#include "live_blocks_view.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "layer_stack_model.h"
#include "qt_convert.h"

namespace remat::ui {
namespace {

constexpr int kGap = 1;       // between blocks
constexpr int kMinBlock = 3;  // pixels: a tiny tensor still shows
constexpr int kPadding = 4;

const std::vector<BufferId> kNoBlocks;

}  // namespace

QColor blockColor(BlockKind kind) {
    switch (kind) {
        case BlockKind::Kept:
            return categoryColor(Category::SavedActivations);
        case BlockKind::Recomputed:
            return categoryColor(Category::RecomputedActivations);
        case BlockKind::Transient:
            return categoryColor(Category::Transient);
        case BlockKind::Gradient:
            return categoryColor(Category::Gradients);
        case BlockKind::Other:
            break;
    }
    return QColor(Qt::gray);
}

QString blockKindName(BlockKind kind) {
    switch (kind) {
        case BlockKind::Kept:
            return LiveBlocksView::tr("kept");
        case BlockKind::Recomputed:
            return LiveBlocksView::tr("recomputed");
        case BlockKind::Transient:
            return LiveBlocksView::tr("transient");
        case BlockKind::Gradient:
            return LiveBlocksView::tr("gradient");
        case BlockKind::Other:
            break;
    }
    return {};
}

LiveBlocksView::LiveBlocksView(QWidget* parent) : QAbstractScrollArea(parent) {
    setObjectName(QStringLiteral("liveBlocks"));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    viewport()->setMouseTracking(true);
    setMinimumHeight(4 * rowHeight());
}

int LiveBlocksView::rowHeight() const {
    return fontMetrics().height() + 4;
}

int LiveBlocksView::labelWidth() const {
    // "12  transformer_block" fits in about 18 characters; narrow views keep half for blocks.
    return std::min(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 18,
                    viewport()->width() / 2);
}

void LiveBlocksView::setProgram(std::shared_ptr<const PlaybackProgram> data) {
    m_data = std::move(data);
    m_rows.assign(m_data ? std::size_t(m_data->layerCount()) : 0, {});
    m_dirtyRows.clear();
    m_index = static_cast<std::size_t>(-1);
    m_markedRow = -1;
    updateScrollBars();
    viewport()->update();
}

void LiveBlocksView::setUnits(ByteUnits units) {
    m_units = units;
}

void LiveBlocksView::setInstruction(std::size_t index) {
    if (!m_data) return;
    m_index = index;
    for (int r : m_dirtyRows) m_rows[std::size_t(r)].clear();
    m_dirtyRows.clear();
    m_data->live.liveAfter(index, m_live);
    for (BufferId b : m_live) {
        const int layer = m_data->live.layerOf(b);
        if (layer < 0 || layer >= int(m_rows.size()) || !isLayerBlock(m_data->live.kindOf(b)))
            continue;
        auto& row = m_rows[std::size_t(layer)];
        if (row.empty()) m_dirtyRows.push_back(layer);
        row.push_back(b);
    }
    // The layer the timeline and the layer stack give the instruction.
    m_markedRow = m_data->layerOfInstruction(index);
    if (m_markedRow >= 0) {
        // Scrolled so that the marked row is in view, with a row of context where there is one.
        const int h = rowHeight();
        QScrollBar* bar = verticalScrollBar();
        const int top = m_markedRow * h, bottom = top + h;
        if (top - h < bar->value())
            bar->setValue(std::max(0, top - h));
        else if (bottom + h > bar->value() + viewport()->height())
            bar->setValue(bottom + h - viewport()->height());
    }
    viewport()->update();
}

const std::vector<BufferId>& LiveBlocksView::rowBlocks(int layer) const {
    if (layer < 0 || layer >= int(m_rows.size())) return kNoBlocks;
    return m_rows[std::size_t(layer)];
}

void LiveBlocksView::updateScrollBars() {
    const int rows = m_data ? m_data->layerCount() : 0;
    const int h = rowHeight();
    verticalScrollBar()->setSingleStep(h);
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setRange(0, std::max(0, rows * h - viewport()->height()));
}

void LiveBlocksView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void LiveBlocksView::changeEvent(QEvent* event) {
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        setMinimumHeight(4 * rowHeight());
        updateScrollBars();
    }
}

QString LiveBlocksView::rowLabel(int row) const {
    const Graph& g = *m_data->graph;
    const ModuleId m = g.layerModules[std::size_t(row)];
    const QString kind = m.valid() ? printableText(g.module(m).kind) : QString();
    return QStringLiteral("%1  %2").arg(row).arg(kind);
}

std::vector<LiveBlocksView::Placed> LiveBlocksView::placeRow(int row, int top) const {
    std::vector<Placed> placed;
    const auto& blocks = m_rows[std::size_t(row)];
    if (blocks.empty()) return placed;
    const int left = labelWidth() + kPadding;
    const int avail = std::max(1, viewport()->width() - left - kPadding);
    const int h = rowHeight();
    const std::int64_t micro = m_data->program->microBatch;
    std::int64_t total = 0;
    for (BufferId b : blocks) total += m_data->program->buffer(b).bytes.at(micro);
    // The row's length grows with the square root of its bytes, so that a layer holding a
    // hundredth of the loss's logits still shows; its blocks share the row by their bytes.
    const double rowWidth =
        double(avail) * std::sqrt(std::min(1.0, double(total) / double(m_data->blockScaleBytes)));
    int x = left;
    for (BufferId b : blocks) {
        const std::int64_t bytes = m_data->program->buffer(b).bytes.at(micro);
        const double share = total > 0 ? double(bytes) / double(total) : 0.0;
        const int w = std::max(kMinBlock, int(rowWidth * share) - kGap);
        placed.push_back({b, QRect(x, top + 2, w, h - 4)});
        x += w + kGap;
    }
    return placed;
}

void LiveBlocksView::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    const QPalette& pal = palette();
    p.fillRect(viewport()->rect(), pal.color(QPalette::Base));
    if (!m_data) return;
    const int h = rowHeight();
    const int scroll = verticalScrollBar()->value();
    const int first = scroll / h;
    const int last = std::min(m_data->layerCount() - 1, (scroll + viewport()->height()) / h);
    const int labelW = labelWidth();
    p.setPen(pal.color(QPalette::Text));
    for (int row = first; row <= last; ++row) {
        const int top = row * h - scroll;
        if (row == m_markedRow)
            p.fillRect(QRect(0, top, viewport()->width(), h), LayerStackModel::markColor(true));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(kPadding, top, labelW - kPadding, h), Qt::AlignLeft | Qt::AlignVCenter,
                   fontMetrics().elidedText(rowLabel(row), Qt::ElideRight, labelW - kPadding));
        for (const Placed& b : placeRow(row, top))
            p.fillRect(b.rect, blockColor(m_data->live.kindOf(b.buffer)));
        QColor rule = pal.color(QPalette::Mid);
        rule.setAlpha(60);
        p.fillRect(QRect(0, top + h - 1, viewport()->width(), 1), rule);
    }
}

BufferId LiveBlocksView::blockAt(const QPoint& pos) const {
    if (!m_data) return {};
    const int h = rowHeight();
    const int y = pos.y() + verticalScrollBar()->value();
    const int row = y / h;
    if (row < 0 || row >= int(m_rows.size())) return {};
    for (const Placed& b : placeRow(row, row * h - verticalScrollBar()->value()))
        if (b.rect.contains(pos)) return b.buffer;
    return {};
}

bool LiveBlocksView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_data) {
        auto* help = static_cast<QHelpEvent*>(event);
        const BufferId b = blockAt(help->pos());
        if (b.valid()) {
            const Buffer& buf = m_data->program->buffer(b);
            QToolTip::showText(
                help->globalPos(),
                tr("%1: %2, %3")
                    .arg(printableText(bufferLabel(*m_data->graph, buf)),
                         bytesText(buf.bytes.at(m_data->program->microBatch), m_units),
                         blockKindName(m_data->live.kindOf(b))),
                viewport());
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace remat::ui
