#include "compiler.h"

#include <algorithm>
#include <limits>

#include "training_rules.h"

namespace remat {
namespace {

constexpr std::uint32_t kNoStep = std::numeric_limits<std::uint32_t>::max();

struct Node {
    Region region;
    int parent = -1;
    int depth = 0;
    std::vector<TensorId> inputs;  // tensors produced outside the region and read inside it
    std::vector<TensorId> outputs;  // storages produced inside the region and read after it
};

// How far a recompute runs: ops up to `run` execute; `savedOnly`, when set, is the op after
// them whose saved tensors (its inputs only) are taken without running it.
struct RecomputeStop {
    std::int64_t run = -1;
    std::int64_t savedOnly = -1;
};

// Current buffer of each storage, indexed by TensorId (dense: cheaper than hashing).
using StorageMap = std::vector<BufferId>;

class Compiler {
public:
    Compiler(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
             const CompileOptions& opt)
        : m_g(g), m_plan(plan), m_cfg(cfg), m_opt(opt) {}

    Result<Program> run() {
        if (m_cfg.microBatch < 1 || m_cfg.microBatch > (std::int64_t{1} << 24))
            return makeError("micro-batch must be between 1 and 16777216");
        if (m_cfg.accumulationSteps < 1 || m_cfg.accumulationSteps > 1000000)
            return makeError("accumulation steps must be between 1 and 1000000");
        if (m_g.ops.empty()) return makeError("the network has no ops");
        Plan plan = m_plan;
        // The model file's `preserve_rng_state: false` applies to every region of the plan.
        if (!m_cfg.preserveRngState)
            for (Region& r : plan.regions) r.preserveRng = false;
        if (auto st = normalizePlan(m_g, plan); !st) return st.error();
        if (auto st = checkPlanForImpl(m_g, plan, m_cfg.recomputeImpl); !st) return st.error();
        if (auto st = checkProgramSize(plan); !st) return st.error();
        m_p.plan = plan;
        m_p.microBatch = m_cfg.microBatch;
        m_p.accumulationSteps = m_cfg.accumulationSteps;
        m_p.precision = m_cfg.precision;
        m_p.optimizer = m_cfg.optimizer;
        m_p.mainGrads = m_cfg.mainGrads;
        m_p.optimizerImpl = m_cfg.optimizerImpl;
        m_p.tf32 = m_cfg.tf32;
        if (auto st = checkTrainingConfig(m_cfg); !st) return st.error();
        m_p.recomputeImpl = m_cfg.recomputeImpl;
        buildTree(plan);
        computeGradFlow();
        checkReentrantInputs();
        reserveBuffers();
        setupResident();
        // Forward, backward and a recompute of every op per micro-batch, at most: one
        // allocation for the steps instead of a dozen regrowths, each moving every instruction.
        const std::size_t steps =
            std::size_t(writtenMicroSteps()) * 3 * m_g.ops.size() + m_g.tensors.size();
        m_steps.reserve(std::min<std::size_t>(steps, std::size_t{1} << 22));
        const auto last = std::uint32_t(m_cfg.accumulationSteps - 1);
        if (compact()) {
            // Micro-step 0, the body (micro-step 1, standing for 1..G-2) and micro-step G-1,
            // whose fresh RNG draws are numbered as if every micro-step before it had run.
            microStep(0);
            const std::uint32_t fresh = m_freshDraws;
            if (cancelRequested(m_opt.cancel)) return makeError(kCancelledMessage);
            microStep(1);
            m_freshDraws = fresh * last;
            if (cancelRequested(m_opt.cancel)) return makeError(kCancelledMessage);
            microStep(last);
            m_fresh = fresh;
        } else {
            for (std::uint32_t m = 0; m <= last; ++m) {
                if (cancelRequested(m_opt.cancel)) return makeError(kCancelledMessage);
                microStep(m);
            }
        }
        optimizerSteps();
        if (cancelRequested(m_opt.cancel)) return makeError(kCancelledMessage);
        if (auto st = checkSizes(); !st) return st.error();
        assemble();
        if (cancelRequested(m_opt.cancel)) return makeError(kCancelledMessage);
        if (compact()) markRepeat();
        if (auto st = validateProgram(m_g, m_p); !st) return st.error();
        return std::move(m_p);
    }

private:
    bool compact() const {
        return !m_opt.expandAccumulation && m_cfg.accumulationSteps >= kCompactAccumulationFrom;
    }
    // Micro-steps the program writes out: all of them, or three when the body repeats.
    std::int64_t writtenMicroSteps() const {
        return compact() ? 3 : m_cfg.accumulationSteps;
    }

    // Refuses, before any work, a program too large to build: every op runs forward and
    // backward once per written micro-step and is recomputed at most once per region around
    // it, and allocs and frees come to about three times the compute instructions (2.9 to 3.1
    // on deep transformer programs under revolve, the largest there are; docs/reliability.md
    // gives the cost at the limit). Also refuses RNG
    // draws that would not fit their 32 bits: each micro-step draws once for itself and once
    // per region recomputed without preserving the RNG state.
    Status checkProgramSize(const Plan& plan) const {
        const std::size_t n = m_g.ops.size();
        std::vector<std::int64_t> delta(n + 1, 0);
        std::int64_t fresh = 0;
        for (const Region& r : plan.regions) {
            ++delta[r.firstOp];
            --delta[std::size_t(r.lastOp) + 1];
            if (!r.preserveRng) ++fresh;
        }
        std::int64_t depth = 0, recomputes = 0;
        for (std::size_t o = 0; o < n; ++o) {
            depth += delta[o];
            recomputes += depth;
        }
        const std::int64_t written = writtenMicroSteps();
        const std::int64_t perStep = 4 * (2 * std::int64_t(n) + recomputes);
        const std::int64_t total = satMul(perStep, written);
        auto count = [](std::int64_t v) {
            return v >= kSaturated ? std::string("more than 2^63") : std::to_string(v);
        };
        if (total > kMaxProgramInstructions)
            return makeError(
                "plan '" + plan.strategy + "' would compile to about " + count(total) +
                " instructions (" + count(perStep) + " per micro-step x " +
                std::to_string(written) +
                (compact() ? " micro-steps written out: the first, one repeated for the "
                             "middle ones, and the last"
                           : " accumulation steps") +
                "); the largest program supported has " +
                std::to_string(kMaxProgramInstructions) +
                ". Use a plan with fewer nested regions, or fewer layers");
        const std::int64_t draws = satMul(m_cfg.accumulationSteps, fresh + 1);
        if (fresh > 0 && draws > std::int64_t(std::numeric_limits<std::uint32_t>::max()))
            return makeError("plan '" + plan.strategy + "' has " + std::to_string(fresh) +
                             " checkpointed regions that do not preserve the RNG state; with " +
                             std::to_string(m_cfg.accumulationSteps) +
                             " accumulation steps their dropout draws would number " +
                             count(draws) + ", more than 2^32. Preserve the RNG state or use "
                             "fewer accumulation steps");
        return Ok{};
    }

    // The body: every instruction of micro-step 1, a contiguous run (inputs are allocated at
    // its start, everything it allocates is freed by its end), repeated for micro-steps 1..G-2.
    void markRepeat() {
        Repeat r;
        r.times = m_cfg.accumulationSteps - 2;
        r.freshDrawsPerMicroStep = m_fresh;
        const auto& ins = m_p.instructions;
        bool found = false;
        for (std::size_t i = 0; i < ins.size(); ++i) {
            if (ins[i].microStep != 1 || ins[i].phase == Phase::Setup) continue;
            if (!found) r.begin = i;
            found = true;
            r.end = i + 1;
        }
        m_p.repeat = r;
    }

    // ---- region tree -----------------------------------------------------------------------
    void buildTree(const Plan& plan) {
        Node root;
        root.region = Region{0, std::uint32_t(m_g.ops.size() - 1), "network", true};
        m_nodes.push_back(root);
        m_children.assign(1, {});
        m_innermost.assign(m_g.ops.size(), 0);
        // Last op reading each tensor: a region's outputs are what is read after its last op.
        std::vector<std::int64_t> lastReader(m_g.tensors.size(), -1);
        for (std::uint32_t o = 0; o < m_g.ops.size(); ++o)
            for (TensorId t : m_g.ops[o].inputs) lastReader[t.index()] = o;
        // Regions are sorted outer-first, so each one's parent is already placed.
        for (const Region& r : plan.regions) {
            Node n;
            n.region = r;
            n.parent = m_innermost[r.firstOp];
            n.depth = m_nodes[std::size_t(n.parent)].depth + 1;
            int id = int(m_nodes.size());
            for (std::uint32_t o = r.firstOp; o <= r.lastOp; ++o) m_innermost[o] = id;
            m_children[std::size_t(n.parent)].push_back(id);
            m_children.emplace_back();
            // Inputs: tensors read inside, produced outside (parameters are resident).
            std::vector<TensorId> seen;
            for (std::uint32_t o = r.firstOp; o <= r.lastOp; ++o)
                for (TensorId t : m_g.ops[o].inputs) {
                    const Tensor& tt = m_g.tensor(t);
                    if (tt.kind == TensorKind::Parameter) continue;
                    bool inside = tt.producer.valid() && r.contains(tt.producer.value);
                    if (inside) continue;
                    TensorId s = tt.storage;
                    if (std::find(seen.begin(), seen.end(), s) == seen.end()) {
                        seen.push_back(s);
                        n.inputs.push_back(t);
                    }
                }
            for (std::uint32_t o = r.firstOp; o <= r.lastOp; ++o)
                for (TensorId t : m_g.ops[o].outputs) {
                    const TensorId s = m_g.storageOf(t);
                    if (lastReader[t.index()] > std::int64_t(r.lastOp) &&
                        std::find(n.outputs.begin(), n.outputs.end(), s) == n.outputs.end())
                        n.outputs.push_back(s);
                }
            m_nodes.push_back(std::move(n));
        }
        // Children in op order, for childOf's search (regions come outer-first, by first op).
        m_childrenByFirst = m_children;
        for (auto& kids : m_childrenByFirst)
            std::stable_sort(kids.begin(), kids.end(), [&](int a, int b) {
                return m_nodes[std::size_t(a)].region.firstOp <
                       m_nodes[std::size_t(b)].region.firstOp;
            });
    }

    // The child of `node` containing `op`, or -1 when `op` is a direct op of `node`. Children
    // are disjoint: the last one starting at or before `op` is the one, found by bisection
    // (walking up from the innermost region would cost the nesting depth per op, as deep as
    // the chain under revolve:1).
    int childOf(int node, std::uint32_t op) const {
        int n = m_innermost[op];
        if (n == node) return -1;
        const auto& kids = m_childrenByFirst[std::size_t(node)];
        auto it = std::upper_bound(kids.begin(), kids.end(), op, [&](std::uint32_t o, int c) {
            return o < m_nodes[std::size_t(c)].region.firstOp;
        });
        if (it != kids.begin() && m_nodes[std::size_t(*(it - 1))].region.lastOp >= op)
            return *(it - 1);
        while (m_nodes[std::size_t(n)].parent != node) n = m_nodes[std::size_t(n)].parent;
        return n;
    }

    // How far a recompute of `node` runs. Reentrant implementations run the whole region.
    // PyTorch's non-reentrant checkpoint counts the tensors the region's forward packed and
    // stops the recompute (_StopRecomputationError) as soon as the same number has been packed
    // again; autograd packs an op's saved inputs before its kernel runs and its saved outputs
    // after, and a nested checkpoint packs its inputs when it starts. So the recompute runs
    // every op before the last pack: through the last saving op when it saves an output, up to
    // it when it saves only inputs (it is then not run; its inputs are saved), up to a nested
    // region's first op when that comes last.
    RecomputeStop recomputeStop(int node) const {
        const Region& r = m_nodes[std::size_t(node)].region;
        if (recomputesWholeRegion(m_cfg.recomputeImpl)) return {std::int64_t(r.lastOp), -1};
        RecomputeStop stop{std::int64_t(r.firstOp) - 1, -1};
        for (std::uint32_t o = r.firstOp; o <= r.lastOp; ++o) {
            const int c = childOf(node, o);
            if (c < 0) {
                const Op& op = m_g.ops[o];
                if (!m_needsBackward[o] || op.saved.empty()) continue;
                bool outputSaved = false;
                for (TensorId t : op.saved)
                    outputSaved = outputSaved ||
                                  std::find(op.inputs.begin(), op.inputs.end(), t) ==
                                      op.inputs.end();
                stop = outputSaved ? RecomputeStop{o, -1} : RecomputeStop{std::int64_t(o) - 1, o};
            } else if (o == m_nodes[std::size_t(c)].region.firstOp) {
                stop = {std::int64_t(o) - 1, -1};
            }
        }
        return stop;
    }

    // Autograd records an op only when a gradient flows through it (PyTorch builds no graph
    // node for ops on tensors that do not require grad, and so saves nothing for them).
    void computeGradFlow() {
        m_flows.assign(m_g.tensors.size(), false);
        for (TensorId p : m_g.parameters) m_flows[p.index()] = true;
        // A pipeline stage's received input: its gradient goes back to the previous stage.
        for (TensorId t : m_g.inputs)
            if (m_g.tensor(t).requiresGrad) m_flows[t.index()] = true;
        m_needsBackward.assign(m_g.ops.size(), false);
        for (std::size_t o = 0; o < m_g.ops.size(); ++o) {
            const Op& op = m_g.ops[o];
            bool any = !op.params.empty();
            for (TensorId t : op.inputs) any = any || m_flows[t.index()];
            m_needsBackward[o] = any;
            for (TensorId t : op.outputs)
                m_flows[t.index()] = any && m_g.tensor(t).requiresGrad;
        }
    }

    // A reentrant checkpoint (PyTorch's use_reentrant=True, Megatron-LM's CheckpointFunction)
    // is an autograd Function: when none of its inputs requires grad its output does not
    // either, backward never reaches it, and the parameters inside get no gradient (PyTorch
    // warns "None of the inputs have requires_grad=True"). The program is then unsafe.
    void checkReentrantInputs() {
        if (!recomputesWholeRegion(m_cfg.recomputeImpl)) return;
        for (std::size_t n = 1; n < m_nodes.size(); ++n) {
            const Node& node = m_nodes[n];
            bool hasParams = false, inputFlows = false;
            for (std::uint32_t o = node.region.firstOp; o <= node.region.lastOp; ++o)
                hasParams = hasParams || !m_g.ops[o].params.empty();
            for (TensorId t : node.inputs) inputFlows = inputFlows || m_flows[t.index()];
            if (hasParams && !inputFlows)
                unsafe("checkpointed region '" + node.region.label +
                       "' has no input that requires grad: under reentrant checkpointing its "
                       "output does not require grad and its parameters get no gradient");
        }
    }

    TensorId gradKey(TensorId t) const {
        while (m_g.tensor(t).viewOf.valid()) t = m_g.tensor(t).viewOf;
        return t;
    }

    // ---- buffers and steps -----------------------------------------------------------------
    BufferId newBuffer(BufferRole role, TensorId t, DType dtype, std::uint32_t micro) {
        Buffer b;
        b.role = role;
        b.tensor = t;
        b.dtype = dtype;
        b.microStep = micro;
        if (t.valid()) {
            const Tensor& tt = m_g.tensor(t);
            b.batched = tt.batched;
            b.shape.reserve(tt.shape.size() + 1);  // one allocation for the full shape
            if (tt.batched) b.shape.push_back(m_cfg.microBatch);
            b.shape.insert(b.shape.end(), tt.shape.begin(), tt.shape.end());
            std::int64_t bytes = tt.elements() * dtypeBytes(dtype);
            b.bytes = tt.batched ? Affine{bytes, 0} : Affine{0, bytes};
        }
        b.zeroInit = role == BufferRole::ParamGrad || role == BufferRole::ActivationGrad;
        BufferId id(std::uint32_t(m_p.buffers.size()));
        m_p.buffers.push_back(std::move(b));
        m_created.push_back(std::uint32_t(m_steps.size()));
        m_lastUse.push_back(std::uint32_t(m_steps.size()));
        m_holds.push_back(0);
        return id;
    }
    // Scratch of `op` (its backward's when `backward`), or the GEMM library's when `op` is none.
    BufferId workspace(Affine bytes, OpId op, bool backward, std::uint32_t micro) {
        if (bytes.perSample == 0 && bytes.fixed == 0) return BufferId::invalid();
        BufferId id = newBuffer(BufferRole::Workspace, TensorId::invalid(), DType::U8, micro);
        Buffer& b = m_p.buffers[id.index()];
        b.op = op;
        b.backward = backward;
        b.bytes = bytes;
        b.batched = bytes.perSample != 0;
        b.shape = {bytes.at(m_cfg.microBatch)};
        b.category = Category::Workspace;
        return id;
    }

    void touch(BufferId b, std::uint32_t step) {
        if (b.valid()) m_lastUse[b.index()] = std::max(m_lastUse[b.index()], step);
    }
    std::uint32_t emit(Instruction&& ins) {
        auto step = std::uint32_t(m_steps.size());
        for (const auto* list : {&ins.inputs, &ins.outputs, &ins.params, &ins.saved,
                                 &ins.gradOutputs, &ins.gradInputs, &ins.paramGrads, &ins.state})
            for (BufferId b : *list) touch(b, step);
        touch(ins.workspace, step);
        m_steps.push_back(std::move(ins));
        return step;
    }

    // Room for the buffers of a typical program up front, so that the buffer table (and the
    // per-buffer lifetimes beside it) grow once rather than a dozen times, moving every buffer.
    void reserveBuffers() {
        const std::size_t resident =
            m_g.parameters.size() * std::size_t(3 + optimizerStateCount(m_cfg.optimizer)) + 1;
        const std::size_t perStep = m_g.tensors.size() + 2 * m_g.ops.size();
        const std::size_t n = std::min<std::size_t>(
            resident + std::size_t(writtenMicroSteps()) * perStep, std::size_t{1} << 22);
        m_p.buffers.reserve(n);
        m_created.reserve(n);
        m_lastUse.reserve(n);
        m_holds.reserve(n);
    }

    void setupResident() {
        m_paramBuf.assign(m_g.tensors.size(), BufferId::invalid());
        m_paramGrad.assign(m_g.tensors.size(), BufferId::invalid());
        m_stateBufs.assign(m_g.tensors.size(), {});
        const DType act = parameterDType(m_cfg.precision);
        const bool mixed = hasMasterWeights(m_cfg.precision);
        const DType stateType = optimizerStateDType(m_cfg.precision);
        for (TensorId p : m_g.parameters) {
            BufferId b = newBuffer(BufferRole::Parameter, p, act, 0);
            m_p.buffers[b.index()].category = Category::Parameters;
            m_resident.push_back(b);
            m_paramBuf[p.index()] = b;
            BufferList state;
            if (mixed) {
                BufferId mw = newBuffer(BufferRole::MasterWeight, p, DType::F32, 0);
                m_p.buffers[mw.index()].category = Category::OptimizerState;
                state.push_back(mw);
            }
            for (int s = 0; s < optimizerStateCount(m_cfg.optimizer); ++s) {
                BufferId st = newBuffer(BufferRole::OptimizerState, p, stateType, 0);
                m_p.buffers[st.index()].category = Category::OptimizerState;
                m_p.buffers[st.index()].moment = std::uint8_t(s + 1);
                state.push_back(st);
            }
            m_resident.insert(m_resident.end(), state.begin(), state.end());
            m_stateBufs[p.index()] = std::move(state);
        }
        if (m_opt.gemmWorkspaceBytes > 0) {
            BufferId w = workspace({0, m_opt.gemmWorkspaceBytes}, OpId::invalid(), false, 0);
            m_resident.push_back(w);
            m_p.gemmWorkspace = w;
        }
    }


    void microStep(std::uint32_t m) {
        m_micro = m;
        m_gradBuf.assign(m_g.tensors.size(), BufferId::invalid());
        StorageMap cur(m_g.tensors.size());
        for (TensorId t : m_g.inputs) {
            BufferId b = newBuffer(BufferRole::Input, t, m_g.tensor(t).dtype, m);
            m_p.buffers[b.index()].category = Category::Inputs;
            cur[t.index()] = b;
        }
        m_saved.assign(m_g.ops.size(), {});
        m_heldInputs.assign(m_nodes.size(), {});
        m_holding.assign(m_nodes.size(), 0);
        forwardPass(0, 0, std::uint32_t(m_g.ops.size() - 1), cur, m);
        if (m_g.stageOutput.valid() && m_flows[m_g.stageOutput.index()]) {
            // A pipeline stage without the loss: backward starts from the gradient of its
            // output, received from the next stage.
            const TensorId key = gradKey(m_g.stageOutput);
            m_gradBuf[key.index()] =
                newBuffer(BufferRole::ActivationGrad, key, m_g.tensor(key).dtype, m);
        }
        backwardPass(0);
    }

    void hold(BufferId b) { ++m_holds[b.index()]; }
    void release(BufferId b) { --m_holds[b.index()]; }

    static void note(std::vector<std::string>& list, std::string reason) {
        if (std::find(list.begin(), list.end(), reason) == list.end())
            list.push_back(std::move(reason));
    }
    void unsafe(std::string reason) { note(m_p.unsafeReasons, std::move(reason)); }
    void mayDiffer(std::string reason) { note(m_p.mayDifferReasons, std::move(reason)); }
    void safeNote(std::string reason) { note(m_p.safeNotes, std::move(reason)); }

    void forwardPass(int node, std::uint32_t first, std::uint32_t last, StorageMap& cur,
                     std::uint32_t draw) {
        const bool recompute = node != 0;
        for (std::uint32_t o = first; o <= last; ++o) {
            const Op& op = m_g.ops[o];
            int child = childOf(node, o);
            if (child >= 0 && o == m_nodes[std::size_t(child)].region.firstOp) {
                auto& held = m_heldInputs[std::size_t(child)];
                held.clear();
                for (TensorId t : m_nodes[std::size_t(child)].inputs) {
                    BufferId b = cur[m_g.storageOf(t).index()];
                    held.push_back(b);
                    hold(b);
                }
                m_holding[std::size_t(child)] = 1;
            }
            Instruction ins;
            ins.kind = recompute ? InstrKind::Recompute : InstrKind::Forward;
            ins.phase = recompute ? Phase::Recompute : Phase::Forward;
            ins.microStep = m_micro;
            ins.op = OpId(o);
            ins.rngDraw = draw;
            ins.regionDepth = m_nodes[std::size_t(node)].depth;
            ins.inputs.reserve(op.inputs.size());
            ins.outputs.reserve(op.outputs.size());
            ins.params.reserve(op.params.size());
            for (TensorId t : op.inputs) ins.inputs.push_back(cur[m_g.storageOf(t).index()]);
            for (std::size_t k = 0; k < op.outputs.size(); ++k) {
                TensorId t = op.outputs[k];
                TensorId s = m_g.storageOf(t);
                if (s != t) {
                    BufferId b = cur[s.index()];
                    if (k == 0 && op.inPlaceInput >= 0) checkInPlace(node, o, b);
                    ins.outputs.push_back(b);
                } else {
                    BufferId b =
                        newBuffer(BufferRole::Activation, t, m_g.tensor(t).dtype, m_micro);
                    m_p.buffers[b.index()].recomputed = recompute;
                    cur[t.index()] = b;
                    ins.outputs.push_back(b);
                }
            }
            for (TensorId p : op.params) ins.params.push_back(m_paramBuf[p.index()]);
            ins.workspace =
                workspace(opWorkspace(op, false, m_cfg.microBatch), OpId(o), false, m_micro);
            emit(std::move(ins));
            if (child < 0 && m_needsBackward[o]) {
                auto& saved = m_saved[o];
                saved.clear();
                saved.reserve(op.saved.size());
                for (TensorId t : op.saved) {
                    BufferId b = cur[m_g.storageOf(t).index()];
                    saved.push_back(b);
                    hold(b);
                }
            }
        }
    }

    // An in-place op `o` (run by `node`: 0 in forward, else that region's recompute) writes
    // f(x) over buffer `target`. What it harms is decided by who still needs the old values:
    // - the op itself, when its backward reads its input (GELU, SiLU): always wrong;
    // - another op that saved the tensor: wrong unless f leaves those values as they are
    //   (ReLU over a tensor that is never negative);
    // - a checkpointed region that keeps it as an input for its recompute: the recompute reads
    //   f(x) instead of x. That is harmless when the op is that read and f is idempotent (ReLU
    //   again gives the same values), or when nothing the recompute keeps for backward depends
    //   on the values (a region holding only a dropout keeps only its mask).
    // Each finding goes to unsafeReasons ("will differ"), mayDifferReasons, or safeNotes (why a
    // write that looks unsafe is not).
    void checkInPlace(int node, std::uint32_t o, BufferId target) {
        const Op& op = m_g.ops[o];
        const TensorId in = op.inputs[std::size_t(op.inPlaceInput)];
        const std::string& inName = m_g.tensor(in).name;
        const std::string head = "in-place '" + op.name + "' overwrites '" + inName + "'";
        // Saved here (not inside a nested region, which keeps nothing until its recompute).
        if (childOf(node, o) < 0 && m_needsBackward[o] &&
            std::find(op.saved.begin(), op.saved.end(), in) != op.saved.end())
            unsafe(head + ", its own input, which its backward reads: the gradients will "
                          "differ");
        if (m_holds[target.index()] <= 0) return;
        const bool idempotent = op.kind == OpKind::Relu;
        const bool keepsValues = op.kind == OpKind::Relu && neverNegative(in);
        for (std::size_t p = 0; p < m_saved.size(); ++p) {
            if (std::find(m_saved[p].begin(), m_saved[p].end(), target) == m_saved[p].end())
                continue;
            const Op& saver = m_g.ops[p];
            // The tensor's own elementwise producer keeps it: where ReLU changes a value, it
            // sends back a zero gradient, which the producer's backward multiplies by whatever
            // it reads there.
            const bool zeroedOnly = op.kind == OpKind::Relu && m_g.tensor(in).producer.valid() &&
                                    m_g.tensor(in).producer.index() == p &&
                                    elementwiseUnary(saver.kind);
            if (keepsValues) {
                safeNote(head + ", which '" + saver.name + "' keeps for backward, but its "
                         "values are never negative and ReLU leaves them as they are: the "
                         "gradients do not change");
            } else if (zeroedOnly) {
                safeNote(head + ", which '" + saver.name + "' keeps for backward, but ReLU "
                         "changes only the entries whose gradient it sets to zero, and '" +
                         saver.name + "' multiplies that zero by what it reads: the gradients "
                         "do not change");
            } else {
                unsafe(head + ", which '" + saver.name + "' keeps for backward: its backward "
                       "reads the overwritten values and the gradients will differ");
            }
        }
        for (std::size_t k = 1; k < m_nodes.size(); ++k) {
            if (!m_holding[k] || isSelfOrAncestor(int(k), node)) continue;
            const auto& held = m_heldInputs[k];
            if (std::find(held.begin(), held.end(), target) == held.end()) continue;
            const std::string& label = m_nodes[k].region.label;
            const std::string what = head + ", which checkpointed region '" + label +
                                     "' keeps as its input for the recompute";
            if (keepsValues) {
                safeNote(what + ", but its values are never negative and ReLU leaves them as "
                                "they are: the gradients do not change");
                continue;
            }
            const RecomputeEffect e = recomputeEffect(int(k), o, m_g.storageOf(in), idempotent);
            switch (e.kind) {
                case RecomputeEffect::Harmless:
                    safeNote(what + ": " + e.why + "; the gradients do not change");
                    break;
                case RecomputeEffect::MayDiffer:
                    mayDiffer(what + ": " + e.why + "; the gradients may differ");
                    break;
                case RecomputeEffect::WillDiffer:
                    unsafe(what + ": " + e.why + "; the gradients will differ");
                    break;
            }
        }
    }

    static bool elementwiseUnary(OpKind k) {
        return k == OpKind::Relu || k == OpKind::Gelu || k == OpKind::Silu || k == OpKind::Tanh ||
               k == OpKind::Sigmoid;
    }

    bool isSelfOrAncestor(int candidate, int node) const {
        for (int n = node; n >= 0; n = m_nodes[std::size_t(n)].parent)
            if (n == candidate) return true;
        return false;
    }

    // Values of `t` that cannot be negative, as its producer guarantees (ReLU, sigmoid,
    // softmax, or a dropout of such values).
    bool neverNegative(TensorId t) const {
        for (int guard = 0; guard < 64; ++guard) {
            const Tensor& tt = m_g.tensor(t);
            if (!tt.producer.valid()) return false;
            const Op& p = m_g.ops[tt.producer.index()];
            if (p.kind == OpKind::Relu || p.kind == OpKind::Sigmoid || p.kind == OpKind::Softmax)
                return true;
            if (p.kind != OpKind::Dropout || p.inputs.empty()) return false;
            t = p.inputs[0];
        }
        return false;
    }

    struct RecomputeEffect {
        enum Kind { Harmless, MayDiffer, WillDiffer } kind = Harmless;
        std::string why;
    };

    // What region `node`'s recompute makes of an input storage whose values were overwritten
    // by in-place op `writer`: the overwritten values flow through the recomputed ops (ops
    // reading a tainted tensor produce tainted outputs, but for a dropout's mask, drawn from the
    // RNG), and the gradients differ as soon as a tensor kept for backward is tainted.
    RecomputeEffect recomputeEffect(int node, std::uint32_t writer, TensorId storage,
                                    bool idempotent) const {
        const Region& r = m_nodes[std::size_t(node)].region;
        const RecomputeStop stop = recomputeStop(node);
        std::vector<char> tainted(m_g.tensors.size(), 0);
        tainted[storage.index()] = 1;
        auto isTainted = [&](TensorId t) { return tainted[m_g.storageOf(t).index()] != 0; };
        bool read = false;
        for (std::int64_t o = r.firstOp; o <= stop.run; ++o) {
            const Op& op = m_g.ops[std::size_t(o)];
            const int child = childOf(node, std::uint32_t(o));
            if (child >= 0 && std::uint32_t(o) == m_nodes[std::size_t(child)].region.firstOp)
                for (TensorId t : m_nodes[std::size_t(child)].inputs)
                    if (isTainted(t))
                        return {RecomputeEffect::MayDiffer,
                                "the recompute passes the overwritten values on to nested "
                                "region '" + m_nodes[std::size_t(child)].region.label + "'"};
            bool readsTainted = false;
            for (TensorId t : op.inputs) readsTainted = readsTainted || isTainted(t);
            if (!readsTainted) continue;
            read = true;
            if (std::uint32_t(o) == writer && idempotent) {
                // f(f(x)) = f(x): the values written equal the forward's.
                tainted[m_g.storageOf(op.outputs[0]).index()] = 0;
                continue;
            }
            for (std::size_t k = 0; k < op.outputs.size(); ++k)
                if (!(op.kind == OpKind::Dropout && k > 0))
                    tainted[m_g.storageOf(op.outputs[k]).index()] = 1;
            if (child < 0 && m_needsBackward[std::size_t(o)])
                for (TensorId t : op.saved)
                    if (isTainted(t))
                        return {RecomputeEffect::WillDiffer,
                                "its recompute reads the overwritten values, and '" + op.name +
                                    "' keeps what it computes from them for backward"};
        }
        // Nested regions the early stop never reached keep their inputs from the stop on.
        for (std::size_t k = 0; k < m_nodes.size(); ++k) {
            const Node& n = m_nodes[k];
            if (n.parent != node || std::int64_t(n.region.firstOp) <= stop.run) continue;
            for (TensorId t : n.inputs)
                if (isTainted(t))
                    return {RecomputeEffect::MayDiffer,
                            "the recompute passes the overwritten values on to nested region '" +
                                n.region.label + "'"};
        }
        if (stop.savedOnly >= 0)
            for (TensorId t : m_g.ops[std::size_t(stop.savedOnly)].saved)
                if (isTainted(t))
                    return {RecomputeEffect::WillDiffer,
                            "its recompute reads the overwritten values, and '" +
                                m_g.ops[std::size_t(stop.savedOnly)].name +
                                "' keeps them for backward"};
        if (!read) return {RecomputeEffect::Harmless, "its recompute never reads them"};
        if (idempotent && writer >= r.firstOp && std::int64_t(writer) <= stop.run)
            return {RecomputeEffect::Harmless,
                    "its recompute applies ReLU to ReLU's output, and ReLU applied twice is "
                    "ReLU"};
        return {RecomputeEffect::Harmless,
                "its recompute reads the overwritten values, but nothing it keeps for backward "
                "depends on them"};
    }

    void backwardPass(int node) {
        const Region& r = m_nodes[std::size_t(node)].region;
        std::int64_t o = r.lastOp;
        while (o >= std::int64_t(r.firstOp)) {
            int child = childOf(node, std::uint32_t(o));
            if (child < 0) {
                if (m_needsBackward[std::size_t(o)]) emitBackward(std::uint32_t(o));
                --o;
                continue;
            }
            const Node& c = m_nodes[std::size_t(child)];
            StorageMap cur(m_g.tensors.size());
            const auto& held = m_heldInputs[std::size_t(child)];
            for (std::size_t i = 0; i < c.inputs.size(); ++i)
                cur[m_g.storageOf(c.inputs[i]).index()] = held[i];
            const RecomputeStop stop = recomputeStop(child);
            std::uint32_t draw = m_micro;
            if (!c.region.preserveRng) {
                draw = std::uint32_t(m_cfg.accumulationSteps) + (++m_freshDraws);
                for (std::uint32_t k = c.region.firstOp; k <= c.region.lastOp; ++k)
                    if (drawsMask(m_g.ops[k]) && std::int64_t(k) <= stop.run)
                        unsafe("checkpointed region '" + c.region.label +
                               "' does not preserve the RNG state: dropout '" + m_g.ops[k].name +
                               "' draws a different mask when recomputed");
            }
            if (stop.run >= std::int64_t(c.region.firstOp))
                forwardPass(child, c.region.firstOp, std::uint32_t(stop.run), cur, draw);
            if (stop.savedOnly >= 0) saveInputs(std::uint32_t(stop.savedOnly), cur);
            holdSkippedChildren(child, stop.run, cur);
            backwardPass(child);
            const auto end = std::uint32_t(m_steps.size() - 1);
            // The region's inputs stay alive until its backward has finished.
            for (BufferId b : held) {
                touch(b, end);
                release(b);
            }
            m_holding[std::size_t(child)] = 0;
            // A reentrant checkpoint back-propagates from the outputs its recompute returned,
            // which it holds until that backward returns.
            if (recomputesWholeRegion(m_cfg.recomputeImpl))
                for (TensorId s : c.outputs) touch(cur[s.index()], end);
            o = std::int64_t(c.region.firstOp) - 1;
        }
    }

    // The saved tensors of op `o`, all of them its inputs, taken where the recompute stopped
    // before running it.
    void saveInputs(std::uint32_t o, const StorageMap& cur) {
        auto& saved = m_saved[o];
        saved.clear();
        for (TensorId t : m_g.ops[o].saved) {
            BufferId b = cur[m_g.storageOf(t).index()];
            saved.push_back(b);
            hold(b);
        }
    }

    // A nested region that the early stop of its parent's recompute never reached (it ends the
    // parent, or the parent recomputes nothing) still holds its inputs: they exist at the stop
    // (produced before it, or the parent's own held inputs), and its backward reads them.
    void holdSkippedChildren(int node, std::int64_t stop, const StorageMap& cur) {
        for (const int child : m_children[std::size_t(node)]) {
            const auto k = std::size_t(child);
            const Node& n = m_nodes[k];
            if (std::int64_t(n.region.firstOp) <= stop) continue;
            auto& held = m_heldInputs[k];
            held.clear();
            for (TensorId t : n.inputs) {
                BufferId b = cur[m_g.storageOf(t).index()];
                held.push_back(b);
                hold(b);
            }
            m_holding[k] = 1;
        }
    }

    void emitBackward(std::uint32_t o) {
        const Op& op = m_g.ops[o];
        Instruction ins;
        ins.kind = InstrKind::Backward;
        ins.phase = Phase::Backward;
        ins.microStep = m_micro;
        ins.op = OpId(o);
        ins.saved = m_saved[o];
        ins.gradOutputs.reserve(op.outputs.size());
        ins.gradInputs.reserve(op.inputs.size());
        ins.params.reserve(op.params.size());
        ins.paramGrads.reserve(op.params.size());
        for (TensorId t : op.outputs) {
            BufferId b;
            if (m_flows[t.index()]) b = m_gradBuf[gradKey(t).index()];
            ins.gradOutputs.push_back(b);
        }
        for (TensorId t : op.inputs) {
            BufferId b;
            if (m_flows[t.index()]) {
                TensorId key = gradKey(t);
                b = m_gradBuf[key.index()];
                if (!b.valid()) {
                    b = newBuffer(BufferRole::ActivationGrad, key, m_g.tensor(key).dtype, m_micro);
                    m_gradBuf[key.index()] = b;
                }
            }
            ins.gradInputs.push_back(b);
        }
        for (TensorId p : op.params) {
            ins.params.push_back(m_paramBuf[p.index()]);
            BufferId b = m_paramGrad[p.index()];
            if (!b.valid()) {
                b = newBuffer(BufferRole::ParamGrad, p, gradientDType(m_cfg), m_micro);
                m_p.buffers[b.index()].category = Category::Gradients;
                m_paramGrad[p.index()] = b;
            }
            ins.paramGrads.push_back(b);
        }
        ins.workspace = workspace(opWorkspace(op, true, m_cfg.microBatch), ins.op, true, m_micro);
        for (BufferId b : ins.saved) release(b);
        m_saved[o].clear();  // no longer kept: an in-place write into them harms nothing
        emit(std::move(ins));
    }

    void optimizerSteps() {
        // foreach: one list of temporaries over every parameter the step updates, live from
        // the first parameter's update to the last one's (training_rules.h).
        BufferId shared;
        if (m_cfg.optimizerImpl == OptimizerImpl::Foreach) {
            std::int64_t bytes = 0;
            for (TensorId p : m_g.parameters)
                if (m_paramGrad[p.index()].valid())
                    bytes = satAdd(bytes, optimizerTemporaryBytes(m_g.tensor(p).elements(),
                                                                  m_cfg));
            shared = optimizerWorkspace(bytes, TensorId::invalid());
        }
        for (TensorId p : m_g.parameters) {
            const BufferId grad = m_paramGrad[p.index()];
            if (!grad.valid()) continue;  // no gradient reached it: skipped, as torch does
            Instruction ins;
            ins.workspace = shared;
            if (m_cfg.optimizerImpl == OptimizerImpl::ForLoop)
                ins.workspace = optimizerWorkspace(
                    optimizerTemporaryBytes(m_g.tensor(p).elements(), m_cfg), p);
            ins.kind = InstrKind::OptimizerStep;
            ins.phase = Phase::Optimizer;
            ins.microStep = std::uint32_t(m_cfg.accumulationSteps - 1);
            ins.parameter = p;
            ins.params = {m_paramBuf[p.index()]};
            ins.paramGrads = {grad};
            ins.state = m_stateBufs[p.index()];
            emit(std::move(ins));
        }
    }

    // Temporaries of the optimizer step (`parameter` for a for-loop step's own, invalid for
    // foreach's list over all parameters); none when `bytes` is 0.
    BufferId optimizerWorkspace(std::int64_t bytes, TensorId parameter) {
        if (bytes <= 0) return BufferId::invalid();
        BufferId id = workspace({0, bytes}, OpId::invalid(), false,
                                std::uint32_t(m_cfg.accumulationSteps - 1));
        Buffer& b = m_p.buffers[id.index()];
        b.tensor = parameter;
        b.optimizer = true;
        return id;
    }

    // Every byte count must stay far inside int64 once scaled by the micro-batch, or sums
    // would wrap around and a huge model could look as if it fits.
    Status checkSizes() const {
        __extension__ using Wide = __int128;  // a GCC/Clang type: wide enough for any product
        constexpr Wide kMaxTotal = Wide(1) << 62;
        Wide total = 0;
        for (const Buffer& b : m_p.buffers) {
            const Wide bytes = Wide(b.bytes.perSample) * m_cfg.microBatch + b.bytes.fixed;
            total += bytes;
            if (total > kMaxTotal)
                return makeError(bufferLabel(m_g, b).insert(0, 1, '\'') +
                                 "' and the other tensors of one step take more "
                                 "than 2^62 bytes at micro-batch " +
                                 std::to_string(m_cfg.microBatch) +
                                 ": far beyond any device; use a smaller micro-batch or model");
        }
        return Ok{};
    }

    // ---- categories and final instruction list ---------------------------------------------
    void assemble() {
        const std::size_t nBuf = m_p.buffers.size();
        std::vector<bool> resident(nBuf, false);
        for (BufferId b : m_resident) resident[b.index()] = true;
        for (std::size_t i = 0; i < nBuf; ++i) {
            Buffer& b = m_p.buffers[i];
            if (b.role == BufferRole::Activation) {
                const Instruction& creator = m_steps[m_created[i]];
                const Instruction& last = m_steps[m_lastUse[i]];
                if (creator.kind == InstrKind::Recompute)
                    b.category = Category::RecomputedActivations;
                else
                    b.category = last.kind == InstrKind::Backward ? Category::SavedActivations
                                                                  : Category::Transient;
            } else if (b.role == BufferRole::ActivationGrad) {
                b.category = Category::Transient;
            }
        }
        // Inputs are loaded at the start of their micro-batch and held by the training loop's
        // variables (`for x, y in loader`) until its last instruction: the optimizer step
        // included for the last micro-batch.
        std::vector<std::uint32_t> microStart(std::size_t(m_cfg.accumulationSteps), kNoStep);
        std::vector<std::uint32_t> microEnd(std::size_t(m_cfg.accumulationSteps), 0);
        for (std::uint32_t s = 0; s < m_steps.size(); ++s) {
            const std::uint32_t m = m_steps[s].microStep;
            if (m_steps[s].phase != Phase::Optimizer)
                microStart[m] = std::min(microStart[m], s);
            microEnd[m] = std::max(microEnd[m], s);
        }
        // Buckets of allocations and frees per step, as flat arrays (counting sort): a vector
        // per step would cost a heap allocation each on programs of 20k instructions.
        const std::size_t nSteps = m_steps.size();
        std::vector<std::uint32_t> allocStep(nBuf, kNoStep), freeStep(nBuf, kNoStep);
        std::vector<std::uint32_t> allocStart(nSteps + 1, 0), freeStart(nSteps + 1, 0);
        for (std::size_t i = 0; i < nBuf; ++i) {
            if (resident[i]) continue;
            const Buffer& b = m_p.buffers[i];
            const std::uint32_t created =
                b.role == BufferRole::Input ? microStart[b.microStep] : m_created[i];
            allocStep[i] = created;
            freeStep[i] = std::max(m_lastUse[i], created);
            if (b.role == BufferRole::Input)
                freeStep[i] = std::max(freeStep[i], microEnd[b.microStep]);
            ++allocStart[created + 1];
            ++freeStart[freeStep[i] + 1];
        }
        for (std::size_t s = 0; s < nSteps; ++s) {
            allocStart[s + 1] += allocStart[s];
            freeStart[s + 1] += freeStart[s];
        }
        std::vector<BufferId> allocs(allocStart[nSteps]), frees(freeStart[nSteps]);
        {
            std::vector<std::uint32_t> fillA(allocStart.begin(), allocStart.end() - 1);
            std::vector<std::uint32_t> fillF(freeStart.begin(), freeStart.end() - 1);
            for (std::size_t i = 0; i < nBuf; ++i) {
                if (allocStep[i] == kNoStep) continue;
                allocs[fillA[allocStep[i]]++] = BufferId(std::uint32_t(i));
                frees[fillF[freeStep[i]]++] = BufferId(std::uint32_t(i));
            }
        }
        auto& out = m_p.instructions;
        out.reserve(m_steps.size() + 2 * nBuf);
        auto memOp = [&](InstrKind k, BufferId b, Phase ph, std::uint32_t micro) {
            Instruction& ins = out.emplace_back();
            ins.kind = k;
            ins.buffer = b;
            ins.phase = ph;
            ins.microStep = micro;
        };
        for (BufferId b : m_resident) memOp(InstrKind::Alloc, b, Phase::Setup, 0);
        for (std::uint32_t s = 0; s < m_steps.size(); ++s) {
            const Phase ph = m_steps[s].phase;
            const std::uint32_t micro = m_steps[s].microStep;
            for (std::uint32_t k = allocStart[s]; k < allocStart[s + 1]; ++k)
                memOp(InstrKind::Alloc, allocs[k], ph, micro);
            out.push_back(std::move(m_steps[s]));
            for (std::uint32_t k = freeStart[s]; k < freeStart[s + 1]; ++k)
                memOp(InstrKind::Free, frees[k], ph, micro);
        }
        for (auto it = m_resident.rbegin(); it != m_resident.rend(); ++it)
            memOp(InstrKind::Free, *it, Phase::Teardown, std::uint32_t(m_cfg.accumulationSteps - 1));
    }

    const Graph& m_g;
    const Plan& m_plan;
    const TrainingConfig& m_cfg;
    const CompileOptions& m_opt;
    Program m_p;

    std::vector<Node> m_nodes;
    // Each node's children, in the order they were placed and in op order.
    std::vector<std::vector<int>> m_children, m_childrenByFirst;
    std::vector<int> m_innermost;
    std::vector<bool> m_flows, m_needsBackward;

    std::vector<Instruction> m_steps;
    std::vector<std::uint32_t> m_created, m_lastUse;
    std::vector<int> m_holds;
    std::vector<BufferId> m_resident;
    // Indexed by TensorId.
    std::vector<BufferId> m_paramBuf, m_paramGrad, m_gradBuf;
    std::vector<BufferList> m_stateBufs;
    std::vector<BufferList> m_saved;
    std::vector<std::vector<BufferId>> m_heldInputs;
    std::vector<char> m_holding;  // per node: its held inputs are kept (until its backward ends)
    std::uint32_t m_micro = 0;
    std::uint32_t m_freshDraws = 0;
    std::uint32_t m_fresh = 0;  // fresh draws per micro-step, when compact
};

}  // namespace

Result<Program> compile(const Graph& g, const Plan& plan, const TrainingConfig& config,
                        const CompileOptions& options) {
    return Compiler(g, plan, config, options).run();
}

}  // namespace remat
