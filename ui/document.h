// The model being edited in Remat Studio: a ModelFile (network, plan, training settings,
// device profile name) with its file path, an undo stack on which every edit is one command,
// and the evaluation of the current state (lowered graph, plan, program, timeline, baseline).
// An edit is evaluated before it is accepted: one that the simulator rejects (a shape that
// does not fit, a plan with partially overlapping regions) is refused with a message and the
// current model stays as it was. Opening a file, undo and redo work the same way.
//
// Cheap evaluations — every preset's edits — run synchronously, so that the views redraw
// within the frame of the edit. An expensive one (estimateEvaluation: a program of hundreds of
// thousands of instructions, a large network to lower, the optimal planner on a long chain)
// runs on a worker thread instead: the edit call returns at once, isBusy() is true and the
// window stays responsive; when the evaluation succeeds the edit is accepted exactly as a cheap
// one (pushed on the undo stack, changed() emitted), when it fails it is refused with its
// message (editRejected, or openFailed for a file). Only accepted edits reach the undo stack.
// Edits made meanwhile start from the accepted state and supersede the one in flight, whose
// result is dropped; cancelEvaluation() drops it too. Either way the document stays in (or, for
// an undo or redo in flight, returns to) the last accepted state, undo stack included.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUndoStack>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "analysis.h"
#include "device.h"
#include "document_evaluation.h"
#include "fit.h"
#include "graph.h"
#include "kept_activations.h"
#include "model_file.h"
#include "network.h"
#include "result.h"
#include "strategy.h"

namespace remat::ui {

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // --- whole-model operations (not undoable: they start a new history) ---
    // A built-in preset ("gpt2-small") or a file path. On error the current model is kept.
    // A model too large to evaluate within a frame opens in the background: Ok then means it
    // is being evaluated (isBusy()), and a failure comes later as openFailed().
    Status open(const QString& pathOrPreset);
    Status openModel(const ModelFile& model, const QString& filePath);
    Status save(const QString& path);
    // Reloads a model (autosave recovery) as unsaved work belonging to `filePath`.
    Status recover(const ModelFile& model, const QString& filePath);
    // A model made elsewhere (a Hugging Face import) as a new, unsaved document with no file:
    // a new history, as when opening a file, and Save asks where to write it.
    Status openUnsaved(const ModelFile& model);

    // Device profile used when the model names none (the last one the user picked).
    void setFallbackDeviceId(const QString& id) { m_fallbackDeviceId = id; }

    // --- read access ---
    const DocumentState& state() const { return *m_state; }
    // Shared ownership of the current state, for views that keep pointers into it (the
    // timeline) without copying: a state never changes once built.
    std::shared_ptr<const DocumentState> stateHandle() const { return m_state; }
    const ModelFile& model() const { return m_state->model; }
    const Network& network() const { return m_state->model.network; }
    const Graph& graph() const { return *m_state->graph; }
    const Evaluation& evaluation() const { return m_state->evaluation; }
    const DeviceSpec& device() const { return m_state->device; }
    // The cluster a parallel layout runs on: the built-in one made of the device.
    const ClusterSpec& cluster() const { return m_state->cluster; }
    // The whole layout's figures when it is not a single GPU, else null.
    const ParallelEvaluation* parallel() const { return m_state->parallel.get(); }
    // The network's layer instance that is the first of graph()'s: under pipeline parallelism
    // the rank shown holds the instances [rankFirstInstance(), + graph().layerModules.size()).
    std::int64_t rankFirstInstance() const;
    QString strategySpelling() const;
    QString filePath() const { return m_filePath; }
    // The file name, else the model's name, escaped and cut for display (printableText).
    QString displayName() const;
    bool isModified() const;
    QUndoStack* undoStack() { return &m_undo; }
    // Milliseconds the last evaluation took (lowering when needed, plan, compile, simulate).
    double lastEvaluateMs() const { return m_state->evaluateMs; }

    // --- evaluation in the background ---
    // An evaluation is running on a worker thread: the edit, file or undo step it belongs to is
    // not accepted yet.
    bool isBusy() const { return m_job != nullptr; }
    // What the running evaluation mostly does (Cheap when none runs).
    EvaluationWork busyWork() const { return m_jobWork; }
    // "Simulating…", "Planning…"; empty when idle.
    QString busyText() const;
    // Milliseconds since the running evaluation started (0 when idle).
    qint64 busyMs() const;
    // Drops the running evaluation: the document stays in its last accepted state (an undo or
    // redo in flight is taken back on the undo stack). Does nothing when idle.
    void cancelEvaluation();
    // Runs the event loop until no evaluation is in flight (headless jobs and the screenshot
    // mode need the result before going on). The error is that of the evaluation that ended,
    // when it was refused or cancelled.
    Status waitUntilIdle();
    // Off: every evaluation runs on the GUI thread whatever it costs, as before evaluations
    // could run in the background (the benchmark's "before" figures). On by default.
    void setBackgroundEvaluation(bool enabled) { m_background = enabled; }
    bool backgroundEvaluation() const { return m_background; }
    // The estimate an edit to `model` would be judged by.
    EvaluationEstimate estimate(const ModelFile& model) const;

    // Checks a candidate model without changing anything: the message says what is wrong.
    Status check(const ModelFile& candidate);

    // --- edits: each pushes one undo command, or is refused (returns the error, emits
    //     editRejected) leaving the model unchanged ---
    Status setStrategy(const QString& spelling);
    Status setMicroBatch(std::int64_t n);
    Status setAccumulationSteps(std::int64_t n);
    Status setPrecision(Precision p);
    Status setOptimizer(Optimizer o);
    // PyTorch's preserve_rng_state for every region: off, recomputed dropout draws new masks.
    Status setPreserveRngState(bool preserve);
    Status setDeviceId(const QString& id);
    // The GPUs / layout: the parallel layout of the training settings. An invalid one is refused
    // with validateLayout's message naming the field ("parallel.tp: 12 heads are not divisible
    // by tp 8").
    Status setParallel(const ParallelConfig& layout);
    // A built-in cluster: its GPU becomes the device (the cluster follows the device).
    Status setCluster(const QString& clusterId);
    // One `fit` candidate applied at once, as one undo step: layout, strategy, micro-batch and
    // accumulation steps, and the device (`deviceId`, the searched cluster's GPU) when given.
    Status applyFitCandidate(const FitCandidate& candidate, const QString& deviceId = QString());
    Status setInput(const InputSpec& input);
    Status setNetworkName(const QString& name);

    // Plan edits switch the strategy to manual, starting from the plan currently in effect.
    Status toggleRegion(const RegionSpec& region);
    Status setRegion(const RegionSpec& region, bool present);
    // Checkpoints layers first..last as one region (Ctrl+K on several rows), merging into it
    // every whole-layer region that overlaps it: the region grows to cover them and they are
    // replaced, not nested inside it. Regions of sub-modules stay (nested). `merged` receives
    // how many regions were merged.
    Status mergeRegion(std::int64_t first, std::int64_t last, int* merged = nullptr);
    // Checkpoints every instance of entry `entry` (each its own region), or none of them.
    Status setEntryCheckpointed(std::size_t entry, bool checkpointed);
    Status clearPlan();

    Status insertLayer(std::size_t position, const Layer& layer);
    Status removeLayers(std::vector<std::size_t> entries);
    Status duplicateLayer(std::size_t entry);
    Status moveLayer(std::size_t from, std::size_t to);  // `to`: index after removal of `from`
    Status replaceLayer(std::size_t entry, const Layer& layer);

    // First expanded instance index of each entry, and the entry of an instance.
    std::int64_t firstInstanceOf(std::size_t entry) const;
    std::size_t entryOfInstance(std::int64_t instance) const;

    // Used by the undo commands: installs a model that was valid when the command was made.
    void restore(const ModelFile& model);

signals:
    // After every change of the current state (edit, undo, redo, open).
    void changed();
    // The layer list (kinds, order, repeats) may have changed, not only values or the plan.
    void networkReplaced();
    void editRejected(const QString& message);
    // The same refusal, with the object the edit came from (EditOrigin; null when none was
    // named, as for undo and redo): that editor shows its previous value again and the reason
    // beside it (refusal_notice.h). Emitted right after editRejected, also for an edit refused
    // later in the background.
    void editRefused(QObject* origin, const QString& message);
    // The undo history moved (push, undo, redo, clean point): isModified() may have changed.
    // Comes after changed(), since QUndoStack updates its index after running the command.
    void historyChanged();
    void filePathChanged(const QString& path);
    // An evaluation started on, or left, the worker thread (its result applied, refused, dropped
    // or cancelled). Views that show a value the user has just typed re-read the document when
    // it ends without being applied.
    void busyChanged(bool busy);
    // A file whose evaluation ran in the background could not be opened: the message names the
    // file and what is wrong. The current model is unchanged.
    void openFailed(const QString& message);
    // A file or preset was opened (not emitted for autosave recovery).
    void opened();
    // Another model took the current one's place, with a new history: opened, recovered,
    // imported or new (not a save).
    void modelReplaced();

private:
    // What an evaluation in the background will do with its state once it succeeds.
    struct Job {
        enum class Kind { Edit, Open, Restore } kind = Kind::Edit;
        quint64 id = 0;
        ModelFile model;
        QString text;            // Edit: the undo text
        int mergeId = -1;        // Edit
        QString filePath;        // Open
        bool recovered = false;  // Open: autosave recovery
        bool preset = false;     // Open: a built-in preset
        int undoIndex = 0;       // Restore: the undo index of the last accepted state
        std::shared_ptr<CancelFlag> cancel;
        QPointer<QObject> origin;  // Edit: the editor it came from
    };

    Result<std::shared_ptr<const DocumentState>> evaluateModel(const ModelFile& model);
    Status pushEdit(const QString& text, ModelFile after, int mergeId = -1);
    Status reject(const Error& e);
    Status layerListEdit(const QString& text, ModelFile after, const std::vector<int>& entryMap);
    Result<std::vector<RegionSpec>> currentRegions() const;
    Status planEdit(const QString& text, const Result<std::vector<RegionSpec>>& regions);
    Result<DeviceSpec> resolveDevice(const ModelFile& model) const;
    void install(std::shared_ptr<const DocumentState> state);
    Status openOrRecover(const ModelFile& model, const QString& filePath, bool recovered);
    void acceptEdit(const QString& text, const ModelFile& after, int mergeId);
    void acceptOpen(std::shared_ptr<const DocumentState> state, const QString& filePath, bool preset,
                    bool recovered);
    // Starts `job` on the worker thread, superseding the one in flight.
    void startJob(Job job, EvaluationWork work);
    void finishJob(quint64 id, Result<EvaluationOutcome> outcome);
    // Drops the evaluation in flight (its result will be ignored); with `takeBackUndo`, an undo
    // or redo it was evaluating is taken back on the undo stack. Emits busyChanged(false) when
    // `notify`.
    void dropJob(bool takeBackUndo, bool notify);

    friend class EditOrigin;
    QPointer<QObject> m_origin;  // the editor of the edit being made (EditOrigin)

    std::shared_ptr<const DocumentState> m_state;
    // The state an edit computed while being checked, so that pushing it does not evaluate twice.
    std::shared_ptr<const DocumentState> m_pending;
    QUndoStack m_undo;
    QString m_filePath;
    bool m_recovered = false;  // recovered or imported: unsaved although the history is empty
    // A built-in preset as opened (no file): choosing another named strategy for it is
    // exploring, not an edit worth a save prompt (see isModified).
    bool m_presetOpened = false;
    bool m_openingPreset = false;  // open() of a preset in progress
    ModelFile m_cleanModel;  // the model as opened or last saved
    QString m_fallbackDeviceId = QStringLiteral("a100-80gb");
    EvaluationCache m_cache;
    std::unique_ptr<Job> m_job;  // the evaluation in flight
    EvaluationWork m_jobWork = EvaluationWork::Cheap;
    QElapsedTimer m_jobClock;
    quint64 m_nextJobId = 1;
    bool m_settingUndoIndex = false;  // taking an undo step back: restore() does nothing
    std::optional<Error> m_lastJobError;
    bool m_background = true;  // why the last background evaluation was not applied
};

// Names the editor of the edits made while it lives (a spin box, the layer stack's tree):
//     EditOrigin origin(*m_document, m_microBatch);
//     m_document->setMicroBatch(v);
// A refusal, now or once a background evaluation fails, is announced with it (editRefused).
class EditOrigin {
public:
    EditOrigin(Document& document, QObject* origin)
        : m_document(document), m_previous(document.m_origin) {
        document.m_origin = origin;
    }
    ~EditOrigin() { m_document.m_origin = m_previous; }
    EditOrigin(const EditOrigin&) = delete;
    EditOrigin& operator=(const EditOrigin&) = delete;

private:
    Document& m_document;
    QPointer<QObject> m_previous;
};

}  // namespace remat::ui
