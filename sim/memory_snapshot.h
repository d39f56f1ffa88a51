// A PyTorch CUDA memory snapshot (the pickle `torch.cuda.memory._dump_snapshot` writes after
// `torch.cuda.memory._record_memory_history()`) as allocated and reserved bytes over time, and
// laid over a predicted timeline. The snapshot's `segments` (what cudaMalloc reserved, with
// the `blocks` in them) give the state when it was taken; its `device_traces` list the
// allocator's events before that (alloc, free_completed, segment_alloc, segment_free,
// segment_map, segment_unmap) with their sizes and stack frames. Walking the trace backwards
// from the final state gives the bytes after every event. Each event is given a phase from its
// frames (docs/ecosystem.md, "Compare with your own run"): an optimizer frame, else a backward
// frame or no frames at all (the autograd engine's threads have no Python stack), else
// forward. The last forward, backward, optimizer sequence is the step compared, and each phase
// of it is stretched over the same phase of the predicted program, so the curves can be drawn
// over the timeline and the peaks compared.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pickle_reader.h"
#include "program.h"
#include "result.h"
#include "simulator.h"

namespace remat {

enum class SnapshotPhase : std::uint8_t { Forward, Backward, Optimizer };
inline constexpr std::size_t kSnapshotPhaseCount = 3;
std::string_view snapshotPhaseName(SnapshotPhase p);

enum class SnapshotAction : std::uint8_t {
    Alloc, FreeRequested, FreeCompleted, SegmentAlloc, SegmentFree, SegmentMap, SegmentUnmap,
    Other  // snapshot, oom, annotations: no change in bytes
};

struct SnapshotEvent {
    SnapshotAction action = SnapshotAction::Other;
    SnapshotPhase phase = SnapshotPhase::Forward;
    std::int64_t size = 0;
};

struct MemorySnapshot {
    int device = 0;                // the device whose trace is read
    std::size_t tracedDevices = 0;  // devices with a non-empty trace
    // The state when the snapshot was taken: bytes of the device's segments, and of its blocks
    // in use (active_allocated, or active_awaiting_free / active_pending_free).
    std::int64_t finalReserved = 0, finalAllocated = 0;
    std::size_t segments = 0;
    // Before the first event of the trace, derived backwards from the final state.
    std::int64_t startAllocated = 0, startReserved = 0;
    std::vector<SnapshotEvent> events;
    std::vector<std::int64_t> allocated, reserved;  // after each event
    std::int64_t peakAllocated = 0, peakReserved = 0;  // over the whole trace
    std::array<std::size_t, kSnapshotPhaseCount> phaseEvents{};  // events per phase
};

// How many stack frames of one event are looked at to find its phase.
inline constexpr std::size_t kMaxFramesPerEvent = 512;

// The snapshot in `root` (parsed by parsePickle). `device` -1 takes the first device whose
// trace has events; otherwise that device. `origin` starts every message.
Result<MemorySnapshot> memorySnapshotFromPickle(const PickleValue& root, const std::string& origin,
                                                int device = -1);
Result<MemorySnapshot> readMemorySnapshot(const std::string& path, int device = -1);

struct SnapshotSpan {
    std::size_t firstEvent = 0, endEvent = 0;              // [first, end) of the trace
    std::size_t firstInstruction = 0, endInstruction = 0;  // [first, end) of the program
};

// The measured curves per instruction of a program, ready to draw over its timeline.
struct SnapshotOverlay {
    std::vector<std::int64_t> allocated, reserved;  // one per instruction
    std::array<SnapshotSpan, kSnapshotPhaseCount> spans{};
    std::size_t stepFirstEvent = 0, stepEndEvent = 0;  // the step compared: [first, end)
    // Within that step (and the state just before it).
    std::int64_t measuredPeakAllocated = 0, measuredPeakReserved = 0;
    std::int64_t predictedPeak = 0;
    std::int64_t peakDifference() const { return measuredPeakAllocated - predictedPeak; }
    // The difference as a share of the predicted peak (0 when that is 0).
    double peakDifferenceFraction() const;
};

// Aligns the last step of `s` with `p` and its timeline `t`, phase by phase. Errors: a trace
// without forward or backward events, a program with gradient accumulation (one forward and
// one backward per step are compared).
Result<SnapshotOverlay> alignSnapshot(const MemorySnapshot& s, const Program& p, const Timeline& t);

}  // namespace remat
