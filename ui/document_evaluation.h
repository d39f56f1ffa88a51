// How the document evaluates a model, and what it costs. evaluateDocumentModel() is the whole
// pipeline behind every edit — lowering (unless the network's structure is unchanged), shapes,
// plan, compile, simulate and the no-checkpoint baseline (unless cached for these settings) —
// as a plain function of the model, the device and the caches, so that the document can run it
// on the GUI thread or on a worker thread and install the caches it returns only with the
// state they belong to. estimateEvaluation() says, before any of that work and from figures that
// cost microseconds (layer instances, the cached graph's op count, the strategy's kind, the
// accumulation steps), whether an evaluation is cheap enough to run within the frame of the edit
// or must run in the background ("Simulating…", "Planning…" for the optimal planners).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis.h"
#include "cancel.h"
#include "device.h"
#include "graph.h"
#include "kept_activations.h"
#include "model_file.h"
#include "network.h"
#include "parallel_eval.h"
#include "result.h"
#include "timeline_series.h"

class QThreadPool;

namespace remat::ui {

// CPU time the calling thread has used, in milliseconds: edit costs measured with it do not
// depend on what else the machine runs.
double threadCpuMs();

// Everything the views read about the current state. Immutable once built.
struct DocumentState {
    ModelFile model;
    DeviceSpec device;
    std::shared_ptr<const Graph> graph;
    std::vector<Shape> shapes;  // per expanded instance, input first
    Evaluation evaluation;
    KeptActivations kept;
    // What the timeline derives from the program, built with it (off the GUI thread when the
    // evaluation runs in the background).
    std::shared_ptr<const TimelineSeriesInputs> series;
    // Under a parallel layout (model.training.parallel not single): the whole layout's figures,
    // its stages, step time and MFU. `graph` and `evaluation` above are then those of the rank
    // that peaks (moved out of this one, whose own graph and evaluation are empty). Null for
    // one GPU.
    std::shared_ptr<const ParallelEvaluation> parallel;
    ClusterSpec cluster;  // the device's cluster (clusterForDevice): what a layout runs on
    double evaluateMs = 0.0;     // wall time of the evaluation that built this state
    double evaluateCpuMs = 0.0;  // CPU time the evaluating thread spent on it (load-independent)
};

// What evaluations reuse: lowering depends only on (network structure, precision, loss
// implementation); the
// no-checkpoint baseline also on the training settings and the device. Plan edits reuse both.
struct EvaluationCache {
    std::shared_ptr<const Graph> graph;
    Network graphNetwork;
    Precision graphPrecision = Precision::Fp32;
    LossImpl graphLossImpl = LossImpl::Standard;
    std::optional<Baseline> baseline;
    TrainingConfig baselineTraining;
    std::string baselineDevice;
    std::shared_ptr<const Graph> baselineGraph;
};

struct EvaluationOutcome {
    std::shared_ptr<const DocumentState> state;
    EvaluationCache cache;  // `cache` updated with what this evaluation computed
};

// Evaluates `model` on `device`; a model whose layout is not a single GPU goes through
// evaluateParallel on the device's cluster (clusterForDevice) and shows the rank that peaks. `cancel`, set from another thread, stops the work early: the
// result is then the error kCancelledMessage. The baseline, when it is not cached, is simulated
// at the same time on `helperPool` (null: Qt's global pool).
Result<EvaluationOutcome> evaluateDocumentModel(const ModelFile& model, const DeviceSpec& device,
                                                const EvaluationCache& cache,
                                                const CancelFlag* cancel = nullptr,
                                                QThreadPool* helperPool = nullptr);

// Whether an evaluation fits in the edit's frame, and if not, what the long part is.
enum class EvaluationWork { Cheap, Simulating, Planning };

struct EvaluationEstimate {
    EvaluationWork work = EvaluationWork::Cheap;
    std::int64_t instructions = 0;  // compile + simulate, the baseline's included when not cached
    std::int64_t ops = 0;           // of the lowered network (estimated unless cached)
    std::int64_t chainUnits = 0;    // layer instances: what the optimal planners' tables grow with
};

// Above these an evaluation runs in the background. On the project's 2-core machine 300,000
// instructions compile and simulate in 40–60 ms, 30,000 ops lower in about as much, and the
// single-level optimal planner solves 200 chain elements in 20–30 ms (docs/performance.md).
inline constexpr std::int64_t kCheapInstructions = 300000;
inline constexpr std::int64_t kCheapLoweredOps = 30000;
inline constexpr std::int64_t kCheapPlannerUnits = 200;

EvaluationEstimate estimateEvaluation(const ModelFile& model, const std::string& deviceId,
                                      const EvaluationCache& cache);

}  // namespace remat::ui
