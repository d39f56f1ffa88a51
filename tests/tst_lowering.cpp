// Lowering: parameter counts of the presets against their published figures, what each op
// saves for backward (docs/memory-model.md, after PyTorch's derivatives.yaml), the module tree and
// the chain, dtypes under mixed precision, and shape errors that name both layers.
#include <QtTest/QtTest>

#include <set>

#include "lower.h"
#include "model_file.h"
#include "sim_test_support.h"

using namespace remat;
using namespace remat::test;

namespace {

Graph lowerPreset(const std::string& name, Precision p = Precision::Fp32) {
    auto m = loadModel(name);
    if (!m) qFatal("%s", m.error().message.c_str());
    auto g = lower(m->network, p);
    if (!g) qFatal("%s", g.error().message.c_str());
    return std::move(*g);
}

const Op* findOp(const Graph& g, const std::string& name) {
    for (const auto& op : g.ops)
        if (op.name == name) return &op;
    return nullptr;
}

std::vector<std::string> savedNames(const Graph& g, const Op& op) {
    std::vector<std::string> out;
    for (TensorId t : op.saved) out.push_back(g.tensor(t).name);
    return out;
}

}  // namespace

class TestLowering : public QObject {
    Q_OBJECT

private slots:
    void presetParameterCounts_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<qint64>("parameters");
        // GPT-2 small with tied head and learned positions: the 124,439,808 of the released
        // checkpoint. torchvision resnet101: 44,549,160. Llama-7B: 6,738,415,616.
        // mlp-3x1024: 3 x (1024 x 1024 + 1024).
        QTest::newRow("gpt2-small") << "gpt2-small" << qint64(124439808);
        QTest::newRow("resnet-101") << "resnet-101" << qint64(44549160);
        QTest::newRow("llama-7b") << "llama-7b" << qint64(6738415616);
        QTest::newRow("mlp-3x1024") << "mlp-3x1024" << qint64(3 * (1024 * 1024 + 1024));
    }
    void presetParameterCounts() {
        QFETCH(QString, preset);
        QFETCH(qint64, parameters);
        QCOMPARE(qint64(lowerPreset(preset.toStdString()).parameterCount), parameters);
    }

    // Format 2's parallel residual block (GPT-NeoX, GPT-J): ln2 normalises the block input
    // instead of the residual sum after attention, and the two branches are added to it; the
    // parameters are the sequential block's.
    void parallelResidualBlock() {
        auto make = [](bool parallel) {
            const std::string text =
                std::string(R"({"format":"remat-model/2","input":{"tokens":16,"vocab":32},
                "layers":[{"kind":"embedding","dim":8},
                {"kind":"transformer_block","heads":2,"mlp_hidden":16)") +
                (parallel ? R"(,"parallel_residual":true)" : "") +
                R"(},{"kind":"layernorm"},{"kind":"linear","out":32},{"kind":"cross_entropy"}]})";
            auto m = parseModel(text, "parallel");
            if (!m) qFatal("%s", m.error().message.c_str());
            auto g = lower(m->network, Precision::Fp32);
            if (!g) qFatal("%s", g.error().message.c_str());
            return std::move(*g);
        };
        const Graph seq = make(false), par = make(true);
        QCOMPARE(par.parameterCount, seq.parameterCount);
        QCOMPARE(findOp(par, "1/ln2")->inputs[0], findOp(par, "1/ln1")->inputs[0]);
        QCOMPARE(findOp(seq, "1/ln2")->inputs[0], findOp(seq, "1/add1")->outputs[0]);
        QCOMPARE(findOp(par, "1/add2")->inputs[0], findOp(par, "1/add1")->outputs[0]);
        QCOMPARE(findOp(par, "1/add2")->inputs[1], findOp(par, "1/mlp/fc2")->outputs[0]);
        // ln2 keeps the block input, which ln1 keeps too: one [T, d] fewer saved per block.
        std::set<std::uint32_t> savedSeq, savedPar;
        for (const Op& op : seq.ops) for (TensorId t : op.saved) savedSeq.insert(t.index());
        for (const Op& op : par.ops) for (TensorId t : op.saved) savedPar.insert(t.index());
        QCOMPARE(savedPar.size() + 1, savedSeq.size());
    }

    // Format 2's qkv_bias: a bias on the fused q, k, v projection alone (Qwen2).
    void qkvBiasAlone() {
        auto make = [](const char* qkv) {
            const std::string text =
                std::string(R"({"format":"remat-model/2","input":{"tokens":16,"vocab":32},
                "layers":[{"kind":"embedding","dim":8},
                {"kind":"transformer_block","heads":2,"kv_heads":1,"mlp_hidden":16,"bias":false)") +
                qkv + R"(},{"kind":"rmsnorm"},{"kind":"linear","out":32,"bias":false},{"kind":"cross_entropy"}]})";
            auto m = parseModel(text, "qkv");
            if (!m) qFatal("%s", m.error().message.c_str());
            auto g = lower(m->network, Precision::Fp32);
            if (!g) qFatal("%s", g.error().message.c_str());
            return std::move(*g);
        };
        const Graph none = make(""), qkv = make(R"(,"qkv_bias":true)");
        // (heads + 2 kv heads) x head width 4 = 16 bias values.
        QCOMPARE(qkv.parameterCount - none.parameterCount, std::int64_t(16));
        QVERIFY(findOp(qkv, "1/attention/qkv")->attrs.bias);
        QVERIFY(!findOp(qkv, "1/attention/proj")->attrs.bias);
        QVERIFY(!findOp(qkv, "1/mlp/fc1")->attrs.bias);
        QVERIFY(!findOp(none, "1/attention/qkv")->attrs.bias);
    }

    void gpt3Parameters() {
        // 96 x 12 h^2 (+ biases, norms) + embeddings: 174.6e9, the paper's "175B".
        Graph g = lowerPreset("gpt3-175b");
        QVERIFY(g.parameterCount > 174'000'000'000LL && g.parameterCount < 175'500'000'000LL);
    }

    void transformerBlockSaves() {
        Graph g = lowerPreset("gpt2-small");
        // One block's ops and what each saves.
        struct Expect {
            const char* op;
            std::vector<std::string> saved;
        };
        const std::vector<Expect> expected = {
            {"1/ln1", {"1/ln1", "1/ln1.mean", "1/ln1.rstd"}},
            {"1/attention/qkv", {"1/ln1"}},
            {"1/attention/attention_core/scores", {"1/attention/qkv"}},
            {"1/attention/attention_core/softmax", {"1/attention/attention_core/softmax"}},
            {"1/attention/attention_core/dropout", {"1/attention/attention_core/dropout.mask"}},
            {"1/attention/attention_core/context",
             {"1/attention/attention_core/dropout", "1/attention/qkv"}},
            {"1/attention/proj", {"1/attention/attention_core/context"}},
            {"1/attention/dropout", {"1/attention/dropout.mask"}},
            {"1/add1", {}},
            {"1/mlp/fc1", {"1/ln2"}},
            {"1/mlp/act", {"1/mlp/fc1"}},  // gelu saves its input
            {"1/mlp/fc2", {"1/mlp/act"}},
            {"1/mlp/dropout", {"1/mlp/dropout.mask"}},
            {"1/add2", {}},
        };
        for (const auto& e : expected) {
            const Op* op = findOp(g, e.op);
            QVERIFY2(op, e.op);
            // The LN's input is the previous block's output; compare the rest by name.
            auto names = savedNames(g, *op);
            if (std::string(e.op) == "1/ln1") {
                QCOMPARE(names.size(), std::size_t(3));
                QCOMPARE(names[0], std::string("0/dropout"));
                QCOMPARE(names[1], e.saved[1]);
                QCOMPARE(names[2], e.saved[2]);
                continue;
            }
            QCOMPARE(names, e.saved);
        }
        // Mask is one byte per element; statistics are fp32 per row even in bf16.
        Graph mixed = lowerPreset("gpt2-small", Precision::MixedBf16);
        const Op* drop = findOp(mixed, "1/attention/attention_core/dropout");
        QCOMPARE(int(mixed.tensor(drop->saved[0]).dtype), int(DType::U8));
        const Op* ln = findOp(mixed, "1/ln1");
        QCOMPARE(int(mixed.tensor(ln->saved[1]).dtype), int(DType::F32));
        QCOMPARE(int(mixed.tensor(ln->outputs[0]).dtype), int(DType::BF16));
        const Op* ce = findOp(mixed, "15/cross_entropy");
        QVERIFY(ce);
        QCOMPARE(int(mixed.tensor(ce->saved[0]).dtype), int(DType::F32));  // log-probs
        QCOMPARE(int(mixed.tensor(ce->saved[1]).dtype), int(DType::I64));  // targets
    }

    void flashAndGroupedAttention() {
        const char* model = R"({"format":"remat-model/1","input":{"tokens":16,"vocab":32},
            "layers":[{"kind":"embedding","dim":32},
              {"kind":"transformer_block","heads":4,"kv_heads":2,"mlp_hidden":64,
               "attention":"eager","norm":"rmsnorm","gated":true,"activation":"silu","bias":false},
              {"kind":"transformer_block","heads":4,"kv_heads":2,"mlp_hidden":64,
               "attention":"flash","norm":"rmsnorm","gated":true,"activation":"silu","bias":false},
              {"kind":"linear","out":32},{"kind":"cross_entropy"}]})";
        Built b = build(model, "none");
        const Graph& g = b.graph;
        // Eager with grouped KV heads: K and V are expanded to every query head and saved.
        const Op* scores = findOp(g, "1/attention/attention_core/scores");
        QCOMPARE(savedNames(g, *scores),
                 (std::vector<std::string>{"1/attention/qkv", "1/attention/attention_core/expand_k"}));
        QCOMPARE(g.tensor(scores->saved[1]).shape, (Shape{4, 16, 8}));
        // qkv holds H + 2 KV heads of width 8: (4 + 4) x 8 = 64 columns.
        QCOMPARE(g.tensor(scores->saved[0]).shape, (Shape{16, 64}));
        // Flash: Q, K, V (KV heads only: the qkv tensor), output and logsumexp; no mask.
        const Op* flash = findOp(g, "2/attention/attention_core/flash");
        QCOMPARE(savedNames(g, *flash),
                 (std::vector<std::string>{"2/attention/qkv", "2/attention/attention_core/flash",
                                           "2/attention/attention_core/flash.lse"}));
        QCOMPARE(g.tensor(flash->saved[2]).shape, (Shape{4, 16}));
        // RMSNorm saves input and rstd; SwiGLU's product saves both operands.
        const Op* rms = findOp(g, "1/ln1");
        QCOMPARE(rms->saved.size(), std::size_t(2));
        const Op* mul = findOp(g, "1/mlp/mul");
        QCOMPARE(savedNames(g, *mul), (std::vector<std::string>{"1/mlp/act", "1/mlp/up"}));
        const Op* silu = findOp(g, "1/mlp/act");
        QCOMPARE(savedNames(g, *silu), (std::vector<std::string>{"1/mlp/gate"}));
    }

    void moduleTreeAndChain() {
        Graph g = lowerPreset("gpt2-small");
        // embedding, 12 blocks, final LN, head, loss.
        QCOMPARE(g.layerModules.size(), std::size_t(16));
        QCOMPARE(g.chain.size(), std::size_t(12));  // the block instances
        ModuleId core = g.findModule("3/attention/attention_core");
        QVERIFY(core.valid());
        const Module& m = g.module(core);
        QCOMPARE(m.kind, std::string("attention_core"));
        QCOMPARE(g.module(m.parent).path, std::string("3/attention"));
        QCOMPARE(m.layerIndex, 3);
        // A module is a contiguous op range inside its parent's.
        for (const auto& mod : g.modules) {
            if (!mod.parent.valid()) continue;
            const Module& p = g.module(mod.parent);
            QVERIFY(!mod.hasOps() || (p.containsOp(mod.firstOp) && p.containsOp(mod.lastOp())));
        }
        // Without blocks the chain is every layer but the loss.
        Graph mlp = lowerPreset("mlp-3x1024");
        QCOMPARE(mlp.chain.size(), std::size_t(3));
        Graph resnet = lowerPreset("resnet-101");
        QCOMPARE(resnet.chain.size(), std::size_t(33));  // 3 + 4 + 23 + 3 bottlenecks
    }

    void residualBlockInPlace() {
        Graph g = lowerPreset("resnet-101");
        // torchvision's ReLU(inplace=True) and `out += identity` write into the batchnorm
        // output's storage: no new memory.
        const Op* add = findOp(g, "4/add");
        QVERIFY(add);
        QCOMPARE(add->inPlaceInput, 0);
        QCOMPARE(g.storageOf(add->outputs[0]), g.storageOf(add->inputs[0]));
        const Op* relu = findOp(g, "4/relu");
        QCOMPARE(g.storageOf(relu->outputs[0]), g.storageOf(add->inputs[0]));
        // Max-pool saves its input and int64 indices.
        const Op* pool = findOp(g, "3/maxpool");
        QCOMPARE(pool->saved.size(), std::size_t(2));
        QCOMPARE(int(g.tensor(pool->saved[1]).dtype), int(DType::I64));
        // The first stage's first block changes width 64 -> 256: a projection shortcut.
        QVERIFY(g.findModule("4/shortcut").valid());
        QVERIFY(!g.findModule("5/shortcut").valid());
    }

    void shapeMismatchNamesBothLayers() {
        Network n;
        n.input.shape = {16};
        Layer lin;
        lin.kind = LayerKind::Linear;
        lin.out = 8;
        Layer conv;
        conv.kind = LayerKind::Conv2d;
        conv.outChannels = 4;
        conv.kernel = 3;
        Layer loss;
        loss.kind = LayerKind::Mse;
        n.layers = {lin, conv, loss};
        auto r = lower(n, Precision::Fp32);
        QVERIFY(!r.ok());
        const QString msg = QString::fromStdString(r.error().message);
        QVERIFY2(msg.contains("1 (conv2d)") && msg.contains("0 (linear)") && msg.contains("[8]"),
                 qPrintable(msg));
    }

    // Layer outputs are bounded by shape inference, but attention scores grow with tokens^2:
    // a sequence of 2^21 tokens gives 2^42 scores per head, which lowering refuses by name —
    // and so does loading a file that holds such a model.
    void internalTensorsBounded() {
        const char* text = R"({"format":"remat-model/1","input":{"tokens":2097152,"vocab":64},
            "layers":[{"kind":"embedding","dim":8},
                      {"kind":"transformer_block","heads":1,"mlp_hidden":8},
                      {"kind":"linear","out":64},{"kind":"cross_entropy"}]})";
        auto m = parseModel(text, "long.json");
        QVERIFY(!m.ok());
        const QString loadMsg = QString::fromStdString(m.error().message);
        QVERIFY2(loadMsg.startsWith("long.json: $.layers: layer 1 (transformer_block)") &&
                     loadMsg.contains("scores") && loadMsg.contains("2^40"),
                 qPrintable(loadMsg));

        auto shorter = parseModel(QString(text).replace("2097152", "1024").toStdString(), "s.json");
        QVERIFY(shorter.ok());
        Network net = shorter->network;
        net.input.tokens = 2097152;
        auto g = lower(net, Precision::Fp32);
        QVERIFY(!g.ok());
        const QString msg = QString::fromStdString(g.error().message);
        QVERIFY2(msg.contains("1 (transformer_block)") && msg.contains("scores") &&
                     msg.contains("2^40"),
                 qPrintable(msg));
    }

    void tiedEmbeddingShared() {
        Graph g = lowerPreset("gpt2-small");
        const Op* embed = findOp(g, "0/embed");
        const Op* head = findOp(g, "14/linear");
        QVERIFY(embed && head);
        QCOMPARE(embed->params[0], head->params[0]);
    }
};

QTEST_APPLESS_MAIN(TestLowering)
#include "tst_lowering.moc"
