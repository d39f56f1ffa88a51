#include "memory_snapshot.h"

#include <algorithm>

#include "text.h"

namespace remat {

std::string_view snapshotPhaseName(SnapshotPhase p) {
    switch (p) {
    case SnapshotPhase::Forward: return "forward";
    case SnapshotPhase::Backward: return "backward";
    case SnapshotPhase::Optimizer: return "optimizer";
    }
    return "?";
}

double SnapshotOverlay::peakDifferenceFraction() const {
    return predictedPeak == 0 ? 0.0 : double(peakDifference()) / double(predictedPeak);
}

namespace {

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

// The phase of one event from its stack frames, innermost first (docs/ecosystem.md).
SnapshotPhase phaseOf(const PickleValue* frames) {
    if (!frames || !frames->isList() || frames->items.empty()) return SnapshotPhase::Backward;
    bool backward = false;
    const std::size_t n = std::min(frames->items.size(), kMaxFramesPerEvent);
    for (std::size_t i = 0; i < n; ++i) {
        const PickleValue& f = *frames->items[i];
        const PickleValue* name = f.get("name");
        const PickleValue* file = f.get("filename");
        const std::string_view nm = name && name->isString() ? std::string_view(name->text) : "";
        const std::string_view fl = file && file->isString() ? std::string_view(file->text) : "";
        if (contains(fl, "torch/optim/") || contains(nm, "optimizer"))
            return SnapshotPhase::Optimizer;
        if (contains(nm, "backward") || nm == "unpack_hook" || nm == "recompute_fn" ||
            contains(nm, "autograd::Engine"))
            backward = true;
    }
    return backward ? SnapshotPhase::Backward : SnapshotPhase::Forward;
}

SnapshotAction actionOf(std::string_view a) {
    if (a == "alloc") return SnapshotAction::Alloc;
    if (a == "free_requested") return SnapshotAction::FreeRequested;
    if (a == "free_completed") return SnapshotAction::FreeCompleted;
    if (a == "segment_alloc") return SnapshotAction::SegmentAlloc;
    if (a == "segment_free") return SnapshotAction::SegmentFree;
    if (a == "segment_map") return SnapshotAction::SegmentMap;
    if (a == "segment_unmap") return SnapshotAction::SegmentUnmap;
    return SnapshotAction::Other;
}

// A non-negative whole number under `key`, or an error naming where.
Result<std::int64_t> sizeField(const PickleValue& d, std::string_view key, const std::string& where) {
    const PickleValue* v = d.get(key);
    if (!v) return makeError(where + ": no '" + std::string(key) + "'");
    if (!v->isInt() || v->integer < 0)
        return makeError(where + "." + std::string(key) + ": expected a byte count, got a " +
                         (v->isInt() ? std::string("negative int") : std::string(pickleKindName(v->kind))));
    return v->integer;
}

// Adds with a check: sums of a hostile file's sizes must not overflow.
bool addChecked(std::int64_t& acc, std::int64_t v) {
    return !__builtin_add_overflow(acc, v, &acc);
}

}  // namespace

Result<MemorySnapshot> memorySnapshotFromPickle(const PickleValue& root, const std::string& origin,
                                                int device) {
    const std::string o = origin + ": ";
    if (!root.isDict())
        return makeError(o + "not a PyTorch memory snapshot: the pickle holds a " +
                         std::string(pickleKindName(root.kind)) + ", expected a dict with "
                         "'segments' and 'device_traces'");
    const PickleValue* segments = root.get("segments");
    const PickleValue* traces = root.get("device_traces");
    if (!segments || !segments->isList())
        return makeError(o + "not a PyTorch memory snapshot: no 'segments' list");
    if (!traces || !traces->isList())
        return makeError(o + "the snapshot has no 'device_traces': record the allocator's history "
                             "with torch.cuda.memory._record_memory_history() before the step "
                             "(PyTorch 2.0 or later)");
    MemorySnapshot s;
    for (std::size_t d = 0; d < traces->items.size(); ++d) {
        const PickleValue& t = *traces->items[d];
        if (!t.isList())
            return makeError(o + "device_traces[" + std::to_string(d) + "]: expected a list, got a " +
                             std::string(pickleKindName(t.kind)));
        if (t.items.empty()) continue;
        ++s.tracedDevices;
        if (device < 0 && s.tracedDevices == 1) s.device = int(d);
    }
    if (device >= 0) {
        if (std::size_t(device) >= traces->items.size() || traces->items[device]->items.empty())
            return makeError(o + "device " + std::to_string(device) + " has no events in the trace");
        s.device = device;
    } else if (s.tracedDevices == 0) {
        return makeError(o + "the trace is empty: record the allocator's history with "
                             "torch.cuda.memory._record_memory_history() before the step");
    }

    for (std::size_t i = 0; i < segments->items.size(); ++i) {
        const PickleValue& seg = *segments->items[i];
        const std::string where = "$.segments[" + std::to_string(i) + "]";
        if (!seg.isDict()) return makeError(o + where + ": expected a dict");
        const PickleValue* dev = seg.get("device");
        if (dev && dev->isInt() && dev->integer != s.device) continue;
        auto total = sizeField(seg, "total_size", where);
        if (!total) return makeError(o + total.error().message);
        if (!addChecked(s.finalReserved, *total))
            return makeError(o + where + ".total_size: the sizes overflow 64 bits");
        ++s.segments;
        const PickleValue* blocks = seg.get("blocks");
        if (!blocks) continue;
        if (!blocks->isList()) return makeError(o + where + ".blocks: expected a list");
        for (std::size_t b = 0; b < blocks->items.size(); ++b) {
            const PickleValue& blk = *blocks->items[b];
            const std::string bw = where + ".blocks[" + std::to_string(b) + "]";
            if (!blk.isDict()) return makeError(o + bw + ": expected a dict");
            const PickleValue* state = blk.get("state");
            if (!state || !state->isString())
                return makeError(o + bw + ": no 'state' string");
            // "active_pending_free" is PyTorch 2.0's name of "active_awaiting_free".
            if (state->text != "active_allocated" && state->text != "active_awaiting_free" &&
                state->text != "active_pending_free")
                continue;
            auto size = sizeField(blk, "size", bw);
            if (!size) return makeError(o + size.error().message);
            if (!addChecked(s.finalAllocated, *size))
                return makeError(o + bw + ".size: the sizes overflow 64 bits");
        }
    }

    const PickleValue& trace = *traces->items[s.device];
    s.events.reserve(trace.items.size());
    for (std::size_t i = 0; i < trace.items.size(); ++i) {
        const PickleValue& e = *trace.items[i];
        const std::string where = "$.device_traces[" + std::to_string(s.device) + "][" +
                                  std::to_string(i) + "]";
        if (!e.isDict()) return makeError(o + where + ": expected a dict");
        const PickleValue* action = e.get("action");
        if (!action || !action->isString()) return makeError(o + where + ": no 'action' string");
        SnapshotEvent ev;
        ev.action = actionOf(action->text);
        if (ev.action != SnapshotAction::Other) {
            auto size = sizeField(e, "size", where);
            if (!size) return makeError(o + size.error().message);
            ev.size = *size;
        }
        ev.phase = phaseOf(e.get("frames"));
        ++s.phaseEvents[std::size_t(ev.phase)];
        s.events.push_back(ev);
    }

    // Bytes after each event, walking back from the final state.
    const std::size_t n = s.events.size();
    s.allocated.resize(n);
    s.reserved.resize(n);
    std::int64_t a = s.finalAllocated, r = s.finalReserved;
    for (std::size_t k = n; k-- > 0;) {
        s.allocated[k] = a;
        s.reserved[k] = r;
        const SnapshotEvent& ev = s.events[k];
        bool ok = true;
        switch (ev.action) {
        case SnapshotAction::Alloc: a -= ev.size; break;
        case SnapshotAction::FreeCompleted: ok = addChecked(a, ev.size); break;
        case SnapshotAction::SegmentAlloc:
        case SnapshotAction::SegmentMap: r -= ev.size; break;
        case SnapshotAction::SegmentFree:
        case SnapshotAction::SegmentUnmap: ok = addChecked(r, ev.size); break;
        default: break;
        }
        if (!ok || a < 0 || r < 0)
            return makeError(o + "$.device_traces[" + std::to_string(s.device) + "][" +
                             std::to_string(k) + "]: the trace does not match the segments: " +
                             (a < 0 ? "allocated" : "reserved") +
                             " bytes before this event would be negative");
    }
    s.startAllocated = a;
    s.startReserved = r;
    s.peakAllocated = a;
    s.peakReserved = r;
    for (std::size_t k = 0; k < n; ++k) {
        s.peakAllocated = std::max(s.peakAllocated, s.allocated[k]);
        s.peakReserved = std::max(s.peakReserved, s.reserved[k]);
    }
    return s;
}

Result<MemorySnapshot> readMemorySnapshot(const std::string& path, int device) {
    auto root = readPickleFile(path);
    if (!root) return root.error();
    return memorySnapshotFromPickle(**root, printable(path), device);
}

Result<SnapshotOverlay> alignSnapshot(const MemorySnapshot& s, const Program& p, const Timeline& t) {
    if (p.accumulationSteps != 1)
        return makeError("the comparison with a snapshot needs one micro-step per step "
                         "(accumulation 1); this plan has " +
                         std::to_string(p.accumulationSteps));
    const std::size_t count = p.instructions.size();
    if (t.live.size() != count) return makeError("the timeline does not belong to the program");

    // The predicted phases: forward up to the first backward or recompute instruction,
    // backward up to the first optimizer instruction, optimizer up to the last one.
    const std::size_t none = count;
    std::size_t pf = none, pb = none, po = none, pend = none;
    for (std::size_t i = 0; i < count; ++i) {
        const Phase ph = p.instructions[i].phase;
        if (ph == Phase::Forward && pf == none) pf = i;
        if ((ph == Phase::Backward || ph == Phase::Recompute) && pb == none) pb = i;
        if (ph == Phase::Optimizer) {
            if (po == none) po = i;
            pend = i + 1;
        }
    }
    if (pf == none || pb == none) return makeError("the program has no forward or no backward");
    if (po == none) po = pend = count;

    // The measured step: the last optimizer run, the backward before it and the forward
    // before that. Without optimizer events, the last forward and the backward after it.
    const auto& ev = s.events;
    const std::size_t n = ev.size();
    auto phaseAt = [&](std::size_t k) { return ev[k].phase; };
    std::size_t oFirst = n, oEnd = n;
    for (std::size_t k = n; k-- > 0;)
        if (phaseAt(k) == SnapshotPhase::Optimizer) {
            oEnd = k + 1;
            oFirst = k;
            while (oFirst > 0 && phaseAt(oFirst - 1) == SnapshotPhase::Optimizer) --oFirst;
            break;
        }
    std::size_t bEnd = oFirst;  // = n without an optimizer
    std::size_t lastForward = n;
    for (std::size_t k = bEnd; k-- > 0;)
        if (phaseAt(k) == SnapshotPhase::Forward) {
            lastForward = k;
            break;
        }
    if (lastForward == n)
        return makeError("the trace has no forward events (frames of the model's forward) before "
                         "its last backward: was the history recorded from the start of the step?");
    const std::size_t bFirst = lastForward + 1;
    if (bFirst >= bEnd)
        return makeError("the trace has no backward events after its last forward");
    std::size_t fFirst = lastForward;
    while (fFirst > 0 && phaseAt(fFirst - 1) == SnapshotPhase::Forward) --fFirst;
    if (oFirst == n) oFirst = oEnd = bEnd;

    SnapshotOverlay out;
    out.predictedPeak = t.peakBytes;
    out.stepFirstEvent = fFirst;
    out.stepEndEvent = oEnd;
    out.spans[0] = {fFirst, bFirst, pf, pb};
    out.spans[1] = {bFirst, bEnd, pb, po};
    out.spans[2] = {oFirst, oEnd, po, pend};

    const std::int64_t beforeA = fFirst == 0 ? s.startAllocated : s.allocated[fFirst - 1];
    const std::int64_t beforeR = fFirst == 0 ? s.startReserved : s.reserved[fFirst - 1];
    out.measuredPeakAllocated = beforeA;
    out.measuredPeakReserved = beforeR;
    for (std::size_t k = fFirst; k < oEnd; ++k) {
        out.measuredPeakAllocated = std::max(out.measuredPeakAllocated, s.allocated[k]);
        out.measuredPeakReserved = std::max(out.measuredPeakReserved, s.reserved[k]);
    }

    out.allocated.assign(count, beforeA);
    out.reserved.assign(count, beforeR);
    std::int64_t lastA = beforeA, lastR = beforeR;
    for (const SnapshotSpan& sp : out.spans) {
        const std::size_t ni = sp.endInstruction - sp.firstInstruction;
        const std::size_t ne = sp.endEvent - sp.firstEvent;
        for (std::size_t j = 0; j < ni; ++j) {
            // Events [e0, e1) of the span fall on instruction j; the instruction shows their
            // highest bytes, or the bytes held since the last event when none falls on it.
            const std::size_t e0 = sp.firstEvent + (j * ne) / ni;
            const std::size_t e1 = sp.firstEvent + ((j + 1) * ne) / ni;
            std::int64_t va = lastA, vr = lastR;
            if (e1 > e0) {
                va = vr = 0;
                for (std::size_t k = e0; k < e1; ++k) {
                    va = std::max(va, s.allocated[k]);
                    vr = std::max(vr, s.reserved[k]);
                }
                lastA = s.allocated[e1 - 1];
                lastR = s.reserved[e1 - 1];
            }
            out.allocated[sp.firstInstruction + j] = va;
            out.reserved[sp.firstInstruction + j] = vr;
        }
        // A phase the program has but the trace lacks (no optimizer events) holds the bytes.
    }
    for (std::size_t i = pend; i < count; ++i) {
        out.allocated[i] = lastA;
        out.reserved[i] = lastR;
    }
    return out;
}

}  // namespace remat
