// Sweeps: how memory and recompute grow with one size of the model — the depth (the repeat
// count of its repeated block), the sequence length or the micro-batch — under each strategy.
// The lesson checkpointing starts from is a growth law: without it the activations grow as
// O(N) with the number of blocks, with sqrt(N) segments as O(sqrt N), at the price of about one
// more forward. A single model shows only one point of that law, and on a large vocabulary the
// whole peak is often the loss's workspace under every strategy, so a sweep reports, for every
// value and strategy, the whole peak, the peak of the activations alone (saved and recomputed),
// the peak of the activations made inside the swept blocks (the part the law is about), the
// activations kept for backward, and the recompute overhead; and, per strategy, how much the
// block activations grew over the range against how much the value grew.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster.h"
#include "device.h"
#include "model_file.h"
#include "result.h"
#include "strategy.h"

namespace remat {

enum class SweepAxis { Depth, SequenceLength, MicroBatch };

// "depth", "seq", "batch" (and the long forms "sequence-length", "micro-batch").
Result<SweepAxis> parseSweepAxis(const std::string& text);
std::string sweepAxisName(SweepAxis axis);

struct SweepPoint {
    std::int64_t value = 0;
    std::string strategy;  // the spelling
    std::string error;     // non-empty: this value or plan was refused, and why
    std::int64_t peakBytes = 0;
    std::int64_t activationPeakBytes = 0;       // saved + recomputed activations, at their own peak
    std::int64_t blockActivationPeakBytes = 0;  // the same, of the swept blocks' ops alone
    std::int64_t keptActivationBytes = 0;       // Timeline::savedActivationBytes
    double recomputeOverhead = 0.0;             // Evaluation::recomputeOverhead()
    double stepTimeS = 0.0;
    bool fits = false;
    bool unsafe = false;
};

// Per strategy, over the values that evaluated: block activations at the last value divided by
// those at the first, beside the ratio of the values themselves (8x the blocks: 8.0 without
// checkpointing, about 2.8 with sqrt(N) segments).
struct SweepGrowth {
    std::string strategy;
    std::int64_t fromValue = 0, toValue = 0;
    double valueRatio = 0.0;
    double blockActivationRatio = 0.0;
};

struct SweepResult {
    SweepAxis axis = SweepAxis::Depth;
    std::string sweptLayer;  // depth: the repeated layer's name or kind ("transformer_block")
    std::vector<std::int64_t> values;
    std::vector<SweepPoint> points;  // value-major, strategies in the order given
    std::vector<SweepGrowth> growth;
};

inline constexpr std::size_t kMaxSweepValues = 64;

// Evaluates every (value, strategy) pair. The depth axis sets the repeat count of the model's
// repeated layer (the one repeated most; a model without one is refused), the sequence axis
// the input's token count (token models), the batch axis the micro-batch. A value the model
// refuses (a sequence longer than its learned positions, a depth past the layer limit) or a
// plan the compiler refuses gives a point with its error, not a failed sweep. `manual` is
// refused: a manual plan names the layers of one depth. `progress(done, total)` is called after
// each point; returning false stops the sweep with an error.
//
// With a `cluster` and a parallel layout (training.parallel not single) every point is per GPU,
// for the rank that peaks, on that cluster: the layout evaluated whole (parallel_eval.h), the
// activations those of the peaking rank's program, the time the whole step's (communication and
// pipeline bubble in), `fits` the peaking rank's and the host's. A value the layout does not
// divide (a depth not divisible by pp) is a point with the layout's error. Without a cluster the
// layout is not applied: every point is one GPU's.
Result<SweepResult> sweep(const ModelFile& model, const TrainingConfig& training,
                          const DeviceSpec& device, SweepAxis axis,
                          const std::vector<std::int64_t>& values,
                          const std::vector<Strategy>& strategies,
                          const std::function<bool(int, int)>& progress = {},
                          const ClusterSpec* cluster = nullptr);

// What a sweep over `axis` covers when no values are given: depth 1, 2, 4, ..., 64; the
// sequence length doubling from 128 (or less) to the model's; the micro-batch doubling from 1
// to four times the model's (at least 8).
std::vector<std::int64_t> defaultSweepValues(SweepAxis axis, const ModelFile& model,
                                             const TrainingConfig& training);

// Values from a list ("1,2,4,8") or a range ("4..48" step 1, "4..48:4" with a step), sorted and
// without repeats; at most kMaxSweepValues, each at least 1.
Result<std::vector<std::int64_t>> parseSweepValues(const std::string& text);

}  // namespace remat
