#include "document.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <ctime>

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

// Undo texts name layers; a layer's name comes from the file (escaped, cut).
QString layerText(const Network& net, std::size_t entry) {
    return printableText(layerLabel(net, entry));
}

}  // namespace

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

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
    // Commands refer back to this document; drop them before members go away. Silently: the
    // views connected to the stack may be half destroyed already (the document is usually
    // deleted as a child of the main window).
    m_undo.blockSignals(true);
    m_undo.clear();
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

bool Document::isModified() const {
    return !m_undo.isClean() || m_recovered;
}

Result<DeviceSpec> Document::resolveDevice(const ModelFile& model) const {
    const std::string id = model.device.empty() ? toStdString(m_fallbackDeviceId) : model.device;
    auto d = findDevice(id);
    if (!d) return makeError("device profile: " + d.error().message);
    return d;
}

Result<std::shared_ptr<const DocumentState>> Document::evaluateModel(const ModelFile& model) {
    const auto start = std::chrono::steady_clock::now();
    const double startCpu = threadCpuMs();
    auto device = resolveDevice(model);
    if (!device) return device.error();

    std::shared_ptr<const Graph> graph;
    if (m_graphCache && sameStructure(m_graphNetwork, model.network) &&
        m_graphPrecision == model.training.precision) {
        graph = m_graphCache;
    } else {
        auto lowered = lower(model.network, model.training.precision);
        if (!lowered) return lowered.error();
        graph = std::make_shared<const Graph>(std::move(*lowered));
        m_graphCache = graph;
        m_graphNetwork = model.network;
        m_graphPrecision = model.training.precision;
        m_baselineCache.reset();
    }
    auto shapes = inferShapes(model.network);
    if (!shapes) return shapes.error();
    auto strategy = parseStrategy(defaultStrategy(model));
    if (!strategy) return strategy.error();
    const std::vector<RegionSpec> manual = manualRegions(model);

    const bool baselineCached = m_baselineCache && m_baselineGraph == graph &&
                                m_baselineTraining == model.training &&
                                m_baselineDevice == device->id;
    Result<Evaluation> evaluation = makeError("not evaluated");
    if (baselineCached || strategy->kind == StrategyKind::None) {
        evaluation = evaluate(*graph, *strategy, manual, model.training, *device,
                              baselineCached ? &*m_baselineCache : nullptr);
    } else {
        // The baseline (plan `none`) costs as much as the plan itself: run both at once.
        const Graph* g = graph.get();
        const TrainingConfig training = model.training;
        const DeviceSpec d = *device;
        QFuture<Result<Baseline>> baseline =
            QtConcurrent::run([g, training, d] { return evaluateBaseline(*g, training, d); });
        const Baseline placeholder;
        evaluation = evaluate(*graph, *strategy, manual, model.training, *device, &placeholder);
        Result<Baseline> b = baseline.result();
        if (!b) return b.error();
        if (evaluation) {
            evaluation->baselinePeakBytes = b->peakBytes;
            evaluation->baselineTimeS = b->timeS;
            evaluation->baselineSavedActivationBytes = b->savedActivationBytes;
        }
        m_baselineCache = *b;
        m_baselineGraph = graph;
        m_baselineTraining = model.training;
        m_baselineDevice = device->id;
    }
    if (!evaluation) return evaluation.error();
    if (!baselineCached && strategy->kind == StrategyKind::None) {
        m_baselineCache = Baseline{evaluation->baselinePeakBytes, evaluation->baselineTimeS,
                                   evaluation->baselineSavedActivationBytes};
        m_baselineGraph = graph;
        m_baselineTraining = model.training;
        m_baselineDevice = device->id;
    }

    auto state = std::make_shared<DocumentState>();
    state->model = model;
    state->device = std::move(*device);
    state->graph = graph;
    state->shapes = std::move(*shapes);
    state->kept = KeptActivations(*graph, evaluation->program);
    state->evaluation = std::move(*evaluation);
    state->evaluateMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    state->evaluateCpuMs = threadCpuMs() - startCpu;
    return std::shared_ptr<const DocumentState>(std::move(state));
}

void Document::install(std::shared_ptr<const DocumentState> state) {
    const bool networkChanged =
        !m_state || !sameStructure(m_state->model.network, state->model.network);
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
    ModelFile m = model;
    normalizePlanForm(m);
    auto s = evaluateModel(m);
    if (!s) {
        const std::string where = filePath.isEmpty() ? std::string() : toStdString(filePath) + ": ";
        return makeError(where + s.error().message);
    }
    m_undo.clear();
    m_recovered = false;
    m_filePath = filePath;
    install(*s);
    m_undo.setClean();
    emit filePathChanged(m_filePath);
    return Ok{};
}

Status Document::open(const QString& pathOrPreset) {
    auto m = loadModel(toStdString(pathOrPreset));
    if (!m) return m.error();
    const bool isPreset = !QFileInfo::exists(pathOrPreset);
    return openModel(*m, isPreset ? QString() : QFileInfo(pathOrPreset).absoluteFilePath());
}

Status Document::recover(const ModelFile& model, const QString& filePath) {
    auto st = openModel(model, filePath);
    if (!st) return st;
    m_recovered = true;
    emit changed();
    return Ok{};
}

Status Document::openUnsaved(const ModelFile& model) { return recover(model, QString()); }

Status Document::save(const QString& path) {
    auto st = saveModel(m_state->model, toStdString(path));
    if (!st) return st;
    m_filePath = QFileInfo(path).absoluteFilePath();
    m_recovered = false;
    m_undo.setClean();
    emit filePathChanged(m_filePath);
    emit changed();
    return Ok{};
}

void Document::restore(const ModelFile& model) {
    std::shared_ptr<const DocumentState> next;
    if (m_pending && m_pending->model == model) {
        next = std::move(m_pending);
    } else {
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
    emit editRejected(toQString(e.message));
    return e;
}

Status Document::pushEdit(const QString& text, ModelFile after, int mergeId) {
    normalizePlanForm(after);
    if (after == m_state->model) return Ok{};
    auto s = evaluateModel(after);
    if (!s) return reject(s.error());
    m_pending = *s;
    m_undo.push(new ModelCommand(this, text, m_state->model, std::move(after),
                                 static_cast<EditMergeId>(mergeId)));
    return Ok{};
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

Status Document::setDeviceId(const QString& id) {
    ModelFile after = m_state->model;
    after.device = toStdString(id);
    return pushEdit(tr("Device %1").arg(id), std::move(after));
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
QString regionText(const RegionSpec& r) {
    if (r.isPath) return toQString(r.path);
    return r.first == r.last ? QString::number(r.first)
                             : QStringLiteral("%1–%2").arg(r.first).arg(r.last);
}
}  // namespace

Status Document::toggleRegion(const RegionSpec& region) {
    auto current = currentRegions();
    if (!current) return reject(current.error());
    return planEdit(tr("Toggle checkpoint %1").arg(regionText(region)),
                    toggleRegionSpec(*m_state->graph, *current, region));
}

Status Document::setRegion(const RegionSpec& region, bool present) {
    auto current = currentRegions();
    if (!current) return reject(current.error());
    const QString text = present ? tr("Checkpoint %1").arg(regionText(region))
                                 : tr("Keep %1").arg(regionText(region));
    return planEdit(text, setRegionSpec(*m_state->graph, *current, region, present));
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
        if (auto g = lower(after.network, after.training.precision))
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
