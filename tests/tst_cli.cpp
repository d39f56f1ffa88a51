// Tests of the `remat` command line against the contract of DESIGN §6, by running the built
// binary with QProcess: help texts, the comparison table and its agreement with
// `compare --json`, the keys and arithmetic of `simulate --json`, flags overriding the model
// file, and user errors that end with a one-line "remat: ..." on stderr, a non-zero exit and
// no crash.
#include <QtTest/QtTest>

#include <QProcess>
#include <QRegularExpression>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "lower.h"
#include "model_file.h"
#include "report.h"
#include "strategy.h"

using nlohmann::json;
using namespace remat;

namespace {

const QString kCli = QStringLiteral(REMAT_CLI_PATH);
const QString kDataDir = QStringLiteral(REMAT_TEST_DATA_DIR);
constexpr int kTimeoutMs = 120000;

// The category spellings of DESIGN §3, the keys of `breakdown_at_peak`.
const std::set<std::string> kCategoryKeys = {
    "parameters", "gradients",  "optimizer_state", "saved_activations", "recomputed_activations",
    "transient",  "inputs",     "workspace"};

struct RunResult {
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int exitCode = -1;
    QString out;
    QString err;
};

RunResult runRemat(const QStringList& args) {
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(REMAT_SOURCE_DIR));
    p.start(kCli, args);
    RunResult r;
    r.finished = p.waitForStarted(kTimeoutMs) && p.waitForFinished(kTimeoutMs);
    if (!r.finished) p.kill();
    r.status = p.exitStatus();
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString describe(const QStringList& args, const RunResult& r) {
    return "remat " + args.join(' ') + " -> exit " + QString::number(r.exitCode) +
           "\nstdout:\n" + r.out.left(2000) + "\nstderr:\n" + r.err.left(2000);
}

// Runs a command that must succeed and print one JSON document on stdout.
json runJson(const QStringList& args, bool* ok) {
    const RunResult r = runRemat(args);
    *ok = false;
    if (!r.finished || r.status != QProcess::NormalExit || r.exitCode != 0) {
        qWarning("%s", qPrintable(describe(args, r)));
        return {};
    }
    try {
        // parse() rejects trailing text, so this also checks "one JSON document".
        json j = json::parse(r.out.toStdString());
        *ok = true;
        return j;
    } catch (const json::exception& e) {
        qWarning("%s\nnot JSON: %s", qPrintable(describe(args, r)), e.what());
        return {};
    }
}

// Rows of the first text table in `text`: the header line starting with "strategy", a line of
// dashes, then rows until the end or a blank line. Cells are separated by two or more spaces
// (values such as "32.65 MiB" hold single spaces).
struct Table {
    QStringList header;
    std::vector<QStringList> rows;
};

Table parseTable(const QString& text) {
    Table t;
    const QStringList lines = text.split('\n');
    const QRegularExpression sep(QStringLiteral("\\s{2,}"));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (!lines[i].startsWith("strategy")) continue;
        t.header = lines[i].trimmed().split(sep);
        for (qsizetype j = i + 2; j < lines.size() && !lines[j].trimmed().isEmpty(); ++j)
            t.rows.push_back(lines[j].trimmed().split(sep));
        break;
    }
    return t;
}

}  // namespace

class TstCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void help_data();
    void help();
    void compareTable();
    void compareTableMatchesCompareJson();
    void manualPlanOfMlpDoesNotPay();
    void simulateJsonContract_data();
    void simulateJsonContract();
    void compareJsonIsAnArrayOfSimulateObjects();
    void strategyFlagOverridesFilePlan();
    void trainingFlagsOverrideFile();
    void userErrors_data();
    void userErrors();
    void hugeModelIsNotReportedAsFitting();
};

void TstCli::initTestCase() {
    QVERIFY2(QFileInfo(kCli).isExecutable(), qPrintable(kCli + " is not an executable"));
}

void TstCli::help_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mentions");
    QTest::newRow("remat") << QStringList{"--help"} << QStringList{"simulate", "compare"};
    const QStringList common = {"MODEL",     "--micro-batch", "--accum", "--precision",
                                "--optimizer", "--device",    "--json"};
    QTest::newRow("simulate") << QStringList{"simulate", "--help"}
                              << (QStringList(common) << "--strategy");
    QTest::newRow("compare") << QStringList{"compare", "--help"} << common;
}

void TstCli::help() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, mentions);
    const RunResult r = runRemat(args);
    QVERIFY2(r.finished && r.status == QProcess::NormalExit && r.exitCode == 0,
             qPrintable(describe(args, r)));
    for (const QString& m : mentions)
        QVERIFY2(r.out.contains(m), qPrintable(m + " not mentioned in\n" + r.out));
}

void TstCli::compareTable() {
    const QStringList args = {"compare", "mlp-3x1024"};
    const RunResult r = runRemat(args);
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(describe(args, r)));
    const Table t = parseTable(r.out);
    const QStringList columns = {"strategy",  "peak",           "saved vs none",
                                 "recompute overhead", "step time", "largest micro-batch"};
    QVERIFY2(t.header.size() >= columns.size(), qPrintable(r.out));
    for (qsizetype i = 0; i < columns.size(); ++i) QCOMPARE(t.header[i], columns[i]);

    // Every strategy row: the named strategies the simulator offers for this network, with
    // the file's own (manual) plan right after `none` since the preset has per-layer flags.
    auto model = loadModel("mlp-3x1024");
    QVERIFY(model.ok());
    QCOMPARE(model->planForm, PlanForm::PerLayer);
    auto g = lower(model->network, model->training.precision);
    QVERIFY(g.ok());
    QStringList expected;
    for (const Strategy& s : comparisonStrategies(*g))
        expected << QString::fromStdString(s.spelling());
    QCOMPARE(expected.first(), QStringLiteral("none"));
    expected.insert(1, QStringLiteral("manual"));
    for (const char* must : {"none", "manual", "full", "sqrt"}) QVERIFY(expected.contains(must));

    QStringList rows;
    for (const QStringList& row : t.rows) {
        QCOMPARE(row.size(), t.header.size());
        rows << row.first();
    }
    QCOMPARE(rows, expected);
}

void TstCli::compareTableMatchesCompareJson() {
    const RunResult text = runRemat({"compare", "mlp-3x1024"});
    QVERIFY(text.finished && text.exitCode == 0);
    const Table t = parseTable(text.out);
    bool ok = false;
    const json all = runJson({"compare", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(all.is_array());
    QCOMPARE(t.rows.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const json& e = all[i];
        const QStringList& row = t.rows[i];
        QCOMPARE(row[0], QString::fromStdString(e.at("strategy").get<std::string>()));
        QCOMPARE(row[1], QString::fromStdString(formatBytes(e.at("peak_bytes").get<std::int64_t>())));
        QCOMPARE(row[2],
                 QString::fromStdString(formatPercent(e.at("memory_saved_fraction").get<double>())));
        QCOMPARE(row[3],
                 QString::fromStdString(formatPercent(e.at("recompute_overhead").get<double>())));
        QCOMPARE(row[4],
                 QString::fromStdString(formatSeconds(e.at("time_s").at("total").get<double>())));
        QCOMPARE(row[5], QString::number(e.at("max_micro_batch").get<std::int64_t>()));
    }
}

// The textbook example checkpoints one lone linear: its input must be kept as the region's
// input anyway and its output is the next linear's saved input, so nothing is freed early —
// the peak stays where it was and the recompute is pure cost.
void TstCli::manualPlanOfMlpDoesNotPay() {
    const RunResult text = runRemat({"compare", "mlp-3x1024"});
    QVERIFY(text.finished && text.exitCode == 0);
    const Table t = parseTable(text.out);
    const QStringList* manual = nullptr;
    for (const QStringList& row : t.rows)
        if (row.first() == "manual") manual = &row;
    QVERIFY2(manual, qPrintable(text.out));
    QCOMPARE((*manual)[2], QStringLiteral("0.0%"));
    QVERIFY2((*manual)[3].endsWith('%'), qPrintable((*manual)[3]));
    bool isNumber = false;
    const double overheadPercent = (*manual)[3].chopped(1).toDouble(&isNumber);
    QVERIFY2(isNumber && overheadPercent > 0.0, qPrintable((*manual)[3]));

    bool ok = false;
    const json none = runJson({"simulate", "mlp-3x1024", "--strategy", "none", "--json"}, &ok);
    QVERIFY(ok);
    const json m = runJson({"simulate", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(m.at("strategy").get<std::string>(), std::string("manual"));
    QCOMPARE(m.at("peak_bytes").get<std::int64_t>(), none.at("peak_bytes").get<std::int64_t>());
    QVERIFY(m.at("flops").at("recompute").get<double>() > 0.0);
    QCOMPARE(none.at("flops").at("recompute").get<double>(), 0.0);
    QVERIFY(m.at("recompute_overhead").get<double>() > 0.0);
    QVERIFY(m.at("time_s").at("total").get<double>() > none.at("time_s").at("total").get<double>());
}

void TstCli::simulateJsonContract_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("mlp manual") << QStringList{"simulate", "mlp-3x1024", "--json"};
    QTest::newRow("gpt2-tiny full") << QStringList{"simulate", "gpt2-tiny", "--strategy", "full",
                                                   "--json"};
    QTest::newRow("resnet selective")
        << QStringList{"simulate", "resnet-101", "--strategy", "selective:shortcut", "--json"};
    QTest::newRow("file with regions")
        << QStringList{"simulate", kDataDir + "/good/tokens_every_field.json", "--json"};
}

void TstCli::simulateJsonContract() {
    QFETCH(QStringList, args);
    bool ok = false;
    const json j = runJson(args, &ok);
    QVERIFY(ok);
    QVERIFY(j.is_object());
    for (const char* key : {"peak_bytes", "peak_instruction", "breakdown_at_peak",
                            "saved_activation_bytes", "flops", "time_s", "recompute_overhead",
                            "strategy"})
        QVERIFY2(j.contains(key), key);

    const json& b = j.at("breakdown_at_peak");
    QVERIFY(b.is_object());
    std::set<std::string> keys;
    std::int64_t sum = 0;
    for (const auto& [k, v] : b.items()) {
        keys.insert(k);
        QVERIFY2(v.is_number_integer() && v.get<std::int64_t>() >= 0, k.c_str());
        sum += v.get<std::int64_t>();
    }
    QVERIFY(keys == kCategoryKeys);
    QCOMPARE(sum, j.at("peak_bytes").get<std::int64_t>());
    QVERIFY(j.at("peak_bytes").get<std::int64_t>() > 0);
    QVERIFY(j.at("peak_instruction").is_number_integer());
    QVERIFY(j.at("saved_activation_bytes").get<std::int64_t>() > 0);

    const json& flops = j.at("flops");
    QCOMPARE(flops.size(), std::size_t(3));
    for (const char* k : {"forward", "backward", "recompute"}) {
        QVERIFY2(flops.contains(k) && flops.at(k).is_number(), k);
        QVERIFY(flops.at(k).get<double>() >= 0.0);
    }
    QVERIFY(flops.at("forward").get<double>() > 0.0);

    const json& time = j.at("time_s");
    QCOMPARE(time.size(), std::size_t(5));
    double parts = 0.0;
    for (const char* k : {"forward", "backward", "recompute", "optimizer"}) {
        QVERIFY2(time.contains(k) && time.at(k).is_number(), k);
        parts += time.at(k).get<double>();
    }
    const double total = time.at("total").get<double>();
    QVERIFY(total > 0.0);
    QVERIFY2(std::abs(total - parts) <= 1e-12 * total, qPrintable(QString::number(total - parts)));
    QVERIFY(j.at("recompute_overhead").is_number());
}

// One object per strategy, each the object `simulate --strategy S --json` prints.
void TstCli::compareJsonIsAnArrayOfSimulateObjects() {
    bool ok = false;
    const json all = runJson({"compare", "gpt2-tiny", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(all.is_array());
    QVERIFY(all.size() >= 4);
    std::set<std::string> seen;
    for (const json& e : all) {
        QVERIFY(e.is_object());
        QVERIFY(e.contains("strategy") && e.at("strategy").is_string());
        const std::string s = e.at("strategy").get<std::string>();
        QVERIFY2(seen.insert(s).second, s.c_str());
        const json one = runJson(
            {"simulate", "gpt2-tiny", "--strategy", QString::fromStdString(s), "--json"}, &ok);
        QVERIFY2(ok, s.c_str());
        for (const char* k : {"peak_bytes", "peak_instruction", "breakdown_at_peak",
                              "saved_activation_bytes", "flops", "time_s", "recompute_overhead"})
            QVERIFY2(one.at(k) == e.at(k), (s + ": " + k).c_str());
    }
    QVERIFY(seen.count("none") && seen.count("full"));
}

void TstCli::strategyFlagOverridesFilePlan() {
    bool ok = false;
    // mlp-3x1024 carries per-layer flags: its default is its own (manual) plan, one region.
    const json byFile = runJson({"simulate", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(byFile.at("strategy").get<std::string>(), std::string("manual"));
    QCOMPARE(byFile.at("regions").get<int>(), 1);
    const json none = runJson({"simulate", "mlp-3x1024", "--strategy", "none", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(none.at("strategy").get<std::string>(), std::string("none"));
    QCOMPARE(none.at("regions").get<int>(), 0);
    QCOMPARE(none.at("flops").at("recompute").get<double>(), 0.0);
    // full: each of the three linears (the chain: every layer but the loss) its own region.
    const json full = runJson({"simulate", "mlp-3x1024", "--strategy", "full", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(full.at("strategy").get<std::string>(), std::string("full"));
    QCOMPARE(full.at("regions").get<int>(), 3);

    // A file with a named strategy uses it unless told otherwise.
    const QString images = kDataDir + "/good/images_every_field.json";
    const json named = runJson({"simulate", images, "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(named.at("strategy").get<std::string>(), std::string("every:2"));
    const json sqrt = runJson({"simulate", images, "--strategy", "sqrt", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(sqrt.at("strategy").get<std::string>(), std::string("sqrt"));

    // `--strategy manual` on a file without a manual plan is a user error.
    const RunResult r = runRemat({"simulate", images, "--strategy", "manual"});
    QVERIFY(r.finished && r.status == QProcess::NormalExit);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.startsWith("remat: "), qPrintable(r.err));
}

void TstCli::trainingFlagsOverrideFile() {
    bool ok = false;
    const json base = runJson({"simulate", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    // The preset's own settings (resources/models/mlp-3x1024.json), all unlike the overrides.
    QCOMPARE(base.at("micro_batch").get<int>(), 64);
    QCOMPARE(base.at("accumulation_steps").get<int>(), 1);
    QCOMPARE(base.at("precision").get<std::string>(), std::string("fp32"));
    QCOMPARE(base.at("optimizer").get<std::string>(), std::string("sgd"));
    QCOMPARE(base.at("device").get<std::string>(), std::string("a100-80gb"));
    const auto params = base.at("parameters").get<std::int64_t>();
    QVERIFY(params > 0);
    // fp32 parameters, 4 bytes each, are resident throughout; sgd has no state.
    QCOMPARE(base.at("breakdown_at_peak").at("parameters").get<std::int64_t>(), 4 * params);
    QCOMPARE(base.at("breakdown_at_peak").at("optimizer_state").get<std::int64_t>(), 0);

    const json o = runJson({"simulate", "mlp-3x1024", "--micro-batch", "16", "--accum", "3",
                            "--precision", "mixed-bf16", "--optimizer", "adam", "--device",
                            "t4-16gb", "--json"},
                           &ok);
    QVERIFY(ok);
    QCOMPARE(o.at("micro_batch").get<int>(), 16);
    QCOMPARE(o.at("accumulation_steps").get<int>(), 3);
    QCOMPARE(o.at("precision").get<std::string>(), std::string("mixed-bf16"));
    QCOMPARE(o.at("optimizer").get<std::string>(), std::string("adam"));
    QCOMPARE(o.at("device").get<std::string>(), std::string("t4-16gb"));
    QVERIFY(o.at("device_usable_bytes").get<std::int64_t>() <
            base.at("device_usable_bytes").get<std::int64_t>());
    QCOMPARE(o.at("parameters").get<std::int64_t>(), params);
    // DESIGN §3: mixed precision holds 16-bit parameters and, with Adam, fp32 master weights
    // plus two fp32 moments as optimizer state: 2 and 4 + 4 + 4 bytes per parameter.
    QCOMPARE(o.at("breakdown_at_peak").at("parameters").get<std::int64_t>(), 2 * params);
    QCOMPARE(o.at("breakdown_at_peak").at("optimizer_state").get<std::int64_t>(), 12 * params);

    // Each flag alone changes its own field and leaves the file's others.
    const json mb = runJson({"simulate", "mlp-3x1024", "-b", "8", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(mb.at("micro_batch").get<int>(), 8);
    QCOMPARE(mb.at("precision").get<std::string>(), std::string("fp32"));
    QVERIFY(mb.at("peak_bytes").get<std::int64_t>() < base.at("peak_bytes").get<std::int64_t>());
    const json opt = runJson({"simulate", "mlp-3x1024", "--optimizer", "momentum", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(opt.at("optimizer").get<std::string>(), std::string("momentum"));
    QCOMPARE(opt.at("micro_batch").get<int>(), 64);
    QCOMPARE(opt.at("breakdown_at_peak").at("optimizer_state").get<std::int64_t>(), 4 * params);
}

void TstCli::userErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString missing = kDataDir + "/no-such-model.json";
    const QString broken = kDataDir + "/bad/truncated.json";
    const QString shapes = kDataDir + "/bad/conv_after_linear.json";
    QTest::newRow("missing file") << QStringList{"simulate", missing} << missing;
    QTest::newRow("broken file") << QStringList{"simulate", broken} << broken + ": $: not valid JSON";
    QTest::newRow("shape error") << QStringList{"compare", shapes} << shapes + ": $.layers: layer 1";
    QTest::newRow("unknown strategy")
        << QStringList{"simulate", "mlp-3x1024", "--strategy", "everything"}
        << "unknown strategy 'everything'";
    QTest::newRow("every:0") << QStringList{"simulate", "mlp-3x1024", "--strategy", "every:0"}
                             << "every:K";
    QTest::newRow("micro-batch 0") << QStringList{"simulate", "mlp-3x1024", "--micro-batch", "0"}
                                   << "--micro-batch";
    QTest::newRow("compare micro-batch 0")
        << QStringList{"compare", "mlp-3x1024", "--micro-batch", "0", "--json"} << "--micro-batch";
    QTest::newRow("accum 0") << QStringList{"simulate", "mlp-3x1024", "--accum", "0"} << "--accum";
    QTest::newRow("unknown device") << QStringList{"simulate", "mlp-3x1024", "--device", "tpu-v9"}
                                    << "tpu-v9";
    QTest::newRow("unknown precision")
        << QStringList{"simulate", "mlp-3x1024", "--precision", "fp8"} << "--precision";
    QTest::newRow("unknown optimizer")
        << QStringList{"compare", "mlp-3x1024", "--optimizer", "lamb"} << "--optimizer";
}

void TstCli::userErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const RunResult r = runRemat(args);
    QVERIFY2(r.finished && r.status == QProcess::NormalExit, qPrintable(describe(args, r)));
    QVERIFY2(r.exitCode != 0, qPrintable(describe(args, r)));
    QVERIFY2(r.out.isEmpty(), qPrintable(describe(args, r)));
    QVERIFY2(r.err.startsWith("remat: "), qPrintable(describe(args, r)));
    QVERIFY2(r.err.contains(mentions), qPrintable(describe(args, r)));
    // One message, no crash report.
    QCOMPARE(r.err.count('\n'), 1);
    for (const char* crash : {"terminate", "what()", "Aborted", "Segmentation", "internal error"})
        QVERIFY2(!r.err.contains(crash), qPrintable(describe(args, r)));
}

// Sizes within every per-field limit can still multiply past int64 once scaled by the
// micro-batch. The answer must then be a user error naming the problem, never a wrapped-around
// small peak that fits.
void TstCli::hugeModelIsNotReportedAsFitting() {
    const QStringList args = {"simulate", kDataDir + "/cli/huge_per_sample.json", "--micro-batch",
                              "16777216", "--json"};
    const RunResult r = runRemat(args);
    QVERIFY2(r.finished && r.status == QProcess::NormalExit, qPrintable(describe(args, r)));
    QVERIFY2(r.exitCode != 0, qPrintable(describe(args, r)));
    QVERIFY2(r.err.startsWith("remat: ") && r.err.contains("2^62 bytes"),
             qPrintable(describe(args, r)));
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
