// The program: the one IR shared by the simulator, the executors and the UI. A list of
// instructions over buffers (one stretch of which may repeat, below), with every allocation and
// free explicit. The compiler decides
// every lifetime once; the simulator sums the buffers' bytes, the executors allocate and free
// exactly where told and bind each op's operands to the buffers named here. Each instruction
// also says which micro-batch, phase and op it belongs to, so a UI can caption it.
//
// Gradient accumulation is kept compact. From the second micro-step on, every micro-step
// behaves the same (the parameter gradients persist from the first backward, inputs and
// activations are allocated and freed within the micro-step) and the last differs only by
// the optimizer that follows it. So with G >= 4 accumulation steps the compiler writes out
// micro-step 0, ONE body standing for micro-steps 1..G-2 and micro-step G-1: a Repeat says
// that instructions [begin, end) run `times` = G-2 times. Iteration i of the body is
// micro-step ins.microStep + i: its instructions, the buffers it allocates (fresh each
// iteration: input data is seeded by the buffer's micro-step) and its RNG draws advance
// with i (microStepAt, bufferMicroStepAt, rngDrawAt). A program therefore holds at most three
// micro-steps whatever G is; expandProgram() writes every iteration out for a consumer that
// truly needs the flat list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "buffer_list.h"
#include "graph.h"
#include "plan.h"
#include "result.h"
#include "types.h"

namespace remat {

enum class BufferRole {
    Parameter,
    MasterWeight,    // fp32 copy of a 16-bit parameter (mixed precision)
    OptimizerState,  // momentum, Adam moments (fp32)
    ParamGrad,
    Input,           // data loaded per micro-batch: images, token ids, targets
    Activation,      // an op output (forward or recompute)
    ActivationGrad,  // gradient of an activation
    Workspace,       // op scratch or the GEMM library workspace
    // Parallel layouts (parallel_eval.h), in the simulator only: a sharded layer's gathered
    // parameters (ZeRO-3 / FSDP) or its whole gradients before the reduce-scatter (ZeRO-2 and
    // 3; `backward` set), and the kept activations of the other micro-batches a pipeline
    // stage holds at once.
    Gathered,
    InFlightActivations,
};
std::string_view bufferRoleName(BufferRole r);

struct Buffer {
    BufferRole role = BufferRole::Activation;
    Category category = Category::Transient;
    TensorId tensor;        // the tensor whose storage (or gradient) this is; invalid for workspace
    DType dtype = DType::F32;
    Shape shape;            // full shape, micro-batch included when batched
    bool batched = false;
    Affine bytes;           // for the simulator; executors compute bytes from dtype and shape
    std::uint32_t microStep = 0;
    bool zeroInit = false;  // gradients: accumulated into, so they start at zero
    // What the caption needs beside the role and the tensor (see bufferLabel()); a program
    // of 20,000 instructions holds no string per buffer.
    OpId op;                  // workspaces: the op whose scratch this is (none: the library's)
    bool recomputed = false;  // activations: made by a recompute
    bool backward = false;    // workspaces: the backward's scratch
    std::uint8_t moment = 0;  // optimizer state: 1 or 2
    // Workspaces: the optimizer step's temporaries (foreach: over every parameter, `tensor`
    // invalid; for-loop: those of the parameter `tensor`).
    bool optimizer = false;
};

// The buffer's caption: "3/mlp/fc1", "3/mlp/fc1 (recompute)", "grad 3/mlp/fc1.weight",
// "3/mlp/fc1.weight (moment 1)", "3/mlp/fc1.weight (fp32 master)", "3/mlp/fc1 workspace",
// "GEMM library workspace".
std::string bufferLabel(const Graph& g, const Buffer& b);

enum class InstrKind {
    Alloc,
    Free,
    Forward,    // run an op forward (also the loss)
    Recompute,  // run an op forward again inside a checkpointed region's backward
    Backward,
    OptimizerStep,  // update one parameter from its gradient
};
std::string_view instrKindName(InstrKind k);

enum class Phase { Setup, Forward, Recompute, Backward, Optimizer, Teardown };
std::string_view phaseName(Phase p);

struct Instruction {
    InstrKind kind = InstrKind::Alloc;
    Phase phase = Phase::Setup;
    std::uint32_t microStep = 0;
    OpId op;              // compute instructions
    BufferId buffer;      // Alloc / Free
    TensorId parameter;   // OptimizerStep
    int regionDepth = 0;  // Recompute: nesting depth of the region being recomputed (1 = outer)
    // RNG draw for dropout: equal draws give equal masks. A recompute that preserves the RNG
    // state reuses the forward's draw.
    std::uint32_t rngDraw = 0;

    // Operand bindings (compute instructions), each aligned with the op's lists:
    BufferList inputs;   // Forward/Recompute: op.inputs
    BufferList outputs;  // Forward/Recompute: op.outputs
    BufferList params;   // op.params (all compute kinds)
    BufferList saved;    // Backward: op.saved
    BufferList gradOutputs;  // Backward: gradient of op.outputs (invalid if none)
    BufferList gradInputs;   // Backward: gradient of op.inputs (invalid if none)
    BufferList paramGrads;   // Backward: op.params' gradients; OptimizerStep: [grad]
    BufferList state;        // OptimizerStep: [master weight,] optimizer states
    BufferId workspace;                 // scratch for this instruction, if any
};

// The largest program compile() builds (and expandProgram() writes out), as estimated (at the
// limit about 2.3 GiB and seconds to simulate, docs/model-format.md); larger ones are refused
// up front with the estimate.
inline constexpr std::int64_t kMaxProgramInstructions = 4000000;

// Instructions [begin, end) run `times` times in a row; iteration i stands for micro-step
// ins.microStep + i. Every buffer the body allocates it also frees (validateProgram checks),
// so each iteration has the memory behaviour of the first.
struct Repeat {
    std::size_t begin = 0, end = 0;
    std::int64_t times = 1;
    // RNG draws of recomputes that do not preserve the RNG state, per micro-step: those draws
    // are numbered after the micro-steps' own (see rngDrawAt).
    std::uint32_t freshDrawsPerMicroStep = 0;
};

struct Program {
    std::vector<Buffer> buffers;
    std::vector<Instruction> instructions;
    std::optional<Repeat> repeat;  // the accumulation body, when the program is compact
    std::int64_t microBatch = 1;
    std::int64_t accumulationSteps = 1;
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::Sgd;
    RecomputeImpl recomputeImpl = RecomputeImpl::Pytorch;  // how its recomputes were compiled
    Plan plan;
    BufferId gemmWorkspace;  // resident GEMM library workspace, if the target declares one
    // Valid programs whose gradients are known to be wrong (RNG state not preserved, an in-place
    // op whose overwrite a backward or a recompute reads): "the gradients will differ". Each
    // reason says why.
    std::vector<std::string> unsafeReasons;
    // Findings the compiler cannot settle either way (overwritten values passed on into a nested
    // region's recompute): "the gradients may differ". The program counts as unsafe too.
    std::vector<std::string> mayDifferReasons;
    // Writes that look unsafe but change no gradient, with the reason (ReLU applied twice in
    // place is ReLU; a recompute that keeps nothing computed from the overwritten values).
    std::vector<std::string> safeNotes;
    // Executors run unsafe programs only when asked.
    bool unsafe() const { return !unsafeReasons.empty() || !mayDifferReasons.empty(); }
    // The gradients are known to differ from a run without checkpointing.
    bool gradientsWillDiffer() const { return !unsafeReasons.empty(); }
    // Every reason the program is unsafe: the certain ones first.
    std::vector<std::string> allUnsafeReasons() const {
        std::vector<std::string> out = unsafeReasons;
        out.insert(out.end(), mayDifferReasons.begin(), mayDifferReasons.end());
        return out;
    }
    // The rest of the training settings the program was compiled under (TrainingConfig).
    MainGrads mainGrads = MainGrads::Param;
    OptimizerImpl optimizerImpl = OptimizerImpl::Fused;
    Tf32Mode tf32 = Tf32Mode::Conv;

    const Buffer& buffer(BufferId id) const { return buffers[id.index()]; }
    bool inRepeat(std::size_t i) const { return repeat && i >= repeat->begin && i < repeat->end; }
    // How many times instruction i runs in one training step (the repeat's times, or 1).
    std::int64_t timesRun(std::size_t i) const { return inRepeat(i) ? repeat->times : 1; }
    // Instructions one training step runs, every iteration of the repeat counted.
    std::int64_t executedInstructions() const;
};

// Iteration `iteration` (0-based) of the repeat: the micro-step of a body instruction or of a
// buffer the body allocates, and the RNG draw of a body instruction. A micro-step's own draw
// equals its index and advances by one per iteration; a fresh draw (a recompute that does not
// preserve the RNG state) is numbered accumulationSteps + freshDrawsPerMicroStep x micro-step
// + k and advances by freshDrawsPerMicroStep. Only forward and recompute instructions draw;
// the others keep their (unused) draw. Iteration 0 is the instruction as written.
inline std::uint32_t microStepAt(const Instruction& ins, std::int64_t iteration) {
    return ins.microStep + std::uint32_t(iteration);
}
inline std::uint32_t bufferMicroStepAt(const Buffer& b, std::int64_t iteration) {
    return b.microStep + std::uint32_t(iteration);
}
std::uint32_t rngDrawAt(const Program& p, const Instruction& ins, std::int64_t iteration);

// Checks the program: no use of a buffer before its alloc or after its free, no double alloc
// or free, every compute operand bound, nothing live at the end; a repeat's body frees exactly
// what it allocates. The error names the instruction index.
Status validateProgram(const Graph& g, const Program& p);

// The flat equivalent of a compact program: every iteration of the repeat written out, with
// fresh buffers per iteration numbered as a compile without the repeat numbers them (so the
// result equals that compile). Refused past kMaxProgramInstructions. A program without a
// repeat comes back as it is.
Result<Program> expandProgram(const Program& p);

// The repeat's body as the CLI captions it, micro-steps numbered from 1 as shown everywhere:
// "micro-steps 2-1023 (x 1022, same memory)"; empty without a repeat.
std::string repeatCaption(const Program& p);

// One-line caption: "fwd 3/mlp/fc1", "alloc 3/mlp/fc1 (4.0 MiB, saved_activations)".
std::string describeInstruction(const Graph& g, const Program& p, std::size_t index);

}  // namespace remat
