#!/usr/bin/env python3
"""The CPU backend's conv2d against PyTorch (run by the python3 that imports torch; ctest
registers it through remat_add_torch_test with the conv_probe binary as its argument): on
strided, padded, dilated, grouped and depthwise shapes, the forward output and the input,
weight and bias gradients of conv_probe (tests/conv_probe.cpp) must match
torch.nn.functional.conv2d and autograd, computed in float64 from the same float32 operands,
within 1e-5 of the largest reference value (the selftest's measure and conv2d's fp32
tolerance, docs/executors.md)."""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch
import torch.nn.functional as F

PROBE = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("REMAT_CONV_PROBE", "")
TOLERANCE = 1e-5

# n, c, h, w, out, kernel, stride, padding, dilation, groups, bias
SHAPES = [
    (2, 3, 9, 8, 4, 3, 2, 1, 1, 1, True),     # strided, padded
    (2, 4, 9, 9, 6, 3, 1, 2, 2, 2, False),    # dilation 2, two groups
    (2, 6, 7, 6, 6, 3, 1, 1, 1, 6, True),     # depthwise
    (1, 4, 8, 7, 8, 3, 2, 2, 2, 4, True),     # depthwise, channel multiplier 2, dilated, strided
    (2, 4, 5, 5, 6, 1, 1, 0, 1, 2, False),    # 1x1 in two groups (input as its columns)
    (1, 2, 10, 9, 3, 2, 3, 1, 3, 1, True),    # 2x2 taps 3 apart, stride 3
]


def relative_error(ours, ref):
    ref = ref.detach().double().numpy().ravel()
    return float(np.max(np.abs(ours.astype(np.float64) - ref)) / max(np.max(np.abs(ref)), 1e-3))


class ConvAgainstTorch(unittest.TestCase):
    def test_forward_and_gradients_match(self):
        self.assertTrue(PROBE and os.path.exists(PROBE), f"conv_probe not found: {PROBE!r}")
        gen = torch.Generator().manual_seed(13)
        for shape in SHAPES:
            n, c, h, w, o, k, s, p, d, g, bias = shape
            with self.subTest(shape=shape), tempfile.TemporaryDirectory() as tmp:
                x = torch.rand(n, c, h, w, generator=gen) * 2 - 1
                wt = torch.rand(o, c // g, k, k, generator=gen) * 2 - 1
                b = torch.rand(o, generator=gen) * 2 - 1
                ho = (h + 2 * p - d * (k - 1) - 1) // s + 1
                wo = (w + 2 * p - d * (k - 1) - 1) // s + 1
                dy = torch.rand(n, o, ho, wo, generator=gen) * 2 - 1
                for name, t in (("x", x), ("w", wt), ("b", b), ("dy", dy)):
                    t.numpy().astype("<f4").tofile(os.path.join(tmp, name + ".f32"))
                r = subprocess.run([PROBE, tmp, *map(str, (n, c, h, w, o, k, s, p, d, g)),
                                    "1" if bias else "0"], capture_output=True, text=True,
                                   timeout=120)
                self.assertEqual(r.returncode, 0, r.stderr)

                xr = x.double().requires_grad_()
                wr = wt.double().requires_grad_()
                br = b.double().requires_grad_() if bias else None
                y = F.conv2d(xr, wr, br, stride=s, padding=p, dilation=d, groups=g)
                y.backward(dy.double())

                def ours(name):
                    return np.fromfile(os.path.join(tmp, name + ".f32"), dtype="<f4")

                checks = [("y", ours("y"), y), ("dx", ours("dx"), xr.grad),
                          ("dw", ours("dw"), wr.grad)]
                if bias:
                    checks.append(("db", ours("db"), br.grad))
                for name, mine, ref in checks:
                    self.assertEqual(mine.size, ref.numel(), name)
                    err = relative_error(mine, ref)
                    self.assertLessEqual(err, TOLERANCE, f"{name}: relative error {err:.3g}")
                    # A real comparison: fp32 arithmetic, not the reference's own values.
                    self.assertGreater(np.max(np.abs(mine)), 0.0, name)

    def test_probe_refuses_groups_that_do_not_divide(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([PROBE, tmp, "1", "6", "5", "5", "4", "3", "1", "1", "1", "4", "0"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 1)
            self.assertIn("GROUPS must divide", r.stderr)


if __name__ == "__main__":
    unittest.main()
