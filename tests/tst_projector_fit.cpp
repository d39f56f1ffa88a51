// The main window on a lecture projector: at 1280 x 720 and 1366 x 768 the window can take that
// size (its minimum leaves room for a title bar), every toolbar shows all its controls, the
// timeline keeps a usable area, the summary's verdict and breakdown are not cut, the trade-off
// plot is not squeezed under its minimum, the layer names stay readable, and choosing another
// strategy (every k shows a spin box, optimal a budget) never widens the window. Run in English
// and, as tst_projector_fit_zh_CN, in Simplified Chinese (REMAT_TEST_LANGUAGE). With
// REMAT_SCREENSHOT_DIR set it saves the window at each size for a person to look at.
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QToolBar>
#include <QTreeView>
#include <QtTest>

#include "language.h"
#include "layer_stack_model.h"
#include "layer_stack_view.h"
#include "main_window.h"
#include "strategy_bar.h"
#include "summary_panel.h"
#include "timeline_plot.h"
#include "tradeoff_plot.h"
#include "ui_test_support.h"

using namespace remat;

namespace {

// Room a window manager's title bar takes off a screen of the given height.
constexpr int kTitleBar = 40;

void settle() {
    for (int i = 0; i < 5; ++i) {
        QTest::qWait(10);
        QApplication::processEvents();
    }
}

// Whether every visible control of `bar` lies inside the toolbar that holds it.
bool allControlsShown(QToolBar* bar, QString* clipped) {
    for (QWidget* c : bar->findChildren<QWidget*>()) {
        if (!c->isVisibleTo(bar) || c->parentWidget() == bar) continue;
        const QRect r(c->mapTo(bar, QPoint(0, 0)), c->size());
        if (!bar->rect().contains(r)) {
            *clipped = c->metaObject()->className() + QStringLiteral(" ") + c->objectName();
            return false;
        }
    }
    return true;
}

}  // namespace

class TstProjectorFit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void fits_data();
    void fits();
};

void TstProjectorFit::initTestCase() {
    const QString code = qEnvironmentVariable("REMAT_TEST_LANGUAGE");
    if (!code.isEmpty())
        QVERIFY2(ui::installTranslators(*QCoreApplication::instance(), code),
                 qPrintable("no translation for " + code));
}

void TstProjectorFit::fits_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1366x768") << QSize(1366, 768);
}

void TstProjectorFit::fits() {
    QFETCH(QSize, size);
    ui::MainWindow w(test::testOptions());
    QVERIFY(w.openModel(QStringLiteral("gpt2-small")));
    const QSize minimum = w.minimumSizeHint();
    QVERIFY2(
        minimum.width() <= size.width() && minimum.height() <= size.height() - kTitleBar,
        qPrintable(QStringLiteral("minimum %1 x %2").arg(minimum.width()).arg(minimum.height())));
    QVERIFY(test::showAt(w, size));
    settle();
    QCOMPARE(w.size(), size);

    // Every control of both toolbar rows is on screen.
    for (QToolBar* bar : w.findChildren<QToolBar*>()) {
        QString clipped;
        QVERIFY2(allControlsShown(bar, &clipped),
                 qPrintable(bar->objectName() + ": " + clipped + " is cut off"));
    }

    // The timeline keeps a usable area: a third of the width, a third of the height.
    const QRect timeline = w.centralWidget()->geometry();
    QVERIFY2(timeline.width() >= size.width() / 3 && timeline.height() >= size.height() / 3,
             qPrintable(
                 QStringLiteral("timeline %1 x %2").arg(timeline.width()).arg(timeline.height())));

    // The summary: the verdict has the lines its text needs, the breakdown its columns.
    auto* summary = w.findChild<ui::SummaryPanel*>();
    QVERIFY(summary);
    auto* verdict = summary->findChild<QLabel*>(QStringLiteral("summaryVerdict"));
    QVERIFY(verdict);
    QVERIFY(!verdict->text().isEmpty());
    QCOMPARE(verdict->height(), verdict->heightForWidth(verdict->width()));
    QVERIFY(summary->width() >= summary->breakdownWidth());

    // The trade-off plot is given at least its minimum (else its legend is cut off).
    auto* tradeoff = w.findChild<ui::TradeoffPlot*>();
    QVERIFY(tradeoff);
    QVERIFY2(tradeoff->height() >= tradeoff->minimumSizeHint().height() &&
                 tradeoff->height() >= tradeoff->minimumHeight(),
             qPrintable(QStringLiteral("trade-off plot %1 px tall").arg(tradeoff->height())));

    // Layer names keep room for about twenty characters ("1–12  transformer_block").
    QTreeView* tree = w.findChild<ui::LayerStackView*>()->tree();
    QVERIFY(tree->header()->sectionSize(ui::LayerStackModel::NameColumn) >=
            20 * tree->fontMetrics().averageCharWidth());

    // Strategies that show more controls never widen the window or cut a control off.
    QComboBox* strategy = w.strategyBar()->strategyCombo();
    for (const char* head : {"every", "selective", "optimal", "revolve", "none"}) {
        const int index = strategy->findData(QString::fromLatin1(head));
        if (index < 0) continue;  // a planner this build does not have
        strategy->setCurrentIndex(index);
        settle();
        QCOMPARE(w.size(), size);
        QVERIFY2(w.minimumSizeHint().width() <= size.width(), head);
        for (QToolBar* bar : w.findChildren<QToolBar*>()) {
            QString clipped;
            QVERIFY2(allControlsShown(bar, &clipped),
                     qPrintable(QString::fromLatin1(head) + ": " + bar->objectName() + ": " +
                                clipped + " is cut off"));
        }
        if (qstrcmp(head, "every") == 0) {
            const QString dir = qEnvironmentVariable("REMAT_SCREENSHOT_DIR");
            if (!dir.isEmpty())
                w.grab().save(QStringLiteral("%1/projector-%2x%3-%4.png")
                                  .arg(dir)
                                  .arg(size.width())
                                  .arg(size.height())
                                  .arg(qEnvironmentVariable("REMAT_TEST_LANGUAGE", "en")));
        }
    }
}

QTEST_MAIN(TstProjectorFit)
#include "tst_projector_fit.moc"
