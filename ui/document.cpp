#include "document.h"

#include <QEventLoop>
#include <QFileInfo>
#include <utility>
#include <QFutureWatcher>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include "background_priority.h"
#include "layer_numbering.h"
#include "lower.h"
#include "model_command.h"
#include "plan_edit.h"
#include "qt_convert.h"

namespace remat::ui {

namespace {

// The model format's limit on a network's or a layer's name (docs/model-format.md): a longer
// one would be saved into a file that no longer opens.
constexpr std::size_t kMaxNameBytes = 256;

// No plan form that holds nothing: an emptied manual plan is "no plan".
void normalizePlanForm(ModelFile& m) {
    if (m.planForm == PlanForm::PerLayer &&
        std::none_of(m.network.layers.begin(), m.network.layers.end(),
                     [](const Layer& l) { return l.checkpoint; }))
        m.planForm = PlanForm::None;
    if (m.planForm == PlanForm::Regions && m.regions.empty()) m.planForm = PlanForm::None;
    if (m.planForm != PlanForm::PerLayer)
        for (Layer& l : m.network.layers) l.checkpoint = false;
    if (m.planForm != PlanForm::Regions) m.regions.clear();
    if (m.planForm != PlanForm::Strategy) m.planStrategy.clear();
}

// The model a fresh window shows when even the built-in default cannot be read (it always can
// in a correct build; this keeps the document valid regardless).
ModelFile minimalModel() {
    ModelFile m;
    m.network.name = "untitled";
    m.network.input.shape = {1024};
    Layer linear;
    linear.kind = LayerKind::Linear;
    linear.out = 1024;
    Layer loss;
    loss.kind = LayerKind::Mse;
    m.network.layers = {linear, loss};
    m.training.microBatch = 64;
    return m;
}

// Undo texts name layers as the stack numbers them; a layer's name comes from the file
// (escaped, cut).
QString layerText(const Network& net, std::size_t entry) {
    return LayerNumbering(net).entryName(entry);
}

// Expensive evaluations run one at a time on a thread of their own: a superseded one finishes
// the step it is on while the next waits, so a burst of edits (a slider dragged) plans only the
// latest. The baseline beside it gets a second thread. Both give way to the GUI thread.
QThreadPool* evaluationPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

QThreadPool* evaluationHelperPool() {
    static QThreadPool* pool = newSerialPool();
    return pool;
}

}  // namespace

Document::Document(QObject* parent) : QObject(parent) {
    connect(&m_undo, &QUndoStack::indexChanged, this, &Document::historyChanged);
    connect(&m_undo, &QUndoStack::cleanChanged, this, &Document::historyChanged);
    for (const char* name : {"gpt2-small", "mlp-3x1024"}) {
        auto m = loadModel(name);
        if (!m) continue;
        auto s = evaluateModel(*m);
        if (s) {
            m_state = *s;
            return;
        }
    }
    auto s = evaluateModel(minimalModel());
    if (s) {
        m_state = *s;
        return;
    }
    auto empty = std::make_shared<DocumentState>();
    empty->graph = std::make_shared<Graph>();
    m_state = empty;
}

Document::~Document() {
    // A job still running finishes on its own thread; its result has nowhere to go.
    if (m_job) m_job->cancel->store(true);
    // Commands refer back to this document; drop them before members go away. Silently: the
    // views connected to the stack may be half destroyed already (the document is usually
    // deleted as a child of the main window).
    m_undo.blockSignals(true);
    m_undo.clear();
}

std::int64_t Document::rankFirstInstance() const {
    const ParallelEvaluation* pe = m_state->parallel.get();
    if (!pe || pe->peakStage >= pe->stages.size()) return 0;
    return pe->stages[pe->peakStage].firstLayer;
}

QString Document::strategySpelling() const {
    return toQString(defaultStrategy(m_state->model));
}

QString Document::displayName() const {
    // Escaped and cut: it titles the window and fills messages, and a name from a file may
    // hold control characters or megabytes.
    if (!m_filePath.isEmpty()) return printableText(QFileInfo(m_filePath).fileName());
    if (!m_state->model.network.name.empty()) return printableText(m_state->model.network.name);
    return tr("untitled");
}

namespace {

// `m` with its named strategy (or none) cleared; a manual plan is kept, since hand-made regions
// are work a person would not want to lose unasked.
ModelFile withoutNamedStrategy(ModelFile m) {
    if (m.planForm == PlanForm::None || m.planForm == PlanForm::Strategy) {
        m.planForm = PlanForm::None;
        m.planStrategy.clear();
    }
    return m;
}

}  // namespace

bool Document::isModified() const {
    if (m_recovered) return true;
    if (m_undo.isClean()) return false;
    // A preset whose only change is the named strategy chosen for it has nothing to save.
    return !(m_presetOpened &&
             withoutNamedStrategy(m_state->model) == withoutNamedStrategy(m_cleanModel));
}

Result<DeviceSpec> Document::resolveDevice(const ModelFile& model) const {
    const std::string id = model.device.empty() ? toStdString(m_fallbackDeviceId) : model.device;
    auto d = findDevice(id);
    if (!d) return makeError("device profile: " + d.error().message);
    return d;
}

Result<std::shared_ptr<const DocumentState>> Document::evaluateModel(const ModelFile& model) {
    auto device = resolveDevice(model);
    if (!device) return device.error();
    auto outcome = evaluateDocumentModel(model, *device, m_cache);
    if (!outcome) return outcome.error();
    m_cache = std::move(outcome->cache);
    return std::move(outcome->state);
}

EvaluationEstimate Document::estimate(const ModelFile& model) const {
    const std::string id = model.device.empty() ? toStdString(m_fallbackDeviceId) : model.device;
    EvaluationEstimate e = estimateEvaluation(model, id, m_cache);
    if (!m_background) e.work = EvaluationWork::Cheap;
    return e;
}

QString Document::busyText() const {
    if (!m_job) return {};
    return m_jobWork == EvaluationWork::Planning ? tr("Planning…") : tr("Simulating…");
}

qint64 Document::busyMs() const {
    return m_job ? m_jobClock.elapsed() : 0;
}

void Document::startJob(Job job, EvaluationWork work) {
    // An undo or redo superseded by another keeps the index of the state last accepted.
    if (job.kind == Job::Kind::Restore && m_job && m_job->kind == Job::Kind::Restore)
        job.undoIndex = m_job->undoIndex;
    const bool wasBusy = m_job != nullptr;
    if (m_job) m_job->cancel->store(true);
    job.id = m_nextJobId++;
    job.cancel = std::make_shared<CancelFlag>(false);
    m_job = std::make_unique<Job>(std::move(job));
    m_jobWork = work;
    m_jobClock.start();

    auto device = resolveDevice(m_job->model);
    auto* watcher = new QFutureWatcher<Result<EvaluationOutcome>>(this);
    const quint64 id = m_job->id;
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id] {
        watcher->deleteLater();
        finishJob(id, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run(
        evaluationPool(),
        [model = m_job->model, device, cache = m_cache,
         cancel = m_job->cancel]() -> Result<EvaluationOutcome> {
            lowerThreadPriority();
            if (cancelRequested(cancel.get())) return makeError(kCancelledMessage);
            if (!device) return device.error();
            return evaluateDocumentModel(model, *device, cache, cancel.get(),
                                         evaluationHelperPool());
        }));
    if (!wasBusy) emit busyChanged(true);
}

void Document::finishJob(quint64 id, Result<EvaluationOutcome> outcome) {
    if (!m_job || m_job->id != id) return;  // superseded or cancelled: dropped
    const Job job = std::move(*m_job);
    m_job.reset();
    m_jobWork = EvaluationWork::Cheap;
    if (!outcome) {
        m_lastJobError = outcome.error();
        const QString message = toQString(outcome.error().message);
        switch (job.kind) {
            case Job::Kind::Edit:
                emit editRejected(message);
                emit editRefused(job.origin.data(), message);
                break;
            case Job::Kind::Open: {
                const QString where =
                    job.filePath.isEmpty() ? QString() : job.filePath + QStringLiteral(": ");
                emit openFailed(where + message);
                break;
            }
            case Job::Kind::Restore: {
                // As in restore(): a state that evaluated once evaluates again unless a device
                // profile vanished. The undo step is taken back.
                m_settingUndoIndex = true;
                m_undo.setIndex(job.undoIndex);
                m_settingUndoIndex = false;
                emit editRejected(message);
                break;
            }
        }
        emit busyChanged(false);
        return;
    }
    m_cache = std::move(outcome->cache);
    switch (job.kind) {
        case Job::Kind::Edit:
            m_pending = outcome->state;
            acceptEdit(job.text, job.model, job.mergeId);
            break;
        case Job::Kind::Open:
            acceptOpen(outcome->state, job.filePath, job.preset, job.recovered);
            break;
        case Job::Kind::Restore:
            m_pending.reset();
            install(outcome->state);
            break;
    }
    emit busyChanged(false);
}

void Document::dropJob(bool takeBackUndo, bool notify) {
    if (!m_job) return;
    m_job->cancel->store(true);
    const Job job = std::move(*m_job);
    m_job.reset();
    m_jobWork = EvaluationWork::Cheap;
    m_lastJobError = makeError(kCancelledMessage);
    if (takeBackUndo && job.kind == Job::Kind::Restore) {
        m_settingUndoIndex = true;
        m_undo.setIndex(job.undoIndex);
        m_settingUndoIndex = false;
    }
    if (notify) emit busyChanged(false);
}

void Document::cancelEvaluation() {
    dropJob(true, true);
}

Status Document::waitUntilIdle() {
    if (!m_job) return Ok{};
    m_lastJobError.reset();
    QEventLoop loop;
    connect(this, &Document::busyChanged, &loop, [this, &loop] {
        if (!m_job) loop.quit();
    });
    loop.exec();
    if (m_lastJobError) return *m_lastJobError;
    return Ok{};
}

void Document::install(std::shared_ptr<const DocumentState> state) {
    // A new layout lowers a different rank (its own stage, sharded): the layer stack's modules
    // come from that graph.
    const bool networkChanged =
        !m_state || !sameStructure(m_state->model.network, state->model.network) ||
        m_state->model.training.parallel != state->model.training.parallel;
    m_state = std::move(state);
    if (networkChanged) emit networkReplaced();
    emit changed();
}

Status Document::check(const ModelFile& candidate) {
    ModelFile m = candidate;
    normalizePlanForm(m);
    auto s = evaluateModel(m);
    if (!s) return s.error();
    return Ok{};
}

Status Document::openModel(const ModelFile& model, const QString& filePath) {
    return openOrRecover(model, filePath, false);
}

Status Document::openOrRecover(const ModelFile& model, const QString& filePath, bool recovered) {
    const bool preset = std::exchange(m_openingPreset, false);
    ModelFile m = model;
    normalizePlanForm(m);
    const EvaluationEstimate cost = estimate(m);
    if (cost.work != EvaluationWork::Cheap) {
        Job job;
        job.kind = Job::Kind::Open;
        job.model = std::move(m);
        job.filePath = filePath;
        job.preset = preset;
        job.recovered = recovered;
        dropJob(true, false);
        startJob(std::move(job), cost.work);
        return Ok{};
    }
    auto s = evaluateModel(m);
    if (!s) {
        const std::string where = filePath.isEmpty() ? std::string() : toStdString(filePath) + ": ";
        return makeError(where + s.error().message);
    }
    dropJob(true, true);
    acceptOpen(*s, filePath, preset, recovered);
    return Ok{};
}

void Document::acceptOpen(std::shared_ptr<const DocumentState> state, const QString& filePath, bool preset,
                          bool recovered) {
    m_undo.clear();
    m_recovered = recovered;
    m_filePath = filePath;
    m_presetOpened = preset && filePath.isEmpty() && !recovered;
    install(std::move(state));
    m_cleanModel = m_state->model;
    m_undo.setClean();
    emit filePathChanged(m_filePath);
    emit modelReplaced();
    if (!recovered) emit opened();
}

Status Document::open(const QString& pathOrPreset) {
    auto m = loadModel(toStdString(pathOrPreset));
    if (!m) return m.error();
    const bool isPreset = !QFileInfo::exists(pathOrPreset);
    m_openingPreset = isPreset;  // taken by openOrRecover, carried to acceptOpen
    return openModel(*m, isPreset ? QString() : QFileInfo(pathOrPreset).absoluteFilePath());
}

Status Document::recover(const ModelFile& model, const QString& filePath) {
    auto st = openOrRecover(model, filePath, true);
    if (!st) return st;
    if (!isBusy()) emit changed();  // isModified() is true now
    return Ok{};
}

Status Document::openUnsaved(const ModelFile& model) { return recover(model, QString()); }

Status Document::save(const QString& path) {
    auto st = saveModel(m_state->model, toStdString(path));
    if (!st) return st;
    m_filePath = QFileInfo(path).absoluteFilePath();
    m_recovered = false;
    m_presetOpened = false;
    m_cleanModel = m_state->model;
    m_undo.setClean();
    emit filePathChanged(m_filePath);
    emit changed();
    return Ok{};
}

void Document::restore(const ModelFile& model) {
    if (m_settingUndoIndex) return;  // an undo step taken back: the state never changed
    std::shared_ptr<const DocumentState> next;
    if (m_pending && m_pending->model == model) {
        next = std::move(m_pending);
    } else {
        if (const EvaluationEstimate cost = estimate(model); cost.work != EvaluationWork::Cheap) {
            // An undo or redo of an expensive state: the stack moves now, the state follows.
            // Any edit in flight was made from the state this step leaves: dropped.
            Job job;
            job.kind = Job::Kind::Restore;
            job.model = model;
            job.undoIndex = m_undo.index();
            if (m_job && m_job->kind != Job::Kind::Restore) dropJob(false, false);
            startJob(std::move(job), cost.work);
            return;
        }
        // This step settles the undo stack: whatever was in flight is dropped as it stands.
        dropJob(false, true);
        auto s = evaluateModel(model);
        if (!s) {
            // A state that evaluated once evaluates again; reaching here means a device
            // profile vanished. Say so rather than show a stale picture silently.
            emit editRejected(toQString(s.error().message));
            return;
        }
        next = *s;
    }
    m_pending.reset();
    install(std::move(next));
}

Status Document::reject(const Error& e) {
    const QString message = toQString(e.message);
    emit editRejected(message);
    emit editRefused(m_origin.data(), message);
    return e;
}

Status Document::pushEdit(const QString& text, ModelFile after, int mergeId) {
    normalizePlanForm(after);
    if (after == m_state->model) {
        // Back to the accepted state (a field typed back while its edit was evaluated).
        if (m_job && m_job->kind == Job::Kind::Edit) dropJob(false, true);
        return Ok{};
    }
    if (const EvaluationEstimate cost = estimate(after); cost.work != EvaluationWork::Cheap) {
        Job job;
        job.kind = Job::Kind::Edit;
        job.model = std::move(after);
        job.text = text;
        job.mergeId = mergeId;
        job.origin = m_origin;
        dropJob(true, false);
        startJob(std::move(job), cost.work);
        return Ok{};
    }
    auto s = evaluateModel(after);
    if (!s) return reject(s.error());
    dropJob(true, true);
    m_pending = *s;
    acceptEdit(text, after, mergeId);
    return Ok{};
}

void Document::acceptEdit(const QString& text, const ModelFile& after, int mergeId) {
    m_undo.push(new ModelCommand(this, text, m_state->model, after,
                                 static_cast<EditMergeId>(mergeId)));
}

Status Document::setStrategy(const QString& spelling) {
    auto s = parseStrategy(toStdString(spelling));
    if (!s) return reject(s.error());
    ModelFile after = m_state->model;
    if (s->kind == StrategyKind::Manual) {
        auto regions = currentRegions();
        if (!regions) return reject(regions.error());
        storeManualPlan(after, *regions);
    } else {
        for (Layer& l : after.network.layers) l.checkpoint = false;
        after.regions.clear();
        after.planForm = s->kind == StrategyKind::None ? PlanForm::None : PlanForm::Strategy;
        after.planStrategy = s->kind == StrategyKind::None ? std::string() : s->spelling();
    }
    const int merge = s->kind == StrategyKind::EveryK ? int(EditMergeId::EveryK) : -1;
    return pushEdit(tr("Strategy %1").arg(toQString(s->spelling())), std::move(after), merge);
}

Status Document::setMicroBatch(std::int64_t n) {
    ModelFile after = m_state->model;
    after.training.microBatch = n;
    return pushEdit(tr("Micro-batch %1").arg(n), std::move(after), int(EditMergeId::MicroBatch));
}

Status Document::setAccumulationSteps(std::int64_t n) {
    ModelFile after = m_state->model;
    after.training.accumulationSteps = n;
    return pushEdit(tr("Accumulation steps %1").arg(n), std::move(after),
                    int(EditMergeId::AccumulationSteps));
}

Status Document::setPrecision(Precision p) {
    ModelFile after = m_state->model;
    after.training.precision = p;
    return pushEdit(tr("Precision %1").arg(toQString(precisionName(p))), std::move(after));
}

Status Document::setOptimizer(Optimizer o) {
    ModelFile after = m_state->model;
    after.training.optimizer = o;
    return pushEdit(tr("Optimizer %1").arg(toQString(optimizerName(o))), std::move(after));
}

Status Document::setPreserveRngState(bool preserve) {
    ModelFile after = m_state->model;
    after.training.preserveRngState = preserve;
    return pushEdit(preserve ? tr("Preserve the RNG state") : tr("Do not preserve the RNG state"),
                    std::move(after));
}

Status Document::setDeviceId(const QString& id) {
    ModelFile after = m_state->model;
    after.device = toStdString(id);
    return pushEdit(tr("Device %1").arg(id), std::move(after));
}

Status Document::setParallel(const ParallelConfig& layout) {
    if (auto st = validateLayout(m_state->model.network, layout); !st) return reject(st.error());
    ModelFile after = m_state->model;
    after.training.parallel = layout;
    return pushEdit(tr("Layout %1").arg(toQString(describeLayout(layout))), std::move(after));
}

Status Document::setCluster(const QString& clusterId) {
    auto c = findCluster(toStdString(clusterId));
    if (!c) return reject(makeError("cluster: " + c.error().message));
    ModelFile after = m_state->model;
    after.device = c->device.id;
    return pushEdit(tr("Cluster %1").arg(printableText(c->name)), std::move(after));
}

Status Document::applyFitCandidate(const FitCandidate& candidate, const QString& deviceId) {
    ModelFile after = m_state->model;
    if (!deviceId.isEmpty()) after.device = toStdString(deviceId);
    after.training.parallel = candidate.layout;
    after.training.microBatch = candidate.microBatch;
    after.training.accumulationSteps = candidate.accumulation;
    for (Layer& l : after.network.layers) l.checkpoint = false;
    after.regions.clear();
    const bool none = candidate.strategy.kind == StrategyKind::None;
    after.planForm = none ? PlanForm::None : PlanForm::Strategy;
    after.planStrategy = none ? std::string() : candidate.strategy.spelling();
    return pushEdit(tr("Apply %1, %2, micro-batch %3 x %4")
                        .arg(toQString(describeLayout(candidate.layout)),
                             toQString(candidate.strategy.spelling()))
                        .arg(candidate.microBatch)
                        .arg(candidate.accumulation),
                    std::move(after));
}

Status Document::setInput(const InputSpec& input) {
    ModelFile after = m_state->model;
    after.network.input = input;
    return pushEdit(tr("Edit input"), std::move(after));
}

Status Document::setNetworkName(const QString& name) {
    ModelFile after = m_state->model;
    after.network.name = toStdString(name);
    if (after.network.name.size() > kMaxNameBytes)
        return reject(makeError(tr("a name may be at most %1 bytes (this one has %2)")
                                    .arg(qulonglong(kMaxNameBytes))
                                    .arg(qulonglong(after.network.name.size()))
                                    .toStdString()));
    return pushEdit(tr("Rename network"), std::move(after), int(EditMergeId::NetworkName));
}

Result<std::vector<RegionSpec>> Document::currentRegions() const {
    const ModelFile& m = m_state->model;
    if (m.planForm == PlanForm::PerLayer || m.planForm == PlanForm::Regions)
        return manualRegions(m);
    return regionSpecsFromPlan(*m_state->graph, m_state->evaluation.program.plan);
}

Status Document::planEdit(const QString& text, const Result<std::vector<RegionSpec>>& regions) {
    if (!regions) return reject(regions.error());
    ModelFile after = m_state->model;
    storeManualPlan(after, *regions);
    return pushEdit(text, std::move(after));
}

namespace {
// A region in undo texts, named as the layer stack numbers its rows: "layer 3 (layernorm)",
// "layers 4–6"; a module path as written.
QString regionText(const Network& net, const RegionSpec& r) {
    if (r.isPath) return toQString(r.path);
    return LayerNumbering(net).range(r.first, r.last);
}
}  // namespace

Status Document::toggleRegion(const RegionSpec& region) {
    auto current = currentRegions();
    if (!current) return reject(current.error());
    return planEdit(tr("Toggle checkpoint %1").arg(regionText(network(), region)),
                    toggleRegionSpec(*m_state->graph, *current, region));
}

Status Document::setRegion(const RegionSpec& region, bool present) {
    auto current = currentRegions();
    if (!current) return reject(current.error());
    const QString text = present ? tr("Checkpoint %1").arg(regionText(network(), region))
                                 : tr("Keep %1").arg(regionText(network(), region));
    return planEdit(text, setRegionSpec(*m_state->graph, *current, region, present));
}

Status Document::mergeRegion(std::int64_t first, std::int64_t last, int* merged) {
    auto current = currentRegions();
    if (!current) return reject(current.error());
    // Grow the range over every whole-layer region it touches until none is left half in.
    std::vector<RegionSpec> kept = *current;
    int count = 0;
    for (bool grew = true; grew;) {
        grew = false;
        for (auto it = kept.begin(); it != kept.end();) {
            if (!it->isPath && it->first <= last && it->last >= first) {
                first = std::min(first, it->first);
                last = std::max(last, it->last);
                it = kept.erase(it);
                ++count;
                grew = true;
            } else {
                ++it;
            }
        }
    }
    if (merged) *merged = count;
    const RegionSpec region{false, first, last, ""};
    const QString text = count > 0 ? tr("Merge into %1").arg(regionText(network(), region))
                                   : tr("Checkpoint %1").arg(regionText(network(), region));
    return planEdit(text, setRegionSpec(*m_state->graph, kept, region, true));
}

Status Document::setEntryCheckpointed(std::size_t entry, bool checkpointed) {
    const Network& net = network();
    if (entry >= net.layers.size()) return reject(makeError("no layer " + std::to_string(entry)));
    auto current = currentRegions();
    if (!current) return reject(current.error());
    std::vector<RegionSpec> specs = *current;
    const std::int64_t first = firstInstanceOf(entry);
    for (std::int64_t k = 0; k < net.layers[entry].repeat; ++k) {
        auto next = setRegionSpec(*m_state->graph, specs,
                                  RegionSpec{false, first + k, first + k, ""}, checkpointed);
        if (!next) return reject(next.error());
        specs = std::move(*next);
    }
    const QString text = checkpointed ? tr("Checkpoint %1").arg(layerText(net, entry))
                                      : tr("Keep %1").arg(layerText(net, entry));
    return planEdit(text, specs);
}

Status Document::clearPlan() {
    ModelFile after = m_state->model;
    storeManualPlan(after, {});
    return pushEdit(tr("Clear plan"), std::move(after));
}

std::int64_t Document::firstInstanceOf(std::size_t entry) const {
    std::int64_t start = 0;
    const auto& layers = network().layers;
    for (std::size_t e = 0; e < entry && e < layers.size(); ++e) start += layers[e].repeat;
    return start;
}

std::size_t Document::entryOfInstance(std::int64_t instance) const {
    std::int64_t start = 0;
    const auto& layers = network().layers;
    for (std::size_t e = 0; e < layers.size(); ++e) {
        if (instance < start + layers[e].repeat) return e;
        start += layers[e].repeat;
    }
    return layers.empty() ? 0 : layers.size() - 1;
}

Status Document::layerListEdit(const QString& text, ModelFile after,
                               const std::vector<int>& entryMap) {
    const ModelFile& before = m_state->model;
    if (before.planForm == PlanForm::Regions) {
        after.regions =
            remapRegionSpecs(before.regions, instanceMap(before.network, after.network, entryMap));
        // A sub-module region whose layer changed kind no longer has a module to name.
        if (auto g = lower(after.network, after.training))
            after.regions = resolvableSpecs(*g, after.regions);
    }
    return pushEdit(text, std::move(after));
}

Status Document::insertLayer(std::size_t position, const Layer& layer) {
    const ModelFile& before = m_state->model;
    position = std::min(position, before.network.layers.size());
    ModelFile after = before;
    Layer l = layer;
    l.checkpoint = false;
    after.network.layers.insert(after.network.layers.begin() + std::ptrdiff_t(position), l);
    std::vector<int> map;
    for (std::size_t e = 0; e < before.network.layers.size(); ++e)
        map.push_back(int(e < position ? e : e + 1));
    return layerListEdit(tr("Add %1").arg(toQString(layerKindName(l.kind))), std::move(after), map);
}

Status Document::removeLayers(std::vector<std::size_t> entries) {
    const ModelFile& before = m_state->model;
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](std::size_t e) { return e >= before.network.layers.size(); }),
                  entries.end());
    if (entries.empty()) return Ok{};
    ModelFile after = before;
    after.network.layers.clear();
    std::vector<int> map;
    for (std::size_t e = 0; e < before.network.layers.size(); ++e) {
        if (std::binary_search(entries.begin(), entries.end(), e)) {
            map.push_back(-1);
        } else {
            map.push_back(int(after.network.layers.size()));
            after.network.layers.push_back(before.network.layers[e]);
        }
    }
    const QString text = entries.size() == 1
                             ? tr("Remove %1").arg(layerText(before.network, entries[0]))
                             : tr("Remove %n layers", nullptr, int(entries.size()));
    return layerListEdit(text, std::move(after), map);
}

Status Document::duplicateLayer(std::size_t entry) {
    const ModelFile& before = m_state->model;
    if (entry >= before.network.layers.size()) return Ok{};
    ModelFile after = before;
    after.network.layers.insert(after.network.layers.begin() + std::ptrdiff_t(entry) + 1,
                                before.network.layers[entry]);
    std::vector<int> map;
    for (std::size_t e = 0; e < before.network.layers.size(); ++e)
        map.push_back(int(e <= entry ? e : e + 1));
    return layerListEdit(tr("Duplicate %1").arg(layerText(before.network, entry)), std::move(after),
                         map);
}

Status Document::moveLayer(std::size_t from, std::size_t to) {
    const ModelFile& before = m_state->model;
    const std::size_t n = before.network.layers.size();
    if (from >= n || to >= n || from == to) return Ok{};
    std::vector<std::size_t> order;
    for (std::size_t e = 0; e < n; ++e)
        if (e != from) order.push_back(e);
    order.insert(order.begin() + std::ptrdiff_t(to), from);
    ModelFile after = before;
    std::vector<int> map(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        after.network.layers[i] = before.network.layers[order[i]];
        map[order[i]] = int(i);
    }
    return layerListEdit(tr("Move %1").arg(layerText(before.network, from)), std::move(after), map);
}

Status Document::replaceLayer(std::size_t entry, const Layer& layer) {
    const ModelFile& before = m_state->model;
    if (entry >= before.network.layers.size()) return reject(makeError("no such layer"));
    if (layer.name.size() > kMaxNameBytes)
        return reject(makeError(tr("a name may be at most %1 bytes (this one has %2)")
                                    .arg(qulonglong(kMaxNameBytes))
                                    .arg(qulonglong(layer.name.size()))
                                    .toStdString()));
    ModelFile after = before;
    Layer l = layer;
    l.checkpoint = before.network.layers[entry].checkpoint;
    after.network.layers[entry] = l;
    std::vector<int> map;
    for (std::size_t e = 0; e < before.network.layers.size(); ++e) map.push_back(int(e));
    return layerListEdit(tr("Edit %1").arg(layerText(before.network, entry)), std::move(after),
                         map);
}

}  // namespace remat::ui
