#!/usr/bin/env python3
"""tools/remat_trace.py on PyTorch modules (run by the python3 that imports torch; ctest
registers it through remat_add_torch_test): a 3 x Linear(1024) MLP must give the layers of
resources/models/mlp-3x1024.json and simulate to the same peak; a small GPT-2-like module
(nanoGPT-style blocks, learned positions, tied head, loss in forward) and a small CNN (with a
torchvision-style residual block) must load in `remat simulate` with the module's own parameter
count; modules the format cannot express are refused naming the module; the command line writes
a file and exits 2 on a refused module."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ.get("REMAT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("REMAT_CLI", os.path.join(SRC, "build", "cpu", "app", "remat"))
sys.path.insert(0, os.path.join(SRC, "tools"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from remat_trace import TraceError, trace_module  # noqa: E402


def simulate(model, *extra):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(model, f)
        path = f.name
    try:
        return remat_json("simulate", path, *extra)
    finally:
        os.unlink(path)


def remat_json(*args):
    r = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"remat {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def parameter_count(module):
    return sum(p.numel() for p in {id(p): p for p in module.parameters()}.values())


# ---- a small GPT-2-like module, nanoGPT style --------------------------------------------------

class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, p):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.attn_dropout = nn.Dropout(p)
        self.resid_dropout = nn.Dropout(p)
        self.n_head = heads

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        h = self.n_head
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // h) ** 0.5)
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        att = F.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
        y = (self.attn_dropout(att) @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))


class Mlp(nn.Module):
    def __init__(self, d, p):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * d, d)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, d, heads, p):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, p)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = Mlp(d, p)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab=512, context=64, d=64, heads=4, layers=3, p=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.drop = nn.Dropout(p)
        self.h = nn.ModuleList([Block(d, heads, p) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


# ---- a small CNN ---------------------------------------------------------------------------------

class BasicBlock(nn.Module):
    """torchvision's BasicBlock, written out (torchvision is not needed)."""

    def __init__(self, cin, c, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, c, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c, c, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.downsample = (nn.Sequential(nn.Conv2d(cin, c, 1, stride, bias=False), nn.BatchNorm2d(c))
                           if stride != 1 or cin != c else None)

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + idt)


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.MaxPool2d(2), BasicBlock(16, 32, 2), BasicBlock(32, 32, 1),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = nn.Linear(32, 10)

    def forward(self, x):
        return self.classifier(self.features(x))


class TestRematTrace(unittest.TestCase):
    def test_mlp_matches_the_preset(self):
        mlp = nn.Sequential(nn.Linear(1024, 1024), nn.Linear(1024, 1024), nn.Linear(1024, 1024))
        model = trace_module(mlp, (torch.randn(64, 1024),), loss="mse", name="mlp-3x1024")
        with open(os.path.join(SRC, "resources", "models", "mlp-3x1024.json")) as f:
            preset = json.load(f)
        want = [{k: v for k, v in layer.items() if k != "checkpoint"} for layer in preset["layers"]]
        self.assertEqual(model["layers"], want)
        self.assertEqual(model["input"], preset["input"])
        self.assertEqual(model["training"], preset["training"])
        traced = simulate(model)
        for strategy in ("none", "manual"):
            ref = remat_json("simulate", "mlp-3x1024", "-s", strategy)
            self.assertEqual(traced["peak_bytes"], ref["peak_bytes"], strategy)
        self.assertEqual(traced["parameters"], parameter_count(mlp))
        self.assertEqual(traced["instructions"], remat_json("simulate", "mlp-3x1024", "-s", "none")["instructions"])

    def test_small_gpt2(self):
        gpt = TinyGPT()
        idx = torch.randint(0, 512, (4, 64))
        model = trace_module(gpt, (idx, torch.randint(0, 512, (4, 64))), name="tiny-gpt")
        self.assertEqual(model["input"], {"tokens": 64, "vocab": 512})
        self.assertTrue(model["tie_embeddings"])
        kinds = [l["kind"] for l in model["layers"]]
        self.assertEqual(kinds, ["embedding", "transformer_block", "layernorm", "linear", "cross_entropy"])
        self.assertEqual(model["layers"][0], {"kind": "embedding", "dim": 64, "positions": 64, "dropout": 0.1})
        block = model["layers"][1]
        self.assertEqual(block["repeat"], 3)
        self.assertEqual((block["heads"], block["mlp_hidden"], block["activation"], block["norm"],
                          block["dropout"], block["attention"], block["bias"]),
                         (4, 256, "gelu", "layernorm", 0.1, "eager", True))
        self.assertEqual(model["layers"][3], {"kind": "linear", "out": 512, "bias": False})
        out = simulate(model)
        self.assertEqual(out["parameters"], parameter_count(gpt))
        self.assertEqual(out["micro_batch"], 4)
        self.assertGreater(out["peak_bytes"], 0)
        self.assertEqual(simulate(model, "-s", "full")["regions"], 3)

    def test_small_cnn(self):
        cnn = SmallCnn()
        model = trace_module(cnn, (torch.randn(8, 3, 32, 32),), loss="cross_entropy")
        self.assertEqual(model["input"], {"shape": [3, 32, 32]})
        self.assertEqual(model["layers"], [
            {"kind": "conv2d", "out_channels": 16, "kernel": 3, "stride": 1, "padding": 1, "bias": True},
            {"kind": "batchnorm2d"}, {"kind": "relu", "inplace": True},
            {"kind": "maxpool2d", "kernel": 2, "stride": 2, "padding": 0},
            {"kind": "residual_block", "variant": "basic", "channels": 32, "stride": 2},
            {"kind": "residual_block", "variant": "basic", "channels": 32, "stride": 1},
            {"kind": "global_avg_pool"}, {"kind": "flatten"},
            {"kind": "linear", "out": 10, "bias": True}, {"kind": "cross_entropy"}])
        out = simulate(model)
        self.assertEqual(out["parameters"], parameter_count(cnn))

    def test_dilated_and_grouped_convolutions(self):
        # A dilated convolution in two groups, a depthwise one and a pointwise one (MobileNet's
        # separable pair): model format 3, with the module's own parameter count.
        net = nn.Sequential(
            nn.Conv2d(4, 8, 3, padding=2, dilation=2, groups=2, bias=False), nn.ReLU(),
            nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8), nn.Conv2d(8, 16, 1),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
        model = trace_module(net, (torch.randn(4, 4, 16, 16),), loss="cross_entropy")
        self.assertEqual(model["format"], "remat-model/3")
        self.assertEqual(model["layers"][:4], [
            {"kind": "conv2d", "out_channels": 8, "kernel": 3, "stride": 1, "padding": 2,
             "dilation": 2, "groups": 2, "bias": False},
            {"kind": "relu"},
            {"kind": "conv2d", "out_channels": 8, "kernel": 3, "stride": 2, "padding": 1,
             "groups": 8, "bias": True},
            {"kind": "conv2d", "out_channels": 16, "kernel": 1, "stride": 1, "padding": 0,
             "bias": True}])
        out = simulate(model)
        self.assertEqual(out["parameters"], parameter_count(net))
        # Without them the file stays version 1.
        plain = trace_module(nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4 * 6 * 6, 2)),
                             (torch.randn(2, 3, 8, 8),), loss="cross_entropy")
        self.assertEqual(plain["format"], "remat-model/1")

    def test_refusals_name_the_module(self):
        class WithLstm(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)
                self.rnn = nn.LSTM(8, 8)

            def forward(self, x):
                return self.rnn(self.proj(x))[0]

        with self.assertRaises(TraceError) as cm:
            trace_module(WithLstm(), (torch.randn(2, 5, 8),), loss="mse")
        self.assertIn("module 'rnn' (LSTM): no layer kind of the model format expresses it", str(cm.exception))

        class Skip(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(8, 8)

            def forward(self, x):
                return x + self.a(x)

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = Skip()

            def forward(self, x):
                return self.body(x)

        with self.assertRaises(TraceError) as cm:
            trace_module(Outer(), (torch.randn(2, 8),), loss="mse")
        msg = str(cm.exception)
        self.assertIn("in module 'body'", msg)
        self.assertIn("residual connection or a branch", msg)

        with self.assertRaises(TraceError) as cm:
            trace_module(nn.Sequential(nn.Linear(8, 8)), (torch.randn(2, 8),))
        self.assertIn("forward computes no loss", str(cm.exception))

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            factory = os.path.join(d, "models.py")
            with open(factory, "w") as f:
                f.write("import torch\nimport torch.nn as nn\n"
                        "def mlp():\n"
                        "    return nn.Sequential(nn.Linear(1024, 1024), nn.Linear(1024, 1024),"
                        " nn.Linear(1024, 1024)), (torch.randn(64, 1024),)\n"
                        "def lstm():\n"
                        "    return nn.Sequential(nn.LSTM(4, 4)), (torch.randn(2, 3, 4),)\n")
            out = os.path.join(d, "mlp.json")
            tool = os.path.join(SRC, "tools", "remat_trace.py")
            r = subprocess.run([sys.executable, tool, factory + ":mlp", "--loss", "mse", "-o", out],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("wrote " + out, r.stdout)
            ref = remat_json("simulate", "mlp-3x1024", "-s", "none")
            self.assertEqual(remat_json("simulate", out)["peak_bytes"], ref["peak_bytes"])
            r = subprocess.run([sys.executable, tool, factory + ":lstm", "--loss", "mse"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 2)
            self.assertIn("remat_trace: module '0' (LSTM)", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
