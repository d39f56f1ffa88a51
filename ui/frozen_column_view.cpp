#include "frozen_column_view.h"

#include <QHeaderView>
#include <QScrollBar>

namespace remat::ui {

FrozenColumnTableView::FrozenColumnTableView(QWidget* parent)
    : QTableView(parent), m_frozen(new QTableView(this)) {
    m_frozen->setObjectName(QStringLiteral("frozenColumn"));
    m_frozen->setFocusPolicy(Qt::NoFocus);
    m_frozen->verticalHeader()->hide();
    m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_frozen->setVerticalScrollMode(ScrollPerPixel);
    setVerticalScrollMode(ScrollPerPixel);
    setHorizontalScrollMode(ScrollPerPixel);
    m_frozen->setEditTriggers(NoEditTriggers);
    m_frozen->setFrameShape(QFrame::NoFrame);
    // A line on its right edge, so that the columns scrolling under it visibly pass under it.
    m_frozen->setStyleSheet(QStringLiteral("QTableView#frozenColumn { border: none; "
                                           "border-right: 1px solid palette(mid); }"));
    viewport()->stackUnder(m_frozen);

    // Scrolled vertically together, either way.
    connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(),
            &QAbstractSlider::setValue);
    connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(),
            &QAbstractSlider::setValue);
    // The first column's width and the rows' heights follow the table's.
    connect(horizontalHeader(), &QHeaderView::sectionResized, this,
            [this](int section, int, int size) {
                if (section != 0) return;
                m_frozen->setColumnWidth(0, size);
                placeFrozen();
            });
    connect(verticalHeader(), &QHeaderView::sectionResized, this,
            [this](int section, int, int size) { m_frozen->setRowHeight(section, size); });
    // Its header sorts the table (the table's sort indicator is the one that counts).
    connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
        if (section != 0 || !isSortingEnabled()) return;
        QHeaderView* h = horizontalHeader();
        const Qt::SortOrder order =
            h->sortIndicatorSection() == 0 && h->sortIndicatorOrder() == Qt::AscendingOrder
                ? Qt::DescendingOrder
                : Qt::AscendingOrder;
        h->setSortIndicator(0, order);
    });
    connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            [this](int section, Qt::SortOrder order) {
                m_frozen->horizontalHeader()->setSortIndicatorShown(section == 0);
                m_frozen->horizontalHeader()->setSortIndicator(section, order);
            });
    connect(m_frozen, &QTableView::clicked, this, &QTableView::clicked);
    connect(m_frozen, &QTableView::activated, this, &QTableView::activated);
}

void FrozenColumnTableView::setModel(QAbstractItemModel* model) {
    QTableView::setModel(model);
    m_frozen->setModel(model);
    m_frozen->setSelectionModel(selectionModel());
    m_frozen->setSelectionBehavior(selectionBehavior());
    m_frozen->setSelectionMode(selectionMode());
    auto hideOthers = [this] {
        if (!m_frozen->model()) return;
        for (int c = 1; c < m_frozen->model()->columnCount(); ++c) m_frozen->setColumnHidden(c, true);
        m_frozen->setColumnWidth(0, columnWidth(0));
        for (int r = 0; r < m_frozen->model()->rowCount(); ++r)
            m_frozen->setRowHeight(r, rowHeight(r));
        placeFrozen();
    };
    hideOthers();
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, this, hideOthers);
        connect(model, &QAbstractItemModel::columnsInserted, this, hideOthers);
        connect(model, &QAbstractItemModel::layoutChanged, this, hideOthers);
        connect(model, &QAbstractItemModel::rowsInserted, this, hideOthers);
    }
}

void FrozenColumnTableView::resetScroll() {
    horizontalScrollBar()->setValue(0);
    verticalScrollBar()->setValue(0);
}

void FrozenColumnTableView::resizeEvent(QResizeEvent* event) {
    QTableView::resizeEvent(event);
    placeFrozen();
}

void FrozenColumnTableView::updateGeometries() {
    QTableView::updateGeometries();
    placeFrozen();
}

QModelIndex FrozenColumnTableView::moveCursor(CursorAction cursorAction,
                                              Qt::KeyboardModifiers modifiers) {
    const QModelIndex current = QTableView::moveCursor(cursorAction, modifiers);
    // Keyboard moves to the left must not leave a cell hidden under the frozen column.
    if (cursorAction == MoveLeft && current.column() > 0 &&
        visualRect(current).topLeft().x() < m_frozen->columnWidth(0)) {
        const int newValue = horizontalScrollBar()->value() + visualRect(current).topLeft().x() -
                             m_frozen->columnWidth(0);
        horizontalScrollBar()->setValue(newValue);
    }
    return current;
}

void FrozenColumnTableView::scrollTo(const QModelIndex& index, ScrollHint hint) {
    // The first column is always in sight: for it only the rows scroll (to the first column
    // that shows beside it), never the columns.
    if (index.column() > 0) {
        QTableView::scrollTo(index, hint);
        return;
    }
    const int beside = columnAt(m_frozen->columnWidth(0) + 1);
    if (index.isValid() && beside > 0) QTableView::scrollTo(index.sibling(index.row(), beside), hint);
}

void FrozenColumnTableView::placeFrozen() {
    if (!m_frozen) return;
    m_frozen->horizontalHeader()->setFixedHeight(horizontalHeader()->height());
    m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), columnWidth(0),
                          viewport()->height() + horizontalHeader()->height());
    m_frozen->setVisible(model() && model()->columnCount() > 0);
}

}  // namespace remat::ui
