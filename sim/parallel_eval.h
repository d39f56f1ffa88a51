// A training step under a parallel layout (parallel.h) on a cluster (cluster.h): memory per
// GPU for the rank that peaks, with the same category breakdown and timeline as one GPU, and
// the step's time with the communication the layout adds, the pipeline bubble and MFU.
//
// How: the network is cut into its pipeline stages (blocks split evenly, the embedding on the
// first stage, the head and loss on the last), each stage lowered as one tensor-, sequence- and
// context-parallel rank sees it (lower.h ShardOptions), planned with the strategy, compiled
// and simulated as one micro-batch (pipeline) or the whole accumulation (no pipeline), and the
// program rewritten for ZeRO sharding, offload and the other in-flight micro-batches
// (sharding.h). Time: the slowest stage's compute and tensor/context collectives per micro-
// batch times the micro-batches, plus the bubble, the point-to-point transfers between stages,
// the data-parallel collectives not hidden behind backward, and the optimizer
// (docs/parallelism.md states every rule and its source).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "analysis.h"
#include "cancel.h"
#include "cluster.h"
#include "comm_cost.h"
#include "lower.h"
#include "network.h"
#include "parallel.h"
#include "simulator.h"

namespace remat {

struct StageSummary {
    std::int64_t stage = 0;
    std::int64_t firstLayer = 0, layerCount = 0;  // expanded layer instances of the network
    double inFlight = 1.0;                         // micro-batches' activations held at once
    std::int64_t peakBytes = 0;
    double microBatchS = 0;  // forward + recompute + backward of one micro-batch, collectives in
    double collectiveS = 0;  // of which tensor- and context-parallel collectives
};

struct StepTime {
    double computeS = 0;          // the slowest stage's micro-batches, collectives in
    double bubbleS = 0;           // pipeline fill and drain
    double pipelineTransferS = 0; // activations and their gradients between stages
    double dataParallelS = 0;     // gradient reduction / parameter gathering, all of it
    double dataParallelExposedS = 0;  // the part not hidden behind compute
    double optimizerS = 0;        // on the GPU (sharded) or the host (offloaded)
    double offloadTransferS = 0;  // host link time not hidden behind backward
    double totalS = 0;
};

struct ParallelEvaluation {
    ParallelConfig layout;
    ClusterSpec cluster;
    LayoutPlacement placement;
    std::vector<StageSummary> stages;
    std::size_t peakStage = 0;
    // The peaking rank: its graph, and the evaluation of the strategy on it (program,
    // timeline, plan `none` baseline under the same layout).
    Graph graph;
    Evaluation evaluation;
    StepTime time;
    std::int64_t microBatches = 1;  // per step and pipeline (the accumulation steps)
    std::int64_t globalBatch = 1;   // samples per step: micro-batch x micro-batches x dp
    double modelFlopsPerStep = 0;   // the whole model's forward and backward, no recompute
    double mfu = 0;                 // model FLOPs / (step time x GPUs x peak)
    // Hardware FLOPs utilisation: recompute counted too, as Megatron-LM reports "achieved
    // TFLOP/s" (Narayanan et al. 2021).
    double hfu = 0;
    std::int64_t hostBytesPerNode = 0;  // offloaded state and activations
    bool hostFits = true;
    bool fits = false;  // the peaking rank's peak and the host memory both fit
    double samplesPerS() const { return time.totalS > 0 ? double(globalBatch) / time.totalS : 0; }
};

// The whole model's forward and backward FLOPs of one micro-batch as perSample x B + fixed.
struct ModelFlops {
    double perSample = 0, fixed = 0;
};
ModelFlops modelFlopsOf(const Network& net, const TrainingConfig& training);

// The lowered stages of one layout, shared by every preparation of it: a stage's graph does
// not depend on the strategy, the micro-batch or the accumulation steps, so a search over those
// (fit.h) lowers each distinct stage once. Valid for one network, layout (but for its ZeRO
// stage, hybrid sharding and offloads) and training settings (but for the micro-batch and the
// accumulation steps); the caller keeps it to that.
// The ops' predicted times are kept with them, per micro-batch, for every program of the stage
// at that micro-batch (simulator.h OpTimeMemo).
struct LoweredStages {
    using Key = std::tuple<std::int64_t, bool, bool>;  // first, middle (-1) or last stage; ends
    std::map<Key, std::shared_ptr<const Graph>> graphs;
    std::map<std::pair<Key, std::int64_t>, std::shared_ptr<OpTimeMemo>> opTimes;
};

// The expensive half of an evaluation: each distinct stage lowered, planned, compiled and
// simulated once. The layout's ZeRO stage, hybrid sharding and offload are applied only by
// finishParallel, so one preparation serves them all (the search in fit.h).
struct PreparedLayout {
    struct Run {
        std::shared_ptr<const Graph> graph;
        Evaluation eval;
        // Its tensor- and context-parallel collectives' seconds per micro-batch (they do not
        // depend on the ZeRO stage).
        double collectiveS = 0;
        // The ops' predicted times, kept across the simulations of this run's program and its
        // rewrites (not thread-safe: one PreparedLayout serves one thread).
        std::shared_ptr<OpTimeMemo> opTimes;
    };
    TrainingConfig cfg;
    std::vector<Run> runs;           // distinct stages
    std::vector<std::size_t> runOf;  // per pipeline stage, its run
    std::vector<StageSummary> stages;
    ModelFlops flops;
};
// `lowered`, when given, supplies and keeps the stages' graphs (LoweredStages).
Result<PreparedLayout> prepareParallel(const Network& net, const Strategy& s,
                                       const std::vector<RegionSpec>& manual,
                                       const TrainingConfig& cfg, const ClusterSpec& cluster,
                                       const CancelFlag* cancel = nullptr,
                                       const ModelFlops* flops = nullptr,
                                       LoweredStages* lowered = nullptr);
// `layout` must equal the prepared one but for zeroStage, hybridShard and the offloads.
// `keepRank` false leaves out the peaking rank's graph and program, and is what a search needs:
// of the peaking rank's timeline only the peak, `fits` and the phase times are then sure to be
// those of the whole evaluation, save when the rank does not fit (its timeline is then whole,
// for explainNoFit).
Result<ParallelEvaluation> finishParallel(const PreparedLayout& prepared,
                                          const ParallelConfig& layout, const ClusterSpec& cluster,
                                          bool withBaseline = true,
                                          const CancelFlag* cancel = nullptr,
                                          bool keepRank = true);

// `withBaseline` false skips plan `none` (the search in fit.h does not need it).
Result<ParallelEvaluation> evaluateParallel(const Network& net, const Strategy& s,
                                            const std::vector<RegionSpec>& manual,
                                            const TrainingConfig& cfg, const ClusterSpec& cluster,
                                            bool withBaseline = true,
                                            const CancelFlag* cancel = nullptr);

// The network of pipeline stage `stage` (of cfg.parallel.pp), as its rank runs it: the
// layer instances [first, first + count) of the network (expanded), the input the previous
// stage sends, no loss before the last stage. `firstLayer`/`layerCount` receive the range.
struct StageNetwork {
    Network network;
    ShardOptions shard;
    std::int64_t firstLayer = 0, layerCount = 0;
};
Result<StageNetwork> stageNetwork(const Network& net, const ParallelConfig& p, std::int64_t stage);

}  // namespace remat
