// Paints the layer stack's "kept for backward" cell as a horizontal bar proportional to the
// bytes (the model's BarFractionRole) under the formatted figure, so that the layers holding
// the memory stand out at a glance. Colours come from the palette and the saved-activations
// category colour, so the bar reads in light and dark themes alike. Like every layer stack cell,
// it is skipped when it lies outside the region being painted (RegionItemDelegate).
#pragma once

#include "region_tree_view.h"

namespace remat::ui {

class BytesBarDelegate : public RegionItemDelegate {
    Q_OBJECT
public:
    using RegionItemDelegate::RegionItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace remat::ui
