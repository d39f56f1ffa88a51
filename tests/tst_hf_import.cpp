// Tests of the Hugging Face config import (sim/hf_import.h, docs/import.md) on the published
// configs of tests/data/hf: the exact published parameter counts; GPT-2's import simulating
// exactly like the gpt2-small preset; the mapping of GQA, gated MLPs, norms, tied embeddings,
// positions, parallel residual blocks, q/k/v-only biases and the attention kernel; the encoders
// (BERT and RoBERTa's masked LM with post-LN blocks and token types, ViT's image classifier with
// its patch embedding and class-token head) and the saved activations of a post-LN block derived
// by hand; the ignored fields with their reasons; and every error path (missing field, wrong type, out-of-range
// value, unsupported model_type, bad sequence length) with its one-line message.
#include <QtTest/QtTest>

#include <QFile>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "analysis.h"
#include "device.h"
#include "hf_import.h"
#include "graph.h"
#include "lower.h"
#include "model_file.h"
#include "strategy.h"

using nlohmann::json;
using namespace remat;

namespace {

const QString kHfDir = QStringLiteral(REMAT_TEST_DATA_DIR) + "/hf";

std::string readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = f.readAll();
    return std::string(bytes.constData(), std::size_t(bytes.size()));
}

std::string hfPath(const char* file) { return (kHfDir + "/" + file).toStdString(); }

json config(const char* file) { return json::parse(readText(kHfDir + "/" + file)); }

std::int64_t parameters(const ModelFile& m) {
    auto g = lower(m.network, m.training.precision);
    return g ? g->parameterCount : -1;
}

const Layer& block(const HfImport& i) { return i.model.network.layers.at(1); }

}  // namespace

class TstHfImport : public QObject {
    Q_OBJECT
private slots:
    void publishedParameterCounts_data();
    void publishedParameterCounts();
    void gpt2SimulatesLikeThePreset();
    void mapping();
    void attentionKernel();
    void ignoredFieldsAreListedWithReasons();
    void encoderMapping();
    void vitLabelsAndPublishedCount();
    void postLnBlockSavedActivations();
    void encoderModelFilesAreVersion3();
    void vitHeadKeepsTheNormOutputThroughTheView();
    void errors_data();
    void errors();
    void sequenceAndBatchOptions();
    void directoryAndFileErrors();
    void importsRoundTripAndLoad();
    void hostileNamesAreEscaped();
};

void TstHfImport::publishedParameterCounts_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("count");
    // The counts published for each checkpoint (model cards, the papers' tables).
    QTest::newRow("gpt2") << "gpt2.json" << qint64(124439808);
    QTest::newRow("Llama-2-7b") << "llama-2-7b.json" << qint64(6738415616);
    QTest::newRow("Mistral-7B-v0.1") << "mistral-7b-v0.1.json" << qint64(7241732096);
    QTest::newRow("Meta-Llama-3-8B") << "meta-llama-3-8b.json" << qint64(8030261248);
    QTest::newRow("gemma-2b") << "gemma-2b.json" << qint64(2506172416);
    QTest::newRow("Phi-3-mini-4k") << "phi-3-mini-4k-instruct.json" << qint64(3821079552);
    QTest::newRow("Qwen2-0.5B") << "qwen2-0.5b.json" << qint64(494032768);
    // Pythia's model card: 85,056,000 non-embedding parameters, 162,322,944 in all.
    QTest::newRow("pythia-160m") << "pythia-160m.json" << qint64(162322944);
    // BertForMaskedLM and RobertaForMaskedLM (transformers' num_parameters()): the encoder and
    // the MLM head, whose decoder is tied to the token embedding but has its own bias.
    QTest::newRow("bert-base-uncased") << "bert-base-uncased.json" << qint64(109514298);
    QTest::newRow("roberta-base") << "roberta-base.json" << qint64(124697433);
}

void TstHfImport::publishedParameterCounts() {
    QFETCH(QString, file);
    QFETCH(qint64, count);
    auto i = importHfConfigFile((kHfDir + "/" + file).toStdString());
    QVERIFY2(i.ok(), i.ok() ? "" : i.error().message.c_str());
    QCOMPARE(qint64(parameters(i->model)), count);
}

// The gpt2-small preset is GPT-2 small written by hand: the import at the preset's micro-batch
// must be the same network and training settings and simulate to the same bytes and time.
void TstHfImport::gpt2SimulatesLikeThePreset() {
    auto preset = loadModel("gpt2-small");
    QVERIFY(preset.ok());
    HfImportOptions options;
    options.microBatch = preset->training.microBatch;
    auto imported = importHfConfigFile(hfPath("gpt2.json"), options);
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
    const ModelFile& m = imported->model;
    QVERIFY(m.network.layers == preset->network.layers);
    QVERIFY(m.network.input == preset->network.input);
    QCOMPARE(m.network.tieEmbeddings, preset->network.tieEmbeddings);
    QVERIFY(m.training == preset->training);

    auto device = findDevice(preset->device);
    QVERIFY(device.ok());
    auto gi = lower(m.network, m.training.precision);
    auto gp = lower(preset->network, preset->training.precision);
    QVERIFY(gi.ok() && gp.ok());
    QCOMPARE(gi->parameterCount, gp->parameterCount);
    for (const char* s : {"none", "full", "every:3"}) {
        auto strategy = parseStrategy(s);
        QVERIFY(strategy.ok());
        auto ei = evaluate(*gi, *strategy, {}, m.training, *device);
        auto ep = evaluate(*gp, *strategy, {}, preset->training, *device);
        QVERIFY(ei.ok() && ep.ok());
        QCOMPARE(ei->timeline.peakBytes, ep->timeline.peakBytes);
        QVERIFY(ei->timeline.breakdownAtPeak == ep->timeline.breakdownAtPeak);
        QCOMPARE(ei->timeline.savedActivationBytes, ep->timeline.savedActivationBytes);
        QCOMPARE(ei->timeline.timeS.total(), ep->timeline.timeS.total());
        QCOMPARE(ei->timeline.maxMicroBatch, ep->timeline.maxMicroBatch);
    }
}

void TstHfImport::mapping() {
    auto llama3 = importHfConfigFile(hfPath("meta-llama-3-8b.json"));
    QVERIFY(llama3.ok());
    const Network& n = llama3->model.network;
    QCOMPARE(n.input.tokens, std::int64_t(8192));
    QCOMPARE(n.input.vocab, std::int64_t(128256));
    QCOMPARE(n.layers.size(), std::size_t(5));
    QCOMPARE(n.layers[0].kind, LayerKind::Embedding);
    QCOMPARE(n.layers[0].positions, std::int64_t(0));  // rotary
    QCOMPARE(block(*llama3).repeat, std::int64_t(32));
    QCOMPARE(block(*llama3).heads, std::int64_t(32));
    QCOMPARE(block(*llama3).kvHeads, std::int64_t(8));
    QCOMPARE(block(*llama3).mlpHidden, std::int64_t(14336));
    QVERIFY(block(*llama3).gated);
    QCOMPARE(block(*llama3).activation, Activation::Silu);
    QCOMPARE(block(*llama3).norm, NormKind::RmsNorm);
    QVERIFY(!block(*llama3).bias);
    // Rotary over the whole head with Llama 3's rope_theta.
    QVERIFY(block(*llama3).rotary);
    QCOMPARE(block(*llama3).rotaryFraction, 1.0);
    QCOMPARE(block(*llama3).rotaryBase, 500000.0);
    QCOMPARE(n.layers[2].kind, LayerKind::RmsNorm);
    QCOMPARE(n.layers[3].out, std::int64_t(128256));
    QVERIFY(!n.tieEmbeddings);
    QCOMPARE(llama3->model.training.precision, Precision::MixedBf16);
    QCOMPARE(llama3->model.training.optimizer, Optimizer::AdamW);

    auto llama2 = importHfConfigFile(hfPath("llama-2-7b.json"));
    QVERIFY(llama2.ok());
    QCOMPARE(block(*llama2).kvHeads, std::int64_t(0));  // ordinary multi-head: not written
    QCOMPARE(llama2->model.network.name, std::string("meta-llama/Llama-2-7b-hf"));

    auto gemma = importHfConfigFile(hfPath("gemma-2b.json"));
    QVERIFY(gemma.ok());
    QVERIFY(gemma->model.network.tieEmbeddings);
    QCOMPARE(block(*gemma).kvHeads, std::int64_t(1));
    QCOMPARE(block(*gemma).activation, Activation::Gelu);  // GeGLU
    QVERIFY(block(*gemma).gated);
    QVERIFY(gemma->model.description.find("sqrt(hidden_size)") != std::string::npos);

    auto gpt2 = importHfConfigFile(hfPath("gpt2.json"));
    QVERIFY(gpt2.ok());
    QCOMPARE(gpt2->model.network.layers[0].positions, std::int64_t(1024));  // learned
    QCOMPARE(gpt2->model.network.layers[0].dropout, 0.1);
    QCOMPARE(block(*gpt2).dropout, 0.1);
    QCOMPARE(block(*gpt2).norm, NormKind::LayerNorm);
    QVERIFY(!block(*gpt2).gated);

    // Pythia: parallel attention and MLP (format 2), LayerNorm, biases, untied head.
    auto pythia = importHfConfigFile(hfPath("pythia-160m.json"));
    QVERIFY(pythia.ok());
    QVERIFY(block(*pythia).parallelResidual);
    QVERIFY(block(*pythia).bias);
    QVERIFY(!block(*pythia).qkvBias.has_value());
    // Rotary embeddings on a quarter of each head (rotary_pct 0.25), format 3.
    QVERIFY(block(*pythia).rotary);
    QCOMPARE(block(*pythia).rotaryFraction, 0.25);
    QCOMPARE(block(*pythia).rotaryBase, 10000.0);
    QVERIFY(modelToJson(pythia->model).find("\"remat-model/3\"") != std::string::npos);

    // Qwen2: biases on q, k and v only, tied, grouped-query; no window (use_sliding_window).
    auto qwen = importHfConfigFile(hfPath("qwen2-0.5b.json"));
    QVERIFY(qwen.ok());
    QVERIFY(!block(*qwen).bias);
    QCOMPARE(block(*qwen).qkvBias, std::optional<bool>(true));
    QCOMPARE(block(*qwen).kvHeads, std::int64_t(2));
    QVERIFY(qwen->model.network.tieEmbeddings);
    QCOMPARE(block(*qwen).attention, AttentionImpl::Flash);
    QCOMPARE(qwen->model.network.input.tokens, std::int64_t(131072));

    // gpt_neox without parallel residuals: the sequential block, with rotary embeddings
    // (format 3).
    json neox = config("pythia-160m.json");
    neox["use_parallel_residual"] = false;
    auto sequential = importHfConfig(neox.dump(), "neox.json");
    QVERIFY2(sequential.ok(), sequential.ok() ? "" : sequential.error().message.c_str());
    QVERIFY(block(*sequential).bias);
    QVERIFY(!block(*sequential).parallelResidual);
    QVERIFY(modelToJson(sequential->model).find("\"remat-model/3\"") != std::string::npos);
    QCOMPARE(block(*sequential).norm, NormKind::LayerNorm);
    QVERIFY(!sequential->model.network.tieEmbeddings);
    QCOMPARE(sequential->model.network.input.tokens, std::int64_t(2048));
}

// Flash unless the eager path is the exact one: dropout on attention probabilities, or a
// sliding window shorter than the sequence.
void TstHfImport::attentionKernel() {
    auto gpt2 = importHfConfigFile(hfPath("gpt2.json"));
    QVERIFY(gpt2.ok());
    QCOMPARE(block(*gpt2).attention, AttentionImpl::Eager);
    auto llama = importHfConfigFile(hfPath("llama-2-7b.json"));
    QVERIFY(llama.ok());
    QCOMPARE(block(*llama).attention, AttentionImpl::Flash);

    auto mistral = importHfConfigFile(hfPath("mistral-7b-v0.1.json"));
    QVERIFY(mistral.ok());
    QCOMPARE(mistral->model.network.input.tokens, std::int64_t(32768));
    QCOMPARE(block(*mistral).attention, AttentionImpl::Eager);
    QVERIFY(mistral->model.description.find("sliding window of 4096") != std::string::npos);
    HfImportOptions within;
    within.seqLen = 4096;
    auto windowed = importHfConfigFile(hfPath("mistral-7b-v0.1.json"), within);
    QVERIFY(windowed.ok());
    QCOMPARE(block(*windowed).attention, AttentionImpl::Flash);

    json noWindow = config("mistral-7b-v0.1.json");
    noWindow["sliding_window"] = nullptr;
    auto full = importHfConfig(noWindow.dump(), "mistral.json");
    QVERIFY(full.ok());
    QCOMPARE(block(*full).attention, AttentionImpl::Flash);

    auto phi3 = importHfConfigFile(hfPath("phi-3-mini-4k-instruct.json"));
    QVERIFY(phi3.ok());
    QCOMPARE(block(*phi3).attention, AttentionImpl::Eager);  // window 2047 < 4096 tokens
}

void TstHfImport::ignoredFieldsAreListedWithReasons() {
    json c = config("gpt2.json");
    c["some_future_field"] = 3;
    auto i = importHfConfig(c.dump(), "gpt2.json");
    QVERIFY(i.ok());
    std::map<std::string, std::string> ignored;
    for (const auto& f : i->ignored) {
        QVERIFY2(!f.reason.empty(), f.key.c_str());
        ignored[f.key] = f.reason;
    }
    QVERIFY(ignored.count("bos_token_id"));
    QVERIFY(ignored.at("bos_token_id").find("token id") != std::string::npos);
    QVERIFY(ignored.count("layer_norm_epsilon"));
    QVERIFY(ignored.count("summary_type"));
    QVERIFY(ignored.at("some_future_field").find("not a field the import knows") != std::string::npos);
    // What the mapping reads is not listed.
    for (const char* used : {"n_embd", "n_head", "n_layer", "vocab_size", "n_positions", "model_type",
                             "embd_pdrop", "attn_pdrop", "resid_pdrop", "activation_function"})
        QVERIFY2(!ignored.count(used), used);
    // Sorted by key, for a stable listing.
    for (std::size_t k = 1; k < i->ignored.size(); ++k)
        QVERIFY(i->ignored[k - 1].key < i->ignored[k].key);
}

// The encoders' layer stacks: BERT and RoBERTa as embeddings (with token types), LayerNorm and
// dropout, post-LN non-causal blocks and the masked-LM head tied to the token embedding; ViT as
// the patch embedding, pre-LN non-causal blocks, the final LayerNorm, the class token and the
// classifier. The published base models' BertModel / RobertaModel counts (with the pooler) are
// the masked-LM counts less the MLM head's LayerNorm and decoder bias: the pooler's dense layer
// is the size of the head's.
void TstHfImport::encoderMapping() {
    auto bert = importHfConfigFile(hfPath("bert-base-uncased.json"));
    QVERIFY2(bert.ok(), bert.ok() ? "" : bert.error().message.c_str());
    const Network& b = bert->model.network;
    QCOMPARE(b.layers.size(), std::size_t(9));
    QCOMPARE(b.input.tokens, std::int64_t(512));
    QCOMPARE(b.input.vocab, std::int64_t(30522));
    QVERIFY(b.tieEmbeddings);
    QCOMPARE(b.layers[0].kind, LayerKind::Embedding);
    QCOMPARE(b.layers[0].positions, std::int64_t(512));
    QCOMPARE(b.layers[0].tokenTypes, std::int64_t(2));
    QCOMPARE(b.layers[0].dropout, 0.0);
    QCOMPARE(b.layers[1].kind, LayerKind::LayerNorm);
    QCOMPARE(b.layers[2].kind, LayerKind::Dropout);
    QCOMPARE(b.layers[2].p, 0.1);
    const Layer& bb = b.layers[3];
    QCOMPARE(bb.kind, LayerKind::TransformerBlock);
    QCOMPARE(bb.repeat, std::int64_t(12));
    QCOMPARE(bb.normPosition, NormPosition::Post);
    QVERIFY(!bb.causal);
    QCOMPARE(bb.attention, AttentionImpl::Eager);  // dropout on the probabilities
    QCOMPARE(bb.dropout, 0.1);
    QCOMPARE(bb.mlpHidden, std::int64_t(3072));
    QCOMPARE(b.layers[4].kind, LayerKind::Linear);
    QCOMPARE(b.layers[4].out, std::int64_t(768));
    QCOMPARE(b.layers[5].kind, LayerKind::Gelu);
    QCOMPARE(b.layers[6].kind, LayerKind::LayerNorm);
    QCOMPARE(b.layers[7].out, std::int64_t(30522));
    QVERIFY(b.layers[7].bias);
    QCOMPARE(b.layers[8].kind, LayerKind::CrossEntropy);
    QCOMPARE(parameters(bert->model) - (2 * 768 + 30522), std::int64_t(109482240));  // BertModel
    QVERIFY(QString::fromStdString(bert->model.description).contains("BertForMaskedLM, no pooler"));

    // RoBERTa: 514 learned positions numbered from padding_idx + 1, so 512 tokens at most; one
    // token type.
    auto roberta = importHfConfigFile(hfPath("roberta-base.json"));
    QVERIFY(roberta.ok());
    const Network& r = roberta->model.network;
    QCOMPARE(r.input.tokens, std::int64_t(512));
    QCOMPARE(r.layers[0].positions, std::int64_t(514));
    QCOMPARE(r.layers[0].tokenTypes, std::int64_t(1));
    QCOMPARE(parameters(roberta->model) - (2 * 768 + 50265), std::int64_t(124645632));  // RobertaModel

    auto vit = importHfConfigFile(hfPath("vit-base-patch16-224.json"));
    QVERIFY2(vit.ok(), vit.ok() ? "" : vit.error().message.c_str());
    const Network& v = vit->model.network;
    QCOMPARE(v.input.shape, (Shape{3, 224, 224}));
    QVERIFY(!v.input.isTokens());
    QCOMPARE(v.layers.size(), std::size_t(6));
    QCOMPARE(v.layers[0].kind, LayerKind::PatchEmbedding);
    QCOMPARE(v.layers[0].kernel, std::int64_t(16));
    QCOMPARE(v.layers[0].dim, std::int64_t(768));
    QVERIFY(v.layers[0].classToken);
    QCOMPARE(v.layers[1].normPosition, NormPosition::Pre);
    QVERIFY(!v.layers[1].causal);
    QCOMPARE(v.layers[1].attention, AttentionImpl::Flash);  // no dropout anywhere
    QCOMPARE(v.layers[2].kind, LayerKind::LayerNorm);
    QCOMPARE(v.layers[3].kind, LayerKind::SelectToken);
    QCOMPARE(v.layers[4].kind, LayerKind::Linear);
    QCOMPARE(v.layers[5].kind, LayerKind::CrossEntropy);
    auto shapes = inferShapes(v);
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[1], (Shape{197, 768}));  // 14 x 14 patches and the class token
    QCOMPARE((*shapes)[14], (Shape{197, 768}));  // the final LayerNorm, every token
    QCOMPARE((*shapes)[15], (Shape{768}));       // the class token
}

// The classifier's size: id2label's entries, else num_labels, else transformers' default of 2.
// With the 1,000 ImageNet labels of the published config (its id2label, which the shipped file
// omits) the count is the published 86,567,656.
void TstHfImport::vitLabelsAndPublishedCount() {
    const json base = config("vit-base-patch16-224.json");
    auto two = importHfConfig(base.dump(), "vit.json");
    QVERIFY(two.ok());
    QCOMPARE(two->model.network.layers[4].out, std::int64_t(2));
    QCOMPARE(parameters(two->model), std::int64_t(86567656 - 769000 + 2 * 768 + 2));

    json withMap = base;
    for (int i = 0; i < 1000; ++i) withMap["id2label"][std::to_string(i)] = "class " + std::to_string(i);
    auto mapped = importHfConfig(withMap.dump(), "vit.json");
    QVERIFY2(mapped.ok(), mapped.ok() ? "" : mapped.error().message.c_str());
    QCOMPARE(parameters(mapped->model), std::int64_t(86567656));
    for (const auto& f : mapped->ignored) QVERIFY(f.key != "id2label");

    json withCount = base;
    withCount["num_labels"] = 1000;
    auto counted = importHfConfig(withCount.dump(), "vit.json");
    QVERIFY(counted.ok());
    QCOMPARE(parameters(counted->model), std::int64_t(86567656));
}

// Saved activations of one post-LN block (BERT's order), derived by hand from what autograd
// saves (docs/memory-model.md) and checked against the lowered graph; fp32, dropout on, eager
// attention. Per sample, with T tokens, width C, h heads and MLP width I (4-byte floats):
//   qkv's input x (T C) and output (3 T C: scores read q and k, the context v), the softmax
//   output (h T T), the attention dropout's mask (h T T bytes) and output (h T T), the context
//   (T C, the projection's input), the projection dropout's mask (T C bytes), ln1's input
//   (T C) with mean and rstd (2 T), ln1's output (T C: fc1's input), fc1's output (I T: GELU's
//   input), GELU's output (I T: fc2's input), the MLP dropout's mask (T C bytes), ln2's input
//   (T C) with mean and rstd (2 T):
//   4 (8 T C + 2 h T T + 2 T I + 4 T) + h T T + 2 T C
// tests/torch/test_post_ln_saved.py counts the same tensors in PyTorch with
// saved_tensors_hooks.
void TstHfImport::postLnBlockSavedActivations() {
    const std::int64_t T = 16, C = 32, h = 4, I = 64;
    json c = {{"model_type", "bert"},        {"vocab_size", 100},
              {"hidden_size", C},            {"num_hidden_layers", 2},
              {"num_attention_heads", h},    {"intermediate_size", I},
              {"max_position_embeddings", T}, {"type_vocab_size", 2},
              {"hidden_dropout_prob", 0.1},  {"attention_probs_dropout_prob", 0.1}};
    auto tiny = importHfConfig(c.dump(), "tiny-bert.json");
    QVERIFY2(tiny.ok(), tiny.ok() ? "" : tiny.error().message.c_str());
    auto g = lower(tiny->model.network, Precision::Fp32);
    QVERIFY(g.ok());
    const std::int64_t expected = 4 * (8 * T * C + 2 * h * T * T + 2 * T * I + 4 * T) + h * T * T + 2 * T * C;
    QCOMPARE(expected, std::int64_t(35072));
    // Instances 3 and 4 are the two blocks (embedding, layernorm, dropout before them).
    for (int inst : {3, 4}) {
        const Module& block = g->module(g->layerModules.at(std::size_t(inst)));
        std::set<std::uint32_t> storages;
        std::int64_t bytes = 0;
        for (std::uint32_t o = block.firstOp; o < block.firstOp + block.opCount; ++o)
            for (TensorId t : g->ops[o].saved) {
                const TensorId s = g->storageOf(t);
                if (g->tensor(s).kind != TensorKind::Activation || !storages.insert(s.index()).second)
                    continue;
                bytes += g->tensor(s).bytes().perSample;
            }
        QCOMPARE(bytes, expected);
    }
}

// The encoders' layers are model format 3: written as remat-model/3, refused by name in a
// remat-model/2 file, and bad values named by field.
void TstHfImport::encoderModelFilesAreVersion3() {
    auto bert = importHfConfigFile(hfPath("bert-base-uncased.json"));
    auto vit = importHfConfigFile(hfPath("vit-base-patch16-224.json"));
    QVERIFY(bert.ok() && vit.ok());
    for (const HfImport* i : {&*bert, &*vit}) {
        json j = json::parse(modelToJson(i->model));
        QCOMPARE(j.at("format").get<std::string>(), std::string("remat-model/3"));
        j["format"] = "remat-model/2";
        auto old = parseModel(j.dump(), "m.json");
        QVERIFY(!old.ok());
        const QString got = QString::fromStdString(old.error().message);
        QVERIFY2(got.contains(i == &*bert ? "m.json: $.layers[0].token_types: unknown field"
                                          : "m.json: $.layers[0].kind: layer kind \"patch_embedding\" "
                                            "is unknown in remat-model/2"),
                 qPrintable(got));
    }
    auto refused = [](json j, const char* message) {
        auto m = parseModel(j.dump(), "m.json");
        if (m.ok()) return QString("accepted");
        const QString got = QString::fromStdString(m.error().message);
        return got.contains(message) ? QString() : got;
    };
    json v = json::parse(modelToJson(vit->model));
    v["input"]["shape"] = {3, 224, 200};
    QCOMPARE(refused(v, "layer 0 (patch_embedding): patch: the image width 200 is not divisible by the patch 16"),
             QString());
    json b = json::parse(modelToJson(bert->model));
    b["layers"][3]["parallel_residual"] = true;
    QCOMPARE(refused(b, "layer 3 (transformer_block): norm_position \"post\" normalises after each residual add"),
             QString());
    b = json::parse(modelToJson(bert->model));
    b["layers"][3]["norm_position"] = "middle";
    QCOMPARE(refused(b, "$.layers[3].norm_position"), QString());
    b = json::parse(modelToJson(bert->model));
    b["layers"][0]["token_types"] = -1;
    QCOMPARE(refused(b, "$.layers[0].token_types: expected a whole number from 0"), QString());
}

// ViT's classifier reads `layernorm(x)[:, 0]`: where the linear takes the view as it is (fp32,
// mixed-bf16) it saves the view, whose storage is the LayerNorm's whole output; under autocast
// it saves its 16-bit cast of the class token, a tensor of its own (docs/memory-model.md).
void TstHfImport::vitHeadKeepsTheNormOutputThroughTheView() {
    auto vit = importHfConfigFile(hfPath("vit-base-patch16-224.json"));
    QVERIFY(vit.ok());
    for (Precision p : {Precision::Fp32, Precision::MixedBf16, Precision::AutocastBf16}) {
        auto g = lower(vit->model.network, p);
        QVERIFY(g.ok());
        const Module& normModule = g->module(g->layerModules.at(13));
        const Module& headModule = g->module(g->layerModules.at(15));
        TensorId normOut, saved;
        for (std::uint32_t o = normModule.firstOp; o <= normModule.lastOp(); ++o)
            if (g->ops[o].kind == OpKind::LayerNorm) normOut = g->ops[o].outputs[0];
        for (std::uint32_t o = headModule.firstOp; o <= headModule.lastOp(); ++o)
            if (g->ops[o].kind == OpKind::Linear) saved = g->ops[o].saved.at(0);
        QVERIFY(normOut.valid() && saved.valid());
        QCOMPARE(g->tensor(normOut).shape, (Shape{197, 768}));
        QCOMPARE(g->tensor(saved).shape, (Shape{768}));
        const bool keepsNorm = g->storageOf(saved) == g->storageOf(normOut);
        QCOMPARE(keepsNorm, p != Precision::AutocastBf16);
    }
}

void TstHfImport::errors_data() {
    QTest::addColumn<QString>("base");      // a file of tests/data/hf, or "" for `edit` alone
    QTest::addColumn<QString>("edit");      // JSON merged into it (a null removes the key)
    QTest::addColumn<QString>("message");   // after "cfg.json: "
    QTest::newRow("not JSON") << "" << "{" << "$: not valid JSON";
    QTest::newRow("not an object") << "" << "[1, 2]" << "$: expected a Hugging Face config (a JSON object), got an array";
    QTest::newRow("model_type missing") << "gpt2.json" << R"({"model_type": null})"
                                        << "$.model_type: missing (a required field; supported: bert, gemma, gpt2, gpt_neox, llama, mistral, phi3, qwen2, roberta, vit)";
    QTest::newRow("model_type number") << "gpt2.json" << R"({"model_type": 2})" << "$.model_type: expected a string, got a number";
    QTest::newRow("model_type unsupported") << "gpt2.json" << R"({"model_type": "t5"})"
                                            << "$.model_type: unsupported model_type \"t5\" (supported: bert, gemma, gpt2, gpt_neox, llama, mistral, phi3, qwen2, roberta, vit)";
    QTest::newRow("model_type escaped") << "gpt2.json" << R"({"model_type": "\u001b]0;x\u0007"})"
                                        << "unsupported model_type \"\\x1b]0;x\\x07\"";
    QTest::newRow("gpt2 n_embd missing") << "gpt2.json" << R"({"n_embd": null})" << "$.n_embd: missing (a required field)";
    QTest::newRow("llama hidden_size missing") << "llama-2-7b.json" << R"({"hidden_size": null})"
                                               << "$.hidden_size: missing (a required field)";
    QTest::newRow("llama intermediate_size missing") << "llama-2-7b.json" << R"({"intermediate_size": null})"
                                                     << "$.intermediate_size: missing (a required field)";
    QTest::newRow("max positions missing") << "llama-2-7b.json" << R"({"max_position_embeddings": null})"
                                           << "$.max_position_embeddings: missing (a required field)";
    QTest::newRow("layers a string") << "gpt2.json" << R"({"n_layer": "12"})" << "$.n_layer: expected a whole number, got a string";
    QTest::newRow("layers fractional") << "llama-2-7b.json" << R"({"num_hidden_layers": 2.5})"
                                       << "$.num_hidden_layers: expected a whole number, got 2.5";
    QTest::newRow("layers zero") << "llama-2-7b.json" << R"({"num_hidden_layers": 0})"
                                 << "$.num_hidden_layers: expected a whole number from 1 to 2000, got 0";
    QTest::newRow("layers 5000") << "llama-2-7b.json" << R"({"num_hidden_layers": 5000})"
                                 << "$.num_hidden_layers: value 5000 is too large (at most 2000)";
    QTest::newRow("width 1e30") << "llama-2-7b.json" << R"({"hidden_size": 1e30})"
                                << "$.hidden_size: value 1e+30 is too large (at most 2147483648)";
    QTest::newRow("vocabulary 1") << "gpt2.json" << R"({"vocab_size": 1})" << "$.vocab_size: expected a whole number from 2 to 2147483648, got 1";
    QTest::newRow("heads do not divide") << "llama-2-7b.json" << R"({"num_attention_heads": 31})"
                                         << "$.num_attention_heads: 31 heads do not divide the width of 4096";
    QTest::newRow("kv heads do not divide") << "meta-llama-3-8b.json" << R"({"num_key_value_heads": 5})"
                                            << "$.num_key_value_heads: 5 key/value heads do not divide the 32 attention heads";
    QTest::newRow("head_dim other than width / heads") << "gemma-2b.json" << R"({"hidden_size": 3072, "num_attention_heads": 16, "num_key_value_heads": 16})"
                                                       << "$.head_dim: heads of 256 x 16 = 4096 differ from the width 3072";
    QTest::newRow("activation unknown") << "llama-2-7b.json" << R"({"hidden_act": "xielu"})"
                                        << "$.hidden_act: activation \"xielu\" has no layer kind";
    QTest::newRow("activation not a string") << "gpt2.json" << R"({"activation_function": true})"
                                             << "$.activation_function: expected a string, got a boolean";
    QTest::newRow("two dropouts") << "gpt2.json" << R"({"attn_pdrop": 0.2})"
                                  << "$.attn_pdrop: attention dropout 0.2 differs from the residual dropout 0.1";
    QTest::newRow("dropout 1.5") << "gpt2.json" << R"({"embd_pdrop": 1.5})" << "$.embd_pdrop: expected a probability in [0, 1), got 1.5";
    QTest::newRow("tie not a boolean") << "llama-2-7b.json" << R"({"tie_word_embeddings": "yes"})"
                                       << "$.tie_word_embeddings: expected true or false, got \"yes\"";
    QTest::newRow("attention bias alone") << "llama-2-7b.json" << R"({"attention_bias": true})"
                                          << "$.attention_bias: attention biases on but MLP biases off";
    QTest::newRow("attention dropout alone") << "llama-2-7b.json" << R"({"attention_dropout": 0.1})"
                                             << "$.attention_dropout: dropout 0.1 on attention probabilities alone has no equivalent";
    QTest::newRow("cross-attention") << "gpt2.json" << R"({"add_cross_attention": true})"
                                     << "$.add_cross_attention: cross-attention to an encoder";
    QTest::newRow("quantized") << "llama-2-7b.json" << R"({"quantization_config": {"bits": 4}})"
                               << "$.quantization_config: quantized weights are not in the model format";
    QTest::newRow("gpt_neox without attention biases") << "pythia-160m.json" << R"({"attention_bias": false})"
                                                       << "$.attention_bias: false: GPT-NeoX's MLP keeps its biases";
    QTest::newRow("gpt_neox two dropouts") << "pythia-160m.json" << R"({"attention_dropout": 0.1})"
                                           << "$.attention_dropout: attention dropout 0.1 differs from the hidden dropout 0";
    QTest::newRow("qwen2 window not a number") << "qwen2-0.5b.json" << R"({"use_sliding_window": true, "sliding_window": "4k"})"
                                               << "$.sliding_window: expected a whole number, got a string";
    QTest::newRow("bert relative positions") << "bert-base-uncased.json" << R"({"position_embedding_type": "relative_key"})"
                                             << "$.position_embedding_type: \"relative_key\" position embeddings";
    QTest::newRow("bert two dropouts") << "bert-base-uncased.json" << R"({"attention_probs_dropout_prob": 0.2})"
                                       << "$.attention_probs_dropout_prob: attention dropout 0.2 differs from the hidden dropout 0.1";
    QTest::newRow("bert decoder") << "bert-base-uncased.json" << R"({"is_decoder": true})"
                                  << "$.is_decoder: a causal (decoder) encoder";
    QTest::newRow("bert intermediate_size missing") << "bert-base-uncased.json" << R"({"intermediate_size": null})"
                                                    << "$.intermediate_size: missing (a required field)";
    QTest::newRow("roberta positions within the offset") << "roberta-base.json" << R"({"max_position_embeddings": 2})"
                                                         << "$.max_position_embeddings: 2 positions leave no token after the padding offset of 2";
    QTest::newRow("vit image not divisible") << "vit-base-patch16-224.json" << R"({"image_size": 200})"
                                             << "$.patch_size: the image size 200 ($.image_size) is not divisible by the patch size 16";
    QTest::newRow("vit image size a list") << "vit-base-patch16-224.json" << R"({"image_size": [224, 224]})"
                                           << "$.image_size: expected a whole number, got an array";
    QTest::newRow("vit id2label not a map") << "vit-base-patch16-224.json" << R"({"id2label": ["cat", "dog"]})"
                                            << "$.id2label: expected an object mapping label ids to names, got an array";
    QTest::newRow("vit one label") << "vit-base-patch16-224.json" << R"({"num_labels": 1})"
                                   << "$.num_labels: expected a whole number from 2 to 2147483648, got 1";
    QTest::newRow("sliding window zero") << "mistral-7b-v0.1.json" << R"({"sliding_window": 0})"
                                         << "$.sliding_window: expected a whole number from 1 to 2147483648, got 0";
}

void TstHfImport::errors() {
    QFETCH(QString, base);
    QFETCH(QString, edit);
    QFETCH(QString, message);
    std::string text = edit.toStdString();
    if (!base.isEmpty()) {
        json c = config(base.toUtf8().constData());
        c.merge_patch(json::parse(text));  // a null removes the key
        text = c.dump();
    }
    auto i = importHfConfig(text, "cfg.json");
    QVERIFY2(!i.ok(), qPrintable("accepted: " + QString::fromStdString(text).left(200)));
    const QString got = QString::fromStdString(i.error().message);
    QVERIFY2(got.startsWith("cfg.json: "), qPrintable(got));
    QVERIFY2(got.contains(message), qPrintable(got + "\nexpected: " + message));
    QVERIFY2(!got.contains('\n') && !got.contains('\x1b'), qPrintable(got));
}

void TstHfImport::sequenceAndBatchOptions() {
    HfImportOptions o;
    o.seqLen = 512;
    o.microBatch = 4;
    auto i = importHfConfigFile(hfPath("gpt2.json"), o);
    QVERIFY(i.ok());
    QCOMPARE(i->model.network.input.tokens, std::int64_t(512));
    QCOMPARE(i->model.network.layers[0].positions, std::int64_t(1024));  // the table stays
    QCOMPARE(i->model.training.microBatch, std::int64_t(4));

    o.seqLen = 2048;
    auto tooLong = importHfConfigFile(hfPath("gpt2.json"), o);
    QVERIFY(!tooLong.ok());
    QVERIFY2(QString::fromStdString(tooLong.error().message)
                 .contains("gpt2.json: $.n_positions: a sequence of 2048 tokens is longer than the 1024 positions the model takes"),
             tooLong.error().message.c_str());
    o.seqLen = 0;
    auto zero = importHfConfigFile(hfPath("gpt2.json"), o);
    QVERIFY(!zero.ok());
    QVERIFY(QString::fromStdString(zero.error().message).contains("a sequence length of 0 tokens is out of range (1 to 2147483648)"));
    o.seqLen.reset();
    o.microBatch = 0;
    auto noBatch = importHfConfigFile(hfPath("gpt2.json"), o);
    QVERIFY(!noBatch.ok());
    QVERIFY(QString::fromStdString(noBatch.error().message).contains("a micro-batch of 0 is out of range (1 to 16777216)"));

    // n_ctx alone gives the length where n_positions is absent.
    json c = config("gpt2.json");
    c.erase("n_positions");
    c["n_ctx"] = 256;
    auto ctx = importHfConfig(c.dump(), "gpt2.json");
    QVERIFY(ctx.ok());
    QCOMPARE(ctx->model.network.input.tokens, std::int64_t(256));
}

void TstHfImport::directoryAndFileErrors() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString checkpoint = dir.path() + "/my-gpt2";
    QVERIFY(QDir().mkpath(checkpoint));
    QVERIFY(QFile::copy(kHfDir + "/gpt2.json", checkpoint + "/config.json"));
    auto i = importHfConfigFile(checkpoint.toStdString());
    QVERIFY2(i.ok(), i.ok() ? "" : i.error().message.c_str());
    QCOMPARE(i->model.network.name, std::string("my-gpt2"));  // the checkpoint's folder
    QCOMPARE(parameters(i->model), std::int64_t(124439808));

    auto empty = importHfConfigFile(dir.path().toStdString());
    QVERIFY(!empty.ok());
    QVERIFY2(QString::fromStdString(empty.error().message).contains(dir.path() + "/config.json"),
             empty.error().message.c_str());
    auto missing = importHfConfigFile((dir.path() + "/nothing.json").toStdString());
    QVERIFY(!missing.ok());
    QVERIFY(QString::fromStdString(missing.error().message).contains("nothing.json"));
}

void TstHfImport::importsRoundTripAndLoad() {
    for (const char* file : {"gpt2.json", "llama-2-7b.json", "meta-llama-3-8b.json",
                             "mistral-7b-v0.1.json", "gemma-2b.json", "phi-3-mini-4k-instruct.json",
                             "qwen2-0.5b.json", "pythia-160m.json", "bert-base-uncased.json",
                             "roberta-base.json", "vit-base-patch16-224.json"}) {
        auto i = importHfConfigFile(hfPath(file));
        QVERIFY2(i.ok(), file);
        auto again = parseModel(modelToJson(i->model), file);
        QVERIFY2(again.ok(), again.ok() ? file : again.error().message.c_str());
        QVERIFY2(*again == i->model, file);
    }
}

void TstHfImport::hostileNamesAreEscaped() {
    json c = config("gpt2.json");
    c["_name_or_path"] = "\x1b]0;pwned\x07" + std::string(5000, 'x');
    c["\x1b[2Jkey"] = 1;
    auto i = importHfConfig(c.dump(), "gpt2.json");
    QVERIFY(i.ok());
    const std::string& name = i->model.network.name;
    QVERIFY(name.find('\x1b') == std::string::npos);
    QVERIFY(name.size() <= 256);
    for (const auto& f : i->ignored) QVERIFY(f.key.find('\x1b') == std::string::npos);
    QVERIFY(parseModel(modelToJson(i->model), "again").ok());
}

QTEST_GUILESS_MAIN(TstHfImport)
#include "tst_hf_import.moc"
