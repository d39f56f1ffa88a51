// The lowered network: ops, the tensors they read and write, what each op saves for its
// backward (as PyTorch autograd would), the module tree (network -> layer -> sub-module ->
// op), and per-op costs. Shapes are per sample; a batched tensor's bytes are
// micro_batch x its per-sample bytes, so every size is affine in the micro-batch.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "checked.h"
#include "ids.h"
#include "network.h"
#include "types.h"

namespace remat {

// Bytes (or FLOPs) as perSample * microBatch + fixed.
struct Affine {
    std::int64_t perSample = 0;
    std::int64_t fixed = 0;
    // Saturates at the int64 maximum (callers refuse totals that large) instead of wrapping.
    std::int64_t at(std::int64_t microBatch) const {
        return satAdd(satMul(perSample, microBatch), fixed);
    }
    // The same in floating point, for FLOPs and bytes moved, which only feed times.
    double atReal(std::int64_t microBatch) const {
        return double(perSample) * double(microBatch) + double(fixed);
    }
    Affine& operator+=(const Affine& o) {
        perSample = satAdd(perSample, o.perSample);
        fixed = satAdd(fixed, o.fixed);
        return *this;
    }
    friend Affine operator+(Affine a, const Affine& b) { return a += b; }
    bool operator==(const Affine&) const = default;
};

enum class TensorKind {
    Activation,  // produced by an op
    Parameter,   // a weight: resident, gets a gradient
    Input,       // data fed per micro-batch: images, token ids, targets
};

struct Tensor {
    std::string name;
    TensorKind kind = TensorKind::Activation;
    DType dtype = DType::F32;
    Shape shape;           // per sample when batched; the whole tensor otherwise
    bool batched = true;   // leading micro-batch dimension implied
    OpId producer;         // invalid for parameters and inputs
    // Storage this tensor lives in: itself, or the tensor it is a view of (flatten) or that an
    // in-place op overwrote. Memory is counted per storage.
    TensorId storage;
    // For views only: the tensor whose gradient buffer this one shares.
    TensorId viewOf;
    bool requiresGrad = true;  // false for inputs and values no gradient flows through

    // Both saturate: lowering refuses tensors past 2^40 elements, but only after building them.
    std::int64_t elements() const {
        std::int64_t n = 1;
        for (auto d : shape) n = satMul(n, d);
        return n;
    }
    Affine bytes() const {
        std::int64_t b = satMul(elements(), dtypeBytes(dtype));
        return batched ? Affine{b, 0} : Affine{0, b};
    }
};

enum class OpKind {
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
    Mul,          // elementwise product of two activations (SwiGLU gate)
    Add,          // residual add
    Embedding,    // token + learned position lookup
    AttnScores,   // S = (Q K^T) / sqrt(d), causal mask; reads Q and K from the qkv tensor
    AttnContext,  // Y = P V, heads merged back to [tokens, width]
    ExpandKv,     // grouped KV heads: materialise K and V per query head (repeat_interleave)
    FlashAttn,    // fused attention: saves Q, K, V, output and logsumexp only
    Conv2d,
    BatchNorm2d,
    MaxPool2d,
    GlobalAvgPool,
    Flatten,      // a view: no memory, no work
    CrossEntropy,
    Mse,
    Cast,                // dtype conversion (autocast): of an activation, or of parameters
    LinearCrossEntropy,  // the head's linear and the cross-entropy fused, run over row chunks
    // ViT: a patch convolution's output [dim, h, w] read as h*w tokens (flatten(2).transpose),
    // the learned class token prepended (cat) and the learned positions added.
    PatchTokens,
    SelectToken,  // x[:, 0]: a view of token 0 (the class token); backward scatters into zeros
    Rotary,  // rotary position embeddings on q and k, in place on the qkv tensor; saves nothing
};
std::string_view opKindName(OpKind k);

// Rows of one chunk of the chunked cross-entropy (LossImpl::Chunked): its logits, their fp32
// form and gradient exist for one chunk at a time (docs/memory-model.md).
inline constexpr std::int64_t kLossChunkRows = 1024;

// Everything an executor needs to run an op besides its operand tensors. One flat record; each
// kind uses the fields its comment in op_catalog.cpp names.
struct OpAttrs {
    std::int64_t in = 0, out = 0;          // linear features; conv channels
    std::int64_t tokens = 0, heads = 0, kvHeads = 0, headDim = 0;
    std::int64_t vocab = 0, positions = 0;
    std::int64_t tokenTypes = 0;  // embedding: rows of the token-type table (0: none)
    bool classToken = false;      // patch_tokens: a class token is prepended
    std::int64_t kernel = 0, stride = 1, padding = 0;
    std::int64_t dilation = 1, groups = 1;  // conv2d: tap spacing, channel groups
    double p = 0.0;        // dropout probability
    // Rotary: the leading dimensions of each q and k head it rotates (even), and its base.
    std::int64_t rotaryDims = 0;
    double rotaryBase = 10000.0;
    // Parallel layouts: a sequence-parallel linear runs on `rowsFactor` times the rows its
    // input holds (the gathered sequence); attention under context parallelism attends over
    // `keyTokens` keys (0: `tokens`).
    std::int64_t rowsFactor = 1;
    std::int64_t keyTokens = 0;
    bool causal = false;
    bool bias = false;
    // Chunked ops (linear_cross_entropy): rows per chunk; its workspaces hold one chunk, so they
    // grow with the micro-batch only until the rows (micro-batch x tokens) fill a chunk.
    std::int64_t chunkRows = 0;
};

// A collective a tensor- or context-parallel op runs over its group (parallel.h), with the bytes
// of the whole tensor it moves (ring costs follow from them and the group size).
enum class CollectiveKind : std::uint8_t { None, AllReduce, AllGather, ReduceScatter };
enum class CommGroup : std::uint8_t { Tensor, Context };
struct Collective {
    CollectiveKind kind = CollectiveKind::None;
    CommGroup group = CommGroup::Tensor;
    Affine bytes;
};

// Work of one direction of one op.
struct OpCost {
    Affine flops;
    Affine bytesMoved;
    bool matmul = false;  // runs on tensor cores (peak per dtype) rather than CUDA cores
};

struct Op {
    OpKind kind = OpKind::Linear;
    std::string name;   // "3/attention/qkv"
    ModuleId module;    // innermost module
    std::vector<TensorId> inputs;   // activations or inputs, in the kind's documented order
    std::vector<TensorId> outputs;  // outputs[0] is the main result; the rest are auxiliary
    std::vector<TensorId> params;
    std::vector<TensorId> saved;    // subset of inputs, outputs (and their views)
    int inPlaceInput = -1;          // index into inputs whose storage outputs[0] overwrites
    OpAttrs attrs;
    OpCost forward, backward;
    Affine workspaceForward, workspaceBackward;  // scratch bytes for the duration of the op
    // Collectives of a tensor- or context-parallel rank's op (none on one GPU): up to two per
    // direction; a recompute runs the forward ones again.
    std::array<Collective, 2> commForward{}, commBackward{};
};

// Whether `op` draws a dropout mask from the RNG: a dropout, or flash attention with dropout
// on its probabilities. Such an op draws a different mask when recomputed without the RNG
// state preserved.
inline bool drawsMask(const Op& op) {
    return op.kind == OpKind::Dropout || (op.kind == OpKind::FlashAttn && op.attrs.p > 0.0);
}

// The scratch bytes of `op` (its backward's when `backward`) at a micro-batch: the op's affine
// workspace, or for a chunked op the workspace of one chunk once the rows exceed a chunk.
Affine opWorkspace(const Op& op, bool backward, std::int64_t microBatch);

struct Module {
    std::string name;  // path segment: "3", "attention", "attention_core"
    std::string path;  // "3/attention/attention_core"; "" for the network root
    std::string kind;  // layer kind spelling or sub-module kind
    ModuleId parent;
    std::vector<ModuleId> children;
    std::uint32_t firstOp = 0;  // op range [firstOp, firstOp + opCount)
    std::uint32_t opCount = 0;
    int layerIndex = -1;  // expanded layer instance; -1 for the root
    bool hasOps() const { return opCount > 0; }
    std::uint32_t lastOp() const { return firstOp + opCount - 1; }
    bool containsOp(std::uint32_t op) const { return op >= firstOp && op < firstOp + opCount; }
};

struct Graph {
    std::vector<Tensor> tensors;
    std::vector<Op> ops;
    std::vector<Module> modules;          // modules[0] is the network root
    std::vector<ModuleId> layerModules;   // per expanded layer instance
    std::vector<ModuleId> chain;          // the strategies' chain: blocks, else layers but loss
    std::vector<TensorId> parameters;
    std::vector<TensorId> inputs;         // data, token ids, targets
    TensorId loss;
    // A pipeline stage that is not the last has no loss: its output goes to the next stage and
    // its backward starts from the gradient the next stage sends back (parallel_eval.h).
    TensorId stageOutput;
    Precision precision = Precision::Fp32;
    std::int64_t parameterCount = 0;

    const Tensor& tensor(TensorId id) const { return tensors[id.index()]; }
    const Op& op(OpId id) const { return ops[id.index()]; }
    const Module& module(ModuleId id) const { return modules[id.index()]; }
    TensorId storageOf(TensorId id) const { return tensors[id.index()].storage; }
    // Module whose path equals `path`, or invalid.
    ModuleId findModule(const std::string& path) const;
};

}  // namespace remat
