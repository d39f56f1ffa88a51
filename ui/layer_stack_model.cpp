#include "layer_stack_model.h"


#include <QBrush>
#include <QDataStream>
#include <QIODevice>
#include <QMimeData>
#include <algorithm>
#include <utility>

#include "document.h"
#include "layer_insert.h"
#include "layer_kind_mime.h"
#include "layer_numbering.h"
#include "plan_edit.h"
#include "qt_convert.h"

namespace remat::ui {

LayerStackModel::LayerStackModel(Document* document, QObject* parent)
    : QAbstractItemModel(parent), m_document(document) {
    rebuild();
    m_shown = shownRows();
    m_shownNetwork = m_document->network();
    connect(document, &Document::changed, this, [this] {
        std::vector<std::string> oldKeys;
        oldKeys.reserve(m_nodes.size());
        for (const Node& n : m_nodes) oldKeys.push_back(n.key);
        std::vector<Node> previous = m_nodes;
        std::vector<int> previousRoots = m_roots;
        const std::int64_t previousMaxBytes = m_maxRootBytes;
        rebuild();
        bool same = m_nodes.size() == oldKeys.size();
        for (std::size_t i = 0; same && i < m_nodes.size(); ++i)
            same = m_nodes[i].key == oldKeys[i];
        if (same && sameStructure(m_document->network(), m_shownNetwork)) {
            // A plan or settings edit (per-layer checkpoint flags included): names, kinds and
            // shapes are as they were.
            emitChangedRows(m_shown, previousMaxBytes);
            return;
        }
        m_shown = shownRows();
        m_shownNetwork = m_document->network();
        if (same) {
            emitAllDataChanged(-1);
            return;
        }
        // The structure changed: put the old tree back for the views' sake, then reset.
        std::vector<Node> next = std::move(m_nodes);
        std::vector<int> nextRoots = std::move(m_roots);
        m_nodes = std::move(previous);
        m_roots = std::move(previousRoots);
        beginResetModel();
        m_nodes = std::move(next);
        m_roots = std::move(nextRoots);
        endResetModel();
    });
}

int LayerStackModel::addNode(Node node) {
    m_nodes.push_back(std::move(node));
    const int id = int(m_nodes.size()) - 1;
    Node& n = m_nodes.back();
    if (n.parent >= 0) {
        n.row = int(m_nodes[std::size_t(n.parent)].children.size());
        m_nodes[std::size_t(n.parent)].children.push_back(id);
    } else {
        n.row = int(m_roots.size());
        m_roots.push_back(id);
    }
    return id;
}

void LayerStackModel::addSubModules(int parentNode, ModuleId module, std::int64_t instance,
                                    int entry) {
    const Graph& g = m_document->graph();
    if (!module.valid() || module.index() >= g.modules.size()) return;
    for (ModuleId child : g.module(module).children) {
        Node n;
        n.kind = NodeKind::SubModule;
        n.parent = parentNode;
        n.entry = entry;
        n.instance = instance;
        n.module = child;
        n.key = "m" + g.module(child).path;
        const int id = addNode(std::move(n));
        addSubModules(id, child, instance, entry);
    }
}

bool LayerStackModel::isRepeatedEntry(const Node& n) {
    // A single entry is its one instance; a repeated one holds its instances as children. (A
    // single entry's module is no test: outside the pipeline stage shown it has none.)
    return n.kind == NodeKind::Entry && n.instance < 0;
}

ModuleId LayerStackModel::moduleOf(std::int64_t instance) const {
    // Under pipeline parallelism the graph is the shown rank's: its layers are the network's
    // instances from rankFirstInstance() on.
    const Graph& g = m_document->graph();
    const std::int64_t local = instance - m_document->rankFirstInstance();
    if (local < 0 || std::size_t(local) >= g.layerModules.size()) return ModuleId::invalid();
    return g.layerModules[std::size_t(local)];
}

void LayerStackModel::rebuild() {
    m_nodes.clear();
    m_roots.clear();
    if (!m_document) return;
    const Network& net = m_document->network();
    Node input;
    input.kind = NodeKind::Input;
    input.key = "in";
    addNode(std::move(input));
    std::int64_t instance = 0;
    for (std::size_t e = 0; e < net.layers.size(); ++e) {
        const Layer& l = net.layers[e];
        Node entry;
        entry.kind = NodeKind::Entry;
        entry.entry = int(e);
        // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "e" + std::to_string(e).
        entry.key = "e";
        entry.key += std::to_string(e);
        entry.key += ':';
        entry.key += layerKindName(l.kind);
        entry.key += ':';
        entry.key += std::to_string(l.repeat);
        if (l.repeat == 1) {
            entry.instance = instance;
            entry.module = moduleOf(instance);
        }
        const int id = addNode(std::move(entry));
        if (l.repeat == 1) {
            addSubModules(id, m_nodes[std::size_t(id)].module, instance, int(e));
        } else {
            for (std::int64_t k = 0; k < l.repeat; ++k) {
                Node inst;
                inst.kind = NodeKind::Instance;
                inst.parent = id;
                inst.entry = int(e);
                inst.instance = instance + k;
                inst.module = moduleOf(instance + k);
                inst.key = "i";
                inst.key += std::to_string(instance + k);
                const int iid = addNode(std::move(inst));
                addSubModules(iid, m_nodes[std::size_t(iid)].module, instance + k, int(e));
            }
        }
        instance += l.repeat;
    }
    m_maxRootBytes = 1;
    for (int r : m_roots)
        m_maxRootBytes = std::max(m_maxRootBytes, keptBytes(m_nodes[std::size_t(r)]));
}

void LayerStackModel::emitAllDataChanged(int parentNode) {
    const std::vector<int>& rows =
        parentNode < 0 ? m_roots : m_nodes[std::size_t(parentNode)].children;
    if (rows.empty()) return;
    const QModelIndex parent = parentNode < 0 ? QModelIndex() : indexOfNode(parentNode, 0);
    emit dataChanged(index(0, 0, parent), index(int(rows.size()) - 1, ColumnCount - 1, parent));
    for (int child : rows)
        if (!m_nodes[std::size_t(child)].children.empty()) emitAllDataChanged(child);
}

std::vector<LayerStackModel::Shown> LayerStackModel::shownRows() const {
    std::vector<Shown> out(m_nodes.size());
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        const Node& n = m_nodes[i];
        out[i] = Shown{keptBytes(n), checkState(n), checkpointText(n)};
    }
    return out;
}

void LayerStackModel::emitChangedRows(const std::vector<Shown>& before,
                                      std::int64_t maxBytesBefore) {
    std::vector<Shown> now = shownRows();
    const bool barsRescaled = m_maxRootBytes != maxBytesBefore;
    // Cell by cell: a view repaints a single changed index, but its whole viewport for a range.
    auto cell = [this](std::size_t node, int column) {
        const QModelIndex at = indexOfNode(int(node), column);
        emit dataChanged(at, at);
    };
    for (std::size_t i = 0; i < m_nodes.size(); ++i) {
        if (i < before.size() && now[i] == before[i]) {
            // Unchanged figures; the bar still moves when the longest bar it is drawn against
            // changed.
            if (barsRescaled) cell(i, BytesColumn);
            continue;
        }
        // Names, kinds and shapes stay: a plan edit changes the kept bytes and the checkpoint.
        cell(i, BytesColumn);
        cell(i, CheckpointColumn);
    }
    m_shown = std::move(now);
}

const LayerStackModel::Node* LayerStackModel::nodeOf(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return nullptr;
    const auto id = std::size_t(index.internalId());
    return id < m_nodes.size() ? &m_nodes[id] : nullptr;
}

QModelIndex LayerStackModel::indexOfNode(int node, int column) const {
    if (node < 0 || std::size_t(node) >= m_nodes.size()) return {};
    return createIndex(m_nodes[std::size_t(node)].row, column, quintptr(node));
}

QModelIndex LayerStackModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const std::vector<int>* rows = &m_roots;
    if (parent.isValid()) {
        const Node* p = nodeOf(parent);
        if (!p) return {};
        rows = &p->children;
    }
    if (std::size_t(row) >= rows->size()) return {};
    return createIndex(row, column, quintptr((*rows)[std::size_t(row)]));
}

QModelIndex LayerStackModel::parent(const QModelIndex& child) const {
    const Node* n = nodeOf(child);
    if (!n || n->parent < 0) return {};
    return indexOfNode(n->parent, 0);
}

int LayerStackModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return int(m_roots.size());
    if (parent.column() != 0) return 0;
    const Node* n = nodeOf(parent);
    return n ? int(n->children.size()) : 0;
}

int LayerStackModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

bool LayerStackModel::opRange(const Node& n, std::uint32_t& first, std::uint32_t& last) const {
    const Graph& g = m_document->graph();
    if (n.kind == NodeKind::Input) return false;
    if (isRepeatedEntry(n)) {
        // A repeated entry spans its instances: those of the rank shown (a pipeline stage
        // holds only some of them).
        bool any = false;
        for (int c : n.children) {
            std::uint32_t f = 0, l = 0;
            if (!opRange(m_nodes[std::size_t(c)], f, l)) continue;
            if (!any) first = f;
            last = l;
            any = true;
        }
        return any;
    }
    if (!n.module.valid() || n.module.index() >= g.modules.size()) return false;
    const Module& m = g.module(n.module);
    if (!m.hasOps()) return false;
    first = m.firstOp;
    last = m.lastOp();
    return true;
}

std::int64_t LayerStackModel::keptBytes(const Node& n) const {
    const KeptActivations& kept = m_document->state().kept;
    if (n.kind == NodeKind::Input) return kept.inputBytes();
    std::uint32_t first = 0, last = 0;
    return opRange(n, first, last) ? kept.bytesInOps(first, last) : 0;
}

Qt::CheckState LayerStackModel::checkState(const Node& n) const {
    const Plan& plan = m_document->evaluation().program.plan;
    if (isRepeatedEntry(n)) {
        std::size_t on = 0;
        for (int c : n.children) on += checkState(m_nodes[std::size_t(c)]) == Qt::Checked ? 1 : 0;
        if (on == 0) return Qt::Unchecked;
        return on == n.children.size() ? Qt::Checked : Qt::PartiallyChecked;
    }
    std::uint32_t first = 0, last = 0;
    if (!opRange(n, first, last)) return Qt::Unchecked;
    return planHasRegion(plan, first, last) ? Qt::Checked : Qt::Unchecked;
}

bool LayerStackModel::regionFor(const QModelIndex& index, RegionSpec& region) const {
    const Node* n = nodeOf(index);
    if (!n || n->kind == NodeKind::Input) return false;
    std::uint32_t first = 0, last = 0;
    if (!opRange(*n, first, last)) return false;
    if (n->kind == NodeKind::SubModule) {
        region = RegionSpec{true, 0, 0, m_document->graph().module(n->module).path};
        return true;
    }
    if (isRepeatedEntry(*n)) {
        const std::int64_t a = m_nodes[std::size_t(n->children.front())].instance;
        const std::int64_t b = m_nodes[std::size_t(n->children.back())].instance;
        region = RegionSpec{false, a, b, ""};
        return true;
    }
    region = RegionSpec{false, n->instance, n->instance, ""};
    return true;
}

const LayerNumbering& LayerStackModel::numbering() const {
    // Made once per document state (states never change once built).
    const auto state = m_document->stateHandle();
    if (m_numberedState.lock() != state) {
        m_numbering = LayerNumbering(state->model.network);
        m_numberedState = state;
    }
    return m_numbering;
}

QString LayerStackModel::nameText(const Node& n) const {
    switch (n.kind) {
        case NodeKind::Input:
            return tr("input");
        case NodeKind::Entry:
            return numbering().entryRow(std::size_t(n.entry));
        case NodeKind::Instance:
            return numbering().instanceRow(n.instance);
        case NodeKind::SubModule:
            return toQString(m_document->graph().module(n.module).name);
    }
    return {};
}

QString LayerStackModel::kindText(const Node& n) const {
    const Network& net = m_document->network();
    switch (n.kind) {
        case NodeKind::Input:
            return net.input.isTokens() ? tr("token ids") : tr("tensor");
        case NodeKind::Entry:
        case NodeKind::Instance:
            return toQString(layerKindName(net.layers[std::size_t(n.entry)].kind));
        case NodeKind::SubModule:
            return toQString(m_document->graph().module(n.module).kind);
    }
    return {};
}

QString LayerStackModel::shapeText(const Node& n) const {
    const auto& shapes = m_document->state().shapes;
    auto text = [](const Shape& s) {
        return s.empty() ? tr("scalar") : toQString(shapeToString(s));
    };
    std::int64_t instance = n.instance;
    switch (n.kind) {
        case NodeKind::Input: {
            if (shapes.empty()) return {};
            const Network& net = m_document->network();
            if (net.input.isTokens())
                return tr("%1 tokens (vocab %2)").arg(net.input.tokens).arg(net.input.vocab);
            return text(shapes[0]);
        }
        case NodeKind::Entry:
            if (isRepeatedEntry(n) && !n.children.empty())
                instance = m_nodes[std::size_t(n.children.back())].instance;
            break;
        case NodeKind::Instance:
            break;
        case NodeKind::SubModule: {
            const Graph& g = m_document->graph();
            const Module& m = g.module(n.module);
            if (!m.hasOps() || g.ops[m.lastOp()].outputs.empty()) return {};
            return text(g.tensor(g.ops[m.lastOp()].outputs[0]).shape);
        }
    }
    if (instance < 0 || std::size_t(instance + 1) >= shapes.size()) return {};
    return text(shapes[std::size_t(instance + 1)]);
}

QString LayerStackModel::checkpointText(const Node& n) const {
    std::uint32_t first = 0, last = 0;
    if (!opRange(n, first, last)) return {};
    const Qt::CheckState s = checkState(n);
    if (isRepeatedEntry(n) && s == Qt::PartiallyChecked) {
        int on = 0;
        for (int c : n.children) on += checkState(m_nodes[std::size_t(c)]) == Qt::Checked ? 1 : 0;
        return tr("%1 of %2").arg(on).arg(n.children.size());
    }
    if (isRepeatedEntry(n) && s == Qt::Unchecked) {
        // Instances grouped into larger regions (every:K): name the groups.
        QStringList groups;
        const Plan& plan = m_document->evaluation().program.plan;
        for (int c : n.children) {
            std::uint32_t a = 0, b = 0;
            if (!opRange(m_nodes[std::size_t(c)], a, b)) continue;
            if (const Region* r = enclosingRegion(plan, a, b)) {
                const QString label = toQString(r->label);
                if (!groups.contains(label)) groups << label;
            }
        }
        if (!groups.isEmpty()) return tr("in %1").arg(groups.join(QStringLiteral(", ")));
    }
    if (s == Qt::Checked) return tr("recompute");
    if (const Region* r = enclosingRegion(m_document->evaluation().program.plan, first, last))
        //: The row lies inside a larger checkpointed region, named by its label ("1-3")
        return tr("in %1").arg(toQString(r->label));
    return {};
}

QString LayerStackModel::toolTip(const Node& n) const {
    const ByteUnits units = ByteUnits::Binary;
    const QString kept = tr("Kept for backward: %1").arg(bytesText(keptBytes(n), units));
    switch (n.kind) {
        case NodeKind::Input:
            return tr("The network's input.") + QLatin1Char('\n') + kept;
        case NodeKind::Entry:
            if (isRepeatedEntry(n))
                return tr("A repeated block; expand it to checkpoint single instances.") +
                       QLatin1Char('\n') + kept;
            break;
        default:
            break;
    }
    const Qt::CheckState s = checkState(n);
    const QString plan = s == Qt::Checked
                             ? tr("Checkpointed (recompute): only its inputs are kept; its saved "
                                  "tensors are recomputed in backward.")
                             : tr("Kept: its saved tensors stay in memory until backward.");
    return plan + QLatin1Char('\n') + kept;
}

QVariant LayerStackModel::data(const QModelIndex& index, int role) const {
    const Node* n = nodeOf(index);
    if (!n || !m_document) return {};
    std::uint32_t first = 0, last = 0;
    const bool hasOps = opRange(*n, first, last);
    switch (role) {
        case NodeKindRole:
            return int(n->kind);
        case EntryRole:
            return n->entry;
        case InstanceRole:
            return (isRepeatedEntry(*n)) ? -1 : qint64(n->instance);
        case ModulePathRole:
            return n->module.valid() ? toQString(m_document->graph().module(n->module).path)
                                     : QString();
        case BytesRole:
            return qint64(keptBytes(*n));
        case BarFractionRole:
            return std::clamp(double(keptBytes(*n)) / double(m_maxRootBytes), 0.0, 1.0);
        case CheckableRole:
            return hasOps;
        case FirstOpRole:
            return hasOps ? qint64(first) : qint64(-1);
        case LastOpRole:
            return hasOps ? qint64(last) : qint64(-1);
        case Qt::ToolTipRole:
            return toolTip(*n);
        case Qt::BackgroundRole:
            return markBackground(*n);
        default:
            break;
    }
    switch (index.column()) {
        case NameColumn:
            if (role == Qt::DisplayRole) return nameText(*n);
            break;
        case KindColumn:
            if (role == Qt::DisplayRole) return kindText(*n);
            break;
        case ShapeColumn:
            if (role == Qt::DisplayRole) return shapeText(*n);
            break;
        case BytesColumn:
            if (role == Qt::DisplayRole) return bytesText(keptBytes(*n), ByteUnits::Binary);
            if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
            break;
        case CheckpointColumn:
            if (role == Qt::CheckStateRole && hasOps) return int(checkState(*n));
            if (role == Qt::DisplayRole) return checkpointText(*n);
            break;
        default:
            break;
    }
    return {};
}

QVariant LayerStackModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case NameColumn:
                return tr("Layer");
            case KindColumn:
                return tr("Kind");
            case ShapeColumn:
                return tr("Output");
            case BytesColumn:
                return tr("Kept");
            case CheckpointColumn:
                return tr("Checkpoint");
            default:
                break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case ShapeColumn:
                return tr("Output shape of one sample");
            case BytesColumn:
                return tr(
                    "Activation bytes this row keeps until backward under the current "
                    "plan (at the micro-batch set in the strategy bar)");
            case CheckpointColumn:
                return tr("Checked: a checkpointed (recompute) region");
            default:
                break;
        }
    }
    return {};
}

Qt::ItemFlags LayerStackModel::flags(const QModelIndex& index) const {
    const Node* n = nodeOf(index);
    if (!n) return Qt::ItemIsDropEnabled;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    std::uint32_t first = 0, last = 0;
    if (index.column() == CheckpointColumn && opRange(*n, first, last))
        f |= Qt::ItemIsUserCheckable;
    if (n->kind == NodeKind::Entry) f |= Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
    if (n->kind == NodeKind::Input) f |= Qt::ItemIsDropEnabled;
    if (n->children.empty()) f |= Qt::ItemNeverHasChildren;
    return f;
}

bool LayerStackModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    const Node* n = nodeOf(index);
    if (!n || role != Qt::CheckStateRole || index.column() != CheckpointColumn) return false;
    const bool on = Qt::CheckState(value.toInt()) == Qt::Checked;
    m_edited = index;
    EditOrigin origin(*m_document, m_editor);
    if (isRepeatedEntry(*n))
        return m_document->setEntryCheckpointed(std::size_t(n->entry), on).ok();
    RegionSpec region;
    if (!regionFor(index, region)) return false;
    return m_document->setRegion(region, on).ok();
}

Qt::DropActions LayerStackModel::supportedDropActions() const {
    // Rows of the stack move; kinds from the palette are copied in.
    return Qt::MoveAction | Qt::CopyAction;
}
Qt::DropActions LayerStackModel::supportedDragActions() const {
    return Qt::MoveAction;
}

QStringList LayerStackModel::mimeTypes() const {
    return {QString::fromLatin1(kEntryMimeType), QString::fromLatin1(kLayerKindMimeType)};
}

QMimeData* LayerStackModel::mimeData(const QModelIndexList& indexes) const {
    QList<int> entries;
    for (const QModelIndex& i : indexes) {
        const Node* n = nodeOf(i);
        if (n && n->kind == NodeKind::Entry && !entries.contains(n->entry))
            entries.append(n->entry);
    }
    if (entries.isEmpty()) return nullptr;
    auto* data = new QMimeData;
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out << entries;
    data->setData(QString::fromLatin1(kEntryMimeType), bytes);
    return data;
}

bool LayerStackModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int, int,
                                      const QModelIndex&) const {
    if (!data) return false;
    if (action == Qt::MoveAction && data->hasFormat(QString::fromLatin1(kEntryMimeType)))
        return true;
    return action == Qt::CopyAction && layerKindFromMimeData(data).has_value();
}

int LayerStackModel::dropPosition(int row, const QModelIndex& parent) const {
    const int entryCount = m_document ? int(m_document->network().layers.size()) : 0;
    // Top-level row r is entry r - 1 (the input is row 0).
    if (parent.isValid()) {
        QModelIndex top = parent;
        while (top.parent().isValid()) top = top.parent();
        return std::max(0, top.row() - 1);
    }
    if (row >= 0) return std::clamp(row - 1, 0, entryCount);
    return entryCount;
}

bool LayerStackModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int,
                                   const QModelIndex& parent) {
    if (!canDropMimeData(data, action, row, 0, parent) || !m_document) return false;
    const int entryCount = int(m_document->network().layers.size());
    int position = dropPosition(row, parent);
    m_edited = row >= 0 && !parent.isValid() ? index(std::min(row, rowCount() - 1), 0) : parent;
    EditOrigin origin(*m_document, m_editor);
    if (action == Qt::CopyAction) {
        const LayerKind kind = *layerKindFromMimeData(data);
        // Below the loss means at the end of the network, which is just before the loss (where
        // the palette's Add puts a layer when nothing is selected).
        const auto& layers = m_document->network().layers;
        if (position == entryCount && !layers.empty() && isLoss(layers.back().kind))
            position = entryCount - 1;
        // A layer that cannot go there is refused by the document, which says why through its
        // editRejected signal, as for the palette's Add.
        if (!insertLayerOfKind(*m_document, kind, std::size_t(position))) return false;
        emit layerDropped(position);
        return true;
    }
    QList<int> entries;
    QByteArray bytes = data->data(QString::fromLatin1(kEntryMimeType));
    QDataStream in(&bytes, QIODevice::ReadOnly);
    in >> entries;
    if (entries.size() != 1) return false;
    const int from = entries.front();
    const int to = position > from ? position - 1 : position;
    if (from < 0 || from >= entryCount || to == from) return false;
    // A refused move reaches the user through the document's editRejected signal.
    (void)m_document->moveLayer(std::size_t(from), std::size_t(to));
    // The document's change signal rebuilds the rows; returning false keeps the view from
    // removing the dragged rows a second time.
    return false;
}

QModelIndex LayerStackModel::indexForEntry(std::size_t entry, int column) const {
    const std::size_t row = entry + 1;
    if (row >= m_roots.size()) return {};
    return indexOfNode(m_roots[row], column);
}

QModelIndex LayerStackModel::indexForInstance(std::int64_t instance, int column) const {
    for (int r : m_roots) {
        const Node& n = m_nodes[std::size_t(r)];
        if (n.kind != NodeKind::Entry) continue;
        if (!isRepeatedEntry(n) && n.instance == instance) return indexOfNode(r, column);
        for (int c : n.children) {
            const Node& child = m_nodes[std::size_t(c)];
            if (child.kind == NodeKind::Instance && child.instance == instance)
                return indexOfNode(c, column);
        }
    }
    return {};
}

QColor LayerStackModel::markColor(bool own) {
    // A highlighter's yellow, readable under text in the light and the dark palette.
    QColor c = categoryColor(Category::Inputs);
    c.setAlpha(own ? 120 : 50);
    return c;
}

QVariant LayerStackModel::markBackground(const Node& n) const {
    if (m_marked < 0) return {};
    const bool layerRow =
        n.kind == NodeKind::Instance || (n.kind == NodeKind::Entry && n.module.valid());
    if (layerRow && n.instance == m_marked) return QBrush(markColor(true));
    if (n.kind == NodeKind::Entry && !n.module.valid() && !n.children.empty()) {
        const std::int64_t first = m_nodes[std::size_t(n.children.front())].instance;
        const std::int64_t last = m_nodes[std::size_t(n.children.back())].instance;
        if (m_marked >= first && m_marked <= last) return QBrush(markColor(false));
    }
    return {};
}

void LayerStackModel::setMarkedInstance(std::int64_t instance) {
    if (instance < 0) instance = -1;
    if (instance == m_marked) return;
    const std::int64_t old = std::exchange(m_marked, instance);
    for (std::int64_t i : {old, instance}) {
        if (i < 0) continue;
        QModelIndex row = indexForInstance(i);
        // The row itself and its block's row: only their cells repaint.
        for (; row.isValid(); row = row.parent())
            emit dataChanged(row, row.siblingAtColumn(ColumnCount - 1), {Qt::BackgroundRole});
    }
}

}  // namespace remat::ui
