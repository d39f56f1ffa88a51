// The program: the one IR shared by the simulator, the executors and the UI. A flat list of
// instructions over buffers, with every allocation and free explicit. The compiler decides
// every lifetime once; the simulator sums the buffers' bytes, the executors allocate and free
// exactly where told and bind each op's operands to the buffers named here. Each instruction
// also says which micro-batch, phase and op it belongs to, so a UI can caption it.
#pragma once

#include <cstdint>
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

struct Program {
    std::vector<Buffer> buffers;
    std::vector<Instruction> instructions;
    std::int64_t microBatch = 1;
    std::int64_t accumulationSteps = 1;
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::Sgd;
    Plan plan;
    BufferId gemmWorkspace;  // resident GEMM library workspace, if the target declares one
    // Valid programs whose gradients are known to be wrong (RNG state not preserved, an in-place
    // op overwriting a saved tensor). Executors run them only when asked.
    std::vector<std::string> unsafeReasons;
    bool unsafe() const { return !unsafeReasons.empty(); }

    const Buffer& buffer(BufferId id) const { return buffers[id.index()]; }
};

// Checks the program: no use of a buffer before its alloc or after its free, no double alloc
// or free, every compute operand bound, nothing live at the end. The error names the
// instruction index.
Status validateProgram(const Graph& g, const Program& p);

// One-line caption: "fwd 3/mlp/fc1", "alloc 3/mlp/fc1 (4.0 MiB, saved_activations)".
std::string describeInstruction(const Graph& g, const Program& p, std::size_t index);

}  // namespace remat
