// A randomized interaction test of the desktop app: thousands of edits — add (from the palette's
// fitting defaults), remove, duplicate, move, toggle a checkpoint, check a whole entry, clear
// the plan, change the strategy or the micro-batch, undo, redo — chosen by a seeded generator
// and applied to the real Document inside the real main window (offscreen), checking the
// document's invariants after every step:
// - an edit is either accepted (one new undo step, or merged into the last) or refused with the
//   model unchanged; undo and redo give back exactly the models seen at those points of the
//   history; "modified" follows the clean state;
// - the layer stack shows one row per entry plus the input, and one shape per expanded
//   instance;
// - the program validates, its timeline has one entry per instruction, the peak is the largest
//   live total and its breakdown adds up to it;
// - the summary states what the timeline says, and (every few steps) the same model evaluated
//   from scratch gives the same figures; the model survives a save and reload in the file format.
// The seed is printed; REMAT_RANDOM_SEED replays another one and REMAT_RANDOM_STEPS changes the
// number of steps (default 2000, split between two presets: well under a minute in the sanitizer build on two cores).
#include <QtTest>
#include <algorithm>
#include <map>
#include <random>

#include "document.h"
#include "layer_insert.h"
#include "layer_stack_model.h"
#include "layer_stack_view.h"
#include "lower.h"
#include "main_window.h"
#include "model_file.h"
#include "qt_convert.h"
#include "summary_panel.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

std::uint64_t envNumber(const char* name, std::uint64_t fallback) {
    bool ok = false;
    const qulonglong v = qEnvironmentVariable(name).toULongLong(&ok);
    return ok ? v : fallback;
}

std::int64_t expandedInstances(const Network& net) {
    std::int64_t n = 0;
    for (const Layer& l : net.layers) n += l.repeat;
    return n;
}

}  // namespace

class TstGuiRandom : public QObject {
    Q_OBJECT
private slots:
    void randomEditsKeepTheInvariants_data();
    void randomEditsKeepTheInvariants();
};

void TstGuiRandom::randomEditsKeepTheInvariants_data() {
    QTest::addColumn<QString>("preset");
    QTest::newRow("gpt2-tiny") << "gpt2-tiny";
    QTest::newRow("mlp-3x1024") << "mlp-3x1024";
}

void TstGuiRandom::randomEditsKeepTheInvariants() {
    QFETCH(QString, preset);
    const std::uint64_t seed = envNumber("REMAT_RANDOM_SEED", 20261202);
    const int steps = int(envNumber("REMAT_RANDOM_STEPS", 2000)) / 2;  // per preset
    qInfo("seed %llu, %d steps on %s (REMAT_RANDOM_SEED, REMAT_RANDOM_STEPS change them)",
          static_cast<unsigned long long>(seed), steps, qPrintable(preset));
    std::mt19937_64 rng(seed);
    auto pick = [&](std::int64_t n) {  // uniform in [0, n)
        return n <= 0 ? 0 : std::int64_t(rng() % std::uint64_t(n));
    };

    MainWindow w(test::testOptions());
    QVERIFY(test::showAt(w, QSize(1400, 900)));
    QVERIFY(w.openModel(preset));
    Document& doc = *w.document();
    QUndoStack& undo = *doc.undoStack();
    LayerStackModel& stack = *w.layerStack()->model();
    // The models at each point of the history: history[i] is the model at undo index i.
    std::vector<ModelFile> history = {doc.model()};
    int cleanIndex = 0;
    const std::vector<QString> strategies = {"none",  "full",   "every:2", "every:3",
                                             "sqrt",  "manual", "selective:attention_core",
                                             "selective:mlp"};
    std::map<QString, int> accepted, refused;

    for (int step = 0; step < steps; ++step) {
        const ModelFile before = doc.model();
        const int indexBefore = undo.index();
        const int countBefore = undo.count();
        const Network& net = doc.network();
        const auto entries = std::int64_t(net.layers.size());
        const auto instances = expandedInstances(net);
        QString what;
        Status st = Ok{};
        bool history_op = false;
        switch (pick(12)) {
            case 0: {
                what = "insert";
                const auto kind = LayerKind(pick(kLayerKindCount));
                st = insertLayerOfKind(doc, kind, std::size_t(pick(entries + 1)));
                break;
            }
            case 1:
                what = "remove";
                st = doc.removeLayers({std::size_t(pick(entries))});
                break;
            case 2:
                what = "duplicate";
                st = doc.duplicateLayer(std::size_t(pick(entries)));
                break;
            case 3:
                what = "move";
                st = doc.moveLayer(std::size_t(pick(entries)), std::size_t(pick(entries)));
                break;
            case 4:
            case 5: {
                what = "toggle";
                const std::int64_t first = pick(instances);
                const std::int64_t last =
                    pick(3) == 0 ? std::min(instances - 1, first + pick(3)) : first;
                st = doc.toggleRegion(RegionSpec{false, first, last, ""});
                break;
            }
            case 6:
                what = "check entry";
                st = doc.setEntryCheckpointed(std::size_t(pick(entries)), pick(2) == 0);
                break;
            case 7:
                what = "strategy";
                st = doc.setStrategy(strategies[std::size_t(pick(std::int64_t(strategies.size())))]);
                break;
            case 8:
                what = pick(4) == 0 ? "clear plan" : "micro-batch";
                st = what == "clear plan" ? doc.clearPlan() : doc.setMicroBatch(1 + pick(16));
                break;
            case 9:
            case 10:
                what = "undo";
                history_op = true;
                if (undo.canUndo()) undo.undo();
                break;
            case 11:
                what = "redo";
                history_op = true;
                if (undo.canRedo()) undo.redo();
                break;
        }
        const QString where = QStringLiteral("step %1 (%2), seed %3").arg(step).arg(what).arg(seed);
        const QByteArray whereText = where.toLocal8Bit();
        const char* at = whereText.constData();

        // The history.
        if (history_op) {
            QCOMPARE(undo.count(), countBefore);
            QVERIFY2(std::size_t(undo.index()) < history.size(), at);
            QVERIFY2(doc.model() == history[std::size_t(undo.index())], at);
        } else if (st.ok()) {
            ++accepted[what];
            if (undo.index() == indexBefore) {
                // Merged into the last step (typing in a spin box), or an edit that changed
                // nothing the history records. A merge after an undo drops the redo steps, as
                // a push does.
                if (undo.count() < countBefore) {
                    history.resize(std::size_t(undo.count()) + 1);
                    if (cleanIndex > undo.index()) cleanIndex = -1;
                }
                history[std::size_t(undo.index())] = doc.model();
                if (undo.index() == cleanIndex && !(doc.model() == before)) cleanIndex = -1;
            } else {
                QCOMPARE(undo.index(), indexBefore + 1);
                history.resize(std::size_t(indexBefore) + 1);
                history.push_back(doc.model());
                if (cleanIndex > indexBefore) cleanIndex = -1;  // the clean state was redone away
            }
        } else {
            ++refused[what];
            QVERIFY2(doc.model() == before, at);
            QCOMPARE(undo.index(), indexBefore);
            QCOMPARE(undo.count(), countBefore);
            QVERIFY2(!st.error().message.empty(), at);
        }
        QVERIFY2(std::size_t(undo.count()) + 1 == history.size(), at);
        QCOMPARE(doc.isModified(), undo.index() != cleanIndex);

        // The views and the evaluation of the current state.
        const Network& now = doc.network();
        QVERIFY2(stack.rowCount() == int(now.layers.size()) + 1, at);
        QVERIFY2(std::int64_t(doc.state().shapes.size()) == expandedInstances(now) + 1, at);
        const Evaluation& e = doc.evaluation();
        const Timeline& t = e.timeline;
        const auto valid = validateProgram(doc.graph(), e.program);
        QVERIFY2(valid.ok(), qPrintable(where + ": " + QString::fromStdString(
                                                    valid.ok() ? "" : valid.error().message)));
        QVERIFY2(t.live.size() == e.program.instructions.size(), at);
        std::int64_t largest = 0;
        for (const CategoryBytes& b : t.live) largest = std::max(largest, totalBytes(b));
        QVERIFY2(largest == t.peakBytes, at);
        QVERIFY2(totalBytes(t.breakdownAtPeak) == t.peakBytes, at);
        QVERIFY2(w.summary()->fits() == t.fits, at);
        QVERIFY2(w.summary()->fieldText(SummaryPanel::Field::Peak)
                     .startsWith(bytesText(t.peakBytes, ByteUnits::Binary)),
                 at);
        QVERIFY2(w.windowTitle().startsWith(doc.displayName()), at);

        if (step % 10 == 0) {
            // The same model from scratch (lowered again, no cached graph or baseline): the
            // document's caches change nothing.
            const ModelFile& m = doc.model();
            auto g = lower(m.network, m.training.precision);
            QVERIFY2(g.ok(), at);
            auto s = parseStrategy(defaultStrategy(m));
            QVERIFY2(s.ok(), at);
            auto fresh = evaluate(*g, *s, manualRegions(m), m.training, doc.device());
            QVERIFY2(fresh.ok(), at);
            const Timeline& f = fresh->timeline;
            QVERIFY2(f.peakBytes == t.peakBytes, at);
            QVERIFY2(f.maxMicroBatch == t.maxMicroBatch, at);
            QVERIFY2(f.fits == t.fits, at);
            QVERIFY2(qFuzzyCompare(1.0 + f.timeS.total(), 1.0 + t.timeS.total()), at);
            QVERIFY2(fresh->baselinePeakBytes == e.baselinePeakBytes, at);
            QVERIFY2(fresh->baselineSavedActivationBytes == e.baselineSavedActivationBytes, at);
            QVERIFY2(fresh->program.instructions.size() == e.program.instructions.size(), at);
            QVERIFY2(fresh->program.unsafeReasons == e.program.unsafeReasons, at);
            // Whatever the edits made, the file format takes it back.
            auto reread = parseModel(modelToJson(doc.model()), "round trip");
            QVERIFY2(reread.ok(), qPrintable(where + ": " + QString::fromStdString(
                                                           reread.ok() ? "" : reread.error().message)));
            QVERIFY2(*reread == doc.model(), at);
        }
        // Now and then the event loop runs: the comparison starts, the next edit cancels it.
        if (step % 25 == 0) QCoreApplication::processEvents();
    }
    QString counts;
    for (const auto& [k, v] : accepted)
        counts += QStringLiteral("%1 %2/%3, ").arg(k).arg(v).arg(v + refused[k]);
    qInfo("accepted/tried: %s", qPrintable(counts));
    // The mix did exercise the edits (a generator stuck on refusals would prove little).
    QVERIFY(accepted["toggle"] > 0 && accepted["insert"] > 0 && accepted["strategy"] > 0);
}

QTEST_MAIN(TstGuiRandom)
#include "tst_gui_random.moc"
