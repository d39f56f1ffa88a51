// Files opened (File → Open goes through MainWindow::openModel) and dropped on the window: every
// broken file of tests/data/bad and a few hostile ones (a number beyond double range, a device
// profile with a field of the wrong type reached through the model's "device" key, nesting
// 50,000 deep, /dev/zero, a FIFO, a directory) is refused with its message, the model on screen
// stays as it was (not even marked modified), and the window keeps working. Interactive windows
// show the message in a message box. Text from files reaches the screen escaped and cut: the
// window title, the layer stack, the status bar.
#include <QDir>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <sys/stat.h>

#include "document.h"
#include "layer_stack_model.h"
#include "layer_stack_view.h"
#include "main_window.h"
#include "model_file.h"
#include "qt_convert.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(f.fileName()));
    f.write(text);
    return f.fileName();
}

// Drops `path` on the window as a file manager does; the window opens it in the next turn.
void drop(MainWindow& w, const QString& path) {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint at = w.rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &enter);
    QDropEvent dropEvent(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &dropEvent);
    QCoreApplication::processEvents();
}

struct Hostile {
    QString name;
    QString path;
    QString expected;  // part of the message
};

}  // namespace

class TstOpenHostileFiles : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void everyBadFileIsRefusedAndNothingIsLost();
    void hostileFilesAreRefused();
    void droppedBadFilesAreRefused();
    void messageBoxShowsTheError();
    void textFromFilesIsEscapedAndCut();

private:
    QTemporaryDir m_dir;
    std::vector<Hostile> m_hostile;
};

void TstOpenHostileFiles::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_hostile.push_back({"1e400",
                         writeFile(m_dir, "big-number.json",
                                   "{\"format\": \"remat-model/1\", \"name\": \"n\", \"input\": "
                                   "{\"shape\": [8]}, \"layers\": [{\"kind\": \"linear\", "
                                   "\"out\": 1e400}, {\"kind\": \"mse\"}]}"),
                         "double"});
    const QString device = writeFile(
        m_dir, "device.json",
        "{\"format\": \"remat-device/1\", \"id\": \"x\", \"name\": \"x\", \"memory_bytes\": "
        "42949672960, \"peak_flops\": {\"fp32\": 1.95e13, \"tf32\": 1.56e14, \"bf16\": 3.12e14, \"fp16\": 3.12e14}, \"fp32_matmul\": 1, "
        "\"memory_bandwidth_bytes_per_s\": 1.555e12, \"launch_overhead_s\": 5e-6, "
        "\"reserve_bytes\": 1073741824, \"gemm_workspace_bytes\": 8519680}");
    auto mlp = loadModel("mlp-3x1024");
    QVERIFY(mlp);
    mlp->device = device.toStdString();
    m_hostile.push_back({"device field of the wrong type",
                         writeFile(m_dir, "wrong-device.json",
                                   QByteArray::fromStdString(modelToJson(*mlp))),
                         "fp32_matmul"});
    m_hostile.push_back({"nesting 50000",
                         writeFile(m_dir, "deep.json",
                                   "{\"format\": \"remat-model/1\", \"layers\": " +
                                       QByteArray(50000, '[') + QByteArray(50000, ']') + "}"),
                         "deeper"});
    m_hostile.push_back({"/dev/zero", "/dev/zero", "regular"});
    const QString fifo = m_dir.filePath("fifo.json");
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    m_hostile.push_back({"FIFO", fifo, "regular"});
    const QString folder = m_dir.filePath("folder.json");
    QVERIFY(QDir().mkpath(folder));
    m_hostile.push_back({"directory", folder, "directory"});
}

void TstOpenHostileFiles::everyBadFileIsRefusedAndNothingIsLost() {
    QFile listing(QStringLiteral(REMAT_TEST_DATA_DIR "/bad/expected.tsv"));
    QVERIFY(listing.open(QIODevice::ReadOnly | QIODevice::Text));
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel("gpt2-tiny"));
    QVERIFY(w.document()->setMicroBatch(3).ok());  // unsaved work that must survive
    const ModelFile before = w.document()->model();
    int files = 0;
    while (!listing.atEnd()) {
        const QString line = QString::fromUtf8(listing.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith('#')) continue;
        const QStringList parts = line.split('\t');
        QVERIFY2(parts.size() >= 2, qPrintable(line));
        const QString path = QStringLiteral(REMAT_TEST_DATA_DIR "/bad/") + parts[0];
        QVERIFY2(!w.openModel(path), qPrintable(path));
        QVERIFY2(w.lastError().contains(parts[1]), qPrintable(w.lastError()));
        QVERIFY2(w.lastError().contains(parts[0]), qPrintable(w.lastError()));
        QVERIFY(w.document()->model() == before);
        QVERIFY(w.document()->isModified());
        ++files;
    }
    QVERIFY(files > 50);
    // Still usable: an edit works and undoes.
    QVERIFY(w.document()->toggleRegion(RegionSpec{false, 1, 1, ""}).ok());
    w.document()->undoStack()->undo();
    QVERIFY(w.document()->model() == before);
}

void TstOpenHostileFiles::hostileFilesAreRefused() {
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel("mlp-3x1024"));
    const ModelFile before = w.document()->model();
    for (const Hostile& h : m_hostile) {
        QVERIFY2(!w.openModel(h.path), qPrintable(h.name));
        QVERIFY2(w.lastError().contains(h.expected, Qt::CaseInsensitive),
                 qPrintable(h.name + ": " + w.lastError()));
        // One message, not a dump of the file.
        QVERIFY2(w.lastError().size() < 1000, qPrintable(h.name));
        QVERIFY(w.document()->model() == before);
        QVERIFY(!w.document()->isModified());
    }
}

void TstOpenHostileFiles::droppedBadFilesAreRefused() {
    MainWindow w(test::testOptions());
    QVERIFY(test::showAt(w, QSize(1200, 800)));
    QVERIFY(w.openModel("mlp-3x1024"));
    const ModelFile before = w.document()->model();
    std::vector<QString> paths = {QStringLiteral(REMAT_TEST_DATA_DIR "/bad/truncated.json"),
                                  QStringLiteral(REMAT_TEST_DATA_DIR "/bad/out_overflow.json")};
    // The window takes drags of .json files only (/dev/zero goes through File → Open, above).
    for (const Hostile& h : m_hostile)
        if (h.path.endsWith(QLatin1String(".json"))) paths.push_back(h.path);
    for (const QString& path : paths) {
        drop(w, path);
        QTRY_VERIFY2(!w.lastError().isEmpty() && w.lastError().contains(QFileInfo(path).fileName()),
                     qPrintable(path + ": " + w.lastError()));
        QVERIFY(w.document()->model() == before);
        QVERIFY(!w.document()->isModified());
        QVERIFY(!w.statusBar()->currentMessage().isEmpty());
    }
    // A good file dropped after all that opens.
    const QString good = writeFile(m_dir, "good.json",
                                   QByteArray::fromStdString(modelToJson(*loadModel("gpt2-tiny"))));
    drop(w, good);
    QTRY_COMPARE(w.document()->filePath(), QFileInfo(good).absoluteFilePath());
}

void TstOpenHostileFiles::messageBoxShowsTheError() {
    MainWindow::Options o = test::testOptions();
    o.interactive = true;
    MainWindow w(o);
    QVERIFY(test::showAt(w, QSize(1200, 800)));
    QVERIFY(w.openModel("mlp-3x1024"));
    const ModelFile before = w.document()->model();
    QString boxText;
    QTimer::singleShot(0, this, [&] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        boxText = box->text();
        box->accept();
    });
    QVERIFY(!w.openModel(QStringLiteral(REMAT_TEST_DATA_DIR "/bad/out_zero.json")));
    QVERIFY2(boxText.contains("out_zero.json"), qPrintable(boxText));
    QVERIFY(boxText.contains("the current one is unchanged"));
    QVERIFY(w.document()->model() == before);
}

void TstOpenHostileFiles::textFromFilesIsEscapedAndCut() {
    // Control characters in names (within the format's 256 bytes) reach the screen escaped.
    auto m = loadModel("mlp-3x1024");
    QVERIFY(m);
    m->network.name = "evil\x1b]0;retitled\x07name";
    m->network.layers[0].name = "layer\x1b[2J";
    const QString path = writeFile(m_dir, "escapes.json", QByteArray::fromStdString(modelToJson(*m)));
    MainWindow w(test::testOptions());
    QVERIFY(w.openModel(path));
    QVERIFY(!w.windowTitle().contains(QChar(0x1b)));
    const QString row = w.layerStack()->model()->data(w.layerStack()->model()->indexForEntry(0))
                            .toString();
    QVERIFY2(row.contains("layer\\x1b[2J"), qPrintable(row));
    QVERIFY(!row.contains(QChar(0x1b)));
    // A name typed in the inspector: escaped in the title too.
    QVERIFY(w.openModel("mlp-3x1024"));
    QVERIFY(w.document()->setNetworkName(QStringLiteral("n\x07me")).ok());
    QVERIFY2(w.windowTitle().startsWith(QStringLiteral("n\\x07me")), qPrintable(w.windowTitle()));

    // A name far beyond the format's limit is refused as an edit (it could not be saved and
    // reopened); one at the limit is shown cut.
    const QString huge(5 * 1000 * 1000, QLatin1Char('x'));
    QVERIFY(!w.document()->setNetworkName(huge).ok());
    QVERIFY(w.lastError().size() < 500);
    QVERIFY(w.document()->setNetworkName(QString(256, QLatin1Char('y'))).ok());
    QVERIFY2(w.windowTitle().size() < 160, qPrintable(w.windowTitle()));
    QVERIFY(w.windowTitle().contains(QStringLiteral("(256 bytes)")));
    // The display helpers cut a 5 MB text without converting all of it.
    const QString shown = printableText(huge);
    QVERIFY(shown.size() < 120);
    QVERIFY2(shown.endsWith(QStringLiteral("(5000000 characters)")), qPrintable(shown));
    QVERIFY(printableText(std::string(5000000, 'z')).size() < 120);
}

QTEST_MAIN(TstOpenHostileFiles)
#include "tst_open_hostile_files.moc"
