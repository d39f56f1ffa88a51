#include "layer_stack_view.h"

#include <QAction>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QScrollBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "bytes_bar_delegate.h"
#include "document.h"
#include "layer_stack_model.h"
#include "refusal_notice.h"
#include "region_tree_view.h"

namespace remat::ui {

LayerStackView::LayerStackView(Document* document, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_model(new LayerStackModel(document, this)),
      m_tree(new RegionTreeView(this)) {
    m_tree->setModel(m_model);
    m_tree->setItemDelegate(new RegionItemDelegate(m_tree));
    m_tree->setObjectName(QStringLiteral("layerStackTree"));
    m_tree->setItemDelegateForColumn(LayerStackModel::BytesColumn, new BytesBarDelegate(m_tree));
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->setDragEnabled(true);
    m_tree->setAcceptDrops(true);
    m_tree->setDropIndicatorShown(true);
    // Rows move within the stack; layer kinds come in from the palette (copied).
    m_tree->setDragDropMode(QAbstractItemView::DragDrop);
    m_tree->setDefaultDropAction(Qt::MoveAction);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_tree->setAccessibleName(tr("Layer stack"));

    QHeaderView* header = m_tree->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(LayerStackModel::NameColumn, QHeaderView::Stretch);
    const QFontMetrics fm(font());
    // Fixed columns sized for their typical content; the name takes the rest.
    m_kindWidth = fm.horizontalAdvance(QStringLiteral("transformer_blo")) + 12;
    m_shapeWidth = fm.horizontalAdvance(QStringLiteral("[1024, 50257]")) + 12;
    header->resizeSection(LayerStackModel::KindColumn, m_kindWidth);
    header->resizeSection(LayerStackModel::ShapeColumn, m_shapeWidth);
    header->resizeSection(LayerStackModel::BytesColumn,
                          fm.horizontalAdvance(QStringLiteral("000.00 MiB")) + 24);
    header->resizeSection(LayerStackModel::CheckpointColumn,
                          fm.horizontalAdvance(QStringLiteral("recompute")) + 40);
    m_tree->setMinimumWidth(fm.horizontalAdvance(QLatin1Char('x')) * 60);
    m_tree->installEventFilter(this);

    m_checkpointSelection = new QAction(tr("Checkpoint selection"), this);
    m_checkpointSelection->setToolTip(
        tr("Make the selected consecutive layers one checkpointed (recompute) region"));
    m_checkpointSelection->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    // Also in the Edit menu: the shortcut works wherever the focus is in the window.
    m_checkpointSelection->setShortcutContext(Qt::WindowShortcut);
    connect(m_checkpointSelection, &QAction::triggered, this, &LayerStackView::checkpointSelection);
    m_tree->addAction(m_checkpointSelection);

    auto* clear = new QAction(tr("Clear plan"), this);
    clear->setToolTip(tr("Remove every checkpointed region"));
    connect(clear, &QAction::triggered, this, [this] {
        EditOrigin origin(*beginEdit(), m_tree);
        (void)m_document->clearPlan();
    });

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    for (QAction* a : {m_checkpointSelection, clear}) {
        auto* b = new QToolButton(this);
        b->setDefaultAction(a);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        bar->addWidget(b);
    }
    auto* expand = new QToolButton(this);
    expand->setText(tr("Expand all"));
    connect(expand, &QToolButton::clicked, m_tree, &QTreeView::expandAll);
    auto* collapse = new QToolButton(this);
    collapse->setText(tr("Collapse all"));
    connect(collapse, &QToolButton::clicked, m_tree, &QTreeView::collapseAll);
    bar->addStretch(1);
    bar->addWidget(expand);
    bar->addWidget(collapse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_tree, 1);

    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this,
            &LayerStackView::saveExpansion);
    connect(m_model, &QAbstractItemModel::modelReset, this, &LayerStackView::restoreExpansion);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &LayerStackView::onCurrentChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &LayerStackView::onCurrentChanged);
    // Check boxes, moves and drops refused by the document: the rows show the document's plan and
    // layers again (the model re-reads them), the reason under the row that was edited.
    m_model->setEditor(m_tree);
    connectRefusals(m_document, this, [this](QWidget*, const QString&) {
        return RefusalPlace{m_tree->viewport(), editedArea()};
    });
    // A layer dropped from the palette becomes the current row, as one added with "Add" does.
    connect(m_model, &LayerStackModel::layerDropped, this, &LayerStackView::selectEntry);
}

QString LayerStackView::keyOf(const QModelIndex& index) const {
    const auto kind = LayerStackModel::NodeKind(index.data(LayerStackModel::NodeKindRole).toInt());
    switch (kind) {
        case LayerStackModel::NodeKind::Entry:
            return QStringLiteral("e%1:%2")
                .arg(index.data(LayerStackModel::EntryRole).toInt())
                .arg(m_model->index(index.row(), LayerStackModel::KindColumn, index.parent())
                         .data()
                         .toString());
        case LayerStackModel::NodeKind::Instance:
            return QStringLiteral("i%1").arg(
                index.data(LayerStackModel::InstanceRole).toLongLong());
        case LayerStackModel::NodeKind::SubModule:
            return QStringLiteral("m") + index.data(LayerStackModel::ModulePathRole).toString();
        default:
            return {};
    }
}

void LayerStackView::saveExpansion() {
    m_expanded.clear();
    std::vector<QModelIndex> stack;
    for (int r = 0; r < m_model->rowCount(); ++r) stack.push_back(m_model->index(r, 0));
    while (!stack.empty()) {
        const QModelIndex i = stack.back();
        stack.pop_back();
        if (!m_tree->isExpanded(i)) continue;
        m_expanded.insert(keyOf(i));
        for (int r = 0; r < m_model->rowCount(i); ++r) stack.push_back(m_model->index(r, 0, i));
    }
}

void LayerStackView::restoreExpansion() {
    if (m_expanded.isEmpty()) return;
    std::vector<QModelIndex> stack;
    for (int r = 0; r < m_model->rowCount(); ++r) stack.push_back(m_model->index(r, 0));
    while (!stack.empty()) {
        const QModelIndex i = stack.back();
        stack.pop_back();
        if (!m_expanded.contains(keyOf(i))) continue;
        m_tree->setExpanded(i, true);
        for (int r = 0; r < m_model->rowCount(i); ++r) stack.push_back(m_model->index(r, 0, i));
    }
}

QString LayerStackView::rowKey(const QModelIndex& index) const {
    const QString key = keyOf(index);
    if (!key.isEmpty() || index.parent().isValid()) return key;
    return QStringLiteral("row%1").arg(index.row());
}

std::vector<QModelIndex> LayerStackView::allRows() const {
    std::vector<QModelIndex> out, stack;
    for (int r = m_model->rowCount() - 1; r >= 0; --r) stack.push_back(m_model->index(r, 0));
    while (!stack.empty()) {
        const QModelIndex i = stack.back();
        stack.pop_back();
        out.push_back(i);
        for (int r = m_model->rowCount(i) - 1; r >= 0; --r)
            stack.push_back(m_model->index(r, 0, i));
    }
    return out;
}

LayerStackView::Rows LayerStackView::rows() const {
    Rows out;
    for (const QModelIndex& i : allRows())
        if (m_tree->isExpanded(i)) out.expanded.insert(rowKey(i));
    for (const QModelIndex& i : m_tree->selectionModel()->selectedRows())
        out.selected.insert(rowKey(i));
    const QModelIndex current = m_tree->currentIndex();
    if (current.isValid()) out.current = rowKey(current.siblingAtColumn(0));
    out.scroll = m_tree->verticalScrollBar()->value();
    return out;
}

void LayerStackView::restoreRows(const Rows& rows) {
    QModelIndex current;
    QItemSelection selection;
    for (const QModelIndex& i : allRows()) {
        const QString key = rowKey(i);
        if (rows.expanded.contains(key)) m_tree->setExpanded(i, true);
        if (rows.selected.contains(key)) selection.select(i, i);
        if (key == rows.current) current = i;
    }
    if (current.isValid())
        m_tree->selectionModel()->setCurrentIndex(current, QItemSelectionModel::NoUpdate);
    m_tree->selectionModel()->select(
        selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    // The inspector and the timeline's highlight follow the current row.
    onCurrentChanged();
    m_tree->verticalScrollBar()->setValue(rows.scroll);
}

std::vector<std::size_t> LayerStackView::selectedEntries() const {
    std::set<std::size_t> entries;
    for (const QModelIndex& i : m_tree->selectionModel()->selectedRows()) {
        if (i.parent().isValid()) continue;
        const int e = i.data(LayerStackModel::EntryRole).toInt();
        if (e >= 0) entries.insert(std::size_t(e));
    }
    if (entries.empty()) {
        const int e = currentEntry();
        if (e >= 0) entries.insert(std::size_t(e));
    }
    return {entries.begin(), entries.end()};
}

int LayerStackView::currentEntry() const {
    const QModelIndex i = m_tree->currentIndex();
    if (!i.isValid()) return -2;
    return i.data(LayerStackModel::EntryRole).toInt();
}

std::int64_t LayerStackView::currentInstance() const {
    const QModelIndex i = m_tree->currentIndex();
    if (!i.isValid()) return -1;
    return i.data(LayerStackModel::InstanceRole).toLongLong();
}

void LayerStackView::onCurrentChanged() {
    const int entry = currentEntry();
    const int instance = int(currentInstance());
    if (entry != m_lastEntry) {
        m_lastEntry = entry;
        emit currentEntryChanged(entry);
    }
    if (instance != m_lastInstance) {
        m_lastInstance = instance;
        emit currentInstanceChanged(instance);
    }
}

Document* LayerStackView::beginEdit() {
    m_model->setEditedIndex(m_tree->currentIndex());
    return m_document;
}

QRect LayerStackView::editedArea() const {
    const QModelIndex edited = m_model->editedIndex();
    const QRect row = edited.isValid() ? m_tree->visualRect(edited) : QRect();
    // A row scrolled out of sight: the top of the stack instead.
    if (row.isEmpty() || !m_tree->viewport()->rect().intersects(row))
        return QRect(0, 0, m_tree->viewport()->width(), 1);
    return QRect(0, row.top(), m_tree->viewport()->width(), row.height());
}

void LayerStackView::refuse(const QString& text) {
    m_model->setEditedIndex(m_tree->currentIndex());
    emit message(text);
    showRefusal(m_tree->viewport(), text, editedArea());
}

void LayerStackView::checkpointSelection() {
    const QModelIndexList rows = m_tree->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        refuse(tr("Select the layers to checkpoint together first."));
        return;
    }
    EditOrigin origin(*beginEdit(), m_tree);
    if (rows.size() == 1) {
        RegionSpec region;
        if (m_model->regionFor(rows.front(), region)) {
            (void)m_document->setRegion(region, true);
            return;
        }
    }
    std::set<std::int64_t> instances;
    for (const QModelIndex& i : rows) {
        const auto kind = LayerStackModel::NodeKind(i.data(LayerStackModel::NodeKindRole).toInt());
        if (kind == LayerStackModel::NodeKind::Input) continue;
        if (kind == LayerStackModel::NodeKind::SubModule) {
            refuse(tr("A region of several rows must be made of whole layers, not "
                      "sub-modules."));
            return;
        }
        RegionSpec r;
        if (!m_model->regionFor(i, r) || r.isPath) continue;
        for (std::int64_t k = r.first; k <= r.last; ++k) instances.insert(k);
    }
    if (instances.empty()) return;
    const std::int64_t first = *instances.begin(), last = *instances.rbegin();
    if (std::int64_t(instances.size()) != last - first + 1) {
        refuse(tr("Select consecutive layers: a region is one contiguous range."));
        return;
    }
    int merged = 0;
    if (m_document->mergeRegion(first, last, &merged) && merged > 0)
        emit message(tr("Merged %n region(s) into one region.", nullptr, merged));
}

void LayerStackView::selectInstance(int instance) {
    const QModelIndex i = m_model->indexForInstance(instance);
    if (!i.isValid()) return;
    if (i.parent().isValid()) m_tree->expand(i.parent());
    m_tree->setCurrentIndex(i);
    m_tree->scrollTo(i);
}

void LayerStackView::markInstance(int instance) {
    m_model->setMarkedInstance(instance);
    if (instance < 0) return;
    QModelIndex i = m_model->indexForInstance(instance);
    // Inside a collapsed block its row is hidden: the block's row is marked and shown instead.
    if (i.isValid() && i.parent().isValid() && !m_tree->isExpanded(i.parent())) i = i.parent();
    if (i.isValid()) m_tree->scrollTo(i);
}

void LayerStackView::selectEntry(int entry) {
    const QModelIndex i =
        entry < 0 ? m_model->index(0, 0) : m_model->indexForEntry(std::size_t(entry));
    if (!i.isValid()) return;
    m_tree->setCurrentIndex(i);
    m_tree->scrollTo(i);
}

bool LayerStackView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_tree && event->type() == QEvent::Resize) fitColumns();
    return QWidget::eventFilter(watched, event);
}

void LayerStackView::fitColumns() {
    QHeaderView* header = m_tree->header();
    const QFontMetrics fm(font());
    const int x = fm.horizontalAdvance(QLatin1Char('x'));
    // The name ("1–12  transformer_block") needs about 24 characters; the kind and output
    // columns give up to half their width for it.
    const int fixed = header->sectionSize(LayerStackModel::BytesColumn) +
                      header->sectionSize(LayerStackModel::CheckpointColumn);
    const int spare = m_tree->viewport()->width() - fixed - 24 * x;
    const int typical = m_kindWidth + m_shapeWidth;
    const double share = std::clamp(double(spare) / typical, 0.5, 1.0);
    header->resizeSection(LayerStackModel::KindColumn, int(m_kindWidth * share));
    header->resizeSection(LayerStackModel::ShapeColumn, int(m_shapeWidth * share));
}

}  // namespace remat::ui
