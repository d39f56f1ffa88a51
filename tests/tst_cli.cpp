// Tests of the `remat` command line against docs/cli-output.md, by running the built
// binary with QProcess: help texts, the comparison table and its agreement with
// `compare --json`, the keys and arithmetic of `simulate --json`, flags overriding the model
// file, and user errors that end with a one-line "remat: ..." on stderr, a non-zero exit and
// no crash.
#include <QtTest/QtTest>

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "lower.h"
#include "model_file.h"
#include "optimal_budget.h"
#include "report.h"
#include "strategy.h"

using nlohmann::json;
using namespace remat;

namespace {

const QString kCli = QStringLiteral(REMAT_CLI_PATH);
const QString kDataDir = QStringLiteral(REMAT_TEST_DATA_DIR);
constexpr int kTimeoutMs = 120000;

// The category spellings of docs/memory-model.md, the keys of `breakdown_at_peak`.
const std::set<std::string> kCategoryKeys = {
    "parameters", "gradients", "optimizer_state", "saved_activations", "recomputed_activations",
    "transient",  "inputs",    "workspace",       "gathered_parameters"};

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
    return "remat " + args.join(' ') + " -> exit " + QString::number(r.exitCode) + "\nstdout:\n" +
           r.out.left(2000) + "\nstderr:\n" + r.err.left(2000);
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
    void accumulationRepeatShown();
    void userErrors_data();
    void userErrors();
    void sweepJsonAndCsv();
    void hugeModelIsNotReportedAsFitting();
    void formatters();
    void namesAreEscaped_data();
    void namesAreEscaped();
    void escapedArgumentsInErrors();
    void unsafePlansAreMarked();
    void nothingFitsSaysWhy();
    void infeasibleBudgetPastesBack_data();
    void infeasibleBudgetPastesBack();
    void budgetsEchoedInUserUnits();
    void sharesAreDefined();
    void paretoLabelsPasteBack();
    void paretoIncludesManualPlan();
    void selectiveBelowFrontierIsNoted();
    void outOfMemoryIsAUserError();
    void badFilesNeverReachInternalError();
    void importHfOutputLoadsEverywhere();
    void frameworkSettingsOnEveryCommand();
    void parallelLayouts();
    void layoutPerGpuCommands();
};

void TstCli::initTestCase() {
    QVERIFY2(QFileInfo(kCli).isExecutable(), qPrintable(kCli + " is not an executable"));
}

void TstCli::help_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mentions");
    QTest::newRow("remat") << QStringList{"--help"} << QStringList{"simulate", "compare"};
    const QStringList common = {"MODEL",       "--micro-batch", "--accum", "--precision",
                                "--optimizer", "--device",      "--json", "--recompute-impl",
                                "pytorch-reentrant", "megatron"};
    QTest::newRow("simulate") << QStringList{"simulate", "--help"}
                              << (QStringList(common) << "--strategy"
                                                      << "manual"
                                                      << "none"
                                                      << "full"
                                                      << "every:K"
                                                      << "sqrt"
                                                      << "selective:KIND"
                                                      << "attention_core"
                                                      << "shortcut"
                                                      << "optimal:BUDGET"
                                                      << "optimal-nested:BUDGET"
                                                      << "revolve:C");
    QTest::newRow("compare defines shares")
        << QStringList{"compare", "--help"}
        << QStringList{"share of the whole peak without checkpointing",
                       "share of the activations kept for backward",
                       "extra step time over the step without"};
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
    const QStringList columns = {"strategy",
                                 "peak",
                                 "peak saved",
                                 "activations saved",
                                 "recompute overhead",
                                 "step time",
                                 "largest micro-batch",
                                 "fits",
                                 "safe"};
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
        QCOMPARE(row[1],
                 QString::fromStdString(formatBytes(e.at("peak_bytes").get<std::int64_t>())));
        QCOMPARE(row[2], QString::fromStdString(
                             formatPercent(e.at("memory_saved_fraction").get<double>())));
        QCOMPARE(row[3], QString::fromStdString(
                             formatPercent(e.at("activations_saved_fraction").get<double>())));
        QCOMPARE(row[4],
                 QString::fromStdString(formatPercent(e.at("recompute_overhead").get<double>())));
        QCOMPARE(row[5],
                 QString::fromStdString(formatSeconds(e.at("time_s").at("total").get<double>())));
        QCOMPARE(row[6], QString::number(e.at("max_micro_batch").get<std::int64_t>()));
        QCOMPARE(row[7], QString(e.at("fits").get<bool>() ? "yes" : "no"));
        QCOMPARE(row[8], QString(e.at("unsafe").empty() ? "yes" : "UNSAFE"));
    }
}

// The textbook example checkpoints one lone linear: its input must be kept as the region's
// input anyway and its output is the next linear's saved input, so nothing is freed early —
// the peak stays where it was. Under PyTorch's default (non-reentrant) checkpoint the linear
// is not even run again: its only saved tensor is its input, packed before its kernel runs,
// so the recompute stops there. A reentrant checkpoint runs it again: pure cost.
void TstCli::manualPlanOfMlpDoesNotPay() {
    const RunResult text = runRemat({"compare", "mlp-3x1024"});
    QVERIFY(text.finished && text.exitCode == 0);
    const Table t = parseTable(text.out);
    const QStringList* manual = nullptr;
    for (const QStringList& row : t.rows)
        if (row.first() == "manual") manual = &row;
    QVERIFY2(manual, qPrintable(text.out));
    QCOMPARE((*manual)[2], QStringLiteral("0.0%"));
    QVERIFY2((*manual)[4].endsWith('%'), qPrintable((*manual)[4]));
    QCOMPARE((*manual)[4], QStringLiteral("0.0%"));
    const RunResult reentrant = runRemat({"compare", "mlp-3x1024", "--recompute-impl",
                                          "pytorch-reentrant"});
    QVERIFY(reentrant.finished && reentrant.exitCode == 0);
    const Table rt = parseTable(reentrant.out);
    manual = nullptr;
    for (const QStringList& row : rt.rows)
        if (row.first() == "manual") manual = &row;
    QVERIFY2(manual, qPrintable(reentrant.out));
    QCOMPARE((*manual)[2], QStringLiteral("0.0%"));
    bool isNumber = false;
    const double overheadPercent = (*manual)[4].chopped(1).toDouble(&isNumber);
    QVERIFY2(isNumber && overheadPercent > 0.0, qPrintable((*manual)[4]));

    bool ok = false;
    const json none = runJson({"simulate", "mlp-3x1024", "--strategy", "none", "--json"}, &ok);
    QVERIFY(ok);
    const json m = runJson({"simulate", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(m.at("strategy").get<std::string>(), std::string("manual"));
    QCOMPARE(m.at("peak_bytes").get<std::int64_t>(), none.at("peak_bytes").get<std::int64_t>());
    QCOMPARE(m.at("flops").at("recompute").get<double>(), 0.0);
    const json mr = runJson({"simulate", "mlp-3x1024", "--recompute-impl", "pytorch-reentrant",
                             "--json"},
                            &ok);
    QVERIFY(ok);
    QCOMPARE(mr.at("peak_bytes").get<std::int64_t>(), none.at("peak_bytes").get<std::int64_t>());
    // The lone linear once more: 2 x 64 x 1024 x 1024 multiply-adds, plus its bias.
    QVERIFY(mr.at("flops").at("recompute").get<double>() >= 2.0 * 64 * 1024 * 1024);
    QCOMPARE(none.at("flops").at("recompute").get<double>(), 0.0);
    QCOMPARE(m.at("recompute_overhead").get<double>(), 0.0);
    QCOMPARE(m.at("time_s").at("total").get<double>(), none.at("time_s").at("total").get<double>());
    QVERIFY(mr.at("recompute_overhead").get<double>() > 0.0);
    QVERIFY(mr.at("time_s").at("total").get<double>() >
            none.at("time_s").at("total").get<double>());
}

void TstCli::simulateJsonContract_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("mlp manual") << QStringList{"simulate", "mlp-3x1024", "--json"};
    QTest::newRow("gpt2-tiny full")
        << QStringList{"simulate", "gpt2-tiny", "--strategy", "full", "--json"};
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
    for (const char* key :
         {"peak_bytes", "peak_instruction", "breakdown_at_peak", "saved_activation_bytes", "flops",
          "time_s", "recompute_overhead", "strategy"})
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

// From 4 accumulation steps the middle micro-steps are one repeated body: simulate says so in
// text and JSON (instructions as written, executed_instructions all runs), program lists the body
// once between rulers and gives each instruction's times.
void TstCli::accumulationRepeatShown() {
    bool ok = false;
    const json three = runJson({"simulate", "mlp-3x1024", "--accum", "3", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(three.at("repeat").is_null());
    QCOMPARE(three.at("executed_instructions").get<std::int64_t>(),
             three.at("instructions").get<std::int64_t>());
    const json many = runJson({"simulate", "mlp-3x1024", "--accum", "100", "--json"}, &ok);
    QVERIFY(ok);
    const json& r = many.at("repeat");
    QCOMPARE(r.at("times").get<std::int64_t>(), std::int64_t(98));
    QCOMPARE(r.at("first_micro_step").get<int>(), 1);
    QCOMPARE(r.at("caption").get<std::string>(), std::string("micro-steps 2-99 (x 98, same memory)"));
    const auto body = r.at("end").get<std::int64_t>() - r.at("begin").get<std::int64_t>();
    // Three micro-steps written, as at --accum 3; the other 97 run the body again.
    QCOMPARE(many.at("instructions").get<std::int64_t>(), three.at("instructions").get<std::int64_t>());
    QCOMPARE(many.at("executed_instructions").get<std::int64_t>(),
             many.at("instructions").get<std::int64_t>() + 97 * body);
    QCOMPARE(many.at("peak_bytes").get<std::int64_t>(), three.at("peak_bytes").get<std::int64_t>());

    const QStringList text = {"simulate", "mlp-3x1024", "--accum", "100"};
    RunResult t = runRemat(text);
    QVERIFY2(t.exitCode == 0 && t.out.contains("(micro-steps 2-99 (x 98, same memory) written once: " +
                                               QString::number(many.at("executed_instructions")
                                                                   .get<std::int64_t>()) +
                                               " run)"),
             qPrintable(describe(text, t)));

    const QStringList listing = {"program", "mlp-3x1024", "--accum", "100"};
    t = runRemat(listing);
    QVERIFY2(t.exitCode == 0, qPrintable(describe(listing, t)));
    const QString ruler = "-- micro-steps 2-99 (x 98, same memory): instructions " +
                          QString::number(r.at("begin").get<std::int64_t>()) + "-" +
                          QString::number(r.at("end").get<std::int64_t>() - 1) + " run 98 times --";
    QVERIFY2(t.out.count(ruler) == 1 && t.out.count("-- end of repeat --") == 1,
             qPrintable(describe(listing, t)));
    const json rows = runJson({"program", "mlp-3x1024", "--accum", "100", "--json"}, &ok);
    QVERIFY(ok);
    std::int64_t runs = 0;
    for (const json& row : rows) runs += row.at("times").get<std::int64_t>();
    QCOMPARE(runs, many.at("executed_instructions").get<std::int64_t>());
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

    const json o =
        runJson({"simulate", "mlp-3x1024", "--micro-batch", "16", "--accum", "3", "--precision",
                 "mixed-bf16", "--optimizer", "adam", "--device", "t4-16gb", "--json"},
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
    // docs/memory-model.md: mixed precision holds 16-bit parameters and, with Adam, fp32 masters
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

    // The checkpoint implementation: the file's (none given: pytorch) unless the flag says.
    QCOMPARE(base.at("recompute_impl").get<std::string>(), std::string("pytorch"));
    const json full = runJson({"simulate", "gpt2-tiny", "-s", "full", "--json"}, &ok);
    QVERIFY(ok);
    const json reentrant = runJson(
        {"simulate", "gpt2-tiny", "-s", "full", "--recompute-impl", "pytorch-reentrant", "--json"},
        &ok);
    QVERIFY(ok);
    QCOMPARE(reentrant.at("recompute_impl").get<std::string>(), std::string("pytorch-reentrant"));
    // A reentrant checkpoint recomputes whole blocks: more recompute than the early stop.
    QVERIFY(reentrant.at("flops").at("recompute").get<double>() >
            full.at("flops").at("recompute").get<double>());
    const json megatron = runJson(
        {"simulate", "gpt2-tiny", "-s", "full", "--recompute-impl", "megatron", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(megatron.at("flops").at("recompute").get<double>(),
             reentrant.at("flops").at("recompute").get<double>());
    // max-batch under Megatron-LM: the strategies it can express, no optimum row.
    const json rows = runJson({"max-batch", "gpt2-tiny", "--recompute-impl", "megatron", "--json"},
                              &ok);
    QVERIFY(ok);
    QVERIFY(!rows.empty());
    for (const json& row : rows) {
        const std::string s = row.at("strategy").get<std::string>();
        QVERIFY2(s != "optimal" && s != "selective:attention,mlp", s.c_str());
    }
    const RunResult text = runRemat({"max-batch", "gpt2-tiny", "--recompute-impl", "megatron"});
    QVERIFY(text.finished && text.exitCode == 0);
    QVERIFY2(text.out.contains("note: no optimal row"), qPrintable(text.out));
}

void TstCli::userErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString missing = kDataDir + "/no-such-model.json";
    const QString broken = kDataDir + "/bad/truncated.json";
    const QString shapes = kDataDir + "/bad/conv_after_linear.json";
    QTest::newRow("missing file") << QStringList{"simulate", missing} << missing;
    QTest::newRow("tp not dividing heads")
        << QStringList{"simulate", "gpt2-small", "--tp", "8"}
        << "parallel.tp: 12 attention heads are not divisible by tp 8";
    QTest::newRow("zero stage") << QStringList{"simulate", "gpt2-small", "--dp", "2", "--zero", "5"}
                                << "--zero: expected 0, 1, 2, 3";
    QTest::newRow("run under a layout") << QStringList{"run", "gpt2-tiny", "--dp", "2"}
                                        << "remat run runs the step on this machine's one device "
                                           "and cannot run the 2 GPUs of the layout dp 2; run the "
                                           "single-GPU step by dropping the layout";
    QTest::newRow("unknown cluster")
        << QStringList{"simulate", "gpt2-small", "--cluster", "dgx-z9"} << "unknown cluster 'dgx-z9'";
    QTest::newRow("gpus against the degrees")
        << QStringList{"simulate", "gpt2-small", "--gpus", "16", "--dp", "4", "--tp", "2"}
        << "--gpus 16 does not match the layout: dp x tp x pp x cp = 4 x 2 x 1 x 1 = 8 GPUs";
    QTest::newRow("gpus not divisible")
        << QStringList{"compare", "gpt2-small", "--gpus", "6", "--pp", "4"}
        << "--gpus 6 is not divisible by tp x pp x cp = 1 x 4 x 1 = 4";
    QTest::newRow("gpus 0") << QStringList{"max-batch", "gpt2-tiny", "--gpus", "0"}
                            << "--gpus must be between 1 and 1000000, got 0";
    QTest::newRow("fit gpus") << QStringList{"fit", "gpt2-tiny", "--gpus", "0"}
                              << "--gpus must be between 1 and 1000000";
    QTest::newRow("broken file") << QStringList{"simulate", broken}
                                 << broken + ": $: not valid JSON";
    QTest::newRow("shape error") << QStringList{"compare", shapes}
                                 << shapes + ": $.layers: layer 1";
    QTest::newRow("unknown strategy")
        << QStringList{"simulate", "mlp-3x1024", "--strategy", "everything"}
        << "unknown strategy 'everything'";
    QTest::newRow("every:0") << QStringList{"simulate", "mlp-3x1024", "--strategy", "every:0"}
                             << "every:K";
    QTest::newRow("micro-batch 0")
        << QStringList{"simulate", "mlp-3x1024", "--micro-batch", "0"} << "--micro-batch";
    QTest::newRow("compare micro-batch 0")
        << QStringList{"compare", "mlp-3x1024", "--micro-batch", "0", "--json"} << "--micro-batch";
    QTest::newRow("accum 0") << QStringList{"simulate", "mlp-3x1024", "--accum", "0"} << "--accum";
    QTest::newRow("unknown device")
        << QStringList{"simulate", "mlp-3x1024", "--device", "tpu-v9"} << "tpu-v9";
    QTest::newRow("unknown precision")
        << QStringList{"simulate", "mlp-3x1024", "--precision", "fp8"} << "--precision";
    QTest::newRow("unknown optimizer")
        << QStringList{"compare", "mlp-3x1024", "--optimizer", "lamb"} << "--optimizer";
    QTest::newRow("unknown recompute impl")
        << QStringList{"simulate", "mlp-3x1024", "--recompute-impl", "deepspeed"}
        << "--recompute-impl: expected pytorch, pytorch-reentrant, megatron, got 'deepspeed'";
    QTest::newRow("optimal models the non-reentrant recompute")
        << QStringList{"simulate", "gpt2-tiny", "-s", "optimal:25MiB", "--recompute-impl",
                       "pytorch-reentrant"}
        << "the optimal planners model PyTorch's non-reentrant checkpoint";
    QTest::newRow("megatron checkpoints layers or core attention")
        << QStringList{"simulate", "gpt2-tiny", "-s", "selective:attention", "--recompute-impl",
                       "megatron"}
        << "--recompute-impl megatron: plan 'selective:attention': region '1/attention' is "
           "neither whole layers";
    QTest::newRow("micro-batch negative")
        << QStringList{"simulate", "mlp-3x1024", "--micro-batch", "-5"} << "--micro-batch";
    QTest::newRow("micro-batch 2^63")
        << QStringList{"simulate", "mlp-3x1024", "--micro-batch", "9223372036854775808"}
        << "--micro-batch";
    QTest::newRow("micro-batch nan")
        << QStringList{"simulate", "mlp-3x1024", "--micro-batch", "nan"} << "--micro-batch";
    QTest::newRow("accum 2^63") << QStringList{"compare", "mlp-3x1024", "--accum",
                                               "9223372036854775808"}
                                << "--accum";
    QTest::newRow("accum negative")
        << QStringList{"pareto", "mlp-3x1024", "--accum", "-1"} << "--accum";
    QTest::newRow("max-batch -g 0")
        << QStringList{"max-batch", "mlp-3x1024", "-g", "0"} << "--global-batch";
    QTest::newRow("max-batch -g -8")
        << QStringList{"max-batch", "mlp-3x1024", "--global-batch", "-8"} << "--global-batch";
    QTest::newRow("max-batch -g 2^63")
        << QStringList{"max-batch", "mlp-3x1024", "-g", "9223372036854775808"} << "--global-batch";
    QTest::newRow("max-batch -g nan")
        << QStringList{"max-batch", "mlp-3x1024", "-g", "nan"} << "--global-batch";
    QTest::newRow("pareto --csv --json")
        << QStringList{"pareto", "mlp-3x1024", "--csv", "--json"} << "--csv and --json";
    QTest::newRow("selective kind absent")
        << QStringList{"simulate", "gpt2-tiny", "--strategy", "selective:shortcut"}
        << "no 'shortcut' sub-module, so nothing would be checkpointed (its kinds: attention, "
           "attention_core, mlp)";
    QTest::newRow("selective kind absent, mlp model")
        << QStringList{"simulate", "mlp-3x1024", "--strategy", "selective:mlp,attention"}
        << "no 'mlp', 'attention' sub-module";
    QTest::newRow("sweep --csv --json")
        << QStringList{"sweep", "gpt2-tiny", "--csv", "--json"} << "--csv and --json";
    QTest::newRow("sweep unknown axis")
        << QStringList{"sweep", "gpt2-tiny", "--over", "width"} << "--over: unknown sweep axis";
    QTest::newRow("sweep value 0")
        << QStringList{"sweep", "gpt2-tiny", "--values", "0,2"} << "--values: sweep values";
    QTest::newRow("sweep manual")
        << QStringList{"sweep", "gpt2-tiny", "--strategies", "none,manual"} << "manual plan";
    QTest::newRow("sweep bad strategy")
        << QStringList{"sweep", "gpt2-tiny", "--strategies", "every:0"} << "--strategies";
    QTest::newRow("sweep depth without a repeated layer")
        << QStringList{"sweep", "mlp-3x1024"} << "mlp-3x1024: the model has no repeated layer";
    QTest::newRow("optimal budget 2^63")
        << QStringList{"simulate", "gpt2-tiny", "--strategy", "optimal:9223372036854775808"}
        << "--strategy";
    // import-hf (docs/import.md): flags, then the config's own errors, each naming the file and
    // the JSON path.
    const QString hf = kDataDir + "/hf/";
    QTest::newRow("import-hf --seq-len 0")
        << QStringList{"import-hf", hf + "gpt2.json", "--seq-len", "0"}
        << "--seq-len must be between 1 and 2147483648, got 0";
    QTest::newRow("import-hf --seq-len nan")
        << QStringList{"import-hf", hf + "gpt2.json", "--seq-len", "nan"} << "--seq-len";
    QTest::newRow("import-hf --seq-len past the positions")
        << QStringList{"import-hf", hf + "gpt2.json", "--seq-len", "4096"}
        << hf + "gpt2.json: $.n_positions: a sequence of 4096 tokens is longer than the 1024 "
                "positions the model takes";
    QTest::newRow("import-hf --micro-batch 0")
        << QStringList{"import-hf", hf + "gpt2.json", "-b", "0"} << "--micro-batch";
    QTest::newRow("import-hf --seq-len on an image model")
        << QStringList{"import-hf", hf + "vit-base-patch16-224.json", "--seq-len", "100"}
        << hf + "vit-base-patch16-224.json: $.image_size: a sequence length (--seq-len) does not "
                "apply to an image model";
    QTest::newRow("import-hf image not divisible by the patch")
        << QStringList{"import-hf", kDataDir + "/cli/hf_vit_patch_15.json"}
        << kDataDir + "/cli/hf_vit_patch_15.json: $.patch_size: the image size 224 ($.image_size) "
                      "is not divisible by the patch size 15";
    QTest::newRow("import-hf RoBERTa --seq-len past the padding offset")
        << QStringList{"import-hf", hf + "roberta-base.json", "--seq-len", "513"}
        << hf + "roberta-base.json: $.max_position_embeddings: a sequence of 513 tokens is longer "
                "than the 512 positions the model takes (514 less the padding offset of 2)";
    QTest::newRow("import-hf missing field")
        << QStringList{"import-hf", kDataDir + "/cli/hf_missing_hidden_size.json"}
        << kDataDir + "/cli/hf_missing_hidden_size.json: $.hidden_size: missing (a required field)";
    QTest::newRow("import-hf wrong type")
        << QStringList{"import-hf", kDataDir + "/cli/hf_layers_string.json"}
        << kDataDir + "/cli/hf_layers_string.json: $.num_hidden_layers: expected a whole number, got a string";
    QTest::newRow("import-hf folder without config.json")
        << QStringList{"import-hf", kDataDir + "/cli"} << kDataDir + "/cli/config.json";
    QTest::newRow("import-hf model file") << QStringList{"import-hf", kDataDir + "/good/minimal.json"}
                                          << "$.model_type: missing";
    // The framework settings (docs/memory-model.md): bad values on each command, settings that
    // do not go together, and what the CPU executor only simulates.
    QTest::newRow("unknown --main-grads")
        << QStringList{"program", "mlp-3x1024", "--main-grads", "fp16"}
        << "--main-grads: expected param or fp32, got 'fp16'";
    QTest::newRow("unknown --optimizer-impl")
        << QStringList{"max-batch", "mlp-3x1024", "--optimizer-impl", "apex"}
        << "--optimizer-impl: expected fused, foreach or for-loop, got 'apex'";
    QTest::newRow("unknown --loss-impl")
        << QStringList{"pareto", "gpt2-tiny", "--loss-impl", "fused"}
        << "--loss-impl: expected standard or chunked, got 'fused'";
    QTest::newRow("unknown --tf32")
        << QStringList{"sweep", "gpt2-tiny", "--tf32", "yes"}
        << "--tf32: expected none, conv, matmul or all, got 'yes'";
    QTest::newRow("fp32 main grads with pure bf16")
        << QStringList{"compare", "mlp-3x1024", "-p", "bf16", "--main-grads", "fp32"}
        << "--main-grads: main_grads fp32 applies to mixed-bf16 and mixed-fp16";
    QTest::newRow("run autocast on the CPU")
        << QStringList{"run", "mlp-3x1024", "--backend", "cpu", "-p", "autocast-bf16"}
        << "the CPU executor runs fp32, mixed-bf16 and mixed-fp16 programs; precision "
           "autocast-bf16 is simulated only";
    QTest::newRow("run pure bf16 on the CPU")
        << QStringList{"run", "mlp-3x1024", "--backend", "cpu", "-p", "bf16"}
        << "precision bf16 is simulated only";
    QTest::newRow("run fp32 main grads on the CPU")
        << QStringList{"run", "mlp-3x1024", "--backend", "cpu", "-p", "mixed-bf16", "--main-grads",
                       "fp32"}
        << "fp32 main gradients (main_grads fp32) are simulated only";
    QTest::newRow("run chunked loss on the CPU")
        << QStringList{"run", "gpt2-tiny", "--backend", "cpu", "--loss-impl", "chunked"}
        << "the chunked one (loss_impl chunked, '5/linear_cross_entropy') is simulated only";
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

// `remat sweep`: one JSON object with a point per value and strategy (selective's comma kept
// inside its spelling), block activations linear in the depth without checkpointing, and the
// same points as CSV rows.
void TstCli::sweepJsonAndCsv() {
    const QStringList args = {"sweep", "gpt2-tiny", "--values", "1,2,4", "--strategies",
                              "none,selective:attention,mlp,full"};
    bool ok = false;
    const json j = runJson(QStringList(args) << "--json", &ok);
    QVERIFY(ok);
    QCOMPARE(j.at("axis").get<std::string>(), std::string("depth"));
    QCOMPARE(j.at("values").size(), std::size_t(3));
    const json& points = j.at("points");
    QCOMPARE(points.size(), std::size_t(9));
    QCOMPARE(points.at(1).at("strategy").get<std::string>(),
             std::string("selective:attention,mlp"));
    const std::int64_t one = points.at(0).at("block_activation_peak_bytes").get<std::int64_t>();
    QCOMPARE(points.at(6).at("value").get<int>(), 4);
    QCOMPARE(points.at(6).at("block_activation_peak_bytes").get<std::int64_t>(), 4 * one);
    for (const json& p : points)
        for (const char* key : {"peak_bytes", "activation_peak_bytes", "saved_activation_bytes",
                                "recompute_overhead", "time_s", "fits", "unsafe"})
            QVERIFY2(p.contains(key), key);
    QCOMPARE(j.at("growth").size(), std::size_t(3));
    QCOMPARE(j.at("growth").at(0).at("block_activation_ratio").get<double>(), 4.0);

    const RunResult csv = runRemat(QStringList(args) << "--csv");
    QVERIFY2(csv.finished && csv.exitCode == 0, qPrintable(describe(args, csv)));
    const QStringList lines = csv.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 10);
    QVERIFY(lines.front().startsWith("depth,strategy,peak_bytes,"));
    QVERIFY(lines.at(7).startsWith("4,none," + QString::number(points.at(6).at("peak_bytes")
                                                                   .get<std::int64_t>())));
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

// The one byte formatter never prints a figure that reaches the next unit, and budgets are
// rounded up so that they parse back to at least the bytes they stand for.
void TstCli::formatters() {
    QCOMPARE(QString::fromStdString(formatBytes(1048575)), QStringLiteral("1.00 MiB"));
    QCOMPARE(QString::fromStdString(formatBytes(1023)), QStringLiteral("1023 B"));
    QCOMPARE(QString::fromStdString(formatBytes((std::int64_t{1} << 30) - 1)),
             QStringLiteral("1.00 GiB"));
    QCOMPARE(QString::fromStdString(formatBytes(1000 * 1024)), QStringLiteral("1000.00 KiB"));
    QCOMPARE(QString::fromStdString(formatBudget(7571371520, "GiB")), QStringLiteral("7.06GiB"));
    QCOMPARE(QString::fromStdString(formatBudget(std::int64_t{7} << 30, "GiB")),
             QStringLiteral("7GiB"));
    QCOMPARE(QString::fromStdString(formatBudget(std::int64_t{15} << 29, "gib")),
             QStringLiteral("7.5gib"));
    QCOMPARE(QString::fromStdString(formatBudget(7571371520, "GB")), QStringLiteral("7.58GB"));
    QCOMPARE(QString::fromStdString(formatBudget(7571371520, "B")), QStringLiteral("7571371520"));
    QCOMPARE(QString::fromStdString(formatBudget(7571371520)), QStringLiteral("7.06GiB"));
    QCOMPARE(QString::fromStdString(budgetUnit("7.5 GiB")), QStringLiteral("GiB"));
    QCOMPARE(QString::fromStdString(budgetUnit("123")), QStringLiteral("B"));
    for (std::int64_t b : {std::int64_t{1}, std::int64_t{1023}, std::int64_t{1025},
                           std::int64_t{7571371520}, std::int64_t{1} << 49})
        for (const char* unit : {"GiB", "GB", "MiB", "MB", "KiB", "k", "TiB", "B", ""}) {
            const std::string text = formatBudget(b, unit);
            auto parsed = parseByteSize(text);
            QVERIFY2(parsed && *parsed >= b, text.c_str());
        }
}

void TstCli::namesAreEscaped_data() {
    QTest::addColumn<QStringList>("args");
    const QString file = kDataDir + "/cli/escape_name.json";
    QTest::newRow("simulate") << QStringList{"simulate", file};
    QTest::newRow("compare") << QStringList{"compare", file};
    QTest::newRow("max-batch") << QStringList{"max-batch", file};
    QTest::newRow("pareto") << QStringList{"pareto", file};
    QTest::newRow("program") << QStringList{"program", file};
}

// A model named "\u001b]0;pwned\u0007\u001b[2J" would retitle and clear the terminal if printed
// raw; every command prints it escaped.
void TstCli::namesAreEscaped() {
    QFETCH(QStringList, args);
    const RunResult r = runRemat(args);
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(describe(args, r)));
    for (const QChar c : r.out + r.err)
        QVERIFY2(c.unicode() >= 0x20 || c == '\n', qPrintable(describe(args, r)));
    if (args.first() != "program")
        QVERIFY2(r.out.contains("\\x1b]0;pwned\\x07\\x1b[2J"), qPrintable(r.out));
}

void TstCli::escapedArgumentsInErrors() {
    const QString esc = QString(QChar(0x1b)) + "]0;pwned" + QChar(0x07);
    for (const QStringList& args :
         {QStringList{"simulate", "mlp-3x1024", "--strategy", "every:" + esc},
          QStringList{"simulate", "mlp-3x1024", "--strategy", esc},
          QStringList{"simulate", "mlp-3x1024", "--precision", esc},
          QStringList{"simulate", "mlp-3x1024", "--device", esc},
          QStringList{"simulate", "mlp-3x1024", "--micro-batch", esc},
          QStringList{"simulate", esc}}) {
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.exitCode == 2, qPrintable(describe(args, r)));
        QVERIFY2(r.err.startsWith("remat: ") && r.err.count('\n') == 1,
                 qPrintable(describe(args, r)));
        for (const QChar c : r.err)
            QVERIFY2(c.unicode() >= 0x20 || c == '\n', qPrintable(describe(args, r)));
    }
}

// tests/data/cli/inplace_unsafe.json: an in-place tanh right after a linear; checkpointing the
// tanh on its own (its manual plan, full, ...) holds the linear's output, which the tanh then
// overwrites, and the recompute keeps tanh(tanh(x)). Every listing marks exactly the plans the
// compiler calls unsafe.
void TstCli::unsafePlansAreMarked() {
    const QString file = kDataDir + "/cli/inplace_unsafe.json";
    bool ok = false;
    const json all = runJson({"compare", file, "--json"}, &ok);
    QVERIFY(ok);
    std::set<std::string> unsafe, safe;
    for (const json& e : all)
        (e.at("unsafe").empty() ? safe : unsafe).insert(e.at("strategy").get<std::string>());
    QVERIFY(unsafe.count("manual") && unsafe.count("full"));
    QVERIFY(safe.count("none"));

    const RunResult text = runRemat({"compare", file});
    QVERIFY(text.finished && text.exitCode == 0);
    const Table t = parseTable(text.out);
    QCOMPARE(t.header.last(), QStringLiteral("safe"));
    QCOMPARE(t.rows.size(), all.size());
    for (const QStringList& row : t.rows)
        QCOMPARE(row.last(), QString(unsafe.count(row.first().toStdString()) ? "UNSAFE" : "yes"));
    QVERIFY(text.out.contains("manual: in-place '1/tanh' overwrites '0/linear'"));

    const json fits = runJson({"max-batch", file, "--json"}, &ok);
    QVERIFY(ok);
    std::size_t checked = 0;
    for (const json& f : fits) {
        const std::string s = f.at("strategy").get<std::string>();
        if (s == "optimal") continue;
        QCOMPARE(!f.at("unsafe").empty(), bool(unsafe.count(s)));
        ++checked;
    }
    QCOMPARE(checked, all.size());
    const RunResult mb = runRemat({"max-batch", file});
    QVERIFY(mb.finished && mb.exitCode == 0);
    for (const QStringList& row : parseTable(mb.out).rows)
        if (row.first() != "optimal")
            QCOMPARE(row.last(),
                     QString(unsafe.count(row.first().toStdString()) ? "UNSAFE" : "yes"));

    const json pareto = runJson({"pareto", file, "--json"}, &ok);
    QVERIFY(ok);
    bool sawManual = false;
    for (const json& p : pareto.at("named")) {
        const std::string s = p.at("label").get<std::string>();
        QCOMPARE(!p.at("unsafe").empty(), bool(unsafe.count(s)));
        sawManual = sawManual || s == "manual";
    }
    QVERIFY(sawManual);
    for (const json& p : pareto.at("every_k"))
        if (p.at("label") == "every:1") QVERIFY(!p.at("unsafe").empty());  // = full
    const RunResult csv = runRemat({"pareto", file, "--csv"});
    QVERIFY(csv.finished && csv.exitCode == 0);
    QVERIFY(
        csv.out.startsWith("kind,label,peak_bytes,step_time_s,recompute_time_s,"
                           "optimal_peak_at_equal_time_bytes,optimal_time_at_equal_memory_s,"
                           "unsafe\n"));
    QVERIFY(csv.out.contains("named,\"manual\","));
    for (const QString& line : csv.out.split('\n', Qt::SkipEmptyParts).mid(1)) {
        const QString label = line.section('"', 1, 1);
        if (line.startsWith("named,"))
            QCOMPARE(line.endsWith(",true"), bool(unsafe.count(label.toStdString())));
    }
}

// gpt3-175b with Adam in mixed precision on an 80 GB A100: the model states alone exceed the
// device, and every command says so in numbers.
void TstCli::nothingFitsSaysWhy() {
    const QString states = "model states alone (parameters, gradients, optimizer state) take ";
    const RunResult sim = runRemat({"simulate", "gpt3-175b"});
    QVERIFY2(sim.finished && sim.exitCode == 0, qPrintable(sim.err));
    QVERIFY2(sim.out.contains("why it does not fit: " + states), qPrintable(sim.out));
    bool ok = false;
    const json j = runJson({"simulate", "gpt3-175b", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(!j.at("fits").get<bool>());
    const std::string reason = j.at("no_fit_reason").get<std::string>();
    const std::int64_t usable = j.at("device_usable_bytes").get<std::int64_t>();
    QVERIFY2(reason.find("of the device's " + formatBytes(usable) + " usable") != std::string::npos,
             reason.c_str());
    const json b = j.at("breakdown_at_peak");
    const std::int64_t modelStates = b.at("parameters").get<std::int64_t>() +
                                     b.at("gradients").get<std::int64_t>() +
                                     b.at("optimizer_state").get<std::int64_t>();
    QVERIFY(modelStates > usable);
    const json fitsJ = runJson({"simulate", "gpt2-small", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(fitsJ.at("no_fit_reason").is_null());

    const RunResult cmp = runRemat({"compare", "gpt3-175b"});
    QVERIFY(cmp.finished && cmp.exitCode == 0);
    QVERIFY2(cmp.out.contains("nothing fits: ") && cmp.out.contains(states), qPrintable(cmp.out));
    const RunResult mb = runRemat({"max-batch", "gpt3-175b"});
    QVERIFY(mb.finished && mb.exitCode == 0);
    QVERIFY2(mb.out.contains("nothing fits: ") && mb.out.contains(states), qPrintable(mb.out));

    // Activations too large at this micro-batch: the peak, the excess and the micro-batch that
    // fits. The peak is the cross-entropy backward's: 12 bytes per logit at its height (the
    // fp32 log-probabilities, their gradient and the fp32 logits' gradient; the 16-bit cast
    // comes after the first two are freed), so a sample takes 1024 x 50257 x 2 B less than
    // with all four live, and 48 fit instead of 46.
    const RunResult act = runRemat({"simulate", "gpt2-small", "-b", "200", "-s", "none"});
    QVERIFY(act.finished && act.exitCode == 0);
    QVERIFY2(act.out.contains(QRegularExpression(
                 "why it does not fit: the peak of [0-9.]+ GiB exceeds the device's 79.00 GiB "
                 "usable by [0-9.]+ GiB: at the peak .*; micro-batch 48 or smaller fits")),
             qPrintable(act.out));
}

void TstCli::infeasibleBudgetPastesBack_data() {
    QTest::addColumn<QString>("budget");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<QString>("verdict");
    // gpt2-small at micro-batch 8: model states take 1.85 GiB, the GEMM workspace is the
    // largest term of the smallest peak (6.28 GiB, at the cross-entropy backward: the fp32
    // log-probabilities, their gradient and the fp32 logits' gradient, 3 x 4 B per logit;
    // the 16-bit gradient, 8 x 1024 x 50257 x 2 B, comes only after the first two are freed).
    const QString workspace = "the largest term is workspace";
    const QString states = "model states alone (parameters, gradients, optimizer state) take";
    QTest::newRow("GiB") << "optimal:5GiB"
                         << "GiB" << workspace;
    QTest::newRow("just below") << "optimal:6.28GiB"
                                << "GiB" << workspace;
    QTest::newRow("GB") << "optimal:3.5GB"
                        << "GB" << workspace;
    QTest::newRow("MiB") << "optimal:6400MiB"
                         << "MiB" << workspace;
    QTest::newRow("bytes") << "optimal:1000000"
                           << "" << states;
    QTest::newRow("nested GB") << "optimal-nested:3GB"
                               << "GB" << workspace;
}

// The hint states the smallest budget that works in the unit the user wrote, rounded up: pasted
// back it succeeds, and one step of the last digit lower it does not. It never offers the
// strategy that just failed as the way out.
void TstCli::infeasibleBudgetPastesBack() {
    QFETCH(QString, budget);
    QFETCH(QString, unit);
    QFETCH(QString, verdict);
    const QString head = budget.section(':', 0, 0);
    const RunResult r = runRemat({"simulate", "gpt2-small", "-s", budget});
    QVERIFY2(r.finished && r.exitCode == 2, qPrintable(r.err));
    QVERIFY2(r.err.contains("the budget of " + budget.section(':', 1) + " cannot be met"),
             qPrintable(r.err));
    const QRegularExpression works(head + ":([0-9.]+)" + QRegularExpression::escape(unit) +
                                   " is the smallest budget");
    const auto m = works.match(r.err);
    QVERIFY2(m.hasMatch(), qPrintable(r.err));
    const QString figure = m.captured(1);
    const QString suggestion = head + ":" + figure + unit;
    QVERIFY2(r.err.contains(verdict), qPrintable(r.err));
    if (head == "optimal-nested")
        QVERIFY2(!r.err.contains("optimal-nested:BUDGET"), qPrintable(r.err));

    bool ok = false;
    const json j = runJson({"simulate", "gpt2-small", "-s", suggestion, "--json"}, &ok);
    QVERIFY2(ok, qPrintable(suggestion));
    QCOMPARE(QString::fromStdString(j.at("strategy").get<std::string>()), suggestion);
    // One unit of the last digit less is below the smallest peak.
    QString lower = figure;
    const qsizetype dot = lower.indexOf('.');
    const int decimals = dot < 0 ? 0 : int(lower.size() - dot - 1);
    const double step = std::pow(10.0, -decimals);
    lower = QString::number(figure.toDouble() - step, 'f', decimals);
    const RunResult below = runRemat({"simulate", "gpt2-small", "-s", head + ":" + lower + unit});
    QVERIFY2(below.finished && below.exitCode == 2 && below.err.contains("cannot be met"),
             qPrintable(lower + "\n" + below.err));
}

void TstCli::budgetsEchoedInUserUnits() {
    bool ok = false;
    for (const char* s : {"optimal:7.5GiB", "optimal:9GB", "optimal-nested:7500MiB"}) {
        const json j = runJson({"simulate", "gpt2-small", "-s", s, "--json"}, &ok);
        QVERIFY2(ok, s);
        QCOMPARE(j.at("strategy").get<std::string>(), std::string(s));
    }
    const RunResult r = runRemat({"simulate", "gpt2-small", "-s", "optimal:7.5GiB"});
    QVERIFY(r.out.contains("strategy optimal:7.5GiB:"));
}

// "recompute overhead" is extra whole-step time over the step without checkpointing; "peak
// saved" a share of the whole peak without it; "activations saved" a share of the activations
// kept for backward without it. The JSON carries the baselines, so each is checked by
// arithmetic.
void TstCli::sharesAreDefined() {
    bool ok = false;
    const json j = runJson({"simulate", "gpt2-tiny", "-s", "full", "--json"}, &ok);
    QVERIFY(ok);
    const double time = j.at("time_s").at("total").get<double>();
    const double baseTime = j.at("baseline_step_time_s").get<double>();
    QVERIFY(baseTime > 0);
    QVERIFY(std::abs(j.at("recompute_overhead").get<double>() - (time / baseTime - 1)) < 1e-12);
    const auto peak = double(j.at("peak_bytes").get<std::int64_t>());
    const auto basePeak = double(j.at("baseline_peak_bytes").get<std::int64_t>());
    QVERIFY(std::abs(j.at("memory_saved_fraction").get<double>() - (1 - peak / basePeak)) < 1e-12);
    const auto acts = double(j.at("saved_activation_bytes").get<std::int64_t>());
    const auto baseActs = double(j.at("baseline_saved_activation_bytes").get<std::int64_t>());
    QVERIFY(baseActs > acts);
    QVERIFY(std::abs(j.at("activations_saved_fraction").get<double>() - (1 - acts / baseActs)) <
            1e-12);
    // Checkpointing removes a larger share of the activations than of the whole peak.
    QVERIFY(j.at("activations_saved_fraction").get<double>() >
            j.at("memory_saved_fraction").get<double>());

    const RunResult text = runRemat({"compare", "gpt2-tiny"});
    QVERIFY(text.finished && text.exitCode == 0);
    for (const char* line :
         {"peak saved          share of the whole peak without checkpointing",
          "activations saved   share of the activations kept for backward without checkpointing",
          "recompute overhead  extra step time over the step without checkpointing"})
        QVERIFY2(text.out.contains(line), qPrintable(text.out));
    const RunResult sim = runRemat({"simulate", "gpt2-tiny", "-s", "full"});
    QVERIFY(sim.out.contains("of the whole peak without checkpointing"));
    QVERIFY(sim.out.contains("of the activations kept for backward without checkpointing"));
    QVERIFY(sim.out.contains("(extra step time over the step without checkpointing"));
}

// Frontier labels are budgets in readable units ("optimal:7.06GiB", never a raw byte count or
// "12580288KB"), and each gives its own point back when pasted into --strategy.
void TstCli::paretoLabelsPasteBack() {
    bool ok = false;
    const json t = runJson({"pareto", "gpt2-tiny", "--json"}, &ok);
    QVERIFY(ok);
    const json& frontier = t.at("frontier");
    QVERIFY(frontier.size() >= 3);
    const QRegularExpression readable("^optimal:[0-9]+(\\.[0-9]+)?(KiB|MiB|GiB|TiB)$");
    for (const json& p : frontier)
        QVERIFY2(
            readable.match(QString::fromStdString(p.at("label").get<std::string>())).hasMatch(),
            p.at("label").get<std::string>().c_str());
    for (std::size_t i : {std::size_t(0), frontier.size() / 2, frontier.size() - 2}) {
        const std::string label = frontier[i].at("label").get<std::string>();
        const json s =
            runJson({"simulate", "gpt2-tiny", "-s", QString::fromStdString(label), "--json"}, &ok);
        QVERIFY2(ok, label.c_str());
        QCOMPARE(s.at("peak_bytes").get<std::int64_t>(),
                 frontier[i].at("peak_bytes").get<std::int64_t>());
        QCOMPARE(s.at("time_s").at("total").get<double>(),
                 frontier[i].at("step_time_s").get<double>());
    }
}

void TstCli::paretoIncludesManualPlan() {
    bool ok = false;
    const json t = runJson({"pareto", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    const json& named = t.at("named");
    QVERIFY(named.size() >= 3);
    QCOMPARE(named[0].at("label").get<std::string>(), std::string("none"));
    QCOMPARE(named[1].at("label").get<std::string>(), std::string("manual"));
    const json m = runJson({"simulate", "mlp-3x1024", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(named[1].at("peak_bytes"), m.at("peak_bytes"));
    QCOMPARE(named[1].at("step_time_s").get<double>(), m.at("time_s").at("total").get<double>());
    // A file without a manual plan lists none.
    const json g = runJson({"pareto", "gpt2-tiny", "--json"}, &ok);
    QVERIFY(ok);
    for (const json& p : g.at("named")) QVERIFY(p.at("label") != "manual");
}

// The optimum searches whole chain elements; a selective plan the frontier does not reach (no
// frontier point as fast at no more memory) is named in a note under the tables, and only then.
void TstCli::selectiveBelowFrontierIsNoted() {
    for (const char* model : {"gpt2-small", "gpt2-tiny"}) {
        bool ok = false;
        const json t = runJson({"pareto", model, "--json"}, &ok);
        QVERIFY(ok);
        const RunResult text = runRemat({"pareto", model});
        QVERIFY(text.finished && text.exitCode == 0);
        const QString note = text.out.section(
            "note: the optimal frontier searches plans that "
            "checkpoint whole blocks",
            1);
        int below = 0;
        for (const json& p : t.at("named")) {
            const std::string label = p.at("label").get<std::string>();
            if (label.rfind("selective:", 0) != 0) continue;
            const json& same = p.at("optimal_time_at_equal_memory_s");
            const bool isBelow =
                same.is_null() ||
                same.get<double>() > p.at("step_time_s").get<double>() * (1 + 1e-12);
            below += isBelow;
            QCOMPARE(note.contains(QString::fromStdString(label) + " ("), isBelow);
        }
        QCOMPARE(!note.isEmpty(), below > 0);
        if (QByteArray(model) == "gpt2-small") QVERIFY(below > 0);
    }
}

// Runs `remat ARGS` under an address-space limit of `kib` KiB; the process, finished.
QProcess* runLimited(QProcess& p, qint64 kib, const QStringList& args) {
    p.start("/bin/sh", QStringList{"-c", "ulimit -v \"$0\" && shift && exec \"$@\"",
                                   QString::number(kib), "_", kCli} + args);
    return p.waitForFinished(kTimeoutMs) ? &p : nullptr;
}

// The address space `remat` needs to start at all (a CUDA build maps cuBLAS, hundreds of MiB),
// to within 4 MiB: the smallest limit under which `remat --version` succeeds.
qint64 startupAddressSpaceKiB() {
    qint64 lo = 1024, hi = qint64{64} << 20;  // 1 MiB .. 64 GiB, in KiB
    while (hi - lo > 4096) {
        const qint64 mid = (lo + hi) / 2;
        QProcess p;
        const bool ok = runLimited(p, mid, {"--version"}) && p.exitStatus() == QProcess::NormalExit &&
                        p.exitCode() == 0;
        (ok ? hi : lo) = mid;
    }
    return hi;
}

// An input within every limit that needs more memory than the process may have: one line,
// exit 2, never "internal error". The process gets 40 MiB beyond what it needs to start (a small
// machine's worth for this purpose); the file needs about 110 MiB more than that.
void TstCli::outOfMemoryIsAUserError() {
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer reserves more address space than the limit allows");
#endif
    const qint64 start = startupAddressSpaceKiB();
    QProcess p;
    QVERIFY(runLimited(p, start + 40 * 1024,
                       {"simulate", kDataDir + "/cli/deep_transformer.json"}));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 2, qPrintable(err));
    QCOMPARE(err, QStringLiteral("remat: out of memory while running 'remat simulate'; the input "
                                 "asks for more than this machine has\n"));
    // Without the limit the same file simulates.
    const RunResult r = runRemat({"simulate", kDataDir + "/cli/deep_transformer.json", "--json"});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.err));
}

// Every broken model file of tests/data/bad, through every command that reads a model: a user
// error (exit 2, one "remat:" line), never exit 3, "internal error" or a signal.
void TstCli::badFilesNeverReachInternalError() {
    const QDir bad(kDataDir + "/bad");
    const QStringList files = bad.entryList({"*.json"}, QDir::Files);
    QVERIFY(files.size() > 20);
    for (const QString& f : files)
        for (const char* cmd : {"simulate", "compare"}) {
            const QStringList args = {cmd, bad.filePath(f)};
            const RunResult r = runRemat(args);
            QVERIFY2(r.finished && r.status == QProcess::NormalExit, qPrintable(describe(args, r)));
            QVERIFY2(r.exitCode == 2, qPrintable(describe(args, r)));
            QVERIFY2(r.err.startsWith("remat: ") && r.err.count('\n') == 1,
                     qPrintable(describe(args, r)));
            QVERIFY2(!r.err.contains("internal error"), qPrintable(describe(args, r)));
        }
}

// `remat import-hf`: printed to stdout (the ignored fields on stderr) or written with -o (the
// summary and the ignored fields on stdout); the file loads with every other command and gives
// the published parameter count.
void TstCli::importHfOutputLoadsEverywhere() {
    const QString config = kDataDir + "/hf/gpt2.json";
    const RunResult printed = runRemat({"import-hf", config, "--seq-len", "512", "-b", "4"});
    QVERIFY2(printed.finished && printed.exitCode == 0, qPrintable(describe({"import-hf"}, printed)));
    auto parsed = parseModel(printed.out.toStdString(), "stdout");
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
    QCOMPARE(parsed->network.input.tokens, std::int64_t(512));
    QCOMPARE(parsed->training.microBatch, std::int64_t(4));
    QVERIFY2(printed.err.contains("ignored bos_token_id: a token id: no memory, no time"),
             qPrintable(printed.err));

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath("gpt2-imported.json");
    const RunResult written = runRemat({"import-hf", kDataDir + "/hf/llama-2-7b.json", "-o", out});
    QVERIFY2(written.finished && written.exitCode == 0, qPrintable(describe({"import-hf"}, written)));
    QVERIFY2(written.out.startsWith("wrote " + out + ": meta-llama/Llama-2-7b-hf (model_type llama), "
                                    "6738415616 parameters, 4096 tokens, micro-batch 1\n"),
             qPrintable(written.out));
    QVERIFY(written.out.contains("ignored rope_scaling: rotary positions"));
    QVERIFY(written.err.isEmpty());
    bool ok = false;
    const json sim = runJson({"simulate", out, "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(sim.at("parameters").get<std::int64_t>(), std::int64_t(6738415616));
    for (const QStringList& args : {QStringList{"compare", out, "--json"},
                                    QStringList{"max-batch", out, "--json", "-d", "h200-141gb"},
                                    QStringList{"program", out, "-s", "full"}}) {
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(describe(args, r)));
    }

    // The encoders: BERT's masked LM and ViT's image classifier, written and compared under
    // every strategy (selective ones on the post-LN block's attention and MLP included).
    const QString bert = dir.filePath("bert.json");
    const RunResult wroteBert =
        runRemat({"import-hf", kDataDir + "/hf/bert-base-uncased.json", "-o", bert, "--seq-len", "128"});
    QVERIFY2(wroteBert.finished && wroteBert.exitCode == 0, qPrintable(describe({"import-hf"}, wroteBert)));
    QVERIFY2(wroteBert.out.startsWith("wrote " + bert + ": bert-base-uncased (model_type bert), "
                                      "109514298 parameters, 128 tokens, micro-batch 1\n"),
             qPrintable(wroteBert.out));
    const QString vit = dir.filePath("vit.json");
    const RunResult wroteVit =
        runRemat({"import-hf", kDataDir + "/hf/vit-base-patch16-224.json", "-o", vit});
    QVERIFY2(wroteVit.finished && wroteVit.exitCode == 0, qPrintable(describe({"import-hf"}, wroteVit)));
    QVERIFY2(wroteVit.out.startsWith("wrote " + vit + ": google/vit-base-patch16-224 (model_type vit), "
                                     "85800194 parameters, input [3, 224, 224], micro-batch 1\n"),
             qPrintable(wroteVit.out));
    for (const QString& file : {bert, vit}) {
        const json cmp = runJson({"compare", file, "--json"}, &ok);
        QVERIFY(ok);
        QVERIFY(cmp.is_array() && cmp.size() > 3);
        for (const QString& s : {QString("selective:attention_core"), QString("selective:mlp")}) {
            const json r = runJson({"simulate", file, "-s", s, "--json"}, &ok);
            QVERIFY2(ok, qPrintable(file + " " + s));
            QVERIFY(r.at("time_s").at("recompute").get<double>() > 0);
        }
    }
}

// A layout on the command line: the per-GPU figures under the usual keys, the `parallel` object,
// ZeRO-3's gathered parameters in the breakdown, and `fit` answering in JSON.
void TstCli::parallelLayouts() {
    bool ok = false;
    const json one = runJson({"simulate", "gpt2-small", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(!one.contains("parallel"));
    const json z3 = runJson({"simulate", "gpt2-small", "--dp", "8", "--zero", "full_shard",
                             "--cluster", "dgx-a100-80gb", "--json"},
                            &ok);
    QVERIFY(ok);
    QCOMPARE(z3.at("parallel").at("gpus").get<int>(), 8);
    QCOMPARE(z3.at("parallel").at("zero").get<int>(), 3);
    QCOMPARE(z3.at("parallel").at("global_batch").get<int>(),
             8 * one.at("micro_batch").get<int>());
    // gpt2-small peaks as a layer's whole parameters are gathered (the tied head's).
    QVERIFY(z3.at("breakdown_at_peak").at("gathered_parameters").get<std::int64_t>() > 0);
    QVERIFY(z3.at("peak_bytes").get<std::int64_t>() < one.at("peak_bytes").get<std::int64_t>());
    const double mfu = z3.at("parallel").at("mfu").get<double>();
    QVERIFY(mfu > 0 && mfu < 1);
    // A pipeline: stages listed, the first 1F1B stage holding pp micro-batches.
    const json pp = runJson({"simulate", "gpt2-small", "--pp", "4", "-a", "8", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(pp.at("parallel").at("stages").size(), std::size_t(4));
    QCOMPARE(pp.at("parallel").at("stages")[0].at("in_flight_micro_batches").get<double>(), 4.0);
    QVERIFY(pp.at("parallel").at("step_time_s").at("bubble").get<double>() > 0);
    // compare and program answer for the peaking rank.
    const json cmp = runJson({"compare", "gpt2-tiny", "--dp", "2", "--zero", "2", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(cmp.is_array() && !cmp.empty());
    for (const json& e : cmp) QVERIFY(e.contains("parallel"));
    const json fit = runJson({"fit", "gpt2-tiny", "--gpus", "8", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(fit.at("fits").get<bool>());
    QCOMPARE(fit.at("min_gpus").get<int>(), 8);
    QVERIFY(!fit.at("candidates").empty());
    QCOMPARE(fit.at("candidates")[0].at("layout").at("gpus").get<int>(), 8);

    // --gpus: the product of the degrees; alone it sets dp.
    const json byGpus = runJson({"simulate", "gpt2-small", "--gpus", "8", "--zero", "3",
                                 "--cluster", "dgx-a100-80gb", "--json"},
                                &ok);
    QVERIFY(ok);
    QCOMPARE(byGpus.at("parallel").at("dp").get<int>(), 8);
    QCOMPARE(byGpus.at("peak_bytes").get<std::int64_t>(), z3.at("peak_bytes").get<std::int64_t>());
    const json tpGpus = runJson({"compare", "gpt2-tiny", "--gpus", "4", "--tp", "2", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(tpGpus[0].at("parallel").at("dp").get<int>(), 2);
    QCOMPARE(tpGpus[0].at("parallel").at("tp").get<int>(), 2);
}

// max-batch, pareto and sweep under a layout: per GPU, for the rank that peaks.
void TstCli::layoutPerGpuCommands() {
    bool ok = false;
    // ZeRO-3 over 8 GPUs leaves room for a larger micro-batch per rank than one GPU (full
    // recompute: a sample's activations are small beside the 1.75 GiB of states sharded away).
    const json one = runJson({"max-batch", "gpt2-small", "-d", "a100-40gb", "--json"}, &ok);
    QVERIFY(ok);
    const json z3 = runJson({"max-batch", "gpt2-small", "--dp", "8", "--zero", "3", "--cluster",
                             "dgx-a100-40gb", "-g", "512", "--json"},
                            &ok);
    QVERIFY(ok);
    QVERIFY(z3.is_array() && !z3.empty());
    auto row = [](const json& rows, const std::string& s) {
        for (const json& r : rows)
            if (r.at("strategy") == s) return r;
        return json();
    };
    const json none1 = row(one, "full"), none8 = row(z3, "full");
    QVERIFY(!none1.is_null() && !none8.is_null());
    QVERIFY2(none8.at("max_micro_batch").get<int>() > none1.at("max_micro_batch").get<int>(),
             qPrintable(QString::fromStdString(none8.dump())));
    QCOMPARE(none8.at("global_batch").get<int>(), 512);
    QCOMPARE(none8.at("micro_batch").get<int>() * none8.at("accumulation_steps").get<int>() * 8,
             512);
    QCOMPARE(none8.at("parallel").at("zero").get<int>(), 3);
    QVERIFY(none8.at("peak_bytes").get<std::int64_t>() <= std::int64_t(40) << 30);
    for (const json& r : z3) QVERIFY(r.at("strategy") != "optimal");
    const RunResult text = runRemat({"max-batch", "gpt2-tiny", "--dp", "8", "--zero", "3"});
    QVERIFY2(text.finished && text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains("per GPU (rank that peaks)"), qPrintable(text.out));
    QVERIFY(text.out.contains("peak per GPU"));
    const RunResult split = runRemat({"max-batch", "gpt2-tiny", "--dp", "8", "-g", "100"});
    QCOMPARE(split.exitCode, 2);
    QVERIFY2(split.err.contains("the global batch 100 does not split over the data-parallel "
                                "degree 8"),
             qPrintable(split.err));

    // pareto: every:K per stage and the named strategies, per GPU.
    const json single = runJson({"pareto", "gpt2-tiny", "--json"}, &ok);
    QVERIFY(ok);
    const json pp = runJson({"pareto", "gpt2-tiny", "--pp", "2", "-a", "4", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(pp.at("parallel").at("pp").get<int>(), 2);
    QVERIFY(pp.at("frontier").empty());
    QVERIFY(!pp.at("every_k").empty() && !pp.at("named").empty());
    auto labelled = [](const json& rows, const std::string& label) {
        for (const json& r : rows)
            if (r.at("label") == label) return r;
        return json();
    };
    const json noneOne = labelled(single.at("named"), "none");
    const json nonePp = labelled(pp.at("named"), "none");
    QVERIFY(!noneOne.is_null() && !nonePp.is_null());
    // Half the blocks per GPU: less than the whole model on one GPU.
    QVERIFY(nonePp.at("peak_bytes").get<std::int64_t>() <
            noneOne.at("peak_bytes").get<std::int64_t>());
    const RunResult paretoText = runRemat({"pareto", "gpt2-tiny", "--dp", "2", "--zero", "2"});
    QVERIFY2(paretoText.finished && paretoText.exitCode == 0, qPrintable(paretoText.err));
    QVERIFY(paretoText.out.contains("per GPU (rank that peaks)"));

    // sweep: the micro-batch under tp 2, per GPU, against the same sweep on one GPU.
    const json sw1 = runJson({"sweep", "gpt2-tiny", "--over", "batch", "--values", "1,2",
                              "--strategies", "none", "--json"},
                             &ok);
    QVERIFY(ok);
    const json sw2 = runJson({"sweep", "gpt2-tiny", "--over", "batch", "--values", "1,2",
                              "--strategies", "none", "--tp", "2", "--json"},
                             &ok);
    QVERIFY(ok);
    QCOMPARE(sw2.at("parallel").at("tp").get<int>(), 2);
    QCOMPARE(sw2.at("points").size(), std::size_t(2));
    for (std::size_t i = 0; i < 2; ++i)
        QVERIFY(sw2.at("points")[i].at("peak_bytes").get<std::int64_t>() <
                sw1.at("points")[i].at("peak_bytes").get<std::int64_t>());
    // A depth the pipeline does not divide is a point with the layout's error.
    const json depth = runJson({"sweep", "gpt2-tiny", "--over", "depth", "--values", "2,3",
                                "--strategies", "full", "--pp", "2", "--json"},
                               &ok);
    QVERIFY(ok);
    QVERIFY(!depth.at("points")[0].contains("error"));
    QVERIFY2(depth.at("points")[1].at("error").get<std::string>().find("parallel.pp") !=
                 std::string::npos,
             depth.at("points")[1].dump().c_str());
}

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"

// Every command with the common options takes the framework settings; `simulate --json` reports
// them, and they change what they should: fp32 main gradients are 4 bytes per parameter where
// the 16-bit ones were 2 (mlp-3x1024 with Adam: the gradients are all live at the optimizer's
// first step), the chunked loss lowers GPT-2's peak, and the CPU executor runs foreach and
// for-loop programs (their temporaries are allocated where the program says; the update is its
// fused kernel, the same arithmetic).
void TstCli::frameworkSettingsOnEveryCommand() {
    const QStringList settings = {"--main-grads", "fp32",  "--optimizer-impl", "for-loop",
                                  "--loss-impl",  "chunked", "--tf32",         "all"};
    for (const QStringList& command :
         {QStringList{"simulate", "gpt2-tiny"}, QStringList{"compare", "gpt2-tiny"},
          QStringList{"program", "gpt2-tiny"}, QStringList{"pareto", "gpt2-tiny"},
          QStringList{"max-batch", "gpt2-tiny"},
          QStringList{"sweep", "gpt2-tiny", "--values", "1,2"}}) {
        const QStringList args = command + QStringList{"-p", "mixed-bf16"} + settings;
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(describe(args, r)));
    }
    bool ok = false;
    const json j = runJson({"simulate", "gpt2-tiny", "-p", "mixed-bf16", "--main-grads", "fp32",
                            "--optimizer-impl", "foreach", "--loss-impl", "chunked", "--tf32",
                            "none", "--json"},
                           &ok);
    QVERIFY(ok);
    QCOMPARE(j.at("precision").get<std::string>(), std::string("mixed-bf16"));
    QCOMPARE(j.at("main_grads").get<std::string>(), std::string("fp32"));
    QCOMPARE(j.at("optimizer_impl").get<std::string>(), std::string("foreach"));
    QCOMPARE(j.at("loss_impl").get<std::string>(), std::string("chunked"));
    QCOMPARE(j.at("tf32").get<std::string>(), std::string("none"));
    const json defaults = runJson({"simulate", "gpt2-tiny", "--json"}, &ok);
    QVERIFY(ok);
    QCOMPARE(defaults.at("main_grads").get<std::string>(), std::string("param"));
    QCOMPARE(defaults.at("optimizer_impl").get<std::string>(), std::string("fused"));
    QCOMPARE(defaults.at("loss_impl").get<std::string>(), std::string("standard"));
    QCOMPARE(defaults.at("tf32").get<std::string>(), std::string("conv"));

    const json half =
        runJson({"simulate", "mlp-3x1024", "-p", "mixed-bf16", "-o", "adam", "--json"}, &ok);
    QVERIFY(ok);
    const json full = runJson({"simulate", "mlp-3x1024", "-p", "mixed-bf16", "-o", "adam",
                               "--main-grads", "fp32", "--json"},
                              &ok);
    QVERIFY(ok);
    const auto params = full.at("parameters").get<std::int64_t>();
    const json& hb = half.at("breakdown_at_peak");
    const json& fb = full.at("breakdown_at_peak");
    // The peak is the last gradient's allocation in backward, every gradient then live.
    QCOMPARE(hb.at("gradients").get<std::int64_t>(), 2 * params);
    QCOMPARE(fb.at("gradients").get<std::int64_t>(), 4 * params);
    QCOMPARE(fb.at("parameters").get<std::int64_t>(), 2 * params);
    QCOMPARE(fb.at("optimizer_state").get<std::int64_t>(), 12 * params);

    const json standard = runJson({"simulate", "gpt2-small", "--json"}, &ok);
    QVERIFY(ok);
    const json chunked = runJson({"simulate", "gpt2-small", "--loss-impl", "chunked", "--json"}, &ok);
    QVERIFY(ok);
    QVERIFY(chunked.at("peak_bytes").get<std::int64_t>() <
            standard.at("peak_bytes").get<std::int64_t>());

    for (const char* impl : {"foreach", "for-loop"}) {
        const QStringList args = {"run", "mlp-3x1024", "--backend", "cpu", "-o", "adam",
                                  "--optimizer-impl", impl, "--threads", "1"};
        const RunResult r = runRemat(args);
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(describe(args, r)));
        QVERIFY2(r.out.contains(QString(impl) + " optimizer"), qPrintable(r.out));
    }
}
