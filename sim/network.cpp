#include "network.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

namespace remat {
namespace {

constexpr std::array<std::string_view, kLayerKindCount> kKindNames = {
    "linear",    "relu",       "gelu",        "silu",           "tanh",
    "sigmoid",   "softmax",    "layernorm",   "rmsnorm",        "dropout",
    "embedding", "conv2d",     "batchnorm2d", "maxpool2d",      "global_avg_pool",
    "flatten",   "attention",  "mlp",         "transformer_block", "residual_block",
    "cross_entropy", "mse", "patch_embedding", "select_token"};

constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;
// Elements per sample of any one layer output: keeps per-sample byte counts (at most 8 bytes an
// element) far from int64 overflow. It does not bound internal tensors (attention scores) or
// the product with the micro-batch; those are the byte arithmetic's own concern.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

Error layerError(const Network& net, std::size_t index, const std::string& what) {
    return makeError("layer " + layerLabel(net, index) + ": " + what);
}

// Saturates instead of overflowing: three sizes of up to 2^31 each multiply past int64, and
// the callers reject anything above kMaxElements anyway.
std::int64_t product(const Shape& s) {
    std::int64_t p = 1;
    for (auto d : s) {
        if (d > 0 && p > std::numeric_limits<std::int64_t>::max() / d)
            return std::numeric_limits<std::int64_t>::max();
        p *= d;
    }
    return p;
}

std::int64_t convOut(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                     std::int64_t padding, std::int64_t dilation = 1) {
    return convOutputSize(in, kernel, stride, padding, dilation);
}

}  // namespace

std::string_view layerKindName(LayerKind k) { return kKindNames[static_cast<std::size_t>(k)]; }

std::optional<LayerKind> parseLayerKind(std::string_view s) {
    for (std::size_t i = 0; i < kKindNames.size(); ++i)
        if (kKindNames[i] == s) return static_cast<LayerKind>(i);
    return std::nullopt;
}

bool isLoss(LayerKind k) { return k == LayerKind::CrossEntropy || k == LayerKind::Mse; }
bool isBlock(LayerKind k) {
    return k == LayerKind::TransformerBlock || k == LayerKind::ResidualBlock;
}
bool isActivation(LayerKind k) {
    return k == LayerKind::Relu || k == LayerKind::Gelu || k == LayerKind::Silu ||
           k == LayerKind::Tanh || k == LayerKind::Sigmoid;
}

namespace {
std::string shortNumber(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
}
}  // namespace

std::int64_t rotaryDims(std::int64_t headDim, double fraction) {
    const double dims = std::floor(double(headDim) * fraction + 1e-9);
    return dims > 0.0 ? std::int64_t(dims) : 0;
}

std::string_view activationName(Activation a) {
    switch (a) {
        case Activation::Relu: return "relu";
        case Activation::Gelu: return "gelu";
        case Activation::Silu: return "silu";
    }
    return "?";
}

std::optional<Activation> parseActivation(std::string_view s) {
    for (auto a : {Activation::Relu, Activation::Gelu, Activation::Silu})
        if (activationName(a) == s) return a;
    return std::nullopt;
}

std::int64_t expandedLayerCount(const Network& net) {
    // Saturating: an unchecked network (a repeat of 2^62) must not wrap around.
    std::int64_t n = 0;
    for (const auto& l : net.layers) n += std::clamp<std::int64_t>(l.repeat, 0, kMaxLayerInstances + 1);
    return std::min(n, kMaxLayerInstances + 1);
}

std::vector<std::size_t> expandedLayerSources(const Network& net) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < net.layers.size(); ++i)
        for (std::int64_t r = 0; r < net.layers[i].repeat; ++r) out.push_back(i);
    return out;
}

std::string shapeToString(const Shape& s) {
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
    os << ']';
    return os.str();
}

std::string layerLabel(const Network& net, std::size_t layerIndex) {
    if (layerIndex >= net.layers.size()) return std::to_string(layerIndex);
    const Layer& l = net.layers[layerIndex];
    std::string label = std::to_string(layerIndex) + " (" + std::string(layerKindName(l.kind));
    if (!l.name.empty()) label += " '" + l.name + "'";
    return label + ")";
}

Result<std::vector<Shape>> inferShapes(const Network& net) {
    std::vector<Shape> shapes;
    Shape cur;
    bool tokens = net.input.isTokens();
    if (tokens) {
        if (net.input.vocab <= 0 || net.input.vocab > kMaxDim)
            return makeError("input: vocab must be a positive size");
        if (net.input.tokens > kMaxDim) return makeError("input: tokens is too large");
        cur = {net.input.tokens};
    } else {
        if (net.input.shape.empty())
            return makeError("input: give either a shape or tokens and vocab");
        for (auto d : net.input.shape)
            if (d <= 0 || d > kMaxDim)
                return makeError("input: shape " + shapeToString(net.input.shape) +
                                 " must have positive sizes");
        cur = net.input.shape;
        if (product(cur) > kMaxElements)
            return makeError("input: shape " + shapeToString(cur) +
                             " is too large per sample (at most 2^40 elements)");
    }
    if (net.layers.empty()) return makeError("the network has no layers");
    if (std::int64_t(net.layers.size()) > kMaxLayerInstances ||
        expandedLayerCount(net) > kMaxLayerInstances)
        return makeError("the network has more than " + std::to_string(kMaxLayerInstances) +
                         " layer instances once repeats are expanded; that is the largest supported");
    shapes.reserve(std::size_t(expandedLayerCount(net)) + 1);
    shapes.push_back(cur);
    bool intInput = tokens;  // token ids are integers until an embedding turns them into vectors
    std::int64_t previous = -1;
    std::int64_t embeddingDim = 0;
    // With tie_embeddings the head is the linear right before the loss (as lower() finds it).
    const std::size_t n = net.layers.size();
    auto tiedHead = [&](std::size_t i) {
        return net.tieEmbeddings && tokens && i + 2 == n && net.layers[i].repeat == 1;
    };
    if (net.tieEmbeddings && tokens && n >= 2 && isLoss(net.layers[n - 1].kind) &&
        net.layers[n - 2].kind != LayerKind::Linear)
        return layerError(net, n - 2,
                          "tie_embeddings needs a linear head right before the loss");

    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& l = net.layers[i];
        auto fail = [&](const std::string& what) { return layerError(net, i, what); };
        auto mismatch = [&](const std::string& expected) {
            std::string prev = previous < 0 ? std::string("the input")
                                            : "layer " + layerLabel(net, std::size_t(previous));
            return fail("expects " + expected + " but " + prev + " gives " + shapeToString(cur));
        };
        if (l.repeat <= 0 || l.repeat > kMaxLayerInstances)
            return fail("repeat must be between 1 and " + std::to_string(kMaxLayerInstances));
        if (l.repeat != 1 && !isBlock(l.kind))
            return fail("only transformer_block and residual_block can repeat");
        if (intInput && l.kind != LayerKind::Embedding)
            return fail("token ids must first go through an embedding layer");
        if (isLoss(l.kind) && i + 1 != net.layers.size())
            return fail("a loss must be the last layer");
        if (!isLoss(l.kind) && i + 1 == net.layers.size() && !net.sendsOutput)
            return fail("the last layer must be a loss (cross_entropy or mse)");
        auto positive = [&](std::int64_t v, const char* field) -> std::optional<Error> {
            if (v <= 0 || v > kMaxDim)
                return fail(std::string(field) + " must be a positive size (got " +
                            std::to_string(v) + ")");
            return std::nullopt;
        };
        auto probability = [&](double v, const char* field) -> std::optional<Error> {
            if (!(v >= 0.0 && v < 1.0))
                return fail(std::string(field) + " must be in [0, 1)");
            return std::nullopt;
        };
        for (std::int64_t r = 0; r < l.repeat; ++r) {
            switch (l.kind) {
                case LayerKind::Linear:
                    if (auto e = positive(l.out, "out")) return *e;
                    // A tied head reuses the token embedding [vocab, dim] as its weight.
                    if (tiedHead(i) && (l.out != net.input.vocab || cur.back() != embeddingDim))
                        return fail("tie_embeddings needs this head to map the embedding width (" +
                                    std::to_string(embeddingDim) + ") to the vocabulary (" +
                                    std::to_string(net.input.vocab) + "), but it maps " +
                                    std::to_string(cur.back()) + " to " +
                                    std::to_string(l.out));
                    cur.back() = l.out;
                    break;
                case LayerKind::Relu:
                case LayerKind::Gelu:
                case LayerKind::Silu:
                case LayerKind::Tanh:
                case LayerKind::Sigmoid:
                case LayerKind::Softmax:
                case LayerKind::LayerNorm:
                case LayerKind::RmsNorm:
                case LayerKind::Flatten:
                    if (l.kind == LayerKind::Flatten) cur = {product(cur)};
                    break;
                case LayerKind::Dropout:
                    if (auto e = probability(l.p, "p")) return *e;
                    break;
                case LayerKind::Embedding:
                    if (!tokens || i != 0)
                        return fail("an embedding must be the first layer of a token model");
                    if (auto e = positive(l.dim, "dim")) return *e;
                    if (l.positions < 0 || l.positions > kMaxDim)
                        return fail("positions must be 0 or a positive size");
                    if (l.tokenTypes < 0 || l.tokenTypes > kMaxDim)
                        return fail("token_types must be 0 or a positive size");
                    if (l.positions > 0 && l.positions < net.input.tokens)
                        return fail("positions (" + std::to_string(l.positions) +
                                    ") is shorter than the sequence (" +
                                    std::to_string(net.input.tokens) + ")");
                    if (auto e = probability(l.dropout, "dropout")) return *e;
                    cur = {net.input.tokens, l.dim};
                    embeddingDim = l.dim;
                    intInput = false;
                    break;
                case LayerKind::Conv2d: {
                    if (cur.size() != 3) return mismatch("an image [channels, height, width]");
                    if (auto e = positive(l.outChannels, "out_channels")) return *e;
                    if (auto e = positive(l.kernel, "kernel")) return *e;
                    if (auto e = positive(l.stride, "stride")) return *e;
                    if (l.padding < 0 || l.padding > kMaxDim)
                        return fail("padding must be 0 or more");
                    if (auto e = positive(l.dilation, "dilation")) return *e;
                    if (auto e = positive(l.groups, "groups")) return *e;
                    if (cur[0] % l.groups != 0)
                        return fail("groups (" + std::to_string(l.groups) +
                                    ") must divide the input channels (" +
                                    std::to_string(cur[0]) + ")");
                    if (l.outChannels % l.groups != 0)
                        return fail("groups (" + std::to_string(l.groups) +
                                    ") must divide out_channels (" +
                                    std::to_string(l.outChannels) + ")");
                    if (l.kernel > kMaxDim / l.dilation)
                        return fail("dilation x kernel is too large");
                    std::int64_t h = convOut(cur[1], l.kernel, l.stride, l.padding, l.dilation);
                    std::int64_t w = convOut(cur[2], l.kernel, l.stride, l.padding, l.dilation);
                    if (h <= 0 || w <= 0)
                        return mismatch(l.dilation > 1
                                            ? "an image at least as large as the dilated kernel"
                                            : "an image at least as large as the kernel");
                    cur = {l.outChannels, h, w};
                    break;
                }
                case LayerKind::BatchNorm2d:
                    if (cur.size() != 3) return mismatch("an image [channels, height, width]");
                    break;
                case LayerKind::MaxPool2d: {
                    if (cur.size() != 3) return mismatch("an image [channels, height, width]");
                    if (auto e = positive(l.kernel, "kernel")) return *e;
                    if (auto e = positive(l.stride, "stride")) return *e;
                    if (l.padding < 0 || 2 * l.padding > l.kernel)
                        return fail("padding must be between 0 and half the kernel");
                    std::int64_t h = convOut(cur[1], l.kernel, l.stride, l.padding);
                    std::int64_t w = convOut(cur[2], l.kernel, l.stride, l.padding);
                    if (h <= 0 || w <= 0)
                        return mismatch("an image at least as large as the kernel");
                    cur = {cur[0], h, w};
                    break;
                }
                case LayerKind::GlobalAvgPool:
                    if (cur.size() != 3) return mismatch("an image [channels, height, width]");
                    cur = {cur[0], 1, 1};
                    break;
                case LayerKind::Attention:
                case LayerKind::Mlp:
                case LayerKind::TransformerBlock: {
                    if (l.kind != LayerKind::Mlp && cur.size() != 2)
                        return mismatch("a sequence [tokens, width]");
                    if (l.kind != LayerKind::Mlp) {
                        if (auto e = positive(l.heads, "heads")) return *e;
                        if (cur[1] % l.heads != 0)
                            return fail("width " + std::to_string(cur[1]) +
                                        " is not divisible by heads " + std::to_string(l.heads));
                        if (l.kvHeads < 0 || (l.kvHeads > 0 && l.heads % l.kvHeads != 0))
                            return fail("kv_heads must divide heads");
                        if (l.rotary) {
                            const std::int64_t dims = rotaryDims(cur[1] / l.heads, l.rotaryFraction);
                            if (!(l.rotaryFraction > 0.0 && l.rotaryFraction <= 1.0) || dims < 2 ||
                                dims % 2 != 0)
                                return fail("rotary_fraction " + shortNumber(l.rotaryFraction) +
                                            " of head size " + std::to_string(cur[1] / l.heads) +
                                            " rotates " + std::to_string(dims) +
                                            " dimensions; it must rotate an even number, at least 2");
                            if (!(l.rotaryBase > 1.0 && l.rotaryBase <= 1e12))
                                return fail("rotary_base must be above 1 and at most 1e12");
                        }
                    }
                    if (l.kind != LayerKind::Attention)
                        if (auto e = positive(l.mlpHidden, "mlp_hidden")) return *e;
                    if (auto e = probability(l.dropout, "dropout")) return *e;
                    if (l.kind == LayerKind::TransformerBlock &&
                        l.normPosition == NormPosition::Post && l.parallelResidual)
                        return fail("norm_position \"post\" normalises after each residual add; "
                                    "parallel_residual has one add for both branches");
                    break;
                }
                case LayerKind::PatchEmbedding: {
                    if (cur.size() != 3) return mismatch("an image [channels, height, width]");
                    if (auto e = positive(l.dim, "dim")) return *e;
                    if (auto e = positive(l.kernel, "patch")) return *e;
                    if (auto e = probability(l.dropout, "dropout")) return *e;
                    const char* side[] = {"height", "width"};
                    for (int d = 0; d < 2; ++d)
                        if (cur[1 + d] % l.kernel != 0)
                            return fail("patch: the image " + std::string(side[d]) + " " +
                                        std::to_string(cur[1 + d]) +
                                        " is not divisible by the patch " +
                                        std::to_string(l.kernel));
                    cur = {(cur[1] / l.kernel) * (cur[2] / l.kernel) + (l.classToken ? 1 : 0),
                           l.dim};
                    break;
                }
                case LayerKind::SelectToken:
                    if (cur.size() != 2) return mismatch("a sequence [tokens, width]");
                    cur = {cur[1]};
                    break;
                case LayerKind::ResidualBlock: {
                    if (cur.size() != 3) return mismatch("an image [channels, height, width]");
                    if (auto e = positive(l.channels, "channels")) return *e;
                    if (auto e = positive(l.stride, "stride")) return *e;
                    std::int64_t outC =
                        l.variant == ResidualVariant::Bottleneck ? 4 * l.channels : l.channels;
                    std::int64_t h = convOut(cur[1], 3, l.stride, 1);
                    std::int64_t w = convOut(cur[2], 3, l.stride, 1);
                    if (h <= 0 || w <= 0) return mismatch("an image of at least 1x1");
                    cur = {outC, h, w};
                    break;
                }
                case LayerKind::CrossEntropy:
                    if (cur.empty() || cur.back() < 2)
                        return mismatch("logits with at least 2 classes in the last dimension");
                    if (tokens && cur.back() != net.input.vocab && cur.size() == 2)
                        return mismatch("logits over the vocabulary (" +
                                        std::to_string(net.input.vocab) + ")");
                    cur = {};
                    break;
                case LayerKind::Mse:
                    cur = {};
                    break;
            }
            std::int64_t elems = product(cur);
            if (elems > kMaxElements)
                return fail("output " + shapeToString(cur) + " is too large per sample");
            shapes.push_back(cur);
        }
        previous = static_cast<std::int64_t>(i);
    }
    return shapes;
}

bool sameStructure(const Network& a, const Network& b) {
    if (a.name != b.name || !(a.input == b.input) || a.tieEmbeddings != b.tieEmbeddings ||
        a.layers.size() != b.layers.size())
        return false;
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
        Layer l = a.layers[i];
        l.checkpoint = b.layers[i].checkpoint;
        if (!(l == b.layers[i])) return false;
    }
    return true;
}

}  // namespace remat
