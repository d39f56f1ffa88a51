// The exact memory and cost model the optimal planners search over. It cuts the lowered network
// into units (the chain elements, the ops before and after the chain, the ops
// between chain elements) and, by replaying the compiler's lifetime rules on each unit alone,
// derives what a unit contributes to the simulated peak in every role a plan can give it: kept,
// first forward inside a checkpointed region, recomputed in full or up to its last saving op
// (PyTorch's early stop), back-propagated with or without its saved tensors. Everything that
// does not depend on the plan (resident parameters and optimizer state, parameter and
// activation gradients, inputs) is swept once over the whole backward pass. Composing these
// quantities along a plan gives its simulated peak to the byte and its recompute time to the
// rounding of a sum, which is what makes the planners' dynamic programs exact and lets the tests
// check the composition against compile() + simulate() for every plan of small chains.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "device.h"
#include "graph.h"
#include "network.h"
#include "plan.h"
#include "result.h"

namespace remat {

// A value below every real byte count: the peak of a phase that has no instruction.
inline constexpr std::int64_t kNoPeakBytes = std::numeric_limits<std::int64_t>::min() / 4;

enum class UnitKind {
    ChainElement,  // may start, end or lie inside a checkpointed region
    Gap,           // ops between two chain elements: inside a region only with both neighbours
    Fixed,         // ops before or after the chain (embedding, head, loss): always kept
};

// What one pass over a unit costs in memory. "Local" bytes are the unit's own activations and
// workspace; `peakBytes` adds the plan-independent background at each instruction.
struct UnitPass {
    std::int64_t peakLocalBytes = kNoPeakBytes;
    std::int64_t peakBytes = kNoPeakBytes;
    // Bytes this unit keeps from its forward until its backward (saved tensors; the incoming
    // stream when no earlier unit already keeps it).
    std::int64_t retainedBytes = 0;
    // Whether the tensor leaving the unit is kept by this unit or an earlier one (so the next
    // unit must not count it again).
    bool streamKept = false;
    // Peak of the unit's backward after this pass, background included.
    std::int64_t backwardPeakBytes = kNoPeakBytes;
};

struct ChainUnit {
    UnitKind kind = UnitKind::Fixed;
    std::uint32_t firstOp = 0, lastOp = 0;
    std::int64_t chainIndex = -1;  // index into Graph::chain for chain elements
    std::string label;             // module path, for region labels
    // The unit saves something for backward; the recompute of a region whose last saving unit
    // this is stops at `lastSavingOp`.
    bool saves = false;
    std::uint32_t lastSavingOp = 0;
    // The last op that recompute runs: lastSavingOp, or the op before it when that op saves only
    // its inputs (PyTorch packs those before the kernel runs, and the early stop comes there).
    std::int64_t lastRecomputedOp = -1;
    // The activation storage entering the unit (the stream), its bytes (0 when none).
    TensorId stream;
    std::int64_t streamBytes = 0;
    bool passThrough = false;       // the stream leaves the unit unchanged (in-place op, view)
    bool overwritesStream = false;  // an in-place op writes the stream: unsafe to start a region
    // Indexed by whether an earlier unit already keeps the incoming stream (0: no, 1: yes).
    UnitPass kept[2];       // forward with saved tensors, all ops
    UnitPass truncated[2];  // forward with saved tensors, up to lastRecomputedOp
    UnitPass first[2];      // first forward inside a region: nothing saved
    std::int64_t bareBackwardPeakBytes = kNoPeakBytes;  // backward with nothing saved
    // Background while a region ending with this unit recomputes (gradients of everything
    // after it, resident state, inputs still held).
    std::int64_t recomputeBackgroundBytes = 0;
    double recomputeTimeS = 0.0;           // all ops forward once
    double truncatedRecomputeTimeS = 0.0;  // ops up to lastRecomputedOp
};

// A single-level plan over units: consecutive segments, each one kept unit or one region.
struct UnitSegment {
    int first = 0, last = 0;  // units, inclusive
    bool region = false;
};

// A region's contribution at a given left boundary: need = held + coreNeed, where held is the
// stream bytes when the left neighbour does not keep it.
struct RegionCost {
    std::int64_t coreNeedBytes = kNoPeakBytes;  // peak above what precedes it, held input aside
    double recomputeTimeS = 0.0;
    bool streamKeptAfter = false;  // the stream leaving it is the one it holds
    bool valid = false;            // starts and ends at chain elements, safe to checkpoint
};

struct PlanPrediction {
    std::int64_t peakBytes = 0;
    double recomputeTimeS = 0.0;
};

class ChainModel {
public:
    // Analyses the graph under the training settings and device (time model). An error says
    // why the chain is outside the model (for example several tensors crossing one boundary).
    static Result<ChainModel> build(const Graph& g, const TrainingConfig& cfg,
                                    const DeviceSpec& device);

    const std::vector<ChainUnit>& units() const { return m_units; }
    int unitCount() const { return int(m_units.size()); }
    // Live bytes no plan can avoid: the optimizer phase's resident state, every parameter
    // gradient (with the implementation's temporaries) and the last micro-batch's inputs.
    std::int64_t floorBytes() const { return m_floorBytes; }
    std::int64_t residentBytes() const { return m_residentBytes; }
    // Bytes every instruction of the step holds whatever the plan (resident state, and every
    // parameter gradient from the second micro-step on): the base of nested memory slots.
    std::int64_t constantBytes() const { return m_constantBytes; }
    // Empty when nested plans are inside the model; else why not (a region's input not made
    // by the last op of the unit before it).
    const std::string& nestedLimitation() const { return m_nestedLimitation; }
    std::int64_t parameterGradientBytes() const { return m_paramGradBytes; }

    // Kept unit u given whether its incoming stream is already kept.
    std::int64_t keptNeed(int u, bool streamKept) const;
    // Bytes of unit u's stream a region starting at u holds, given the left keeps it or not.
    std::int64_t heldBytes(int u, bool streamKept) const {
        return streamKept ? 0 : m_units[std::size_t(u)].streamBytes;
    }
    // Region [first, last] of units. O(last - first); planners scan with RegionScan instead.
    RegionCost region(int first, int last) const;

    // Predicted peak and recompute time of a single-level plan (segments cover every unit in
    // order). The planners' objective, exposed so tests can compare it with the simulator.
    Result<PlanPrediction> predict(const std::vector<UnitSegment>& segments) const;

    // The plan regions of a single-level segment list.
    Plan toPlan(const std::vector<UnitSegment>& segments, const std::string& strategy) const;
    // Segments of a plan whose regions all cover whole chain elements and do not nest; an
    // error otherwise.
    Result<std::vector<UnitSegment>> segmentsOf(const Plan& plan) const;

    // Unit index of a chain element.
    int unitOfChain(std::size_t chainIndex) const { return m_unitOfChain[chainIndex]; }
    bool canStartRegion(int u) const;
    bool canEndRegion(int u) const;
    // The region may contain unit u (chain element or gap).
    bool regionMember(int u) const { return m_units[std::size_t(u)].kind != UnitKind::Fixed; }

private:
    friend class ChainModelBuilder;
    std::vector<ChainUnit> m_units;
    std::vector<int> m_unitOfChain;
    std::int64_t m_floorBytes = 0;
    std::int64_t m_residentBytes = 0;
    std::int64_t m_paramGradBytes = 0;
    std::int64_t m_constantBytes = 0;
    std::string m_nestedLimitation;
};

// Incremental region costs for a fixed first unit: extend() adds the next unit, current() is the
// cost of [first, last]. Each step is O(1) amortised, so all regions cost O(units^2).
class RegionScan {
public:
    RegionScan(const ChainModel& model, int first);
    int last() const { return m_last; }
    // Adds unit last()+1; false when the region cannot grow (a fixed unit, the end).
    bool extend();
    RegionCost current() const;

private:
    void commitThrough(int unitExclusive);

    const ChainModel& m_model;
    int m_first = 0;
    int m_last = -1;
    bool m_alive = true;        // the first unit can start a region
    bool m_passThrough = true;  // every unit so far passes the first unit's stream through
    std::int64_t m_firstForwardPeak = kNoPeakBytes;
    // Recompute: units [first, m_stopUnit) run in full, m_stopUnit up to its last saving op,
    // the ones after it not at all.
    int m_stopUnit = -1;
    int m_committed = 0;  // units [first, m_committed) are accounted as full recomputes
    std::int64_t m_prefixRetained = 0;
    bool m_prefixStreamKept = true;
    std::int64_t m_fullRecomputePeak = kNoPeakBytes;  // local, no background
    std::int64_t m_fullBackwardPeak = kNoPeakBytes;
    double m_fullTimeS = 0.0;
    std::int64_t m_bareTailPeak = kNoPeakBytes;  // units after the stop unit
    std::int64_t m_bareAllPeak = kNoPeakBytes;   // used when nothing saves at all
};

}  // namespace remat
