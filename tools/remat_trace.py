#!/usr/bin/env python3
"""Trace a PyTorch nn.Module into a Remat Studio model file (docs/model-format.md).

The module is traced with torch.fx (symbolic tracing) and its example inputs are run through the
traced graph once to learn every shape. The graph must be a chain: each step takes the output of
the one before. Each step becomes one layer of the model file:

  nn.Linear, ReLU/GELU/SiLU/Tanh/Sigmoid (modules or functions), Softmax over the last dimension,
  LayerNorm and RMSNorm over the last dimension, Dropout, Embedding (first, on token ids, with a
  learned position embedding added and a dropout after it folded in), Conv2d (square kernel,
  stride, zero padding, dilation and groups; the file is then format 3), BatchNorm2d, MaxPool2d, AdaptiveAvgPool2d(1),
  Flatten, and the losses CrossEntropy and MSE (modules or functions, given the target).

Blocks with residual adds are recognised by their structure, not traced into:

  * GPT-2 style transformer blocks (nanoGPT's Block, transformers' GPT2Block): a module with
    ln_1, attn (with c_attn and c_proj), ln_2 and mlp (with c_fc and c_proj), taken to compute
    x + attn(ln_1(x)), then + mlp(ln_2(x)) -> `transformer_block`;
  * torchvision-style residual blocks (BasicBlock: conv1, bn1, conv2, bn2; Bottleneck: also conv3,
    bn3; an optional downsample) -> `residual_block`.

Anything else is refused with the reason, naming the module (or the operation and the module it
is in): an LSTM, a residual add outside a recognised block, a tensor used twice, a function the
format has no layer for. The trace then writes nothing.

Usage as a program: the module comes from a Python file of yours that defines a function
returning (module, example_inputs) or (module, example_inputs, loss):

  python3 tools/remat_trace.py my_models.py:make_mlp -o mlp.json [--loss mse|cross_entropy]
      [--name NAME] [--precision fp32|mixed-bf16|...] [--optimizer sgd|adamw|...]

example_inputs is a tuple: the input batch (float features or images, or int64 token ids of
shape [batch, tokens]) and, where forward takes it and computes the loss, the target. The first
dimension of the input is the micro-batch. Without a loss in forward, --loss names it. Exit
status 0 when written, 2 when the module is refused (the reason on stderr).

Usage as a library: trace_module(module, example_inputs, loss=None, name="", ...) returns the
model as a dict; write_model(model, path) writes it.
"""

import argparse
import importlib.util
import json
import operator
import os
import sys


class TraceError(Exception):
    """The module cannot be expressed in the model format; the message says which part and why."""


SUPPORTED = ("Linear, ReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LayerNorm, RMSNorm, Dropout, "
             "Embedding, Conv2d, BatchNorm2d, MaxPool2d, AdaptiveAvgPool2d(1), Flatten, "
             "CrossEntropyLoss, MSELoss, GPT-2 style transformer blocks, torchvision-style "
             "residual blocks")


def _torch():
    import torch  # noqa: F401  (imported late: --help works without PyTorch)
    import torch.fx  # noqa: F401
    return torch


# ---- recognised blocks ----------------------------------------------------------------------

def _children(m):
    return dict(m.named_children())


def _is_gpt2_block(m):
    c = _children(m)
    if not all(k in c for k in ("ln_1", "attn", "ln_2", "mlp")):
        return False
    a, p = _children(c["attn"]), _children(c["mlp"])
    return "c_attn" in a and "c_proj" in a and "c_fc" in p and "c_proj" in p


def _is_residual_block(m):
    c = _children(m)
    return all(k in c for k in ("conv1", "bn1", "conv2", "bn2")) and (
        ("conv3" in c) == ("bn3" in c))


def _out_features(layer):
    """nn.Linear's out_features, or the width of transformers' Conv1D (weight [in, out])."""
    if hasattr(layer, "out_features"):
        return int(layer.out_features)
    if hasattr(layer, "nf"):
        return int(layer.nf)
    return int(layer.weight.shape[-1])


def _activation_of(m, where):
    torch = _torch()
    nn = torch.nn
    for sub in m.modules():
        if isinstance(sub, nn.GELU) or "gelu" in type(sub).__name__.lower():
            return "gelu"
        if isinstance(sub, nn.SiLU):
            return "silu"
        if isinstance(sub, nn.ReLU):
            return "relu"
    act = getattr(m, "act", None) or getattr(m, "activation", None)
    name = getattr(act, "__name__", "") if act is not None else ""
    for k in ("gelu", "silu", "relu"):
        if k in name:
            return k
    raise TraceError(f"module '{where}' ({type(m).__name__}): cannot tell the MLP's activation "
                     "(expected a GELU, SiLU or ReLU module or an `act` function)")


def _norm_of(m, where):
    torch = _torch()
    if isinstance(m, torch.nn.LayerNorm):
        return "layernorm"
    if "rmsnorm" in type(m).__name__.lower():
        return "rmsnorm"
    raise TraceError(f"module '{where}' ({type(m).__name__}): not a LayerNorm or RMSNorm")


def _dropout_p(m):
    torch = _torch()
    if m is None:
        return 0.0
    if isinstance(m, torch.nn.Dropout):
        return float(m.p)
    return float(m) if isinstance(m, (int, float)) else 0.0


def _gpt2_block(m, where):
    c = _children(m)
    attn, mlp = c["attn"], c["mlp"]
    heads = getattr(attn, "n_head", None) or getattr(attn, "num_heads", None)
    if not heads:
        raise TraceError(f"module '{where}.attn' ({type(attn).__name__}): no n_head or num_heads "
                         "attribute: the number of heads is unknown")
    norm = _norm_of(c["ln_1"], where + ".ln_1")
    if _norm_of(c["ln_2"], where + ".ln_2") != norm:
        raise TraceError(f"module '{where}': ln_1 and ln_2 are different kinds of norm")
    ac, mc = _children(attn), _children(mlp)
    ps = {_dropout_p(ac.get("attn_dropout")), _dropout_p(ac.get("resid_dropout")),
          _dropout_p(mc.get("dropout"))}
    if len(ps) != 1:
        raise TraceError(f"module '{where}': dropout probabilities {sorted(ps)} differ; the "
                         "format's block drops attention probabilities, the attention output "
                         "and the MLP output with one probability")
    p = ps.pop()
    bias = ac["c_attn"].bias is not None
    if (ac["c_proj"].bias is not None) != bias or (mc["c_fc"].bias is not None) != bias:
        raise TraceError(f"module '{where}': some projections have biases and others not; the "
                         "format's block has one `bias` for all")
    flash = bool(getattr(attn, "flash", False)) and p == 0.0
    return {"kind": "transformer_block", "heads": int(heads), "mlp_hidden": _out_features(mc["c_fc"]),
            "activation": _activation_of(mlp, where + ".mlp"), "gated": False, "norm": norm,
            "dropout": p, "attention": "flash" if flash else "eager", "causal": True, "bias": bias}


def _residual_block(m, where, in_shape, out_shape):
    c = _children(m)
    bottleneck = "conv3" in c
    channels = int(c["conv1"].out_channels if bottleneck else c["conv2"].out_channels)
    conv_strided = c["conv2"] if bottleneck else c["conv1"]
    stride = int(conv_strided.stride[0])
    layer = {"kind": "residual_block", "variant": "bottleneck" if bottleneck else "basic",
             "channels": channels, "stride": stride}
    want_c = 4 * channels if bottleneck else channels
    h, w = in_shape[1], in_shape[2]
    want = [want_c, (h - 1) // stride + 1, (w - 1) // stride + 1]
    if list(out_shape) != want:
        raise TraceError(f"module '{where}' ({type(m).__name__}): gives {list(out_shape)}, but the "
                         f"format's {layer['variant']} block of {channels} channels and stride "
                         f"{stride} gives {want}")
    return layer


# ---- the tracer -------------------------------------------------------------------------------

def _make_tracer():
    torch = _torch()
    fx = torch.fx

    class Tracer(fx.Tracer):
        """Stops at torch.nn's own modules and at recognised blocks, and notes in each node's
        meta which module it came from (for messages)."""

        def __init__(self, ranks):
            super().__init__()
            self.path = []
            self.ranks = ranks  # forward's inputs, in order: the rank of each example input

        def iter(self, obj):
            # `b, t = idx.size()` on an input: its rank is known from the example, so the size
            # unpacks into one proxy per dimension.
            node = obj.node
            if node.op == "call_method" and node.target == "size" and len(node.args) == 1 \
                    and not node.kwargs and node.args[0].op == "placeholder":
                names = [n.target for n in node.graph.nodes if n.op == "placeholder"]
                i = names.index(node.args[0].target)
                if i < len(self.ranks):
                    return iter([obj[d] for d in range(self.ranks[i])])
            return super().iter(obj)

        def is_leaf_module(self, m, qualname):
            if _is_gpt2_block(m) or _is_residual_block(m):
                return True
            return super().is_leaf_module(m, qualname)

        def call_module(self, m, forward, args, kwargs):
            self.path.append(self.path_of_module(m))
            try:
                return super().call_module(m, forward, args, kwargs)
            finally:
                self.path.pop()

        def create_node(self, *args, **kwargs):
            node = super().create_node(*args, **kwargs)
            node.meta["remat_module"] = self.path[-1] if self.path else ""
            return node

    return Tracer


def _nodes_in(args):
    torch = _torch()
    out = []

    def visit(a):
        if isinstance(a, torch.fx.Node):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                visit(x)
        elif isinstance(a, dict):
            for x in a.values():
                visit(x)
    visit(args)
    return out


def _shape(node):
    tm = node.meta.get("tensor_meta")
    return list(tm.shape) if tm is not None and hasattr(tm, "shape") else None


def _arg(node, index, name, default=None):
    if name in node.kwargs:
        return node.kwargs[name]
    if len(node.args) > index:
        return node.args[index]
    return default


def _square(v, what, where):
    if isinstance(v, int):
        return v
    if isinstance(v, (tuple, list)) and len(v) == 2 and v[0] == v[1]:
        return int(v[0])
    raise TraceError(f"module '{where}': {what} {v} is not square; the format's 2-D layers are")


def trace_module(module, example_inputs, loss=None, name="", description=None,
                 precision="fp32", optimizer="sgd", device=None):
    """The model file (a dict) for `module` run on `example_inputs`; TraceError when refused."""
    torch = _torch()
    from torch.fx.passes.shape_prop import ShapeProp

    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    if not example_inputs or not isinstance(example_inputs[0], torch.Tensor):
        raise TraceError("the example inputs must start with the input batch (a tensor)")
    x = example_inputs[0]
    if x.dim() < 2:
        raise TraceError(f"the input batch has shape {list(x.shape)}: expected [batch, ...]")

    module.train()
    tracer = _make_tracer()([t.dim() if isinstance(t, torch.Tensor) else 0 for t in example_inputs])
    # Position ids from a traced size (torch.arange(0, t)) become a node of the graph: torch.fx
    # does not record factory functions by itself.
    arange = torch.arange

    def traced_arange(*a, **k):
        if any(isinstance(v, torch.fx.Proxy) for v in list(a) + list(k.values())):
            return tracer.create_proxy("call_function", arange, a, k)
        return arange(*a, **k)

    torch.arange = traced_arange
    try:
        graph = tracer.trace(module)
    except TraceError:
        raise
    except Exception as e:  # data-dependent control flow and the like
        raise TraceError(f"torch.fx cannot trace {type(module).__name__}: {type(e).__name__}: {e}")
    finally:
        torch.arange = arange
    gm = torch.fx.GraphModule(tracer.root, graph)
    with torch.no_grad():
        ShapeProp(gm).propagate(*example_inputs)
    modules = dict(gm.named_modules())

    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(placeholders) < len(example_inputs):
        raise TraceError(f"forward takes {len(placeholders)} inputs, {len(example_inputs)} given")
    data, target = placeholders[0], (placeholders[1] if len(example_inputs) > 1 else None)

    tokens = x.dtype in (torch.int64, torch.int32)
    model_input = ({"tokens": int(x.shape[1])} if tokens else {"shape": [int(d) for d in x.shape[1:]]})
    micro_batch = int(x.shape[0])

    layers = []
    current = data
    loss_kind = None
    tie = False
    token_embedding = None
    pending_aux = {}  # aux module nodes (position embeddings) not consumed yet

    def where(n):
        return n.meta.get("remat_module") or "(top level)"

    def refuse(n, why):
        what = (f"module '{n.target}' ({type(modules[n.target]).__name__})" if n.op == "call_module"
                else f"{_fn_name(n)} in module '{where(n)}' (node '{n.name}')")
        raise TraceError(f"{what}: {why}")

    def meta_only(n):
        # Shapes and sizes: metadata of a tensor, not its values.
        if n.op == "call_method" and n.target in ("size", "dim", "numel"):
            return True
        if n.op == "call_function" and n.target is getattr and _arg(n, 1, "name") in ("shape", "dtype", "device"):
            return True
        return False

    data_nodes = {data}
    aux_nodes = set()
    for n in graph.nodes:
        if n.op in ("placeholder", "get_attr"):
            continue
        if n.op == "output":
            outs = _nodes_in(n.args)
            if loss_kind is None and outs and outs[0] is not current:
                raise TraceError(f"forward returns '{outs[0].name}', not the end of the chain "
                                 f"'{current.name}' (several outputs are not supported)")
            break
        ins = _nodes_in((n.args, n.kwargs))
        data_ins = [i for i in ins if i in data_nodes]
        if meta_only(n) or not data_ins:  # sizes, positions, the target reshaped for the loss
            aux_nodes.add(n)
            if n.op == "call_module":
                pending_aux[n] = modules[n.target]
            continue
        if loss_kind is not None:
            refuse(n, "runs after the loss; the loss must be the last step")
        if any(i is not current for i in data_ins):
            refuse(n, f"uses '{[i.name for i in data_ins if i is not current][0]}', an earlier "
                      "value, beside the chain's current one: a residual connection or a branch, "
                      "which the format has only inside recognised transformer and residual blocks")
        layer = _layer_for(n, modules, current, target, aux_nodes, pending_aux, layers, refuse,
                           model_input, tokens)
        if layer == "skip":
            data_nodes.add(n)
            current = n
            continue
        if layer.get("kind") in ("cross_entropy", "mse"):
            loss_kind = layer["kind"]
        if layer.get("kind") == "embedding":
            token_embedding = modules[n.target]
            model_input["vocab"] = int(token_embedding.num_embeddings)
        if layer.get("kind") == "linear" and token_embedding is not None and \
                modules[n.target].weight is token_embedding.weight:
            tie = True
        if layer.get("kind") == "residual_block":
            layer = _residual_block(modules[n.target], n.target, _shape(current)[1:], _shape(n)[1:])
        if layer.get("_merge"):  # folded into the layer before (position embedding, dropout)
            data_nodes.add(n)
            current = n
            continue
        layers.append(layer)
        data_nodes.add(n)
        current = n

    unused = [n for n, m in pending_aux.items() if any(True for _ in m.parameters()) and
              not n.meta.get("remat_used")]
    if unused:
        n = unused[0]
        raise TraceError(f"module '{n.target}' ({type(modules[n.target]).__name__}): its output does "
                         "not depend on the input and is not a position embedding added to the "
                         "token embedding; the format cannot express it")
    if loss_kind is None:
        if loss is None:
            raise TraceError("forward computes no loss: give one (--loss mse or cross_entropy)")
        if loss not in ("mse", "cross_entropy"):
            raise TraceError(f"unknown loss '{loss}' (mse or cross_entropy)")
        layers.append({"kind": loss})
    elif loss is not None and loss != loss_kind:
        raise TraceError(f"forward computes {loss_kind}, but the loss {loss} was given")
    if tokens and "vocab" not in model_input:
        raise TraceError("the input holds token ids (integers) but the first layer is not an "
                         "nn.Embedding")

    layers = _merge_repeats(layers)
    # The oldest format version that holds the layers, as remat itself writes.
    version = 3 if any("dilation" in l or "groups" in l for l in layers) else 1
    model = {"format": f"remat-model/{version}", "name": name or type(module).__name__,
             "description": description or (
                 f"Traced from the PyTorch module {type(module).__name__} by tools/remat_trace.py "
                 f"with an example batch of {micro_batch}."),
             "input": model_input, "layers": layers,
             "training": {"micro_batch": micro_batch, "accumulation_steps": 1,
                          "precision": precision, "optimizer": optimizer}}
    if tie:
        model["tie_embeddings"] = True
    if device:
        model["device"] = device
    return model


def _fn_name(n):
    t = n.target
    if isinstance(t, str):
        return f"method .{t}()"
    mod = getattr(t, "__module__", None) or ""
    return f"function {mod + '.' if mod else ''}{getattr(t, '__name__', str(t))}"


def _layer_for(n, modules, current, target, aux_nodes, pending_aux, layers, refuse, model_input,
               tokens):
    """The layer for one step of the chain, 'skip' for a step that changes nothing the format
    sees (a view before the loss, contiguous), or a dict with _merge for a step folded into the
    layer before."""
    torch = _torch()
    nn, F = torch.nn, torch.nn.functional
    in_shape, out_shape = _shape(current), _shape(n)
    acts = {nn.ReLU: "relu", nn.GELU: "gelu", nn.SiLU: "silu", nn.Tanh: "tanh", nn.Sigmoid: "sigmoid"}
    fn_acts = {F.relu: "relu", torch.relu: "relu", F.gelu: "gelu", F.silu: "silu",
               torch.tanh: "tanh", torch.sigmoid: "sigmoid", F.relu_: "relu"}
    last = layers[-1] if layers else None

    def uses_target():
        ins = _nodes_in((n.args, n.kwargs))
        return target is not None and any(i is target or i in aux_nodes for i in ins if i is not current)

    if n.op == "call_module":
        m = modules[n.target]
        if _is_gpt2_block(m):
            return _gpt2_block(m, n.target)
        if _is_residual_block(m):
            return {"kind": "residual_block"}  # filled in by the caller with the shapes
        if isinstance(m, nn.Linear):
            return {"kind": "linear", "out": int(m.out_features), "bias": m.bias is not None}
        for cls, kind in acts.items():
            if isinstance(m, cls):
                layer = {"kind": kind}
                if getattr(m, "inplace", False):
                    layer["inplace"] = True
                return layer
        if isinstance(m, nn.LayerNorm) or "rmsnorm" in type(m).__name__.lower():
            shape = getattr(m, "normalized_shape", None)
            if shape is not None and len(tuple(shape)) != 1:
                refuse(n, f"normalises over {list(shape)}; the format's norms act on the last "
                          "dimension only")
            if isinstance(m, nn.LayerNorm) and not m.elementwise_affine:
                refuse(n, "has no learnable gain and shift; the format's layernorm has both")
            return {"kind": "layernorm" if isinstance(m, nn.LayerNorm) else "rmsnorm"}
        if isinstance(m, nn.Dropout):
            if last is not None and last["kind"] == "embedding" and last.get("_open"):
                last["dropout"] = float(m.p)
                last.pop("_open", None)
                return {"_merge": True}
            layer = {"kind": "dropout", "p": float(m.p)}
            if m.inplace:
                layer["inplace"] = True
            return layer
        if isinstance(m, nn.Embedding):
            if layers or not tokens:
                refuse(n, "an embedding must be the first layer, on the token ids")
            return {"kind": "embedding", "dim": int(m.embedding_dim), "positions": 0, "_open": True}
        if isinstance(m, nn.Conv2d):
            if not isinstance(m.padding, (int, tuple, list)) or m.padding_mode != "zeros":
                refuse(n, f"padding {m.padding!r} ({m.padding_mode}) is not a zero padding of "
                          "whole pixels")
            layer = {"kind": "conv2d", "out_channels": int(m.out_channels),
                     "kernel": _square(m.kernel_size, "kernel", n.target),
                     "stride": _square(m.stride, "stride", n.target),
                     "padding": _square(m.padding, "padding", n.target)}
            # Model format 3 holds dilation and groups; written only when not 1, as remat does.
            dilation = _square(m.dilation, "dilation", n.target)
            if dilation != 1:
                layer["dilation"] = dilation
            if m.groups != 1:
                layer["groups"] = int(m.groups)
            layer["bias"] = m.bias is not None
            return layer
        if isinstance(m, nn.BatchNorm2d):
            return {"kind": "batchnorm2d"}
        if isinstance(m, nn.MaxPool2d):
            if m.ceil_mode or _square(m.dilation, "dilation", n.target) != 1:
                refuse(n, "ceil_mode and dilation are not in the format's maxpool2d")
            return {"kind": "maxpool2d", "kernel": _square(m.kernel_size, "kernel", n.target),
                    "stride": _square(m.stride, "stride", n.target),
                    "padding": _square(m.padding, "padding", n.target)}
        if isinstance(m, nn.AdaptiveAvgPool2d):
            if m.output_size not in (1, (1, 1), [1, 1]):
                refuse(n, f"output size {m.output_size}: only a global average pool (1) is in the format")
            return {"kind": "global_avg_pool"}
        if isinstance(m, nn.Flatten):
            return _flatten(n, in_shape, out_shape, refuse)
        if isinstance(m, nn.Softmax):
            if m.dim not in (-1, len(in_shape) - 1):
                refuse(n, f"softmax over dimension {m.dim}; the format's is over the last")
            return {"kind": "softmax"}
        if isinstance(m, nn.Identity):
            return "skip"
        if isinstance(m, (nn.CrossEntropyLoss, nn.MSELoss)):
            if not uses_target():
                refuse(n, "a loss needs the target as forward's second input")
            return {"kind": "cross_entropy" if isinstance(m, nn.CrossEntropyLoss) else "mse"}
        refuse(n, f"no layer kind of the model format expresses it (supported: {SUPPORTED})")

    if n.op == "call_function":
        t = n.target
        if t in fn_acts:
            layer = {"kind": fn_acts[t]}
            if _arg(n, 1, "inplace", False) or t is F.relu_:
                layer["inplace"] = True
            return layer
        if t is F.dropout:
            p = float(_arg(n, 1, "p", 0.5))
            if not _arg(n, 2, "training", True):
                return "skip"
            if last is not None and last["kind"] == "embedding" and last.get("_open"):
                last["dropout"] = p
                last.pop("_open", None)
                return {"_merge": True}
            return {"kind": "dropout", "p": p}
        if t in (F.softmax, torch.softmax):
            dim = _arg(n, 1, "dim", None)
            if dim not in (-1, len(in_shape) - 1):
                refuse(n, f"softmax over dimension {dim}; the format's is over the last")
            return {"kind": "softmax"}
        if t is torch.flatten:
            return _flatten(n, in_shape, out_shape, refuse)
        if t in (operator.add, torch.add):
            other = [a for a in _nodes_in(n.args) if a is not current]
            if (len(other) == 1 and other[0] in pending_aux and isinstance(pending_aux[other[0]], nn.Embedding)
                    and last is not None and last["kind"] == "embedding" and last.get("_open")
                    and last["positions"] == 0):
                last["positions"] = int(pending_aux[other[0]].num_embeddings)
                other[0].meta["remat_used"] = True
                return {"_merge": True}
            refuse(n, "an add outside a recognised transformer or residual block (the format "
                      "adds residuals only inside transformer_block and residual_block, and a "
                      "position embedding right after the token embedding)")
        if t in (F.cross_entropy, F.mse_loss):
            if not uses_target():
                refuse(n, "a loss needs the target as forward's second input")
            return {"kind": "cross_entropy" if t is F.cross_entropy else "mse"}
        refuse(n, f"no layer kind of the model format expresses it (supported: {SUPPORTED})")

    if n.op == "call_method":
        t = n.target
        if t in ("relu", "tanh", "sigmoid", "relu_"):
            layer = {"kind": t.rstrip("_")}
            if t.endswith("_"):
                layer["inplace"] = True
            return layer
        if t == "contiguous":
            return "skip"
        if t == "softmax":
            dim = _arg(n, 1, "dim", None)
            if dim not in (-1, len(in_shape) - 1):
                refuse(n, f"softmax over dimension {dim}; the format's is over the last")
            return {"kind": "softmax"}
        if t in ("view", "reshape", "flatten"):
            if in_shape and out_shape and len(in_shape) >= 4 and len(out_shape) == 2 and \
                    out_shape[0] == in_shape[0]:
                return _flatten(n, in_shape, out_shape, refuse)
            if in_shape and out_shape and in_shape[-1] == out_shape[-1] and \
                    _numel(in_shape) == _numel(out_shape):
                return "skip"  # [B, T, V] -> [B*T, V] before the loss: the same logits
            refuse(n, f"reshapes {in_shape} to {out_shape}; the format has only flatten "
                      "(an image to a vector)")
        refuse(n, f"no layer kind of the model format expresses it (supported: {SUPPORTED})")
    refuse(n, f"unexpected graph node ({n.op})")


def _numel(shape):
    out = 1
    for d in shape:
        out *= int(d)
    return out


def _flatten(n, in_shape, out_shape, refuse):
    if not in_shape or len(out_shape) != 2 or out_shape[0] != in_shape[0]:
        refuse(n, f"flattens {in_shape} to {out_shape}; the format flattens each sample to a vector")
    return {"kind": "flatten"}


def _merge_repeats(layers):
    out = []
    for layer in layers:
        layer = {k: v for k, v in layer.items() if not k.startswith("_")}
        if out and layer["kind"] in ("transformer_block", "residual_block"):
            prev = dict(out[-1])
            count = prev.pop("repeat", 1)
            if prev == layer:
                out[-1]["repeat"] = count + 1
                continue
        out.append(layer)
    return out


def write_model(model, path):
    text = json.dumps(model, indent=2) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _load_factory(spec):
    if ":" not in spec:
        raise TraceError(f"'{spec}': expected FILE.py:FUNCTION")
    path, fn = spec.rsplit(":", 1)
    if not os.path.isfile(path):
        raise TraceError(f"{path}: no such file")
    s = importlib.util.spec_from_file_location("remat_trace_user_module", path)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    if not hasattr(mod, fn):
        raise TraceError(f"{path}: no function '{fn}'")
    return getattr(mod, fn)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("factory", help="FILE.py:FUNCTION returning (module, example_inputs[, loss])")
    p.add_argument("-o", "--output", default="-", help="model file to write (default: stdout)")
    p.add_argument("--loss", choices=("mse", "cross_entropy"), help="the loss, when forward has none")
    p.add_argument("--name", default="", help="the model's name (default: the module's class)")
    p.add_argument("--precision", default="fp32",
                   choices=("fp32", "mixed-bf16", "mixed-fp16", "autocast-bf16", "autocast-fp16",
                            "bf16"))
    p.add_argument("--optimizer", default="sgd", choices=("sgd", "momentum", "adam", "adamw"))
    p.add_argument("--device", default=None, help="a device profile id to write into the file")
    args = p.parse_args(argv)
    try:
        made = _load_factory(args.factory)()
        if not isinstance(made, (tuple, list)) or len(made) not in (2, 3):
            raise TraceError(f"{args.factory} must return (module, example_inputs) or "
                             "(module, example_inputs, loss)")
        module, inputs = made[0], made[1]
        loss = args.loss or (made[2] if len(made) == 3 else None)
        model = trace_module(module, inputs, loss=loss, name=args.name, precision=args.precision,
                             optimizer=args.optimizer, device=args.device)
    except TraceError as e:
        print(f"remat_trace: {e}", file=sys.stderr)
        return 2
    write_model(model, args.output)
    if args.output != "-":
        n = sum(int(l.get("repeat", 1)) for l in model["layers"])
        print(f"wrote {args.output}: {model['name']}, {n} layers, micro-batch "
              f"{model['training']['micro_batch']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
