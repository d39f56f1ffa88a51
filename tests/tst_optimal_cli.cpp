// `remat pareto`, `remat max-batch` and the optimal strategies through `remat simulate`, run as
// a user runs them: the frontier rises in peak and falls in step time, no every:K plan beats
// it, its ends are the smallest feasible peak and no checkpointing; the largest micro-batches
// respect the device, reach the global batch exactly, and the optimum's is no smaller than any
// single-level strategy's; budgets nobody meets are refused with the smallest reachable peak.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest/QtTest>

namespace {

struct Output {
    int exitCode = -1;
    QByteArray out, err;
};

Output remat(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(REMAT_CLI_PATH), args);
    if (!p.waitForFinished(600000)) qFatal("remat did not finish");
    return Output{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

}  // namespace

class TestOptimalCli : public QObject {
    Q_OBJECT

private slots:
    void paretoFrontier() {
        for (const char* model : {"resnet-101", "gpt2-tiny", "gpt2-small"}) {
            Output o = remat({"pareto", model, "--json"});
            QCOMPARE(o.exitCode, 0);
            const QJsonObject j = QJsonDocument::fromJson(o.out).object();
            const QJsonArray frontier = j["frontier"].toArray();
            QVERIFY(!frontier.isEmpty());
            for (int i = 1; i < frontier.size(); ++i) {
                QVERIFY(frontier[i]["peak_bytes"].toDouble() > frontier[i - 1]["peak_bytes"].toDouble());
                QVERIFY(frontier[i]["step_time_s"].toDouble() < frontier[i - 1]["step_time_s"].toDouble());
            }
            // The last point is no checkpointing: no recompute, the baseline step time.
            QCOMPARE(frontier.last()["recompute_time_s"].toDouble(), 0.0);
            QCOMPARE(frontier.last()["regions"].toInt(), 0);
            // No every:K plan beats the optimum (both are single-level plans over the chain).
            const QJsonArray everyK = j["every_k"].toArray();
            QVERIFY(everyK.size() >= 1);
            for (const auto& v : everyK) {
                const QJsonObject p = v.toObject();
                QVERIFY(p["optimal_peak_at_equal_time_bytes"].toDouble() <= p["peak_bytes"].toDouble());
                QVERIFY(p["optimal_time_at_equal_memory_s"].toDouble() <=
                        p["step_time_s"].toDouble() * (1 + 1e-9));
            }
        }
        Output csv = remat({"pareto", "gpt2-tiny", "--csv"});
        QCOMPARE(csv.exitCode, 0);
        const QList<QByteArray> lines = csv.out.trimmed().split('\n');
        QVERIFY(lines.first().startsWith("kind,label,peak_bytes,step_time_s"));
        QVERIFY(lines.size() > 3);
        for (const QByteArray& l : lines.mid(1)) {
            // The label is quoted; the other seven fields hold no commas.
            const int open = l.indexOf('"'), close = l.indexOf('"', open + 1);
            QVERIFY(open > 0 && close > open);
            QCOMPARE(l.left(open).count(',') + l.mid(close).count(','), 7);
        }
    }

    void maxBatch() {
        Output o = remat({"max-batch", "gpt2-small", "--device", "a100-40gb", "--global-batch", "256", "--json"});
        QCOMPARE(o.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(o.out).array();
        QVERIFY(rows.size() >= 5);
        const double usable = 39.0 * (1 << 30);  // a100-40gb: 40 GiB less its 1 GiB reserve
        double optimalMax = 0, bestSingleLevel = 0;
        for (const auto& v : rows) {
            const QJsonObject r = v.toObject();
            const QString s = r["strategy"].toString();
            QVERIFY(r["micro_batch"].toInt() >= 1);
            QCOMPARE(r["micro_batch"].toInt() * r["accumulation_steps"].toInt(), 256);
            QVERIFY(r["micro_batch"].toInt() <= r["max_micro_batch"].toInt());
            QVERIFY(r["peak_bytes"].toDouble() <= usable);
            QVERIFY(r["samples_per_s"].toDouble() > 0);
            if (s == "optimal") optimalMax = r["max_micro_batch"].toDouble();
            else if (!s.startsWith("selective"))
                bestSingleLevel = std::max(bestSingleLevel, r["max_micro_batch"].toDouble());
        }
        QVERIFY(optimalMax >= bestSingleLevel);
        // A model that cannot fit at all says so rather than failing.
        Output big = remat({"max-batch", "llama-7b", "--device", "h100-80gb-sxm"});
        QCOMPARE(big.exitCode, 0);
        QVERIFY(big.out.contains("does not fit"));
    }

    void simulateOptimal() {
        Output o = remat({"simulate", "gpt2-small", "-s", "optimal:10GiB", "--json"});
        QCOMPARE(o.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(o.out).object();
        QCOMPARE(j["strategy"].toString(), QString("optimal:10GiB"));
        QVERIFY(j["peak_bytes"].toDouble() <= 10.0 * (1 << 30));
        Output nested = remat({"simulate", "gpt2-small", "-s", "optimal-nested:8GiB", "--json"});
        QCOMPARE(nested.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(nested.out).object()["peak_bytes"].toDouble() <= 8.0 * (1 << 30));
        Output rev = remat({"simulate", "gpt2-small", "-s", "revolve:3"});
        QCOMPARE(rev.exitCode, 0);
        Output no = remat({"simulate", "gpt3-175b", "-s", "optimal:80GiB"});
        QCOMPARE(no.exitCode, 2);
        QVERIFY(no.err.contains("cannot be met"));
        QVERIFY(no.err.contains("model states alone (parameters, gradients, optimizer state)"));
        Output bad = remat({"simulate", "gpt2-small", "-s", "optimal:lots"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("not a byte size"));
    }
};

QTEST_GUILESS_MAIN(TestOptimalCli)
#include "tst_optimal_cli.moc"
