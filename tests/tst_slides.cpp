// Pictures for slides and presentation mode: a plot exported for a slide has the chosen size
// (PNG at its pixel density), carries its title (drawn above the plot; in the SVG's and PDF's
// metadata), and leaves the plot on screen as it was; bad sizes, densities and extensions are
// refused naming what is wrong; the main window exports every picture it offers (the schedule
// grid through the widget path) and refuses one that has nothing to show yet; presentation
// mode scales fonts and plot lines, hides the palette, the inspector and the status bar, and
// leaving it restores all of that.
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "comparison_panel.h"
#include "document.h"
#include "main_window.h"
#include "plot_adapter.h"
#include "schedule_grid_view.h"
#include "slide_export.h"
#include "slide_export_dialog.h"
#include "timeline_plot.h"
#include "tradeoff_plot.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;
using namespace remat::test;

namespace {

// Rows of `image` from y0 to y1 that hold a pixel different from the top-left corner's.
int inkedRows(const QImage& image, int y0, int y1) {
    const QRgb background = image.pixel(0, 0);
    int rows = 0;
    for (int y = y0; y < std::min(y1, image.height()); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixel(x, y) != background) {
                ++rows;
                break;
            }
    return rows;
}

}  // namespace

class TestSlides : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void plotExportHasSizeDensityAndTitle();
    void badOptionsAreRefused();
    void windowExportsEveryPicture();
    void dialogSuggestsTitleAndFile();
    void presentationModeScalesAndRestores();
};

void TestSlides::plotExportHasSizeDensityAndTitle() {
    MainWindow window(testOptions());
    QVERIFY(window.openModel(QStringLiteral("mlp-3x1024")));
    QVERIFY(showAt(window, QSize(1400, 900)));
    PlotAdapter* plot = window.timeline()->plotAdapter();
    const QSize before(plot->range(PlotAxis::X).x(), 0);
    QTemporaryDir dir;
    SlideOptions o;
    o.size = QSize(800, 450);
    o.pixelRatio = 2.0;
    o.title = QStringLiteral("Three linears: the peak");
    const QString titled = dir.filePath("titled.png");
    QVERIFY(plot->exportSlide(titled, o));
    const QImage a(titled);
    QCOMPARE(a.size(), QSize(1600, 900));
    o.title.clear();
    const QString plain = dir.filePath("plain.png");
    QVERIFY(plot->exportSlide(plain, o));
    const QImage b(plain);
    QCOMPARE(b.size(), QSize(1600, 900));
    // The title is drawn in a band at the top that the untitled picture leaves empty.
    QVERIFY(inkedRows(a, 0, 40) > inkedRows(b, 0, 40));
    // Density 1: the logical size.
    o.pixelRatio = 1.0;
    QVERIFY(plot->exportSlide(dir.filePath("one.png"), o));
    QCOMPARE(QImage(dir.filePath("one.png")).size(), QSize(800, 450));
    // SVG and PDF carry the title.
    o.title = QStringLiteral("Three linears");
    QVERIFY(plot->exportSlide(dir.filePath("t.svg"), o));
    QFile svg(dir.filePath("t.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray svgText = svg.readAll();
    QVERIFY(svgText.contains("Three linears"));
    QVERIFY(svgText.contains("width=\"800"));
    QVERIFY(plot->exportSlide(dir.filePath("t.pdf"), o));
    QFile pdf(dir.filePath("t.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(4) == "%PDF");
    // The plot on screen keeps its layout: no title row left behind.
    const QImage screen1 = plot->grab().toImage();
    QVERIFY(plot->exportSlide(dir.filePath("again.png"), o));
    QTest::qWait(20);
    QCOMPARE(plot->grab().toImage(), screen1);
    Q_UNUSED(before);
}

void TestSlides::badOptionsAreRefused() {
    QString error;
    SlideOptions o;
    o.size = QSize(100, 900);
    QVERIFY(!validSlideOptions("a.png", o, &error));
    QVERIFY2(error.contains("100") && error.contains("200"), qPrintable(error));
    o.size = QSize(800, 600);
    o.pixelRatio = 8.0;
    QVERIFY(!validSlideOptions("a.png", o, &error));
    QVERIFY2(error.contains("8"), qPrintable(error));
    o.pixelRatio = 2.0;
    QVERIFY(!validSlideOptions("a.txt", o, &error));
    QVERIFY2(error.contains("a.txt"), qPrintable(error));
    QVERIFY(validSlideOptions("a.svg", o, &error));
    // Nothing is written for a refused export.
    QTemporaryDir dir;
    QWidget w;
    w.resize(300, 200);
    o.size = QSize(50, 50);
    QVERIFY(!exportWidgetForSlides(&w, dir.filePath("w.png"), o, &error));
    QVERIFY(!QFile::exists(dir.filePath("w.png")));
}

void TestSlides::windowExportsEveryPicture() {
    MainWindow window(testOptions());
    QVERIFY(window.openModel(QStringLiteral("mlp-3x1024")));
    QVERIFY(window.document()->setStrategy(QStringLiteral("every:2")));
    QVERIFY(showAt(window, QSize(1400, 900)));
    QTemporaryDir dir;
    SlideOptions o;
    o.size = QSize(640, 360);
    o.pixelRatio = 1.0;
    o.title = QStringLiteral("slide");
    // The trade-off plot needs the comparison; the schedule grid its dock shown.
    QTRY_VERIFY_WITH_TIMEOUT(!window.comparison()->plot()->points().empty(), 60000);
    window.scheduleDock()->show();
    window.scheduleDock()->raise();
    QTRY_VERIFY_WITH_TIMEOUT(window.scheduleGrid()->grid() != nullptr, 20000);
    for (const QString key : {QStringLiteral("timeline"), QStringLiteral("tradeoff"),
                              QStringLiteral("schedule")}) {
        const QString path = dir.filePath(key + ".png");
        QVERIFY2(window.exportForSlides(key, path, o), qPrintable(window.lastError()));
        QCOMPARE(QImage(path).size(), QSize(640, 360));
    }
    // Two plans has nothing to show before a second plan is chosen: refused, nothing written.
    QVERIFY(!window.exportForSlides(QStringLiteral("two-plans"), dir.filePath("d.png"), o));
    QVERIFY(window.lastError().contains(QStringLiteral("Two plans")));
    QVERIFY(!QFile::exists(dir.filePath("d.png")));
    QVERIFY(!window.exportForSlides(QStringLiteral("nonsense"), dir.filePath("n.png"), o));
    // Every picture offered is one the window can name.
    QCOMPARE(window.slidePictures().size(), std::size_t(5));
}

void TestSlides::dialogSuggestsTitleAndFile() {
    SlideExportDialog dialog({{QStringLiteral("timeline"), QStringLiteral("Memory timeline")},
                              {QStringLiteral("tradeoff"), QStringLiteral("Trade-off plot")}},
                             QStringLiteral("gpt2-small"));
    QCOMPARE(dialog.options().title, QStringLiteral("gpt2-small: Memory timeline"));
    QVERIFY(dialog.path().endsWith(QStringLiteral("gpt2-small-timeline.png")));
    dialog.setPicture(QStringLiteral("tradeoff"));
    QCOMPARE(dialog.options().title, QStringLiteral("gpt2-small: Trade-off plot"));
    QVERIFY(dialog.path().endsWith(QStringLiteral("gpt2-small-tradeoff.png")));
    QCOMPARE(dialog.options().pixelRatio, 2.0);
    // A bad file name keeps the dialog open.
    dialog.setPath(QStringLiteral("slide.txt"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(!dialog.isVisible() || dialog.result() != QDialog::Accepted);
}

void TestSlides::presentationModeScalesAndRestores() {
    MainWindow window(testOptions());
    QVERIFY(window.openModel(QStringLiteral("mlp-3x1024")));
    QVERIFY(showAt(window, QSize(1400, 900)));
    QDockWidget* palette = nullptr;
    for (QDockWidget* d : window.findChildren<QDockWidget*>())
        if (d->objectName().contains(QStringLiteral("palette"), Qt::CaseInsensitive)) palette = d;
    QVERIFY(palette);
    QVERIFY(!palette->isHidden());  // shown, or a tab behind the inspector
    const qreal fontBefore = window.timeline()->plotAdapter()->font().pointSizeF();
    QCOMPARE(window.timeline()->plotAdapter()->lineScale(), 1.0);

    window.setPresentationMode(true);
    QTest::qWait(20);
    QVERIFY(window.presentationMode());
    QVERIFY(palette->isHidden());
    QVERIFY(!window.statusBar()->isVisible());
    const qreal fontAfter = window.timeline()->plotAdapter()->font().pointSizeF();
    QVERIFY(qFuzzyCompare(fontAfter, fontBefore * MainWindow::kPresentationScale));
    QVERIFY(qFuzzyCompare(window.timeline()->plotAdapter()->lineScale(),
                          MainWindow::kPresentationScale));

    window.setPresentationMode(false);
    QTest::qWait(20);
    QVERIFY(!palette->isHidden());
    QVERIFY(window.statusBar()->isVisible());
    QCOMPARE(window.timeline()->plotAdapter()->font().pointSizeF(), fontBefore);
    QCOMPARE(window.timeline()->plotAdapter()->lineScale(), 1.0);
}

QTEST_MAIN(TestSlides)
#include "tst_slides.moc"
