// The model being edited in Remat Studio: a ModelFile (network, plan, training settings,
// device profile name) with its file path, an undo stack on which every edit is one command,
// and the evaluation of the current state (lowered graph, plan, program, timeline, baseline),
// recomputed synchronously after each edit so that views redraw within the same frame.
// An edit is evaluated before it is accepted: one that the simulator rejects (a shape that
// does not fit, a plan with partially overlapping regions) is refused with a message and the
// current model stays as it was. Opening a file works the same way.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "analysis.h"
#include "device.h"
#include "graph.h"
#include "kept_activations.h"
#include "model_file.h"
#include "network.h"
#include "result.h"
#include "strategy.h"

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
    double evaluateMs = 0.0;     // wall time of the evaluation that built this state
    double evaluateCpuMs = 0.0;  // CPU time the GUI thread spent on it (load-independent)
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // --- whole-model operations (not undoable: they start a new history) ---
    // A built-in preset ("gpt2-small") or a file path. On error the current model is kept.
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
    QString strategySpelling() const;
    QString filePath() const { return m_filePath; }
    // The file name, else the model's name, escaped and cut for display (printableText).
    QString displayName() const;
    bool isModified() const;
    QUndoStack* undoStack() { return &m_undo; }
    // Milliseconds the last evaluation took (lowering when needed, plan, compile, simulate).
    double lastEvaluateMs() const { return m_state->evaluateMs; }

    // Checks a candidate model without changing anything: the message says what is wrong.
    Status check(const ModelFile& candidate);

    // --- edits: each pushes one undo command, or is refused (returns the error, emits
    //     editRejected) leaving the model unchanged ---
    Status setStrategy(const QString& spelling);
    Status setMicroBatch(std::int64_t n);
    Status setAccumulationSteps(std::int64_t n);
    Status setPrecision(Precision p);
    Status setOptimizer(Optimizer o);
    Status setDeviceId(const QString& id);
    Status setInput(const InputSpec& input);
    Status setNetworkName(const QString& name);

    // Plan edits switch the strategy to manual, starting from the plan currently in effect.
    Status toggleRegion(const RegionSpec& region);
    Status setRegion(const RegionSpec& region, bool present);
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
    // The undo history moved (push, undo, redo, clean point): isModified() may have changed.
    // Comes after changed(), since QUndoStack updates its index after running the command.
    void historyChanged();
    void filePathChanged(const QString& path);

private:
    Result<std::shared_ptr<const DocumentState>> evaluateModel(const ModelFile& model);
    Status pushEdit(const QString& text, ModelFile after, int mergeId = -1);
    Status reject(const Error& e);
    Status layerListEdit(const QString& text, ModelFile after, const std::vector<int>& entryMap);
    Result<std::vector<RegionSpec>> currentRegions() const;
    Status planEdit(const QString& text, const Result<std::vector<RegionSpec>>& regions);
    Result<DeviceSpec> resolveDevice(const ModelFile& model) const;
    void install(std::shared_ptr<const DocumentState> state);

    std::shared_ptr<const DocumentState> m_state;
    // The state an edit computed while being checked, so that pushing it does not evaluate twice.
    std::shared_ptr<const DocumentState> m_pending;
    QUndoStack m_undo;
    QString m_filePath;
    bool m_recovered = false;  // recovered or imported: unsaved although the history is empty
    QString m_fallbackDeviceId = QStringLiteral("a100-80gb");
    // Caches: lowering depends only on (network, precision); the no-checkpoint baseline also on
    // training and device. Plan edits reuse both.
    std::shared_ptr<const Graph> m_graphCache;
    Network m_graphNetwork;
    Precision m_graphPrecision = Precision::Fp32;
    std::optional<Baseline> m_baselineCache;
    TrainingConfig m_baselineTraining;
    std::string m_baselineDevice;
    std::shared_ptr<const Graph> m_baselineGraph;
};

}  // namespace remat::ui
