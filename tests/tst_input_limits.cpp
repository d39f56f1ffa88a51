// The limits that keep hostile or absurd input from costing unbounded time or memory
// (docs/reliability.md): only regular files of at most 16 MiB are read, and a FIFO or a device
// file is refused without blocking; text echoed from files is escaped and cut; sizes saturate
// instead of wrapping; plan checks are n log n (100,000 regions); a program past the stated
// instruction count (a million accumulation steps, revolve:1 on a long chain) is refused before
// it is built, with the estimate; Revolve's nesting is built without recursion.
#include <QtTest/QtTest>

#include <QFile>
#include <QTemporaryDir>
#include <random>
#include <string>
#include <sys/stat.h>

#include "compiler.h"
#include "json_input.h"
#include "lower.h"
#include "model_file.h"
#include "plan.h"
#include "revolve.h"
#include "strategy.h"
#include "text.h"

using namespace remat;

namespace {

QString errorOf(const auto& result) {
    return result.ok() ? QString() : QString::fromStdString(result.error().message);
}

// An MLP of `n` linear layers of width 8 and an mse loss, as model-file text, with `plan`
// (JSON) appended when given.
std::string mlpModel(int n, const std::string& plan = {}) {
    std::string layers;
    for (int i = 0; i < n; ++i) layers += R"({"kind": "linear", "out": 8},)";
    std::string text = R"({"format": "remat-model/1", "input": {"shape": [8]}, "layers": [)" +
                       layers + R"({"kind": "mse"}])";
    if (!plan.empty()) text += R"(, "plan": )" + plan;
    return text + "}";
}

}  // namespace

class TstInputLimits : public QObject {
    Q_OBJECT

private slots:
    void onlyRegularFilesAreRead() {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("fifo").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // Opening a FIFO with no writer would block for ever; it is refused at once.
        QString msg = errorOf(readInputFile(fifo, "model"));
        QVERIFY2(msg.contains("is not a regular file"), qPrintable(msg));
        msg = errorOf(loadModel(fifo));
        QVERIFY2(msg.contains("is not a regular file"), qPrintable(msg));
        msg = errorOf(findDevice(fifo));
        QVERIFY2(msg.contains("is not a regular file"), qPrintable(msg));

        msg = errorOf(loadModel("/dev/zero"));
        QVERIFY2(msg.contains("'/dev/zero' is not a regular file"), qPrintable(msg));
        msg = errorOf(loadModel(dir.path().toStdString()));
        QVERIFY2(msg.contains("is a directory"), qPrintable(msg));
        msg = errorOf(loadModel(dir.filePath("missing.json").toStdString()));
        QVERIFY2(msg.contains("No such file or directory") && msg.contains("preset"),
                 qPrintable(msg));
    }

    void filesPastTheSizeLimitAreRefusedUnread() {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize(qint64(kMaxInputFileBytes) + 1));  // sparse: nothing is written
        f.close();
        const QString msg = errorOf(loadModel(path.toStdString()));
        QVERIFY2(msg.contains(QString::number(kMaxInputFileBytes + 1) + " bytes") &&
                     msg.contains("the largest accepted is 16 MiB"),
                 qPrintable(msg));
        // At the limit it is read (and then refused as JSON: it is all zero bytes).
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(qint64(kMaxInputFileBytes)));
        f.close();
        auto text = readInputFile(path.toStdString(), "model");
        QVERIFY(text.ok());
        QCOMPARE(text->size(), kMaxInputFileBytes);
    }

    void deepNestingIsRefusedBeforeParsing() {
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        QVERIFY(errorOf(parseJsonText(deep, "d.json")).contains("nested deeper than 32 levels"));
        // Brackets inside strings do not count; 32 levels are accepted.
        const std::string inString = "[\"" + std::string(1000, '[') + "\"]";
        QVERIFY(parseJsonText(inString, "s.json").ok());
        const std::string ok = std::string(32, '[') + std::string(32, ']');
        QVERIFY(parseJsonText(ok, "ok.json").ok());
        QVERIFY(!parseJsonText("[" + ok + "]", "ok.json").ok());
    }

    void numbersBeyondDoubleRangeAreAParseErrorNotAnException() {
        for (const char* text : {"[1e400]", "[-38e471]", "{\"a\": 1e309}"}) {
            const QString msg = errorOf(parseJsonText(text, "n.json"));
            QVERIFY2(msg.startsWith("n.json: $: not valid JSON: number overflow"), qPrintable(msg));
        }
    }

    void printableEscapesAndCuts() {
        QCOMPARE(printable("a\x1b]0;x\x07" "b"), std::string("a\\x1b]0;x\\x07b"));
        QCOMPARE(printable(std::string("n\0l", 3)), std::string("n\\x00l"));
        QCOMPARE(printable("tab\tnl\n"), std::string("tab\\tnl\\n"));
        QCOMPARE(printable("\x7f"), std::string("\\x7f"));
        // Valid UTF-8 is kept; invalid bytes and encoded surrogates are escaped.
        QCOMPARE(printable("模型 ü"), std::string("模型 ü"));
        QCOMPARE(printable("\xff\xfe"), std::string("\\xff\\xfe"));
        QCOMPARE(printable("\xed\xa0\x80"), std::string("\\xed\\xa0\\x80"));
        QCOMPARE(printable("\xc3"), std::string("\\xc3"));  // truncated sequence
        // Cut by code points, with the full length stated.
        QCOMPARE(printable("abcdef", 3), std::string("abc\xE2\x80\xA6 (6 bytes)"));
        QCOMPARE(printable("模型模型", 2), std::string("模型\xE2\x80\xA6 (12 bytes)"));
        const std::string huge(100 << 20, 'x');
        QVERIFY(printable(huge).size() < 200);
        QCOMPARE(printableJson(nlohmann::json::array({1, 2})), std::string("[1,2]"));
        QCOMPARE(printableJson(nlohmann::json(std::vector<int>(1000, 1))),
                 std::string("an array of 1000 elements"));
    }

    void sizesSaturateInsteadOfWrapping() {
        const Affine a{std::int64_t{1} << 40, 0};
        QCOMPARE(a.at(std::int64_t{1} << 24), kSaturated);
        QCOMPARE(a.at(2), std::int64_t{1} << 41);
        QCOMPARE(a.atReal(std::int64_t{1} << 24), std::ldexp(1.0, 64));
        Tensor t;
        t.shape = {std::int64_t{1} << 31, std::int64_t{1} << 31, std::int64_t{1} << 31};
        QCOMPARE(t.elements(), kSaturated);
        QCOMPARE(t.bytes().perSample, kSaturated);
        QCOMPARE(satProduct({3, 5, 7}), std::int64_t{105});
        QCOMPARE(satAdd(kSaturated, 1), kSaturated);
    }

    // The n log n overlap check agrees with the pairwise definition.
    void partialOverlapMatchesBruteForce() {
        std::mt19937 rng(14);
        for (int trial = 0; trial < 2000; ++trial) {
            std::vector<Region> regions;
            const int n = 1 + int(rng() % 8);
            for (int i = 0; i < n; ++i) {
                std::uint32_t a = rng() % 20, b = rng() % 20;
                if (a > b) std::swap(a, b);
                regions.push_back(Region{a, b, std::to_string(i), true});
            }
            bool brute = false;
            for (std::size_t i = 0; i < regions.size(); ++i)
                for (std::size_t j = 0; j < i; ++j) {
                    const Region& x = regions[i];
                    const Region& y = regions[j];
                    const bool disjoint = x.lastOp < y.firstOp || y.lastOp < x.firstOp;
                    brute |= !disjoint && !x.contains(y) && !y.contains(x);
                }
            const auto found = findPartialOverlap(regions);
            QCOMPARE(found.has_value(), brute);
            if (found) {
                const Region& x = regions[found->first];
                const Region& y = regions[found->second];
                QVERIFY(found->first < found->second);
                QVERIFY(!(x.lastOp < y.firstOp || y.lastOp < x.firstOp));
                QVERIFY(!x.contains(y) && !y.contains(x));
            }
        }
    }

    void hundredThousandPlanRegionsAreChecked() {
        std::string regions;
        const int layers = kMaxLayerInstances - 1;  // and the loss
        for (int i = 0; i < 100000; ++i) {
            const int a = i % layers;
            regions += "[" + std::to_string(a) + ", " + std::to_string(a) + "],";
        }
        std::string good = regions + "[0, " + std::to_string(layers - 1) + "]";
        auto m = parseModel(mlpModel(layers, "{\"regions\": [" + good + "]}"), "r.json");
        QVERIFY2(m.ok(), qPrintable(errorOf(m)));
        QCOMPARE(m->regions.size(), std::size_t(100001));
        // One partial overlap at the very end is found and named.
        std::string bad = regions + "[3, 7], [5, 9]";
        const QString msg = errorOf(parseModel(mlpModel(layers, "{\"regions\": [" + bad + "]}"), "r.json"));
        QVERIFY2(msg.contains("$.plan.regions[100001]: overlaps $.plan.regions[100000] partially"),
                 qPrintable(msg));
    }

    // A million accumulation steps compile to three micro-steps (the middle ones one repeated
    // body); written out in full they are refused before any work, with the estimate.
    void millionAccumulationStepsCompileCompactly() {
        auto m = loadModel("gpt2-small");
        QVERIFY(m.ok());
        auto g = lower(m->network, m->training.precision);
        QVERIFY(g.ok());
        auto plan = makePlan(*g, *parseStrategy("full"));
        QVERIFY(plan.ok());
        TrainingConfig cfg = m->training;
        cfg.accumulationSteps = 1000000;
        auto p = compile(*g, *plan, cfg);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        QVERIFY(p->repeat.has_value());
        QCOMPARE(p->repeat->times, std::int64_t(999998));
        QVERIFY(std::int64_t(p->instructions.size()) < kMaxProgramInstructions / 100);
        CompileOptions flat;
        flat.expandAccumulation = true;
        const QString msg = errorOf(compile(*g, *plan, cfg, flat));
        QVERIFY2(msg.contains("would compile to about") && msg.contains("1000000 accumulation steps") &&
                     msg.contains(QString::number(kMaxProgramInstructions)),
                 qPrintable(msg));
        cfg.accumulationSteps = 8;
        QVERIFY(compile(*g, *plan, cfg, flat).ok());
    }

    // revolve:1 nests as deep as the chain: built without recursion, refused by size before the
    // quadratic program is materialised.
    void revolveOneSlotOnALongChain() {
        Network net;
        net.input.shape = {8};
        for (int i = 0; i < kMaxLayerInstances - 1; ++i) {
            Layer l;
            l.kind = LayerKind::Linear;
            l.out = 8;
            net.layers.push_back(l);
        }
        Layer loss;
        loss.kind = LayerKind::Mse;
        net.layers.push_back(loss);
        auto g = lower(net, Precision::Fp32);
        QVERIFY2(g.ok(), qPrintable(errorOf(g)));
        auto plan = planRevolve(*g, 1);
        QVERIFY2(plan.ok(), qPrintable(errorOf(plan)));
        QCOMPARE(plan->regions.size(), g->chain.size() - 1);
        const QString msg = errorOf(compile(*g, *plan, TrainingConfig{}));
        QVERIFY2(msg.contains("plan 'revolve:1' would compile to about"), qPrintable(msg));
        // With enough slots the same chain compiles.
        auto wide = planRevolve(*g, 64);
        QVERIFY(wide.ok());
        QVERIFY2(compile(*g, *wide, TrainingConfig{}).ok(), "revolve:64");
    }

    void layerInstancesAreCapped() {
        Network net;
        net.input.shape = {8};
        Layer l;
        l.kind = LayerKind::Linear;
        l.out = 8;
        net.layers.assign(std::size_t(kMaxLayerInstances) + 5, l);
        net.layers.back().kind = LayerKind::Mse;
        QVERIFY(errorOf(inferShapes(net)).contains("more than 2000 layer instances"));
        // Repeats count too; a repeat past the cap saturates rather than wrapping.
        Network blocks;
        blocks.input.tokens = 8;
        blocks.input.vocab = 16;
        Layer emb;
        emb.kind = LayerKind::Embedding;
        emb.dim = 8;
        Layer block;
        block.kind = LayerKind::TransformerBlock;
        block.heads = 2;
        block.mlpHidden = 8;
        block.repeat = std::int64_t{1} << 62;
        Layer head;
        head.out = 16;
        Layer ce;
        ce.kind = LayerKind::CrossEntropy;
        blocks.layers = {emb, block, block, head, ce};
        QCOMPARE(expandedLayerCount(blocks), kMaxLayerInstances + 1);
        QVERIFY(errorOf(inferShapes(blocks)).contains("more than 2000 layer instances"));
    }
};

QTEST_GUILESS_MAIN(TstInputLimits)
#include "tst_input_limits.moc"
