// The backend interface under the shared program driver (program_driver.h). A backend owns
// device memory, moves bytes to and from the host, times instructions and implements one
// forward and one backward entry per op kind plus the optimizer step; the driver does
// everything else once for all backends — walking the program, alloc/free bookkeeping and
// tracked live bytes, binding buffers to operands, deterministic initialisation, loss and
// gradient read-back, refusals. The CPU reference backend (gpu/cpu/) and the CUDA backend
// (gpu/cuda/) both implement it, so the driver's host logic is tested through the CPU one.
// No CUDA header is included here.
//
// Operand contract (sim/program.h): forward entries read `inputs` and `params`
// and write `outputs` (outputs[0] the main result; in-place ops get outputs[0] aliasing
// inputs[op.inPlaceInput]). Backward entries read ONLY `saved`, `params` and `gradOutputs`,
// and ACCUMULATE (+=) into `gradInputs` and `paramGrads`; an unbound gradient has data ==
// nullptr. Loss ops have no gradOutput: their backward is seeded with `lossGradScale`.
// 16-bit buffers (BF16/F16) hold 2 bytes per element, computed in fp32 and rounded to
// nearest even on store.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "executor.h"
#include "graph.h"
#include "result.h"
#include "types.h"

namespace remat {

// A block of backend memory. `data` is a device pointer for the CUDA backend.
struct DeviceBlock {
    void* data = nullptr;
    std::int64_t bytes = 0;
};

// One bound operand: a buffer's memory seen with its dtype and full shape (micro-batch
// included when batched; workspace: U8 [bytes]).
struct TensorRef {
    void* data = nullptr;
    DType dtype = DType::F32;
    Shape shape;

    bool bound() const { return data != nullptr; }
    std::int64_t elements() const {
        std::int64_t n = 1;
        for (auto d : shape) n *= d;
        return n;
    }
    std::int64_t bytes() const { return elements() * dtypeBytes(dtype); }
};

// Everything one op entry needs, operands aligned with the op's lists (graph.h).
struct OpCall {
    const Op* op = nullptr;  // kind and attributes
    OpId opId;
    std::int64_t microBatch = 1;
    std::vector<TensorRef> inputs;   // forward: op.inputs
    std::vector<TensorRef> outputs;  // forward: op.outputs
    std::vector<TensorRef> params;   // op.params (forward and backward)
    std::vector<TensorRef> saved;        // backward: op.saved
    std::vector<TensorRef> gradOutputs;  // backward: gradients of op.outputs (may be unbound)
    std::vector<TensorRef> gradInputs;   // backward: gradients of op.inputs (may be unbound)
    std::vector<TensorRef> paramGrads;   // backward: gradients of op.params
    TensorRef workspace;                 // the instruction's declared scratch, if any
    // Dropout: the mask is a pure function of (seed, opId, rngDraw, element index); see
    // counter_rng.h for the exact formula every backend must reproduce.
    std::uint64_t seed = 0;
    std::uint32_t rngDraw = 0;
    // A forward entry run as a recompute (InstrKind::Recompute) rather than the step's first
    // forward: batch norm then leaves its running statistics alone, as PyTorch's checkpoint
    // does not count a recomputed forward as another batch.
    bool recompute = false;
    // Loss backward: the gradient of the step's objective with respect to this micro-step's
    // loss (1 / accumulationSteps: the step minimises the mean over micro-steps).
    float lossGradScale = 1.0f;
};

// Fixed optimizer hyper-parameters (docs/executors.md). One training step is executed, so
// Adam's bias corrections use step 1.
struct OptimizerHyperParams {
    float learningRate = 1e-3f;
    float momentum = 0.9f;  // momentum: buf = momentum * buf + grad; p -= lr * buf
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float epsilon = 1e-8f;
    float weightDecay = 0.01f;  // adamw only (decoupled: p -= lr * wd * p)
};
inline constexpr OptimizerHyperParams kOptimizerHyperParams{};

struct OptimizerCall {
    Optimizer optimizer = Optimizer::Sgd;
    TensorRef param;   // updated in place (16-bit: rounded from the master weight)
    TensorRef grad;
    TensorRef master;  // fp32 master weight, mixed precision only (else unbound)
    TensorRef state1;  // momentum buffer / Adam first moment (fp32), else unbound
    TensorRef state2;  // Adam second moment (fp32), else unbound
    std::int64_t step = 1;
    OptimizerHyperParams hyper = kOptimizerHyperParams;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;         // "cpu", "cuda"
    virtual std::string displayName() const = 0;  // "CPU" in "the CPU executor cannot run ..."
    virtual std::string deviceName() const = 0;   // "x86-64 CPU (OpenBLAS, 1 thread)"
    // Whether the backend implements this op kind; the driver refuses a program containing
    // one it does not before running anything.
    virtual bool supports(OpKind kind) const = 0;

    // ---- a run ----------------------------------------------------------------------------
    // Called before every step (warm-up or measured); resets memory high-water marks and
    // prepares per-instruction timers for `instructionCount` instructions.
    virtual Status beginStep(std::size_t instructionCount) = 0;
    // Called after every step, also after a failed one once all blocks are released: waits
    // for outstanding work and returns unused cached memory to the system.
    virtual Status endStep() = 0;
    // An instruction timed more than once in a step (a repeat's body runs once per micro-step
    // it stands for) accumulates: its elapsed time is the sum over its runs.
    virtual void startTimer(std::size_t instruction) = 0;
    virtual void stopTimer(std::size_t instruction) = 0;
    // Seconds per instruction of the last step (after endStep), summed over its runs; untimed
    // ones are 0.
    virtual Result<std::vector<double>> elapsedSeconds() = 0;
    virtual DeviceMemoryStats memoryStats() const = 0;

    // ---- memory ---------------------------------------------------------------------------
    // `bytes` > 0, computed by the driver from dtype x shape. Out of memory is an error (the
    // driver adds the instruction).
    virtual Result<DeviceBlock> allocate(std::int64_t bytes) = 0;
    virtual void release(DeviceBlock block) noexcept = 0;
    virtual Status fillZero(DeviceBlock block) = 0;
    virtual Status upload(DeviceBlock dst, const void* host, std::int64_t bytes) = 0;
    // Waits for the work that writes `src` before copying.
    virtual Status download(DeviceBlock src, void* host, std::int64_t bytes) = 0;
    // The program's resident GEMM library workspace (Program::gemmWorkspace) right after its
    // alloc, and an empty block just before its free. A backend whose GEMMs need no workspace
    // (the CPU) ignores it; the CUDA backend hands it to cuBLAS, so cuBLAS uses exactly the
    // memory the program shows.
    virtual Status setGemmWorkspace(DeviceBlock block) {
        (void)block;
        return Ok{};
    }

    // ---- ops: one forward and one backward entry per kind -----------------------------------
    virtual Status linearForward(const OpCall& c) = 0;
    virtual Status linearBackward(const OpCall& c) = 0;
    virtual Status reluForward(const OpCall& c) = 0;
    virtual Status reluBackward(const OpCall& c) = 0;
    virtual Status geluForward(const OpCall& c) = 0;  // tanh approximation
    virtual Status geluBackward(const OpCall& c) = 0;
    virtual Status siluForward(const OpCall& c) = 0;
    virtual Status siluBackward(const OpCall& c) = 0;
    virtual Status tanhForward(const OpCall& c) = 0;
    virtual Status tanhBackward(const OpCall& c) = 0;
    virtual Status sigmoidForward(const OpCall& c) = 0;
    virtual Status sigmoidBackward(const OpCall& c) = 0;
    virtual Status softmaxForward(const OpCall& c) = 0;
    virtual Status softmaxBackward(const OpCall& c) = 0;
    virtual Status layerNormForward(const OpCall& c) = 0;
    virtual Status layerNormBackward(const OpCall& c) = 0;
    virtual Status rmsNormForward(const OpCall& c) = 0;
    virtual Status rmsNormBackward(const OpCall& c) = 0;
    virtual Status dropoutForward(const OpCall& c) = 0;
    virtual Status dropoutBackward(const OpCall& c) = 0;
    virtual Status mulForward(const OpCall& c) = 0;
    virtual Status mulBackward(const OpCall& c) = 0;
    virtual Status addForward(const OpCall& c) = 0;
    virtual Status addBackward(const OpCall& c) = 0;
    virtual Status embeddingForward(const OpCall& c) = 0;
    virtual Status embeddingBackward(const OpCall& c) = 0;
    virtual Status attnScoresForward(const OpCall& c) = 0;
    virtual Status attnScoresBackward(const OpCall& c) = 0;
    virtual Status attnContextForward(const OpCall& c) = 0;
    virtual Status attnContextBackward(const OpCall& c) = 0;
    virtual Status expandKvForward(const OpCall& c) = 0;
    virtual Status expandKvBackward(const OpCall& c) = 0;
    virtual Status crossEntropyForward(const OpCall& c) = 0;
    virtual Status crossEntropyBackward(const OpCall& c) = 0;
    virtual Status mseForward(const OpCall& c) = 0;
    virtual Status mseBackward(const OpCall& c) = 0;
    // Flash attention: inputs {qkv}, outputs {context, log-sum-exp (fp32 [B, H, T])}, saved
    // {qkv, context, log-sum-exp}; backward recomputes the scores from them (no T x T tensor).
    // With dropout (attrs.p > 0) a third output and saved tensor, int64 [1], holds the RNG
    // draw the forward used: forward drops probability (b, h, i, j) when
    // rng::dropoutKeep(rng::dropoutStream(seed, opId, draw), ((b H + h) T + i) T + j, p) is
    // false, and backward regenerates the same decisions from the saved draw.
    virtual Status flashAttnForward(const OpCall& c) = 0;
    virtual Status flashAttnBackward(const OpCall& c) = 0;
    // Rotary position embeddings (rotary_math.h): in place on qkv [B, T, (H + 2 KV) D]
    // (outputs[0] aliases inputs[0]), rotating the first attrs.rotaryDims dimensions of each
    // q and k head by the token's position; saves nothing, backward adds the inverse rotation
    // of the output gradient into the input gradient.
    virtual Status rotaryForward(const OpCall& c) { return missingEntry(c, false); }
    virtual Status rotaryBackward(const OpCall& c) { return missingEntry(c, true); }
    // Flatten is a view: the driver runs nothing for it.

    // ---- convolutional ops (NCHW) ----------------------------------------------------------
    // Conv2d: x[N,C,H,W] * w[O,C/G,k,k] (+ b[O]) -> y[N,O,Ho,Wo], square kernel, stride, zero
    // padding, dilation and G channel groups from OpAttrs; saves x. BatchNorm2d (training mode): per channel over N,H,W,
    // outputs {y, mean f32 [C], invstd f32 [C]} with the biased variance and eps 1e-5, saves
    // {x, mean, invstd}; a forward that is not a recompute updates the backend's running
    // statistics (momentum 0.1, unbiased variance). MaxPool2d: -inf padding, outputs {y,
    // indices int64} (the flat index h * W + w of the first maximum of each window in its
    // input plane), saves {x, indices}. GlobalAvgPool: y[N,C,1,1] = mean over H,W, saves x.
    // A backend that does not run them says so through supports(); these defaults are never
    // reached then.
    virtual Status conv2dForward(const OpCall& c) { return missingEntry(c, false); }
    virtual Status conv2dBackward(const OpCall& c) { return missingEntry(c, true); }
    virtual Status batchNorm2dForward(const OpCall& c) { return missingEntry(c, false); }
    virtual Status batchNorm2dBackward(const OpCall& c) { return missingEntry(c, true); }
    virtual Status maxPool2dForward(const OpCall& c) { return missingEntry(c, false); }
    virtual Status maxPool2dBackward(const OpCall& c) { return missingEntry(c, true); }
    virtual Status globalAvgPoolForward(const OpCall& c) { return missingEntry(c, false); }
    virtual Status globalAvgPoolBackward(const OpCall& c) { return missingEntry(c, true); }

    virtual Status optimizerStep(const OptimizerCall& c) = 0;

protected:
    // "the CPU executor has no conv2d forward entry": for kinds a backend does not implement.
    Status missingEntry(const OpCall& c, bool backward) const;
};

// Batch norm momentum for the running statistics: running = (1 - m) running + m batch.
inline constexpr double kBatchNormMomentum = 0.1;

// The backend's forward or backward entry for the op's kind (c.op->kind); an error naming the
// kind for one no backend implements. The driver, the selftest and the op tests all call this.
Status runOp(Backend& b, const OpCall& c, bool backward);

}  // namespace remat
