#include "schedule_grid_view.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "instruction_caption.h"
#include "qt_convert.h"

namespace remat::ui {
namespace {

constexpr int kMaxRowHeight = 22;
constexpr int kMargin = 4;

// The actions in the timeline's phase-strip colours (forward blue, backward purple); recompute
// one colour per region depth, the first the phase strip's amber.
const QColor kForward(0x3b, 0x82, 0xf6);
const QColor kBackward(0xa8, 0x55, 0xf7);
const QColor kDepth[] = {QColor(0xf5, 0x9e, 0x0b), QColor(0xe1, 0x57, 0x59),
                         QColor(0x9c, 0x75, 0x5f), QColor(0xd3, 0x72, 0x95)};

QColor depthColor(int depth) {
    const int n = int(std::size(kDepth));
    return kDepth[std::size_t(((std::max(depth, 1) - 1) % n + n) % n)];
}

}  // namespace

ScheduleGridView::ScheduleGridView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("scheduleGrid"));
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

QSize ScheduleGridView::sizeHint() const {
    return {640, 240};
}

QSize ScheduleGridView::minimumSizeHint() const {
    return {200, legendHeight() + 60};
}

QColor ScheduleGridView::cellColor(const ScheduleCell& cell) {
    switch (cell.kind) {
        case CellKind::Empty:
            return Qt::transparent;
        case CellKind::Kept: {
            QColor c = categoryColor(Category::SavedActivations);
            c.setAlpha(150);
            return c;
        }
        case CellKind::Recomputed: {
            QColor c = depthColor(cell.depth);
            c.setAlpha(110);
            return c;
        }
        case CellKind::Forward:
            return kForward;
        case CellKind::Recompute:
            return depthColor(cell.depth);
        case CellKind::Backward:
            return kBackward;
    }
    return Qt::transparent;
}

std::vector<std::pair<QColor, QString>> ScheduleGridView::legendEntries() const {
    std::vector<std::pair<QColor, QString>> e;
    e.push_back({cellColor({CellKind::Forward, 0}), tr("forward")});
    e.push_back({cellColor({CellKind::Kept, 0}), tr("kept")});
    const int depths = m_data ? m_data->grid.maxDepth() : 0;
    for (int d = 1; d <= depths; ++d) {
        if (depths == 1) {
            e.push_back({cellColor({CellKind::Recompute, d}), tr("recompute")});
            e.push_back({cellColor({CellKind::Recomputed, d}), tr("recomputed, held")});
        } else {
            e.push_back({cellColor({CellKind::Recompute, d}), tr("recompute, depth %1").arg(d)});
            e.push_back(
                {cellColor({CellKind::Recomputed, d}), tr("recomputed, held, depth %1").arg(d)});
        }
    }
    e.push_back({cellColor({CellKind::Backward, 0}), tr("backward")});
    e.push_back({Qt::transparent, tr("blank: freed or not made yet")});
    return e;
}

int ScheduleGridView::legendHeight() const {
    // Up to two lines of legend.
    return 2 * (fontMetrics().height() + 2) + kMargin;
}

int ScheduleGridView::labelWidth() const {
    return fontMetrics().horizontalAdvance(QStringLiteral("0000")) + kMargin;
}

int ScheduleGridView::bandHeight() const {
    return m_data && m_data->grid.microStepBands().size() > 1 ? fontMetrics().height() + 2 : 0;
}

QRect ScheduleGridView::gridRect() const {
    const int rows = m_data ? std::max(1, m_data->grid.rowCount()) : 1;
    const int left = labelWidth() + kMargin;
    const int top = kMargin + bandHeight();
    const int width = std::max(1, this->width() - left - kMargin);
    const int avail = std::max(1, height() - top - legendHeight() - kMargin);
    const int h = std::min(avail, rows * kMaxRowHeight);
    return QRect(left, top, width, h);
}

double ScheduleGridView::columnX(std::size_t column) const {
    const QRect r = gridRect();
    const std::size_t n = m_data ? std::max<std::size_t>(1, m_data->grid.columnCount()) : 1;
    return r.left() + double(r.width()) * double(column) / double(n);
}

std::size_t ScheduleGridView::columnAt(int x) const {
    if (!m_data || m_data->grid.columnCount() == 0) return npos;
    const QRect r = gridRect();
    if (x < r.left() || x > r.right()) return npos;
    const double f = double(x - r.left()) / double(r.width());
    return std::min(m_data->grid.columnCount() - 1,
                    std::size_t(f * double(m_data->grid.columnCount())));
}

int ScheduleGridView::rowAt(int y) const {
    if (!m_data || m_data->grid.rowCount() == 0) return -1;
    const QRect r = gridRect();
    if (y < r.top() || y > r.bottom()) return -1;
    return std::min(m_data->grid.rowCount() - 1,
                    int(double(y - r.top()) * m_data->grid.rowCount() / r.height()));
}

void ScheduleGridView::setNumbering(LayerNumbering numbering) {
    m_numbering = std::move(numbering);
    m_image = QImage();
    update();
}

void ScheduleGridView::setProgram(std::shared_ptr<const PlaybackProgram> data) {
    m_data = std::move(data);
    m_cursorColumn = npos;
    m_image = QImage();
    update();
}

void ScheduleGridView::setCursorInstruction(std::size_t index) {
    const std::size_t column =
        m_data && index != npos ? m_data->grid.columnOfInstruction(index) : npos;
    if (column == m_cursorColumn) return;
    m_cursorColumn = column;
    update();
}

void ScheduleGridView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    m_image = QImage();
}

void ScheduleGridView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        m_image = QImage();
        update();
    }
}

void ScheduleGridView::renderImage() {
    const qreal dpr = devicePixelRatioF();
    m_image = QImage(size() * dpr, QImage::Format_ARGB32_Premultiplied);
    m_image.setDevicePixelRatio(dpr);
    const QPalette& pal = palette();
    m_image.fill(pal.color(QPalette::Window));
    QPainter p(&m_image);
    const QRect r = gridRect();
    p.fillRect(r, pal.color(QPalette::Base));
    if (!m_data) return;
    const ScheduleGrid& g = m_data->grid;
    const int rows = g.rowCount();
    if (rows == 0 || g.columnCount() == 0) return;
    const double rowH = double(r.height()) / rows;
    auto rowRect = [&](int row, double x0, double x1) {
        const int y0 = r.top() + int(std::floor(row * rowH));
        const int y1 = r.top() + int(std::floor((row + 1) * rowH));
        const int gap = rowH >= 6 ? 1 : 0;
        const int left = int(std::floor(x0));
        const int right = std::max(left + 1, int(std::floor(x1)));
        return QRect(left, y0, right - left, std::max(1, y1 - y0 - gap));
    };
    for (int row = 0; row < rows; ++row)
        for (const ScheduleSpan& s : g.heldSpans(row))
            p.fillRect(rowRect(row, columnX(s.first), columnX(s.end)), cellColor(s.cell));
    // One rectangle per column, but not twice on one pixel of one row.
    int lastRow = -1, lastX = -1;
    for (std::size_t c = 0; c < g.columnCount(); ++c) {
        const int row = g.layerOfColumn(c);
        if (row < 0 || row >= rows) continue;
        const QRect cell = rowRect(row, columnX(c), columnX(c + 1));
        if (row == lastRow && cell.left() == lastX) continue;
        lastRow = row;
        lastX = cell.left();
        p.fillRect(cell, cellColor(g.actionOfColumn(c)));
    }
    // With accumulation, the micro-steps as written: a rule before each and its name above it
    // where it fits ("micro-batches 2–7 (× 6)" for the repeat's body).
    const auto& bands = g.microStepBands();
    if (bands.size() > 1) {
        QColor rule = pal.color(QPalette::Text);
        rule.setAlpha(120);
        for (const MicroStepBand& b : bands) {
            const int x0 = int(std::floor(columnX(b.first)));
            const int x1 = int(std::floor(columnX(b.end)));
            if (b.first > 0)
                p.fillRect(QRect(x0, r.top() - bandHeight(), 1, r.height() + bandHeight()), rule);
            const QString name = b.times > 1 ? tr("micro-batches %1–%2 (× %3)")
                                                   .arg(b.microStep + 1)
                                                   .arg(std::int64_t(b.microStep) + b.times)
                                                   .arg(b.times)
                                             : tr("micro-batch %1").arg(b.microStep + 1);
            const QRect box(x0 + 3, r.top() - bandHeight(), x1 - x0 - 6, bandHeight());
            p.setPen(pal.color(QPalette::Text));
            if (fontMetrics().horizontalAdvance(name) <= box.width())
                p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, name);
        }
    }
    // Layer numbers, as many as fit.
    p.setPen(pal.color(QPalette::Text));
    const int every = std::max(1, int(std::ceil((fontMetrics().height()) / rowH)));
    for (int row = 0; row < rows; row += every) {
        const QRect cell = rowRect(row, 0, 1);
        p.drawText(QRect(kMargin, cell.top(), labelWidth() - kMargin, std::max(cell.height(), 1)),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(m_numbering.number(row)));
    }
    // The legend, wrapped onto a second line where the width runs out.
    const int sw = fontMetrics().height() - 4;
    int x = r.left(), y = r.bottom() + kMargin + 2;
    for (const auto& [color, name] : legendEntries()) {
        const int w = sw + 4 + fontMetrics().horizontalAdvance(name) + 12;
        if (x + w > width() && x > r.left()) {
            x = r.left();
            y += fontMetrics().height() + 2;
        }
        const QRect swatch(x, y + 2, sw, sw);
        p.fillRect(swatch, color.alpha() == 0 ? pal.color(QPalette::Base) : color);
        p.setPen(pal.color(QPalette::Mid));
        p.drawRect(swatch.adjusted(0, 0, -1, -1));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(x + sw + 4, y, w, fontMetrics().height()),
                   Qt::AlignLeft | Qt::AlignVCenter, name);
        x += w;
    }
}

void ScheduleGridView::paintEvent(QPaintEvent*) {
    if (m_image.isNull() || m_image.size() != size() * devicePixelRatioF()) renderImage();
    QPainter p(this);
    p.drawImage(QPoint(0, 0), m_image);
    if (m_data && m_cursorColumn != npos) {
        const QRect r = gridRect();
        const double x0 = columnX(m_cursorColumn), x1 = columnX(m_cursorColumn + 1);
        const int left = int(std::floor(x0));
        const int w = std::max(2, int(std::ceil(x1)) - left);
        QColor c = palette().color(QPalette::Text);
        p.fillRect(QRect(left, r.top() - 2, w, r.height() + 4), c);
        c.setAlpha(40);
        p.fillRect(QRect(left - 3, r.top(), w + 6, r.height()), c);
    }
}

void ScheduleGridView::mouseReleaseEvent(QMouseEvent* event) {
    const std::size_t c = columnAt(event->position().toPoint().x());
    if (event->button() == Qt::LeftButton && c != npos &&
        rowAt(event->position().toPoint().y()) >= 0)
        emit instructionClicked(qint64(m_data->grid.instructionOfColumn(c)));
    QWidget::mouseReleaseEvent(event);
}

QString ScheduleGridView::cellText(int row, std::size_t column) const {
    const ScheduleGrid& g = m_data->grid;
    const ScheduleCell cell = g.cell(row, column);
    QString state;
    switch (cell.kind) {
        case CellKind::Empty:
            state = tr("nothing held");
            break;
        case CellKind::Kept:
            state = tr("activations kept for backward");
            break;
        case CellKind::Recomputed:
            state = tr("recomputed activations held (depth %1)").arg(cell.depth);
            break;
        case CellKind::Forward:
            state = tr("computed by its forward");
            break;
        case CellKind::Recompute:
            state = tr("recomputed (depth %1)").arg(cell.depth);
            break;
        case CellKind::Backward:
            state = tr("its backward runs");
            break;
    }
    const std::size_t i = g.instructionOfColumn(column);
    //: Schedule grid tooltip: the layer ("layer 5 (transformer_block 5/12)"), the column's
    //: instruction, what the cell shows
    return tr("%1 at %2: %3")
        .arg(m_numbering.layer(row))
        .arg(instructionCaption(instructionParts(*m_data->graph, *m_data->program, i),
                                ByteUnits::Binary, CaptionDetail::Short),
             state);
}

bool ScheduleGridView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_data) {
        auto* help = static_cast<QHelpEvent*>(event);
        const std::size_t c = columnAt(help->pos().x());
        const int row = rowAt(help->pos().y());
        if (c != npos && row >= 0)
            QToolTip::showText(help->globalPos(), cellText(row, c), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

}  // namespace remat::ui
