// The layer stack on screen: a tree over LayerStackModel with the bytes bar delegate, a row of
// actions (checkpoint the selected consecutive layers as one region, clear the plan), drag and
// drop of top-level layers (moves) and of layer kinds from the palette (inserts), and expansion
// kept across edits. It reports which layer is selected (for the inspector and the timeline
// highlight) and selects a layer on request (a click on the timeline); the step-through's current
// layer is marked on request.
#pragma once

#include <QRect>
#include <QSet>
#include <QWidget>
#include <cstdint>
#include <vector>

class QTreeView;
class QToolButton;
class QModelIndex;
class QAction;

namespace remat::ui {

class Document;
class LayerStackModel;

class LayerStackView : public QWidget {
    Q_OBJECT
public:
    explicit LayerStackView(Document* document, QWidget* parent = nullptr);

    LayerStackModel* model() const { return m_model; }
    QTreeView* tree() const { return m_tree; }
    QAction* checkpointSelectionAction() const { return m_checkpointSelection; }
    // Starts an edit of the current row made outside the tree (the Edit menu's duplicate, delete
    // and move): a refusal is shown at that row. Name the tree as its origin (EditOrigin).
    Document* beginEdit();

    // Selected top-level entries (index into network.layers), sorted; the input is not one.
    std::vector<std::size_t> selectedEntries() const;
    // The entry the inspector should show: -1 for the input, -2 for nothing.
    int currentEntry() const;
    // Expanded layer instance of the current row (-1 when it is the input or a whole repeated
    // block).
    std::int64_t currentInstance() const;

    // The rows expanded and selected and the current row, by keys that name rows rather than
    // their positions on screen; restoreRows() puts a new view over the same document (the
    // window rebuilt in another language) in the same state.
    struct Rows {
        QSet<QString> expanded, selected;
        QString current;
        int scroll = 0;
    };
    Rows rows() const;
    void restoreRows(const Rows& rows);

public slots:
    // Makes the selected consecutive layers one checkpointed region.
    void checkpointSelection();
    // Selects (and scrolls to) the row of expanded layer `instance`, expanding its block.
    void selectInstance(int instance);
    void selectEntry(int entry);
    // Marks the row of expanded layer `instance` as the step-through's current layer (-1:
    // none) and scrolls it into view, without selecting it or expanding a block.
    void markInstance(int instance);

signals:
    void currentEntryChanged(int entry);        // -1: the input row
    void currentInstanceChanged(int instance);  // -1: none (input or a repeated block row)
    void message(const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Narrows the kind and output columns when the view is narrow (a projector), so that the
    // layer's name keeps room; at their typical widths otherwise.
    void fitColumns();
    // The edited row across the viewport, where a refusal is shown.
    QRect editedArea() const;
    // A refusal of the view's own (a selection that is no region): at the current row.
    void refuse(const QString& text);
    void saveExpansion();
    void restoreExpansion();
    QString keyOf(const QModelIndex& index) const;
    // keyOf(), or for a row it names no key for (the input) its top-level row number.
    QString rowKey(const QModelIndex& index) const;
    // Every row of the model, children after their parent.
    std::vector<QModelIndex> allRows() const;
    void onCurrentChanged();

    Document* m_document;
    LayerStackModel* m_model;
    QTreeView* m_tree;
    QAction* m_checkpointSelection;
    QSet<QString> m_expanded;
    int m_lastEntry = -2;
    int m_lastInstance = -2;
    int m_kindWidth = 0;   // typical widths of the kind and output columns
    int m_shapeWidth = 0;
};

}  // namespace remat::ui
