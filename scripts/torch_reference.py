#!/usr/bin/env python3
"""PyTorch reference runs for the GPU check (scripts/gpu-check.sh).

Builds, from a remat model file (resources/models/*.json, format remat-model/1), the equivalent
nn.Module -- nanoGPT-style pre-LN transformer blocks with eager attention or, for blocks with
"attention": "flash", F.scaled_dot_product_attention (PyTorch's fused flash kernel where it
applies); torchvision-style convolutional networks (conv2d, batchnorm2d, in-place ReLU, max
pool, BasicBlock / Bottleneck residual blocks with their projection shortcut, global average
pool); or a plain layer stack -- applies the same checkpointing plan with torch.utils.checkpoint (non-reentrant, as
Remat Studio models it: one region per chain element for `full`, groups of ceil(sqrt(N)) for
`sqrt`, groups of K for `every:K`, every sub-module of a kind for `selective:KIND`), and
measures one training step as PyTorch eager runs it: peak memory from
torch.cuda.max_memory_allocated / max_memory_reserved, step and forward time from CUDA events,
median over the measured steps after warm-up.

Precision follows the model file (or the config): fp32, or mixed-bf16 / mixed-fp16 as Remat
Studio models it (Megatron-style: 16-bit parameters, gradients and activations, fp32 master
weights and optimizer states, cross-entropy on an fp32 copy of the logits), with the optimizer
update done parameter by parameter so its temporaries stay small.

Input: a JSON list of configs {"name", "model_file", "strategy", "micro_batch"?, "precision"?,
"optimizer"?}. Output: a JSON object {"torch_version", "device", "results": [...]}, one result
per config, each with an "error" instead of figures when it could not run. Never raises for a
failed config; stops starting new configs when --budget-s is spent.
"""

import argparse
import json
import math
import statistics
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", required=True, help="JSON file: a list of run configs")
    p.add_argument("--out", required=True, help="JSON file to write the results to")
    p.add_argument("--warmup", type=int, default=2, help="unmeasured steps per config")
    p.add_argument("--steps", type=int, default=5, help="measured steps per config")
    p.add_argument("--budget-s", type=float, default=90.0,
                   help="wall-clock budget; configs not started by then are skipped")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--snapshot", metavar="OUT",
                   help="also write a PyTorch CUDA memory snapshot (pickle) of one training step "
                        "of the first config that runs, after its warm-up, to OUT; `remat simulate "
                        "MODEL --snapshot OUT` compares it with the prediction")
    return p.parse_args(argv)


# ---- the remat model file ----------------------------------------------------------------------

def load_model(path):
    with open(path) as f:
        m = json.load(f)
    if m.get("format") != "remat-model/1":
        raise ValueError(f"{path}: not a remat-model/1 file")
    return m


def expanded_layers(model):
    """The layer instances, repeats expanded, as Remat Studio indexes them."""
    out = []
    for layer in model["layers"]:
        for _ in range(int(layer.get("repeat", 1))):
            out.append(layer)
    return out


def plan_groups(model, strategy):
    """Chain-element groups to checkpoint, as lists of expanded layer indices, plus the set of
    sub-module kinds checkpointed inside every block (selective)."""
    layers = expanded_layers(model)
    block_kinds = ("transformer_block", "residual_block")
    blocks = [i for i, l in enumerate(layers) if l["kind"] in block_kinds]
    losses = ("cross_entropy", "mse")
    chain = blocks if blocks else [i for i, l in enumerate(layers) if l["kind"] not in losses]
    if strategy in ("none", "manual"):
        return [], set()
    if strategy == "full":
        return [[i] for i in chain], set()
    if strategy == "sqrt" or strategy.startswith("every:"):
        k = math.ceil(math.sqrt(len(chain))) if strategy == "sqrt" else int(strategy.split(":")[1])
        return [chain[i:i + k] for i in range(0, len(chain), k)], set()
    if strategy.startswith("selective:"):
        return [], set(strategy.split(":", 1)[1].split(","))
    raise ValueError(f"strategy '{strategy}' has no PyTorch equivalent here")


# ---- modules -----------------------------------------------------------------------------------

def build(torch, model, selective):
    nn = torch.nn
    F = torch.nn.functional
    ckpt = torch.utils.checkpoint.checkpoint

    def gelu_tanh(x):
        return F.gelu(x, approximate="tanh")

    class RMSNorm(nn.Module):
        def __init__(self, dim, eps=1e-5):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))
            self.eps = eps

        def forward(self, x):
            xf = x.float()
            y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
            return (y * self.weight.float()).to(x.dtype)

    def norm(kind, dim):
        return nn.LayerNorm(dim, eps=1e-5) if kind == "layernorm" else RMSNorm(dim)

    class AttentionCore(nn.Module):
        """scores -> (mask) -> softmax -> dropout -> context, eager, with grouped KV heads
        materialised per query head (repeat_interleave), as Remat Studio lowers it."""

        def __init__(self, heads, kv_heads, head_dim, dropout, causal):
            super().__init__()
            self.h, self.kv, self.d, self.p, self.causal = heads, kv_heads, head_dim, dropout, causal

        def forward(self, qkv):
            b, t, _ = qkv.shape
            h, kv, d = self.h, self.kv, self.d
            q, k, v = qkv.split([h * d, kv * d, kv * d], dim=2)
            q = q.view(b, t, h, d).transpose(1, 2)
            k = k.view(b, t, kv, d).transpose(1, 2)
            v = v.view(b, t, kv, d).transpose(1, 2)
            if kv != h:
                k = k.repeat_interleave(h // kv, dim=1)
                v = v.repeat_interleave(h // kv, dim=1)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
            if self.causal:
                mask = torch.ones(t, t, dtype=torch.bool, device=qkv.device).triu(1)
                att = att.masked_fill(mask, float("-inf"))
            att = F.softmax(att, dim=-1)
            att = F.dropout(att, p=self.p, training=self.training)
            y = att @ v
            return y.transpose(1, 2).contiguous().view(b, t, h * d)

    class FlashCore(nn.Module):
        """Fused attention through F.scaled_dot_product_attention: no tokens x tokens matrix kept
        (the flash backend saves q, k, v, the output and the log-sum-exp, as Remat Studio's
        flash op). Grouped KV heads go in as they are (enable_gqa, PyTorch >= 2.5), else
        expanded; no dropout inside, as Remat Studio lowers flash attention."""

        def __init__(self, heads, kv_heads, head_dim, causal):
            super().__init__()
            self.h, self.kv, self.d, self.causal = heads, kv_heads, head_dim, causal

        def forward(self, qkv):
            b, t, _ = qkv.shape
            h, kv, d = self.h, self.kv, self.d
            q, k, v = qkv.split([h * d, kv * d, kv * d], dim=2)
            q = q.view(b, t, h, d).transpose(1, 2)
            k = k.view(b, t, kv, d).transpose(1, 2)
            v = v.view(b, t, kv, d).transpose(1, 2)
            if kv != h:
                try:
                    y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal,
                                                       enable_gqa=True)
                    return y.transpose(1, 2).contiguous().view(b, t, h * d)
                except TypeError:  # PyTorch before 2.5: no enable_gqa
                    k = k.repeat_interleave(h // kv, dim=1)
                    v = v.repeat_interleave(h // kv, dim=1)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
            return y.transpose(1, 2).contiguous().view(b, t, h * d)

    class Attention(nn.Module):
        def __init__(self, l, dim):
            super().__init__()
            h = l["heads"]
            kv = l.get("kv_heads", 0) or h
            d = dim // h
            bias = l.get("bias", True)
            self.qkv = nn.Linear(dim, (h + 2 * kv) * d, bias=bias)
            if l.get("attention", "eager") == "flash":
                self.core = FlashCore(h, kv, d, l.get("causal", True))
            else:
                self.core = AttentionCore(h, kv, d, l.get("dropout", 0.0), l.get("causal", True))
            self.proj = nn.Linear(h * d, dim, bias=bias)
            self.p = l.get("dropout", 0.0)
            self.ckpt_core = "attention_core" in selective

        def forward(self, x):
            qkv = self.qkv(x)
            y = ckpt(self.core, qkv, use_reentrant=False) if self.ckpt_core else self.core(qkv)
            return F.dropout(self.proj(y), p=self.p, training=self.training)

    class Mlp(nn.Module):
        def __init__(self, l, dim):
            super().__init__()
            hidden, bias = l["mlp_hidden"], l.get("bias", True)
            self.gated = l.get("gated", False)
            self.act = {"gelu": gelu_tanh, "silu": F.silu, "relu": F.relu}[l.get("activation", "gelu")]
            if self.gated:
                self.gate = nn.Linear(dim, hidden, bias=bias)
                self.up = nn.Linear(dim, hidden, bias=bias)
                self.down = nn.Linear(hidden, dim, bias=bias)
            else:
                self.fc1 = nn.Linear(dim, hidden, bias=bias)
                self.fc2 = nn.Linear(hidden, dim, bias=bias)
            self.p = l.get("dropout", 0.0)

        def forward(self, x):
            if self.gated:
                h = self.down(self.act(self.gate(x)) * self.up(x))
            else:
                h = self.fc2(self.act(self.fc1(x)))
            return F.dropout(h, p=self.p, training=self.training)

    class Block(nn.Module):
        def __init__(self, l, dim):
            super().__init__()
            kind = l.get("norm", "layernorm")
            self.ln1, self.ln2 = norm(kind, dim), norm(kind, dim)
            self.attn, self.mlp = Attention(l, dim), Mlp(l, dim)
            self.ckpt_attn = "attention" in selective
            self.ckpt_mlp = "mlp" in selective

        def forward(self, x):
            h = self.ln1(x)
            a = ckpt(self.attn, h, use_reentrant=False) if self.ckpt_attn else self.attn(h)
            x = x + a
            h = self.ln2(x)
            m = ckpt(self.mlp, h, use_reentrant=False) if self.ckpt_mlp else self.mlp(h)
            return x + m

    class Embedding(nn.Module):
        def __init__(self, l, vocab):
            super().__init__()
            self.wte = nn.Embedding(vocab, l["dim"])
            self.wpe = nn.Embedding(l["positions"], l["dim"]) if l.get("positions", 0) else None
            self.p = l.get("dropout", 0.0)

        def forward(self, tok):
            y = self.wte(tok)
            if self.wpe is not None:
                y = y + self.wpe(torch.arange(tok.shape[1], device=tok.device))
            return F.dropout(y, p=self.p, training=self.training)

    class Residual(nn.Module):
        """torchvision's BasicBlock (two 3x3 convs) or Bottleneck (1x1, 3x3 with the stride,
        1x1 to 4 x channels), each conv without bias and followed by batch norm, ReLU in place
        between them; a 1x1 projection shortcut with batch norm when the shape changes; then
        add and ReLU."""

        def __init__(self, l, cin):
            super().__init__()
            c, stride = l["channels"], l.get("stride", 1)
            self.bottleneck = l.get("variant", "basic") == "bottleneck"
            cout = 4 * c if self.bottleneck else c
            if self.bottleneck:
                self.convs = nn.ModuleList([
                    nn.Conv2d(cin, c, 1, bias=False), nn.Conv2d(c, c, 3, stride, 1, bias=False),
                    nn.Conv2d(c, cout, 1, bias=False)])
            else:
                self.convs = nn.ModuleList([
                    nn.Conv2d(cin, c, 3, stride, 1, bias=False), nn.Conv2d(c, c, 3, 1, 1, bias=False)])
            self.bns = nn.ModuleList([nn.BatchNorm2d(m.out_channels) for m in self.convs])
            self.shortcut = None
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                              nn.BatchNorm2d(cout))
            self.out_channels = cout

        def forward(self, x):
            h = x
            for i, (conv, bn) in enumerate(zip(self.convs, self.bns)):
                h = bn(conv(h))
                if i + 1 < len(self.convs):
                    h = F.relu(h, inplace=True)
            s = self.shortcut(x) if self.shortcut is not None else x
            return F.relu(h + s, inplace=True)

    class Lambda(nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, x):
            return self.fn(x)

    layers = expanded_layers(model)
    inp = model["input"]
    tokens = "tokens" in inp
    dim = None if tokens else inp["shape"][-1]
    channels = inp["shape"][0] if not tokens and len(inp["shape"]) == 3 else None
    mods = nn.ModuleList()
    loss = None
    embedding = None
    for l in layers:
        k = l["kind"]
        if k == "embedding":
            embedding = Embedding(l, inp["vocab"])
            mods.append(embedding)
            dim = l["dim"]
        elif k == "transformer_block":
            mods.append(Block(l, dim))
        elif k == "linear":
            lin = nn.Linear(dim, l["out"], bias=l.get("bias", True))
            if model.get("tie_embeddings") and embedding is not None and l["out"] == inp["vocab"]:
                lin.weight = embedding.wte.weight
            mods.append(lin)
            dim = l["out"]
        elif k in ("layernorm", "rmsnorm"):
            mods.append(norm(k, dim))
        elif k == "relu" and l.get("inplace"):
            mods.append(nn.ReLU(inplace=True))
        elif k in ("relu", "gelu", "silu", "tanh", "sigmoid", "softmax"):
            fn = {"relu": F.relu, "gelu": gelu_tanh, "silu": F.silu, "tanh": torch.tanh,
                  "sigmoid": torch.sigmoid, "softmax": lambda x: F.softmax(x, dim=-1)}[k]
            mods.append(Lambda(fn))
        elif k == "dropout":
            p = l.get("p", 0.0)
            mods.append(Lambda(lambda x, p=p: F.dropout(x, p=p, training=True)))
        elif k == "conv2d":
            conv = nn.Conv2d(channels, l["out_channels"], l["kernel"], l.get("stride", 1),
                             l.get("padding", 0), dilation=l.get("dilation", 1),
                             groups=l.get("groups", 1), bias=l.get("bias", True))
            mods.append(conv)
            channels = l["out_channels"]
        elif k == "batchnorm2d":
            mods.append(nn.BatchNorm2d(channels))
        elif k == "maxpool2d":
            mods.append(nn.MaxPool2d(l["kernel"], l.get("stride", l["kernel"]), l.get("padding", 0)))
        elif k == "residual_block":
            block = Residual(l, channels)
            mods.append(block)
            channels = block.out_channels
        elif k == "global_avg_pool":
            mods.append(nn.AdaptiveAvgPool2d(1))
        elif k == "flatten":
            mods.append(nn.Flatten())
            dim = channels
        elif k in ("cross_entropy", "mse"):
            loss = k
        else:
            raise ValueError(f"layer kind '{k}' has no PyTorch equivalent here")
    if loss is None:
        raise ValueError("the model has no loss layer")
    return mods, loss, dim


# ---- a memory snapshot of one step ---------------------------------------------------------------

def write_snapshot(torch, step, path):
    """Records the caching allocator's events during one call of `step` and writes the snapshot
    as torch.cuda.memory._dump_snapshot does (PyTorch 2.1 and later; the older private API of
    2.0 otherwise; 1.13 writes a snapshot without the trace, which Remat Studio refuses). The events carry Python stacks, from which Remat Studio tells the
    forward, backward and optimizer phases apart (docs/ecosystem.md)."""
    import pickle
    mem = torch.cuda.memory
    try:
        mem._record_memory_history(enabled="all", context="all", stacks="python",
                                   max_entries=1000000)
        new_api = True
    except TypeError:  # PyTorch 2.0; 1.13 records no trace (its snapshots have no device_traces)
        try:
            mem._record_memory_history(True, trace_alloc_max_entries=1000000,
                                       trace_alloc_record_context=True)
        except TypeError:
            mem._record_memory_history(True)
        new_api = False
    try:
        step()
        torch.cuda.synchronize()
        if hasattr(mem, "_dump_snapshot"):
            mem._dump_snapshot(path)
        else:
            with open(path, "wb") as f:
                pickle.dump(mem._snapshot(), f)
    finally:
        if new_api:
            mem._record_memory_history(enabled=None)
        else:
            mem._record_memory_history(False)


# ---- one config ----------------------------------------------------------------------------------

def run_config(torch, cfg, args):
    model = load_model(cfg["model_file"])
    training = dict(model.get("training", {}))
    micro = int(cfg.get("micro_batch") or training.get("micro_batch", 1))
    precision = cfg.get("precision") or training.get("precision", "fp32")
    optimizer = cfg.get("optimizer") or training.get("optimizer", "sgd")
    strategy = cfg["strategy"]
    groups, selective = plan_groups(model, strategy)
    dev = torch.device("cuda")
    torch.manual_seed(args.seed)
    torch.backends.cuda.matmul.allow_tf32 = False  # Remat Studio's fp32 GEMMs are plain fp32
    torch.backends.cudnn.allow_tf32 = False

    mods, loss_kind, out_dim = build(torch, model, selective)
    half = {"fp32": None, "mixed-bf16": torch.bfloat16, "mixed-fp16": torch.float16}[precision]
    mods = mods.to(dev)
    if half is not None:
        mods = mods.to(half)
    mods.train()
    params = [p for p in mods.parameters()]
    n_params = sum(p.numel() for p in params)

    # Optimizer state (and masters) as Remat Studio counts them: fp32, resident all step.
    masters = [p.detach().float().clone() for p in params] if half is not None else None
    state1 = [torch.zeros_like(p, dtype=torch.float32) for p in params] if optimizer != "sgd" else None
    state2 = ([torch.zeros_like(p, dtype=torch.float32) for p in params]
              if optimizer in ("adam", "adamw") else None)
    lr, mom, b1, b2, eps, wd = 1e-3, 0.9, 0.9, 0.999, 1e-8, 0.01
    step_no = [0]

    @torch.no_grad()
    def optimizer_step():
        step_no[0] += 1
        t = step_no[0]
        for i, p in enumerate(params):
            if p.grad is None:
                continue
            w = masters[i] if masters is not None else p.data
            g = p.grad.float() if p.grad.dtype != torch.float32 else p.grad
            if optimizer == "sgd":
                w.add_(g, alpha=-lr)
            elif optimizer == "momentum":
                state1[i].mul_(mom).add_(g)
                w.add_(state1[i], alpha=-lr)
            else:
                if optimizer == "adamw":
                    w.mul_(1.0 - lr * wd)
                state1[i].mul_(b1).add_(g, alpha=1.0 - b1)
                state2[i].mul_(b2).addcmul_(g, g, value=1.0 - b2)
                denom = (state2[i] / (1.0 - b2 ** t)).sqrt_().add_(eps)
                w.addcdiv_(state1[i], denom, value=-lr / (1.0 - b1 ** t))
            if masters is not None:
                p.data.copy_(w)

    F = torch.nn.functional
    inp = model["input"]
    if "tokens" in inp:
        x = torch.randint(0, inp["vocab"], (micro, inp["tokens"]), device=dev)
        y = torch.randint(0, inp["vocab"], (micro, inp["tokens"]), device=dev)
    else:
        x = torch.rand((micro, *inp["shape"]), device=dev) * 2 - 1
        if loss_kind == "cross_entropy":  # class targets, as for an image classifier
            y = torch.randint(0, out_dim, (micro,), device=dev)
            if half is not None:
                x = x.to(half)
        else:
            y = torch.rand((micro, out_dim), device=dev) * 2 - 1
            if half is not None:
                x, y = x.to(half), y.to(half)

    group_of = {}
    for g in groups:
        group_of[g[0]] = g

    def run_layers(h, first, last):
        for i in range(first, last + 1):
            h = mods[i](h)
        return h

    def forward():
        h = x
        i = 0
        while i < len(mods):
            g = group_of.get(i)
            if g is not None:
                h = torch.utils.checkpoint.checkpoint(run_layers, h, g[0], g[-1], use_reentrant=False)
                i = g[-1] + 1
            else:
                h = mods[i](h)
                i += 1
        if loss_kind == "cross_entropy":
            return F.cross_entropy(h.float().view(-1, h.shape[-1]), y.view(-1))
        return F.mse_loss(h, y)

    def optimizer_zero_grad():  # "optimizer" in the name: the snapshot's optimizer phase
        for p in params:
            p.grad = None

    def step():
        loss = forward()
        loss.backward()
        optimizer_step()
        optimizer_zero_grad()
        return loss

    for _ in range(args.warmup):
        step()
    if args.snapshot and not getattr(args, "snapshot_written", False):
        torch.cuda.synchronize()
        write_snapshot(torch, step, args.snapshot)
        args.snapshot_written = True
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    step_s, forward_s = [], []
    for _ in range(args.steps):
        start.record()
        step()
        stop.record()
        torch.cuda.synchronize()
        step_s.append(start.elapsed_time(stop) * 1e-3)
    peak_alloc = torch.cuda.max_memory_allocated()
    peak_reserved = torch.cuda.max_memory_reserved()
    for _ in range(args.steps):  # forward (and loss) alone, with autograd recording as in training
        start.record()
        loss = forward()
        stop.record()
        torch.cuda.synchronize()
        forward_s.append(start.elapsed_time(stop) * 1e-3)
        del loss
    return {
        "name": cfg.get("name"),
        "model": model.get("name"),
        "strategy": strategy,
        "micro_batch": micro,
        "precision": precision,
        "optimizer": optimizer,
        "parameters": n_params,
        "checkpointed_groups": len(groups),
        "selective": sorted(selective),
        "max_allocated_bytes": peak_alloc,
        "max_reserved_bytes": peak_reserved,
        "step_s_median": statistics.median(step_s),
        "step_s": step_s,
        "forward_s_median": statistics.median(forward_s),
        "steps": args.steps,
        "warmup": args.warmup,
    }


def main(argv):
    args = parse_args(argv)
    t0 = time.time()
    with open(args.configs) as f:
        configs = json.load(f)
    out = {"results": []}
    try:
        import torch
        import torch.utils.checkpoint  # noqa: F401
    except Exception as e:  # no PyTorch: say so in the output, do not fail the check
        out["error"] = f"PyTorch is not importable: {e}"
        with open(args.out, "w") as f:
            json.dump(out, f, indent=2)
        return 0
    out["torch_version"] = torch.__version__
    if not torch.cuda.is_available():
        out["error"] = "torch.cuda.is_available() is False"
        with open(args.out, "w") as f:
            json.dump(out, f, indent=2)
        return 0
    out["device"] = torch.cuda.get_device_name(0)
    for cfg in configs:
        if time.time() - t0 > args.budget_s:
            out["results"].append({"name": cfg.get("name"), "strategy": cfg.get("strategy"),
                                   "error": "skipped: time budget spent"})
            continue
        try:
            r = run_config(torch, cfg, args)
        except Exception as e:  # OOM, unsupported layer, ...: recorded, the next config runs
            r = {"name": cfg.get("name"), "strategy": cfg.get("strategy"),
                 "error": f"{type(e).__name__}: {e}"}
        torch.cuda.empty_cache()
        out["results"].append(r)
        with open(args.out, "w") as f:  # partial results survive a timeout
            json.dump(out, f, indent=2)
    out["wall_s"] = time.time() - t0
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
