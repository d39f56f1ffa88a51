// The layer stack model: passes QAbstractItemModelTester on the presets and through edits
// (check toggles, inserts, removes, moves, undo), shows repeated blocks compactly and
// expandable, attributes kept bytes that add up to the simulator's figure, and turns check
// toggles and drops into document edits. A plan edit announces only the rows whose figures
// changed, so that the view repaints those rows and not every visible one.
#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QtTest>
#include <memory>
#include <set>

#include "document.h"
#include "layer_stack_model.h"

using namespace remat;
using namespace remat::ui;

class TstLayerStackModel : public QObject {
    Q_OBJECT
private slots:
    void passesModelTester_data();
    void passesModelTester();
    void repeatedBlocksAreCompactAndExpandable();
    void checkToggleEditsThePlan();
    void planEditAnnouncesOnlyChangedRows();
    void perLayerFlagIsAPlanEdit();
    void repeatedEntryToggleAndPartialState();
    void subModuleToggleIsAPathRegion();
    void keptBytesAddUpAndFollowThePlan_data();
    void keptBytesAddUpAndFollowThePlan();
    void dragAndDropReorders();
    void structuralEditsKeepTesterHappy();
};

void TstLayerStackModel::passesModelTester_data() {
    QTest::addColumn<QString>("preset");
    for (const char* p : {"mlp-3x1024", "gpt2-small", "resnet-101", "gpt3-175b", "llama-7b"})
        QTest::newRow(p) << QString(p);
}

void TstLayerStackModel::passesModelTester() {
    QFETCH(QString, preset);
    Document doc;
    QVERIFY(doc.open(preset).ok());
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), int(doc.network().layers.size()) + 1);
    QCOMPARE(model.index(0, 0).data().toString(), QString("input"));
    // Every checkable row's region resolves, and toggling it twice under the tester is clean.
    const QModelIndex last = model.index(model.rowCount() - 1, LayerStackModel::CheckpointColumn);
    QVERIFY(last.data(LayerStackModel::CheckableRole).toBool());
    QVERIFY(model.setData(last, int(Qt::Checked), Qt::CheckStateRole));
    QCOMPARE(last.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    doc.undoStack()->undo();
    QCOMPARE(model.index(model.rowCount() - 1, LayerStackModel::CheckpointColumn)
                 .data(Qt::CheckStateRole)
                 .toInt(),
             int(Qt::Unchecked));
}

void TstLayerStackModel::repeatedBlocksAreCompactAndExpandable() {
    Document doc;
    QVERIFY(doc.open("gpt3-175b").ok());
    LayerStackModel model(&doc);
    QModelIndex block;
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, LayerStackModel::KindColumn).data().toString() == "transformer_block")
            block = model.index(r, 0);
    QVERIFY(block.isValid());
    QVERIFY2(block.data().toString().contains(QString::fromUtf8("transformer_block × 96")),
             qPrintable(block.data().toString()));
    QCOMPARE(model.rowCount(block), 96);
    const QModelIndex inst = model.index(5, 0, block);
    QCOMPARE(inst.data(LayerStackModel::NodeKindRole).toInt(),
             int(LayerStackModel::NodeKind::Instance));
    QCOMPARE(inst.data(LayerStackModel::InstanceRole).toLongLong(), 6);
    QCOMPARE(model.rowCount(inst), 2);
    const QModelIndex attention = model.index(0, 0, inst);
    QCOMPARE(attention.data().toString(), QString("attention"));
    QCOMPARE(attention.data(LayerStackModel::ModulePathRole).toString(), QString("6/attention"));
    QCOMPARE(model.rowCount(attention), 1);
    QCOMPARE(model.index(0, 0, attention).data().toString(), QString("attention_core"));
    QCOMPARE(model.index(1, 0, inst).data().toString(), QString("mlp"));
    QCOMPARE(model.indexForInstance(6), inst);
    QVERIFY(!model.index(0, LayerStackModel::ShapeColumn, inst).data().toString().isEmpty());
}

void TstLayerStackModel::checkToggleEditsThePlan() {
    Document doc;
    QVERIFY(doc.open("mlp-3x1024").ok());
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QModelIndex first = model.indexForEntry(0, LayerStackModel::CheckpointColumn);
    const QModelIndex second = model.indexForEntry(1, LayerStackModel::CheckpointColumn);
    QCOMPARE(first.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QCOMPARE(second.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QCOMPARE(second.data().toString(), QString("recompute"));
    const std::int64_t peak = doc.evaluation().timeline.peakBytes;
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setData(first, int(Qt::Checked), Qt::CheckStateRole));
    QVERIFY(changed.count() > 0);
    QCOMPARE(first.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(doc.network().layers[0].checkpoint);
    QVERIFY(doc.evaluation().timeline.peakBytes != peak ||
            doc.evaluation().timeline.timeS.total() > 0);
    doc.undoStack()->undo();
    QCOMPARE(first.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QCOMPARE(doc.evaluation().timeline.peakBytes, peak);
    // The loss and the input: the loss is checkable (a manual plan may place it), the input not.
    QVERIFY(!(model.flags(model.index(0, LayerStackModel::CheckpointColumn)) &
              Qt::ItemIsUserCheckable));
    QVERIFY(model.flags(model.indexForEntry(3, LayerStackModel::CheckpointColumn)) &
            Qt::ItemIsUserCheckable);
    // Checkbox only in the checkpoint column.
    QVERIFY(!model.indexForEntry(0, 0).data(Qt::CheckStateRole).isValid());
}

// Every row whose check state, checkpoint text or kept bytes differ after the edit is announced,
// and no row that is unchanged (unless the longest bar changed, which moves every bar).
// A checkpoint stored as a per-layer flag (mlp-3x1024's plan form) changes the network record
// but not its structure: the document keeps its graph (no new lowering, no new baseline) and
// the model announces single cells of the figure columns, never whole rows.
void TstLayerStackModel::perLayerFlagIsAPlanEdit() {
    Document doc;
    QVERIFY(doc.open("mlp-3x1024").ok());
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const Graph* graph = &doc.graph();
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(!doc.network().layers[0].checkpoint);
    const QModelIndex row = model.indexForEntry(0, LayerStackModel::CheckpointColumn);
    QVERIFY(model.setData(row, int(Qt::Checked), Qt::CheckStateRole));
    QCOMPARE(doc.model().planForm, PlanForm::PerLayer);
    QVERIFY(doc.network().layers[0].checkpoint);  // stored as the layer's flag
    QCOMPARE(&doc.graph(), graph);
    QVERIFY(!changed.isEmpty());
    for (const QList<QVariant>& args : changed) {
        const auto tl = args[0].value<QModelIndex>(), br = args[1].value<QModelIndex>();
        QCOMPARE(tl, br);
        QVERIFY(tl.column() == LayerStackModel::BytesColumn ||
                tl.column() == LayerStackModel::CheckpointColumn);
    }
    // Structure still counts: another width is a new graph.
    Network wider = doc.network();
    QVERIFY(sameStructure(wider, doc.network()));
    wider.layers[1].checkpoint = !wider.layers[1].checkpoint;
    QVERIFY(sameStructure(wider, doc.network()));
    wider.layers[1].out += 1;
    QVERIFY(!sameStructure(wider, doc.network()));
}

void TstLayerStackModel::planEditAnnouncesOnlyChangedRows() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Every row of the tree, with what it shows.
    auto rows = [&] {
        std::vector<QModelIndex> out;
        std::vector<QModelIndex> todo{QModelIndex()};
        while (!todo.empty()) {
            const QModelIndex p = todo.back();
            todo.pop_back();
            for (int r = 0; r < model.rowCount(p); ++r) {
                out.push_back(model.index(r, 0, p));
                todo.push_back(model.index(r, 0, p));
            }
        }
        return out;
    };
    auto shown = [&](const QModelIndex& i) {
        const QModelIndex cp = i.siblingAtColumn(LayerStackModel::CheckpointColumn);
        return QStringList{i.siblingAtColumn(LayerStackModel::BytesColumn).data().toString(),
                           cp.data(Qt::CheckStateRole).toString(), cp.data().toString(),
                           i.data(LayerStackModel::BarFractionRole).toString()};
    };
    const std::vector<QModelIndex> all = rows();
    QVERIFY(all.size() > 50);
    std::vector<QStringList> before;
    for (const QModelIndex& i : all) before.push_back(shown(i));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    // Checkpoint the MLP of block 5 only.
    const QModelIndex block = model.indexForInstance(5);
    QVERIFY(block.isValid());
    QModelIndex mlp;
    for (int r = 0; r < model.rowCount(block); ++r)
        if (model.index(r, 0, block).data(LayerStackModel::ModulePathRole).toString().endsWith(
                "mlp"))
            mlp = model.index(r, LayerStackModel::CheckpointColumn, block);
    QVERIFY(mlp.isValid());
    QVERIFY(model.setData(mlp, int(Qt::Checked), Qt::CheckStateRole));
    QCOMPARE(mlp.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    std::set<std::pair<quintptr, int>> announced;  // (node, column)
    for (const QList<QVariant>& args : changed) {
        const auto tl = args[0].value<QModelIndex>(), br = args[1].value<QModelIndex>();
        QCOMPARE(tl.parent(), br.parent());
        QCOMPARE(tl.row(), br.row());
        for (int c = tl.column(); c <= br.column(); ++c) announced.insert({tl.internalId(), c});
    }
    int differing = 0;
    for (std::size_t k = 0; k < all.size(); ++k) {
        const QStringList now = shown(all[k]);
        const bool figuresChanged = now.mid(0, 3) != before[k].mid(0, 3);
        const bool barChanged = now[3] != before[k][3];
        if (figuresChanged) {
            ++differing;
            QVERIFY2(announced.count({all[k].internalId(), LayerStackModel::CheckpointColumn}),
                     qPrintable(all[k].data().toString()));
        }
        if (figuresChanged || barChanged)
            QVERIFY(announced.count({all[k].internalId(), LayerStackModel::BytesColumn}));
        if (!figuresChanged && !barChanged)
            QVERIFY2(!announced.count({all[k].internalId(), LayerStackModel::CheckpointColumn}),
                     qPrintable(all[k].data().toString()));
    }
    // The MLP row, its block and the block's entry at least; far fewer than the whole tree.
    QVERIFY(differing >= 2);
    std::size_t wholeRows = 0;
    for (const auto& [node, column] : announced)
        if (column == LayerStackModel::CheckpointColumn) ++wholeRows;
    QCOMPARE(wholeRows, std::size_t(differing));
    QVERIFY(wholeRows < all.size() / 4);
    // Undo announces the same rows back.
    changed.clear();
    doc.undoStack()->undo();
    QCOMPARE(mlp.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(changed.count() > 0);
    for (std::size_t k = 0; k < all.size(); ++k) QCOMPARE(shown(all[k]), before[k]);
}

void TstLayerStackModel::repeatedEntryToggleAndPartialState() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QModelIndex block = model.indexForEntry(1, LayerStackModel::CheckpointColumn);
    QVERIFY(model.setData(block, int(Qt::Checked), Qt::CheckStateRole));
    QCOMPARE(block.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(12));
    const QModelIndex inst =
        model.index(3, LayerStackModel::CheckpointColumn, model.indexForEntry(1));
    QCOMPARE(inst.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(model.setData(inst, int(Qt::Unchecked), Qt::CheckStateRole));
    QCOMPARE(block.data(Qt::CheckStateRole).toInt(), int(Qt::PartiallyChecked));
    QCOMPARE(block.data().toString(), QString("11 of 12"));
    // Under every:3 the instances show which group region holds them.
    QVERIFY(doc.setStrategy("every:3").ok());
    QCOMPARE(
        model.index(1, LayerStackModel::CheckpointColumn, model.indexForEntry(1)).data().toString(),
        QString("in 1-3"));
    QVERIFY(model.indexForEntry(1, LayerStackModel::CheckpointColumn)
                .data()
                .toString()
                .startsWith("in 1-3, 4-6"));
}

void TstLayerStackModel::subModuleToggleIsAPathRegion() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    LayerStackModel model(&doc);
    const QModelIndex inst = model.index(0, 0, model.indexForEntry(1));
    const QModelIndex mlp = model.index(1, LayerStackModel::CheckpointColumn, inst);
    QCOMPARE(model.index(1, 0, inst).data().toString(), QString("mlp"));
    QVERIFY(model.setData(mlp, int(Qt::Checked), Qt::CheckStateRole));
    QCOMPARE(doc.model().planForm, PlanForm::Regions);
    QCOMPARE(doc.model().regions.size(), std::size_t(1));
    QVERIFY(doc.model().regions[0].isPath);
    QCOMPARE(doc.model().regions[0].path, std::string("1/mlp"));
    QCOMPARE(mlp.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
}

void TstLayerStackModel::keptBytesAddUpAndFollowThePlan_data() {
    QTest::addColumn<QString>("preset");
    for (const char* p : {"mlp-3x1024", "gpt2-small", "resnet-101"}) QTest::newRow(p) << QString(p);
}

void TstLayerStackModel::keptBytesAddUpAndFollowThePlan() {
    QFETCH(QString, preset);
    Document doc;
    QVERIFY(doc.open(preset).ok());
    QVERIFY(doc.setStrategy("none").ok() || doc.strategySpelling() == "none");
    LayerStackModel model(&doc);
    auto sum = [&] {
        qint64 total = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            total += model.index(r, 0).data(LayerStackModel::BytesRole).toLongLong();
        return total;
    };
    QCOMPARE(sum(), qint64(doc.evaluation().timeline.savedActivationBytes));
    const QModelIndex row = model.indexForEntry(1, LayerStackModel::BytesColumn);
    const qint64 before = row.data(LayerStackModel::BytesRole).toLongLong();
    QVERIFY(before > 0);
    if (preset == "mlp-3x1024") {
        // One linear alone saves only its input, which a region keeps anyway (PyTorch
        // semantics): checkpointing layers 1-2 together drops layer 1's output.
        QVERIFY(doc.setRegion(RegionSpec{false, 1, 2, ""}, true).ok());
    } else {
        QVERIFY(model.setData(model.indexForEntry(1, LayerStackModel::CheckpointColumn),
                              int(Qt::Checked), Qt::CheckStateRole));
    }
    QCOMPARE(sum(), qint64(doc.evaluation().timeline.savedActivationBytes));
    QVERIFY2(row.data(LayerStackModel::BytesRole).toLongLong() < before,
             "a checkpointed layer keeps less");
    const double fraction = row.data(LayerStackModel::BarFractionRole).toDouble();
    QVERIFY(fraction >= 0.0 && fraction <= 1.0);
}

void TstLayerStackModel::dragAndDropReorders() {
    Document doc;
    QVERIFY(doc.open("mlp-3x1024").ok());
    Layer relu;
    relu.kind = LayerKind::Relu;
    QVERIFY(doc.insertLayer(0, relu).ok());  // relu, linear, linear(ckpt), linear, mse
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::unique_ptr<QMimeData> mime(model.mimeData({model.indexForEntry(0)}));
    QVERIFY(mime);
    QVERIFY(model.canDropMimeData(mime.get(), Qt::MoveAction, 3, 0, {}));
    // Drop before top-level row 3 (entry 2): the relu lands between the first two linears.
    model.dropMimeData(mime.get(), Qt::MoveAction, 3, 0, {});
    QCOMPARE(doc.network().layers[0].kind, LayerKind::Linear);
    QCOMPARE(doc.network().layers[1].kind, LayerKind::Relu);
    QCOMPARE(model.indexForEntry(1, LayerStackModel::KindColumn).data().toString(),
             QString("relu"));
    // The checkpoint flag travelled with its layer.
    QVERIFY(doc.network().layers[2].checkpoint);
    doc.undoStack()->undo();
    QCOMPARE(doc.network().layers[0].kind, LayerKind::Relu);
    // Dropping a layer onto another row inserts it before that row.
    mime.reset(model.mimeData({model.indexForEntry(3)}));
    model.dropMimeData(mime.get(), Qt::MoveAction, -1, 0, model.indexForEntry(1));
    QCOMPARE(doc.network().layers[1].kind, LayerKind::Linear);
    QCOMPARE(model.rowCount(), 6);
    // A drop that would put the loss first is refused and changes nothing.
    const ModelFile before = doc.model();
    mime.reset(model.mimeData({model.indexForEntry(4)}));
    model.dropMimeData(mime.get(), Qt::MoveAction, 1, 0, {});
    QVERIFY(doc.model() == before);
}

void TstLayerStackModel::structuralEditsKeepTesterHappy() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    LayerStackModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(doc.duplicateLayer(1).ok());
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.rowCount(model.indexForEntry(2)), 12);
    Layer block = doc.network().layers[1];
    block.repeat = 1;
    QVERIFY(doc.replaceLayer(1, block).ok());
    QCOMPARE(model.rowCount(model.indexForEntry(1)), 2);  // attention, mlp directly
    QVERIFY(doc.removeLayers({2}).ok());
    QCOMPARE(model.rowCount(), 6);
    QVERIFY(doc.setMicroBatch(2).ok());
    QVERIFY(doc.setPrecision(Precision::Fp32).ok());
    while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
    QCOMPARE(model.rowCount(model.indexForEntry(1)), 12);
    QVERIFY(doc.open("resnet-101").ok());
    bool sawShortcut = false;
    for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex i = model.index(r, 0);
        for (int c = 0; c < model.rowCount(i); ++c)
            for (int k = 0; k < model.rowCount(model.index(c, 0, i)); ++k)
                sawShortcut |=
                    model.index(k, 0, model.index(c, 0, i)).data().toString() == "shortcut";
        if (model.rowCount(i) > 0 && model.index(0, 0, i).data().toString() == "shortcut")
            sawShortcut = true;
    }
    QVERIFY(sawShortcut);
}

QTEST_MAIN(TstLayerStackModel)
#include "tst_layer_stack_model.moc"
