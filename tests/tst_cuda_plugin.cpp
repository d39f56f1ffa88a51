// The CUDA executor as a plugin (gpu/cuda_plugin.h): the programs link no CUDA, Qt or BLAS
// library they do not need (their ELF dependencies, read with readelf), `remat --version` and
// `remat simulate` load none at run time (the dynamic loader's own list, LD_DEBUG=files), the
// plugin is mapped only once a CUDA backend is asked for (/proc/self/maps), and a missing or
// broken plugin is a user error: exit code 2 and one line "CUDA backend unavailable: <reason>".
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "backends.h"
#include "cuda_plugin.h"

namespace {

// Libraries a program that only simulates must not pull in.
const QRegularExpression kHeavy(QStringLiteral("cublas|cudart|libcuda\\.|libnvidia|remat_cuda"));
// The plugin and the CUDA libraries it brings (not the driver's own library).
const QRegularExpression kCudaLibraries(QStringLiteral("cublas|cudart|remat_cuda"));

struct Output {
    int exitCode = -1;
    QByteArray out, err;
};

Output run(const QString& program, const QStringList& args,
           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(120000)) qFatal("%s did not finish", qPrintable(program));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// The DT_NEEDED entries of an ELF file.
QStringList neededLibraries(const QString& file) {
    const Output o = run(QStringLiteral("readelf"), {QStringLiteral("-d"), file});
    if (o.exitCode != 0) qFatal("readelf -d %s failed: %s", qPrintable(file), o.err.constData());
    QStringList needed;
    static const QRegularExpression re(
        QStringLiteral("\\(NEEDED\\)\\s+Shared library: \\[([^\\]]+)\\]"));
    for (auto it = re.globalMatch(QString::fromUtf8(o.out)); it.hasNext();)
        needed << it.next().captured(1);
    return needed;
}

// Every shared object the dynamic loader opened, from its LD_DEBUG=files report.
QStringList filesOpened(const QByteArray& ldDebugReport) {
    QStringList files;
    static const QRegularExpression re(
        QStringLiteral("file=(\\S+)\\s+\\[\\d+\\];\\s+(needed|dynamically loaded)"));
    for (auto it = re.globalMatch(QString::fromUtf8(ldDebugReport)); it.hasNext();)
        files << it.next().captured(1);
    return files;
}

// Every shared object the dynamic loader opened while running `remat args`.
QStringList loadedLibraries(const QStringList& args, Output* output) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("files"));
    *output = run(QStringLiteral(REMAT_CLI_PATH), args, env);
    return filesOpened(output->err);
}

QString mappedFiles() {
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly)) qFatal("cannot read /proc/self/maps");
    return QString::fromUtf8(maps.readAll());
}

}  // namespace

class TestCudaPlugin : public QObject {
    Q_OBJECT

private slots:
    void cliLinksNoCudaQtOrBlas();
    void studioLinksNoCuda();
    void studioStartsWithoutCudaWithoutDriver();
    void versionAndSimulateLoadNothingHeavy();
    void pluginMappedOnlyWhenCudaIsAskedFor();
    void missingPluginIsUserError();
    void brokenPluginIsUserError();
    void moduleWithoutEntryPointsIsRefused();
};

void TestCudaPlugin::cliLinksNoCudaQtOrBlas() {
    const QStringList needed = neededLibraries(QStringLiteral(REMAT_CLI_PATH));
    // The parse works: every program needs the C library.
    QVERIFY2(needed.contains(QStringLiteral("libc.so.6")), qPrintable(needed.join(' ')));
    for (const QString& lib : needed) {
        QVERIFY2(!kHeavy.match(lib).hasMatch(), qPrintable("remat needs " + lib));
        QVERIFY2(!lib.startsWith(QStringLiteral("libQt")), qPrintable("remat needs " + lib));
        QVERIFY2(!lib.contains(QStringLiteral("blas")), qPrintable("remat needs " + lib));
    }
}

void TestCudaPlugin::studioLinksNoCuda() {
#ifndef REMAT_STUDIO_PATH
    QSKIP("this build has no remat-studio");
#else
    const QStringList needed = neededLibraries(QStringLiteral(REMAT_STUDIO_PATH));
    QVERIFY2(needed.contains(QStringLiteral("libQt6Widgets.so.6")), qPrintable(needed.join(' ')));
    for (const QString& lib : needed) {
        QVERIFY2(!kHeavy.match(lib).hasMatch(), qPrintable("remat-studio needs " + lib));
        QVERIFY2(!lib.contains(QStringLiteral("blas")), qPrintable("remat-studio needs " + lib));
    }
#endif
}

void TestCudaPlugin::studioStartsWithoutCudaWithoutDriver() {
#ifndef REMAT_STUDIO_PATH
    QSKIP("this build has no remat-studio");
#else
    // With a driver the run panel's background check loads the plugin, as it should.
    if (remat::cudaDriverMissingReason().empty()) QSKIP("an NVIDIA driver is installed");
    QTemporaryDir dir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("files"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const QString shot = dir.filePath(QStringLiteral("shot.png"));
    const Output o = run(QStringLiteral(REMAT_STUDIO_PATH),
                         {QStringLiteral("--screenshot"), shot, QStringLiteral("--autosave-dir"),
                          dir.filePath(QStringLiteral("autosave"))},
                         env);
    QCOMPARE(o.exitCode, 0);
    QVERIFY(QFile::exists(shot));
    const QStringList loaded = filesOpened(o.err);
    QVERIFY2(loaded.contains(QRegularExpression(QStringLiteral(".*libQt6Widgets\\.so.*"))),
             o.err.left(2000).constData());
    // The run panel's driver check looks for libcuda.so.1 (and finds none); nothing else.
    for (const QString& f : loaded)
        QVERIFY2(!kCudaLibraries.match(f).hasMatch(), qPrintable("remat-studio loaded " + f));
#endif
}

void TestCudaPlugin::versionAndSimulateLoadNothingHeavy() {
    Output o;
    QStringList loaded = loadedLibraries({QStringLiteral("--version")}, &o);
    QCOMPARE(o.exitCode, 0);
    QCOMPARE(o.out.trimmed(), QByteArray("remat 0.1.0"));
    QVERIFY2(loaded.contains(QRegularExpression(QStringLiteral(".*libc\\.so\\.6"))),
             o.err.left(2000).constData());
    for (const QString& f : loaded) {
        QVERIFY2(!kHeavy.match(f).hasMatch(), qPrintable("remat --version loaded " + f));
        QVERIFY2(!f.contains(QStringLiteral("blas")), qPrintable("remat --version loaded " + f));
    }

    loaded = loadedLibraries(
        {QStringLiteral("simulate"), QStringLiteral("gpt3-175b"), QStringLiteral("--json")}, &o);
    QCOMPARE(o.exitCode, 0);
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(o.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError && doc.isObject(),
             o.out.left(400).constData());
    for (const QString& f : loaded) {
        QVERIFY2(!kHeavy.match(f).hasMatch(), qPrintable("remat simulate loaded " + f));
        QVERIFY2(!f.contains(QStringLiteral("blas")), qPrintable("remat simulate loaded " + f));
    }
}

void TestCudaPlugin::pluginMappedOnlyWhenCudaIsAskedFor() {
    if (qEnvironmentVariableIsSet("REMAT_CUDA_PLUGIN")) QSKIP("REMAT_CUDA_PLUGIN is set");
    QVERIFY2(!kHeavy.match(mappedFiles()).hasMatch(), "CUDA libraries mapped before any backend");
    auto cpu = remat::makeBackend("cpu");
    QVERIFY(cpu.ok());
    QVERIFY2(!kHeavy.match(mappedFiles()).hasMatch(), "the CPU backend mapped CUDA libraries");
    // The GUI's background check loads at most the driver's own library.
    const std::string driver = remat::cudaDriverMissingReason();
    QVERIFY2(!kCudaLibraries.match(mappedFiles()).hasMatch(),
             "the driver check mapped CUDA libraries");
    if (driver.empty()) QVERIFY(mappedFiles().contains(QStringLiteral("libcuda.so")));

    auto cuda = remat::makeBackend("cuda");
    if (!cuda.ok())
        QVERIFY2(cuda.error().message.rfind(remat::kCudaUnavailable, 0) == 0,
                 cuda.error().message.c_str());
#ifdef REMAT_HAVE_CUDA
    // This build makes the plugin: asking for CUDA loads it, whether or not a GPU is there.
    QVERIFY2(QFile::exists(QString::fromStdString(remat::cudaPluginPath())),
             remat::cudaPluginPath().c_str());
    QVERIFY2(mappedFiles().contains(QStringLiteral("/libremat_cuda.so")),
             cuda.ok() ? "" : cuda.error().message.c_str());
#else
    QVERIFY(!cuda.ok());
    QVERIFY2(cuda.error().message.find("this build has no CUDA executor") != std::string::npos,
             cuda.error().message.c_str());
    QVERIFY(!mappedFiles().contains(QStringLiteral("libremat_cuda.so")));
#endif
}

void TestCudaPlugin::missingPluginIsUserError() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("libremat_cuda.so"));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("REMAT_CUDA_PLUGIN"), path);
    for (const QStringList& args : {QStringList{"run", "mlp-3x1024", "--backend", "cuda"},
                                    QStringList{"selftest", "--backend", "cuda"}}) {
        const Output o = run(QStringLiteral(REMAT_CLI_PATH), args, env);
        QCOMPARE(o.exitCode, 2);
        // "remat: " or "remat selftest: ", then the reason.
        static const QRegularExpression line(
            QStringLiteral("^remat( [a-z-]+)?: CUDA backend unavailable: "));
        QVERIFY2(line.match(QString::fromUtf8(o.err)).hasMatch(), o.err.constData());
        QVERIFY2(o.err.contains(path.toUtf8()), o.err.constData());
        QCOMPARE(o.err.count('\n'), 1);
        QVERIFY2(o.out.isEmpty(), o.out.constData());
    }
}

void TestCudaPlugin::brokenPluginIsUserError() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("libremat_cuda.so"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not an ELF file\n");
    f.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("REMAT_CUDA_PLUGIN"), path);
    const Output o =
        run(QStringLiteral(REMAT_CLI_PATH), {"run", "mlp-3x1024", "--backend", "cuda"}, env);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.startsWith("remat: CUDA backend unavailable: could not load the CUDA plugin: "),
             o.err.constData());
    QVERIFY(o.out.isEmpty());
}

void TestCudaPlugin::moduleWithoutEntryPointsIsRefused() {
    // A real shared object that is not our plugin: the C math library this test maps.
    static const QRegularExpression re(QStringLiteral("(/\\S*/libm\\.so\\.6)\\n"));
    const auto m = re.match(mappedFiles());
    if (!m.hasMatch()) QSKIP("libm.so.6 is not mapped by this test");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("REMAT_CUDA_PLUGIN"), m.captured(1));
    const Output o =
        run(QStringLiteral(REMAT_CLI_PATH), {"run", "mlp-3x1024", "--backend", "cuda"}, env);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains("is not a Remat Studio CUDA plugin (no remat_cuda_plugin_tag)"),
             o.err.constData());
}

QTEST_GUILESS_MAIN(TestCudaPlugin)
#include "tst_cuda_plugin.moc"
