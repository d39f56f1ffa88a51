#include "model_file.h"

#include <algorithm>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "builtin_resources.h"
#include "json_input.h"
#include "lower.h"
#include "plan.h"
#include "text.h"
#include "training_rules.h"

namespace remat {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxSize = std::int64_t{1} << 31;
// Names (model, layers) and the description are shown in tables, titles and the layer stack;
// the device field may be a profile path.
constexpr std::size_t kMaxNameBytes = 256;
constexpr std::size_t kMaxDescriptionBytes = 16384;
constexpr std::size_t kMaxPathBytes = 4096;

// Fields that version 2 of the format added (docs/model-format.md#versioning): a version 1
// file holding one is refused as holding an unknown field, as a version 1 reader does.
const std::set<std::string> kVersion2Fields = {"qkv_bias", "parallel_residual"};
// Fields that version 3 added: rotary position embeddings, post-LN blocks and token types
// (BERT, RoBERTa), the patch embedding's fields (ViT), convolutions' dilation and groups.
const std::set<std::string> kVersion3Fields = {"rotary",      "rotary_fraction", "rotary_base",
                                               "norm_position", "token_types",   "patch",
                                               "class_token", "dilation",        "groups"};
// Layer kinds that version 3 added: unknown kinds to older readers.
bool isVersion3Kind(LayerKind k) {
    return k == LayerKind::PatchEmbedding || k == LayerKind::SelectToken;
}

std::optional<NormPosition> parseNormPosition(std::string_view s) {
    if (s == "pre") return NormPosition::Pre;
    if (s == "post") return NormPosition::Post;
    return std::nullopt;
}

// Fields each layer kind accepts besides "kind", "name", "checkpoint".
const std::map<LayerKind, std::set<std::string>>& kindFields() {
    static const std::map<LayerKind, std::set<std::string>> fields = {
        {LayerKind::Linear, {"out", "bias"}},
        {LayerKind::Relu, {"inplace"}},
        {LayerKind::Gelu, {"inplace"}},
        {LayerKind::Silu, {"inplace"}},
        {LayerKind::Tanh, {"inplace"}},
        {LayerKind::Sigmoid, {"inplace"}},
        {LayerKind::Softmax, {}},
        {LayerKind::LayerNorm, {}},
        {LayerKind::RmsNorm, {}},
        {LayerKind::Dropout, {"p", "inplace"}},
        {LayerKind::Embedding, {"dim", "positions", "dropout", "token_types"}},
        {LayerKind::Conv2d,
         {"out_channels", "kernel", "stride", "padding", "dilation", "groups", "bias"}},
        {LayerKind::BatchNorm2d, {}},
        {LayerKind::MaxPool2d, {"kernel", "stride", "padding"}},
        {LayerKind::GlobalAvgPool, {}},
        {LayerKind::Flatten, {}},
        {LayerKind::Attention,
         {"heads", "kv_heads", "dropout", "attention", "causal", "bias", "qkv_bias", "rotary",
          "rotary_fraction", "rotary_base"}},
        {LayerKind::Mlp, {"mlp_hidden", "activation", "gated", "dropout", "bias"}},
        {LayerKind::TransformerBlock,
         {"repeat", "heads", "kv_heads", "mlp_hidden", "activation", "gated", "norm", "dropout",
          "attention", "causal", "bias", "qkv_bias", "parallel_residual", "norm_position",
          "rotary", "rotary_fraction", "rotary_base"}},
        {LayerKind::ResidualBlock, {"repeat", "variant", "channels", "stride"}},
        {LayerKind::CrossEntropy, {}},
        {LayerKind::Mse, {}},
        {LayerKind::PatchEmbedding, {"dim", "patch", "class_token", "dropout"}},
        {LayerKind::SelectToken, {}},
    };
    return fields;
}

// Reads fields out of a JSON object, remembering the first error with its JSON path.
class Reader {
public:
    explicit Reader(const std::string& origin) : m_origin(printable(origin, 200)) {}
    bool failed() const { return m_error.has_value(); }
    Error error() const { return *m_error; }
    void fail(const std::string& path, const std::string& what) {
        if (!m_error) m_error = makeError(m_origin + ": " + path + ": " + what);
    }

    std::int64_t size(const json& o, const std::string& key, const std::string& path,
                      std::int64_t def, std::int64_t min = 1) {
        if (!o.contains(key)) return def;
        return sizeAt(o.at(key), path + "." + key, def, min);
    }
    // A size that is an array element (`$.input.shape[1]`, `$.plan.regions[0][1]`): `p` is the
    // element's full path.
    std::int64_t sizeAt(const json& v, const std::string& p, std::int64_t def,
                        std::int64_t min = 1) {
        if (!v.is_number_integer()) {
            // JSON readers hold integers past 2^64 (and 1e30) as floating point: a whole
            // number, just far too large, which is what the message must say.
            const bool wholeButHuge = v.is_number_float() &&
                                      std::floor(v.get<double>()) == v.get<double>() &&
                                      std::fabs(v.get<double>()) > double(kMaxSize);
            fail(p, wholeButHuge ? "value " + printableJson(v) + " is too large (at most " +
                                       std::to_string(kMaxSize) + ")"
                    : v.is_number() ? "expected a whole number, got " + printableJson(v)
                                    : "expected a whole number, got " + typeName(v));
            return def;
        }
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(kMaxSize)) {
            fail(p, "value " + printableJson(v) + " is too large (at most " + std::to_string(kMaxSize) +
                        ")");
            return def;
        }
        auto x = v.get<std::int64_t>();
        if (x < min || x > kMaxSize) {
            fail(p, "expected a whole number from " + std::to_string(min) + " to " +
                        std::to_string(kMaxSize) + ", got " + std::to_string(x));
            return def;
        }
        return x;
    }
    double fraction(const json& o, const std::string& key, const std::string& path) {
        if (!o.contains(key)) return 0.0;
        const json& v = o.at(key);
        if (!v.is_number() || !(v.get<double>() >= 0.0 && v.get<double>() < 1.0)) {
            fail(path + "." + key, "expected a probability in [0, 1), got " + printableJson(v));
            return 0.0;
        }
        return v.get<double>();
    }
    // A number in (lo, hi]; `what` names the range in the message.
    double number(const json& o, const std::string& key, const std::string& path, double def,
                  double lo, double hi, const std::string& what) {
        if (!o.contains(key)) return def;
        const json& v = o.at(key);
        if (!v.is_number() || !(v.get<double>() > lo && v.get<double>() <= hi)) {
            fail(path + "." + key, "expected " + what + ", got " + printableJson(v));
            return def;
        }
        return v.get<double>();
    }
    bool boolean(const json& o, const std::string& key, const std::string& path, bool def) {
        if (!o.contains(key)) return def;
        if (!o.at(key).is_boolean()) {
            fail(path + "." + key, "expected true or false, got " + printableJson(o.at(key)));
            return def;
        }
        return o.at(key).get<bool>();
    }
    std::string string(const json& o, const std::string& key, const std::string& path,
                       const std::string& def, std::size_t maxBytes = kMaxNameBytes) {
        if (!o.contains(key)) return def;
        if (!o.at(key).is_string()) {
            fail(path + "." + key, "expected a string, got " + typeName(o.at(key)));
            return def;
        }
        const auto& s = o.at(key).get_ref<const std::string&>();
        if (s.size() > maxBytes) {
            fail(path + "." + key, "a string of " + std::to_string(s.size()) +
                                       " bytes; the longest accepted here is " +
                                       std::to_string(maxBytes));
            return def;
        }
        return s;
    }
    template <typename T, typename Parse>
    T choice(const json& o, const std::string& key, const std::string& path, T def,
             Parse parse, const std::string& allowed) {
        if (!o.contains(key)) return def;
        std::string s = string(o, key, path, "");
        if (failed()) return def;
        auto v = parse(s);
        if (!v) {
            fail(path + "." + key, "expected one of " + allowed + ", got \"" + printable(s) + "\"");
            return def;
        }
        return *v;
    }
    void onlyKeys(const json& o, const std::set<std::string>& allowed, const std::string& path) {
        for (const auto& [k, v] : o.items())
            if (!allowed.count(k)) {
                std::string list;
                for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
                fail(path + "." + printable(k), "unknown field (allowed here: " + list + ")");
                return;
            }
    }
    static std::string typeName(const json& v) {
        if (v.is_null()) return "null";
        if (v.is_boolean()) return "a boolean";
        if (v.is_number()) return "a number";
        if (v.is_string()) return "a string";
        if (v.is_array()) return "an array";
        return "an object";
    }

private:
    std::string m_origin;
    std::optional<Error> m_error;
};

std::optional<NormKind> parseNorm(std::string_view s) {
    if (s == "layernorm") return NormKind::LayerNorm;
    if (s == "rmsnorm") return NormKind::RmsNorm;
    return std::nullopt;
}
std::optional<AttentionImpl> parseAttention(std::string_view s) {
    if (s == "eager") return AttentionImpl::Eager;
    if (s == "flash") return AttentionImpl::Flash;
    return std::nullopt;
}
std::optional<ResidualVariant> parseVariant(std::string_view s) {
    if (s == "basic") return ResidualVariant::Basic;
    if (s == "bottleneck") return ResidualVariant::Bottleneck;
    return std::nullopt;
}

Layer readLayer(Reader& r, const json& o, const std::string& path, int version) {
    Layer l;
    if (!o.is_object()) {
        r.fail(path, "expected a layer object, got " + Reader::typeName(o));
        return l;
    }
    if (!o.contains("kind")) {
        r.fail(path, "missing \"kind\"");
        return l;
    }
    std::string kindName = r.string(o, "kind", path, "");
    if (r.failed()) return l;
    auto kind = parseLayerKind(kindName);
    if (!kind) {
        std::string known;
        for (int k = 0; k < kLayerKindCount; ++k)
            known += (k ? ", " : "") + std::string(layerKindName(LayerKind(k)));
        r.fail(path + ".kind",
               "unknown layer kind \"" + printable(kindName) + "\" (known: " + known + ")");
        return l;
    }
    if (version < 3 && isVersion3Kind(*kind)) {
        r.fail(path + ".kind", "layer kind \"" + kindName + "\" is unknown in remat-model/" +
                                   std::to_string(version) +
                                   " (it needs \"format\": \"remat-model/3\")");
        return l;
    }
    l.kind = *kind;
    std::set<std::string> allowed = kindFields().at(l.kind);
    allowed.insert({"kind", "name", "checkpoint"});
    if (version < 2)
        for (const auto& k : kVersion2Fields) allowed.erase(k);
    if (version < 3)
        for (const auto& k : kVersion3Fields) allowed.erase(k);
    r.onlyKeys(o, allowed, path);
    l.name = r.string(o, "name", path, "");
    l.checkpoint = r.boolean(o, "checkpoint", path, false);
    l.inplace = r.boolean(o, "inplace", path, false);
    l.repeat = r.size(o, "repeat", path, 1);
    l.out = r.size(o, "out", path, 0);
    l.bias = r.boolean(o, "bias", path, true);
    l.dim = r.size(o, "dim", path, 0);
    l.positions = r.size(o, "positions", path, 0, 0);
    l.dropout = r.fraction(o, "dropout", path);
    l.heads = r.size(o, "heads", path, 0);
    l.kvHeads = r.size(o, "kv_heads", path, 0);
    l.mlpHidden = r.size(o, "mlp_hidden", path, 0);
    l.activation = r.choice(o, "activation", path, Activation::Gelu, parseActivation,
                            "relu, gelu, silu");
    l.gated = r.boolean(o, "gated", path, false);
    l.norm = r.choice(o, "norm", path, NormKind::LayerNorm, parseNorm, "layernorm, rmsnorm");
    l.attention =
        r.choice(o, "attention", path, AttentionImpl::Eager, parseAttention, "eager, flash");
    l.causal = r.boolean(o, "causal", path, true);
    if (o.contains("qkv_bias")) l.qkvBias = r.boolean(o, "qkv_bias", path, l.bias);
    l.parallelResidual = r.boolean(o, "parallel_residual", path, false);
    l.normPosition = r.choice(o, "norm_position", path, NormPosition::Pre, parseNormPosition,
                              "pre, post");
    l.tokenTypes = r.size(o, "token_types", path, 0, 0);
    l.classToken = r.boolean(o, "class_token", path, true);
    l.rotary = r.boolean(o, "rotary", path, false);
    l.rotaryFraction = r.number(o, "rotary_fraction", path, 1.0, 0.0, 1.0, "a fraction in (0, 1]");
    l.rotaryBase = r.number(o, "rotary_base", path, 10000.0, 1.0, 1e12,
                            "a base above 1 and at most 1e12");
    if (!r.failed() && !l.rotary && (o.contains("rotary_fraction") || o.contains("rotary_base")))
        r.fail(path, "\"rotary_fraction\" and \"rotary_base\" need \"rotary\": true");
    l.p = r.fraction(o, "p", path);
    l.outChannels = r.size(o, "out_channels", path, 0);
    l.kernel = r.size(o, l.kind == LayerKind::PatchEmbedding ? "patch" : "kernel", path, 0);
    l.stride = r.size(o, "stride", path, 1);
    l.padding = r.size(o, "padding", path, 0, 0);
    l.dilation = r.size(o, "dilation", path, 1);
    l.groups = r.size(o, "groups", path, 1);
    l.variant = r.choice(o, "variant", path, ResidualVariant::Basic, parseVariant,
                         "basic, bottleneck");
    l.channels = r.size(o, "channels", path, 0);
    // Required fields per kind.
    auto require = [&](const char* key) {
        if (!r.failed() && !o.contains(key)) r.fail(path, std::string("missing \"") + key + "\"");
    };
    switch (l.kind) {
        case LayerKind::Linear: require("out"); break;
        case LayerKind::Dropout: require("p"); break;
        case LayerKind::Embedding: require("dim"); break;
        case LayerKind::Conv2d: require("out_channels"); require("kernel"); break;
        case LayerKind::MaxPool2d: require("kernel"); break;
        case LayerKind::Attention: require("heads"); break;
        case LayerKind::Mlp: require("mlp_hidden"); break;
        case LayerKind::TransformerBlock: require("heads"); require("mlp_hidden"); break;
        case LayerKind::ResidualBlock: require("channels"); break;
        case LayerKind::PatchEmbedding: require("dim"); require("patch"); break;
        default: break;
    }
    if (l.kind == LayerKind::MaxPool2d && !o.contains("stride")) l.stride = l.kernel;
    return l;
}

json writeLayer(const Layer& l) {
    json o;
    o["kind"] = layerKindName(l.kind);
    if (!l.name.empty()) o["name"] = l.name;
    const auto& f = kindFields().at(l.kind);
    auto has = [&](const char* k) { return f.count(k) > 0; };
    if (has("repeat") && l.repeat != 1) o["repeat"] = l.repeat;
    if (has("out")) o["out"] = l.out;
    if (has("bias")) o["bias"] = l.bias;
    if (has("inplace") && l.inplace) o["inplace"] = true;
    if (has("p")) o["p"] = l.p;
    if (has("dim")) o["dim"] = l.dim;
    if (has("positions")) o["positions"] = l.positions;
    if (has("heads")) o["heads"] = l.heads;
    if (has("kv_heads") && l.kvHeads != 0) o["kv_heads"] = l.kvHeads;
    if (has("mlp_hidden")) o["mlp_hidden"] = l.mlpHidden;
    if (has("activation")) o["activation"] = activationName(l.activation);
    if (has("gated")) o["gated"] = l.gated;
    if (has("norm")) o["norm"] = l.norm == NormKind::LayerNorm ? "layernorm" : "rmsnorm";
    if (has("dropout")) o["dropout"] = l.dropout;
    if (has("attention")) o["attention"] = l.attention == AttentionImpl::Eager ? "eager" : "flash";
    if (has("causal")) o["causal"] = l.causal;
    if (has("qkv_bias") && l.qkvBias) o["qkv_bias"] = *l.qkvBias;
    if (has("parallel_residual") && l.parallelResidual) o["parallel_residual"] = true;
    if (has("norm_position") && l.normPosition == NormPosition::Post) o["norm_position"] = "post";
    if (has("token_types") && l.tokenTypes > 0) o["token_types"] = l.tokenTypes;
    if (has("patch")) o["patch"] = l.kernel;
    if (has("class_token")) o["class_token"] = l.classToken;
    if (has("rotary") && l.rotary) {
        o["rotary"] = true;
        if (l.rotaryFraction != 1.0) o["rotary_fraction"] = l.rotaryFraction;
        if (l.rotaryBase != 10000.0) o["rotary_base"] = l.rotaryBase;
    }
    if (has("out_channels")) o["out_channels"] = l.outChannels;
    if (has("kernel")) o["kernel"] = l.kernel;
    if (has("stride")) o["stride"] = l.stride;
    if (has("padding")) o["padding"] = l.padding;
    if (has("dilation") && l.dilation != 1) o["dilation"] = l.dilation;
    if (has("groups") && l.groups != 1) o["groups"] = l.groups;
    if (has("variant")) o["variant"] = l.variant == ResidualVariant::Basic ? "basic" : "bottleneck";
    if (has("channels")) o["channels"] = l.channels;
    if (l.checkpoint) o["checkpoint"] = true;
    return o;
}

// A manual plan is checked against the lowered network here, so that a region naming no
// module, covering no ops, or partially overlapping another is rejected when the file is
// loaded, with the JSON path of the culprit, rather than later when a command builds the plan.
Status checkManualPlan(const ModelFile& m, const Graph& graph, const std::string& origin) {
    const Graph* g = &graph;
    std::vector<Region> regions;
    std::vector<std::string> paths;  // JSON path of each region, for messages
    auto add = [&](const Result<Region>& r, const std::string& path) -> Status {
        if (!r) return makeError(origin + ": " + path + ": " + r.error().message);
        regions.push_back(*r);
        paths.push_back(path);
        return Ok{};
    };
    if (m.planForm == PlanForm::Regions) {
        for (std::size_t i = 0; i < m.regions.size(); ++i) {
            const RegionSpec& spec = m.regions[i];
            const std::string path = "$.plan.regions[" + std::to_string(i) + "]";
            Status st = Ok{};
            if (spec.isPath) {
                const ModuleId id = g->findModule(spec.path);
                if (!id.valid())
                    return makeError(origin + ": " + path + ": no module '" + printable(spec.path) +
                                     "' (layers are \"0\" to \"" +
                                     std::to_string(g->layerModules.size() - 1) +
                                     "\", sub-modules are written like "
                                     "\"1/attention/attention_core\")");
                st = add(regionForModule(*g, id), path);
            } else {
                st = add(regionForLayers(*g, spec.first, spec.last), path);
            }
            if (!st) return st;
        }
    } else {
        std::int64_t instance = 0;
        for (std::size_t i = 0; i < m.network.layers.size(); ++i)
            for (std::int64_t r = 0; r < m.network.layers[i].repeat; ++r, ++instance)
                if (m.network.layers[i].checkpoint) {
                    auto st = add(regionForLayers(*g, instance, instance),
                                  "$.layers[" + std::to_string(i) + "].checkpoint");
                    if (!st) return st;
                }
    }
    if (auto pair = findPartialOverlap(regions))
        return makeError(origin + ": " + paths[pair->second] + ": overlaps " + paths[pair->first] +
                         " partially; regions must nest or be disjoint");
    return Ok{};
}

}  // namespace

// The `parallel` object (docs/model-format.md): degrees, ZeRO stage (a number or FSDP's name),
// schedule and offload. How the layout fits the network is checked once the network is read.
static ParallelConfig readParallel(Reader& r, const json& o) {
    const std::string at = "$.parallel";
    ParallelConfig p;
    if (!o.is_object()) {
        r.fail(at, "expected an object");
        return p;
    }
    r.onlyKeys(o, {"dp", "zero", "tp", "sequence_parallel", "pp", "schedule", "cp", "offload"},
               at);
    p.dp = r.size(o, "dp", at, 1);
    p.tp = r.size(o, "tp", at, 1);
    p.pp = r.size(o, "pp", at, 1);
    p.cp = r.size(o, "cp", at, 1);
    p.sequenceParallel = r.boolean(o, "sequence_parallel", at, false);
    if (o.contains("zero")) {
        const json& z = o["zero"];
        std::string s = z.is_number_integer() ? std::to_string(z.get<std::int64_t>())
                        : z.is_string()       ? z.get<std::string>()
                                              : std::string("?");
        auto stage = parseZeroStage(s, &p.hybridShard);
        if (!stage)
            r.fail(at + ".zero", "expected 0, 1, 2, 3, no_shard, shard_grad_op, full_shard or "
                                 "hybrid, got " + printableJson(z));
        else
            p.zeroStage = *stage;
    }
    if (o.contains("schedule")) {
        const std::string s = r.string(o, "schedule", at, "1f1b");
        auto sch = parseSchedule(s);
        if (!sch)
            r.fail(at + ".schedule", "expected gpipe, 1f1b or interleaved:V (V >= 2), got \"" +
                                         printable(s) + "\"");
        else
            std::tie(p.schedule, p.virtualStages) = *sch;
    }
    if (o.contains("offload")) {
        const json& off = o["offload"];
        if (!off.is_array()) {
            r.fail(at + ".offload", "expected a list of optimizer, parameters, activations");
            return p;
        }
        for (std::size_t i = 0; i < off.size() && i < 8; ++i) {
            const std::string what = off[i].is_string() ? off[i].get<std::string>() : "?";
            if (what == "optimizer") p.offloadOptimizer = true;
            else if (what == "parameters") p.offloadParameters = true;
            else if (what == "activations") p.offloadActivations = true;
            else
                r.fail(at + ".offload[" + std::to_string(i) + "]",
                       "expected optimizer, parameters or activations, got " +
                           printableJson(off[i]));
        }
    }
    return p;
}

static json parallelToJson(const ParallelConfig& p) {
    json j = json::object();
    if (p.dp != 1) j["dp"] = p.dp;
    if (p.zeroStage != 0)
        j["zero"] = p.hybridShard ? json("hybrid") : json(p.zeroStage);
    if (p.tp != 1) j["tp"] = p.tp;
    if (p.sequenceParallel) j["sequence_parallel"] = true;
    if (p.pp != 1) {
        j["pp"] = p.pp;
        j["schedule"] = scheduleName(p.schedule, p.virtualStages);
    }
    if (p.cp != 1) j["cp"] = p.cp;
    json off = json::array();
    if (p.offloadOptimizer) off.push_back("optimizer");
    if (p.offloadParameters) off.push_back("parameters");
    if (p.offloadActivations) off.push_back("activations");
    if (!off.empty()) j["offload"] = off;
    return j;
}

Result<ModelFile> parseModel(const std::string& text, const std::string& rawOrigin) {
    auto parsed = parseJsonText(text, rawOrigin);
    if (!parsed) return parsed.error();
    const json& j = *parsed;
    const std::string origin = printable(rawOrigin, 200);
    Reader r(rawOrigin);
    ModelFile m;
    if (!j.is_object()) return makeError(origin + ": $: expected an object");
    r.onlyKeys(j, {"format", "name", "description", "input", "layers", "tie_embeddings", "plan",
                   "training", "device", "parallel"},
               "$");
    int version = 0;
    if (!j.contains("format"))
        r.fail("$.format",
               "missing; expected \"remat-model/1\", \"remat-model/2\" or \"remat-model/3\"");
    else if (j["format"] == "remat-model/1")
        version = 1;
    else if (j["format"] == "remat-model/2")
        version = 2;
    else if (j["format"] == "remat-model/3")
        version = 3;
    else
        r.fail("$.format", "expected \"remat-model/1\", \"remat-model/2\" or \"remat-model/3\", got " +
                               printableJson(j["format"]));
    if (r.failed()) return r.error();
    m.network.name = r.string(j, "name", "$", "");
    m.description = r.string(j, "description", "$", "", kMaxDescriptionBytes);
    m.device = r.string(j, "device", "$", "", kMaxPathBytes);
    m.network.tieEmbeddings = r.boolean(j, "tie_embeddings", "$", false);

    if (!j.contains("input") || !j["input"].is_object()) {
        r.fail("$.input", "expected an object with \"shape\", or \"tokens\" and \"vocab\"");
        return r.error();
    }
    const json& in = j["input"];
    r.onlyKeys(in, {"shape", "tokens", "vocab"}, "$.input");
    if (in.contains("shape")) {
        if (in.contains("tokens") || in.contains("vocab"))
            r.fail("$.input", "give either \"shape\" or \"tokens\" and \"vocab\", not both");
        const json& s = in["shape"];
        if (!s.is_array() || s.empty() || s.size() > 3) {
            r.fail("$.input.shape", "expected an array of 1 to 3 positive sizes");
        } else {
            for (std::size_t i = 0; i < s.size(); ++i)
                m.network.input.shape.push_back(
                    r.sizeAt(s[i], "$.input.shape[" + std::to_string(i) + "]", 0));
        }
    } else {
        if (!in.contains("tokens") || !in.contains("vocab"))
            r.fail("$.input", "expected \"shape\", or both \"tokens\" and \"vocab\"");
        m.network.input.tokens = r.size(in, "tokens", "$.input", 0);
        m.network.input.vocab = r.size(in, "vocab", "$.input", 0, 2);
    }
    if (r.failed()) return r.error();

    if (!j.contains("layers") || !j["layers"].is_array() || j["layers"].empty()) {
        r.fail("$.layers", "expected a non-empty array of layers");
        return r.error();
    }
    bool anyCheckpoint = false;
    for (std::size_t i = 0; i < j["layers"].size(); ++i) {
        m.network.layers.push_back(
            readLayer(r, j["layers"][i], "$.layers[" + std::to_string(i) + "]", version));
        if (r.failed()) return r.error();
        anyCheckpoint |= m.network.layers.back().checkpoint;
    }
    if (anyCheckpoint) m.planForm = PlanForm::PerLayer;

    if (j.contains("plan")) {
        const json& p = j["plan"];
        if (!p.is_object()) {
            r.fail("$.plan", "expected an object with \"strategy\" or \"regions\"");
            return r.error();
        }
        r.onlyKeys(p, {"strategy", "regions"}, "$.plan");
        const int forms = int(p.contains("strategy")) + int(p.contains("regions")) +
                          int(anyCheckpoint);
        if (forms > 1)
            r.fail("$.plan", "a file holds at most one plan form: \"strategy\", \"regions\" or "
                             "per-layer \"checkpoint\" flags");
        if (r.failed()) return r.error();
        if (p.contains("strategy")) {
            m.planStrategy = r.string(p, "strategy", "$.plan", "", kMaxPathBytes);
            if (r.failed()) return r.error();
            auto s = parseStrategy(m.planStrategy);
            if (!s) return makeError(origin + ": $.plan.strategy: " + s.error().message);
            if (s->kind == StrategyKind::Manual)
                return makeError(origin + ": $.plan.strategy: \"manual\" needs \"regions\" or "
                                          "per-layer flags instead");
            m.planForm = PlanForm::Strategy;
        } else if (p.contains("regions")) {
            const json& regs = p["regions"];
            if (!regs.is_array()) {
                r.fail("$.plan.regions", "expected an array");
                return r.error();
            }
            for (std::size_t i = 0; i < regs.size(); ++i) {
                const std::string rp = "$.plan.regions[" + std::to_string(i) + "]";
                const json& e = regs[i];
                RegionSpec spec;
                if (e.is_string()) {
                    spec.isPath = true;
                    spec.path = e.get<std::string>();
                    if (spec.path.size() > kMaxPathBytes)
                        r.fail(rp, "a module path of " + std::to_string(spec.path.size()) +
                                       " bytes; the longest accepted is " +
                                       std::to_string(kMaxPathBytes));
                    else if (spec.path.empty())
                        r.fail(rp, "expected a module path like \"3/mlp\", got \"\"");
                } else if (e.is_array() && e.size() == 2) {
                    spec.first = r.sizeAt(e[0], rp + "[0]", 0, 0);
                    spec.last = r.sizeAt(e[1], rp + "[1]", 0, 0);
                    if (!r.failed() && spec.last < spec.first)
                        r.fail(rp, "expected [first, last] with first <= last");
                } else {
                    r.fail(rp, "expected [first, last] layer indices or a module path string");
                }
                if (r.failed()) return r.error();
                m.regions.push_back(spec);
            }
            m.planForm = PlanForm::Regions;
        }
    }

    if (j.contains("training")) {
        const json& t = j["training"];
        if (!t.is_object()) {
            r.fail("$.training", "expected an object");
            return r.error();
        }
        r.onlyKeys(t, {"micro_batch", "accumulation_steps", "precision", "optimizer",
                       "main_grads", "optimizer_impl", "loss_impl", "tf32", "recompute_impl",
                       "preserve_rng_state"},
                   "$.training");
        m.training.microBatch = r.size(t, "micro_batch", "$.training", 1);
        if (m.training.microBatch > (std::int64_t{1} << 24))
            r.fail("$.training.micro_batch", "expected a whole number from 1 to 16777216, got " +
                                                 std::to_string(m.training.microBatch));
        m.training.accumulationSteps = r.size(t, "accumulation_steps", "$.training", 1);
        if (m.training.accumulationSteps > 1000000)
            r.fail("$.training.accumulation_steps",
                   "expected a whole number from 1 to 1000000, got " +
                       std::to_string(m.training.accumulationSteps));
        m.training.precision = r.choice(t, "precision", "$.training", Precision::Fp32,
                                        parsePrecision, std::string(precisionNames()));
        m.training.optimizer = r.choice(t, "optimizer", "$.training", Optimizer::Sgd,
                                        parseOptimizer, "sgd, momentum, adam, adamw");
        m.training.mainGrads = r.choice(t, "main_grads", "$.training", MainGrads::Param,
                                        parseMainGrads, "param, fp32");
        m.training.optimizerImpl =
            r.choice(t, "optimizer_impl", "$.training", OptimizerImpl::Fused, parseOptimizerImpl,
                     "fused, foreach, for-loop");
        m.training.lossImpl = r.choice(t, "loss_impl", "$.training", LossImpl::Standard,
                                       parseLossImpl, "standard, chunked");
        m.training.tf32 = r.choice(t, "tf32", "$.training", Tf32Mode::Conv, parseTf32Mode,
                                   "none, conv, matmul, all");
        if (!r.failed())
            if (auto st = checkTrainingConfig(m.training); !st)
                r.fail("$.training.main_grads", st.error().message);
        m.training.recomputeImpl =
            r.choice(t, "recompute_impl", "$.training", RecomputeImpl::Pytorch,
                     parseRecomputeImpl, kRecomputeImplSpellings);
        m.training.preserveRngState = r.boolean(t, "preserve_rng_state", "$.training", true);
    }
    if (j.contains("parallel")) {
        if (version < 2)
            r.fail("$.parallel", "unknown field in remat-model/1 (parallel layouts need "
                                 "\"format\": \"remat-model/2\")");
        else
            m.training.parallel = readParallel(r, j["parallel"]);
    }
    if (r.failed()) return r.error();

    if (m.network.tieEmbeddings && !m.network.input.isTokens())
        return makeError(origin + ": $.tie_embeddings: needs a token model (\"input\" with "
                                  "\"tokens\" and \"vocab\"); there is no embedding to share");

    // Shapes and sizes: errors name the layer, placed under the file for context; the few
    // that concern the input alone go under $.input.
    auto shapes = inferShapes(m.network);
    if (!shapes) {
        const std::string msg = printable(shapes.error().message, 400);
        if (msg.rfind("input: ", 0) == 0)
            return makeError(origin + ": $.input: " + msg.substr(7));
        return makeError(origin + ": $.layers: " + msg);
    }
    if (m.planForm == PlanForm::Regions) {
        const std::int64_t n = expandedLayerCount(m.network);
        for (std::size_t i = 0; i < m.regions.size(); ++i)
            if (!m.regions[i].isPath && m.regions[i].last >= n)
                return makeError(origin + ": $.plan.regions[" + std::to_string(i) +
                                 "]: layer index " + std::to_string(m.regions[i].last) +
                                 " is past the last layer (" + std::to_string(n - 1) + ")");
    }
    // Lowering refuses what shape inference cannot see: internal tensors (attention scores)
    // and costs (a convolution's FLOPs) too large to compute with.
    auto g = lower(m.network, m.training);
    if (!g) return makeError(origin + ": $.layers: " + printable(g.error().message, 400));
    if (m.planForm == PlanForm::Regions || m.planForm == PlanForm::PerLayer) {
        auto st = checkManualPlan(m, *g, origin);
        if (!st) return st.error();
    }
    if (auto st = validateLayout(m.network, m.training.parallel); !st)
        return makeError(origin + ": $." + printable(st.error().message, 400));
    return m;
}

// The oldest version that holds the model: version 1 readers keep reading every file that
// uses nothing of version 2, and version 2 readers every file that uses nothing of version 3.
int oldestVersion(const ModelFile& m) {
    const auto& layers = m.network.layers;
    if (std::any_of(layers.begin(), layers.end(), [](const Layer& l) {
            return l.rotary || l.normPosition == NormPosition::Post || l.tokenTypes > 0 ||
                   isVersion3Kind(l.kind) || l.dilation != 1 || l.groups != 1;
        }))
        return 3;
    if (!m.training.parallel.single() ||
        std::any_of(layers.begin(), layers.end(),
                    [](const Layer& l) { return l.qkvBias.has_value() || l.parallelResidual; }))
        return 2;
    return 1;
}

std::string modelToJson(const ModelFile& m) {
    json j;
    j["format"] = "remat-model/" + std::to_string(oldestVersion(m));
    if (!m.network.name.empty()) j["name"] = m.network.name;
    if (!m.description.empty()) j["description"] = m.description;
    const InputSpec& in = m.network.input;
    if (in.isTokens())
        j["input"] = {{"tokens", in.tokens}, {"vocab", in.vocab}};
    else
        j["input"] = {{"shape", in.shape}};
    if (m.network.tieEmbeddings) j["tie_embeddings"] = true;
    json layers = json::array();
    for (const Layer& l : m.network.layers) {
        Layer copy = l;
        if (m.planForm != PlanForm::PerLayer) copy.checkpoint = false;
        layers.push_back(writeLayer(copy));
    }
    j["layers"] = layers;
    if (m.planForm == PlanForm::Strategy) {
        j["plan"] = {{"strategy", m.planStrategy}};
    } else if (m.planForm == PlanForm::Regions) {
        json regs = json::array();
        for (const auto& r : m.regions) {
            if (r.isPath) regs.push_back(r.path);
            else regs.push_back(json::array({r.first, r.last}));
        }
        j["plan"] = {{"regions", regs}};
    }
    j["training"] = {{"micro_batch", m.training.microBatch},
                     {"accumulation_steps", m.training.accumulationSteps},
                     {"precision", precisionName(m.training.precision)},
                     {"optimizer", optimizerName(m.training.optimizer)},
                     {"recompute_impl", recomputeImplName(m.training.recomputeImpl)}};
    // Settings at their defaults are left out, so files written before them stay as they were.
    const TrainingConfig defaults;
    if (m.training.mainGrads != defaults.mainGrads)
        j["training"]["main_grads"] = mainGradsName(m.training.mainGrads);
    if (m.training.optimizerImpl != defaults.optimizerImpl)
        j["training"]["optimizer_impl"] = optimizerImplName(m.training.optimizerImpl);
    if (m.training.lossImpl != defaults.lossImpl)
        j["training"]["loss_impl"] = lossImplName(m.training.lossImpl);
    if (m.training.tf32 != defaults.tf32) j["training"]["tf32"] = tf32ModeName(m.training.tf32);
    if (m.training.preserveRngState != defaults.preserveRngState)
        j["training"]["preserve_rng_state"] = m.training.preserveRngState;
    if (!m.training.parallel.single()) j["parallel"] = parallelToJson(m.training.parallel);
    if (!m.device.empty()) j["device"] = m.device;
    return j.dump(2) + "\n";
}

Status saveModel(const ModelFile& model, const std::string& path) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return makeError("cannot write '" + path + "'");
        out << modelToJson(model);
        if (!out.flush()) return makeError("cannot write '" + path + "' (disk full?)");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return makeError("cannot replace '" + path + "'");
    }
    return Ok{};
}

Result<ModelFile> loadModel(const std::string& pathOrPreset) {
    for (const auto& f : builtinModelFiles())
        if (f.id == pathOrPreset) return parseModel(std::string(f.text), std::string(f.id));
    auto text = readInputFile(pathOrPreset, "model");
    if (!text) {
        std::string known;
        for (const auto& n : builtinModelNames()) known += (known.empty() ? "" : ", ") + n;
        return makeError(text.error().message + " (and not a preset: " + known + ")");
    }
    return parseModel(*text, pathOrPreset);
}

std::string defaultStrategy(const ModelFile& m) {
    switch (m.planForm) {
        case PlanForm::None: return "none";
        case PlanForm::Strategy: return m.planStrategy;
        default: return "manual";
    }
}

std::vector<RegionSpec> manualRegions(const ModelFile& m) {
    if (m.planForm == PlanForm::Regions) return m.regions;
    std::vector<RegionSpec> out;
    if (m.planForm != PlanForm::PerLayer) return out;
    std::int64_t idx = 0;
    for (const Layer& l : m.network.layers)
        for (std::int64_t r = 0; r < l.repeat; ++r, ++idx)
            if (l.checkpoint) out.push_back(RegionSpec{false, idx, idx, ""});
    return out;
}

std::vector<std::string> builtinModelNames() {
    std::vector<std::string> out;
    for (const auto& f : builtinModelFiles()) out.emplace_back(f.id);
    return out;
}

std::string builtinModelDescription(const std::string& name) {
    for (const auto& f : builtinModelFiles()) {
        if (f.id != name) continue;
        const nlohmann::json j = nlohmann::json::parse(f.text, nullptr, false);
        if (j.is_object() && j.contains("description") && j["description"].is_string())
            return j["description"].get<std::string>();
    }
    return {};
}

}  // namespace remat
