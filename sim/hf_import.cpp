#include "hf_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "json_input.h"
#include "lower.h"
#include "simulator.h"
#include "text.h"

namespace remat {

namespace {

using json = nlohmann::json;

constexpr std::int64_t kMaxSize = std::int64_t{1} << 31;

std::string typeName(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

// Reads the top-level fields of a config, remembering the first error with its JSON path and
// which keys the mapping used (the rest are reported as ignored). A JSON null counts as absent,
// as transformers reads it (`"n_inner": null` means the default).
class Fields {
public:
    Fields(const json& root, const std::string& origin)
        : m_root(root), m_origin(printable(origin, 200)) {}

    bool failed() const { return m_error.has_value(); }
    const Error& error() const { return *m_error; }
    void fail(const std::string& key, const std::string& what) {
        if (!m_error) m_error = makeError(m_origin + ": $" + (key.empty() ? "" : "." + key) + ": " + what);
    }
    const std::set<std::string>& used() const { return m_used; }
    bool isNull(const char* key) const { return m_root.contains(key) && m_root.at(key).is_null(); }

    // The first of `keys` present and not null (every present one counts as used), or "".
    std::string present(std::initializer_list<const char*> keys) {
        std::string found;
        for (const char* k : keys) {
            if (!m_root.contains(k)) continue;
            m_used.insert(k);
            if (found.empty() && !m_root.at(k).is_null()) found = k;
        }
        return found;
    }

    // A whole number in [min, max]; `def` when absent (nullopt: required).
    std::int64_t integer(std::initializer_list<const char*> keys, std::int64_t min,
                         std::int64_t max, std::optional<std::int64_t> def = std::nullopt) {
        const std::string key = present(keys);
        if (key.empty()) {
            if (!def) fail(*keys.begin(), "missing (a required field)");
            return def.value_or(min);
        }
        const json& v = m_root.at(key);
        if (!v.is_number_integer()) {
            const bool whole = v.is_number_float() && std::isfinite(v.get<double>()) &&
                               std::floor(v.get<double>()) == v.get<double>();
            if (whole && std::fabs(v.get<double>()) > double(max))
                fail(key, "value " + printableJson(v) + " is too large (at most " + std::to_string(max) + ")");
            else
                fail(key, "expected a whole number, got " +
                              (v.is_number() ? printableJson(v) : typeName(v)));
            return def.value_or(min);
        }
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(max)) {
            fail(key, "value " + printableJson(v) + " is too large (at most " + std::to_string(max) + ")");
            return def.value_or(min);
        }
        const auto x = v.get<std::int64_t>();
        if (x < min || x > max) {
            fail(key, "expected a whole number from " + std::to_string(min) + " to " +
                          std::to_string(max) + ", got " + std::to_string(x));
            return def.value_or(min);
        }
        return x;
    }

    // A dropout probability in [0, 1).
    double probability(const char* key, double def) {
        if (present({key}).empty()) return def;
        const json& v = m_root.at(key);
        if (!v.is_number() || !(v.get<double>() >= 0.0 && v.get<double>() < 1.0)) {
            fail(key, "expected a probability in [0, 1), got " + printableJson(v));
            return def;
        }
        return v.get<double>();
    }

    // A number in (lo, hi]; `def` when absent. `what` names the range for messages.
    double number(std::initializer_list<const char*> keys, double def, double lo, double hi,
                  const std::string& what) {
        const std::string key = present(keys);
        if (key.empty()) return def;
        const json& v = m_root.at(key);
        if (!v.is_number() || !(v.get<double>() > lo && v.get<double>() <= hi)) {
            fail(key, "expected " + what + ", got " + printableJson(v));
            return def;
        }
        return v.get<double>();
    }

    bool boolean(const char* key, bool def) {
        if (present({key}).empty()) return def;
        const json& v = m_root.at(key);
        if (!v.is_boolean()) {
            fail(key, "expected true or false, got " + printableJson(v));
            return def;
        }
        return v.get<bool>();
    }

    // The entries of an object (id2label), or 0 after failing when it is not one.
    std::int64_t mapSize(const char* key) {
        present({key});
        const json& v = m_root.at(key);
        if (!v.is_object()) {
            fail(key, "expected an object mapping label ids to names, got " + typeName(v));
            return 0;
        }
        return static_cast<std::int64_t>(v.size());
    }

    // A string; `def` when absent. `key` names the field for messages.
    std::string string(std::initializer_list<const char*> keys, const std::string& def) {
        const std::string key = present(keys);
        if (key.empty()) return def;
        const json& v = m_root.at(key);
        if (!v.is_string()) {
            fail(key, "expected a string, got " + typeName(v));
            return def;
        }
        return v.get<std::string>();
    }

private:
    const json& m_root;
    std::string m_origin;
    std::optional<Error> m_error;
    std::set<std::string> m_used;
};

// What one decoder-only transformer is made of, in the config's terms, before it becomes our
// layer stack: [embedding, transformer_block x layers, final norm, linear head, cross_entropy].
struct Decoder {
    std::int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, inner = 0;
    Activation activation = Activation::Gelu;
    bool gated = false;
    NormKind norm = NormKind::LayerNorm;
    bool bias = true;
    std::optional<bool> qkvBias;  // where it differs from `bias` (Qwen2)
    bool parallelResidual = false;
    bool tied = false;
    bool learnedPositions = false;
    // Rotary position embeddings: the share of each head they rotate and their base.
    bool rotary = false;
    double rotaryFraction = 1.0, rotaryBase = 10000.0;
    std::int64_t maxPositions = 0;
    std::string maxPositionsKey;
    double embeddingDropout = 0.0;
    double blockDropout = 0.0;
    std::int64_t slidingWindow = 0;  // 0: none
    std::vector<std::string> notes;  // what the description says about the mapping
};

std::optional<Activation> activationFromHf(const std::string& s) {
    static const std::map<std::string, Activation> known = {
        {"gelu", Activation::Gelu},          {"gelu_new", Activation::Gelu},
        {"gelu_fast", Activation::Gelu},     {"gelu_pytorch_tanh", Activation::Gelu},
        {"gelu_python", Activation::Gelu},   {"gelu_accurate", Activation::Gelu},
        {"quick_gelu", Activation::Gelu},    {"silu", Activation::Silu},
        {"swish", Activation::Silu},         {"relu", Activation::Relu},
    };
    auto it = known.find(s);
    if (it == known.end()) return std::nullopt;
    return it->second;
}

Activation readActivation(Fields& f, std::initializer_list<const char*> keys, const std::string& def) {
    const std::string s = f.string(keys, def);
    auto a = activationFromHf(s);
    if (!a && !f.failed())
        f.fail(*keys.begin(), "activation \"" + printable(s) +
                                  "\" has no layer kind (supported: gelu, gelu_new, gelu_fast, "
                                  "gelu_pytorch_tanh, gelu_python, gelu_accurate, quick_gelu, "
                                  "silu, swish, relu)");
    return a.value_or(Activation::Gelu);
}

// Sizes every architecture has: vocabulary, width, depth, heads, grouped-query heads.
void readCore(Fields& f, Decoder& d, std::initializer_list<const char*> vocab,
              std::initializer_list<const char*> hidden, std::initializer_list<const char*> layers,
              std::initializer_list<const char*> heads) {
    d.vocab = f.integer(vocab, 2, kMaxSize);
    d.hidden = f.integer(hidden, 1, kMaxSize);
    d.layers = f.integer(layers, 1, kMaxLayerInstances);
    d.heads = f.integer(heads, 1, kMaxSize);
    if (f.failed()) return;
    if (d.hidden % d.heads != 0)
        f.fail(*heads.begin(), std::to_string(d.heads) + " heads do not divide the width of " +
                                   std::to_string(d.hidden));
    d.kvHeads = d.heads;
}

void readKvHeads(Fields& f, Decoder& d) {
    d.kvHeads = f.integer({"num_key_value_heads"}, 1, kMaxSize, d.heads);
    if (!f.failed() && d.heads % d.kvHeads != 0)
        f.fail("num_key_value_heads", std::to_string(d.kvHeads) + " key/value heads do not divide the " +
                                          std::to_string(d.heads) + " attention heads");
}

// `head_dim`, where a config has it, must be width / heads: our attention splits the width.
void readHeadDim(Fields& f, const Decoder& d) {
    const std::int64_t headDim = f.integer({"head_dim"}, 1, kMaxSize, d.hidden / std::max<std::int64_t>(1, d.heads));
    if (!f.failed() && headDim * d.heads != d.hidden)
        f.fail("head_dim", "heads of " + std::to_string(headDim) + " x " + std::to_string(d.heads) +
                               " = " + std::to_string(headDim * d.heads) +
                               " differ from the width " + std::to_string(d.hidden) +
                               "; the model format's attention splits the width into the heads");
}

// attention_bias and mlp_bias as one `bias`: the model format has one flag for both.
void readBias(Fields& f, Decoder& d, bool attentionDefault, bool hasMlpBias) {
    const bool attention = f.boolean("attention_bias", attentionDefault);
    const bool mlp = hasMlpBias ? f.boolean("mlp_bias", false) : attentionDefault;
    if (!f.failed() && attention != mlp)
        f.fail("attention_bias", std::string("attention biases ") + (attention ? "on" : "off") +
                                     " but MLP biases " + (mlp ? "on" : "off") +
                                     ": a transformer_block's one `bias` covers both");
    d.bias = attention;
}

// Llama-style blocks drop nothing but attention probabilities; our block's dropout also drops
// after both projections, so only 0 maps exactly.
void requireNoAttentionDropout(Fields& f) {
    const double p = f.probability("attention_dropout", 0.0);
    if (!f.failed() && p != 0.0)
        f.fail("attention_dropout", "dropout " + printableJson(json(p)) +
                                        " on attention probabilities alone has no equivalent: a "
                                        "transformer_block's dropout also applies after the "
                                        "attention output and the MLP");
}

void readMaxPositions(Fields& f, Decoder& d, std::initializer_list<const char*> keys) {
    d.maxPositions = f.integer(keys, 1, kMaxSize);
    d.maxPositionsKey = f.present(keys);
    if (d.maxPositionsKey.empty()) d.maxPositionsKey = *keys.begin();
}

// `"sliding_window": null` means no window; an absent one means the architecture's default.
void readSlidingWindow(Fields& f, Decoder& d, std::int64_t def) {
    if (f.isNull("sliding_window")) {
        f.present({"sliding_window"});
        d.slidingWindow = 0;
        return;
    }
    d.slidingWindow = f.integer({"sliding_window"}, 1, kMaxSize, def);
}

// ---- the architectures --------------------------------------------------------------------

void readGpt2(Fields& f, Decoder& d) {
    readCore(f, d, {"vocab_size"}, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"},
             {"n_head", "num_attention_heads"});
    if (f.failed()) return;
    d.inner = f.integer({"n_inner"}, 1, kMaxSize, 4 * d.hidden);
    readMaxPositions(f, d, {"n_positions", "max_position_embeddings", "n_ctx"});
    d.activation = readActivation(f, {"activation_function"}, "gelu_new");
    d.embeddingDropout = f.probability("embd_pdrop", 0.1);
    const double attn = f.probability("attn_pdrop", 0.1);
    const double resid = f.probability("resid_pdrop", 0.1);
    if (!f.failed() && attn != resid)
        f.fail("attn_pdrop", "attention dropout " + printableJson(json(attn)) +
                                 " differs from the residual dropout " + printableJson(json(resid)) +
                                 " ($.resid_pdrop): a transformer_block has one dropout for both");
    d.blockDropout = resid;
    if (f.boolean("add_cross_attention", false) && !f.failed())
        f.fail("add_cross_attention", "cross-attention to an encoder is not a layer the model "
                                      "format has");
    d.tied = f.boolean("tie_word_embeddings", true);
    d.norm = NormKind::LayerNorm;
    d.bias = true;
    d.learnedPositions = true;
}

void readGptNeox(Fields& f, Decoder& d) {
    readCore(f, d, {"vocab_size"}, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
    if (f.failed()) return;
    d.inner = f.integer({"intermediate_size"}, 1, kMaxSize);
    readMaxPositions(f, d, {"max_position_embeddings"});
    d.activation = readActivation(f, {"hidden_act"}, "gelu");
    d.parallelResidual = f.boolean("use_parallel_residual", true);
    const double attn = f.probability("attention_dropout", 0.0);
    const double hidden = f.probability("hidden_dropout", 0.0);
    if (!f.failed() && attn != hidden)
        f.fail("attention_dropout", "attention dropout " + printableJson(json(attn)) +
                                        " differs from the hidden dropout " + printableJson(json(hidden)) +
                                        " ($.hidden_dropout): a transformer_block has one dropout for both");
    d.embeddingDropout = hidden;
    d.blockDropout = hidden;
    if (!f.boolean("attention_bias", true) && !f.failed())
        f.fail("attention_bias", "false: GPT-NeoX's MLP keeps its biases, and a "
                                 "transformer_block's one `bias` covers both");
    d.tied = f.boolean("tie_word_embeddings", false);
    d.norm = NormKind::LayerNorm;
    d.bias = true;
    // transformers' GPTNeoXConfig: rotary on a quarter of each head by default.
    d.rotary = true;
    d.rotaryFraction = f.number({"rotary_pct"}, 0.25, 0.0, 1.0, "a fraction in (0, 1]");
    d.rotaryBase = f.number({"rotary_emb_base", "rope_theta"}, 10000.0, 1.0, 1e12,
                            "a base above 1 and at most 1e12");
}

// Llama, Mistral, Gemma, Phi-3: pre-RMSNorm blocks with a gated MLP and rotary positions.
void readLlamaLike(Fields& f, Decoder& d, const std::string& type) {
    readCore(f, d, {"vocab_size"}, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
    if (f.failed()) return;
    readKvHeads(f, d);
    readHeadDim(f, d);
    d.inner = f.integer({"intermediate_size"}, 1, kMaxSize);
    readMaxPositions(f, d, {"max_position_embeddings"});
    if (type == "gemma") {
        // transformers' Gemma uses hidden_activation, falling back to the tanh GELU.
        const std::string which = f.present({"hidden_activation"}).empty() ? "hidden_act" : "hidden_activation";
        f.present({"hidden_act", "hidden_activation"});
        d.activation = readActivation(f, {which.c_str()}, "gelu_pytorch_tanh");
    } else {
        d.activation = readActivation(f, {"hidden_act"}, "silu");
    }
    d.gated = true;
    d.norm = NormKind::RmsNorm;
    d.rotary = true;
    d.rotaryFraction = f.number({"partial_rotary_factor"}, 1.0, 0.0, 1.0, "a fraction in (0, 1]");
    d.rotaryBase = f.number({"rope_theta"}, 10000.0, 1.0, 1e12, "a base above 1 and at most 1e12");
    if (type == "phi3") {
        d.embeddingDropout = f.probability("embd_pdrop", 0.0);
        const double resid = f.probability("resid_pdrop", 0.0);
        const double attn = f.probability("attention_dropout", 0.0);
        if (!f.failed() && attn != resid)
            f.fail("attention_dropout", "attention dropout " + printableJson(json(attn)) +
                                            " differs from the residual dropout " +
                                            printableJson(json(resid)) +
                                            " ($.resid_pdrop): a transformer_block has one dropout for both");
        d.blockDropout = resid;
        readBias(f, d, false, false);
        readSlidingWindow(f, d, 0);
    } else if (type == "qwen2") {
        // Qwen2: biases on the q, k and v projections, none on the output projection or the
        // MLP; the sliding window only where use_sliding_window says so.
        requireNoAttentionDropout(f);
        d.bias = false;
        d.qkvBias = true;
        if (f.boolean("use_sliding_window", false)) {
            readSlidingWindow(f, d, 4096);
        } else {
            f.present({"sliding_window", "max_window_layers"});
            d.slidingWindow = 0;
        }
    } else {
        requireNoAttentionDropout(f);
        readBias(f, d, false, type == "llama");
        if (type == "mistral") readSlidingWindow(f, d, 4096);
    }
    d.tied = f.boolean("tie_word_embeddings", type == "gemma");
    if (type == "gemma")
        d.notes.push_back("Gemma multiplies the embeddings by sqrt(hidden_size): a parameter-free "
                          "scale that the embedding layer does not model.");
}

// Reasons for fields that change neither memory nor time.
const std::map<std::string, std::string>& knownIgnored() {
    static const std::map<std::string, std::string> reasons = {
        {"auto_map", "classes of custom model code; the network follows model_type"},
        {"architectures", "class names of the checkpoint; the network follows model_type"},
        {"transformers_version", "the version of the library that wrote the file"},
        {"torch_dtype", "how the checkpoint stores its weights; training precision is the model file's (mixed-bf16)"},
        {"dtype", "how the checkpoint stores its weights; training precision is the model file's (mixed-bf16)"},
        {"bos_token_id", "a token id: no memory, no time"},
        {"eos_token_id", "a token id: no memory, no time"},
        {"pad_token_id", "a token id: no memory, no time"},
        {"sep_token_id", "a token id: no memory, no time"},
        {"decoder_start_token_id", "a token id: no memory, no time"},
        {"initializer_range", "initialisation of the weights: no memory, no time"},
        {"layer_norm_eps", "a normalisation epsilon: no memory, no time"},
        {"layer_norm_epsilon", "a normalisation epsilon: no memory, no time"},
        {"rms_norm_eps", "a normalisation epsilon: no memory, no time"},
        {"rope_theta", "the rotary base of a model whose positions are learned, not rotary"},
        {"rope_scaling", "rotary positions: scaling changes only the angles (no parameters, same memory and time)"},
        {"rope_parameters", "rotary positions: scaling changes only the angles (no parameters, same memory and time)"},
        {"original_max_position_embeddings", "the context of pre-training before rotary scaling; the sequence length is max_position_embeddings or --seq-len"},
        {"use_cache", "the key/value cache serves generation, not training"},
        {"gradient_checkpointing", "transformers' own checkpointing switch: the plan is chosen here"},
        {"pretraining_tp", "tensor-parallel degree of pre-training: same parameters on one device"},
        {"scale_attn_weights", "a scale inside attention: same tensors, same FLOPs"},
        {"scale_attn_by_inverse_layer_idx", "a scale inside attention: same tensors, same FLOPs"},
        {"reorder_and_upcast_attn", "a numerical detail of attention: same tensors, same FLOPs"},
        {"summary_type", "GPT2DoubleHeadsModel's classification head, not the language model"},
        {"summary_use_proj", "GPT2DoubleHeadsModel's classification head, not the language model"},
        {"summary_activation", "GPT2DoubleHeadsModel's classification head, not the language model"},
        {"summary_proj_to_labels", "GPT2DoubleHeadsModel's classification head, not the language model"},
        {"summary_first_dropout", "GPT2DoubleHeadsModel's classification head, not the language model"},
        {"task_specific_params", "generation settings for tasks: no memory, no time in training"},
        {"id2label", "labels of a classification head, not the language model"},
        {"label2id", "labels of a classification head, not the language model"},
        {"num_labels", "labels of a classification head, not the language model"},
        {"problem_type", "labels of a classification head, not the language model"},
        {"finetuning_task", "metadata of a fine-tuning run"},
        {"classifier_dropout", "dropout of a classification head, not the language model"},
        {"max_window_layers", "which layers use the sliding window: with eager attention a window costs what no window does (docs/import.md)"},
        {"n_ctx", "not read by transformers' GPT-2 (n_positions sets the positions)"},
        {"attn_implementation", "the attention kernel is chosen by the import (docs/import.md)"},
        {"_attn_implementation", "the attention kernel is chosen by the import (docs/import.md)"},
        {"tokenizer_class", "the tokenizer: no memory, no time"},
        {"model_max_length", "a tokenizer setting: the sequence length is max_position_embeddings or --seq-len"},
        {"encoder_stride", "the decoder of ViTForMaskedImageModeling, not image classification"},
        {"chunk_size_feed_forward", "splits the MLP's rows into chunks in inference; training runs it whole"},
        {"output_past", "a generation setting: no memory, no time in training"},
    };
    return reasons;
}

const std::vector<std::string> kSupported = {"bert",    "gemma", "gpt2",  "gpt_neox", "llama",
                                             "mistral", "phi3",  "qwen2", "roberta",  "vit"};

// Architectures listed in docs/import.md that the model format cannot express exactly yet
// (none at present: the list stays for the next one).
const std::map<std::string, std::string>& refusedTypes() {
    static const std::map<std::string, std::string> reasons = {};
    return reasons;
}

// ---- encoders: BERT, RoBERTa (masked LM) and ViT (image classification) ----------------

// The encoder block both families share: non-causal attention, LayerNorm, biases, one dropout
// for the attention probabilities and the hidden states (the config's two must agree).
struct Encoder {
    std::int64_t hidden = 0, layers = 0, heads = 0, inner = 0;
    Activation activation = Activation::Gelu;
    double dropout = 0.0;
};

void readEncoder(Fields& f, Encoder& e) {
    e.hidden = f.integer({"hidden_size"}, 1, kMaxSize);
    e.layers = f.integer({"num_hidden_layers"}, 1, kMaxLayerInstances);
    e.heads = f.integer({"num_attention_heads"}, 1, kMaxSize);
    if (f.failed()) return;
    if (e.hidden % e.heads != 0) {
        f.fail("num_attention_heads", std::to_string(e.heads) + " heads do not divide the width of " +
                                          std::to_string(e.hidden));
        return;
    }
    e.inner = f.integer({"intermediate_size"}, 1, kMaxSize);
    e.activation = readActivation(f, {"hidden_act"}, "gelu");
    const double attn = f.probability("attention_probs_dropout_prob", 0.1);
    const double hidden = f.probability("hidden_dropout_prob", 0.1);
    if (!f.failed() && attn != hidden)
        f.fail("attention_probs_dropout_prob",
               "attention dropout " + printableJson(json(attn)) + " differs from the hidden dropout " +
                   printableJson(json(hidden)) +
                   " ($.hidden_dropout_prob): a transformer_block has one dropout for both");
    e.dropout = hidden;
    if (f.boolean("is_decoder", false) && !f.failed())
        f.fail("is_decoder", "a causal (decoder) encoder is not the masked language model or "
                             "image classifier the import writes");
    if (f.boolean("add_cross_attention", false) && !f.failed())
        f.fail("add_cross_attention", "cross-attention to an encoder is not a layer the model "
                                      "format has");
}

Layer encoderBlock(const Encoder& e, NormPosition position) {
    Layer block;
    block.kind = LayerKind::TransformerBlock;
    block.repeat = e.layers;
    block.heads = e.heads;
    block.mlpHidden = e.inner;
    block.activation = e.activation;
    block.norm = NormKind::LayerNorm;
    block.normPosition = position;
    block.dropout = e.dropout;
    // Flash attention unless the probabilities have dropout, which the flash op does not model.
    block.attention = e.dropout > 0.0 ? AttentionImpl::Eager : AttentionImpl::Flash;
    block.causal = false;
    block.bias = true;
    return block;
}

Layer layerOf(LayerKind kind) {
    Layer l;
    l.kind = kind;
    return l;
}

Layer activationLayer(Activation a) {
    switch (a) {
        case Activation::Relu: return layerOf(LayerKind::Relu);
        case Activation::Silu: return layerOf(LayerKind::Silu);
        case Activation::Gelu: break;
    }
    return layerOf(LayerKind::Gelu);
}

// BertForMaskedLM / RobertaForMaskedLM: embeddings (token, position and token-type lookups
// summed, LayerNorm, dropout), post-LN blocks, the MLM head (dense, activation, LayerNorm,
// decoder tied to the token embedding with its own bias) and the cross-entropy. No pooler:
// the masked-LM models do not have one.
void buildBertLike(Fields& f, const std::string& type, const HfImportOptions& options,
                   Network& net, std::vector<std::string>& notes, std::string& summary) {
    Encoder e;
    const std::int64_t vocab = f.integer({"vocab_size"}, 2, kMaxSize);
    readEncoder(f, e);
    const std::int64_t positions = f.integer({"max_position_embeddings"}, 1, kMaxSize);
    const std::int64_t types = f.integer({"type_vocab_size"}, 0, kMaxSize, 2);
    const std::string kind = f.string({"position_embedding_type"}, "absolute");
    if (!f.failed() && kind != "absolute")
        f.fail("position_embedding_type",
               "\"" + printable(kind) + "\" position embeddings (distance embeddings inside "
               "attention) are not in the model format; only \"absolute\" imports");
    // RoBERTa numbers positions from padding_idx + 1 (pad_token_id 1: positions 2..513 of 514).
    std::int64_t offset = 0;
    if (type == "roberta") offset = f.integer({"pad_token_id"}, 0, kMaxSize, 1) + 1;
    const bool tied = f.boolean("tie_word_embeddings", true);
    if (f.failed()) return;
    const std::int64_t maxTokens = positions - offset;
    if (maxTokens < 1) {
        f.fail("max_position_embeddings", std::to_string(positions) +
                                              " positions leave no token after the padding "
                                              "offset of " + std::to_string(offset));
        return;
    }
    const std::int64_t tokens = options.seqLen.value_or(maxTokens);
    if (tokens > maxTokens) {
        f.fail("max_position_embeddings",
               "a sequence of " + std::to_string(tokens) + " tokens is longer than the " +
                   std::to_string(maxTokens) + " positions the model takes" +
                   (offset ? " (" + std::to_string(positions) + " less the padding offset of " +
                                 std::to_string(offset) + ")"
                           : std::string()));
        return;
    }
    net.input.tokens = tokens;
    net.input.vocab = vocab;
    net.tieEmbeddings = tied;

    Layer embedding = layerOf(LayerKind::Embedding);
    embedding.dim = e.hidden;
    embedding.positions = positions;
    embedding.tokenTypes = types;
    net.layers.push_back(embedding);
    net.layers.push_back(layerOf(LayerKind::LayerNorm));
    if (e.dropout > 0.0) {
        Layer drop = layerOf(LayerKind::Dropout);
        drop.p = e.dropout;
        net.layers.push_back(drop);
    }
    net.layers.push_back(encoderBlock(e, NormPosition::Post));
    Layer dense = layerOf(LayerKind::Linear);
    dense.out = e.hidden;
    net.layers.push_back(dense);
    // RobertaLMHead applies gelu whatever hidden_act says; BertPredictionHeadTransform applies
    // hidden_act.
    net.layers.push_back(activationLayer(type == "roberta" ? Activation::Gelu : e.activation));
    net.layers.push_back(layerOf(LayerKind::LayerNorm));
    Layer decoder = layerOf(LayerKind::Linear);
    decoder.out = vocab;
    decoder.bias = true;
    net.layers.push_back(decoder);
    net.layers.push_back(layerOf(LayerKind::CrossEntropy));

    if (e.dropout > 0.0)
        notes.push_back("Eager attention: the attention probabilities have dropout, which the "
                        "flash attention op does not model.");
    if (offset > 0)
        notes.push_back("Positions start after the padding index: " + std::to_string(positions) +
                        " learned positions, at most " + std::to_string(maxTokens) + " tokens.");
    summary = std::to_string(e.layers) + " post-LN blocks of width " + std::to_string(e.hidden) +
              ", " + std::to_string(e.heads) + " heads, MLP " + std::to_string(e.inner) +
              ", vocabulary " + std::to_string(vocab) + ", " + std::to_string(types) +
              " token types, " + std::to_string(tokens) + " tokens (learned positions), " +
              (tied ? "tied" : "untied") + " embeddings; masked-LM head (" +
              (type == "roberta" ? "RobertaForMaskedLM" : "BertForMaskedLM") + ", no pooler)";
}

// ViTForImageClassification: the patch embedding (with the class token and learned positions),
// pre-LN blocks, the final LayerNorm over every token, and the classifier on the class token.
void buildVit(Fields& f, const HfImportOptions& options, Network& net,
              std::vector<std::string>& notes, std::string& summary) {
    if (options.seqLen) {
        f.fail("image_size", "a sequence length (--seq-len) does not apply to an image model: its "
                             "tokens are the image's patches and the class token");
        return;
    }
    Encoder e;
    readEncoder(f, e);
    const std::int64_t image = f.integer({"image_size"}, 1, kMaxSize, 224);
    const std::int64_t patch = f.integer({"patch_size"}, 1, kMaxSize, 16);
    const std::int64_t channels = f.integer({"num_channels"}, 1, kMaxSize, 3);
    const bool qkvBias = f.boolean("qkv_bias", true);
    // The classifier's size: id2label's entries, else num_labels, else transformers' default
    // of 2 labels.
    std::int64_t labels = 2;
    std::string labelsFrom = "transformers' default of 2 (no id2label or num_labels)";
    const std::string labelKey = f.present({"id2label", "num_labels"});
    f.present({"label2id"});
    if (f.failed()) return;
    if (image % patch != 0) {
        f.fail("patch_size", "the image size " + std::to_string(image) +
                                 " ($.image_size) is not divisible by the patch size " +
                                 std::to_string(patch));
        return;
    }
    if (!labelKey.empty()) {
        if (labelKey == "num_labels") {
            labels = f.integer({"num_labels"}, 2, kMaxSize);
            labelsFrom = "num_labels";
        } else {
            labels = f.mapSize("id2label");
            labelsFrom = "the entries of id2label";
            if (!f.failed() && labels < 2)
                f.fail("id2label", "a classifier needs at least 2 labels, got " +
                                       std::to_string(labels));
        }
        if (f.failed()) return;
    }
    net.input.shape = {channels, image, image};
    Layer embed = layerOf(LayerKind::PatchEmbedding);
    embed.dim = e.hidden;
    embed.kernel = patch;
    embed.classToken = true;
    embed.dropout = e.dropout;
    net.layers.push_back(embed);
    Layer block = encoderBlock(e, NormPosition::Pre);
    if (!qkvBias) block.qkvBias = false;
    net.layers.push_back(block);
    net.layers.push_back(layerOf(LayerKind::LayerNorm));
    net.layers.push_back(layerOf(LayerKind::SelectToken));
    Layer classifier = layerOf(LayerKind::Linear);
    classifier.out = labels;
    net.layers.push_back(classifier);
    net.layers.push_back(layerOf(LayerKind::CrossEntropy));
    if (e.dropout > 0.0)
        notes.push_back("Eager attention: the attention probabilities have dropout, which the "
                        "flash attention op does not model.");
    const std::int64_t side = image / patch;
    summary = std::to_string(e.layers) + " blocks of width " + std::to_string(e.hidden) + ", " +
              std::to_string(e.heads) + " heads, MLP " + std::to_string(e.inner) + (qkvBias ? "" : ", no q/k/v biases") +
              ", " + std::to_string(channels) + "x" + std::to_string(image) + "x" +
              std::to_string(image) + " images in " + std::to_string(side * side) + " patches of " +
              std::to_string(patch) + "x" + std::to_string(patch) +
              " and a class token, " + std::to_string(labels) + " labels (" + labelsFrom +
              "); image-classification head (ViTForImageClassification: final LayerNorm, "
              "classifier on the class token)";
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::string baseName(const std::string& origin) {
    std::filesystem::path p(origin);
    if (p.filename() == "config.json" && p.has_parent_path()) return p.parent_path().filename().string();
    return p.stem().string();
}

// What every import ends with: the name, the training settings, the ignored fields, and the
// check that the result loads and lowers like any model file.
Result<HfImport> finishImport(HfImport out, Fields& f, const json& root, const std::string& origin,
                              const HfImportOptions& options) {
    const std::string shownOrigin = printable(origin, 200);
    ModelFile& m = out.model;
    if (m.network.name.empty()) {
        const std::string nameOrPath = f.string({"_name_or_path"}, "");
        if (f.failed()) return f.error();
        std::string name = !nameOrPath.empty() ? nameOrPath : baseName(origin);
        if (name.empty()) name = out.modelType;
        m.network.name = printable(name, 50);
    }
    m.training.microBatch = options.microBatch.value_or(1);
    m.training.precision = Precision::MixedBf16;
    m.training.optimizer = Optimizer::AdamW;

    for (const auto& [key, value] : root.items()) {
        if (f.used().count(key)) continue;
        auto it = knownIgnored().find(key);
        out.ignored.push_back(
            {printable(key),
             it != knownIgnored().end()
                 ? it->second
                 : std::string("not a field the import knows: taken to change neither memory nor "
                               "time (docs/import.md lists what it reads)")});
    }

    // The result must load and lower like any model file (docs/model-format.md's limits).
    auto again = parseModel(modelToJson(m), origin);
    if (!again) return again.error();
    auto g = lower(m.network, m.training);
    if (!g) return makeError(shownOrigin + ": " + g.error().message);
    return out;
}

}  // namespace

std::vector<std::string> hfSupportedModelTypes() { return kSupported; }

std::vector<std::string> hfRefusedModelTypes() {
    std::vector<std::string> out;
    for (const auto& [k, v] : refusedTypes()) out.push_back(k);
    return out;
}

Result<HfImport> importHfConfig(const std::string& text, const std::string& origin,
                                const HfImportOptions& options) {
    const std::string shownOrigin = printable(origin, 200);
    if (options.seqLen && (*options.seqLen < 1 || *options.seqLen > kMaxSize))
        return makeError(shownOrigin + ": a sequence length of " + std::to_string(*options.seqLen) +
                         " tokens is out of range (1 to " + std::to_string(kMaxSize) + ")");
    if (options.microBatch && (*options.microBatch < 1 || *options.microBatch > kMaxMicroBatch))
        return makeError(shownOrigin + ": a micro-batch of " + std::to_string(*options.microBatch) +
                         " is out of range (1 to " + std::to_string(kMaxMicroBatch) + ")");
    auto parsed = parseJsonText(text, origin);
    if (!parsed) return parsed.error();
    const json& root = *parsed;
    if (!root.is_object())
        return makeError(shownOrigin + ": $: expected a Hugging Face config (a JSON object), got " +
                         typeName(root));
    Fields f(root, origin);

    const std::string type = f.string({"model_type"}, "");
    if (f.failed()) return f.error();
    if (!f.used().count("model_type") || root.at("model_type").is_null())
        return makeError(shownOrigin + ": $.model_type: missing (a required field; supported: " +
                         joined(kSupported) + ")");
    if (auto it = refusedTypes().find(type); it != refusedTypes().end())
        return makeError(shownOrigin + ": $.model_type: \"" + type + "\" is not supported: " + it->second);
    if (std::find(kSupported.begin(), kSupported.end(), type) == kSupported.end())
        return makeError(shownOrigin + ": $.model_type: unsupported model_type \"" + printable(type) +
                         "\" (supported: " + joined(kSupported) + ")");
    if (!f.present({"quantization_config"}).empty())
        return makeError(shownOrigin + ": $.quantization_config: quantized weights are not in the "
                                       "model format (it trains full-size parameters)");

    if (type == "bert" || type == "roberta" || type == "vit") {
        HfImport out;
        out.modelType = type;
        Network& net = out.model.network;
        std::vector<std::string> notes;
        std::string summary;
        if (type == "vit") buildVit(f, options, net, notes, summary);
        else buildBertLike(f, type, options, net, notes, summary);
        if (f.failed()) return f.error();
        std::string description = "Imported from the Hugging Face config " + printable(origin, 200) +
                                  " (model_type " + type + "): " + summary +
                                  ". Trained with mixed-bf16 and AdamW.";
        for (const auto& n : notes) description += " " + n;
        out.model.description = description;
        return finishImport(std::move(out), f, root, origin, options);
    }

    Decoder d;
    if (type == "gpt2") readGpt2(f, d);
    else if (type == "gpt_neox") readGptNeox(f, d);
    else readLlamaLike(f, d, type);
    if (f.failed()) return f.error();

    const std::int64_t tokens = options.seqLen.value_or(d.maxPositions);
    if (tokens > d.maxPositions)
        return makeError(shownOrigin + ": $." + d.maxPositionsKey + ": a sequence of " +
                         std::to_string(tokens) + " tokens is longer than the " +
                         std::to_string(d.maxPositions) + " positions the model takes");

    // Attention kernel: flash (no tokens x tokens scores kept) unless something only the eager
    // path models exactly is in play: dropout on the attention probabilities, which the flash
    // op does not model, or a sliding window shorter than the sequence, which the eager path
    // applies as a mask over the full score matrix (same memory and time as without it).
    AttentionImpl attention = AttentionImpl::Flash;
    if (d.blockDropout > 0.0) {
        attention = AttentionImpl::Eager;
        d.notes.push_back("Eager attention: the attention probabilities have dropout, which the "
                          "flash attention op does not model.");
    }
    if (d.slidingWindow > 0 && d.slidingWindow < tokens) {
        attention = AttentionImpl::Eager;
        d.notes.push_back("Eager attention: the sliding window of " + std::to_string(d.slidingWindow) +
                          " tokens is shorter than the sequence of " + std::to_string(tokens) +
                          " and is a mask over the full score matrix there; a sequence of at "
                          "most " + std::to_string(d.slidingWindow) + " tokens imports with flash attention.");
    }

    HfImport out;
    out.modelType = type;
    ModelFile& m = out.model;
    Network& net = m.network;
    const std::string nameOrPath = f.string({"_name_or_path"}, "");
    if (f.failed()) return f.error();
    std::string name = !nameOrPath.empty() ? nameOrPath : baseName(origin);
    if (name.empty()) name = type;
    net.name = printable(name, 50);
    net.input.tokens = tokens;
    net.input.vocab = d.vocab;
    net.tieEmbeddings = d.tied;

    Layer embedding;
    embedding.kind = LayerKind::Embedding;
    embedding.dim = d.hidden;
    embedding.positions = d.learnedPositions ? d.maxPositions : 0;
    embedding.dropout = d.embeddingDropout;
    net.layers.push_back(embedding);

    Layer block;
    block.kind = LayerKind::TransformerBlock;
    block.repeat = d.layers;
    block.heads = d.heads;
    block.kvHeads = d.kvHeads == d.heads ? 0 : d.kvHeads;
    block.mlpHidden = d.inner;
    block.activation = d.activation;
    block.gated = d.gated;
    block.norm = d.norm;
    block.dropout = d.blockDropout;
    block.attention = attention;
    block.causal = true;
    block.bias = d.bias;
    block.qkvBias = d.qkvBias;
    block.parallelResidual = d.parallelResidual;
    block.rotary = d.rotary;
    block.rotaryFraction = d.rotaryFraction;
    block.rotaryBase = d.rotaryBase;
    net.layers.push_back(block);

    Layer finalNorm;
    finalNorm.kind = d.norm == NormKind::LayerNorm ? LayerKind::LayerNorm : LayerKind::RmsNorm;
    net.layers.push_back(finalNorm);

    Layer head;
    head.kind = LayerKind::Linear;
    head.out = d.vocab;
    head.bias = false;
    net.layers.push_back(head);

    Layer loss;
    loss.kind = LayerKind::CrossEntropy;
    net.layers.push_back(loss);


    std::string description = "Imported from the Hugging Face config " + printable(origin, 200) +
                              " (model_type " + type + "): " + std::to_string(d.layers) +
                              " blocks of width " + std::to_string(d.hidden) + ", " +
                              std::to_string(d.heads) + " heads";
    if (d.kvHeads != d.heads) description += " (" + std::to_string(d.kvHeads) + " key/value heads)";
    if (d.qkvBias) description += ", biases on q, k and v only";
    if (d.parallelResidual) description += ", attention and MLP in parallel";
    description += ", MLP " + std::to_string(d.inner) + (d.gated ? " gated" : "") + ", vocabulary " +
                   std::to_string(d.vocab) + ", " + std::to_string(tokens) + " tokens (" +
                   (d.learnedPositions ? "learned positions" : "rotary positions") + "), " +
                   (d.tied ? "tied" : "untied") + " embeddings. Trained with mixed-bf16 and AdamW.";
    for (const auto& n : d.notes) description += " " + n;
    m.description = description;
    return finishImport(std::move(out), f, root, origin, options);
}

Result<HfImport> importHfConfigFile(const std::string& path, const HfImportOptions& options) {
    std::string file = path;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) file = (std::filesystem::path(path) / "config.json").string();
    auto text = readInputFile(file, "Hugging Face config");
    if (!text) return text.error();
    return importHfConfig(*text, file, options);
}

}  // namespace remat
