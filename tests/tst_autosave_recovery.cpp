// Autosave and crash recovery under hostile conditions. An autosave that cannot be read — broken
// JSON, a number beyond double range, nesting 50,000 deep, a device profile with a field of the
// wrong type reached through the model's "device" key, a model the simulator refuses, a 20 MB
// file, a FIFO, a directory — never crashes or blocks the start and is never deleted: it is
// moved into unreadable/ and the user is told where. A real remat-studio process killed with
// SIGKILL while it holds unsaved work is offered that work back at the next start (its stale
// lock blocks nothing); one ended with SIGTERM writes its work first and keeps it.
#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QMessageBox>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sys/stat.h>

#include "autosave.h"
#include "document.h"
#include "main_window.h"
#include "model_file.h"
#include "ui_test_support.h"

using namespace remat;
using namespace remat::ui;

namespace {

// The files of an autosave a dead session left behind: its model text (or nothing, when the
// caller makes the path some other kind of file), its source path and a lock naming a process
// that does not exist.
void plantOrphan(const QString& dir, const QString& name, const QByteArray* model,
                 const QByteArray& source = {}, qint64 lockPid = 2147483646) {
    const QString base = dir + QLatin1Char('/') + name;
    if (model) {
        QFile f(base + QStringLiteral(".json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(*model);
    }
    QFile s(base + QStringLiteral(".source"));
    QVERIFY(s.open(QIODevice::WriteOnly));
    s.write(source);
    QFile lock(base + QStringLiteral(".lock"));
    QVERIFY(lock.open(QIODevice::WriteOnly));
    lock.write(QByteArray::number(lockPid) + "\nremat-studio\n" +
               QSysInfo::machineHostName().toUtf8() + "\n");
}

QByteArray mlpWithMicroBatch(std::int64_t microBatch) {
    auto m = loadModel("mlp-3x1024");
    if (!m) qFatal("%s", m.error().message.c_str());
    m->training.microBatch = microBatch;
    return QByteArray::fromStdString(modelToJson(*m));
}

MainWindow::Options recoveryOptions(const QString& dir) {
    MainWindow::Options o = test::testOptions();
    o.autosave = true;
    o.autosaveDirectory = dir;
    return o;
}

QStringList autosavesOf(const QString& dir, qint64 pid) {
    return QDir(dir).entryList({QStringLiteral("autosave-%1-*.json").arg(pid)}, QDir::Files);
}

}  // namespace

class TstAutosaveRecovery : public QObject {
    Q_OBJECT
private slots:
    void unreadableAutosaveIsMovedAsideNotDeleted_data();
    void unreadableAutosaveIsMovedAsideNotDeleted();
    void unreadableAutosaveIsToldInAMessageBox();
    void readableAutosaveIsRecoveredAndWrittenAgain();
    void lockWithThisProcessPidFromAnEarlierSessionIsStale();
    void flushForRecoveryKeepsTheWork();
    void killedStudioOffersTheWorkBack();
};

void TstAutosaveRecovery::unreadableAutosaveIsMovedAsideNotDeleted_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("kind");  // "text", "fifo", "directory", "big"
    QTest::addColumn<QString>("expected");  // a part of the message
    QTest::newRow("malformed JSON") << QByteArray("{\"format\": \"remat-model/1\", ") << "text"
                                    << "JSON";
    QTest::newRow("1e400") << QByteArray(
                                  "{\"format\": \"remat-model/1\", \"training\": {\"micro_batch\": "
                                  "1e400}}")
                           << "text"
                           << "";
    QTest::newRow("nesting 50000") << QByteArray(50000, '[') + QByteArray(50000, ']') << "text"
                                   << "deep";
    QTest::newRow("refused by the simulator")
        << QByteArray("{\"format\": \"remat-model/1\", \"name\": \"x\", \"input\": {\"shape\": "
                      "[8]}, \"layers\": [{\"kind\": \"linear\", \"out\": 0}, {\"kind\": "
                      "\"mse\"}]}")
        << "text"
        << "";
    QTest::newRow("device field of the wrong type") << QByteArray() << "device"
                                                    << "fp32_matmul";
    QTest::newRow("20 MB") << QByteArray() << "big"
                           << "";
    QTest::newRow("FIFO") << QByteArray() << "fifo"
                          << "regular";
    QTest::newRow("directory") << QByteArray() << "directory"
                               << "";
}

void TstAutosaveRecovery::unreadableAutosaveIsMovedAsideNotDeleted() {
    QFETCH(QByteArray, content);
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath("autosave-1-1.json");
    if (kind == "text") {
        plantOrphan(dir.path(), "autosave-1-1", &content, "/tmp/source.json");
    } else if (kind == "device") {
        // The model is fine; the device profile it names has a field of the wrong type.
        QFile device(dir.filePath("device.json"));
        QVERIFY(device.open(QIODevice::WriteOnly));
        device.write(
            "{\"format\": \"remat-device/1\", \"id\": \"x\", \"name\": \"x\", \"memory_bytes\": "
            "42949672960, \"peak_flops\": {\"fp32\": 1.95e13, \"tf32\": 1.56e14, \"bf16\": 3.12e14, \"fp16\": 3.12e14}, \"fp32_matmul\": 1, "
            "\"memory_bandwidth_bytes_per_s\": 1.555e12, \"launch_overhead_s\": 5e-6, "
            "\"reserve_bytes\": 1073741824, \"gemm_workspace_bytes\": 8519680}");
        device.close();
        auto m = loadModel("mlp-3x1024");
        QVERIFY(m);
        m->device = dir.filePath("device.json").toStdString();
        const QByteArray text = QByteArray::fromStdString(modelToJson(*m));
        plantOrphan(dir.path(), "autosave-1-1", &text);
    } else if (kind == "big") {
        // Valid JSON, but larger than any model file: refused by size before it is read.
        QByteArray big = "{\"format\": \"remat-model/1\", \"description\": \"";
        big += QByteArray(20 << 20, 'x');
        big += "\"}";
        plantOrphan(dir.path(), "autosave-1-1", &big);
    } else if (kind == "fifo") {
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        plantOrphan(dir.path(), "autosave-1-1", nullptr);
    } else if (kind == "directory") {
        QVERIFY(QDir().mkpath(path));
        plantOrphan(dir.path(), "autosave-1-1", nullptr);
    }
    MainWindow w(recoveryOptions(dir.path()));
    QVERIFY(w.openModel("gpt2-tiny"));
    const ModelFile before = w.document()->model();
    QVERIFY(!w.recoverLostWork(false));
    // Nothing changed, nothing was lost: the file sits in unreadable/, the user was told where.
    QVERIFY(w.document()->model() == before);
    QVERIFY(!w.document()->isModified());
    QVERIFY(!QFileInfo::exists(path) && !QFileInfo(path).isSymLink());
    const QStringList moved =
        QDir(dir.filePath("unreadable")).entryList({"*autosave-1-1.json"}, QDir::AllEntries |
                                                                              QDir::System);
    QCOMPARE(moved.size(), qsizetype(1));
    QCOMPARE(w.recoveryNotes().size(), qsizetype(1));
    const QString note = w.recoveryNotes().front();
    QVERIFY2(note.contains(dir.filePath("unreadable/") + moved.front()), qPrintable(note));
    QVERIFY2(note.contains(expected, Qt::CaseInsensitive), qPrintable(note));
    QVERIFY(!QFileInfo::exists(dir.filePath("autosave-1-1.lock")));
    if (kind == "text")
        QVERIFY(QFileInfo::exists(
            dir.filePath("unreadable/") +
            QString(moved.front()).replace(QLatin1String(".json"), QLatin1String(".source"))));
    // The next start finds nothing to recover and nothing to complain about.
    QVERIFY(Autosaver::findOrphans(dir.path()).empty());
    // The window still works.
    QVERIFY(w.document()->toggleRegion(RegionSpec{false, 1, 1, ""}).ok());
}

void TstAutosaveRecovery::unreadableAutosaveIsToldInAMessageBox() {
    QTemporaryDir dir;
    const QByteArray broken = "{\"format\": \"remat-model/1\", \"name\": \"\x1b]0;pwned\x07\", ";
    plantOrphan(dir.path(), "autosave-1-1", &broken);
    MainWindow::Options o = recoveryOptions(dir.path());
    o.interactive = true;
    MainWindow w(o);
    QVERIFY(test::showAt(w, QSize(1200, 800)));
    QString boxText;
    QTimer::singleShot(0, this, [&] {
        QTRY_VERIFY(QApplication::activeModalWidget() != nullptr);
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        boxText = box->text();
        const QByteArray shots = qgetenv("REMAT_SCREENSHOT_DIR");
        if (!shots.isEmpty())
            box->grab().save(QString::fromLocal8Bit(shots) + "/recovery-unreadable-autosave.png");
        box->accept();
    });
    QVERIFY(!w.recoverLostWork(true));
    QVERIFY2(boxText.contains("unreadable/"), qPrintable(boxText));
    QVERIFY(boxText.contains("kept, not deleted"));
    QVERIFY(!boxText.contains(QChar(0x1b)));  // nothing from the file reaches the screen raw
}

void TstAutosaveRecovery::readableAutosaveIsRecoveredAndWrittenAgain() {
    QTemporaryDir dir;
    const QByteArray text = mlpWithMicroBatch(3);
    plantOrphan(dir.path(), "autosave-1-1", &text, dir.filePath("mine.json").toUtf8());
    MainWindow w(recoveryOptions(dir.path()));
    QVERIFY(w.recoverLostWork(false));
    QCOMPARE(w.document()->model().training.microBatch, std::int64_t(3));
    QVERIFY(w.document()->isModified());
    QCOMPARE(w.document()->filePath(), dir.filePath("mine.json"));
    // The old copy is gone only because this session wrote the work again.
    QVERIFY(!QFileInfo::exists(dir.filePath("autosave-1-1.json")));
    QVERIFY(QFileInfo::exists(w.autosaver()->autosavePath()));
    auto again = loadModel(w.autosaver()->autosavePath().toStdString());
    QVERIFY(again);
    QVERIFY(*again == w.document()->model());
    QVERIFY(w.recoveryNotes().isEmpty());
}

// In a container pids restart from 1: the crashed session may have had this process's pid.
void TstAutosaveRecovery::lockWithThisProcessPidFromAnEarlierSessionIsStale() {
    QTemporaryDir dir;
    const QByteArray text = mlpWithMicroBatch(5);
    plantOrphan(dir.path(), "autosave-1-1", &text, {}, QCoreApplication::applicationPid());
    const auto orphans = Autosaver::findOrphans(dir.path());
    QCOMPARE(orphans.size(), std::size_t(1));
    // This process's own live autosave is never an orphan.
    Document doc;
    Autosaver mine(&doc, dir.path());
    QVERIFY(doc.setMicroBatch(2).ok());
    QVERIFY(mine.saveNow());
    const auto again = Autosaver::findOrphans(dir.path());
    QCOMPARE(again.size(), std::size_t(1));
    QCOMPARE(again[0].modelPath, orphans[0].modelPath);
}

void TstAutosaveRecovery::flushForRecoveryKeepsTheWork() {
    QTemporaryDir dir;
    QString path;
    {
        Document doc;
        QVERIFY(doc.open("mlp-3x1024").ok());
        Autosaver autosaver(&doc, dir.path());
        QVERIFY(doc.setMicroBatch(7).ok());
        path = autosaver.autosavePath();
        QVERIFY(!QFileInfo::exists(path));  // the 30 s timer has not fired
        autosaver.flushForRecovery();
        QVERIFY(QFileInfo::exists(path));
        autosaver.discard();  // a close after termination discards nothing
        QVERIFY(QFileInfo::exists(path));
    }
    const auto orphans = Autosaver::findOrphans(dir.path());
    QCOMPARE(orphans.size(), std::size_t(1));
    QCOMPARE(orphans[0].modelPath, path);
    auto m = loadModel(path.toStdString());
    QVERIFY(m);
    QCOMPARE(m->training.microBatch, std::int64_t(7));
}

// The real app, as a user's session ends: killed outright (SIGKILL: nothing runs, the lock file
// stays behind naming a dead process), then ended politely (SIGTERM: the work is written and
// kept). Each next start recovers the work (`--recover` answers the question a person would).
void TstAutosaveRecovery::killedStudioOffersTheWorkBack() {
#ifndef REMAT_STUDIO_PATH
    QSKIP("remat-studio is not part of this build");
#else
    QTemporaryDir dir, home;
    const QString autosaves = dir.filePath("autosave");
    QVERIFY(QDir().mkpath(autosaves));
    const QByteArray text = mlpWithMicroBatch(3);
    plantOrphan(autosaves, "autosave-1-1", &text, "/tmp/lecture.json");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", home.filePath("config"));
    env.insert("XDG_DATA_HOME", home.filePath("data"));
    // In the sanitizer build the child's exit status must be its own, not LeakSanitizer's
    // verdict on the process-lifetime pools an app keeps to its end (the tests of the units
    // check leaks).
    const QString asan = env.value("ASAN_OPTIONS");
    env.insert("ASAN_OPTIONS", asan + (asan.isEmpty() ? "" : ":") + "detect_leaks=0");
    const QStringList args = {"mlp-3x1024", "--autosave-dir", autosaves, "--recover"};
    auto start = [&](QProcess& p) {
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QStringLiteral(REMAT_STUDIO_PATH), args);
        return p.waitForStarted(30000);
    };
    auto microBatchIn = [](const QString& path) -> std::int64_t {
        auto m = loadModel(path.toStdString());
        return m ? m->training.microBatch : -1;
    };

    // 1. The first start recovers the planted work and writes it under its own name at once.
    QProcess first;
    QVERIFY(start(first));
    QTRY_VERIFY_WITH_TIMEOUT(autosavesOf(autosaves, first.processId()).size() == 1, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(autosaves + "/autosave-1-1.json"), 30000);
    const QString firstSave = autosaves + "/" + autosavesOf(autosaves, first.processId()).front();
    QCOMPARE(microBatchIn(firstSave), std::int64_t(3));
    // 2. SIGKILL: no handler runs; the files and the lock stay.
    ::kill(pid_t(first.processId()), SIGKILL);
    QVERIFY(first.waitForFinished(30000));
    QCOMPARE(first.exitStatus(), QProcess::CrashExit);
    QVERIFY(QFileInfo::exists(firstSave));
    QVERIFY(QFileInfo::exists(QString(firstSave).replace(".json", ".lock")));

    // 3. The next start is not blocked by the stale lock: the work comes back.
    QProcess second;
    QVERIFY(start(second));
    QTRY_VERIFY_WITH_TIMEOUT(autosavesOf(autosaves, second.processId()).size() == 1, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(firstSave), 30000);
    const QString secondSave =
        autosaves + "/" + autosavesOf(autosaves, second.processId()).front();
    QCOMPARE(microBatchIn(secondSave), std::int64_t(3));
    QFile source(QString(secondSave).replace(".json", ".source"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QCOMPARE(source.readAll(), QByteArray("/tmp/lecture.json"));
    source.close();

    // 4. SIGTERM: the app writes the work, keeps it, releases its lock and exits 0.
    ::kill(pid_t(second.processId()), SIGTERM);
    QVERIFY(second.waitForFinished(60000));
    QCOMPARE(second.exitStatus(), QProcess::NormalExit);
    QCOMPARE(second.exitCode(), 0);
    QVERIFY(QFileInfo::exists(secondSave));
    QVERIFY(!QFileInfo::exists(QString(secondSave).replace(".json", ".lock")));
    QCOMPARE(Autosaver::findOrphans(autosaves).size(), std::size_t(1));

    // 5. And once more: the work is offered back after SIGTERM too.
    QProcess third;
    QVERIFY(start(third));
    QTRY_VERIFY_WITH_TIMEOUT(autosavesOf(autosaves, third.processId()).size() == 1, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(secondSave), 30000);
    QCOMPARE(microBatchIn(autosaves + "/" + autosavesOf(autosaves, third.processId()).front()),
             std::int64_t(3));
    ::kill(pid_t(third.processId()), SIGTERM);
    QVERIFY(third.waitForFinished(60000));
    QCOMPARE(third.exitCode(), 0);
    // Nothing was ever moved aside: every copy was readable.
    QVERIFY(!QFileInfo::exists(autosaves + "/unreadable"));
#endif
}

QTEST_MAIN(TstAutosaveRecovery)
#include "tst_autosave_recovery.moc"
