#include "palette.h"

#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "layer_catalog.h"
#include "layer_kind_mime.h"
#include "qt_convert.h"

namespace remat::ui {

namespace {
constexpr int kKindRole = Qt::UserRole + 1;

// The catalog list: a kind is dragged out as a copy (the palette never loses an item), carrying
// the layer-kind MIME type; group headings cannot be dragged.
class CatalogTree : public QTreeWidget {
public:
    using QTreeWidget::QTreeWidget;

protected:
    QStringList mimeTypes() const override { return {QString::fromLatin1(kLayerKindMimeType)}; }
    QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override {
        for (const QTreeWidgetItem* item : items)
            if (item->data(0, kKindRole).isValid())
                return layerKindMimeData(LayerKind(item->data(0, kKindRole).toInt()));
        return nullptr;
    }
    void startDrag(Qt::DropActions) override { QTreeWidget::startDrag(Qt::CopyAction); }
};

}  // namespace

Palette::Palette(QWidget* parent)
    : QWidget(parent),
      m_list(new CatalogTree(this)),
      m_add(new QPushButton(tr("Add after current layer"), this)),
      m_description(new QLabel(this)) {
    m_list->setHeaderHidden(true);
    m_list->setRootIsDecorated(false);
    m_list->setAccessibleName(tr("Layer palette"));
    m_list->setDragEnabled(true);
    m_list->setDragDropMode(QAbstractItemView::DragOnly);
    m_list->setDefaultDropAction(Qt::CopyAction);
    for (const CatalogGroup& g : layerCatalog()) {
        auto* group = new QTreeWidgetItem(m_list, {g.title});
        group->setFlags(Qt::ItemIsEnabled);
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(0, bold);
        for (LayerKind k : g.kinds) {
            auto* item = new QTreeWidgetItem(group, {toQString(layerKindName(k))});
            item->setData(0, kKindRole, int(k));
            item->setToolTip(0, layerDescription(k) + QLatin1Char('\n') +
                                    tr("Drag onto the layer stack to insert it there."));
        }
    }
    m_list->expandAll();
    m_description->setWordWrap(true);
    m_description->setMinimumHeight(m_description->fontMetrics().lineSpacing() * 2);
    m_add->setEnabled(false);

    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        const bool isKind = item && item->data(0, kKindRole).isValid();
        m_add->setEnabled(isKind);
        m_description->setText(
            isKind ? layerDescription(LayerKind(item->data(0, kKindRole).toInt())) : QString());
    });
    connect(m_list, &QTreeWidget::itemActivated, this, [this] { requestCurrent(); });
    connect(m_add, &QPushButton::clicked, this, &Palette::requestCurrent);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_description);
    layout->addWidget(m_add);
}

bool Palette::currentKind(LayerKind& kind) const {
    const QTreeWidgetItem* item = m_list->currentItem();
    if (!item || !item->data(0, kKindRole).isValid()) return false;
    kind = LayerKind(item->data(0, kKindRole).toInt());
    return true;
}

void Palette::requestCurrent() {
    LayerKind k;
    if (currentKind(k)) emit addRequested(k);
}

}  // namespace remat::ui
