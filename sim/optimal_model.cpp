#include "optimal_model.h"

#include <algorithm>

#include "simulator.h"
#include "training_rules.h"

namespace remat {
namespace {

// One activation storage as seen from inside a unit.
struct LocalStorage {
    TensorId storage;
    std::int64_t bytes = 0;
    std::int64_t allocOp = -1;             // -1: alive when the unit starts (the incoming stream)
    std::vector<std::uint32_t> uses;       // ops of the unit reading or writing it
    std::vector<std::uint32_t> savingOps;  // ops of the unit saving it (needing backward)
    bool streamIn = false;
    bool streamOut = false;
};

struct PassOptions {
    bool saves = true;
    bool streamKept = false;    // the incoming stream belongs to an earlier unit
    std::int64_t stop = 0;      // last op run
    bool keepStreamOut = true;  // the next unit runs and reads the stream
    std::int64_t saveStop = 0;  // last op whose saved tensors are kept (stop, or the op after)
};

}  // namespace

// Builds a ChainModel: the unit cut, the plan-independent background sweep, and every unit's
// passes. Kept in one class so the per-op tables it shares are computed once.
class ChainModelBuilder {
public:
    ChainModelBuilder(const Graph& g, const TrainingConfig& cfg, const DeviceSpec& d)
        : m_g(g), m_cfg(cfg), m_d(d), m_b(cfg.microBatch) {}

    Result<ChainModel> run() {
        if (m_g.ops.empty()) return makeError("the network has no ops");
        cutUnits();
        gradFlow();
        if (auto st = findStreams(); !st) return st.error();
        residentAndTimes();
        backgroundSweep();
        for (std::size_t u = 0; u < m_model.m_units.size(); ++u) analyseUnit(int(u));
        return std::move(m_model);
    }

private:
    // ---- units -------------------------------------------------------------------------------
    void cutUnits() {
        auto& units = m_model.m_units;
        const auto nOps = std::uint32_t(m_g.ops.size());
        auto add = [&](UnitKind kind, std::uint32_t first, std::uint32_t last, std::int64_t chain,
                       std::string label) {
            ChainUnit u;
            u.kind = kind;
            u.firstOp = first;
            u.lastOp = last;
            u.chainIndex = chain;
            u.label = std::move(label);
            units.push_back(std::move(u));
        };
        std::uint32_t next = 0;
        for (std::size_t k = 0; k < m_g.chain.size(); ++k) {
            const Module& m = m_g.module(m_g.chain[k]);
            if (m.firstOp > next)
                add(k == 0 ? UnitKind::Fixed : UnitKind::Gap, next, m.firstOp - 1, -1,
                    k == 0 ? "before the chain" : "between chain elements");
            m_model.m_unitOfChain.push_back(int(units.size()));
            add(UnitKind::ChainElement, m.firstOp, m.lastOp(), std::int64_t(k), m.path);
            next = m.lastOp() + 1;
        }
        if (next < nOps) add(UnitKind::Fixed, next, nOps - 1, -1, "after the chain");
        m_unitOfOp.assign(nOps, 0);
        for (std::size_t u = 0; u < units.size(); ++u)
            for (std::uint32_t o = units[u].firstOp; o <= units[u].lastOp; ++o)
                m_unitOfOp[o] = int(u);
    }

    // The compiler's rule: autograd records an op only when a gradient flows through it.
    void gradFlow() {
        m_flows.assign(m_g.tensors.size(), false);
        for (TensorId p : m_g.parameters) m_flows[p.index()] = true;
        m_needsBackward.assign(m_g.ops.size(), false);
        for (std::size_t o = 0; o < m_g.ops.size(); ++o) {
            const Op& op = m_g.ops[o];
            bool any = !op.params.empty();
            for (TensorId t : op.inputs) any = any || m_flows[t.index()];
            m_needsBackward[o] = any;
            for (TensorId t : op.outputs) m_flows[t.index()] = any && m_g.tensor(t).requiresGrad;
        }
    }

    std::int64_t storageBytes(TensorId s) const { return m_g.tensor(s).bytes().at(m_b); }

    // Which storage crosses each unit boundary. The model needs at most one activation storage
    // per boundary (the stream). Inputs are background: the training loop holds the batch for
    // the whole micro-step (the compiler's rule), so no unit allocates or frees one, and a
    // region starting on an input stream holds nothing more.
    Status findStreams() {
        auto& units = m_model.m_units;
        const int nUnits = int(units.size());
        const std::size_t nT = m_g.tensors.size();
        std::vector<int> minUnit(nT, nUnits), maxUnit(nT, -1);
        std::vector<std::vector<int>> touching(nT);
        for (std::size_t o = 0; o < m_g.ops.size(); ++o) {
            const Op& op = m_g.ops[o];
            const int u = m_unitOfOp[o];
            auto touch = [&](TensorId t) {
                if (m_g.tensor(t).kind == TensorKind::Parameter) return;
                const std::size_t s = m_g.storageOf(t).index();
                minUnit[s] = std::min(minUnit[s], u);
                maxUnit[s] = std::max(maxUnit[s], u);
                if (touching[s].empty() || touching[s].back() != u) touching[s].push_back(u);
            };
            for (TensorId t : op.inputs) touch(t);
            for (TensorId t : op.outputs) touch(t);
        }
        m_stream.assign(std::size_t(nUnits) + 1, TensorId::invalid());
        m_heldInput.assign(nT, false);
        m_inputBytes = 0;
        for (TensorId t : m_g.inputs) {
            const std::size_t s = m_g.storageOf(t).index();
            if (m_heldInput[s]) continue;
            m_heldInput[s] = true;
            m_inputBytes += storageBytes(TensorId(std::uint32_t(s)));
        }
        auto crossing = [&](std::size_t s, int from, int to) -> Status {
            // Boundaries (from, to]: boundary b sits before unit b.
            for (int b = from + 1; b <= to; ++b) {
                TensorId& x = m_stream[std::size_t(b)];
                if (x.valid() && x.index() != s)
                    return makeError("optimal: '" + m_g.tensor(x).name + "' and '" +
                                     m_g.tensor(TensorId(std::uint32_t(s))).name +
                                     "' both cross into '" + units[std::size_t(b)].label +
                                     "'; the planner's model needs one tensor between chain "
                                     "elements");
                x = TensorId(std::uint32_t(s));
            }
            for (int u = std::max(from + 1, 0); u < to; ++u)
                if (std::find(touching[s].begin(), touching[s].end(), u) == touching[s].end())
                    return makeError("optimal: '" + m_g.tensor(TensorId(std::uint32_t(s))).name +
                                     "' skips over '" + units[std::size_t(u)].label +
                                     "'; the planner's model needs tensors to pass from one "
                                     "chain element to the next");
            return Ok{};
        };
        for (std::size_t s = 0; s < nT; ++s) {
            if (maxUnit[s] < 0) continue;
            const Tensor& t = m_g.tensor(TensorId(std::uint32_t(s)));
            if (t.storage.index() != s) continue;
            if (t.kind == TensorKind::Input) {
                bool allFixed = true;
                for (int u : touching[s])
                    allFixed = allFixed && units[std::size_t(u)].kind == UnitKind::Fixed;
                if (allFixed) continue;
                if (minUnit[s] != 0)
                    return makeError("optimal: input '" + t.name +
                                     "' is first read inside the "
                                     "chain; the planner's model needs inputs read at its start");
                if (auto st = crossing(s, -1, maxUnit[s]); !st) return st;
                continue;
            }
            if (t.kind != TensorKind::Activation || !t.producer.valid()) continue;
            const int p = m_unitOfOp[t.producer.index()];
            if (p != minUnit[s])
                return makeError("optimal: '" + t.name + "' is used before it is produced");
            if (auto st = crossing(s, p, maxUnit[s]); !st) return st;
        }
        // A nested region starting at unit u holds the first tensor of the stream it reads; the
        // parent's early stop runs up to that tensor's producer, assumed the previous unit's
        // last op.
        for (int u = 1; u < nUnits && m_model.m_nestedLimitation.empty(); ++u) {
            const TensorId x = m_stream[std::size_t(u)];
            if (!x.valid()) continue;
            for (std::uint32_t o = units[std::size_t(u)].firstOp; o <= units[std::size_t(u)].lastOp;
                 ++o) {
                const Op& op = m_g.ops[o];
                auto it = std::find_if(op.inputs.begin(), op.inputs.end(),
                                       [&](TensorId t) { return m_g.storageOf(t) == x; });
                if (it == op.inputs.end()) continue;
                const OpId p = m_g.tensor(*it).producer;
                if (p.valid() && p.value != units[std::size_t(u) - 1].lastOp)
                    m_model.m_nestedLimitation = "'" + units[std::size_t(u)].label + "' reads '" +
                                                 m_g.tensor(*it).name +
                                                 "', which is not made by the last op before it";
                break;
            }
        }
        for (int u = 0; u < nUnits; ++u) {
            ChainUnit& unit = units[std::size_t(u)];
            unit.stream = m_stream[std::size_t(u)];
            unit.streamBytes = unit.stream.valid() && !m_heldInput[unit.stream.index()]
                                   ? storageBytes(unit.stream)
                                   : 0;
            unit.passThrough = unit.stream.valid() && m_stream[std::size_t(u) + 1] == unit.stream;
        }
        return Ok{};
    }

    // ---- plan-independent background -----------------------------------------------------------
    void residentAndTimes() {
        const DType act = parameterDType(m_cfg.precision);
        const bool mixed = hasMasterWeights(m_cfg.precision);
        const std::int64_t stateBytes = dtypeBytes(optimizerStateDType(m_cfg.precision));
        const std::int64_t gradBytes = dtypeBytes(gradientDType(m_cfg));
        std::vector<bool> hasGrad(m_g.tensors.size(), false);
        for (const Op& op : m_g.ops)
            for (TensorId p : op.params) hasGrad[p.index()] = true;
        std::int64_t resident = m_d.gemmWorkspaceBytes;
        std::int64_t grads = 0, foreachTemps = 0;
        for (TensorId p : m_g.parameters) {
            const std::int64_t n = m_g.tensor(p).elements();
            resident += n * dtypeBytes(act);
            if (mixed) resident += n * 4;
            resident += n * stateBytes * optimizerStateCount(m_cfg.optimizer);
            if (hasGrad[p.index()]) {
                grads += n * gradBytes;
                foreachTemps += optimizerTemporaryBytes(n, m_cfg);
            }
        }
        // The optimizer phase: every gradient live at the first step, each freed after its own
        // step (the compiler's rule), plus the implementation's temporaries: foreach's list
        // over all parameters, or a for-loop step's own; and the last micro-batch's inputs,
        // which the training loop holds through the step.
        std::int64_t optimizerPeak = grads;
        if (m_cfg.optimizerImpl == OptimizerImpl::Foreach) {
            optimizerPeak = grads + foreachTemps;
        } else if (m_cfg.optimizerImpl == OptimizerImpl::ForLoop) {
            std::int64_t remaining = grads;
            for (TensorId p : m_g.parameters) {
                if (!hasGrad[p.index()]) continue;
                const std::int64_t n = m_g.tensor(p).elements();
                optimizerPeak =
                    std::max(optimizerPeak, remaining + optimizerTemporaryBytes(n, m_cfg));
                remaining -= n * gradBytes;
            }
        }
        m_model.m_residentBytes = resident;
        m_model.m_paramGradBytes = grads;
        m_model.m_floorBytes = resident + optimizerPeak + m_inputBytes;
        m_paramGradConst = m_cfg.accumulationSteps >= 2 ? grads : 0;
        m_model.m_constantBytes = resident + m_paramGradConst;

        Program stub;
        stub.microBatch = m_cfg.microBatch;
        stub.precision = m_cfg.precision;
        stub.tf32 = m_cfg.tf32;
        stub.accumulationSteps = m_cfg.accumulationSteps;
        m_opTimeS.assign(m_g.ops.size(), 0.0);
        for (std::size_t o = 0; o < m_g.ops.size(); ++o) {
            Instruction ins;
            ins.kind = InstrKind::Recompute;
            ins.op = OpId(std::uint32_t(o));
            // Every micro-step recomputes: the step's recompute time scales with their count.
            m_opTimeS[o] = instructionTime(m_g, stub, ins, m_d) * double(m_cfg.accumulationSteps);
        }
    }

    TensorId gradKey(TensorId t) const {
        while (m_g.tensor(t).viewOf.valid()) t = m_g.tensor(t).viewOf;
        return t;
    }

    // Live background before/at every instruction: resident state, parameter gradients,
    // activation gradients and inputs read only by fixed units. Replays the compiler's gradient
    // buffer rules (one buffer per gradient key, allocated by the first backward producing it,
    // freed after its last backward use).
    void backgroundSweep() {
        const std::size_t nOps = m_g.ops.size();
        const std::size_t nT = m_g.tensors.size();
        const std::int64_t resident = m_model.m_residentBytes;
        // Inputs: alive for the whole micro-step, as the training loop holds the batch (the
        // compiler's rule for inputs).
        const std::int64_t inputs = m_inputBytes;
        m_bgForward.assign(nOps, resident + m_paramGradConst + inputs);
        // Gradient buffers: first (highest) op allocating each key, last (lowest) op using it.
        std::vector<std::int64_t> allocAt(nT, -1), lastUse(nT, -1);
        for (std::size_t oo = nOps; oo-- > 0;) {
            if (!m_needsBackward[oo]) continue;
            const Op& op = m_g.ops[oo];
            for (TensorId t : op.outputs)
                if (m_flows[t.index()]) {
                    const std::size_t k = gradKey(t).index();
                    if (allocAt[k] >= 0) lastUse[k] = std::int64_t(oo);
                }
            for (TensorId t : op.inputs)
                if (m_flows[t.index()]) {
                    const std::size_t k = gradKey(t).index();
                    if (allocAt[k] < 0) allocAt[k] = std::int64_t(oo);
                    lastUse[k] = std::int64_t(oo);
                }
        }
        std::vector<std::int64_t> gradAlloc(nOps, 0), gradFree(nOps, 0);
        for (std::size_t k = 0; k < nT; ++k)
            if (allocAt[k] >= 0) {
                const std::int64_t bytes = storageBytes(TensorId(std::uint32_t(k)));
                gradAlloc[std::size_t(allocAt[k])] += bytes;
                gradFree[std::size_t(lastUse[k])] += bytes;
            }
        std::vector<std::int64_t> paramAlloc(nOps, 0);
        if (m_cfg.accumulationSteps < 2) {
            const std::int64_t bpe = dtypeBytes(gradientDType(m_cfg));
            std::vector<bool> seen(nT, false);
            for (std::size_t oo = nOps; oo-- > 0;) {
                if (!m_needsBackward[oo]) continue;
                for (TensorId p : m_g.ops[oo].params)
                    if (!seen[p.index()]) {
                        seen[p.index()] = true;
                        paramAlloc[oo] += m_g.tensor(p).elements() * bpe;
                    }
            }
        }
        m_bgBackward.assign(nOps, 0);
        m_bgAfter.assign(nOps + 1, 0);
        std::int64_t grads = 0, params = m_paramGradConst;
        m_bgAfter[nOps] = resident + params + grads + inputs;
        for (std::size_t oo = nOps; oo-- > 0;) {
            if (m_needsBackward[oo]) {
                grads += gradAlloc[oo];
                params += paramAlloc[oo];
                m_bgBackward[oo] = resident + params + grads + inputs;
                grads -= gradFree[oo];
            }
            m_bgAfter[oo] = resident + params + grads + inputs;
        }
    }

    // ---- units ----------------------------------------------------------------------------------
    std::vector<LocalStorage> layout(const ChainUnit& unit) const {
        std::vector<LocalStorage> locals;
        auto find = [&](TensorId s) -> LocalStorage& {
            for (auto& l : locals)
                if (l.storage == s) return l;
            LocalStorage l;
            l.storage = s;
            l.bytes = storageBytes(s);
            const Tensor& t = m_g.tensor(s);
            l.allocOp = t.kind == TensorKind::Activation && t.producer.valid() &&
                                t.producer.value >= unit.firstOp
                            ? std::int64_t(t.producer.value)
                            : -1;
            locals.push_back(l);
            return locals.back();
        };
        for (std::uint32_t o = unit.firstOp; o <= unit.lastOp; ++o) {
            const Op& op = m_g.ops[o];
            auto use = [&](TensorId t) {
                if (m_g.tensor(t).kind == TensorKind::Parameter) return;
                const TensorId s = m_g.storageOf(t);
                if (m_heldInput[s.index()]) return;
                LocalStorage& l = find(s);
                if (l.uses.empty() || l.uses.back() != o) l.uses.push_back(o);
            };
            for (TensorId t : op.inputs) use(t);
            for (TensorId t : op.outputs) use(t);
            if (m_needsBackward[o])
                for (TensorId t : op.saved) {
                    const TensorId s = m_g.storageOf(t);
                    if (m_heldInput[s.index()]) continue;
                    LocalStorage& l = find(s);
                    if (l.savingOps.empty() || l.savingOps.back() != o) l.savingOps.push_back(o);
                }
        }
        const TensorId out = m_stream[std::size_t(m_unitOfOp[unit.firstOp]) + 1];
        for (auto& l : locals) {
            l.streamIn = l.storage == unit.stream;
            l.streamOut = out.valid() && l.storage == out;
        }
        return locals;
    }

    UnitPass pass(const ChainUnit& unit, const std::vector<LocalStorage>& locals,
                  const PassOptions& opt) const {
        UnitPass r;
        struct Live {
            std::int64_t bytes;
            std::int64_t allocOp;
            std::int64_t freeOp;     // after this op's forward; -1: not freed in the forward
            std::int64_t bwdFreeOp;  // retained: after this op's backward
        };
        std::vector<Live> live;
        bool inRetained = false, outRetained = false;
        for (const LocalStorage& l : locals) {
            if (l.allocOp > opt.stop) continue;
            std::int64_t lastUse = l.allocOp;
            for (std::uint32_t o : l.uses)
                if (o <= opt.stop) lastUse = std::max<std::int64_t>(lastUse, o);
            std::int64_t savedBy = -1;
            if (opt.saves)
                for (std::uint32_t o : l.savingOps)
                    if (o <= opt.saveStop && savedBy < 0) savedBy = o;
            if (l.streamIn) inRetained = savedBy >= 0;
            if (l.streamOut) outRetained = savedBy >= 0;
            if (l.streamIn && opt.streamKept) continue;
            const bool keep = opt.keepStreamOut && l.streamOut;
            Live v{l.bytes, l.allocOp, -1, savedBy};
            if (savedBy < 0 && !keep) v.freeOp = lastUse;
            live.push_back(v);
            if (savedBy >= 0) r.retainedBytes += l.bytes;
        }
        r.streamKept = unit.passThrough ? (opt.streamKept || inRetained) : outRetained;
        if (!opt.saves) r.streamKept = unit.passThrough && opt.streamKept;
        std::int64_t current = 0;
        for (const Live& v : live)
            if (v.allocOp < 0) current += v.bytes;
        for (std::uint32_t o = unit.firstOp; std::int64_t(o) <= opt.stop; ++o) {
            for (const Live& v : live)
                if (v.allocOp == std::int64_t(o)) current += v.bytes;
            const std::int64_t local = current + opWorkspace(m_g.ops[o], false, m_b).at(m_b);
            r.peakLocalBytes = std::max(r.peakLocalBytes, local);
            r.peakBytes = std::max(r.peakBytes, local + m_bgForward[o]);
            for (const Live& v : live)
                if (v.freeOp == std::int64_t(o)) current -= v.bytes;
        }
        for (std::uint32_t oo = unit.lastOp + 1; oo-- > unit.firstOp;) {
            if (!m_needsBackward[oo]) continue;
            std::int64_t kept = 0;
            for (const Live& v : live)
                if (v.bwdFreeOp >= 0 && v.bwdFreeOp <= std::int64_t(oo)) kept += v.bytes;
            r.backwardPeakBytes =
                std::max(r.backwardPeakBytes,
                         kept + opWorkspace(m_g.ops[oo], true, m_b).at(m_b) + m_bgBackward[oo]);
        }
        return r;
    }

    void analyseUnit(int u) {
        ChainUnit& unit = m_model.m_units[std::size_t(u)];
        const auto locals = layout(unit);
        for (std::uint32_t o = unit.firstOp; o <= unit.lastOp; ++o) {
            if (m_needsBackward[o] && !m_g.ops[o].saved.empty()) {
                unit.saves = true;
                unit.lastSavingOp = o;
                const Op& op = m_g.ops[o];
                bool outputSaved = false;
                for (TensorId t : op.saved)
                    outputSaved = outputSaved ||
                                  std::find(op.inputs.begin(), op.inputs.end(), t) ==
                                      op.inputs.end();
                unit.lastRecomputedOp = outputSaved ? o : std::int64_t(o) - 1;
            }
            const Op& op = m_g.ops[o];
            if (op.inPlaceInput >= 0 && unit.stream.valid() &&
                m_g.storageOf(op.inputs[std::size_t(op.inPlaceInput)]) == unit.stream)
                unit.overwritesStream = true;
        }
        // A later unit on the same stream overwriting it makes holding it unsafe too.
        for (int v = u + 1; v < int(m_model.m_units.size()) &&
                            m_stream[std::size_t(v)] == unit.stream && unit.stream.valid();
             ++v)
            for (std::uint32_t o = m_model.m_units[std::size_t(v)].firstOp;
                 o <= m_model.m_units[std::size_t(v)].lastOp; ++o) {
                const Op& op = m_g.ops[o];
                if (op.inPlaceInput >= 0 &&
                    m_g.storageOf(op.inputs[std::size_t(op.inPlaceInput)]) == unit.stream)
                    unit.overwritesStream = true;
            }
        for (int k = 0; k < 2; ++k) {
            PassOptions full{true, k == 1, unit.lastOp, true, unit.lastOp};
            unit.kept[k] = pass(unit, locals, full);
            PassOptions first{false, k == 1, unit.lastOp, true, unit.lastOp};
            unit.first[k] = pass(unit, locals, first);
            if (unit.saves) {
                PassOptions trunc{true, k == 1, unit.lastRecomputedOp, false, unit.lastSavingOp};
                unit.truncated[k] = pass(unit, locals, trunc);
            }
        }
        {
            PassOptions bare{false, true, unit.lastOp, true, unit.lastOp};
            unit.bareBackwardPeakBytes = pass(unit, locals, bare).backwardPeakBytes;
        }
        unit.recomputeBackgroundBytes = m_bgAfter[std::size_t(unit.lastOp) + 1];
        for (std::uint32_t o = unit.firstOp; o <= unit.lastOp; ++o) {
            unit.recomputeTimeS += m_opTimeS[o];
            if (unit.saves && std::int64_t(o) <= unit.lastRecomputedOp)
                unit.truncatedRecomputeTimeS += m_opTimeS[o];
        }
    }

    const Graph& m_g;
    const TrainingConfig& m_cfg;
    const DeviceSpec& m_d;
    const std::int64_t m_b;
    ChainModel m_model;
    std::vector<int> m_unitOfOp;
    std::vector<bool> m_flows, m_needsBackward;
    std::vector<bool> m_heldInput;   // per storage: an input, held by the training loop
    std::int64_t m_inputBytes = 0;   // one micro-batch's inputs
    std::vector<TensorId> m_stream;  // per boundary: the storage entering unit b
    std::int64_t m_paramGradConst = 0;
    std::vector<double> m_opTimeS;
    std::vector<std::int64_t> m_bgForward, m_bgBackward, m_bgAfter;
};

Result<ChainModel> ChainModel::build(const Graph& g, const TrainingConfig& cfg,
                                     const DeviceSpec& device) {
    if (recomputesWholeRegion(cfg.recomputeImpl))
        return makeError(
            "the optimal planners model PyTorch's non-reentrant checkpoint "
            "(--recompute-impl pytorch); under " +
            std::string(recomputeImplName(cfg.recomputeImpl)) +
            " a recompute runs its whole region and keeps its outputs through its backward, "
            "which they do not model. Use full, every:K, sqrt, selective:KIND or revolve:C");
    auto m = ChainModelBuilder(g, cfg, device).run();
    if (!m) return m;
    // Truncated recomputes start from a stream the previous unit kept alive; a unit whose early
    // stop comes before it reads that stream would shorten the previous unit's pass, which the
    // per-unit passes do not model.
    for (const ChainUnit& u : m->units()) {
        if (!u.saves || !u.stream.valid() || u.kind == UnitKind::Fixed) continue;
        bool read = false;
        for (std::uint32_t o = u.firstOp; o <= u.lastSavingOp && !read; ++o) {
            const Op& op = g.ops[o];
            for (TensorId t : op.inputs) read = read || g.storageOf(t) == u.stream;
            for (TensorId t : op.outputs) read = read || g.storageOf(t) == u.stream;
        }
        if (!read)
            return makeError("optimal: '" + u.label +
                             "' reads its input only after its last saving op; the planner's "
                             "model does not cover that early stop");
    }
    return m;
}

std::int64_t ChainModel::keptNeed(int u, bool streamKept) const {
    const UnitPass& p = m_units[std::size_t(u)].kept[streamKept ? 1 : 0];
    return std::max(p.peakBytes, p.backwardPeakBytes);
}

bool ChainModel::canStartRegion(int u) const {
    const ChainUnit& unit = m_units[std::size_t(u)];
    return unit.kind == UnitKind::ChainElement && !unit.overwritesStream;
}

bool ChainModel::canEndRegion(int u) const {
    return m_units[std::size_t(u)].kind == UnitKind::ChainElement;
}

RegionCost ChainModel::region(int first, int last) const {
    RegionScan scan(*this, first);
    while (scan.last() < last)
        if (!scan.extend()) return RegionCost{};
    return scan.current();
}

Result<PlanPrediction> ChainModel::predict(const std::vector<UnitSegment>& segments) const {
    PlanPrediction out;
    out.peakBytes = m_floorBytes;
    std::int64_t retained = 0;
    bool streamKept = false;
    int next = 0;
    for (const UnitSegment& s : segments) {
        if (s.first != next || s.last < s.first || s.last >= unitCount())
            return makeError("segments must cover the units in order");
        if (!s.region) {
            if (s.first != s.last) return makeError("a kept segment is one unit");
            const UnitPass& p = m_units[std::size_t(s.first)].kept[streamKept ? 1 : 0];
            out.peakBytes = std::max(out.peakBytes, retained + keptNeed(s.first, streamKept));
            retained += p.retainedBytes;
            streamKept = p.streamKept;
        } else {
            RegionCost rc = region(s.first, s.last);
            if (!rc.valid)
                return makeError("region over units " + std::to_string(s.first) + "-" +
                                 std::to_string(s.last) + " is not allowed");
            const std::int64_t held = heldBytes(s.first, streamKept);
            out.peakBytes = std::max(out.peakBytes, retained + held + rc.coreNeedBytes);
            retained += held;
            streamKept = rc.streamKeptAfter;
            out.recomputeTimeS += rc.recomputeTimeS;
        }
        next = s.last + 1;
    }
    if (next != unitCount()) return makeError("segments must cover every unit");
    return out;
}

Plan ChainModel::toPlan(const std::vector<UnitSegment>& segments,
                        const std::string& strategy) const {
    Plan plan;
    plan.strategy = strategy;
    for (const UnitSegment& s : segments) {
        if (!s.region) continue;
        const ChainUnit& a = m_units[std::size_t(s.first)];
        const ChainUnit& b = m_units[std::size_t(s.last)];
        plan.regions.push_back(Region{a.firstOp, b.lastOp,
                                      s.first == s.last ? a.label : a.label + "-" + b.label, true});
    }
    return plan;
}

Result<std::vector<UnitSegment>> ChainModel::segmentsOf(const Plan& plan) const {
    std::vector<Region> regions = plan.regions;
    std::sort(regions.begin(), regions.end(),
              [](const Region& a, const Region& b) { return a.firstOp < b.firstOp; });
    std::vector<UnitSegment> out;
    int u = 0;
    for (const Region& r : regions) {
        int first = -1, last = -1;
        for (int k = 0; k < unitCount(); ++k) {
            if (m_units[std::size_t(k)].firstOp == r.firstOp) first = k;
            if (m_units[std::size_t(k)].lastOp == r.lastOp) last = k;
        }
        if (first < 0 || last < 0 || first < u)
            return makeError("region '" + r.label +
                             "' does not cover whole chain elements of a single-level plan");
        for (; u < first; ++u) out.push_back(UnitSegment{u, u, false});
        out.push_back(UnitSegment{first, last, true});
        u = last + 1;
    }
    for (; u < unitCount(); ++u) out.push_back(UnitSegment{u, u, false});
    return out;
}

// ---- RegionScan ------------------------------------------------------------------------------

RegionScan::RegionScan(const ChainModel& model, int first)
    : m_model(model), m_first(first), m_last(first - 1), m_committed(first) {
    m_alive = model.canStartRegion(first);
}

bool RegionScan::extend() {
    const int u = m_last + 1;
    if (!m_alive || u >= m_model.unitCount() || !m_model.regionMember(u)) {
        m_alive = false;
        return false;
    }
    const auto& units = m_model.units();
    const ChainUnit& unit = units[std::size_t(u)];
    // First forward: nothing saved; a unit still on the region's held stream does not count it.
    if (u > m_first) m_passThrough = m_passThrough && units[std::size_t(u) - 1].passThrough;
    const bool onHeld = u == m_first || m_passThrough;
    m_firstForwardPeak = std::max(m_firstForwardPeak, unit.first[onHeld ? 1 : 0].peakBytes);
    m_last = u;
    if (unit.saves) {
        // Everything before this unit now recomputes in full.
        commitThrough(u);
        m_stopUnit = u;
        m_bareTailPeak = kNoPeakBytes;
    } else {
        m_bareTailPeak = std::max(m_bareTailPeak, unit.bareBackwardPeakBytes);
    }
    m_bareAllPeak = std::max(m_bareAllPeak, unit.bareBackwardPeakBytes);
    return true;
}

void RegionScan::commitThrough(int unitExclusive) {
    const auto& units = m_model.units();
    for (; m_committed < unitExclusive; ++m_committed) {
        const ChainUnit& unit = units[std::size_t(m_committed)];
        const UnitPass& p = unit.kept[m_prefixStreamKept ? 1 : 0];
        m_fullRecomputePeak = std::max(m_fullRecomputePeak, m_prefixRetained + p.peakLocalBytes);
        m_fullBackwardPeak = std::max(m_fullBackwardPeak, m_prefixRetained + p.backwardPeakBytes);
        m_prefixRetained += p.retainedBytes;
        m_prefixStreamKept = p.streamKept;
        m_fullTimeS += unit.recomputeTimeS;
    }
}

RegionCost RegionScan::current() const {
    RegionCost rc;
    if (!m_alive || m_last < m_first || !m_model.canEndRegion(m_last)) return rc;
    const auto& units = m_model.units();
    rc.valid = true;
    rc.streamKeptAfter = m_passThrough && units[std::size_t(m_last)].passThrough &&
                         units[std::size_t(m_first)].stream.valid();
    std::int64_t backward;
    if (m_stopUnit < 0) {
        backward = m_bareAllPeak;  // nothing saves: no recompute at all
    } else {
        const ChainUnit& stop = units[std::size_t(m_stopUnit)];
        const UnitPass& t = stop.truncated[m_prefixStreamKept ? 1 : 0];
        const std::int64_t background = units[std::size_t(m_last)].recomputeBackgroundBytes;
        const std::int64_t recompute =
            background + std::max(m_fullRecomputePeak, m_prefixRetained + t.peakLocalBytes);
        backward = std::max({recompute, m_fullBackwardPeak, m_prefixRetained + t.backwardPeakBytes,
                             m_prefixRetained + t.retainedBytes + m_bareTailPeak});
        rc.recomputeTimeS = m_fullTimeS + stop.truncatedRecomputeTimeS;
    }
    rc.coreNeedBytes = std::max(m_firstForwardPeak, backward);
    return rc;
}

}  // namespace remat
