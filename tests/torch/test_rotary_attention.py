#!/usr/bin/env python3
"""Rotary position embeddings against an independent PyTorch implementation of Hugging Face
Llama's (rotate_half, inv_freq = 1 / base^(2i / dims), cos and sin of position x inv_freq
repeated over both halves), with GPT-NeoX's partial rotary (only the first rotary_dims of each
head rotated), in a tiny causal attention with grouped KV heads, in float64 autograd. Our side
is the CPU backend's rotary and flash attention ops, forward then backward, run by the helper
tests/torch/rotary_attention_dump.cpp (its path is the first argument). The attention output
and the gradient with respect to qkv must agree to fp32 rounding; without the rotation on the
PyTorch side they must not (the check can fail)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch

DUMP = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("REMAT_ROTARY_DUMP", "")


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def hf_cos_sin(tokens, dims, base):
    inv_freq = 1.0 / (base ** (torch.arange(0, dims, 2, dtype=torch.float64) / dims))
    freqs = torch.outer(torch.arange(tokens, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def apply_rotary(x, cos, sin, dims):
    # x [B, heads, T, D]; GPT-NeoX rotates the first `dims` only.
    rot, rest = x[..., :dims], x[..., dims:]
    return torch.cat((rot * cos + rotate_half(rot) * sin, rest), dim=-1)


def torch_attention(qkv, b, t, h, kv, d, dims, base, rotary=True):
    q, k, v = qkv.split([h * d, kv * d, kv * d], dim=-1)
    q = q.view(b, t, h, d).transpose(1, 2)
    k = k.view(b, t, kv, d).transpose(1, 2)
    v = v.view(b, t, kv, d).transpose(1, 2)
    if rotary:
        cos, sin = hf_cos_sin(t, dims, base)
        q = apply_rotary(q, cos, sin, dims)
        k = apply_rotary(k, cos, sin, dims)
    k = k.repeat_interleave(h // kv, dim=1)
    v = v.repeat_interleave(h // kv, dim=1)
    scores = q @ k.transpose(-1, -2) / (d ** 0.5)
    mask = torch.ones(t, t, dtype=torch.bool).triu(1)
    scores = scores.masked_fill(mask, float("-inf"))
    out = scores.softmax(dim=-1) @ v
    return out.transpose(1, 2).reshape(b, t, h * d)


def ours(case, qkv, d_out):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({**case, "qkv": qkv.flatten().tolist(), "d_out": d_out.flatten().tolist()}, f)
        path = f.name
    try:
        r = subprocess.run([DUMP, path], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        raise AssertionError(f"rotary_attention_dump: exit {r.returncode}: {r.stderr}")
    j = json.loads(r.stdout)
    return (torch.tensor(j["out"], dtype=torch.float64), torch.tensor(j["d_qkv"], dtype=torch.float64))


def relative_error(a, b):
    return float((a - b).abs().max() / max(float(b.abs().max()), 1e-3))


class RotaryAttention(unittest.TestCase):
    CASES = [
        # Llama: the whole head, base 10000; 70 tokens cross the flash kernel's 64-row tile.
        dict(batch=2, tokens=70, heads=4, kv_heads=2, head_dim=16, rotary_dims=16, rotary_base=10000.0),
        # GPT-NeoX / Pythia: a quarter of the head, another base; one KV head per query head.
        dict(batch=1, tokens=33, heads=2, kv_heads=2, head_dim=32, rotary_dims=8, rotary_base=500.0),
    ]

    def run_case(self, case, rotary=True):
        gen = torch.Generator().manual_seed(case["tokens"] * 7 + case["head_dim"])
        b, t, h, kv, d = (case[k] for k in ("batch", "tokens", "heads", "kv_heads", "head_dim"))
        qkv = (torch.rand(b, t, (h + 2 * kv) * d, generator=gen, dtype=torch.float64) * 3 - 1.5)
        qkv = qkv.float().double()  # the values fp32 holds, so both sides start equal
        d_out = (torch.rand(b, t, h * d, generator=gen, dtype=torch.float64) * 2 - 1).float().double()
        out, d_qkv = ours(case, qkv, d_out)
        x = qkv.clone().requires_grad_(True)
        ref = torch_attention(x, b, t, h, kv, d, case["rotary_dims"], case["rotary_base"], rotary)
        ref.backward(d_out)
        return (relative_error(out, ref.detach().flatten()), relative_error(d_qkv, x.grad.flatten()))

    def test_matches_hugging_face_rotary(self):
        for case in self.CASES:
            with self.subTest(case=case):
                out_err, grad_err = self.run_case(case)
                print(f"rotary dims {case['rotary_dims']}/{case['head_dim']}: output error "
                      f"{out_err:.2e}, qkv gradient error {grad_err:.2e}")
                self.assertLess(out_err, 1e-5)
                self.assertLess(grad_err, 1e-5)

    def test_rotation_is_visible(self):
        # The same comparison against attention without the rotation fails by far.
        out_err, grad_err = self.run_case(self.CASES[0], rotary=False)
        self.assertGreater(out_err, 1e-2)
        self.assertGreater(grad_err, 1e-2)


if __name__ == "__main__":
    if not DUMP or not os.path.exists(DUMP):
        sys.exit("test_rotary_attention.py: the path of rotary_attention_dump is the first argument")
    unittest.main()
