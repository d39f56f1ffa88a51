// What a step-through of a program shows at each instruction, worked out without any GUI:
// every buffer's lifetime (the instruction that allocates it and the one that frees it), the
// buffers live after any instruction, the layer each buffer belongs to and what a lesson calls
// it (kept for backward, recomputed, transient, gradient), the instructions a player stops at
// (every one, or only those that compute), the starts of phases, and what a recompute
// instruction is doing in the plan's terms (which region, which layers, from whose kept input).
//
// Stepping must stay instant on programs of millions of instructions, so nothing here replays
// the program: the index holds two instruction numbers per buffer, and the live set after
// instruction i is one pass over those arrays (a few milliseconds at the compiler's largest
// program, microseconds at a GPT-2's). A repeat's body (program.h) is stepped as written: after
// a body instruction the live set is that of every iteration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph.h"
#include "program.h"

namespace remat {

// How a lesson names a live buffer. Kept: an activation saved for backward or held as a
// checkpointed region's input (category saved activations). Recomputed: made again by a
// recompute. Transient: an activation freed before the backward that would need it (inside a
// region) or used only by the next ops. Gradient: the gradient of an activation or of a
// parameter. Other: parameters, optimizer state, input data and workspaces, which are not a
// layer's activations.
enum class BlockKind : std::uint8_t { Kept, Recomputed, Transient, Gradient, Other };

class LiveSetIndex {
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    LiveSetIndex() = default;
    LiveSetIndex(const Graph& g, const Program& p);

    std::size_t instructionCount() const { return m_instructions; }
    std::size_t bufferCount() const { return m_alloc.size(); }

    // Buffers live after instruction i (allocated at or before i and freed after it), in
    // ascending id order; `out` is cleared first, so a player reuses one vector.
    void liveAfter(std::size_t i, std::vector<BufferId>& out) const;
    std::vector<BufferId> liveAfter(std::size_t i) const;

    // The instructions that allocate and free buffer b (npos when the program has none).
    std::size_t allocAt(BufferId b) const;
    std::size_t freeAt(BufferId b) const;
    // Expanded layer instance the buffer belongs to, -1 for none: an activation or its
    // gradient belongs to the layer of the op that produces it, a parameter (its gradient,
    // master copy and optimizer state) to the layer of the first op using it, a workspace to
    // its op's layer; input data and the GEMM library's workspace belong to none.
    int layerOf(BufferId b) const { return m_layer[b.index()]; }
    BlockKind kindOf(BufferId b) const { return m_kind[b.index()]; }

private:
    std::size_t m_instructions = 0;
    std::vector<std::uint32_t> m_alloc, m_free;  // instruction indices; UINT32_MAX: none
    std::vector<int> m_layer;
    std::vector<BlockKind> m_kind;
};

// Whether a lesson draws a block of this kind beside its layer (kept, recomputed, transient,
// gradient) or leaves it out (parameters, optimizer state, inputs, workspaces).
inline bool isLayerBlock(BlockKind k) {
    return k != BlockKind::Other;
}

// Per layer (0 .. layerCount-1), the most bytes of drawn blocks (isLayerBlock) it holds live at
// once over the whole program: the scale a view draws a layer's blocks at.
std::vector<std::int64_t> peakLayerBlockBytes(const Program& p, const LiveSetIndex& live,
                                              int layerCount);

// Expanded layer instance of each op (its module's layer), -1 for none.
std::vector<int> opLayers(const Graph& g);
// Per tensor, the layer of the first op holding it as a parameter (a tied weight: the first
// user's), -1 for tensors that are no parameter; `layerOfOp` is opLayers(g).
std::vector<int> parameterLayers(const Graph& g, const std::vector<int>& layerOfOp);

// Forward, recompute, backward and optimizer step: the instructions that do work.
inline bool isWorkInstruction(InstrKind k) {
    return k != InstrKind::Alloc && k != InstrKind::Free;
}

// Indices of the instructions a player stops at, ascending: every instruction, or only the
// work instructions (allocs and frees skipped).
std::vector<std::uint32_t> playbackSteps(const Program& p, bool withAllocFree);

// The first instruction after i that starts a new phase run (another phase or micro-step, or
// the edge of a repeat's body), or npos; and the start of the phase run before the one holding
// i (the start of i's own run when i is not its first instruction), or npos.
std::size_t nextPhaseStart(const Program& p, std::size_t i);
std::size_t previousPhaseStart(const Program& p, std::size_t i);

// What a recompute instruction is doing, in the plan's terms.
struct RecomputeContext {
    bool valid = false;
    std::size_t region = 0;                           // index into program.plan.regions
    int depth = 1;                                    // the region's nesting depth (1 = outermost)
    int regionFirstLayer = -1, regionLastLayer = -1;  // layers of the region's first/last op
    // The run of recompute instructions this one belongs to (same micro-step and depth, allocs
    // and frees between them ignored): its first and last instruction and their layers.
    std::size_t runFirst = 0, runLast = 0;
    int runFirstLayer = -1, runLastLayer = -1;
};

// The context of recompute instruction `index` (valid false for any other instruction or when
// no region of the plan holds its op at its depth). `layers` is opLayers(g).
RecomputeContext recomputeContext(const Program& p, const std::vector<int>& layers,
                                  std::size_t index);

// Plan regions that contain op `op`, as indices, outermost first; the region at depth d is
// element d-1.
std::vector<std::size_t> regionsContaining(const Plan& plan, std::uint32_t op);

}  // namespace remat
