// The window's finish, offscreen: a refused edit is said at the editor that made it (the
// budget field, the strategy bar's budget, an inspector field, a layer stack row) and the editor
// shows its previous valid value again; the comparison's strategy column stays in place while
// the table scrolls sideways, and the scroll goes back to the start for another model but not
// for another plan; a CPU run predicted longer than the threshold is asked about before it runs
// (no, yes, don't ask again); the layer stack, the inspector, the undo texts, the step-through's
// captions and the schedule grid number layers alike. REMAT_SCREENSHOT_DIR, when set, receives
// a picture of each.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include "comparison_panel.h"
#include "document.h"
#include "inspector.h"
#include "layer_numbering.h"
#include "layer_stack_model.h"
#include "layer_stack_view.h"
#include "main_window.h"
#include "qt_convert.h"
#include "refusal_notice.h"
#include "run_panel.h"
#include "schedule_grid_view.h"
#include "step_through_panel.h"
#include "strategy_bar.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;
using remat::test::showAt;
using remat::test::testOptions;

namespace {

void saveShot(QWidget* w, const QString& name) {
    const QByteArray dir = qgetenv("REMAT_SCREENSHOT_DIR");
    if (!dir.isEmpty()) w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name);
}

// The notice sits under (or over) its anchor, within the window, and is on top.
bool noticeNextTo(QWidget* window, QWidget* anchor) {
    QWidget* notice = window->findChild<QWidget*>(QStringLiteral("refusalNotice"));
    if (!notice || !notice->isVisible()) return false;
    const QRect a(anchor->mapTo(window, QPoint(0, 0)), anchor->size());
    const QRect n = notice->geometry();
    const bool below = n.top() >= a.top() && n.top() <= a.bottom() + 8;
    const bool above = n.bottom() <= a.top() + 2 && n.bottom() >= a.top() - 8;
    return window->rect().contains(n) && (below || above);
}

}  // namespace

class TstGuiPolish : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void budgetRefusedAtTheField();
    void strategyBarBudgetRefusedAndReverted();
    void inspectorRefusalRevertsTheField();
    void layerStackRefusalAtTheRow();
    void comparisonStrategyColumnFrozen();
    void longCpuRunAskedFirst();
    void oneLayerNumbering();
};

void TstGuiPolish::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("remat-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_gui_polish"));
}

void TstGuiPolish::budgetRefusedAtTheField() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel(QStringLiteral("mlp-3x1024")));
    QVERIFY(showAt(w, QSize(1280, 720)));
    auto* field = w.findChild<QLineEdit*>(QStringLiteral("budgetField"));
    QVERIFY(field);
    const QString before = field->text();
    const QString strategy = w.document()->strategySpelling();
    QVERIFY(shownRefusal(&w).isEmpty());

    // A budget below anything a plan reaches: refused by the planner.
    field->setFocus();
    field->setText(QStringLiteral("1KiB"));
    QVERIFY(QMetaObject::invokeMethod(field, "editingFinished"));
    QVERIFY2(shownRefusal(&w).contains(QStringLiteral("cannot be met")), qPrintable(shownRefusal(&w)));
    QCOMPARE(refusalAnchor(&w), static_cast<QWidget*>(field));
    QVERIFY(noticeNextTo(&w, field));
    QCOMPARE(field->text(), before);  // the refused value is gone, though the field has focus
    QCOMPARE(w.document()->strategySpelling(), strategy);
    saveShot(&w, QStringLiteral("refusal-budget-field.png"));

    // Not a size at all: said there too, and the field shows the budget in effect again.
    field->setText(QStringLiteral("lots"));
    QVERIFY(QMetaObject::invokeMethod(field, "editingFinished"));
    QCOMPARE(refusalAnchor(&w), static_cast<QWidget*>(field));
    QVERIFY(!shownRefusal(&w).isEmpty());
    QCOMPARE(field->text(), before);

    // The next accepted edit takes the notice away.
    QVERIFY(w.document()->setStrategy(QStringLiteral("full")).ok());
    QVERIFY(shownRefusal(&w).isEmpty());
}

void TstGuiPolish::strategyBarBudgetRefusedAndReverted() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(showAt(w, QSize(1280, 720)));
    StrategyBar* bar = w.strategyBar();
    const int optimal = bar->strategyCombo()->findData(QStringLiteral("optimal"));
    QVERIFY(optimal >= 0);
    bar->strategyCombo()->setCurrentIndex(optimal);
    QVERIFY(w.document()->strategySpelling().startsWith(QStringLiteral("optimal:")));
    const QString accepted = w.document()->strategySpelling();
    auto* budget = bar->findChild<QDoubleSpinBox*>();
    QVERIFY(budget && budget->isVisible());
    const double shown = budget->value();

    budget->setValue(0.01);  // 10 MiB: below the model states alone
    QCOMPARE(w.document()->strategySpelling(), accepted);
    QCOMPARE(budget->value(), shown);
    QCOMPARE(refusalAnchor(&w), static_cast<QWidget*>(budget));
    QVERIFY(noticeNextTo(&w, budget));
    QVERIFY2(shownRefusal(&w).contains(QStringLiteral("cannot be met")), qPrintable(shownRefusal(&w)));
    // The status bar has it as well.
    QVERIFY(!w.document()->undoStack()->canRedo());
}

void TstGuiPolish::inspectorRefusalRevertsTheField() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(showAt(w, QSize(1366, 768)));
    // Tensor parallel over 4 GPUs: 4 heads split evenly; 2 heads would not, though the shapes
    // themselves fit (the inspector's own check passes, the document refuses).
    ParallelConfig tp = w.document()->model().training.parallel;
    tp.tp = 4;
    QVERIFY2(w.document()->setParallel(tp).ok(), "tp 4");
    w.layerStack()->selectEntry(1);
    Inspector* ins = w.inspector();
    QCOMPARE(ins->entry(), 1);
    auto* heads = qobject_cast<QSpinBox*>(ins->editorFor(QStringLiteral("heads")));
    QVERIFY(heads);
    QCOMPARE(heads->value(), 4);
    heads->setValue(2);
    QVERIFY(ins->canApply());
    const int undo = w.document()->undoStack()->count();
    ins->apply();
    QCOMPARE(w.document()->undoStack()->count(), undo);
    QCOMPARE(w.document()->network().layers[1].heads, std::int64_t(4));
    auto* after = qobject_cast<QSpinBox*>(ins->editorFor(QStringLiteral("heads")));
    QVERIFY(after);
    QCOMPARE(after->value(), 4);  // the field shows the layer as it is again
    QVERIFY(!ins->canApply());
    QVERIFY2(ins->statusText().startsWith(QStringLiteral("Refused: ")), qPrintable(ins->statusText()));
    QVERIFY2(ins->statusText().contains(QStringLiteral("tp")), qPrintable(ins->statusText()));
    // The field is made anew by the revert and shown by its layout a moment later; the notice
    // follows it there.
    QTRY_COMPARE(refusalAnchor(&w), static_cast<QWidget*>(after));
    QVERIFY(noticeNextTo(&w, after));
    saveShot(&w, QStringLiteral("refusal-inspector.png"));
}

void TstGuiPolish::layerStackRefusalAtTheRow() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(showAt(w, QSize(1280, 720)));
    LayerStackView* stack = w.layerStack();
    QTreeView* tree = stack->tree();
    // Deleting the embedding leaves token ids for a transformer block: refused.
    stack->selectEntry(0);
    const std::size_t layers = w.document()->network().layers.size();
    QAction* del = nullptr;
    for (QAction* a : tree->actions())
        if (a->shortcut() == QKeySequence(QKeySequence::Delete)) del = a;
    QVERIFY(del);
    del->trigger();
    QCOMPARE(w.document()->network().layers.size(), layers);
    QVERIFY(!shownRefusal(&w).isEmpty());
    QCOMPARE(refusalAnchor(&w), tree->viewport());
    // Under the embedding's row, not somewhere else in the stack.
    QWidget* notice = w.findChild<QWidget*>(QStringLiteral("refusalNotice"));
    const QRect row = tree->visualRect(stack->model()->indexForEntry(0));
    const int rowBottom = tree->viewport()->mapTo(&w, row.bottomLeft()).y();
    QVERIFY2(std::abs(notice->geometry().top() - rowBottom) <= 4,
             qPrintable(QStringLiteral("%1 vs %2").arg(notice->geometry().top()).arg(rowBottom)));
    saveShot(&w, QStringLiteral("refusal-layer-stack.png"));

    // A selection that is no region (not consecutive): said at the stack too.
    hideRefusal(&w);
    tree->selectionModel()->clearSelection();
    for (std::size_t e : {std::size_t(0), std::size_t(2)})
        tree->selectionModel()->select(stack->model()->indexForEntry(e),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
    stack->checkpointSelection();
    QVERIFY2(shownRefusal(&w).contains(QStringLiteral("consecutive")), qPrintable(shownRefusal(&w)));
    QCOMPARE(refusalAnchor(&w), tree->viewport());
}

void TstGuiPolish::comparisonStrategyColumnFrozen() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    QVERIFY(showAt(w, QSize(1280, 720)));
    ComparisonPanel* panel = w.comparison();
    FrozenColumnTableView* table = panel->table();
    // Done: the document evaluated and the comparison's rows in (it may have finished already).
    auto settled = [&] {
        return !w.document()->isBusy() && !panel->isBusy() && table->model()->rowCount() > 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(settled(), 120000);
    QTableView* frozen = table->frozenView();
    // The frozen view shows the first column only, over the table's own, as wide.
    QVERIFY(frozen->isVisible());
    QVERIFY(!frozen->isColumnHidden(0));
    for (int c = 1; c < table->model()->columnCount(); ++c) QVERIFY(frozen->isColumnHidden(c));
    QCOMPARE(frozen->columnWidth(0), table->columnWidth(0));
    QCOMPARE(frozen->selectionModel(), table->selectionModel());
    QCOMPARE(frozen->geometry().left(), table->frameWidth());
    // Narrow enough to scroll sideways.
    table->setFixedWidth(table->columnWidth(0) + 180);
    QTest::qWait(20);
    QScrollBar* h = table->horizontalScrollBar();
    QVERIFY2(h->maximum() > 0, "the table does not scroll");
    h->setValue(h->maximum());
    // Scrolled, the strategy names are still where they were, over the scrolled columns.
    QCOMPARE(frozen->geometry().left(), table->frameWidth());
    QCOMPARE(frozen->model()->index(0, 0).data().toString(),
             table->model()->index(0, 0).data().toString());
    QVERIFY(frozen->visualRect(frozen->model()->index(0, 0)).left() >= 0);
    QVERIFY(table->visualRect(table->model()->index(0, 0)).right() < 0);  // the table's own: away
    saveShot(panel, QStringLiteral("comparison-frozen-column.png"));

    // Another plan: where it was scrolled stays.
    const int scrolled = h->value();
    QVERIFY(w.document()->setStrategy(QStringLiteral("every:3")).ok());
    QTRY_VERIFY_WITH_TIMEOUT(settled(), 120000);
    QCOMPARE(h->value(), scrolled);
    // Another model: back to the start.
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QCOMPARE(h->value(), 0);
    QCOMPARE(table->verticalScrollBar()->value(), 0);
}

void TstGuiPolish::longCpuRunAskedFirst() {
    const auto in = remat::test::preset("mlp-3x1024");
    const Graph g = remat::test::lowered(in);
    auto e = evaluate(g, *parseStrategy("none"), {}, in.training, in.device);
    QVERIFY(e.ok());
    RunPanel panel;
    QVERIFY(showAt(panel, QSize(900, 500)));
    panel.setProgram(g, e->program, e->timeline, in.device);
    panel.setLongRunThreshold(1e-6);  // any run is "long"
    auto* ask = panel.findChild<QCheckBox*>(QStringLiteral("askLongRun"));
    QVERIFY(ask && ask->isChecked());

    int asked = 0;
    QString question;
    bool answer = false, dontAsk = false;
    panel.setLongRunQuestion([&](const QString& text, bool* again) {
        ++asked;
        question = text;
        *again = dontAsk;
        return answer;
    });
    QSignalSpy finished(&panel, &RunPanel::runFinished);

    // No: nothing runs; the status says how long it would have been.
    QVERIFY(panel.start(QStringLiteral("cpu")));
    QVERIFY(finished.wait(60000));
    QCOMPARE(asked, 1);
    QCOMPARE(finished.last().front().toBool(), false);
    QVERIFY2(question.contains(QStringLiteral("estimated at")), qPrintable(question));
    QVERIFY(question.contains(QStringLiteral("smaller micro-batch")));
    QVERIFY2(panel.statusText().startsWith(QStringLiteral("Not started")),
             qPrintable(panel.statusText()));
    QVERIFY(!panel.lastOutcome());
    saveShot(&panel, QStringLiteral("run-panel-long-run-declined.png"));

    // Yes, and don't ask again: the run goes ahead, and the next one is not asked about.
    answer = true;
    dontAsk = true;
    finished.clear();
    QVERIFY(panel.start(QStringLiteral("cpu")));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    QCOMPARE(asked, 2);
    QVERIFY2(finished.last().front().toBool(), qPrintable(panel.statusText()));
    QVERIFY(panel.lastOutcome() && panel.lastOutcome()->ok);
    QCOMPARE(panel.longRunThreshold(), 0.0);
    QVERIFY(!ask->isChecked());
    finished.clear();
    QVERIFY(panel.start(QStringLiteral("cpu")));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    QCOMPARE(asked, 2);
    QVERIFY(finished.last().front().toBool());
    // Ticking the box again asks above the default threshold, that of `remat run`.
    ask->setChecked(true);
    QCOMPARE(panel.longRunThreshold(), 60.0);
}

void TstGuiPolish::oneLayerNumbering() {
    MainWindow w(testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-tiny")));
    QVERIFY(showAt(w, QSize(1366, 768)));
    const Network& net = w.document()->network();  // embedding, block x 2, layernorm, linear, loss
    const LayerNumbering num(net);
    QCOMPARE(num.layer(0), QStringLiteral("layer 0 (embedding)"));
    QCOMPARE(num.layer(2), QStringLiteral("layer 2 (transformer_block 2/2)"));
    QCOMPARE(num.layer(3), QStringLiteral("layer 3 (layernorm)"));
    QCOMPARE(num.range(1, 2), QStringLiteral("layers 1–2"));
    QCOMPARE(num.entryTitle(2), QStringLiteral("Layer 3: layernorm"));
    QCOMPARE(num.entryTitle(1), QStringLiteral("Layers 1–2: transformer_block × 2"));
    // Under pipeline parallelism a stage's layer 0 is the network's instance it starts at.
    QCOMPARE(LayerNumbering(net, 3).layer(0), QStringLiteral("layer 3 (layernorm)"));

    // The stack's row number of every entry is the number the inspector's title gives it.
    LayerStackModel* model = w.layerStack()->model();
    static const QRegularExpression leading(QStringLiteral("^(\\d+)"));
    static const QRegularExpression titled(QStringLiteral("^Layers? (\\d+)"));
    for (std::size_t e = 0; e < net.layers.size(); ++e) {
        const QString row = model->indexForEntry(e).data().toString();
        w.layerStack()->selectEntry(int(e));
        const QString title = w.inspector()->findChildren<QLabel*>().front()->text();
        const auto r = leading.match(row), t = titled.match(title);
        QVERIFY2(r.hasMatch() && t.hasMatch(), qPrintable(row + " / " + title));
        QCOMPARE(t.captured(1), r.captured(1));
        QCOMPARE(r.captured(1).toLongLong(), w.document()->firstInstanceOf(e));
    }
    // An instance row says which of the block's instances it is.
    QCOMPARE(model->indexForInstance(2).data().toString(),
             QStringLiteral("2  transformer_block 2/2"));
    // Undo texts name the same rows.
    QVERIFY(w.document()->setEntryCheckpointed(1, true).ok());
    QVERIFY(w.document()->setRegion(RegionSpec{false, 3, 3, ""}, true).ok());
    QCOMPARE(w.document()->undoStack()->undoText(), QStringLiteral("Checkpoint layer 3 (layernorm)"));

    // The step-through's captions and the grid's tooltips: the same names.
    StepThroughPanel* steps = w.stepThrough();
    steps->setActive(true);
    QTRY_VERIFY_WITH_TIMEOUT(steps->data() != nullptr, 20000);
    bool block = false, single = false;
    for (std::size_t i = 0; i < steps->data()->instructionCount(); ++i) {
        steps->seekInstruction(i);
        const QString c = steps->caption();
        block = block || c.contains(QStringLiteral("layer 2 (transformer_block 2/2)"));
        single = single || c.contains(QStringLiteral("layer 3 (layernorm)"));
        QVERIFY2(!c.contains(QStringLiteral("layer 2 (layernorm")), qPrintable(c));
    }
    QVERIFY(block && single);
    saveShot(&w, QStringLiteral("layer-numbering.png"));
}

QTEST_MAIN(TstGuiPolish)
#include "tst_gui_polish.moc"
