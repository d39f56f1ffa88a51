#include "region_tree_view.h"

#include <QPaintEvent>

namespace remat::ui {

void RegionTreeView::paintEvent(QPaintEvent* event) {
    m_region = event->region();
    m_painting = true;
    QTreeView::paintEvent(event);
    m_painting = false;
    m_region = QRegion();
}

bool skipsCell(const QStyleOptionViewItem& option) {
    const auto* view = qobject_cast<const RegionTreeView*>(option.widget);
    return view && view->outsidePaintRegion(option.rect);
}

void RegionItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                               const QModelIndex& index) const {
    if (skipsCell(option)) return;
    QStyledItemDelegate::paint(painter, option, index);
}

}  // namespace remat::ui
