// sim/shrink.h: every preset shrinks to a network that lowers, with the same op kinds in the
// same order per layer (checked with repeats kept, so the op sequences line up one to one),
// every reported change goes down and names a model-file field, the grouping ratio of
// grouped-KV attention and the MLP's ratio to the model width survive, a given micro-batch is
// kept on request, and a shrunk network is small (a few MiB of parameters).
#include <QtTest>

#include "lower.h"
#include "model_file.h"
#include "shrink.h"

using namespace remat;

namespace {

std::vector<OpKind> opKinds(const Graph& g) {
    std::vector<OpKind> k;
    for (const Op& op : g.ops) k.push_back(op.kind);
    return k;
}

Graph lowerOrDie(const Network& n, const TrainingConfig& t) {
    auto g = lower(n, t);
    if (!g) qFatal("%s", g.error().message.c_str());
    return std::move(*g);
}

}  // namespace

class TestShrink : public QObject {
    Q_OBJECT

private slots:
    void everyPresetKeepsItsStructure_data() {
        QTest::addColumn<QString>("preset");
        for (const std::string& name : builtinModelNames())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    void everyPresetKeepsItsStructure() {
        QFETCH(QString, preset);
        auto model = loadModel(preset.toStdString());
        QVERIFY(model.ok());
        const Graph original = lowerOrDie(model->network, model->training);

        // Repeats kept: the op sequence, in-place flags and saved counts line up one to one.
        ShrinkLimits sameDepth;
        sameDepth.repeat = 1 << 20;
        auto wide = shrinkNetwork(model->network, model->training, sameDepth);
        QVERIFY2(wide.ok(), wide.ok() ? "" : wide.error().message.c_str());
        const Graph g = lowerOrDie(wide->network, wide->training);
        QCOMPARE(g.ops.size(), original.ops.size());
        QVERIFY(opKinds(g) == opKinds(original));
        for (std::size_t i = 0; i < g.ops.size(); ++i) {
            QCOMPARE(g.ops[i].inPlaceInput, original.ops[i].inPlaceInput);
            QCOMPARE(g.ops[i].saved.size(), original.ops[i].saved.size());
            QCOMPARE(g.ops[i].params.size(), original.ops[i].params.size());
            QCOMPARE(g.ops[i].name, original.ops[i].name);
        }

        // The default: fewer repeats too, and small.
        auto s = shrinkNetwork(model->network, model->training);
        QVERIFY(s.ok());
        QCOMPARE(s->network.layers.size(), model->network.layers.size());
        for (std::size_t i = 0; i < s->network.layers.size(); ++i) {
            QCOMPARE(s->network.layers[i].kind, model->network.layers[i].kind);
            QVERIFY(s->network.layers[i].repeat <= 2);
        }
        const Graph small = lowerOrDie(s->network, s->training);
        QVERIFY2(small.parameterCount < 4'000'000,
                 qPrintable(QString::number(small.parameterCount)));
        QVERIFY(s->training.microBatch <= 2);
        for (const ShrinkChange& c : s->changes) {
            QVERIFY2(c.to < c.from && c.to >= 1, c.field.c_str());
            QVERIFY2(c.field.rfind("input.", 0) == 0 || c.field.rfind("layers[", 0) == 0 ||
                         c.field == "micro_batch" || c.field == "accumulation_steps",
                     c.field.c_str());
        }
        QVERIFY(!s->changes.empty());
    }

    void resnetFieldsAndSizes() {
        auto model = loadModel("resnet-101");
        QVERIFY(model.ok());
        auto s = shrinkNetwork(model->network, model->training);
        QVERIFY(s.ok());
        std::map<std::string, std::pair<std::int64_t, std::int64_t>> c;
        for (const ShrinkChange& ch : s->changes) c[ch.field] = {ch.from, ch.to};
        QCOMPARE(c.at("input.shape[1]"), std::make_pair(std::int64_t(224), std::int64_t(32)));
        QCOMPARE(c.at("layers[0].out_channels"), std::make_pair(std::int64_t(64), std::int64_t(4)));
        QCOMPARE(c.at("layers[8].repeat"), std::make_pair(std::int64_t(22), std::int64_t(2)));
        QCOMPARE(c.at("layers[9].channels"), std::make_pair(std::int64_t(512), std::int64_t(32)));
        QCOMPARE(c.at("micro_batch"), std::make_pair(std::int64_t(32), std::int64_t(2)));
        QVERIFY(!c.count("input.shape[0]"));  // RGB stays RGB
        // A micro-batch the user chose is kept.
        auto kept = shrinkNetwork(model->network, model->training, ShrinkLimits{}, true);
        QVERIFY(kept.ok());
        QCOMPARE(kept->training.microBatch, model->training.microBatch);
    }

    void groupedKvAndMlpRatiosSurvive() {
        Network n;
        n.input.tokens = 512;
        n.input.vocab = 1000;
        Layer emb;
        emb.kind = LayerKind::Embedding;
        emb.dim = 1024;
        Layer blk;
        blk.kind = LayerKind::TransformerBlock;
        blk.heads = 16;
        blk.kvHeads = 4;
        blk.mlpHidden = 2816;  // 2.75 x the width
        blk.gated = true;
        blk.activation = Activation::Silu;
        blk.norm = NormKind::RmsNorm;
        blk.repeat = 8;
        Layer head;
        head.kind = LayerKind::Linear;
        head.out = 1000;
        head.bias = false;
        Layer ce;
        ce.kind = LayerKind::CrossEntropy;
        n.layers = {emb, blk, head, ce};
        TrainingConfig t;
        auto s = shrinkNetwork(n, t);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
        const Layer& b = s->network.layers[1];
        QCOMPARE(b.heads / b.kvHeads, std::int64_t(4));  // grouping ratio kept
        QCOMPARE(b.heads, std::int64_t(4));
        const std::int64_t width = s->network.layers[0].dim;
        QCOMPARE(width, std::int64_t(4 * 16));     // 4 heads of 16
        QCOMPARE(b.mlpHidden, std::int64_t(176));  // 2.75 x 64
        QCOMPARE(s->network.layers[2].out, s->network.input.vocab);
        QCOMPARE(s->network.input.tokens, std::int64_t(32));
        QCOMPARE(b.repeat, std::int64_t(2));
    }

    // Grouped convolutions keep groups that divide their shrunk channels: a depthwise one stays
    // depthwise, a 2-group one keeps 2 groups, and the change is listed.
    void groupedConvolutionsStayValid() {
        Network n;
        n.input.shape = {3, 64, 64};
        auto conv = [](std::int64_t out, std::int64_t groups) {
            Layer l;
            l.kind = LayerKind::Conv2d;
            l.outChannels = out;
            l.kernel = 3;
            l.padding = 1;
            l.groups = groups;
            return l;
        };
        Layer flat, fc, ce;
        flat.kind = LayerKind::Flatten;
        fc.kind = LayerKind::Linear;
        fc.out = 10;
        ce.kind = LayerKind::CrossEntropy;
        n.layers = {conv(64, 1), conv(64, 64), conv(128, 2), flat, fc, ce};
        TrainingConfig t;
        auto s = shrinkNetwork(n, t);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
        const auto& L = s->network.layers;
        QCOMPARE(L[0].outChannels, std::int64_t(4));  // 64 / 16
        QCOMPARE(L[1].outChannels, std::int64_t(4));
        QCOMPARE(L[1].groups, std::int64_t(4));  // depthwise over the shrunk channels
        QCOMPARE(L[2].outChannels, std::int64_t(8));
        QCOMPARE(L[2].groups, std::int64_t(2));
        bool listed = false;
        for (const ShrinkChange& c : s->changes)
            listed = listed || (c.field == "layers[1].groups" && c.from == 64 && c.to == 4);
        QVERIFY(listed);
    }
};

QTEST_GUILESS_MAIN(TestShrink)
#include "tst_shrink.moc"
