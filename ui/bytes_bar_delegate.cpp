#include "bytes_bar_delegate.h"

#include <QApplication>
#include <QPainter>

#include "layer_stack_model.h"
#include "qt_convert.h"

namespace remat::ui {

void BytesBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    if (skipsCell(option)) return;
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const double fraction = index.data(LayerStackModel::BarFractionRole).toDouble();
    const QRect area = opt.rect.adjusted(2, 3, -2, -3);
    if (fraction > 0 && area.width() > 0) {
        QColor bar = categoryColor(Category::SavedActivations);
        bar.setAlpha(opt.palette.color(QPalette::Base).lightness() > 128 ? 110 : 150);
        // At least a sliver, so that a small but non-zero figure still shows a bar.
        const int width = std::max(2, int(area.width() * fraction));
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->fillRect(QRect(area.left(), area.top(), width, area.height()), bar);
        painter->restore();
    }
    painter->save();
    const bool selected = opt.state & QStyle::State_Selected;
    painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(opt.rect.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter, text);
    painter->restore();
}

QSize BytesBarDelegate::sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(std::max(s.width(),
                        option.fontMetrics.horizontalAdvance(QStringLiteral("000.00 MiB")) + 16));
    return s;
}

}  // namespace remat::ui
