// Tests of the model-file format (docs/model-format.md): every broken file of the
// corpus in tests/data/bad is rejected with a message that names the file and the JSON path of
// the bad field; systematically mutated presets never crash the parser and are either accepted
// (and then usable: they round-trip, lower and plan) or rejected with a JSON path; every preset
// and every hand-written file in tests/data/good round-trips exactly through modelToJson and
// through saveModel/loadModel; a save that cannot succeed reports it.
#include <QtTest/QtTest>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "device.h"
#include "lower.h"
#include "model_file.h"
#include "strategy.h"

using nlohmann::json;
using namespace remat;

namespace {

const QString kDataDir = QStringLiteral(REMAT_TEST_DATA_DIR);
// The spec asks for a corpus of at least this many broken files.
constexpr int kMinBadFiles = 30;

std::string readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = f.readAll();
    return std::string(bytes.constData(), std::size_t(bytes.size()));
}

struct ManifestEntry {
    QString file;
    QString expected;
};

// tests/data/bad/expected.tsv: `file<TAB>substring`, '#' comments.
std::vector<ManifestEntry> readManifest() {
    std::vector<ManifestEntry> out;
    QFile f(kDataDir + "/bad/expected.tsv");
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return out;
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith('#')) continue;
        const qsizetype tab = line.indexOf('\t');
        if (tab < 0) {
            out.push_back({line, QString()});  // reported by badCorpusManifestIsComplete
            continue;
        }
        out.push_back({line.left(tab), line.mid(tab + 1)});
    }
    return out;
}

QStringList goodFiles() {
    QStringList out;
    for (const QString& name : QDir(kDataDir + "/good").entryList({"*.json"}, QDir::Files))
        out << kDataDir + "/good/" + name;
    return out;
}

// Every node of a JSON document with its pointer, root first.
void walk(const json& node, const json::json_pointer& at,
          const std::function<void(const json::json_pointer&, const json&)>& visit) {
    visit(at, node);
    if (node.is_object()) {
        for (const auto& [key, value] : node.items()) walk(value, at / key, visit);
    } else if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i) walk(node[i], at / i, visit);
    }
}

struct Mutant {
    std::string what;  // "/layers/1/heads = -1", for failure messages
    json doc;
};

// Systematic mutations of one valid document: every integer set to 0, -1, 2^40, a string and
// null; every float to -0.5, 1.0, a string and null; every string to a number and null; every
// boolean to a number; every non-root container to a number; every object member deleted.
std::vector<Mutant> mutate(const json& base) {
    std::vector<Mutant> out;
    auto replace = [&](const json::json_pointer& at, const json& v) {
        json doc = base;
        doc[at] = v;
        out.push_back({at.to_string() + " = " + v.dump(), std::move(doc)});
    };
    walk(base, json::json_pointer(), [&](const json::json_pointer& at, const json& node) {
        if (at.empty()) return;
        if (node.is_number_integer()) {
            for (const json& v : {json(0), json(-1), json(std::int64_t{1} << 40), json("12"),
                                  json(nullptr)})
                replace(at, v);
        } else if (node.is_number_float()) {
            for (const json& v : {json(-0.5), json(1.0), json("0.1"), json(nullptr)})
                replace(at, v);
        } else if (node.is_string()) {
            replace(at, json(42));
            replace(at, json(nullptr));
        } else if (node.is_boolean()) {
            replace(at, json(1));
        } else {
            replace(at, json(7));
        }
        const json::json_pointer parent = at.parent_pointer();
        if (base[parent].is_object()) {
            json doc = base;
            doc[parent].erase(at.back());
            out.push_back({"delete " + at.to_string(), std::move(doc)});
        }
    });
    return out;
}

// A model the parser accepted must be usable: it round-trips and its network lowers and plans.
QString checkUsable(const ModelFile& m) {
    auto again = parseModel(modelToJson(m), "again");
    if (!again) return QString::fromStdString("re-parse failed: " + again.error().message);
    if (!(*again == m)) return "round trip changed the model";
    auto g = lower(m.network, m.training.precision);
    if (!g) return QString::fromStdString("lower failed: " + g.error().message);
    auto s = parseStrategy(defaultStrategy(m));
    if (!s) return QString::fromStdString("strategy: " + s.error().message);
    // The device the CLI would use: the budget-driven planners need it.
    auto device = findDevice(m.device.empty() ? "a100-80gb" : m.device);
    if (!device) return QString::fromStdString("device: " + device.error().message);
    PlanContext context{manualRegions(m), &m.training, &*device};
    auto plan = makePlan(*g, *s, context);
    if (!plan) return QString::fromStdString("plan: " + plan.error().message);
    return {};
}

}  // namespace

class TstModelFile : public QObject {
    Q_OBJECT

private slots:
    void badCorpus_data();
    void badCorpus();
    void badCorpusManifestIsComplete();
    void mutatedDocumentsNeverCrash();
    void roundTrip_data();
    void roundTrip();
    void writtenJsonKeepsEveryGivenField_data();
    void writtenJsonKeepsEveryGivenField();
    void defaultsAreTheDocumentedOnes();
    void planForms();
    void convolutionDilationAndGroups();
    void frameworkSettingsRoundTrip();
    void saveAndLoad_data();
    void saveAndLoad();
    void saveToMissingDirectoryFails();
    void saveOverDirectoryFailsAndLeavesNoTemporary();
    void loadMissingFileNamesIt();
};

void TstModelFile::badCorpus_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    for (const auto& e : readManifest())
        QTest::newRow(e.file.toUtf8().constData()) << e.file << e.expected;
}

void TstModelFile::badCorpus() {
    QFETCH(QString, file);
    QFETCH(QString, expected);
    QVERIFY2(!expected.isEmpty(), "manifest line has no expected substring");
    const QString path = kDataDir + "/bad/" + file;
    QVERIFY2(QFile::exists(path), qPrintable(path + " is listed but missing"));

    const std::string origin = path.toStdString();
    auto parsed = parseModel(readText(path), origin);
    QVERIFY2(!parsed.ok(), qPrintable(file + " was accepted"));
    const QString message = QString::fromStdString(parsed.error().message);
    // "FILE: $...: what": the file first, then the JSON path (shape errors: "$.layers: layer
    // N (kind): ...").
    QVERIFY2(message.startsWith(path + ": $"), qPrintable(message));
    QVERIFY2(message.contains(expected),
             qPrintable("message: " + message + "\nexpected to contain: " + expected));

    // Loading the file by path gives the same rejection.
    auto loaded = loadModel(origin);
    QVERIFY(!loaded.ok());
    QCOMPARE(QString::fromStdString(loaded.error().message), message);
}

void TstModelFile::badCorpusManifestIsComplete() {
    const auto manifest = readManifest();
    std::set<QString> listed;
    for (const auto& e : manifest) {
        QVERIFY2(!e.expected.isEmpty(), qPrintable(e.file + ": no tab-separated substring"));
        QVERIFY2(listed.insert(e.file).second, qPrintable(e.file + " is listed twice"));
    }
    const QStringList files = QDir(kDataDir + "/bad").entryList({"*.json"}, QDir::Files);
    for (const QString& f : files)
        QVERIFY2(listed.count(f), qPrintable(f + " is not in expected.tsv"));
    QCOMPARE(listed.size(), std::size_t(files.size()));
    QVERIFY2(files.size() >= kMinBadFiles, qPrintable(QString::number(files.size())));
    qInfo("bad corpus: %d files", int(files.size()));
}

void TstModelFile::mutatedDocumentsNeverCrash() {
    QElapsedTimer timer;
    timer.start();
    std::vector<std::pair<std::string, std::string>> bases;  // (label, canonical JSON text)
    for (const std::string& name : builtinModelNames()) {
        auto m = loadModel(name);
        QVERIFY2(m.ok(), name.c_str());
        bases.emplace_back(name, modelToJson(*m));
    }
    for (const QString& path : goodFiles()) bases.emplace_back(path.toStdString(), readText(path));
    QVERIFY(bases.size() >= 6);

    int total = 0, accepted = 0;
    for (const auto& [label, text] : bases) {
        const json base = json::parse(text);
        for (const Mutant& mu : mutate(base)) {
            ++total;
            auto r = parseModel(mu.doc.dump(), "mutant.json");
            const std::string context = label + ": " + mu.what;
            if (r) {
                ++accepted;
                const QString problem = checkUsable(*r);
                QVERIFY2(problem.isEmpty(), qPrintable(QString::fromStdString(context) + ": " +
                                                       problem));
            } else {
                const std::string& msg = r.error().message;
                QVERIFY2(msg.rfind("mutant.json: $.", 0) == 0,
                         (context + " -> " + msg).c_str());
            }
        }
    }
    // Some mutations are legal (a size set to 0 where 0 means "none", a field deleted that
    // has a default), most are not; both branches must have been exercised.
    QVERIFY(accepted > 0);
    QVERIFY(total - accepted > accepted);
    qInfo("mutated documents: %d (%d accepted, %d rejected) in %lld ms", total, accepted,
          total - accepted, static_cast<long long>(timer.elapsed()));
}

void TstModelFile::roundTrip_data() {
    QTest::addColumn<QString>("source");
    for (const std::string& name : builtinModelNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
    for (const QString& path : goodFiles())
        QTest::newRow(QFileInfo(path).fileName().toUtf8().constData()) << path;
}

void TstModelFile::roundTrip() {
    QFETCH(QString, source);
    auto m = loadModel(source.toStdString());
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QVERIFY(checkUsable(*m).isEmpty());

    const std::string text = modelToJson(*m);
    auto again = parseModel(text, "written.json");
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
    QVERIFY(*again == *m);
    // Stable: writing the re-read model gives the same text, byte for byte.
    QCOMPARE(QString::fromStdString(modelToJson(*again)), QString::fromStdString(text));
    QCOMPARE(QString::fromStdString(modelToJson(*m)), QString::fromStdString(text));
}

void TstModelFile::writtenJsonKeepsEveryGivenField_data() {
    QTest::addColumn<QString>("path");
    for (const QString& path : goodFiles())
        QTest::newRow(QFileInfo(path).fileName().toUtf8().constData()) << path;
}

// Equality after a round trip would also hold if the parser dropped a field on the floor; so
// every value a hand-written file gives must come back out of modelToJson unchanged (the
// writer may add defaults, never lose or alter what was given).
void TstModelFile::writtenJsonKeepsEveryGivenField() {
    QFETCH(QString, path);
    const json given = json::parse(readText(path));
    auto m = loadModel(path.toStdString());
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    const json written = json::parse(modelToJson(*m));
    int leaves = 0;
    walk(given, json::json_pointer(), [&](const json::json_pointer& at, const json& node) {
        if (node.is_structured()) return;
        ++leaves;
        if (!written.contains(at)) {
            // The writer leaves out some defaults ("inplace": false); then the given value
            // must be that default: the file without it parses to the same model.
            json without = given;
            without[at.parent_pointer()].erase(at.back());
            auto w = parseModel(without.dump(), "without.json");
            QVERIFY2(w.ok() && *w == *m,
                     qPrintable(QString::fromStdString(at.to_string()) +
                                " is missing from the written file and is not a default"));
            return;
        }
        // nlohmann compares 0 and 0.0 as numbers, so "p": 0 matches a written 0.0.
        QVERIFY2(written[at] == node,
                 qPrintable(QString::fromStdString(at.to_string() + ": given " + node.dump() +
                                                   ", written " + written[at].dump())));
    });
    QVERIFY(leaves > 0);
}

void TstModelFile::defaultsAreTheDocumentedOnes() {
    const std::string text = R"({"format": "remat-model/1", "input": {"tokens": 16, "vocab": 32},
        "layers": [{"kind": "embedding", "dim": 16},
                   {"kind": "transformer_block", "heads": 2, "mlp_hidden": 32},
                   {"kind": "linear", "out": 32}, {"kind": "cross_entropy"}]})";
    auto m = parseModel(text, "defaults.json");
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QCOMPARE(m->planForm, PlanForm::None);
    QCOMPARE(QString::fromStdString(defaultStrategy(*m)), QStringLiteral("none"));
    QVERIFY(m->device.empty());
    QVERIFY(!m->network.tieEmbeddings);
    QCOMPARE(m->training.microBatch, std::int64_t{1});
    QCOMPARE(m->training.accumulationSteps, std::int64_t{1});
    QCOMPARE(m->training.precision, Precision::Fp32);
    QCOMPARE(m->training.optimizer, Optimizer::Sgd);
    // The framework settings' defaults (docs/model-format.md): gradients in the parameters'
    // dtype, the fused optimizer, the standard cross-entropy, TF32 for convolutions only.
    QCOMPARE(m->training.mainGrads, MainGrads::Param);
    QCOMPARE(m->training.optimizerImpl, OptimizerImpl::Fused);
    QCOMPARE(m->training.lossImpl, LossImpl::Standard);
    QCOMPARE(m->training.tf32, Tf32Mode::Conv);
    // Defaults are not written, so files from before these settings are written unchanged.
    const json written = json::parse(modelToJson(*m));
    for (const char* key : {"main_grads", "optimizer_impl", "loss_impl", "tf32"})
        QVERIFY2(!written.at("training").contains(key), key);
    QCOMPARE(m->training.recomputeImpl, RecomputeImpl::Pytorch);
    const Layer& emb = m->network.layers[0];
    QCOMPARE(emb.positions, std::int64_t{0});
    QCOMPARE(emb.dropout, 0.0);
    const Layer& block = m->network.layers[1];
    QCOMPARE(block.repeat, std::int64_t{1});
    QCOMPARE(block.kvHeads, std::int64_t{0});  // 0: as many KV heads as heads
    QCOMPARE(block.activation, Activation::Gelu);
    QCOMPARE(block.norm, NormKind::LayerNorm);
    QCOMPARE(block.attention, AttentionImpl::Eager);
    QVERIFY(block.causal);
    QVERIFY(!block.gated);
    QVERIFY(block.bias);
    QCOMPARE(block.dropout, 0.0);
    QVERIFY(m->network.layers[2].bias);

    const std::string images = R"({"format": "remat-model/1", "input": {"shape": [3, 8, 8]},
        "layers": [{"kind": "conv2d", "out_channels": 4, "kernel": 3},
                   {"kind": "maxpool2d", "kernel": 2},
                   {"kind": "residual_block", "channels": 4},
                   {"kind": "relu"}, {"kind": "dropout", "p": 0.5},
                   {"kind": "flatten"}, {"kind": "mse"}]})";
    auto im = parseModel(images, "images.json");
    QVERIFY2(im.ok(), im.ok() ? "" : im.error().message.c_str());
    const auto& L = im->network.layers;
    QCOMPARE(L[0].stride, std::int64_t{1});
    QCOMPARE(L[0].padding, std::int64_t{0});
    QVERIFY(L[0].bias);
    QCOMPARE(L[1].stride, L[1].kernel);  // PyTorch's MaxPool2d: stride defaults to the kernel
    QCOMPARE(L[1].padding, std::int64_t{0});
    QCOMPARE(L[2].variant, ResidualVariant::Basic);
    QCOMPARE(L[2].stride, std::int64_t{1});
    QVERIFY(!L[3].inplace);
    QVERIFY(!L[4].inplace);
}

// Every value of every framework setting (precision modes, fp32 main gradients, optimizer and
// cross-entropy implementations, TF32) is written under its documented key and read back.
void TstModelFile::frameworkSettingsRoundTrip() {
    auto base = loadModel("gpt2-tiny");
    QVERIFY(base.ok());
    auto check = [&](const ModelFile& m, const char* key, const std::string& spelling) {
        const std::string text = modelToJson(m);
        const json written = json::parse(text);
        QVERIFY2(written.at("training").contains(key), key);
        QCOMPARE(QString::fromStdString(written.at("training").at(key).get<std::string>()),
                 QString::fromStdString(spelling));
        auto again = parseModel(text, "written.json");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QVERIFY(again->training == m.training);
    };
    for (Precision p : {Precision::Fp32, Precision::MixedBf16, Precision::MixedFp16,
                        Precision::AutocastBf16, Precision::AutocastFp16, Precision::Bf16}) {
        ModelFile m = *base;
        m.training.precision = p;
        check(m, "precision", std::string(precisionName(p)));
        QCOMPARE(parsePrecision(precisionName(p)), std::optional<Precision>(p));
    }
    ModelFile grads = *base;
    grads.training.precision = Precision::MixedBf16;
    grads.training.mainGrads = MainGrads::Fp32;
    check(grads, "main_grads", "fp32");
    for (OptimizerImpl i : {OptimizerImpl::Foreach, OptimizerImpl::ForLoop}) {
        ModelFile m = *base;
        m.training.optimizerImpl = i;
        check(m, "optimizer_impl", std::string(optimizerImplName(i)));
    }
    ModelFile chunked = *base;
    chunked.training.lossImpl = LossImpl::Chunked;
    check(chunked, "loss_impl", "chunked");
    for (Tf32Mode t : {Tf32Mode::None, Tf32Mode::Matmul, Tf32Mode::All}) {
        ModelFile m = *base;
        m.training.tf32 = t;
        check(m, "tf32", std::string(tf32ModeName(t)));
    }
}

// conv2d's dilation and groups (format 2): the output size, the weight [out, in / groups, k, k],
// the parameter count and FLOPs, the checks naming the field, and the version the writer picks.
void TstModelFile::convolutionDilationAndGroups() {
    const std::string model = R"({"format": "remat-model/3", "input": {"shape": [8, 12, 12]},
        "layers": [{"kind": "conv2d", "out_channels": 12, "kernel": 3, "padding": 1,
                    "dilation": 2, "groups": 4, "bias": false},
                   {"kind": "conv2d", "out_channels": 12, "kernel": 3, "stride": 2, "padding": 1,
                    "groups": 12},
                   {"kind": "flatten"}, {"kind": "mse"}]})";
    auto m = parseModel(model, "grouped.json");
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QCOMPARE(m->network.layers[0].dilation, std::int64_t{2});
    QCOMPARE(m->network.layers[0].groups, std::int64_t{4});
    QCOMPARE(m->network.layers[1].dilation, std::int64_t{1});
    auto shapes = inferShapes(m->network);
    QVERIFY(shapes.ok());
    // (12 + 2 - 2·2 - 1) / 1 + 1 = 10; then (10 + 2 - 3) / 2 + 1 = 5.
    QVERIFY((*shapes)[1] == Shape({12, 10, 10}));
    QVERIFY((*shapes)[2] == Shape({12, 5, 5}));
    auto g = lower(m->network, m->training);
    QVERIFY2(g.ok(), g.ok() ? "" : g.error().message.c_str());
    // 12 · 8/4 · 9 = 216 weights; the depthwise one 12 · 1 · 9 + 12 bias = 120.
    QCOMPARE(g->parameterCount, std::int64_t{216 + 120});
    const Op& dilated = g->ops[0];
    QCOMPARE(dilated.kind, OpKind::Conv2d);
    QCOMPARE(dilated.attrs.dilation, std::int64_t{2});
    QCOMPARE(dilated.attrs.groups, std::int64_t{4});
    QCOMPARE(g->tensor(dilated.params[0]).shape, Shape({12, 2, 3, 3}));
    QCOMPARE(dilated.forward.flops.perSample, std::int64_t{2} * 12 * 10 * 10 * 2 * 9);

    // Written back as version 3, the fields kept; without them the file is version 1 and
    // holds neither key.
    const json written = json::parse(modelToJson(*m));
    QCOMPARE(written.at("format").get<std::string>(), std::string("remat-model/3"));
    QCOMPARE(written.at("layers")[0].at("groups").get<int>(), 4);
    QCOMPARE(written.at("layers")[1].at("groups").get<int>(), 12);
    QVERIFY(!written.at("layers")[1].contains("dilation"));
    ModelFile plain = *m;
    for (Layer& l : plain.network.layers) l.dilation = l.groups = 1;
    plain.network.layers[1].outChannels = 12;
    const json plainWritten = json::parse(modelToJson(plain));
    QCOMPARE(plainWritten.at("format").get<std::string>(), std::string("remat-model/1"));
    QVERIFY(!plainWritten.at("layers")[0].contains("groups"));

    // A version 2 file holding either key is refused as a version 2 reader refuses it.
    std::string v1 = model;
    v1.replace(v1.find("remat-model/3"), 13, "remat-model/2");
    auto old = parseModel(v1, "v1.json");
    QVERIFY(!old.ok());
    QVERIFY2(QString::fromStdString(old.error().message).contains("dilation: unknown field"),
             old.error().message.c_str());

    auto refused = [](const std::string& layer) {
        auto r = parseModel(R"({"format": "remat-model/3", "input": {"shape": [6, 8, 8]},
            "layers": [)" + layer + R"(, {"kind": "flatten"}, {"kind": "mse"}]})",
                            "bad.json");
        return r.ok() ? std::string() : r.error().message;
    };
    const std::string notDividingIn =
        refused(R"({"kind": "conv2d", "out_channels": 8, "kernel": 3, "groups": 4})");
    QVERIFY2(QString::fromStdString(notDividingIn)
                 .contains("groups (4) must divide the input channels (6)"),
             notDividingIn.c_str());
    const std::string notDividingOut =
        refused(R"({"kind": "conv2d", "out_channels": 4, "kernel": 3, "groups": 3})");
    QVERIFY2(QString::fromStdString(notDividingOut).contains("groups (3) must divide out_channels (4)"),
             notDividingOut.c_str());
    const std::string tooDilated =
        refused(R"({"kind": "conv2d", "out_channels": 6, "kernel": 3, "dilation": 4})");
    QVERIFY2(QString::fromStdString(tooDilated).contains("at least as large as the dilated kernel"),
             tooDilated.c_str());
    const std::string zeroGroups =
        refused(R"({"kind": "conv2d", "out_channels": 6, "kernel": 3, "groups": 0})");
    QVERIFY2(QString::fromStdString(zeroGroups).contains("groups"), zeroGroups.c_str());
}

void TstModelFile::planForms() {
    const std::string head = R"({"format": "remat-model/1", "input": {"shape": [3, 16, 16]},
        "layers": [{"kind": "conv2d", "out_channels": 8, "kernel": 3, "padding": 1},
                   {"kind": "residual_block", "channels": 8, "repeat": 3)";
    const std::string tail = R"(},
                   {"kind": "global_avg_pool"}, {"kind": "flatten"},
                   {"kind": "linear", "out": 10}, {"kind": "cross_entropy"}])";

    // Per-layer flag on a repeated entry: each instance is its own region (instances 1..3).
    auto flags = parseModel(head + R"(, "checkpoint": true)" + tail + "}", "flags.json");
    QVERIFY2(flags.ok(), flags.ok() ? "" : flags.error().message.c_str());
    QCOMPARE(flags->planForm, PlanForm::PerLayer);
    QCOMPARE(QString::fromStdString(defaultStrategy(*flags)), QStringLiteral("manual"));
    const std::vector<RegionSpec> perInstance = {
        {false, 1, 1, ""}, {false, 2, 2, ""}, {false, 3, 3, ""}};
    QVERIFY(manualRegions(*flags) == perInstance);

    auto named = parseModel(head + tail + R"(, "plan": {"strategy": "every:2"}})", "named.json");
    QVERIFY2(named.ok(), named.ok() ? "" : named.error().message.c_str());
    QCOMPARE(named->planForm, PlanForm::Strategy);
    QCOMPARE(QString::fromStdString(defaultStrategy(*named)), QStringLiteral("every:2"));
    QVERIFY(manualRegions(*named).empty());

    auto regions = parseModel(
        head + tail + R"(, "plan": {"regions": [[1, 3], "2/shortcut", [4, 6]]}})", "r.json");
    // Instance 2 is a basic block with 8 -> 8 channels and stride 1: it has no projection
    // shortcut, so that path names no module.
    QVERIFY(!regions.ok());
    QVERIFY2(QString::fromStdString(regions.error().message)
                 .startsWith("r.json: $.plan.regions[1]: no module '2/shortcut'"),
             regions.error().message.c_str());
    auto regions2 =
        parseModel(head + tail + R"(, "plan": {"regions": [[1, 3], "0", [4, 6]]}})", "r.json");
    QVERIFY2(regions2.ok(), regions2.ok() ? "" : regions2.error().message.c_str());
    QCOMPARE(regions2->planForm, PlanForm::Regions);
    QCOMPARE(QString::fromStdString(defaultStrategy(*regions2)), QStringLiteral("manual"));
    const std::vector<RegionSpec> expected = {
        {false, 1, 3, ""}, {true, 0, 0, "0"}, {false, 4, 6, ""}};
    QVERIFY(manualRegions(*regions2) == expected);
}

void TstModelFile::saveAndLoad_data() { roundTrip_data(); }

void TstModelFile::saveAndLoad() {
    QFETCH(QString, source);
    auto m = loadModel(source.toStdString());
    QVERIFY(m.ok());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("saved.json").toStdString();
    auto st = saveModel(*m, path);
    QVERIFY2(st.ok(), st.ok() ? "" : st.error().message.c_str());
    QCOMPARE(QString::fromStdString(readText(QString::fromStdString(path))),
             QString::fromStdString(modelToJson(*m)));
    auto loaded = loadModel(path);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
    QVERIFY(*loaded == *m);
    // Saving again over the file replaces it with identical text; no temporary is left.
    QVERIFY(saveModel(*loaded, path).ok());
    QCOMPARE(QString::fromStdString(readText(QString::fromStdString(path))),
             QString::fromStdString(modelToJson(*m)));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot),
             QStringList{"saved.json"});
}

void TstModelFile::saveToMissingDirectoryFails() {
    auto m = loadModel("mlp-3x1024");
    QVERIFY(m.ok());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("does-not-exist/model.json").toStdString();
    auto st = saveModel(*m, path);
    QVERIFY(!st.ok());
    QVERIFY2(st.error().message.find(path) != std::string::npos, st.error().message.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(path)));
}

void TstModelFile::saveOverDirectoryFailsAndLeavesNoTemporary() {
    auto m = loadModel("mlp-3x1024");
    QVERIFY(m.ok());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir("taken"));
    const std::string path = dir.filePath("taken").toStdString();
    auto st = saveModel(*m, path);
    QVERIFY(!st.ok());
    QVERIFY2(st.error().message.find(path) != std::string::npos, st.error().message.c_str());
    QVERIFY(QFileInfo(QString::fromStdString(path)).isDir());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{"taken"});
}

void TstModelFile::loadMissingFileNamesIt() {
    const std::string path = (kDataDir + "/no-such-model.json").toStdString();
    auto m = loadModel(path);
    QVERIFY(!m.ok());
    QVERIFY2(m.error().message.find(path) != std::string::npos, m.error().message.c_str());
    // The message lists the presets, since a misspelt preset name lands here too.
    QVERIFY2(m.error().message.find("gpt2-small") != std::string::npos,
             m.error().message.c_str());
}

QTEST_GUILESS_MAIN(TstModelFile)
#include "tst_model_file.moc"
