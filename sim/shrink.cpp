#include "shrink.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "lower.h"

namespace remat {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

class Shrinker {
public:
    explicit Shrinker(const ShrinkLimits& l) : m_l(l) {}

    std::vector<ShrinkChange> changes;

    // Records and applies one change when the value moves.
    void set(const std::string& field, std::int64_t& value, std::int64_t to) {
        if (to == value) return;
        changes.push_back({field, value, to});
        value = to;
    }

    // A width by its old value: the fixed mappings first (model width, vocabulary, MLP hidden
    // width), else the feature limit.
    std::int64_t feature(std::int64_t w) const {
        if (auto it = m_fixed.find(w); it != m_fixed.end()) return it->second;
        return std::min(w, m_l.features);
    }
    std::int64_t channels(std::int64_t c) const {
        return std::max<std::int64_t>(1, ceilDiv(c, m_l.channelDivisor));
    }
    void fix(std::int64_t from, std::int64_t to) { m_fixed.emplace(from, to); }

private:
    const ShrinkLimits& m_l;
    std::map<std::int64_t, std::int64_t> m_fixed;
};

std::string layerField(std::size_t i, const char* field) {
    return "layers[" + std::to_string(i) + "]." + field;
}

// The transformer sizes: model width, heads and KV heads per head count, MLP hidden widths.
struct TransformerSizes {
    std::int64_t width = 0, newWidth = 0, headDim = 0;
};

Result<ShrunkNetwork> shrinkOnce(const Network& net, const TrainingConfig& training,
                                 const ShrinkLimits& l, bool keepMicroBatch,
                                 std::int64_t imageSide) {
    ShrunkNetwork out;
    out.network = net;
    out.training = training;
    Network& n = out.network;
    Shrinker s(l);

    // Transformer widths: the embedding's dim (or a dense input's width) is heads x head dim.
    TransformerSizes t;
    std::map<std::size_t, std::pair<std::int64_t, std::int64_t>> newHeads;  // heads, kv heads
    for (const Layer& layer : net.layers)
        if (layer.kind == LayerKind::Embedding) t.width = layer.dim;
    if (t.width == 0 && net.input.shape.size() == 1) t.width = net.input.shape[0];
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        if (layer.kind != LayerKind::TransformerBlock && layer.kind != LayerKind::Attention)
            continue;
        if (layer.heads <= 0 || t.width <= 0 || t.width % layer.heads != 0)
            return makeError("layer " + std::to_string(i) +
                             ": the width is not a multiple of the heads, nothing to shrink from");
        const std::int64_t kv = layer.kvHeads > 0 ? layer.kvHeads : layer.heads;
        const std::int64_t ratio = layer.heads / std::max<std::int64_t>(1, kv);
        const std::int64_t groups =
            std::min(kv, std::max<std::int64_t>(1, ceilDiv(l.heads, ratio)));
        const std::int64_t heads = groups * ratio;
        const std::int64_t headDim = std::min(t.width / layer.heads, l.headDim);
        if (t.newWidth == 0) {
            t.headDim = headDim;
            t.newWidth = heads * headDim;
        } else if (heads * headDim != t.newWidth) {
            return makeError("layer " + std::to_string(i) +
                             ": its heads give another shrunk width than an earlier block's");
        }
        newHeads[i] = {heads, groups};
    }
    if (t.newWidth > 0) s.fix(t.width, t.newWidth);
    if (net.input.isTokens()) {
        const std::int64_t vocab = std::min(net.input.vocab, l.vocab);
        s.fix(net.input.vocab, vocab);
    }
    // MLP hidden widths keep their ratio to the model width.
    for (const Layer& layer : net.layers)
        if (layer.mlpHidden > 0 && t.width > 0 && t.newWidth > 0)
            s.fix(layer.mlpHidden, std::max<std::int64_t>(
                                       1, (layer.mlpHidden * t.newWidth + t.width / 2) / t.width));

    // The input.
    std::int64_t tokens = net.input.tokens;
    if (net.input.isTokens()) {
        s.set("input.tokens", n.input.tokens, std::min(net.input.tokens, l.tokens));
        s.set("input.vocab", n.input.vocab, s.feature(net.input.vocab));
        tokens = n.input.tokens;
    } else if (net.input.shape.size() == 3) {
        for (std::size_t d = 1; d < 3; ++d)
            s.set("input.shape[" + std::to_string(d) + "]", n.input.shape[d],
                  std::min(net.input.shape[d], imageSide));
    } else {
        for (std::size_t d = 0; d < net.input.shape.size(); ++d)
            s.set("input.shape[" + std::to_string(d) + "]", n.input.shape[d],
                  s.feature(net.input.shape[d]));
    }

    // The layers, in order. `channels`: an image's channels entering layer i, so a grouped
    // convolution keeps groups that divide its shrunk input and output channels.
    std::int64_t channels = n.input.shape.size() == 3 ? n.input.shape[0] : 0;
    for (std::size_t i = 0; i < n.layers.size(); ++i) {
        Layer& m = n.layers[i];
        s.set(layerField(i, "repeat"), m.repeat, std::min(m.repeat, l.repeat));
        if (auto h = newHeads.find(i); h != newHeads.end()) {
            s.set(layerField(i, "heads"), m.heads, h->second.first);
            if (m.kvHeads > 0) s.set(layerField(i, "kv_heads"), m.kvHeads, h->second.second);
        }
        switch (m.kind) {
            case LayerKind::Linear:
                s.set(layerField(i, "out"), m.out, s.feature(m.out));
                break;
            case LayerKind::Embedding:
                s.set(layerField(i, "dim"), m.dim, s.feature(m.dim));
                if (m.positions > tokens) s.set(layerField(i, "positions"), m.positions, tokens);
                break;
            case LayerKind::Conv2d:
                s.set(layerField(i, "out_channels"), m.outChannels, s.channels(m.outChannels));
                if (m.groups > 1 && channels > 0)
                    s.set(layerField(i, "groups"), m.groups,
                          std::gcd(m.groups, std::gcd(channels, m.outChannels)));
                channels = m.outChannels;
                break;
            case LayerKind::ResidualBlock:
                s.set(layerField(i, "channels"), m.channels, s.channels(m.channels));
                channels = m.variant == ResidualVariant::Bottleneck ? 4 * m.channels : m.channels;
                break;
            case LayerKind::TransformerBlock:
            case LayerKind::Mlp:
                if (m.mlpHidden > 0)
                    s.set(layerField(i, "mlp_hidden"), m.mlpHidden, s.feature(m.mlpHidden));
                break;
            default:
                break;
        }
    }

    // The batch.
    TrainingConfig& tr = out.training;
    if (!keepMicroBatch) s.set("micro_batch", tr.microBatch, std::min(tr.microBatch, l.microBatch));
    s.set("accumulation_steps", tr.accumulationSteps,
          std::min(tr.accumulationSteps, l.accumulationSteps));

    out.changes = std::move(s.changes);
    auto g = lower(n, tr);
    if (!g) return g.error();
    return out;
}

}  // namespace

Result<ShrunkNetwork> shrinkNetwork(const Network& net, const TrainingConfig& training,
                                    const ShrinkLimits& limits, bool keepMicroBatch) {
    // An image too small for the network's downsampling does not lower: double the side until
    // it does (at most up to the original size, which lowered).
    std::int64_t side = limits.imageSide;
    const bool image = net.input.shape.size() == 3;
    const std::int64_t original =
        image ? std::max(net.input.shape[1], net.input.shape[2]) : limits.imageSide;
    for (;;) {
        auto r = shrinkOnce(net, training, limits, keepMicroBatch, side);
        if (r || !image || side >= original) {
            if (!r) return makeError("cannot shrink: " + r.error().message);
            return r;
        }
        side *= 2;
    }
}

}  // namespace remat
