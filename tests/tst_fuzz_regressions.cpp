// The inputs the fuzz targets (tests/fuzz, docs/reliability.md) found crashing, hanging or
// breaking a contract, replayed through the built `remat` binary: each must now end with exit 2
// and a first stderr line "remat: ..." that contains the expected text (the file and the JSON
// path or flag of the bad value), in printable characters, without a signal or "internal
// error" — or, where the input is valid, exit 0. The cases are listed in
// tests/fuzz/expected_messages.tsv; every file of tests/data/bad/fuzz/ must be listed there.
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <set>

namespace {

const QString kCli = QStringLiteral(REMAT_CLI_PATH);
const QString kDataDir = QStringLiteral(REMAT_TEST_DATA_DIR);
const QString kManifest = QStringLiteral(REMAT_SOURCE_DIR) + "/tests/fuzz/expected_messages.tsv";
// A reproducer is refused before any real work; the limit only keeps a regression from
// hanging the suite.
constexpr int kTimeoutMs = 120000;
// What the manifest's third column says for a reproducer that is a valid input.
const QString kAccepted = QStringLiteral("(accepted)");

struct Case {
    QString file;     // in tests/data/bad/fuzz/
    QString command;  // arguments, "{}" standing for the file; "@lines": the file's lines
    QString expected;
};

// tests/fuzz/expected_messages.tsv: `file<TAB>command<TAB>expected`, '#' comments.
std::vector<Case> readManifest(QString* error) {
    std::vector<Case> out;
    QFile f(kManifest);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        *error = kManifest + ": cannot read";
        return out;
    }
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith('#')) continue;
        const QStringList parts = line.split('\t');
        if (parts.size() != 3 || parts[2].isEmpty()) {
            *error = "malformed manifest line: " + line;
            return out;
        }
        out.push_back({parts[0], parts[1], parts[2]});
    }
    return out;
}

QStringList argumentsFor(const Case& c, const QString& path) {
    if (c.command == "@lines") {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return {};
        QStringList args = QString::fromUtf8(f.readAll()).split('\n');
        if (!args.isEmpty() && args.last().isEmpty()) args.removeLast();
        return args;
    }
    QStringList args = c.command.split(' ', Qt::SkipEmptyParts);
    for (QString& a : args)
        if (a == "{}") a = path;
    return args;
}

bool printableText(const QByteArray& bytes) {
    for (char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 && c != '\n' && c != '\t') return false;
        if (c == 0x7f) return false;
    }
    return true;
}

}  // namespace

class TstFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void reproducer_data();
    void reproducer();
    void everyReproducerIsListed();
};

void TstFuzzRegressions::reproducer_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("expected");
    QString error;
    const auto cases = readManifest(&error);
    if (!error.isEmpty()) QTest::newRow("manifest") << QString() << QString() << error;
    for (const Case& c : cases)
        QTest::newRow(c.file.toUtf8().constData()) << c.file << c.command << c.expected;
}

void TstFuzzRegressions::reproducer() {
    QFETCH(QString, file);
    QFETCH(QString, command);
    QFETCH(QString, expected);
    QVERIFY2(!file.isEmpty(), qPrintable(expected));
    const QString path = kDataDir + "/bad/fuzz/" + file;
    QVERIFY2(QFile::exists(path), qPrintable(path + " is listed but missing"));
    const QStringList args = argumentsFor({file, command, expected}, path);
    QVERIFY2(!args.isEmpty(), qPrintable(path + ": no arguments"));

    QProcess p;
    p.setWorkingDirectory(QStringLiteral(REMAT_SOURCE_DIR));
    p.start(kCli, args);
    const bool finished = p.waitForStarted(kTimeoutMs) && p.waitForFinished(kTimeoutMs);
    if (!finished) p.kill();
    const QByteArray err = p.readAllStandardError();
    const QByteArray out = p.readAllStandardOutput();
    const QString what = "remat " + args.join(' ').left(400) + "\nexit " +
                         QString::number(p.exitCode()) + "\nstderr: " +
                         QString::fromUtf8(err.left(2000));
    QVERIFY2(finished, qPrintable("did not finish: " + what));
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, qPrintable("crashed: " + what));
    QVERIFY2(!err.contains("internal error"), qPrintable(what));
    QVERIFY2(printableText(err) && printableText(out), qPrintable("control characters: " + what));
    if (expected == kAccepted) {
        QVERIFY2(p.exitCode() == 0, qPrintable(what));
        return;
    }
    QVERIFY2(p.exitCode() == 2, qPrintable(what));
    const QString firstLine = QString::fromUtf8(err).section('\n', 0, 0);
    QVERIFY2(firstLine.startsWith("remat: "), qPrintable(what));
    QVERIFY2(firstLine.contains(expected), qPrintable("expected to contain: " + expected + "\n" + what));
}

void TstFuzzRegressions::everyReproducerIsListed() {
    QString error;
    const auto cases = readManifest(&error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    std::set<QString> listed;
    for (const Case& c : cases) QVERIFY2(listed.insert(c.file).second, qPrintable(c.file + " twice"));
    const QStringList files = QDir(kDataDir + "/bad/fuzz").entryList(QDir::Files);
    for (const QString& f : files) QVERIFY2(listed.count(f), qPrintable(f + " is not in " + kManifest));
    QCOMPARE(listed.size(), std::size_t(files.size()));
}

QTEST_GUILESS_MAIN(TstFuzzRegressions)
#include "tst_fuzz_regressions.moc"
