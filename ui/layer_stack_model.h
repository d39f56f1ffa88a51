// The layer stack as a Qt item model: one top-level row per network entry (the input first,
// the loss last), a repeated block shown once ("transformer_block × 96") and expandable into
// its instances, each instance (and each non-repeated block) expandable into its sub-modules
// (attention, attention_core, mlp, shortcut). Columns: name, kind, output shape, the bytes kept
// for backward under the current plan (with a bar fraction for the delegate) and the
// checkpoint toggle. The step-through's current layer is marked. Check-state edits, drag-and-drop
// moves and layer kinds dropped from the palette (inserted where they land) become document edits
// (undo commands); the model itself stores nothing the document does not hold.
#pragma once

#include <QAbstractItemModel>
#include <QColor>
#include <QPersistentModelIndex>
#include <QPointer>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ids.h"
#include "layer_numbering.h"
#include "strategy.h"

namespace remat::ui {

class Document;
struct DocumentState;

class LayerStackModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, ShapeColumn, BytesColumn, CheckpointColumn, ColumnCount };
    enum class NodeKind { Input, Entry, Instance, SubModule };
    enum Role {
        NodeKindRole = Qt::UserRole + 1,
        EntryRole,        // index into network.layers; -1 for the input
        InstanceRole,     // expanded layer index; -1 for the input and repeated entries
        ModulePathRole,   // "3/attention"; empty for entries that repeat and the input
        BytesRole,        // kept bytes as qint64
        BarFractionRole,  // kept bytes / the largest top-level row's, in [0, 1]
        CheckableRole,    // bool: the row covers ops and can be a region
        FirstOpRole,      // op range of the row (first, last), -1 when none
        LastOpRole,
    };

    explicit LayerStackModel(Document* document, QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                         const QModelIndex& parent) const override;
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;

    // Row of a top-level entry, and the index showing expanded layer `instance` (its instance
    // row when the entry repeats, else the entry's row).
    QModelIndex indexForEntry(std::size_t entry, int column = 0) const;
    QModelIndex indexForInstance(std::int64_t instance, int column = 0) const;
    // The region a row stands for, when it is checkable.
    bool regionFor(const QModelIndex& index, RegionSpec& region) const;
    // Where a drop at (row, parent) puts a layer, as an entry position (network.layers index;
    // the layer count appends): before the top-level row dropped on or between.
    int dropPosition(int row, const QModelIndex& parent) const;

    // The step-through's current layer: its row (and, when it is an instance of a repeated
    // block, the block's row, lighter) gets a marker background. -1: none.
    void setMarkedInstance(std::int64_t instance);
    std::int64_t markedInstance() const { return m_marked; }
    // The marker colour, for the row of the instance itself and for its block's row.
    static QColor markColor(bool own);

    // The widget that edits through this model (the stack's tree): the document's refusals of
    // its check boxes, moves and drops name it (EditOrigin). editedIndex() is the row of the
    // last such edit, where the refusal is shown.
    void setEditor(QWidget* editor) { m_editor = editor; }
    QModelIndex editedIndex() const { return m_edited; }
    void setEditedIndex(const QModelIndex& index) { m_edited = index; }

    static constexpr const char* kEntryMimeType = "application/x-remat-layer-entry";

signals:
    // A layer dropped from the palette went in as entry `entry`.
    void layerDropped(int entry);

private:
    struct Node {
        NodeKind kind = NodeKind::Input;
        int parent = -1;
        int row = 0;
        std::vector<int> children;
        int entry = -1;
        std::int64_t instance = -1;
        ModuleId module;
        std::string key;  // identity across rebuilds: same keys, same structure
    };

    void rebuild();
    int addNode(Node node);
    void addSubModules(int parentNode, ModuleId module, std::int64_t instance, int entry);
    const Node* nodeOf(const QModelIndex& index) const;
    QModelIndex indexOfNode(int node, int column) const;
    std::int64_t keptBytes(const Node& n) const;
    // The shown rank's module of network layer instance `instance` (none outside its stage).
    ModuleId moduleOf(std::int64_t instance) const;
    static bool isRepeatedEntry(const Node& n);
    bool opRange(const Node& n, std::uint32_t& first, std::uint32_t& last) const;
    Qt::CheckState checkState(const Node& n) const;
    QString nameText(const Node& n) const;
    QString kindText(const Node& n) const;
    QString shapeText(const Node& n) const;
    QString checkpointText(const Node& n) const;
    QString toolTip(const Node& n) const;
    void emitAllDataChanged(int parentNode);
    // What a plan edit can change in a row, as last announced to the views.
    struct Shown {
        std::int64_t bytes = 0;
        Qt::CheckState check = Qt::Unchecked;
        QString checkpoint;
        friend bool operator==(const Shown&, const Shown&) = default;
    };
    std::vector<Shown> shownRows() const;
    // After an edit that kept the tree: announces only the rows whose figures changed, so the
    // views repaint those rows instead of every visible one.
    void emitChangedRows(const std::vector<Shown>& before, std::int64_t maxBytesBefore);

    // The row numbers (layer_numbering.h) of the state they were made for.
    const LayerNumbering& numbering() const;
    mutable std::weak_ptr<const DocumentState> m_numberedState;
    mutable LayerNumbering m_numbering;

    QPointer<Document> m_document;
    QPointer<QWidget> m_editor;
    QPersistentModelIndex m_edited;
    std::vector<Node> m_nodes;
    std::vector<int> m_roots;
    std::int64_t m_maxRootBytes = 1;
    std::vector<Shown> m_shown;  // per node
    Network m_shownNetwork;      // the network m_shown was taken for
    std::int64_t m_marked = -1;  // setMarkedInstance
    QVariant markBackground(const Node& n) const;
};

}  // namespace remat::ui
