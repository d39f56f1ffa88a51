// The budget slider and field (ui/BudgetSlider): its range is the planner's smallest reachable
// peak to the no-checkpoint peak; dragging re-plans live with `optimal:BUDGET` and the
// document's simulated peak stays within the budget at every position; typed sizes re-plan
// too and malformed ones are refused without touching the document. The time of a slider step
// is printed here and measured by bench_optimal (BM_SliderGpt2Small, docs/performance.md): a
// test asserts behaviour, not the speed of whatever machine runs it.
#include <QLineEdit>
#include <QSlider>
#include <QtTest>

#include "budget_slider.h"
#include "document.h"
#include "strategy.h"

using namespace remat;
using namespace remat::ui;

class TestOptimalSlider : public QObject {
    Q_OBJECT

private slots:
    void rangeAndLiveReplanning() {
        for (const char* preset : {"gpt2-tiny", "gpt2-small", "resnet-101"}) {
            Document doc;
            QVERIFY(doc.open(QString::fromLatin1(preset)).ok());
            BudgetSlider slider(&doc);
            QVERIFY(slider.minimumBytes() > 0);
            QVERIFY(slider.minimumBytes() < slider.maximumBytes());
            // With no plan (strategy none) the slider sits at the no-checkpoint peak.
            QCOMPARE(slider.slider()->value(), slider.slider()->maximum());
            double worstCpuMs = 0;
            for (int position : {0, 100, 250, 500, 750, 999, 1000}) {
                const double before = threadCpuMs();
                slider.slider()->setValue(position);
                worstCpuMs = std::max(worstCpuMs, threadCpuMs() - before);
                auto s = parseStrategy(doc.strategySpelling().toStdString());
                QVERIFY(s.ok());
                QCOMPARE(int(s->kind), int(StrategyKind::Optimal));
                QVERIFY(s->budgetBytes >= slider.minimumBytes());
                QVERIFY(s->budgetBytes <= slider.maximumBytes());
                QVERIFY(doc.evaluation().timeline.peakBytes <= s->budgetBytes);
                QCOMPARE(slider.slider()->value(), position);
            }
            // At the smallest reachable peak the plan is the planner's minimum; at the top nothing
            // is recomputed.
            slider.slider()->setValue(slider.slider()->maximum());
            QCOMPARE(doc.evaluation().timeline.timeS.recompute, 0.0);
            qInfo("%s: range %lld..%lld B, worst slider step %.2f ms CPU", preset,
                  (long long)slider.minimumBytes(), (long long)slider.maximumBytes(), worstCpuMs);
        }
    }

    void typedBudgets() {
        Document doc;
        QVERIFY(doc.open(QStringLiteral("gpt2-small")).ok());
        BudgetSlider slider(&doc);
        slider.field()->setText(QStringLiteral("9.5 GiB"));
        emit slider.field()->editingFinished();
        auto s = parseStrategy(doc.strategySpelling().toStdString());
        QVERIFY(s.ok());
        QCOMPARE(s->budgetBytes, std::int64_t(9.5 * 1024 * 1024 * 1024));
        QVERIFY(doc.evaluation().timeline.peakBytes <= s->budgetBytes);
        const QString before = doc.strategySpelling();
        const QString shown = slider.field()->text();
        slider.field()->setText(QStringLiteral("plenty"));
        emit slider.field()->editingFinished();
        QCOMPARE(doc.strategySpelling(), before);
        // Not a size: the field shows the budget in effect again (the notice beside it, which
        // needs a shown window, is checked in tst_gui_polish).
        QCOMPARE(slider.field()->text(), shown);
        QVERIFY(!shown.contains(QStringLiteral("plenty")));
        // A budget below every plan's peak is refused by the document with the planner's reason.
        QVERIFY(!slider.applyBudget(slider.minimumBytes() - 1));
        QCOMPARE(doc.strategySpelling(), before);
    }
};

QTEST_MAIN(TestOptimalSlider)
#include "tst_optimal_slider.moc"
