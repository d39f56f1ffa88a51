// A smaller copy of a network with the same layer kinds and structure, for running a preset
// for real on the CPU in seconds (`remat run PRESET --backend cpu --shrink`; the GUI may offer
// the same). Every layer entry stays, with the same kind, variant, activation, norm,
// attention implementation, strides, kernels and flags; what shrinks is sizes: image sides,
// convolution channels, feature widths, the sequence, the vocabulary, heads, KV heads (the
// grouping ratio kept), the head dimension, the MLP's hidden width (its ratio to the model
// width kept), repeats of blocks, the micro-batch and the accumulation steps. A size is a
// function of its old value, so widths that had to agree (a residual's two branches, a tied
// head and its embedding) still agree, and a projection shortcut stays where it was. The
// result is checked by lowering it; an image too small for the network's downsampling is
// doubled until it lowers. Each change is reported as a model-file path with its old and new
// value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "network.h"
#include "result.h"

namespace remat {

// The sizes a shrunk network aims at (each field only ever goes down).
struct ShrinkLimits {
    std::int64_t imageSide = 32;       // height and width of an image input (doubled if needed)
    std::int64_t channelDivisor = 16;  // convolution channels: ceil(c / divisor)
    std::int64_t features = 64;        // linear widths and dense inputs
    std::int64_t tokens = 32;          // sequence length
    std::int64_t vocab = 128;
    std::int64_t heads = 4;  // at least the grouping ratio of grouped-KV attention
    std::int64_t headDim = 16;
    std::int64_t repeat = 2;  // repeats of a block entry
    std::int64_t microBatch = 2;
    std::int64_t accumulationSteps = 2;
};

struct ShrinkChange {
    std::string field;  // model-file path: "input.shape[1]", "layers[4].channels", "micro_batch"
    std::int64_t from = 0;
    std::int64_t to = 0;
};

struct ShrunkNetwork {
    Network network;
    TrainingConfig training;
    std::vector<ShrinkChange> changes;  // in model-file order; unchanged fields are absent
};

// `keepMicroBatch`: leave the micro-batch as it is (the user chose one). An error when the
// network cannot be shrunk consistently (blocks of one model with different head counts that
// no common width serves), naming the layer.
Result<ShrunkNetwork> shrinkNetwork(const Network& net, const TrainingConfig& training,
                                    const ShrinkLimits& limits = {}, bool keepMicroBatch = false);

}  // namespace remat
