// A table whose first column stays in place while the others scroll sideways (the comparison's
// strategy names beside figures that need more width than the panel has). A second view over
// the same model and selection shows only the first column, laid over the table's own and
// scrolled vertically with it; its header sorts like the table's. Clicks on it act as clicks on
// the table (clicked, activated).
#pragma once

#include <QTableView>

namespace remat::ui {

class FrozenColumnTableView : public QTableView {
    Q_OBJECT
public:
    explicit FrozenColumnTableView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model) override;
    // The view laid over the first column.
    QTableView* frozenView() const { return m_frozen; }
    // Back to the first row and the first column (another model was opened).
    void resetScroll();

protected:
    void resizeEvent(QResizeEvent* event) override;
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
    void updateGeometries() override;

private:
    void placeFrozen();

    QTableView* m_frozen;
};

}  // namespace remat::ui
