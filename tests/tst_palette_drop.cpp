// Dragging a layer kind from the palette onto the layer stack: the palette's drag carries the
// layer-kind MIME type (group headings carry nothing); the stack model accepts it as a copy (and
// only as one), inserts a layer of that kind with fitting defaults at the drop row as one undo
// step, keeps passing QAbstractItemModelTester, and refuses a layer that cannot go there the way
// the palette's Add does (the document's editRejected message, nothing changed). A real drop
// event on the stack view inserts before the row it lands on and selects the new layer.
#include <QAbstractItemModelTester>
#include <QDropEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QTreeView>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "document.h"
#include "layer_kind_mime.h"
#include "layer_stack_model.h"
#include "layer_stack_view.h"
#include "palette.h"

using namespace remat;
using namespace remat::ui;

namespace {

// The MIME data the palette's list puts on a drag of the item named `kind`.
std::unique_ptr<QMimeData> paletteDrag(Palette& palette, const QString& kind) {
    QAbstractItemModel* m = palette.list()->model();
    for (int g = 0; g < m->rowCount(); ++g) {
        const QModelIndex group = m->index(g, 0);
        for (int r = 0; r < m->rowCount(group); ++r) {
            const QModelIndex item = m->index(r, 0, group);
            if (item.data().toString() != kind) continue;
            if (!(m->flags(item) & Qt::ItemIsDragEnabled)) return nullptr;
            return std::unique_ptr<QMimeData>(m->mimeData({item}));
        }
    }
    return nullptr;
}

std::vector<LayerKind> kinds(const Document& doc) {
    std::vector<LayerKind> out;
    for (const Layer& l : doc.network().layers) out.push_back(l.kind);
    return out;
}

// A drop onto the MLP preset (linear, linear (checkpointed), linear, mse): its layer stack model,
// checked by QAbstractItemModelTester throughout, and the palette's drag of `kind`.
struct DropOnMlp {
    explicit DropOnMlp(const QString& kind) : mime(paletteDrag(palette, kind)) {}
    bool ready() const { return opened && mime; }

    Document doc;
    bool opened = doc.open("mlp-3x1024").ok();
    LayerStackModel model{&doc};
    QAbstractItemModelTester tester{&model, QAbstractItemModelTester::FailureReportingMode::QtTest};
    Palette palette;
    std::unique_ptr<QMimeData> mime;
};

}  // namespace

class TstPaletteDrop : public QObject {
    Q_OBJECT
private slots:
    void paletteDragCarriesTheKind();
    void dropInsertsAtTheRowAndUndoRemovesIt();
    void dropOnARowOrBelowTheLoss();
    void invalidDropIsRefusedLikeAdd();
    void dropEventOnTheViewInsertsAndSelects();
};

void TstPaletteDrop::paletteDragCarriesTheKind() {
    Palette palette;
    QTreeWidget* list = palette.list();
    QCOMPARE(list->dragDropMode(), QAbstractItemView::DragOnly);
    QVERIFY(list->dragEnabled());
    for (const char* name : {"relu", "linear", "transformer_block", "cross_entropy"}) {
        std::unique_ptr<QMimeData> mime = paletteDrag(palette, QString::fromLatin1(name));
        QVERIFY2(mime, name);
        QVERIFY(mime->hasFormat(QString::fromLatin1(kLayerKindMimeType)));
        const auto kind = layerKindFromMimeData(mime.get());
        QVERIFY(kind.has_value());
        QCOMPARE(QString::fromLatin1(layerKindName(*kind).data(), layerKindName(*kind).size()),
                 QString::fromLatin1(name));
    }
    // A group heading is not a layer: it cannot be dragged.
    QVERIFY(list->topLevelItemCount() > 0);
    QVERIFY(!(list->model()->flags(list->model()->index(0, 0)) & Qt::ItemIsDragEnabled));
    // Foreign or damaged payloads name no kind.
    QMimeData text;
    text.setText(QStringLiteral("relu"));
    QVERIFY(!layerKindFromMimeData(&text).has_value());
    QMimeData bad;
    bad.setData(QString::fromLatin1(kLayerKindMimeType), "no_such_layer");
    QVERIFY(!layerKindFromMimeData(&bad).has_value());
}

void TstPaletteDrop::dropInsertsAtTheRowAndUndoRemovesIt() {
    DropOnMlp s(QStringLiteral("relu"));
    QVERIFY(s.ready());
    const ModelFile before = s.doc.model();
    const std::size_t count = before.network.layers.size();
    const int rows = s.model.rowCount();
    // A copy is accepted; the same payload as a move is not (it would take the palette's item).
    QVERIFY(s.model.canDropMimeData(s.mime.get(), Qt::CopyAction, 2, 0, {}));
    QVERIFY(!s.model.canDropMimeData(s.mime.get(), Qt::MoveAction, 2, 0, {}));
    QVERIFY(!s.model.dropMimeData(s.mime.get(), Qt::MoveAction, 2, 0, {}));
    QVERIFY(s.doc.model() == before);
    QMimeData text;
    text.setText(QStringLiteral("relu"));
    QVERIFY(!s.model.canDropMimeData(&text, Qt::CopyAction, 2, 0, {}));

    // Between top-level rows 1 and 2 (entries 0 and 1): the relu becomes entry 1.
    QSignalSpy dropped(&s.model, &LayerStackModel::layerDropped);
    QVERIFY(s.model.dropMimeData(s.mime.get(), Qt::CopyAction, 2, 0, {}));
    QCOMPARE(s.doc.network().layers.size(), count + 1);
    QCOMPARE(s.doc.network().layers[1].kind, LayerKind::Relu);
    QCOMPARE(s.doc.network().layers[0].kind, before.network.layers[0].kind);
    QCOMPARE(s.doc.network().layers[2].kind, before.network.layers[1].kind);
    // The checkpoint flag stays on the layer that had it, now one further down.
    QVERIFY(s.doc.network().layers[2].checkpoint);
    QCOMPARE(s.model.rowCount(), rows + 1);
    QCOMPARE(s.model.indexForEntry(1, LayerStackModel::KindColumn).data().toString(),
             QString("relu"));
    QCOMPARE(dropped.count(), 1);
    QCOMPARE(dropped.front().front().toInt(), 1);
    // One undo step removes it again; redo puts it back.
    QCOMPARE(s.doc.undoStack()->count(), 1);
    s.doc.undoStack()->undo();
    QVERIFY(s.doc.model() == before);
    QCOMPARE(s.model.rowCount(), rows);
    s.doc.undoStack()->redo();
    QCOMPARE(s.doc.network().layers[1].kind, LayerKind::Relu);
    QCOMPARE(s.model.rowCount(), rows + 1);
}

void TstPaletteDrop::dropOnARowOrBelowTheLoss() {
    DropOnMlp s(QStringLiteral("gelu"));
    QVERIFY(s.ready());
    const std::vector<LayerKind> start = kinds(s.doc);
    // Onto the loss row: before the loss.
    const std::size_t loss = start.size() - 1;
    QVERIFY(s.model.dropMimeData(s.mime.get(), Qt::CopyAction, -1, 0, s.model.indexForEntry(loss)));
    std::vector<LayerKind> want = start;
    want.insert(want.begin() + std::ptrdiff_t(loss), LayerKind::Gelu);
    QVERIFY(kinds(s.doc) == want);
    s.doc.undoStack()->undo();
    QVERIFY(kinds(s.doc) == start);
    // Onto the input row: first layer.
    QVERIFY(s.model.dropMimeData(s.mime.get(), Qt::CopyAction, -1, 0, s.model.index(0, 0)));
    QCOMPARE(s.doc.network().layers.front().kind, LayerKind::Gelu);
    s.doc.undoStack()->undo();
    // Below everything (no row, no parent) and below the loss row: at the end of the network,
    // which is just before the loss.
    for (int row : {-1, s.model.rowCount()}) {
        QVERIFY(s.model.dropMimeData(s.mime.get(), Qt::CopyAction, row, 0, {}));
        QVERIFY(kinds(s.doc) == want);
        s.doc.undoStack()->undo();
        QVERIFY(kinds(s.doc) == start);
    }
}

void TstPaletteDrop::invalidDropIsRefusedLikeAdd() {
    // An embedding needs token ids; after a linear it receives a vector of floats.
    DropOnMlp s(QStringLiteral("embedding"));
    QVERIFY(s.ready());
    const ModelFile before = s.doc.model();
    QSignalSpy rejected(&s.doc, &Document::editRejected);
    QSignalSpy dropped(&s.model, &LayerStackModel::layerDropped);
    QVERIFY(!s.model.dropMimeData(s.mime.get(), Qt::CopyAction, 2, 0, {}));
    QVERIFY(s.doc.model() == before);
    QCOMPARE(s.doc.undoStack()->count(), 0);
    QCOMPARE(dropped.count(), 0);
    QCOMPARE(rejected.count(), 1);
    QVERIFY2(rejected.front().front().toString().contains("embedding"),
             qPrintable(rejected.front().front().toString()));
}

void TstPaletteDrop::dropEventOnTheViewInsertsAndSelects() {
    Document doc;
    QVERIFY(doc.open("mlp-3x1024").ok());
    LayerStackView view(&doc);
    view.resize(700, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTreeView* tree = view.tree();
    QCOMPARE(tree->dragDropMode(), QAbstractItemView::DragDrop);
    QVERIFY(tree->acceptDrops());
    Palette palette;
    std::unique_ptr<QMimeData> mime = paletteDrag(palette, QStringLiteral("dropout"));
    QVERIFY(mime);
    const std::vector<LayerKind> start = kinds(doc);
    // Onto the middle of the last linear's row (entry 2): it goes in before it.
    const QRect rect = tree->visualRect(view.model()->indexForEntry(2));
    QVERIFY(rect.isValid());
    QDragEnterEvent enter(rect.center(), Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QCoreApplication::sendEvent(tree->viewport(), &enter);
    QVERIFY(enter.isAccepted());
    QDragMoveEvent move(rect.center(), Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QCoreApplication::sendEvent(tree->viewport(), &move);
    QVERIFY(move.isAccepted());
    QDropEvent drop(rect.center(), Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QCoreApplication::sendEvent(tree->viewport(), &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(drop.dropAction(), Qt::CopyAction);
    std::vector<LayerKind> want = start;
    want.insert(want.begin() + 2, LayerKind::Dropout);
    QVERIFY(kinds(doc) == want);
    QCOMPARE(view.currentEntry(), 2);
    doc.undoStack()->undo();
    QVERIFY(kinds(doc) == start);
}

QTEST_MAIN(TstPaletteDrop)
#include "tst_palette_drop.moc"
