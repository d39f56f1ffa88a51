// The document: every edit is one undo step that restores both the plan and the simulated
// figures; rejected edits and broken files leave the current model untouched; plans are stored
// in the model file's natural form; and each edit re-evaluates synchronously.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <ctime>
#include <functional>

#include "autosave.h"
#include "document.h"
#include "plan_edit.h"

using namespace remat;
using namespace remat::ui;

class TstDocument : public QObject {
    Q_OBJECT
private slots:
    void opensPresets();
    void togglingCheckpointChangesPeakAndUndoRestoresIt();
    void manualPlanStoredAsPerLayerOrRegions();
    void strategyToManualStartsFromCurrentPlan();
    void mergingRegionsReplacesThemInsteadOfNesting();
    void strategyOnlyChangeToAPresetIsNotModified();
    void everyEditKindIsUndoable_data();
    void everyEditKindIsUndoable();
    void rejectedEditKeepsModel();
    void brokenFileKeepsCurrentModel_data();
    void brokenFileKeepsCurrentModel();
    void regionsFollowLayerEdits();
    void saveAndReopenRoundTrips();
    void spinBoxEditsMerge();
    void autosaveWritesUnsavedWorkAndRecoversAfterACrash();
    void editReevaluatesEveryPreset_data();
    void editReevaluatesEveryPreset();
};

void TstDocument::opensPresets() {
    Document doc;
    for (const auto& name : builtinModelNames()) {
        auto st = doc.open(QString::fromStdString(name));
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
        QCOMPARE(doc.network().name, name);
        QVERIFY(doc.evaluation().timeline.peakBytes > 0);
        QVERIFY(!doc.isModified());
        QCOMPARE(doc.undoStack()->count(), 0);
    }
}

void TstDocument::togglingCheckpointChangesPeakAndUndoRestoresIt() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    QCOMPARE(doc.strategySpelling(), QString("none"));
    const ModelFile original = doc.model();
    const std::int64_t peakBefore = doc.evaluation().timeline.peakBytes;
    const std::int64_t savedBefore = doc.evaluation().timeline.savedActivationBytes;
    QSignalSpy changed(&doc, &Document::changed);

    QVERIFY(doc.toggleRegion(RegionSpec{false, 1, 1, ""}).ok());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(doc.strategySpelling(), QString("manual"));
    const std::int64_t peakAfter = doc.evaluation().timeline.peakBytes;
    QVERIFY2(peakAfter < peakBefore, "checkpointing a transformer block must lower the peak");
    QVERIFY(doc.evaluation().timeline.savedActivationBytes < savedBefore);
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(1));
    QVERIFY(doc.isModified());

    doc.undoStack()->undo();
    QVERIFY(doc.model() == original);
    QCOMPARE(doc.evaluation().timeline.peakBytes, peakBefore);
    QCOMPARE(doc.evaluation().timeline.savedActivationBytes, savedBefore);
    QVERIFY(doc.evaluation().program.plan.regions.empty());
    QVERIFY(!doc.isModified());

    doc.undoStack()->redo();
    QCOMPARE(doc.evaluation().timeline.peakBytes, peakAfter);
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(1));

    // Toggling the same region again removes it: back to the original peak.
    QVERIFY(doc.toggleRegion(RegionSpec{false, 1, 1, ""}).ok());
    QCOMPARE(doc.evaluation().timeline.peakBytes, peakBefore);
}

void TstDocument::manualPlanStoredAsPerLayerOrRegions() {
    Document doc;
    QVERIFY(doc.open("mlp-3x1024").ok());
    QCOMPARE(doc.model().planForm, PlanForm::PerLayer);
    QVERIFY(doc.network().layers[1].checkpoint);
    QVERIFY(doc.toggleRegion(RegionSpec{false, 0, 0, ""}).ok());
    QCOMPARE(doc.model().planForm, PlanForm::PerLayer);
    QVERIFY(doc.network().layers[0].checkpoint);
    QVERIFY(doc.network().layers[1].checkpoint);
    // A two-layer region is not a per-layer flag.
    QVERIFY(doc.setRegion(RegionSpec{false, 0, 1, ""}, true).ok());
    QCOMPARE(doc.model().planForm, PlanForm::Regions);
    QCOMPARE(doc.model().regions.size(), std::size_t(3));
    QVERIFY(std::none_of(doc.network().layers.begin(), doc.network().layers.end(),
                         [](const Layer& l) { return l.checkpoint; }));
    QVERIFY(doc.clearPlan().ok());
    QCOMPARE(doc.model().planForm, PlanForm::None);
    QCOMPARE(doc.strategySpelling(), QString("none"));

    // A repeated block all checkpointed: per-layer flag on the entry; a sub-module: a path.
    QVERIFY(doc.open("gpt2-small").ok());
    QVERIFY(doc.setEntryCheckpointed(1, true).ok());
    QCOMPARE(doc.model().planForm, PlanForm::PerLayer);
    QVERIFY(doc.network().layers[1].checkpoint);
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(12));
    QVERIFY(doc.toggleRegion(RegionSpec{true, 0, 0, "3/mlp"}).ok());
    QCOMPARE(doc.model().planForm, PlanForm::Regions);
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(13));
    QVERIFY(doc.setEntryCheckpointed(1, false).ok());
    QCOMPARE(doc.model().planForm, PlanForm::Regions);
    QCOMPARE(doc.model().regions.size(), std::size_t(1));
    QCOMPARE(doc.model().regions[0].path, std::string("3/mlp"));
}

void TstDocument::mergingRegionsReplacesThemInsteadOfNesting() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    // Blocks 1-2 and 4 are regions, and block 3's MLP.
    QVERIFY(doc.setRegion(RegionSpec{false, 1, 2, ""}, true).ok());
    QVERIFY(doc.setRegion(RegionSpec{false, 4, 4, ""}, true).ok());
    QVERIFY(doc.setRegion(RegionSpec{true, 0, 0, "3/mlp"}, true).ok());
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(3));
    const int undoBefore = doc.undoStack()->count();
    // Selecting blocks 2..3 touches the region 1-2: one region 1-3 replaces it (not nested in
    // it), block 4 stays apart, the MLP stays nested.
    int merged = -1;
    QVERIFY(doc.mergeRegion(2, 3, &merged).ok());
    QCOMPARE(merged, 1);
    QCOMPARE(doc.undoStack()->count(), undoBefore + 1);
    std::vector<RegionSpec> specs = doc.model().regions;
    QCOMPARE(specs.size(), std::size_t(3));
    QVERIFY(std::count(specs.begin(), specs.end(), RegionSpec{false, 1, 3, ""}) == 1);
    QVERIFY(std::count(specs.begin(), specs.end(), RegionSpec{false, 4, 4, ""}) == 1);
    QVERIFY(std::count(specs.begin(), specs.end(), RegionSpec{true, 0, 0, "3/mlp"}) == 1);
    // A selection with no region in it is a new region, nothing merged.
    QVERIFY(doc.mergeRegion(6, 7, &merged).ok());
    QCOMPARE(merged, 0);
    // Undo brings the two regions back.
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(doc.model().regions.size(), std::size_t(3));
    QVERIFY(std::count(doc.model().regions.begin(), doc.model().regions.end(),
                       RegionSpec{false, 1, 2, ""}) == 1);
}

void TstDocument::strategyOnlyChangeToAPresetIsNotModified() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    QVERIFY(!doc.isModified());
    // Trying strategies on a preset is exploring: nothing to save.
    QVERIFY(doc.setStrategy("every:3").ok());
    QVERIFY(doc.setStrategy("sqrt").ok());
    QVERIFY(!doc.isModified());
    QVERIFY(doc.undoStack()->canUndo());
    // A hand-made plan or any other edit is work worth saving.
    QVERIFY(doc.setRegion(RegionSpec{false, 1, 2, ""}, true).ok());
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    QVERIFY(doc.setMicroBatch(4).ok());
    QVERIFY(doc.isModified());
    // A file the user opened is theirs: its strategy is part of it.
    QTemporaryDir dir;
    const QString path = dir.filePath("m.json");
    QVERIFY(doc.save(path).ok());
    QVERIFY(!doc.isModified());
    QVERIFY(doc.setStrategy("full").ok());
    QVERIFY(doc.isModified());
}

void TstDocument::strategyToManualStartsFromCurrentPlan() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    QVERIFY(doc.setStrategy("every:3").ok());
    QCOMPARE(doc.model().planForm, PlanForm::Strategy);
    const std::int64_t peak = doc.evaluation().timeline.peakBytes;
    const auto regions = doc.evaluation().program.plan.regions;
    QCOMPARE(regions.size(), std::size_t(4));
    QVERIFY(doc.setStrategy("manual").ok());
    QCOMPARE(doc.strategySpelling(), QString("manual"));
    QCOMPARE(doc.model().planForm, PlanForm::Regions);
    QCOMPARE(doc.evaluation().timeline.peakBytes, peak);
    QCOMPARE(doc.evaluation().program.plan.regions, regions);
    // Toggling a layer under a strategy also starts from that strategy's plan.
    QVERIFY(doc.setStrategy("full").ok());
    QVERIFY(doc.toggleRegion(RegionSpec{false, 12, 12, ""}).ok());
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(11));
}

using Edit = std::function<Status(Document&)>;
Q_DECLARE_METATYPE(Edit)

void TstDocument::everyEditKindIsUndoable_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<Edit>("edit");
    auto add = [](const char* name, const char* preset, Edit e) {
        QTest::newRow(name) << QString(preset) << e;
    };
    add("strategy", "gpt2-small", [](Document& d) { return d.setStrategy("sqrt"); });
    add("selective", "gpt2-small",
        [](Document& d) { return d.setStrategy("selective:attention,mlp"); });
    add("micro-batch", "gpt2-small", [](Document& d) { return d.setMicroBatch(2); });
    add("accumulation", "gpt2-small", [](Document& d) { return d.setAccumulationSteps(4); });
    add("precision", "gpt2-small", [](Document& d) { return d.setPrecision(Precision::Fp32); });
    add("optimizer", "gpt2-small", [](Document& d) { return d.setOptimizer(Optimizer::Sgd); });
    add("device", "gpt2-small", [](Document& d) { return d.setDeviceId("t4-16gb"); });
    add("input", "mlp-3x1024", [](Document& d) {
        InputSpec in;
        in.shape = {512};
        return d.setInput(in);
    });
    add("name", "mlp-3x1024", [](Document& d) { return d.setNetworkName("renamed"); });
    add("toggle", "gpt2-small", [](Document& d) {
        return d.toggleRegion(RegionSpec{false, 2, 2, ""});
    });
    add("sub-module", "gpt2-small", [](Document& d) {
        return d.toggleRegion(RegionSpec{true, 0, 0, "4/attention/attention_core"});
    });
    add("range", "gpt2-small", [](Document& d) {
        return d.setRegion(RegionSpec{false, 1, 4, ""}, true);
    });
    add("entry", "gpt2-small", [](Document& d) { return d.setEntryCheckpointed(1, true); });
    add("clear", "mlp-3x1024", [](Document& d) { return d.clearPlan(); });
    add("insert", "mlp-3x1024", [](Document& d) {
        Layer l;
        l.kind = LayerKind::Relu;
        return d.insertLayer(1, l);
    });
    add("remove", "mlp-3x1024", [](Document& d) { return d.removeLayers({0}); });
    add("duplicate", "gpt2-small", [](Document& d) { return d.duplicateLayer(1); });
    add("move", "mlp-3x1024", [](Document& d) { return d.moveLayer(0, 2); });
    add("replace", "gpt2-small", [](Document& d) {
        Layer l = d.network().layers[1];
        l.repeat = 6;
        l.heads = 6;
        return d.replaceLayer(1, l);
    });
}

void TstDocument::everyEditKindIsUndoable() {
    QFETCH(QString, preset);
    QFETCH(Edit, edit);
    Document doc;
    QVERIFY(doc.open(preset).ok());
    const ModelFile before = doc.model();
    const std::int64_t peakBefore = doc.evaluation().timeline.peakBytes;
    const double timeBefore = doc.evaluation().timeline.timeS.total();
    auto st = edit(doc);
    QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
    QCOMPARE(doc.undoStack()->count(), 1);
    const ModelFile after = doc.model();
    QVERIFY(!(after == before));
    const std::int64_t peakAfter = doc.evaluation().timeline.peakBytes;
    const double timeAfter = doc.evaluation().timeline.timeS.total();
    doc.undoStack()->undo();
    QVERIFY(doc.model() == before);
    QCOMPARE(doc.evaluation().timeline.peakBytes, peakBefore);
    QCOMPARE(doc.evaluation().timeline.timeS.total(), timeBefore);
    doc.undoStack()->redo();
    QVERIFY(doc.model() == after);
    QCOMPARE(doc.evaluation().timeline.peakBytes, peakAfter);
    QCOMPARE(doc.evaluation().timeline.timeS.total(), timeAfter);
}

void TstDocument::rejectedEditKeepsModel() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    const ModelFile before = doc.model();
    QSignalSpy rejected(&doc, &Document::editRejected);
    Layer conv;
    conv.kind = LayerKind::Conv2d;
    conv.outChannels = 8;
    conv.kernel = 3;
    auto st = doc.insertLayer(2, conv);
    QVERIFY(!st.ok());
    QVERIFY2(st.error().message.find("conv2d") != std::string::npos, st.error().message.c_str());
    QCOMPARE(rejected.count(), 1);
    QVERIFY(doc.model() == before);
    QCOMPARE(doc.undoStack()->count(), 0);
    // Partially overlapping regions are refused the same way.
    QVERIFY(doc.setRegion(RegionSpec{false, 1, 3, ""}, true).ok());
    QVERIFY(!doc.setRegion(RegionSpec{false, 2, 5, ""}, true).ok());
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.evaluation().program.plan.regions.size(), std::size_t(1));
    QVERIFY(!doc.setMicroBatch(0).ok());
    QVERIFY(!doc.setStrategy("every:0").ok());
    QCOMPARE(doc.undoStack()->count(), 1);
}

void TstDocument::brokenFileKeepsCurrentModel_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("bad field") << QByteArray(
                                      R"({"format": "remat-model/1", "input": {"shape": [64]},
        "layers": [{"kind": "linear", "out": -3}, {"kind": "mse"}]})")
                               << QString("$.layers[0]");
    QTest::newRow("syntax") << QByteArray(R"({"format": "remat-model/1", "layers": [)")
                            << QString("broken.json");
    QTest::newRow("unknown kind") << QByteArray(
                                         R"({"format": "remat-model/1", "input": {"shape": [64]},
        "layers": [{"kind": "linaer", "out": 3}, {"kind": "mse"}]})")
                                  << QString("$.layers[0].kind");
    QTest::newRow("unknown device")
        << QByteArray(R"({"format": "remat-model/1", "input": {"shape": [64]},
        "layers": [{"kind": "linear", "out": 3}, {"kind": "mse"}], "device": "no-such-gpu"})")
        << QString("no-such-gpu");
}

void TstDocument::brokenFileKeepsCurrentModel() {
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    QVERIFY(doc.toggleRegion(RegionSpec{false, 2, 2, ""}).ok());
    const ModelFile before = doc.model();
    const std::int64_t peak = doc.evaluation().timeline.peakBytes;
    auto st = doc.open(path);
    QVERIFY(!st.ok());
    QVERIFY2(QString::fromStdString(st.error().message).contains(expected),
             st.error().message.c_str());
    QVERIFY(doc.model() == before);
    QCOMPARE(doc.evaluation().timeline.peakBytes, peak);
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.isModified());
}

void TstDocument::regionsFollowLayerEdits() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    QVERIFY(doc.setRegion(RegionSpec{false, 3, 5, ""}, true).ok());
    QVERIFY(doc.toggleRegion(RegionSpec{true, 0, 0, "8/mlp"}).ok());
    Layer ln;
    ln.kind = LayerKind::LayerNorm;
    QVERIFY(doc.insertLayer(1, ln).ok());
    QCOMPARE(doc.model().planForm, PlanForm::Regions);
    QCOMPARE(doc.model().regions.size(), std::size_t(2));
    QCOMPARE(doc.model().regions[0], (RegionSpec{false, 4, 6, ""}));
    QCOMPARE(doc.model().regions[1].path, std::string("9/mlp"));
    // Fewer repeats: regions on removed instances go, the others follow.
    Layer block = doc.network().layers[2];
    block.repeat = 6;
    QVERIFY(doc.replaceLayer(2, block).ok());
    QCOMPARE(doc.model().regions.size(), std::size_t(1));
    QCOMPARE(doc.model().regions[0], (RegionSpec{false, 4, 6, ""}));
    // The layer-norm moved back out: the region shifts down by one.
    QVERIFY(doc.removeLayers({1}).ok());
    QCOMPARE(doc.model().regions[0], (RegionSpec{false, 3, 5, ""}));
}

void TstDocument::saveAndReopenRoundTrips() {
    QTemporaryDir dir;
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    QVERIFY(doc.setRegion(RegionSpec{false, 1, 2, ""}, true).ok());
    QVERIFY(doc.setMicroBatch(4).ok());
    const QString path = dir.filePath("mine.json");
    QVERIFY(doc.save(path).ok());
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.filePath(), QFileInfo(path).absoluteFilePath());
    Document other;
    QVERIFY(other.open(path).ok());
    QVERIFY(other.model() == doc.model());
    QCOMPARE(other.evaluation().timeline.peakBytes, doc.evaluation().timeline.peakBytes);
    QVERIFY(!doc.save(dir.filePath("no/such/dir/x.json")).ok());
}

void TstDocument::spinBoxEditsMerge() {
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    const auto micro = doc.model().training.microBatch;
    QVERIFY(doc.setMicroBatch(1).ok());
    QVERIFY(doc.setMicroBatch(16).ok());
    QVERIFY(doc.setMicroBatch(2).ok());
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QCOMPARE(doc.model().training.microBatch, micro);
}

void TstDocument::autosaveWritesUnsavedWorkAndRecoversAfterACrash() {
    QTemporaryDir dir;
    Document doc;
    QVERIFY(doc.open("gpt2-small").ok());
    {
        Autosaver autosaver(&doc, dir.path());
        QVERIFY(!autosaver.saveNow());  // nothing unsaved yet
        QVERIFY(doc.toggleRegion(RegionSpec{false, 4, 4, ""}).ok());
        QVERIFY(autosaver.saveNow());
        QVERIFY(QFile::exists(autosaver.autosavePath()));
        QVERIFY(!autosaver.saveNow());  // unchanged since the last write
        // This session is alive: its autosave is not an orphan.
        QVERIFY(Autosaver::findOrphans(dir.path()).empty());
        auto recovered = loadModel(autosaver.autosavePath().toStdString());
        QVERIFY(recovered.ok());
        QVERIFY(*recovered == doc.model());
        // Undoing back to the saved state leaves nothing to recover.
        doc.undoStack()->undo();
        QVERIFY(!QFile::exists(autosaver.autosavePath()));
    }
    // A crashed session: its files stay and its lock names a process that no longer exists.
    QVERIFY(doc.setMicroBatch(3).ok());
    const QString base = dir.filePath("autosave-1-1");
    {
        QFile model(base + ".json");
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(QByteArray::fromStdString(modelToJson(doc.model())));
        QFile source(base + ".source");
        QVERIFY(source.open(QIODevice::WriteOnly));
        source.write("/tmp/my-model.json");
        QFile lock(base + ".lock");
        QVERIFY(lock.open(QIODevice::WriteOnly));
        lock.write("2147483646\nremat-studio\n" + QSysInfo::machineHostName().toUtf8() + "\n");
    }
    const auto orphans = Autosaver::findOrphans(dir.path());
    QCOMPARE(orphans.size(), std::size_t(1));
    QCOMPARE(orphans[0].sourcePath, QString("/tmp/my-model.json"));
    Document fresh;
    auto m = loadModel(orphans[0].modelPath.toStdString());
    QVERIFY(m.ok());
    QVERIFY(fresh.recover(*m, orphans[0].sourcePath).ok());
    QVERIFY(fresh.isModified());
    QCOMPARE(fresh.model().training.microBatch, std::int64_t(3));
    QCOMPARE(fresh.filePath(), QString("/tmp/my-model.json"));
    Autosaver::removeOrphan(orphans[0]);
    QVERIFY(Autosaver::findOrphans(dir.path()).empty());
}

void TstDocument::editReevaluatesEveryPreset_data() {
    QTest::addColumn<QString>("preset");
    for (const auto& name : builtinModelNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

// Every plan edit re-evaluates synchronously on every preset, reusing the cached graph and
// baseline, and gives the same figures a fresh evaluation of the same model does; undoing them
// all restores the first state. How long an edit takes is measured by bench_edit
// (BM_documentEdit), not asserted here: a test checks behaviour, not the machine's speed.
void TstDocument::editReevaluatesEveryPreset() {
    QFETCH(QString, preset);
    Document doc;
    QVERIFY(doc.open(preset).ok());
    const std::int64_t firstPeak = doc.evaluation().timeline.peakBytes;
    const std::int64_t chain = std::int64_t(doc.graph().layerModules.size());
    const Graph* graphBefore = &doc.graph();
    for (int i = 0; i < 4; ++i) {
        const std::int64_t layer = i % std::max<std::int64_t>(1, chain - 1);
        QVERIFY(doc.toggleRegion(RegionSpec{false, layer, layer, ""}).ok());
        QCOMPARE(&doc.graph(), graphBefore);  // a plan edit does not lower again
        Document fresh;
        QVERIFY(fresh.openModel(doc.model(), QString()).ok());
        QCOMPARE(doc.evaluation().timeline.peakBytes, fresh.evaluation().timeline.peakBytes);
        QCOMPARE(doc.evaluation().baselinePeakBytes, fresh.evaluation().baselinePeakBytes);
        QCOMPARE(doc.evaluation().program.instructions.size(),
                 fresh.evaluation().program.instructions.size());
    }
    while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
    QCOMPARE(doc.evaluation().timeline.peakBytes, firstPeak);
    QVERIFY(!doc.isModified());
}

QTEST_GUILESS_MAIN(TstDocument)
#include "tst_document.moc"
