#include "layer_catalog.h"

#include <QCoreApplication>

namespace remat::ui {

namespace {
// Translation context for the free functions of this file.
class LayerCatalogText {
    Q_DECLARE_TR_FUNCTIONS(LayerCatalog)
};

std::int64_t headsFor(std::int64_t width) {
    for (std::int64_t h : {16, 12, 8, 4, 2})
        if (width % h == 0 && width / h >= 32) return h;
    return 1;
}
}  // namespace

std::vector<CatalogGroup> layerCatalog() {
    return {
        {LayerCatalogText::tr("Dense"),
         {LayerKind::Linear, LayerKind::Dropout, LayerKind::Flatten}},
        {LayerCatalogText::tr("Activations"),
         {LayerKind::Relu, LayerKind::Gelu, LayerKind::Silu, LayerKind::Tanh, LayerKind::Sigmoid,
          LayerKind::Softmax}},
        {LayerCatalogText::tr("Normalisation"),
         {LayerKind::LayerNorm, LayerKind::RmsNorm, LayerKind::BatchNorm2d}},
        {LayerCatalogText::tr("Sequence models"),
         {LayerKind::Embedding, LayerKind::Attention, LayerKind::Mlp, LayerKind::TransformerBlock}},
        {LayerCatalogText::tr("Vision"),
         {LayerKind::Conv2d, LayerKind::MaxPool2d, LayerKind::GlobalAvgPool,
          LayerKind::ResidualBlock, LayerKind::PatchEmbedding, LayerKind::SelectToken}},
        {LayerCatalogText::tr("Losses"), {LayerKind::CrossEntropy, LayerKind::Mse}},
    };
}

QString layerDescription(LayerKind kind) {
    switch (kind) {
        case LayerKind::Linear:
            return LayerCatalogText::tr("Fully connected layer; saves its input.");
        case LayerKind::Relu:
            return LayerCatalogText::tr("ReLU; saves its output.");
        case LayerKind::Gelu:
            return LayerCatalogText::tr("GELU; saves its input.");
        case LayerKind::Silu:
            return LayerCatalogText::tr("SiLU (swish); saves its input.");
        case LayerKind::Tanh:
            return LayerCatalogText::tr("tanh; saves its output.");
        case LayerKind::Sigmoid:
            return LayerCatalogText::tr("Sigmoid; saves its output.");
        case LayerKind::Softmax:
            return LayerCatalogText::tr("Softmax over the last dimension; saves its output.");
        case LayerKind::LayerNorm:
            return LayerCatalogText::tr("Layer norm; saves input, mean and rstd.");
        case LayerKind::RmsNorm:
            return LayerCatalogText::tr("RMS norm; saves input and rstd.");
        case LayerKind::Dropout:
            return LayerCatalogText::tr("Dropout; saves a 1-byte mask per element.");
        case LayerKind::Embedding:
            return LayerCatalogText::tr(
                "Token (and learned position) embedding; first layer of a token model.");
        case LayerKind::Conv2d:
            return LayerCatalogText::tr("2-D convolution; saves its input.");
        case LayerKind::BatchNorm2d:
            return LayerCatalogText::tr("Batch norm over channels; saves input and statistics.");
        case LayerKind::MaxPool2d:
            return LayerCatalogText::tr("Max pooling; saves input and indices.");
        case LayerKind::GlobalAvgPool:
            return LayerCatalogText::tr("Global average pooling to 1×1.");
        case LayerKind::Flatten:
            return LayerCatalogText::tr("Flattens to one dimension (a view: no memory).");
        case LayerKind::Attention:
            return LayerCatalogText::tr(
                "Multi-head self-attention (qkv, attention core, projection).");
        case LayerKind::Mlp:
            return LayerCatalogText::tr("Two-layer MLP, optionally gated (SwiGLU).");
        case LayerKind::TransformerBlock:
            return LayerCatalogText::tr(
                "Transformer block (pre-LN or post-LN): attention and MLP with residuals; "
                "repeatable.");
        case LayerKind::ResidualBlock:
            return LayerCatalogText::tr(
                "ResNet block (basic or bottleneck) with shortcut; repeatable.");
        case LayerKind::CrossEntropy:
            return LayerCatalogText::tr("Cross-entropy loss over the last dimension.");
        case LayerKind::Mse:
            return LayerCatalogText::tr("Mean squared error loss.");
        case LayerKind::PatchEmbedding:
            return LayerCatalogText::tr(
                "ViT patch embedding: image patches to tokens, a class token and learned "
                "positions.");
        case LayerKind::SelectToken:
            return LayerCatalogText::tr(
                "Takes the first (class) token: a view that keeps its input alive while saved.");
    }
    return {};
}

Layer defaultLayer(LayerKind kind, const Shape& input) {
    Layer l;
    l.kind = kind;
    const std::int64_t width = input.empty() ? 1024 : input.back();
    const std::int64_t channels = input.size() == 3 ? input[0] : 64;
    switch (kind) {
        case LayerKind::Linear:
            l.out = width;
            break;
        case LayerKind::Dropout:
            l.p = 0.1;
            break;
        case LayerKind::Embedding:
            l.dim = 768;
            break;
        case LayerKind::Conv2d:
            l.outChannels = channels;
            l.kernel = 3;
            l.padding = 1;
            break;
        case LayerKind::MaxPool2d:
            l.kernel = 2;
            l.stride = 2;
            break;
        case LayerKind::Attention:
            l.heads = headsFor(width);
            break;
        case LayerKind::Mlp:
            l.mlpHidden = 4 * width;
            break;
        case LayerKind::TransformerBlock:
            l.heads = headsFor(width);
            l.mlpHidden = 4 * width;
            break;
        case LayerKind::ResidualBlock:
            l.channels = channels;
            break;
        case LayerKind::PatchEmbedding:
            l.dim = 768;
            l.kernel = 16;
            break;
        default:
            break;
    }
    return l;
}

}  // namespace remat::ui
