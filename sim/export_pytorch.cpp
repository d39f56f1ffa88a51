#include "export_pytorch.h"

#include <charconv>
#include <map>
#include <set>
#include <sstream>

namespace remat {
namespace {

std::string py(bool b) { return b ? "True" : "False"; }

std::string py(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, ec == std::errc() ? end : buf);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

std::string n(std::int64_t v) { return std::to_string(v); }

// The Python classes the modules use, each written once when a layer needs it.
const char* kRunChild = R"py(

def run_child(parent, name, *args):
    """Calls the sub-module `name` of `parent`, inside its own checkpoint when the plan
    checkpoints it (a selective region: `name` is in parent.checkpointed)."""
    child = getattr(parent, name)
    if name in parent.checkpointed:
        return checkpoint(child, *args, use_reentrant=USE_REENTRANT)
    return child(*args)
)py";

const char* kRmsNorm = R"py(

class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
)py";

const char* kEmbedding = R"py(

class Embedding(nn.Module):
    """Token embedding plus learned positions (when any), then dropout."""

    def __init__(self, vocab, dim, positions, dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(positions, dim) if positions else None
        self.dropout = nn.Dropout(dropout)

    def forward(self, tokens):
        x = self.wte(tokens)
        if self.wpe is not None:
            x = x + self.wpe(torch.arange(tokens.shape[1], device=tokens.device))
        return self.dropout(x)
)py";

const char* kAttention = R"py(

def rotate_(x, rotated_heads, head_dim, dims, base, sign):
    """Rotates, in place, the first `dims` dimensions of the first `rotated_heads` heads of x
    [batch, tokens, ...] by position * base^(-2i/dims), pairing i with i + dims/2 (Hugging Face
    Llama's rotate_half); sign -1 rotates back."""
    b, t, _ = x.shape
    heads = x[..., :rotated_heads * head_dim].view(b, t, rotated_heads, head_dim)
    half = dims // 2
    inv_freq = base ** (-2.0 * torch.arange(half, dtype=torch.float64, device=x.device) / dims)
    angle = torch.arange(t, dtype=torch.float64, device=x.device)[:, None] * inv_freq
    cos = angle.cos().to(x.dtype)[None, :, None, :]
    sin = (sign * angle.sin()).to(x.dtype)[None, :, None, :]
    x1 = heads[..., :half].clone()
    x2 = heads[..., half:dims].clone()
    heads[..., :half] = x1 * cos - x2 * sin
    heads[..., half:dims] = x2 * cos + x1 * sin


class RotaryInPlace(torch.autograd.Function):
    """Rotary position embeddings on the q and k heads of the qkv projection's output, in
    place as fused RoPE kernels do: nothing saved, backward the inverse rotation."""

    @staticmethod
    def forward(ctx, qkv, rotated_heads, head_dim, dims, base):
        ctx.args = (rotated_heads, head_dim, dims, base)
        rotate_(qkv, rotated_heads, head_dim, dims, base, 1.0)
        ctx.mark_dirty(qkv)
        return qkv

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        rotate_(grad, *ctx.args, -1.0)
        return grad, None, None, None, None


class AttentionCore(nn.Module):
    """Scores Q K^T / sqrt(d) (causal mask), softmax, dropout, context P V; reads Q, K and V
    from the fused qkv projection (grouped key/value heads repeated per query head)."""

    def __init__(self, heads, kv_heads, head_dim, dropout, causal):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim, self.causal = heads, kv_heads, head_dim, causal
        self.dropout = nn.Dropout(dropout)

    def forward(self, qkv):
        b, t, _ = qkv.shape
        h, kv, d = self.heads, self.kv_heads, self.head_dim
        q, k, v = qkv.split([h * d, kv * d, kv * d], dim=-1)
        q = q.reshape(b, t, h, d).transpose(1, 2)
        k = k.reshape(b, t, kv, d).transpose(1, 2)
        v = v.reshape(b, t, kv, d).transpose(1, 2)
        if kv != h:
            k = k.repeat_interleave(h // kv, dim=1)
            v = v.repeat_interleave(h // kv, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d)
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool, device=qkv.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        probs = self.dropout(scores.softmax(dim=-1))
        return (probs @ v).transpose(1, 2).reshape(b, t, h * d)


class Attention(nn.Module):
    """qkv projection, attention_core, output projection, dropout."""

    def __init__(self, dim, heads, kv_heads, dropout, causal, bias, qkv_bias, rotary=None):
        super().__init__()
        d = dim // heads
        self.checkpointed = set()
        # (rotated dimensions per head, base), or None: rotary embeddings on q and k.
        self.rotary = (heads + kv_heads, d) + tuple(rotary) if rotary else None
        self.qkv = nn.Linear(dim, (heads + 2 * kv_heads) * d, bias=qkv_bias)
        self.attention_core = AttentionCore(heads, kv_heads, d, dropout, causal)
        self.proj = nn.Linear(heads * d, dim, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        qkv = self.qkv(x)
        if self.rotary:
            qkv = RotaryInPlace.apply(qkv, *self.rotary)
        y = run_child(self, "attention_core", qkv)
        return self.dropout(self.proj(y))
)py";

const char* kMlp = R"py(

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}


class Mlp(nn.Module):
    """fc1, activation, fc2, dropout; gated: act(gate(x)) * up(x), then down."""

    def __init__(self, dim, hidden, activation, gated, bias, dropout):
        super().__init__()
        self.gated = gated
        if gated:
            self.gate = nn.Linear(dim, hidden, bias=bias)
            self.up = nn.Linear(dim, hidden, bias=bias)
            self.down = nn.Linear(hidden, dim, bias=bias)
        else:
            self.fc1 = nn.Linear(dim, hidden, bias=bias)
            self.fc2 = nn.Linear(hidden, dim, bias=bias)
        self.act = ACTIVATIONS[activation]()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        if self.gated:
            h = self.down(self.act(self.gate(x)) * self.up(x))
        else:
            h = self.fc2(self.act(self.fc1(x)))
        return self.dropout(h)
)py";

const char* kBlock = R"py(

class TransformerBlock(nn.Module):
    """Pre-norm block: x + attention(ln1(x)), then + mlp(ln2(.)); with a parallel residual
    (GPT-NeoX) x + attention(ln1(x)) + mlp(ln2(x))."""

    def __init__(self, dim, heads, kv_heads, mlp_hidden, activation, gated, norm, dropout,
                 causal, bias, qkv_bias, parallel_residual, rotary=None):
        super().__init__()
        norm_class = nn.LayerNorm if norm == "layernorm" else RMSNorm
        self.checkpointed = set()
        self.parallel_residual = parallel_residual
        self.ln1 = norm_class(dim)
        self.attention = Attention(dim, heads, kv_heads, dropout, causal, bias, qkv_bias, rotary)
        self.ln2 = norm_class(dim)
        self.mlp = Mlp(dim, mlp_hidden, activation, gated, bias, dropout)

    def forward(self, x):
        a = run_child(self, "attention", self.ln1(x))
        if self.parallel_residual:
            m = run_child(self, "mlp", self.ln2(x))
            return x + a + m
        x = x + a
        return x + run_child(self, "mlp", self.ln2(x))
)py";

const char* kResidual = R"py(

class ResidualBlock(nn.Module):
    """torchvision's basic or bottleneck block; a shortcut (1x1 conv, batch norm) where the
    stride or the channel count changes."""

    def __init__(self, in_channels, channels, stride, bottleneck):
        super().__init__()
        out = 4 * channels if bottleneck else channels
        self.checkpointed = set()
        self.bottleneck = bottleneck
        if bottleneck:
            self.conv1 = nn.Conv2d(in_channels, channels, 1, bias=False)
            self.conv2 = nn.Conv2d(channels, channels, 3, stride=stride, padding=1, bias=False)
            self.conv3 = nn.Conv2d(channels, out, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(out)
        else:
            self.conv1 = nn.Conv2d(in_channels, channels, 3, stride=stride, padding=1, bias=False)
            self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.shortcut = None
        if stride != 1 or in_channels != out:
            self.shortcut = nn.Sequential(OrderedDict(
                conv=nn.Conv2d(in_channels, out, 1, stride=stride, bias=False),
                bn=nn.BatchNorm2d(out)))

    def forward(self, x):
        h = self.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        if self.bottleneck:
            h = self.bn3(self.conv3(self.relu(h)))
        s = x if self.shortcut is None else run_child(self, "shortcut", x)
        return self.relu(h + s)
)py";

const char* kLosses = R"py(

class CrossEntropy(nn.Module):
    def forward(self, logits, targets):
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


class MSE(nn.Module):
    def forward(self, x, target):
        return F.mse_loss(x, target)
)py";

std::string activationPy(Activation a) { return std::string(activationName(a)); }

// The constructor call of one layer instance.
std::string constructor(const Layer& l, const Shape& in) {
    const std::int64_t last = in.empty() ? 0 : in.back();
    switch (l.kind) {
        case LayerKind::Linear:
            return "nn.Linear(" + n(last) + ", " + n(l.out) + ", bias=" + py(l.bias) + ")";
        case LayerKind::Relu: return "nn.ReLU()";
        case LayerKind::Gelu: return "nn.GELU()";
        case LayerKind::Silu: return "nn.SiLU()";
        case LayerKind::Tanh: return "nn.Tanh()";
        case LayerKind::Sigmoid: return "nn.Sigmoid()";
        case LayerKind::Softmax: return "nn.Softmax(dim=-1)";
        case LayerKind::LayerNorm: return "nn.LayerNorm(" + n(last) + ")";
        case LayerKind::RmsNorm: return "RMSNorm(" + n(last) + ")";
        case LayerKind::Dropout: return "nn.Dropout(" + py(l.p) + ")";
        case LayerKind::Embedding:
            return "Embedding(" + n(0) + ", " + n(l.dim) + ", " + n(l.positions) + ", " +
                   py(l.dropout) + ")";  // vocab patched by the caller
        case LayerKind::Conv2d:
            return "nn.Conv2d(" + n(in.at(0)) + ", " + n(l.outChannels) + ", " + n(l.kernel) +
                   ", stride=" + n(l.stride) + ", padding=" + n(l.padding) +
                   (l.dilation != 1 ? ", dilation=" + n(l.dilation) : std::string()) +
                   (l.groups != 1 ? ", groups=" + n(l.groups) : std::string()) +
                   ", bias=" + py(l.bias) + ")";
        case LayerKind::BatchNorm2d: return "nn.BatchNorm2d(" + n(in.at(0)) + ")";
        case LayerKind::MaxPool2d:
            return "nn.MaxPool2d(" + n(l.kernel) + ", stride=" + n(l.stride) +
                   ", padding=" + n(l.padding) + ")";
        case LayerKind::GlobalAvgPool: return "nn.AdaptiveAvgPool2d(1)";
        case LayerKind::Flatten: return "nn.Flatten()";
        case LayerKind::Attention:
        case LayerKind::Mlp:
        case LayerKind::TransformerBlock: {
            const std::int64_t kv = l.kvHeads > 0 ? l.kvHeads : l.heads;
            const std::string qkvBias = py(l.qkvBias.value_or(l.bias));
            // Rotary embeddings: (dimensions rotated per head, base), only where set.
            const std::string rotary =
                l.rotary ? ", rotary=(" + n(rotaryDims(last / l.heads, l.rotaryFraction)) + ", " +
                               py(l.rotaryBase) + ")"
                         : "";
            if (l.kind == LayerKind::Attention)
                return "Attention(" + n(last) + ", " + n(l.heads) + ", " + n(kv) + ", " +
                       py(l.dropout) + ", " + py(l.causal) + ", " + py(l.bias) + ", " + qkvBias +
                       rotary + ")";
            if (l.kind == LayerKind::Mlp)
                return "Mlp(" + n(last) + ", " + n(l.mlpHidden) + ", \"" + activationPy(l.activation) +
                       "\", " + py(l.gated) + ", " + py(l.bias) + ", " + py(l.dropout) + ")";
            return "TransformerBlock(" + n(last) + ", " + n(l.heads) + ", " + n(kv) + ", " +
                   n(l.mlpHidden) + ", \"" + activationPy(l.activation) + "\", " + py(l.gated) +
                   ", \"" + (l.norm == NormKind::LayerNorm ? "layernorm" : "rmsnorm") + "\", " +
                   py(l.dropout) + ", " + py(l.causal) + ", " + py(l.bias) + ", " + qkvBias +
                   ", " + py(l.parallelResidual) + rotary + ")";
        }
        case LayerKind::ResidualBlock:
            return "ResidualBlock(" + n(in.at(0)) + ", " + n(l.channels) + ", " + n(l.stride) +
                   ", " + py(l.variant == ResidualVariant::Bottleneck) + ")";
        case LayerKind::CrossEntropy: return "CrossEntropy()";
        case LayerKind::Mse: return "MSE()";
        case LayerKind::PatchEmbedding:
        case LayerKind::SelectToken: break;  // refused by exportPytorch
    }
    return "None";
}

std::string shapeTuple(const Shape& s) {
    if (s.empty()) return "(batch,)";
    std::string out = "(batch";
    for (auto d : s) out += ", " + n(d);
    return out + ")";
}

void commentLines(std::ostringstream& out, const std::string& text, const std::string& first,
                  const std::string& rest) {
    out << commentBlock(text, first, rest);
}

}  // namespace

Result<std::string> exportPytorch(const Network& net, const PlanDescription& d) {
    auto shapes = inferShapes(net);
    if (!shapes) return shapes.error();
    const auto sources = expandedLayerSources(net);
    const std::size_t count = sources.size();
    std::int64_t lossLayer = -1;
    for (std::size_t i = 0; i < count; ++i)
        if (isLoss(net.layers[sources[i]].kind)) lossLayer = std::int64_t(i);
    if (lossLayer != std::int64_t(count) - 1)
        return makeError("the PyTorch export needs the network to end with its loss layer");
    // Layers and fields whose modules the export does not write yet: refused by name rather
    // than written as a different network.
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& l = net.layers[i];
        std::string what;
        if (l.kind == LayerKind::PatchEmbedding || l.kind == LayerKind::SelectToken)
            what = "the layer kind " + std::string(layerKindName(l.kind));
        else if (l.kind == LayerKind::TransformerBlock && l.normPosition == NormPosition::Post)
            what = "norm_position \"post\"";
        else if (l.kind == LayerKind::Embedding && l.tokenTypes > 0)
            what = "token_types";
        if (!what.empty())
            return makeError("the PyTorch export cannot write " + what + " (layer " +
                             layerLabel(net, i) + ") yet");
    }

    // The model file's checkpoint implementation: PyTorch's reentrant one is written as
    // use_reentrant=True, with checkpoint_sequential where the plan has its shape; every other
    // as use_reentrant=False (the Megatron-LM one gets a note).
    const bool reentrant = d.training.recomputeImpl == RecomputeImpl::PytorchReentrant;
    const std::string useReentrant = reentrant ? "True" : "False";

    // Refusals: what torch.utils.checkpoint around these modules would get wrong.
    for (std::size_t i = 0; i < d.regions.size(); ++i) {
        const ExportRegion& r = d.regions[i];
        for (std::size_t j = 0; j < i; ++j) {
            const ExportRegion& o = d.regions[j];
            const bool inside = r.firstLayer >= o.firstLayer && r.lastLayer <= o.lastLayer &&
                                (o.wholeLayers() || r.subModule.rfind(o.subModule + "/", 0) == 0);
            if (inside)
                return makeError("region '" + r.label + "' lies inside region '" + o.label +
                                 "': the PyTorch export writes one level of checkpoints and "
                                 "refuses nested regions");
        }
        if (reentrant && r.wholeLayers() && r.firstLayer == 0)
            return makeError("region '" + r.label +
                             "' starts at the network's input, which needs no gradient: PyTorch's "
                             "reentrant checkpoint (--recompute-impl pytorch-reentrant) would give "
                             "its parameters no gradient; use --recompute-impl pytorch");
        if (r.wholeLayers() && r.lastLayer >= lossLayer)
            return makeError("region '" + r.label +
                             "' includes the loss layer, which takes the targets as well; the "
                             "PyTorch export checkpoints layers before the loss");
    }

    std::set<LayerKind> kinds;
    for (std::size_t s : sources) kinds.insert(net.layers[s].kind);
    auto has = [&](LayerKind k) { return kinds.count(k) > 0; };
    const bool blocks = has(LayerKind::TransformerBlock);
    const bool attention = blocks || has(LayerKind::Attention);
    const bool mlp = blocks || has(LayerKind::Mlp);
    const bool residual = has(LayerKind::ResidualBlock);
    bool rms = has(LayerKind::RmsNorm), flash = false, inplace = false, gelu = has(LayerKind::Gelu),
         batchnorm = residual || has(LayerKind::BatchNorm2d);
    for (std::size_t s : sources) {
        const Layer& l = net.layers[s];
        if (l.kind == LayerKind::TransformerBlock && l.norm == NormKind::RmsNorm) rms = true;
        if ((l.kind == LayerKind::TransformerBlock || l.kind == LayerKind::Attention) &&
            l.attention == AttentionImpl::Flash)
            flash = true;
        if ((l.kind == LayerKind::TransformerBlock || l.kind == LayerKind::Mlp) &&
            l.activation == Activation::Gelu)
            gelu = true;
        if (l.inplace) inplace = true;
    }

    // Tied output head: the linear right before the loss shares the token embedding's weight.
    std::int64_t embeddingLayer = -1;
    for (std::size_t i = 0; i < count; ++i)
        if (net.layers[sources[i]].kind == LayerKind::Embedding) {
            embeddingLayer = std::int64_t(i);
            break;
        }
    const bool tied = net.tieEmbeddings && embeddingLayer >= 0 && count >= 2 &&
                      net.layers[sources[count - 2]].kind == LayerKind::Linear;

    std::vector<std::string> cannot;
    cannot.push_back(
        "Only the network and the plan: weights are freshly initialised (load yours with "
        "load_state_dict: the names follow the layer paths), and the training loop, optimizer "
        "and data are yours.");
    if (flash)
        cannot.push_back("Flash attention is written as eager attention (the scores are "
                         "materialised), so this module keeps more than the prediction; use "
                         "your fused attention kernel in AttentionCore.");
    if (inplace)
        cannot.push_back("In-place activations and dropout are written out of place.");
    if (gelu)
        cannot.push_back("GELU is PyTorch's exact (erf) form; GPT-2's tanh approximation costs the "
                         "same memory and time.");
    if (batchnorm)
        cannot.push_back("Batch norm inside a checkpointed region updates its running statistics "
                         "again when the region is recomputed (PyTorch's behaviour).");
    bool groups = false;
    for (const auto& r : d.regions) groups = groups || (r.wholeLayers() && r.lastLayer > r.firstLayer);
    if (groups && !reentrant)
        cannot.push_back("Groups of consecutive layers are one method inside one checkpoint, not "
                         "checkpoint_sequential: PyTorch 1.13's takes no use_reentrant (it always "
                         "checkpoints reentrantly) and never checkpoints its last segment.");
    for (auto& note : commonExportNotes(d, ExportTarget::Pytorch)) cannot.push_back(note);

    std::ostringstream out;
    commentLines(out,
                 d.model + " as a PyTorch module with the checkpointing plan " + d.strategy +
                     ", written by `remat export --to pytorch` (Remat Studio). Model() runs the "
                     "plan's regions inside torch.utils.checkpoint.checkpoint(..., "
                     "use_reentrant=" + useReentrant + ")" +
                     (reentrant ? std::string(" (the model file's --recompute-impl "
                                              "pytorch-reentrant), with checkpoint_sequential "
                                              "where the plan has its shape")
                                : std::string()) +
                     "; Model(checkpointing=False) is the same network "
                     "without any checkpoint. Module names follow Remat Studio's layer paths: "
                     "layer 5's attention is layers.5.attention.",
                 "# ", "# ");
    out << "#\n# The plan's regions (Remat Studio label: modules):\n";
    if (d.regions.empty()) out << "#   none: nothing is checkpointed\n";
    for (const auto& r : d.regions) {
        std::string names;
        for (const auto& m : r.moduleNames("layers")) names += (names.empty() ? "" : ", ") + m;
        out << "#   " << r.label << ": " << names << "\n";
    }
    out << "#\n# What this file cannot express:\n";
    for (const auto& c : cannot) commentLines(out, c, "# - ", "#   ");
    out << "\n" << (reentrant ? "import inspect\n" : "") << "import math\nfrom collections import OrderedDict\n\nimport torch\n"
           "import torch.nn.functional as F\nfrom torch import nn\n"
           "from torch.utils.checkpoint import checkpoint"
        << (reentrant ? ", checkpoint_sequential" : "") << "\n\n";
    out << "PLAN_MODEL = " << pythonString(d.model) << "\n";
    out << "PLAN_STRATEGY = " << pythonString(d.strategy) << "\n";
    out << "USE_REENTRANT = " << useReentrant << "\n";
    out << "# Each region: its Remat Studio label and the modules it runs inside one checkpoint.\n";
    out << "PLAN_REGIONS = [\n";
    for (const auto& r : d.regions) {
        out << "    (" << pythonString(r.label) << ", [";
        auto names = r.moduleNames("layers");
        for (std::size_t i = 0; i < names.size(); ++i)
            out << (i ? ", " : "") << pythonString(names[i]);
        out << "]),\n";
    }
    out << "]\n";
    if (attention || mlp || residual) out << kRunChild;
    if (rms) out << kRmsNorm;
    if (has(LayerKind::Embedding)) out << kEmbedding;
    if (attention) out << kAttention;
    if (mlp) out << kMlp;
    if (blocks) out << kBlock;
    if (residual) out << kResidual;
    out << kLosses;

    // The model.
    const bool tokens = net.input.isTokens();
    out << "\n\nclass Model(nn.Module):\n";
    out << "    \"\"\"" << d.model << " (" << count << " layers) with the plan " << d.strategy
        << ".\"\"\"\n\n";
    out << "    def __init__(self, checkpointing=True):\n";
    out << "        super().__init__()\n";
    out << "        self.checkpointing = checkpointing\n";
    out << "        self.layers = nn.ModuleList([\n";
    for (std::size_t i = 0; i < count; ++i) {
        const Layer& l = net.layers[sources[i]];
        std::string ctor = constructor(l, (*shapes)[i]);
        if (l.kind == LayerKind::Embedding)
            ctor = "Embedding(" + n(net.input.vocab) + ", " + n(l.dim) + ", " + n(l.positions) +
                   ", " + py(l.dropout) + ")";
        out << "            " << ctor << ",  # " << i << " " << layerKindName(l.kind) << "\n";
    }
    out << "        ])\n";
    if (tied)
        out << "        # tie_embeddings: the output head shares the token embedding's weight.\n"
            << "        self.layers[" << count - 2 << "].weight = self.layers[" << embeddingLayer
            << "].wte.weight\n";
    bool anySub = false;
    for (const auto& r : d.regions) anySub = anySub || !r.wholeLayers();
    if (anySub) {
        out << "        if checkpointing:\n";
        out << "            # Sub-module regions: each runs inside its own checkpoint, called by "
               "its parent.\n";
        for (const auto& r : d.regions) {
            if (r.wholeLayers()) continue;
            std::string owner = "self.layers[" + n(r.firstLayer) + "]";
            std::string child = r.subModule;
            auto slash = child.rfind('/');
            if (slash != std::string::npos) {
                std::string parent = child.substr(0, slash);
                std::replace(parent.begin(), parent.end(), '/', '.');
                owner += "." + parent;
                child = child.substr(slash + 1);
            }
            out << "            " << owner << ".checkpointed.add(\"" << child
                << "\")  # region " << pythonString(r.label) << "\n";
        }
    }
    out << "\n    def run_region(self, function, *args):\n";
    out << "        \"\"\"Runs one whole-layer region: inside a checkpoint when checkpointing.\"\"\"\n";
    out << "        if self.checkpointing:\n";
    out << "            return checkpoint(function, *args, use_reentrant=USE_REENTRANT)\n";
    out << "        return function(*args)\n";
    if (reentrant) {
        out << "\n    def run_sequential(self, functions, segments, x):\n";
        out << "        \"\"\"checkpoint_sequential: each segment but the last in one reentrant "
               "checkpoint.\"\"\"\n";
        out << "        if not self.checkpointing:\n";
        out << "            for function in functions:\n";
        out << "                x = function(x)\n";
        out << "            return x\n";
        out << "        # PyTorch 1.13's checkpoint_sequential is always reentrant and takes no "
               "use_reentrant.\n";
        out << "        if \"use_reentrant\" in inspect.signature(checkpoint_sequential).parameters:\n";
        out << "            return checkpoint_sequential(functions, segments, x, use_reentrant=True)\n";
        out << "        return checkpoint_sequential(functions, segments, x)\n";
    }
    for (const auto& r : d.regions) {
        if (!r.wholeLayers() || r.firstLayer == r.lastLayer) continue;
        out << "\n    def layers_" << r.firstLayer << "_to_" << r.lastLayer << "(self, x):\n";
        out << "        \"\"\"Region " << pythonString(r.label) << ": layers " << r.firstLayer
            << " to " << r.lastLayer << " in one checkpoint.\"\"\"\n";
        for (std::int64_t i = r.firstLayer; i <= r.lastLayer; ++i)
            out << "        x = self.layers[" << i << "](x)\n";
        out << "        return x\n";
    }
    out << "\n    def forward(self, " << (tokens ? "tokens, targets" : "x, target") << "):\n";
    if (tokens) out << "        x = tokens\n";
    std::map<std::int64_t, const ExportRegion*> startsAt;
    for (const auto& r : d.regions)
        if (r.wholeLayers()) startsAt[r.firstLayer] = &r;
    for (std::int64_t i = 0; i < std::int64_t(count);) {
        if (i == lossLayer) {
            out << "        return self.layers[" << i << "](x, " << (tokens ? "targets" : "target")
                << ")\n";
            break;
        }
        auto it = startsAt.find(i);
        if (it == startsAt.end()) {
            out << "        x = self.layers[" << i << "](x)\n";
            ++i;
            continue;
        }
        const ExportRegion& r = *it->second;
        if (reentrant) {
            // checkpoint_sequential(functions, segments, x) checkpoints segments of
            // len(functions) // segments layers each but the last, which runs unchecked: it
            // fits m regions of K consecutive layers followed by K layers no region touches.
            const std::int64_t k = r.lastLayer - r.firstLayer + 1;
            std::vector<const ExportRegion*> run;
            std::int64_t next = i;
            for (auto at = startsAt.find(next); at != startsAt.end() &&
                                                at->second->lastLayer - at->second->firstLayer + 1 == k;
                 at = startsAt.find(next)) {
                run.push_back(at->second);
                next = at->second->lastLayer + 1;
            }
            bool tailFree = next + k <= lossLayer;
            for (std::int64_t j = next; tailFree && j < next + k; ++j)
                for (const auto& o : d.regions)
                    if (o.firstLayer <= j && j <= o.lastLayer) tailFree = false;
            if (tailFree) {
                std::string functions, labels;
                for (std::int64_t j = i; j < next + k; ++j)
                    functions += (j > i ? ", " : "") + std::string("self.layers[") + n(j) + "]";
                for (const auto* o : run) labels += (labels.empty() ? "" : ", ") + pythonString(o->label);
                out << "        # region" << (run.size() > 1 ? "s " : " ") << labels << "; layer"
                    << (k > 1 ? "s " + n(next) + "-" + n(next + k - 1) : " " + n(next))
                    << " unchecked (the last segment)\n";
                out << "        x = self.run_sequential([" << functions << "], " << run.size() + 1
                    << ", x)\n";
                i = next + k;
                continue;
            }
        }
        if (r.firstLayer == r.lastLayer)
            out << "        x = self.run_region(self.layers[" << i << "], x)  # region "
                << pythonString(r.label) << "\n";
        else
            out << "        x = self.run_region(self.layers_" << r.firstLayer << "_to_"
                << r.lastLayer << ", x)  # region " << pythonString(r.label) << "\n";
        i = r.lastLayer + 1;
    }

    // Example inputs and a runnable main.
    const Shape& lossIn = (*shapes)[std::size_t(lossLayer)];
    out << "\n\ndef example_inputs(batch=" << d.training.microBatch
        << (tokens ? ", tokens=" + n(net.input.tokens) : std::string()) << "):\n";
    const bool crossEntropy = net.layers[sources[std::size_t(lossLayer)]].kind ==
                              LayerKind::CrossEntropy;
    out << "    \"\"\"Random inputs and targets of the model file's shapes (its micro-batch by "
           "default).\"\"\"\n";
    if (tokens)
        out << "    x = torch.randint(0, " << net.input.vocab << ", (batch, tokens))\n";
    else
        out << "    x = torch.randn" << shapeTuple(net.input.shape) << "\n";
    if (crossEntropy) {
        Shape rows = lossIn;
        if (!rows.empty()) rows.pop_back();
        std::string size = tokens ? "(batch, tokens)" : shapeTuple(rows);
        out << "    target = torch.randint(0, " << (lossIn.empty() ? 1 : lossIn.back()) << ", "
            << size << ")\n";
    } else {
        out << "    target = torch.randn" << (tokens ? "(batch, tokens, " + n(lossIn.back()) + ")"
                                                   : shapeTuple(lossIn))
            << "\n";
    }
    out << "    return x, target\n";
    out << "\n\nif __name__ == \"__main__\":\n";
    out << "    torch.manual_seed(0)\n";
    out << "    model = Model()\n";
    out << "    loss = model(*example_inputs())\n";
    out << "    loss.backward()\n";
    out << "    print(f\"{PLAN_MODEL}, plan {PLAN_STRATEGY}: loss {loss.item():.4f}, "
           "{len(PLAN_REGIONS)} checkpointed regions\")\n";
    return out.str();
}

}  // namespace remat
