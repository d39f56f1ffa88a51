"""The PyTorch export, run with PyTorch (CTest test torch_export_pytorch; docs/ecosystem.md).

For every strategy of gpt2-tiny and of the MLP preset, and a few of the Llama- and ResNet-shaped
networks of tests/data/export, `remat export --to pytorch` writes a module; this script imports it with torch.utils.checkpoint.checkpoint instrumented and checks,
on the CPU:
  (a) the modules run inside each checkpoint call are exactly the plan's regions: the region
      labels Remat Studio gives (PLAN_REGIONS, whose count `remat simulate --json` confirms),
      turned into module names here ("1-2" -> layers.1, layers.2; "1/attention" ->
      layers.1.attention), every call non-reentrant (reentrant, through checkpoint_sequential
      where it fits, for a model predicted with --recompute-impl pytorch-reentrant), and each
      region run again in backward;
  (b) the gradients equal, bit for bit (torch.equal), those of the same module built with
      checkpointing=False and the same weights, inputs and dropout seed (one thread,
      torch.use_deterministic_algorithms).
Strategies a model cannot take (selective on the MLP) must be refused by `remat` with exit code 2.
The per-module code of `--to hf` runs too, on a stand-in with GPT-2's module names
(transformer.h[i].attn, .mlp; transformers itself is not needed): the same checks (a) and (b).
"""
import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.utils.checkpoint as torch_checkpoint
from torch import nn

REMAT = os.environ.get("REMAT_CLI", "remat")
DATA = os.path.join(os.environ.get("REMAT_TEST_DATA_DIR", os.path.join(os.path.dirname(__file__),
                                                                       "..", "data")), "export")

REENTRANT = ["--recompute-impl", "pytorch-reentrant"]

# (model, strategy, expected exit code of remat export[, extra arguments])
CASES = [
    ("gpt2-tiny", s, 0)
    for s in ["none", "full", "every:2", "sqrt", "selective:attention",
              "selective:attention_core", "selective:mlp", "selective:attention,mlp",
              # 2 regions (full's peak) and 1 region: the budgets between full and none
              "optimal:23MiB", "optimal:26MiB", "optimal:1GiB"]
] + [
    ("mlp-3x1024", s, 0)
    for s in ["none", "manual", "full", "every:2", "sqrt", "optimal:32.9MiB"]
] + [
    ("mlp-3x1024", "selective:attention", 2),
] + [
    # Llama-shaped: RMSNorm, grouped key/value heads, gated SiLU MLP, no biases.
    (os.path.join(DATA, "llama-mini.json"), s, 0)
    for s in ["full", "every:2", "selective:attention_core", "selective:attention,mlp"]
] + [
    # ResNet-shaped: convolutions, batch norm, basic and bottleneck blocks with shortcuts.
    (os.path.join(DATA, "resnet-mini.json"), s, 0)
    for s in ["full", "every:2", "selective:shortcut"]
] + [
    # The model predicted with PyTorch's reentrant checkpoint: use_reentrant=True, and
    # checkpoint_sequential where the plan has its shape (full, every:2 on gpt2-tiny; the MLP's
    # manual plan); a region at the input would lose its parameters' gradients: refused.
    ("gpt2-tiny", s, 0, REENTRANT) for s in ["full", "every:2", "selective:attention"]
] + [
    ("mlp-3x1024", "manual", 0, REENTRANT),
    ("mlp-3x1024", "full", 2, REENTRANT),
]

failures = []


def fail(case, message):
    failures.append(f"{case}: {message}")
    print(f"FAIL {case}: {message}", file=sys.stderr)


def remat(*args):
    return subprocess.run([REMAT, *args], capture_output=True, text=True)


def expected_modules(label):
    """The module names a Remat Studio region label stands for."""
    if "/" in label:
        layer, path = label.split("/", 1)
        return {f"layers.{layer}." + path.replace("/", ".")}
    if "-" in label:
        first, last = (int(x) for x in label.split("-"))
        return {f"layers.{i}" for i in range(first, last + 1)}
    return {f"layers.{int(label)}"}


def outermost(names):
    return frozenset(n for n in names
                     if not any(n != o and n.startswith(o + ".") for o in names))


# Instrumentation: every checkpoint call records the outermost modules its function runs.
_original_checkpoint = torch_checkpoint.checkpoint
state = {"calls": [], "current": None, "backward": False, "recomputed": set(), "kwargs": []}


def instrumented_checkpoint(function, *args, **kwargs):
    state["kwargs"].append(dict(kwargs))
    outer = state["current"]
    state["current"] = set()
    try:
        return _original_checkpoint(function, *args, **kwargs)
    finally:
        state["calls"].append(outermost(state["current"]))
        state["current"] = outer


torch_checkpoint.checkpoint = instrumented_checkpoint


def instrument(model):
    for name, module in model.named_modules():
        if not name:
            continue

        def hook(module, inputs, name=name):
            if state["backward"]:
                state["recomputed"].add(name)
            elif state["current"] is not None:
                state["current"].add(name)

        module.register_forward_pre_hook(hook)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # after the instrumentation: it imports our checkpoint
    return module


def step(model, inputs, seed):
    model.zero_grad(set_to_none=True)
    torch.manual_seed(seed)
    loss = model(*inputs)
    state["backward"] = True
    try:
        loss.backward()
    finally:
        state["backward"] = False
    return loss


def check(model_name, strategy, code, workdir, index, extra=()):
    reentrant = "pytorch-reentrant" in extra
    case = f"{os.path.basename(model_name)} {strategy}" + (" reentrant" if reentrant else "")
    path = os.path.join(workdir, f"export_{index}.py")
    r = remat("export", model_name, "--strategy", strategy, "--to", "pytorch", "-o", path, *extra)
    if r.returncode != code:
        fail(case, f"remat export exit code {r.returncode}, expected {code}: {r.stderr.strip()}")
        return
    if code != 0:
        reason = "starts at the network's input" if reentrant else "no 'attention' sub-module"
        if not r.stderr.startswith("remat: ") or reason not in r.stderr:
            fail(case, f"refusal does not say '{reason}': {r.stderr.strip()}")
        return
    sim = remat("simulate", model_name, "--strategy", strategy, "--json", *extra)
    if sim.returncode != 0:
        fail(case, f"remat simulate failed: {sim.stderr.strip()}")
        return
    region_count = json.loads(sim.stdout)["regions"]

    exported = load(path, f"export_{index}")
    if len(exported.PLAN_REGIONS) != region_count:
        fail(case, f"{len(exported.PLAN_REGIONS)} regions in the export, "
                   f"{region_count} in the plan")
        return
    expected = sorted(sorted(expected_modules(label)) for label, _ in exported.PLAN_REGIONS)

    torch.manual_seed(1234)
    checked = exported.Model()
    reference = exported.Model(checkpointing=False)
    reference.load_state_dict(checked.state_dict())
    checked.train()
    reference.train()
    instrument(checked)
    instrument(reference)
    torch.manual_seed(99)
    kwargs = {"batch": 2}
    if "tokens" in exported.example_inputs.__code__.co_varnames:
        kwargs["tokens"] = 32  # of the 128 positions: a shorter sequence keeps the test fast
    inputs = exported.example_inputs(**kwargs)

    state.update(calls=[], kwargs=[], recomputed=set())
    loss_checked = step(checked, inputs, seed=7)
    calls, kwargs, recomputed = state["calls"], state["kwargs"], state["recomputed"]
    observed = sorted(sorted(c) for c in calls)
    if observed != expected:
        fail(case, f"checkpointed modules {observed}, plan's regions {expected}")
    if any(k.get("use_reentrant", True) is not reentrant for k in kwargs):
        fail(case, f"a checkpoint call's use_reentrant is not {reentrant}: {kwargs}")
    with open(path) as f:
        sequential = "self.run_sequential(" in f.read()
    if sequential != (reentrant and strategy in ("full", "every:2", "manual")):
        fail(case, f"checkpoint_sequential {'used' if sequential else 'not used'}")
    for region in expected:
        if not any(m == r or m.startswith(r + ".") for m in recomputed for r in region):
            fail(case, f"region {region} is not run again in backward")
    outside = {m for m in recomputed
               if not any(m == r or m.startswith(r + ".") for reg in expected for r in reg)}
    if outside:
        fail(case, f"modules outside every region run in backward: {sorted(outside)}")

    state.update(calls=[], kwargs=[], recomputed=set())
    loss_reference = step(reference, inputs, seed=7)
    if state["calls"]:
        fail(case, "Model(checkpointing=False) called checkpoint")
    if not torch.equal(loss_checked, loss_reference):
        fail(case, f"loss {loss_checked.item()} != {loss_reference.item()} without checkpoints")
    grads_reference = dict(reference.named_parameters())
    compared = 0
    for name, p in checked.named_parameters():
        q = grads_reference[name]
        if p.grad is None or q.grad is None:
            fail(case, f"{name}: no gradient")
            continue
        if not torch.equal(p.grad, q.grad):
            diff = (p.grad - q.grad).abs().max().item()
            fail(case, f"{name}: gradient differs from the run without checkpoints by {diff}")
        compared += 1
    print(f"ok {case}: {len(expected)} regions, {compared} parameter gradients equal")


class StandInConfig:
    model_type = "gpt2"


class StandInBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(8)
        self.attn = nn.Sequential(nn.Linear(8, 8), nn.GELU(), nn.Dropout(0.2))
        self.mlp = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))

    def forward(self, x, use_cache=False):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(x)


class StandInTransformer(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.h = nn.ModuleList([StandInBlock() for _ in range(blocks)])


class StandInGpt2(nn.Module):
    """GPT2LMHeadModel's module names around small blocks; blocks get a keyword argument, as
    transformers passes them."""

    def __init__(self, blocks):
        super().__init__()
        self.config = StandInConfig()
        self.transformer = StandInTransformer(blocks)

    def forward(self, x):
        for block in self.transformer.h:
            x = block(x, use_cache=False)
        return x.pow(2).mean()


def check_hf(strategy, expected):
    case = f"hf gpt2-tiny {strategy}"
    r = remat("export", "gpt2-tiny", "--strategy", strategy, "--to", "hf")
    if r.returncode != 0:
        fail(case, f"remat export: {r.stderr.strip()}")
        return
    torch.manual_seed(5)
    model = StandInGpt2(blocks=2)
    reference = copy.deepcopy(model)
    exec(compile(r.stdout, f"<export {case}>", "exec"), {"model": model})
    instrument(model)
    x = torch.randn(3, 4, 8)
    state.update(calls=[], kwargs=[], recomputed=set())
    step(model, (x,), seed=11)
    # The code wraps each module's forward, so inside a checkpoint call run its children (the
    # stand-in's have three each): the module checkpointed is their common parent.
    def common_parent(names):
        parts = [n.split(".") for n in names]
        prefix = os.path.commonprefix(parts) if parts else []
        return ".".join(prefix)

    observed = sorted([common_parent(sorted(c))] for c in state["calls"])
    if observed != expected:
        fail(case, f"checkpointed modules {observed}, expected {expected}")
    if any(k.get("use_reentrant", True) is not False for k in state["kwargs"]):
        fail(case, f"a checkpoint call is not non-reentrant: {state['kwargs']}")
    state.update(calls=[], kwargs=[], recomputed=set())
    step(reference, (x,), seed=11)
    reference_parameters = dict(reference.named_parameters())
    for name, p in model.named_parameters():
        if not torch.equal(p.grad, reference_parameters[name].grad):
            fail(case, f"{name}: gradient differs from the model without checkpoints")
    print(f"ok {case}: {len(expected)} regions, gradients equal")


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    with tempfile.TemporaryDirectory(prefix="remat-export-") as workdir:
        for index, (model_name, strategy, code, *extra) in enumerate(CASES):
            try:
                check(model_name, strategy, code, workdir, index, *extra)
            except Exception as e:  # an export that does not run is a failure like any other
                fail(f"{os.path.basename(model_name)} {strategy}", f"{type(e).__name__}: {e}")
        check_hf("selective:attention", [["transformer.h.0.attn"], ["transformer.h.1.attn"]])
        check_hf("selective:mlp", [["transformer.h.0.mlp"], ["transformer.h.1.mlp"]])
        # The export runs as a script too: one training step on its example inputs.
        path = os.path.join(workdir, "script.py")
        r = remat("export", "gpt2-tiny", "--strategy", "every:2", "--to", "pytorch", "-o", path)
        run = subprocess.run([sys.executable, path], capture_output=True, text=True)
        if r.returncode != 0 or run.returncode != 0 or "plan every:2: loss" not in run.stdout:
            fail("script", f"python3 export.py: {run.returncode} {run.stdout} {run.stderr}")
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        return 1
    print(f"all {len(CASES)} cases pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
