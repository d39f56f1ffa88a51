#include "program_driver.h"

#include <algorithm>
#include <cstring>
#include <exception>

#include "initial_values.h"

namespace remat {

namespace {

std::int64_t bufferBytes(const Buffer& b) {
    std::int64_t n = 1;
    for (auto d : b.shape) n *= d;
    return n * dtypeBytes(b.dtype);
}

bool isLossOp(OpKind k) { return k == OpKind::CrossEntropy || k == OpKind::Mse; }

// One step (warm-up or measured) of one program: owns the blocks it allocated and gives
// every one back, whatever way the step ends.
class StepRunner {
public:
    StepRunner(Backend& backend, const Graph& g, const Program& p, const ExecuteOptions& o,
               bool measured)
        : m_backend(backend), m_g(g), m_p(p), m_o(o), m_measured(measured),
          m_blocks(p.buffers.size()) {}

    ~StepRunner() { releaseAll(); }

    Result<Measurement> run() {
        const std::size_t n = m_p.instructions.size();
        // Every iteration of the repeat counts towards progress; instructions are timed and
        // their live bytes recorded per instruction as written (times summed over iterations,
        // live bytes those of the first: every iteration has the same).
        const auto executed = std::size_t(m_p.executedInstructions());
        if (auto st = m_backend.beginStep(n); !st) return st.error();
        m_m.backend = m_backend.name();
        m_m.deviceName = m_backend.deviceName();
        m_m.live.reserve(n);
        m_m.losses.assign(std::size_t(m_p.accumulationSteps), 0.0f);
        Status result = Ok{};
        std::size_t done = 0;
        std::int64_t iteration = 0;  // of the repeat's body
        for (std::size_t i = 0; i < n;) {
            const std::int64_t it = m_p.inRepeat(i) ? iteration : 0;
            if (m_o.cancel && m_o.cancel->load()) {
                result = makeError("cancelled at instruction " + std::to_string(i) + " of " +
                                   std::to_string(n) + where(i, it));
                break;
            }
            m_backend.startTimer(i);
            Status st = Ok{};
            try {
                st = step(m_p.instructions[i], it);
            } catch (const std::exception& e) {
                st = makeError(e.what());
            }
            m_backend.stopTimer(i);
            if (!st) {
                result = makeError("instruction " + std::to_string(i) + " of " +
                                   std::to_string(n) + where(i, it) + " (" +
                                   describeInstruction(m_g, m_p, i) + "): " + st.error().message);
                break;
            }
            if (it == 0) {
                m_m.live.push_back(m_live);
                const std::int64_t total = totalBytes(m_live);
                if (total > m_m.peakBytes) {
                    m_m.peakBytes = total;
                    m_m.peakInstruction = i;
                    m_m.breakdownAtPeak = m_live;
                }
            }
            ++done;
            if (m_measured && m_o.progress) m_o.progress(done, executed);
            ++i;
            if (m_p.repeat && i == m_p.repeat->end && ++iteration < m_p.repeat->times)
                i = m_p.repeat->begin;
        }
        releaseAll();
        Status end = m_backend.endStep();
        if (!result) return result.error();
        if (!end) return end.error();
        auto elapsed = m_backend.elapsedSeconds();
        if (!elapsed) return elapsed.error();
        m_m.elapsedS = std::move(*elapsed);
        m_m.elapsedS.resize(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const double s = m_m.elapsedS[i];
            switch (m_p.instructions[i].kind) {
                case InstrKind::Forward: m_m.timeS.forward += s; break;
                case InstrKind::Recompute: m_m.timeS.recompute += s; break;
                case InstrKind::Backward: m_m.timeS.backward += s; break;
                case InstrKind::OptimizerStep: m_m.timeS.optimizer += s; break;
                case InstrKind::Alloc:
                case InstrKind::Free: m_m.memoryOpsS += s; break;
            }
        }
        m_m.device = m_backend.memoryStats();
        auto byId = [](const ParameterValues& a, const ParameterValues& b) {
            return a.parameter < b.parameter;
        };
        std::sort(m_m.gradients.begin(), m_m.gradients.end(), byId);
        std::sort(m_m.parameters.begin(), m_m.parameters.end(), byId);
        return std::move(m_m);
    }

private:
    // ", micro-step 5" for an instruction of the repeat's body (numbered from 1, as shown).
    std::string where(std::size_t i, std::int64_t it) const {
        if (!m_p.inRepeat(i)) return {};
        return ", micro-step " + std::to_string(microStepAt(m_p.instructions[i], it) + 1);
    }

    // `it`: the iteration of the repeat's body (0 outside it).
    Status step(const Instruction& ins, std::int64_t it) {
        switch (ins.kind) {
            case InstrKind::Alloc: return alloc(ins.buffer, it);
            case InstrKind::Free: return free(ins);
            case InstrKind::Forward:
            case InstrKind::Recompute:
            case InstrKind::Backward: return compute(ins, it);
            case InstrKind::OptimizerStep: return optimizerStep(ins);
        }
        return makeError("unknown instruction kind");
    }

    Status alloc(BufferId id, std::int64_t it) {
        const Buffer& b = m_p.buffer(id);
        const std::int64_t bytes = bufferBytes(b);
        if (bytes <= 0) return makeError("buffer '" + bufferLabel(m_g, b) + "' has no elements");
        auto block = m_backend.allocate(bytes);
        if (!block)
            return makeError("cannot allocate " + std::to_string(bytes) + " bytes for '" +
                             bufferLabel(m_g, b) + "': " + block.error().message);
        m_blocks[id.index()] = *block;
        m_live[std::size_t(b.category)] += bytes;
        if (id == m_p.gemmWorkspace) {
            if (auto st = m_backend.setGemmWorkspace(*block); !st) return st;
        }
        return initialise(b, *block, it);
    }

    Status initialise(const Buffer& b, DeviceBlock block, std::int64_t it) {
        if (b.zeroInit) return m_backend.fillZero(block);
        switch (b.role) {
            case BufferRole::Parameter:
            case BufferRole::MasterWeight: {
                const Tensor& t = m_g.tensor(b.tensor);
                auto bytes = encodeFloats(parameterInitialValues(t, m_o.seed), b.dtype);
                if (std::int64_t(bytes.size()) != block.bytes)
                    return makeError("parameter '" + t.name + "' is not a floating dtype");
                return m_backend.upload(block, bytes.data(), block.bytes);
            }
            case BufferRole::OptimizerState: return m_backend.fillZero(block);
            case BufferRole::Input: return initialiseInput(b, block, bufferMicroStepAt(b, it));
            default: return Ok{};  // written by the op that produces it before any read
        }
    }

    Status initialiseInput(const Buffer& b, DeviceBlock block, std::uint32_t microStep) {
        const Tensor& t = m_g.tensor(b.tensor);
        std::int64_t elements = 1;
        for (auto d : b.shape) elements *= d;
        const std::uint32_t batch = m_o.firstBatch + microStep;
        if (b.dtype == DType::I64) {
            const std::int64_t classes = integerInputClasses(m_g, b.tensor);
            if (classes <= 0)
                return makeError("no op gives the value range of integer input '" + t.name + "'");
            auto v = integerInputValues(t, elements, classes, m_o.seed, batch);
            return m_backend.upload(block, v.data(), block.bytes);
        }
        auto bytes = encodeFloats(denseInputValues(t, elements, m_o.seed, batch), b.dtype);
        if (std::int64_t(bytes.size()) != block.bytes)
            return makeError("input '" + t.name + "' has an unsupported dtype");
        return m_backend.upload(block, bytes.data(), block.bytes);
    }

    Result<std::vector<float>> readFloats(const Buffer& b, DeviceBlock block) {
        std::vector<std::uint8_t> bytes(std::size_t(block.bytes));
        if (auto st = m_backend.download(block, bytes.data(), block.bytes); !st) return st.error();
        return decodeFloats(bytes, b.dtype);
    }

    Status free(const Instruction& ins) {
        const Buffer& b = m_p.buffer(ins.buffer);
        DeviceBlock& block = m_blocks[ins.buffer.index()];
        const bool wantGrad = m_measured && m_o.collectGradients && b.role == BufferRole::ParamGrad;
        const bool wantParam = m_measured && m_o.collectParameters &&
                               b.role == BufferRole::Parameter && ins.phase == Phase::Teardown;
        if (wantGrad || wantParam) {
            auto values = readFloats(b, block);
            if (!values) return values.error();
            ParameterValues pv{b.tensor, m_g.tensor(b.tensor).name, std::move(*values)};
            (wantGrad ? m_m.gradients : m_m.parameters).push_back(std::move(pv));
        }
        if (ins.buffer == m_p.gemmWorkspace) {
            if (auto st = m_backend.setGemmWorkspace(DeviceBlock{}); !st) return st;
        }
        m_backend.release(block);
        m_live[std::size_t(b.category)] -= bufferBytes(b);
        block = DeviceBlock{};
        return Ok{};
    }

    TensorRef ref(BufferId id) const {
        if (!id.valid()) return {};
        const Buffer& b = m_p.buffer(id);
        return TensorRef{m_blocks[id.index()].data, b.dtype, b.shape};
    }
    std::vector<TensorRef> refs(const BufferList& ids) const {
        std::vector<TensorRef> out;
        out.reserve(ids.size());
        for (BufferId id : ids) out.push_back(ref(id));
        return out;
    }

    Status compute(const Instruction& ins, std::int64_t it) {
        const Op& op = m_g.op(ins.op);
        if (op.kind == OpKind::Flatten) return Ok{};  // a view: same buffer, same gradient
        OpCall c;
        c.op = &op;
        c.opId = ins.op;
        c.microBatch = m_p.microBatch;
        c.params = refs(ins.params);
        c.workspace = ref(ins.workspace);
        c.seed = m_o.seed;
        c.rngDraw = rngDrawAt(m_p, ins, it);
        c.lossGradScale = 1.0f / float(m_p.accumulationSteps);
        if (ins.kind == InstrKind::Backward) {
            c.saved = refs(ins.saved);
            c.gradOutputs = refs(ins.gradOutputs);
            c.gradInputs = refs(ins.gradInputs);
            c.paramGrads = refs(ins.paramGrads);
            return runOp(m_backend, c, true);
        }
        c.inputs = refs(ins.inputs);
        c.outputs = refs(ins.outputs);
        c.recompute = ins.kind == InstrKind::Recompute;
        if (auto st = runOp(m_backend, c, false); !st) return st;
        if (ins.kind == InstrKind::Forward && isLossOp(op.kind)) {
            float loss = 0.0f;
            const DeviceBlock& block = m_blocks[ins.outputs[0].index()];
            if (block.bytes != 4 || m_p.buffer(ins.outputs[0]).dtype != DType::F32)
                return makeError("the loss is not an fp32 scalar");
            if (auto st = m_backend.download(block, &loss, 4); !st) return st;
            const std::uint32_t micro = microStepAt(ins, it);
            if (micro < m_m.losses.size()) m_m.losses[micro] = loss;
        }
        return Ok{};
    }

    Status optimizerStep(const Instruction& ins) {
        if (ins.params.size() != 1 || ins.paramGrads.size() != 1)
            return makeError("an optimizer step updates exactly one parameter");
        OptimizerCall c;
        c.optimizer = m_p.optimizer;
        c.param = ref(ins.params[0]);
        c.grad = ref(ins.paramGrads[0]);
        int states = 0;
        for (BufferId s : ins.state) {
            const BufferRole role = m_p.buffer(s).role;
            if (role == BufferRole::MasterWeight) c.master = ref(s);
            else if (role == BufferRole::OptimizerState) (states++ == 0 ? c.state1 : c.state2) = ref(s);
        }
        if (states != optimizerStateCount(m_p.optimizer))
            return makeError("optimizer '" + std::string(optimizerName(m_p.optimizer)) +
                             "' needs " + std::to_string(optimizerStateCount(m_p.optimizer)) +
                             " state buffers, the program binds " + std::to_string(states));
        if ((m_p.precision != Precision::Fp32) != c.master.bound())
            return makeError("a mixed-precision step needs exactly one fp32 master weight");
        return m_backend.optimizerStep(c);
    }

    void releaseAll() {
        for (DeviceBlock& b : m_blocks) {
            if (b.data) m_backend.release(b);
            b = DeviceBlock{};
        }
    }

    Backend& m_backend;
    const Graph& m_g;
    const Program& m_p;
    const ExecuteOptions& m_o;
    bool m_measured;
    std::vector<DeviceBlock> m_blocks;
    CategoryBytes m_live{};
    Measurement m_m;
};

}  // namespace

Status checkRunnable(const Backend& backend, const Graph& graph, const Program& program,
                     bool allowUnsafe) {
    // Settings the executors do not implement: refused by name before any op, so the message
    // says which setting to change rather than which kernel is missing.
    const std::string who = "the " + backend.displayName() + " executor";
    if (program.precision != Precision::Fp32 && program.precision != Precision::MixedBf16 &&
        program.precision != Precision::MixedFp16)
        return makeError(who + " runs fp32, mixed-bf16 and mixed-fp16 programs; precision " +
                         std::string(precisionName(program.precision)) +
                         " is simulated only (remat simulate)");
    if (program.mainGrads == MainGrads::Fp32 && program.precision != Precision::Fp32)
        return makeError(who + " keeps parameter gradients in the parameters' dtype; fp32 main "
                         "gradients (main_grads fp32) are simulated only");
    // cuBLAS runs the CUDA executor's fp32 GEMMs in full FP32 (gemm.cu); a TF32 prediction
    // would be compared with an FP32 measurement. Convolutions it does not run at all.
    if (backend.name() == "cuda" && program.precision == Precision::Fp32 &&
        tf32ForMatmul(program.tf32))
        return makeError(who + " runs fp32 matmuls in full FP32; run with --tf32 conv or none "
                         "(tf32 " + std::string(tf32ModeName(program.tf32)) +
                         " is simulated only)");
    for (const Op& op : graph.ops) {
        if (op.kind == OpKind::LinearCrossEntropy)
            return makeError(who + " runs the standard cross-entropy; the chunked one "
                             "(loss_impl chunked, '" + op.name + "') is simulated only");
        if (op.kind == OpKind::Embedding && op.attrs.tokenTypes > 0 && backend.name() == "cuda")
            return makeError(who + " cannot run token-type embeddings (token_types of the "
                             "embedding '" + op.name + "') yet; the CPU executor runs them");
    }
    // Every instruction's op is one of the graph's: when the backend runs all of them, no
    // instruction needs a look (a program near the size limit has millions). Otherwise the
    // first instruction that it cannot run is named.
    const bool allSupported = std::all_of(graph.ops.begin(), graph.ops.end(), [&](const Op& op) {
        return op.kind == OpKind::Flatten || backend.supports(op.kind);
    });
    for (std::size_t i = 0; !allSupported && i < program.instructions.size(); ++i) {
        const Instruction& ins = program.instructions[i];
        if (!ins.op.valid() || ins.op.index() >= graph.ops.size()) continue;
        const Op& op = graph.op(ins.op);
        if (op.kind == OpKind::Flatten || backend.supports(op.kind)) continue;
        const int layer = graph.module(op.module).layerIndex;
        return makeError("the " + backend.displayName() + " executor cannot run " +
                         std::string(opKindName(op.kind)) + " (layer " + std::to_string(layer) +
                         ", '" + op.name + "') yet");
    }
    if (program.unsafe() && !allowUnsafe) {
        std::string reasons;
        for (const auto& r : program.allUnsafeReasons()) reasons += (reasons.empty() ? "" : "; ") + r;
        return makeError("the program is unsafe (" + reasons +
                         "); its gradients would be wrong. Run it anyway only to show the "
                         "damage (--allow-unsafe)");
    }
    return Ok{};
}

ProgramDriver::ProgramDriver(std::unique_ptr<Backend> backend) : m_backend(std::move(backend)) {}
ProgramDriver::~ProgramDriver() = default;

std::string ProgramDriver::name() const { return m_backend->name(); }

Result<Measurement> ProgramDriver::execute(const Graph& graph, const Program& program,
                                           const ExecuteOptions& options) {
    if (auto st = validateProgram(graph, program); !st) return st.error();
    if (auto st = checkRunnable(*m_backend, graph, program, options.allowUnsafe); !st)
        return st.error();
    if (options.warmupSteps < 0) return makeError("warm-up steps must not be negative");
    for (int w = 0; w < options.warmupSteps; ++w) {
        auto r = StepRunner(*m_backend, graph, program, options, false).run();
        if (!r) return makeError("warm-up step " + std::to_string(w + 1) + ": " + r.error().message);
    }
    return StepRunner(*m_backend, graph, program, options, true).run();
}

}  // namespace remat
