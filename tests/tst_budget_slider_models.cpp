// Regression test: the budget slider follows the model that is open. After opening another
// model (a preset or a file), its range must be the new model's — the smallest peak the
// single-level planner reaches to the peak without checkpointing — exactly what a slider created
// on that model shows, the text beside it must state that range (also for a model where no plan
// lowers the peak, whose range is a single value: the text used to keep the previous model's
// range then), and dragging it must plan within the new range. Also in the main window, where
// the slider sits in a toolbar and models are opened through the window.
#include <QSignalBlocker>
#include <QSlider>
#include <QStandardPaths>
#include <QtTest>

#include "budget_slider.h"
#include "document.h"
#include "main_window.h"
#include "model_file.h"
#include "qt_convert.h"
#include "strategy.h"

using namespace remat;
using namespace remat::ui;

namespace {

struct Range {
    std::int64_t lo = 0, hi = 0;
    QString text;
};

// The range a slider made for `preset` from scratch shows.
Range freshRange(const QString& preset) {
    Document doc;
    if (!doc.open(preset).ok()) return {};
    BudgetSlider slider(&doc);
    return {slider.minimumBytes(), slider.maximumBytes(), slider.rangeText()};
}

// The slider shows `want` (and its text states those bounds).
void compareRange(const BudgetSlider& slider, const Range& want) {
    QCOMPARE(slider.minimumBytes(), want.lo);
    QCOMPARE(slider.maximumBytes(), want.hi);
    QCOMPARE(slider.rangeText(), want.text);
    QVERIFY2(slider.rangeText().contains(bytesText(want.hi, ByteUnits::Binary)),
             qPrintable(slider.rangeText()));
    if (want.lo < want.hi)
        QVERIFY(slider.rangeText().contains(bytesText(want.lo, ByteUnits::Binary)));
    QCOMPARE(slider.slider()->isEnabled(), want.lo < want.hi);
}

}  // namespace

class TstBudgetSliderModels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void rangeFollowsTheOpenedModel_data() {
        QTest::addColumn<QStringList>("presets");
        QTest::newRow("gpt2-small, resnet-101") << QStringList{"gpt2-small", "resnet-101"};
        QTest::newRow("resnet-101, gpt2-small, llama-7b")
            << QStringList{"resnet-101", "gpt2-small", "llama-7b"};
        QTest::newRow("gpt2-small, gpt2-tiny, gpt2-small")
            << QStringList{"gpt2-small", "gpt2-tiny", "gpt2-small"};
    }

    void rangeFollowsTheOpenedModel() {
        QFETCH(QStringList, presets);
        Document doc;
        BudgetSlider slider(&doc);
        for (const QString& preset : presets) {
            QVERIFY(doc.open(preset).ok());
            const Range want = freshRange(preset);
            QVERIFY(want.lo > 0 && want.lo < want.hi);
            compareRange(slider, want);
            // With no plan the handle sits at the new model's no-checkpoint peak.
            QCOMPARE(doc.evaluation().timeline.peakBytes, want.hi);
            QCOMPARE(slider.slider()->value(), slider.slider()->maximum());
            // Dragging to the bottom plans for the new model's smallest peak.
            slider.slider()->setValue(0);
            auto s = parseStrategy(doc.strategySpelling().toStdString());
            QVERIFY(s.ok());
            QCOMPARE(s->budgetBytes, want.lo);
            QVERIFY(doc.evaluation().timeline.peakBytes <= want.lo);
        }
    }

    // Models where no single-level plan lowers the peak (the MLP's chain, GPT-3's optimizer
    // state) have a one-value range: the slider is disabled and its text names that value, not
    // the range of the model open before.
    void oneValueRangeReplacesThePreviousText() {
        Document doc;
        BudgetSlider slider(&doc);
        QString previous;
        for (const char* preset :
             {"gpt2-small", "mlp-3x1024", "resnet-101", "gpt3-175b", "gpt2-small"}) {
            QVERIFY(doc.open(QString::fromLatin1(preset)).ok());
            const Range want = freshRange(QString::fromLatin1(preset));
            QVERIFY(want.lo > 0 && want.lo <= want.hi);
            compareRange(slider, want);
            QVERIFY2(slider.rangeText() != previous, preset);
            previous = slider.rangeText();
        }
    }

    // The range is tied to the model's content, not to the address of a graph: a slider that
    // did not see the intermediate models (its updates held back) still shows the model that is
    // open when it next updates, even when that model's graph was built where an earlier,
    // freed graph lived and its settings spell the same.
    void rangeIsTiedToTheModelNotToAGraphAddress() {
        auto first = loadModel("gpt2-small");
        auto between = loadModel("gpt2-tiny");
        auto last = loadModel("resnet-101");
        QVERIFY(first && between && last);
        // The same settings and device everywhere: only the network tells the models apart.
        between->training = first->training;
        between->device = first->device;
        last->training = first->training;
        last->device = first->device;
        Document doc;
        QVERIFY(doc.openModel(*first, QString()).ok());
        BudgetSlider slider(&doc);
        const Range firstRange{slider.minimumBytes(), slider.maximumBytes()};
        {
            const QSignalBlocker hold(&doc);
            QVERIFY(doc.openModel(*between, QString()).ok());
            QVERIFY(doc.openModel(*last, QString()).ok());
        }
        slider.setUnits(ByteUnits::Decimal);  // updates from the document as it is now
        Document fresh;
        QVERIFY(fresh.openModel(*last, QString()).ok());
        BudgetSlider want(&fresh);
        QVERIFY(want.minimumBytes() != firstRange.lo || want.maximumBytes() != firstRange.hi);
        QCOMPARE(slider.minimumBytes(), want.minimumBytes());
        QCOMPARE(slider.maximumBytes(), want.maximumBytes());
    }

    void mainWindowSliderFollowsOpenModel() {
        MainWindow::Options options;
        options.interactive = false;
        options.autosave = false;
        options.restoreSettings = false;
        MainWindow w(options);
        auto* slider = w.findChild<BudgetSlider*>();
        QVERIFY(slider);
        for (const char* preset : {"gpt2-small", "resnet-101", "mlp-3x1024", "gpt2-small"}) {
            QVERIFY(w.openModel(QString::fromLatin1(preset)));
            compareRange(*slider, freshRange(QString::fromLatin1(preset)));
        }
    }
};

QTEST_MAIN(TstBudgetSliderModels)
#include "tst_budget_slider_models.moc"
