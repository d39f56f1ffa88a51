#include "simulator.h"
#include "simulator_lean.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "calibration.h"
#include "gemm_model.h"
#include "training_rules.h"

namespace remat {

double Timeline::samplesPerS() const {
    double t = timeS.total();
    return t > 0 ? double(samplesPerStep) / t : 0.0;
}

namespace {

// The slower of the op's compute (its GEMMs at their shape's efficiency, or CUDA-core work at
// the vector peak) and its bytes at the achievable bandwidth, plus a launch per kernel.
double opTime(const Graph& g, const Op& op, Direction dir, std::int64_t b, DType dtype,
              bool tf32, const DeviceSpec& d) {
    const OpCost& c = dir == Direction::Forward ? op.forward : op.backward;
    const double bytes = c.bytesMoved.atReal(b);
    double compute = 0.0;
    const GemmList gemms = c.matmul ? opGemms(g, op, dir, b) : GemmList{};
    if (!gemms.empty()) {
        for (const GemmShape& s : gemms) compute += gemmComputeTime(d, dtype, s, tf32);
    } else {
        const double peak = c.matmul ? d.matmulPeak(dtype, tf32) * d.matmulBestFraction(dtype, tf32)
                                      : d.vectorPeak();
        compute = peak > 0 ? c.flops.atReal(b) / peak : 0.0;
    }
    const double bw = d.achievableBandwidth();
    const double memory = bw > 0 ? bytes / bw : 0.0;
    return std::max(compute, memory) + double(opKernelCount(op, dir)) * d.launchOverheadS;
}

}  // namespace

namespace {

// instructionTime with the program's buffers given apart (simulateLean's resized ones).
double instructionTimeWith(const Graph& g, const Program& p, const std::vector<Buffer>& bufs,
                           const Instruction& ins, const DeviceSpec& d) {
    const std::int64_t b = p.microBatch;
    const DType act = computeDType(p.precision);
    switch (ins.kind) {
        case InstrKind::Alloc:
        case InstrKind::Free: return 0.0;
        case InstrKind::OptimizerStep: {
            // Elementwise over the parameter: read parameter, gradient and state, write
            // parameter and state (fp32 master weights included in `state`).
            double bytes = 0;
            for (BufferId s : ins.params) bytes += 2.0 * double(bufs[s.index()].bytes.at(b));
            for (BufferId s : ins.paramGrads) bytes += double(bufs[s.index()].bytes.at(b));
            for (BufferId s : ins.state) bytes += 2.0 * double(bufs[s.index()].bytes.at(b));
            // foreach and for-loop temporaries: written once and read once.
            if (ins.parameter.valid())
                bytes += 2.0 * double(optimizerTemporaryBytes(g.tensor(ins.parameter).elements(),
                                                             p.precision, p.optimizer,
                                                             p.optimizerImpl));
            return bytes / d.achievableBandwidth() + d.launchOverheadS;
        }
        default: break;
    }
    const Op& op = g.op(ins.op);
    if (d.calibrated()) {
        if (const MeasuredOpTime* m = measuredTime(d, g, op, p.precision)) {
            const double scale = double(b) / double(std::max<std::int64_t>(1, d.calibrationMicroBatch));
            return (ins.kind == InstrKind::Backward ? m->backwardS : m->forwardS) * scale;
        }
    }
    if (op.kind == OpKind::Flatten) return 0.0;
    if (op.kind == OpKind::SelectToken && ins.kind != InstrKind::Backward) return 0.0;  // a view
    // TF32 (PyTorch's allow_tf32 flags): convolutions and matmuls each by their own flag.
    const bool tf32 = op.kind == OpKind::Conv2d ? tf32ForConv(p.tf32) : tf32ForMatmul(p.tf32);
    return opTime(g, op, ins.kind == InstrKind::Backward ? Direction::Backward : Direction::Forward,
                  b, act, tf32, d);
}

}  // namespace

double instructionTime(const Graph& g, const Program& p, const Instruction& ins,
                       const DeviceSpec& d) {
    return instructionTimeWith(g, p, p.buffers, ins, d);
}

namespace {

// simulate() and simulateLean(): `Keep` keeps the per-instruction arrays; without it `span`
// receives the highest live bytes inside [span->first, span->last] and outside it.
template <bool Keep>
Timeline simulateCore(const Graph& g, const Program& p, const DeviceSpec& d,
                      const CancelFlag* cancel, OpTimeMemo* memo, LiveSpan* span,
                      const std::vector<Buffer>* buffers) {
    const std::vector<Buffer>& bufs = buffers ? *buffers : p.buffers;
    Timeline t;
    const std::size_t n = p.instructions.size();
    if (memo && (memo->graph != &g || memo->device != &d || memo->microBatch != p.microBatch ||
                 memo->precision != p.precision || memo->tf32 != p.tf32 ||
                 memo->forward.size() != g.ops.size())) {
        memo->graph = &g;
        memo->device = &d;
        memo->microBatch = p.microBatch;
        memo->precision = p.precision;
        memo->tf32 = p.tf32;
        memo->forward.assign(g.ops.size(), -1.0);
        memo->backward.assign(g.ops.size(), -1.0);
    }
    if constexpr (Keep) {
        t.live.resize(n);
        t.durationS.resize(n);
        t.endS.resize(n);
    }
    const std::int64_t b = p.microBatch;
    t.samplesPerStep = p.microBatch * p.accumulationSteps;

    // The last micro-batch's first backward instruction.
    std::size_t firstBackward = n;
    for (std::size_t i = 0; i < n; ++i) {
        const Instruction& ins = p.instructions[i];
        if (ins.kind == InstrKind::Backward &&
            ins.microStep == std::uint32_t(p.accumulationSteps - 1)) {
            firstBackward = i;
            break;
        }
    }

    // A compute instruction's time depends only on its op and direction (the program's
    // micro-batch, precision and TF32 settings and the device are fixed): each is worked out
    // once, however often recomputes run the op again.
    std::vector<double> opSeconds[2];  // [forward and recompute, backward], NaN: not yet
    for (auto& v : opSeconds) v.assign(g.ops.size(), std::numeric_limits<double>::quiet_NaN());
    // With a memo from the caller (fit's search), the times carry over between programs of the
    // same graph, device and settings.
    auto computeTime = [&](const Instruction& ins) {
        if (ins.kind == InstrKind::OptimizerStep || !ins.op.valid() ||
            ins.op.index() >= g.ops.size())
            return instructionTimeWith(g, p, bufs, ins, d);
        const bool backward = ins.kind == InstrKind::Backward;
        if (memo) {
            double& slot = (backward ? memo->backward : memo->forward)[ins.op.index()];
            if (slot < 0) slot = instructionTime(g, p, ins, d);
            return slot;
        }
        double& seconds = opSeconds[backward ? 1 : 0][ins.op.index()];
        if (std::isnan(seconds)) seconds = instructionTime(g, p, ins, d);
        return seconds;
    };

    CategoryBytes live{};
    std::int64_t liveActivationBytes = 0;
    Affine liveActivationAffine;
    Affine liveAffine;
    const std::int64_t usable = d.usableBytes();
    std::int64_t maxB = kMaxMicroBatch;
    double clock = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if ((i & 0x3fff) == 0 && cancelRequested(cancel)) return t;
        const Instruction& ins = p.instructions[i];
        if (i == firstBackward) {
            t.savedActivationBytes = liveActivationBytes;
            t.savedActivationAffine = liveActivationAffine;
        }
        double dt = 0.0;
        if (ins.kind == InstrKind::Alloc || ins.kind == InstrKind::Free) {
            const Buffer& buf = bufs[ins.buffer.index()];
            const std::int64_t sign = ins.kind == InstrKind::Alloc ? 1 : -1;
            const std::int64_t bytes = buf.bytes.at(b);
            live[std::size_t(buf.category)] += sign * bytes;
            liveAffine.perSample += sign * buf.bytes.perSample;
            liveAffine.fixed += sign * buf.bytes.fixed;
            if (buf.role == BufferRole::Activation || buf.role == BufferRole::Input ||
                buf.role == BufferRole::InFlightActivations) {
                liveActivationBytes += sign * bytes;
                liveActivationAffine.perSample += sign * buf.bytes.perSample;
                liveActivationAffine.fixed += sign * buf.bytes.fixed;
            }
            if (ins.kind == InstrKind::Alloc) {
                // Only allocations can raise the live total; check the affine bound here.
                if (liveAffine.perSample > 0) {
                    std::int64_t room = usable - liveAffine.fixed;
                    maxB = std::min(maxB, room < 0 ? 0 : room / liveAffine.perSample);
                } else if (liveAffine.fixed > usable) {
                    maxB = 0;
                }
            }
        } else {
            // A repeated instruction stands for all its iterations: its time and FLOPs count
            // that many times, its memory once (every iteration has the same live bytes).
            const double times = double(p.timesRun(i));
            dt = computeTime(ins) * times;
            if (ins.kind != InstrKind::OptimizerStep) {
                const Op& op = g.op(ins.op);
                const OpCost& c = ins.kind == InstrKind::Backward ? op.backward : op.forward;
                const double f = c.flops.atReal(b) * times;
                switch (ins.kind) {
                    case InstrKind::Forward:
                        t.flops.forward += f;
                        t.timeS.forward += dt;
                        break;
                    case InstrKind::Recompute:
                        t.flops.recompute += f;
                        t.timeS.recompute += dt;
                        break;
                    default:
                        t.flops.backward += f;
                        t.timeS.backward += dt;
                        break;
                }
            } else {
                t.timeS.optimizer += dt;
            }
        }
        clock += dt;
        const std::int64_t total = totalBytes(live);
        if constexpr (Keep) {
            t.live[i] = live;
            t.durationS[i] = dt;
            t.endS[i] = clock;
        } else {
            std::int64_t& into = i >= span->first && i <= span->last ? span->inside : span->outside;
            into = std::max(into, total);
            span->modelStates = std::max(
                span->modelStates, live[std::size_t(Category::Parameters)] +
                                       live[std::size_t(Category::Gradients)] +
                                       live[std::size_t(Category::OptimizerState)]);
        }
        if (total > t.peakBytes) {
            t.peakBytes = total;
            t.peakInstruction = i;
            t.breakdownAtPeak = live;
        }
    }
    t.maxMicroBatch = maxB;
    t.fits = t.peakBytes <= usable;
    return t;
}

}  // namespace

Timeline simulate(const Graph& g, const Program& p, const DeviceSpec& d,
                  const CancelFlag* cancel, OpTimeMemo* memo) {
    return simulateCore<true>(g, p, d, cancel, memo, nullptr, nullptr);
}

Timeline simulateLean(const Graph& g, const Program& p, const DeviceSpec& d, LiveSpan& span,
                      const CancelFlag* cancel, OpTimeMemo* memo,
                      const std::vector<Buffer>* buffers) {
    span.inside = span.outside = span.modelStates = 0;
    return simulateCore<false>(g, p, d, cancel, memo, &span, buffers);
}

}  // namespace remat
