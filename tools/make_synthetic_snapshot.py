#!/usr/bin/env python3
"""Writes tests/data/snapshots/synthetic.pickle: a hand-made PyTorch CUDA memory snapshot in the
format `torch.cuda.memory._dump_snapshot` writes, made without PyTorch or a GPU (plain dicts and
lists through the standard pickle module), and next to it synthetic.expected.json with the
figures a reader must find in it, computed here from the events as they are written.

The step it describes is the textbook MLP of resources/models/mlp-3x1024.json (three
Linear(1024, 1024), MSE loss, micro-batch 64, fp32, plain SGD): 4 MiB weights, 4 KiB biases,
256 KiB activations. Two training steps are traced, after the parameters were allocated (so
the trace starts with 12,595,200 bytes already in use, as a ring buffer that dropped its first
events does). Each step: the forward allocates the input, the target and each layer's output
(frames of `forward` in train.py); the backward (events without frames, as the autograd
engine's threads record them) allocates the gradients and frees what it no longer needs; the
optimizer (frames in torch/optim/sgd.py) allocates and frees one temporary per parameter, and
zero_grad (torch/optim/optimizer.py) frees the gradients. Segments come from a much simplified
caching allocator: sizes rounded up to 512 bytes, requests up to 1 MiB from 2 MiB segments,
larger ones from 20 MiB segments, a new segment (segment_alloc) when no segment of the pool
has room left, never returned; block addresses are unique labels, not a real placement. It is a format example with known figures, not a real run;
scripts/torch_reference.py --snapshot writes a real one on a GPU.

It also writes plain-protocol2.pickle and plain-protocol5.pickle: one dict of every plain
type (str, int of every size, float, bool, None, list, tuple, a list referenced twice) under
pickle protocols 2 and 5.

Usage: python3 tools/make_synthetic_snapshot.py [OUT_DIR]   (default tests/data/snapshots)
"""

import json
import os
import pickle
import sys

MIB = 1 << 20
SMALL_LIMIT, SMALL_SEGMENT, LARGE_SEGMENT = 1 * MIB, 2 * MIB, 20 * MIB

FORWARD = [{"filename": "train.py", "line": 12, "name": "forward"},
           {"filename": "train.py", "line": 40, "name": "train_step"}]
SGD = [{"filename": "/usr/lib/python3/dist-packages/torch/optim/sgd.py", "line": 240,
        "name": "_single_tensor_sgd"},
       {"filename": "train.py", "line": 44, "name": "train_step"}]
ZERO_GRAD = [{"filename": "/usr/lib/python3/dist-packages/torch/optim/optimizer.py", "line": 450,
              "name": "zero_grad"},
             {"filename": "train.py", "line": 45, "name": "train_step"}]


class Allocator:
    def __init__(self):
        self.segments = []  # dicts: address, total_size, used, blocks {address: (size, frames)}
        self.next_address = 0x7F0000000000
        self.trace = []
        self.phase_events = {"forward": 0, "backward": 0, "optimizer": 0}

    def event(self, action, addr, size, frames, phase):
        self.trace.append({"action": action, "addr": addr, "size": size, "stream": 0,
                           "frames": frames})
        self.phase_events[phase] += 1

    def alloc(self, nbytes, frames, phase, record=True):
        size = (nbytes + 511) // 512 * 512
        small = size <= SMALL_LIMIT
        for seg in self.segments:
            if seg["small"] == small and seg["total_size"] - seg["used"] >= size:
                break
        else:
            total = SMALL_SEGMENT if small else max(LARGE_SEGMENT, (size + 2 * MIB - 1) // (2 * MIB) * 2 * MIB)
            seg = {"address": self.next_address, "total_size": total, "used": 0, "offset": 0, "small": small,
                   "blocks": {}}
            self.next_address += total
            self.segments.append(seg)
            if record:
                self.event("segment_alloc", seg["address"], total, frames, phase)
        addr = seg["address"] + seg["offset"]  # a label: unique, not a real placement
        seg["offset"] += size
        seg["used"] += size
        seg["blocks"][addr] = (size, frames)
        if record:
            self.event("alloc", addr, size, frames, phase)
        return addr

    def free(self, addr, frames, phase):
        for seg in self.segments:
            if addr in seg["blocks"]:
                size, _ = seg["blocks"].pop(addr)
                seg["used"] -= size  # simplified: freed bytes are reusable at once
                self.event("free_requested", addr, size, frames, phase)
                self.event("free_completed", addr, size, frames, phase)
                return
        raise KeyError(addr)

    def allocated(self):
        return sum(size for s in self.segments for size, _ in s["blocks"].values())

    def reserved(self):
        return sum(s["total_size"] for s in self.segments)

    def snapshot(self):
        segments = []
        for s in self.segments:
            blocks = [{"address": a, "size": size, "requested_size": size,
                       "state": "active_allocated", "frames": frames}
                      for a, (size, frames) in sorted(s["blocks"].items())]
            free = s["total_size"] - sum(b["size"] for b in blocks)
            if free:
                blocks.append({"address": s["address"] + s["offset"], "size": free,
                               "requested_size": 0, "state": "inactive", "frames": []})
            used = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            segments.append({"device": 0, "address": s["address"], "total_size": s["total_size"],
                             "allocated_size": used, "active_size": used, "requested_size": used,
                             "stream": 0, "segment_type": "small" if s["small"] else "large",
                             "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
                             "blocks": blocks})
        return {"segments": segments, "device_traces": [self.trace],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": None, "max_split_size": -1,
                                       "garbage_collection_threshold": 0.0,
                                       "expandable_segments": False, "roundup_power2_divisions": {}}}


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                         "data", "snapshots")
    batch, width = 64, 1024
    act = batch * width * 4
    weight, bias = width * width * 4, width * 4

    a = Allocator()
    params = []
    for _ in range(3):  # allocated before the history was recorded: not in the trace
        params.append(a.alloc(weight, FORWARD, "forward", record=False))
        params.append(a.alloc(bias, FORWARD, "forward", record=False))
    start = (a.allocated(), a.reserved())

    steps = []
    for step in range(2):
        first_event = len(a.trace)
        x = a.alloc(act, FORWARD, "forward")
        y = a.alloc(act, FORWARD, "forward")
        h = [a.alloc(act, FORWARD, "forward") for _ in range(3)]
        loss = a.alloc(4, FORWARD, "forward")
        # backward: no frames
        g_loss = a.alloc(4, [], "backward")
        g = a.alloc(act, [], "backward")  # d loss / d h3
        a.free(y, [], "backward")
        a.free(loss, [], "backward")
        a.free(g_loss, [], "backward")
        grads = []
        for layer in (2, 1, 0):
            grads.append(a.alloc(weight, [], "backward"))
            grads.append(a.alloc(bias, [], "backward"))
            a.free(h[layer], [], "backward")
            g_in = a.alloc(act, [], "backward") if layer > 0 else None
            a.free(g, [], "backward")
            g = g_in
        a.free(x, [], "backward")
        backward_end = len(a.trace)
        # optimizer: one temporary per parameter, then zero_grad frees the gradients
        for p in (weight, bias) * 3:
            t = a.alloc(p, SGD, "optimizer")
            a.free(t, SGD, "optimizer")
        for gr in grads:
            a.free(gr, ZERO_GRAD, "optimizer")
        steps.append((first_event, backward_end, len(a.trace)))

    # The curves, forwards from the start state.
    alloc, res = start
    allocated, reserved = [], []
    for e in a.trace:
        if e["action"] == "alloc":
            alloc += e["size"]
        elif e["action"] == "free_completed":
            alloc -= e["size"]
        elif e["action"] == "segment_alloc":
            res += e["size"]
        allocated.append(alloc)
        reserved.append(res)
    first, _, end = steps[-1]
    before = first - 1
    expected = {
        "events": len(a.trace),
        "phase_events": a.phase_events,
        "start_allocated": start[0], "start_reserved": start[1],
        "final_allocated": a.allocated(), "final_reserved": a.reserved(),
        "peak_allocated": max([start[0]] + allocated), "peak_reserved": max([start[1]] + reserved),
        "last_step_first_event": first, "last_step_end_event": end,
        "last_step_backward_first_event": steps[-1][0] + 6,
        "last_step_optimizer_first_event": steps[-1][1],
        "last_step_peak_allocated": max([allocated[before]] + allocated[first:end]),
        "last_step_peak_reserved": max([reserved[before]] + reserved[first:end]),
        "allocated_after_event": {str(i): allocated[i] for i in (0, 5, 6, first + 7, end - 1)},
    }
    assert expected["final_allocated"] == allocated[-1] and expected["final_reserved"] == reserved[-1]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "synthetic.pickle"), "wb") as f:
        pickle.dump(a.snapshot(), f, protocol=4)
    with open(os.path.join(out_dir, "synthetic.expected.json"), "w") as f:
        json.dump(expected, f, indent=2, sort_keys=True)
        f.write("\n")
    # The same plain values under protocols 2 and 5, for the reader's tests.
    shared = [1, "x"]
    plain = {"text": "h\u00e9llo", "neg": -5, "big": 2 ** 40 + 3, "negbig": -(2 ** 40), "f": 0.25,
             "t": True, "n": None, "list": [1, 300, 70000, (3, "x")], "shared": [shared, shared]}
    for proto in (2, 5):
        with open(os.path.join(out_dir, "plain-protocol%d.pickle" % proto), "wb") as f:
            pickle.dump(plain, f, protocol=proto)
    print(json.dumps(expected, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
