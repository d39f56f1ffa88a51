// The network as a user stacks it: an ordered list of layers (primitive ops or blocks that
// repeat), the input description and the training settings. This is what model files hold
// and what the GUI edits; `lower()` turns it into the op graph. Shape inference down the stack
// lives here too, so that a mismatch is reported in the user's terms (layer names), not ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parallel.h"
#include "recompute_impl.h"
#include "result.h"
#include "types.h"

namespace remat {

enum class LayerKind {
    Linear,
    Relu,
    Gelu,
    Silu,
    Tanh,
    Sigmoid,
    Softmax,
    LayerNorm,
    RmsNorm,
    Dropout,
    Embedding,
    Conv2d,
    BatchNorm2d,
    MaxPool2d,
    GlobalAvgPool,
    Flatten,
    Attention,
    Mlp,
    TransformerBlock,
    ResidualBlock,
    CrossEntropy,
    Mse,
    // Model format 2: ViT's patch embedding (image -> tokens with a class token) and the head's
    // selection of the class token.
    PatchEmbedding,
    SelectToken,
};
inline constexpr int kLayerKindCount = 24;

std::string_view layerKindName(LayerKind k);  // model-file spelling: "transformer_block"
std::optional<LayerKind> parseLayerKind(std::string_view s);
bool isLoss(LayerKind k);
bool isBlock(LayerKind k);  // transformer_block, residual_block: the chain elements
bool isActivation(LayerKind k);
// Dimensions of a head of size `headDim` that rotary embeddings rotate: int(headDim x
// fraction), as GPT-NeoX's rotary_ndims (layers validate that it is even and at least 2).
std::int64_t rotaryDims(std::int64_t headDim, double fraction);

enum class Activation { Relu, Gelu, Silu };
std::string_view activationName(Activation a);
std::optional<Activation> parseActivation(std::string_view s);

enum class AttentionImpl { Eager, Flash };
enum class NormKind { LayerNorm, RmsNorm };
enum class ResidualVariant { Basic, Bottleneck };
// Where a transformer block normalises: before attention and the MLP (GPT-2, Llama) or after
// each residual add (BERT, RoBERTa).
enum class NormPosition { Pre, Post };

// One row of the stack. A flat record: each kind reads the fields it documents and ignores
// the rest (docs/model-format.md lists which). Defaults are the model format's defaults.
struct Layer {
    LayerKind kind = LayerKind::Linear;
    std::string name;          // optional user label
    std::int64_t repeat = 1;   // blocks only
    bool checkpoint = false;   // per-layer plan form
    bool inplace = false;      // activations and dropout: write the output into the input

    // linear / mlp
    std::int64_t out = 0;
    bool bias = true;
    // embedding / transformer
    std::int64_t dim = 0;        // embedding width
    std::int64_t positions = 0;  // learned positions (0: none)
    double dropout = 0.0;        // embedding, transformer_block, attention, mlp
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;    // 0: same as heads
    std::int64_t mlpHidden = 0;
    Activation activation = Activation::Gelu;
    bool gated = false;
    NormKind norm = NormKind::LayerNorm;
    AttentionImpl attention = AttentionImpl::Eager;
    bool causal = true;
    // Model format 2 (docs/model-format.md): the fused qkv projection's bias when it differs
    // from `bias` (Qwen2: on for q, k, v only; absent: same as `bias`), and a transformer
    // block whose attention and MLP both read the block's input (GPT-NeoX, GPT-J).
    std::optional<bool> qkvBias;
    bool parallelResidual = false;
    // Model format 3: post-LN blocks (BERT), token-type embeddings added to the token and
    // position lookups, and a patch embedding's learned class token.
    NormPosition normPosition = NormPosition::Pre;
    std::int64_t tokenTypes = 0;
    bool classToken = true;
    // Model format 3: rotary position embeddings (RoPE) applied to q and k after the qkv
    // projection, on the first `rotaryFraction` of each head's dimensions (GPT-NeoX's
    // rotary_pct), with base `rotaryBase` (Llama's rope_theta).
    bool rotary = false;
    double rotaryFraction = 1.0;
    double rotaryBase = 10000.0;
    // dropout layer
    double p = 0.0;
    // conv / pool; patch_embedding's patch size (kernel = stride = patch)
    std::int64_t outChannels = 0;
    std::int64_t kernel = 0;
    std::int64_t stride = 1;
    std::int64_t padding = 0;
    // conv2d (model format 2): spacing of the kernel's taps, and channel groups (in and out
    // channels divisible by it; `groups` = in channels is a depthwise convolution).
    std::int64_t dilation = 1;
    std::int64_t groups = 1;
    // residual block
    ResidualVariant variant = ResidualVariant::Basic;
    std::int64_t channels = 0;

    bool operator==(const Layer&) const = default;
};

// What one sample looks like entering the network.
struct InputSpec {
    // Dense data or images: per-sample shape, e.g. [1024] or [3, 224, 224]. Empty for tokens.
    std::vector<std::int64_t> shape;
    // Token models: sequence length and vocabulary (both > 0 when used).
    std::int64_t tokens = 0;
    std::int64_t vocab = 0;
    bool isTokens() const { return tokens > 0; }
    bool operator==(const InputSpec&) const = default;
};

struct TrainingConfig {
    std::int64_t microBatch = 1;
    std::int64_t accumulationSteps = 1;
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::Sgd;
    // The GPUs the step is spread over (the model file's `parallel` object).
    ParallelConfig parallel;
    // Framework behaviour (docs/memory-model.md): fp32 main gradients under Megatron-style
    // mixed precision, the optimizer's implementation (fused: what Megatron-LM and DeepSpeed
    // run, no temporaries), the cross-entropy's, and where fp32 GEMMs may use TF32 (PyTorch's
    // defaults: convolutions yes, matmuls no).
    MainGrads mainGrads = MainGrads::Param;
    OptimizerImpl optimizerImpl = OptimizerImpl::Fused;
    LossImpl lossImpl = LossImpl::Standard;
    Tf32Mode tf32 = Tf32Mode::Conv;
    // Which checkpoint implementation recomputes the plan's regions (sim/recompute_impl.h).
    RecomputeImpl recomputeImpl = RecomputeImpl::Pytorch;
    // PyTorch's checkpoint(preserve_rng_state=...) for every region of the plan: off, a
    // region's recompute draws fresh dropout masks (the program is then unsafe).
    bool preserveRngState = true;
    bool operator==(const TrainingConfig&) const = default;
};

struct Network {
    std::string name;
    InputSpec input;
    std::vector<Layer> layers;
    bool tieEmbeddings = false;
    // A pipeline stage before the last (parallel_eval.h): it ends without a loss and sends its
    // output on. Never set by model files.
    bool sendsOutput = false;
    bool operator==(const Network&) const = default;
};

// Equal but for the per-layer checkpoint flags (a plan, not the network's structure): the same
// graph, the same shapes, the same rows in the layer stack.
bool sameStructure(const Network& a, const Network& b);

// The most layer instances a network may expand to (a repeat included): twice the deepest
// published networks (ResNet-1001, 1,000-layer transformers), and small enough that comparing
// every strategy on it stays within seconds and a GiB.
inline constexpr std::int64_t kMaxLayerInstances = 2000;

// Number of layer instances once repeats are expanded (the indexing of plan regions); capped at
// kMaxLayerInstances + 1.
std::int64_t expandedLayerCount(const Network& net);
// Expanded instance index -> index into net.layers.
std::vector<std::size_t> expandedLayerSources(const Network& net);

// One side of a convolution's (or pooling window's) output: positions where a kernel of
// `kernel` taps `dilation` apart, moved `stride` at a time, fits in the input padded by
// `padding` on both sides (PyTorch's formula, rounded down); 0 or less when none fits.
inline std::int64_t convOutputSize(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                   std::int64_t padding, std::int64_t dilation = 1) {
    const std::int64_t room = in + 2 * padding - dilation * (kernel - 1) - 1;
    return room < 0 ? 0 : room / stride + 1;
}

// Per-sample output shape of every layer instance (expanded), or an error naming the layer
// and the mismatch. The first entry is the input shape.
using Shape = std::vector<std::int64_t>;
Result<std::vector<Shape>> inferShapes(const Network& net);

std::string shapeToString(const Shape& s);
// "3 (transformer_block)" or the user's name.
std::string layerLabel(const Network& net, std::size_t layerIndex);

}  // namespace remat
