#!/usr/bin/env python3
"""The saved activations of a post-LN transformer block (BERT's layer: attention, dropout, add,
LayerNorm, MLP, dropout, add, LayerNorm), counted in PyTorch with
torch.autograd.graph.saved_tensors_hooks, against the per-sample figure tst_hf_import derives by
hand and `remat` lowers: for T tokens, width C, h heads and MLP width I in fp32,
4 (8 T C + 2 h T T + 2 T I + 4 T) + h T T + 2 T C bytes per sample (35,072 for T 16, C 32, h 4,
I 64). The module follows transformers' BertLayer (separate query, key and value projections,
eager attention with dropout on the probabilities). Dropout is torch.native_dropout, the kernel
F.dropout runs on CUDA (a 1-byte mask saved); on the CPU F.dropout saves a mask in the input's
dtype instead. The 0-dimensional Python scalar the score division saves (8 bytes, no
activation) is left out. Run by the python3 that imports torch (ctest's remat_add_torch_test)."""

import math
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

T, C, H, I, P = 16, 32, 4, 64, 0.1


def dropout(x):
    return torch.native_dropout(x, P, True)[0]


class PostLnBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(C, C)
        self.key = nn.Linear(C, C)
        self.value = nn.Linear(C, C)
        self.dense = nn.Linear(C, C)
        self.ln1 = nn.LayerNorm(C)
        self.fc1 = nn.Linear(C, I)
        self.fc2 = nn.Linear(I, C)
        self.ln2 = nn.LayerNorm(C)

    def heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, H, C // H).permute(0, 2, 1, 3)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(C // H)
        probs = dropout(F.softmax(scores, dim=-1))
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous().view(b, t, C)
        h = self.ln1(dropout(self.dense(context)) + x)
        m = dropout(self.fc2(F.gelu(self.fc1(h))))
        return self.ln2(m + h)


def saved_bytes(block, batch):
    params = {p.data_ptr() for p in block.parameters()}
    storages = {}

    def pack(t):
        s = t.storage()
        if t.dim() > 0 and t.data_ptr() not in params and s.data_ptr() not in params:
            storages[s.data_ptr()] = s.nbytes()
        return t

    x = torch.randn(batch, T, C, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = block(x)
    y.sum().backward()
    return sum(storages.values())


class PostLnSaved(unittest.TestCase):
    def test_per_sample_bytes_match_the_derivation(self):
        torch.manual_seed(0)
        block = PostLnBlock().train()
        expected = 4 * (8 * T * C + 2 * H * T * T + 2 * T * I + 4 * T) + H * T * T + 2 * T * C
        self.assertEqual(expected, 35072)
        for batch in (1, 3):
            self.assertEqual(saved_bytes(block, batch), expected * batch)


if __name__ == "__main__":
    unittest.main()
