// A tree view whose item delegates paint only the cells the current paint event needs. Qt's
// tree view paints every column of a row that meets the dirty region, so an edit that changes
// two cells of three rows had the style lay out and elide the text of all fifteen cells; the
// layer stack of a large model spent as long on that as on the rest of the window's paint.
// RegionTreeView remembers the region while it paints, and skipsCell() tells a delegate that a
// cell lies wholly outside it (its pixels would be clipped away anyway). Outside a paint event
// (a drag pixmap, a grab) every cell is painted.
#pragma once

#include <QRegion>
#include <QStyledItemDelegate>
#include <QTreeView>

namespace remat::ui {

class RegionTreeView : public QTreeView {
    Q_OBJECT
public:
    using QTreeView::QTreeView;

    // True while painting, when `cell` (viewport coordinates) does not meet the dirty region.
    bool outsidePaintRegion(const QRect& cell) const {
        return m_painting && !m_region.intersects(cell);
    }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRegion m_region;
    bool m_painting = false;
};

// True when the delegate painting `option` may skip the cell: its view is a RegionTreeView that
// is painting a region the cell does not meet.
bool skipsCell(const QStyleOptionViewItem& option);

// QStyledItemDelegate that skips the cells skipsCell() names.
class RegionItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

}  // namespace remat::ui
