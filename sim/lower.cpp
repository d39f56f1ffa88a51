#include "lower.h"

#include <algorithm>
#include <cmath>

namespace remat {
namespace {


class Lowerer {
public:
    Lowerer(const Network& net, const TrainingConfig& cfg, const ShardOptions& shard)
        : m_net(net),
          m_act(computeDType(cfg.precision)),
          m_paramType(parameterDType(cfg.precision)),
          m_autocast(isAutocast(cfg.precision)),
          m_precision(cfg.precision),
          m_lossImpl(cfg.lossImpl),
          m_shard(shard),
          m_seq(shard.sequenceParallel ? shard.tp : 1) {
        m_g.precision = cfg.precision;
        Module root;
        root.kind = "network";
        root.name = net.name;
        m_g.modules.push_back(root);
        m_stack.push_back(ModuleId(0));
    }

    Result<Graph> run() {
        auto shapes = inferShapes(m_net);
        if (!shapes) return shapes.error();
        const auto sources = expandedLayerSources(m_net);
        TensorId x;
        const Shape& inShape = shapes->front();
        if (m_net.input.isTokens()) {
            x = input("tokens", DType::I64, inShape);
        } else if (m_shard.receivesActivations) {
            // The previous stage's output, sequence-split under sequence parallelism; its
            // gradient goes back to that stage.
            Shape s = inShape;
            if (!s.empty()) s.front() /= m_seq;
            x = input("received", dataDType(), s);
            m_g.tensors[x.index()].requiresGrad = true;
        } else {
            // Under sequence parallelism a sequence enters split like every layer outside the
            // tensor-parallel GEMMs.
            Shape s = inShape;
            if (s.size() == 2) s.front() /= m_seq;
            x = input("input", dataDType(), s);
        }
        for (std::size_t inst = 0; inst < sources.size(); ++inst) {
            const Layer& layer = m_net.layers[sources[inst]];
            const Shape& shapeIn = (*shapes)[inst];
            ModuleId mod = push(std::to_string(inst), std::string(layerKindName(layer.kind)));
            m_g.modules[mod.index()].layerIndex = static_cast<int>(inst);
            m_g.layerModules.push_back(mod);
            // Chunked cross-entropy: a linear right before the loss becomes part of the loss's
            // fused op (its parameters stay named after this layer).
            const bool fuseHead = m_lossImpl == LossImpl::Chunked &&
                                  layer.kind == LayerKind::Linear &&
                                  inst + 1 < sources.size() &&
                                  m_net.layers[sources[inst + 1]].kind == LayerKind::CrossEntropy;
            auto r = fuseHead ? holdHead(layer, x, static_cast<int>(inst))
                              : lowerLayer(layer, x, shapeIn, static_cast<int>(inst));
            if (!r) return r.error();
            if (!m_error.empty())
                return makeError("layer " + layerLabel(m_net, sources[inst]) + ": " + m_error);
            x = *r;
            pop();
            if (m_g.ops.size() > kMaxOps)
                return makeError("the network lowers to more than " + std::to_string(kMaxOps) +
                                 " ops (reached at layer instance " + std::to_string(inst) +
                                 " of " + std::to_string(sources.size()) +
                                 "), the largest supported");
        }
        finishRoot();
        if (m_shard.sendsActivations) m_g.stageOutput = x;
        buildChain(sources);
        for (auto p : m_g.parameters) m_g.parameterCount += m_g.tensor(p).elements();
        return std::move(m_g);
    }

private:
    // ---- module tree -----------------------------------------------------------------------
    ModuleId push(const std::string& name, const std::string& kind) {
        ModuleId parent = m_stack.back();
        Module m;
        m.name = name;
        const std::string& pp = m_g.modules[parent.index()].path;
        m.path = pp.empty() ? name : pp + "/" + name;
        m.kind = kind;
        m.parent = parent;
        m.firstOp = static_cast<std::uint32_t>(m_g.ops.size());
        m.layerIndex = m_g.modules[parent.index()].layerIndex;
        ModuleId id(static_cast<std::uint32_t>(m_g.modules.size()));
        m_g.modules.push_back(m);
        m_g.modules[parent.index()].children.push_back(id);
        m_stack.push_back(id);
        return id;
    }
    void pop() {
        Module& m = m_g.modules[m_stack.back().index()];
        m.opCount = static_cast<std::uint32_t>(m_g.ops.size()) - m.firstOp;
        m_stack.pop_back();
    }
    void finishRoot() {
        Module& root = m_g.modules[0];
        root.firstOp = 0;
        root.opCount = static_cast<std::uint32_t>(m_g.ops.size());
    }
    std::string opName(const std::string& label) const {
        const std::string& p = m_g.modules[m_stack.back().index()].path;
        return p.empty() ? label : p + "/" + label;
    }

    void buildChain(const std::vector<std::size_t>& sources) {
        bool anyBlock = false;
        for (const auto& l : m_net.layers) anyBlock |= isBlock(l.kind);
        for (std::size_t inst = 0; inst < sources.size(); ++inst) {
            LayerKind k = m_net.layers[sources[inst]].kind;
            if (anyBlock ? isBlock(k) : !isLoss(k)) {
                ModuleId m = m_g.layerModules[inst];
                if (m_g.module(m).hasOps()) m_g.chain.push_back(m);
            }
        }
    }

    // ---- tensors ---------------------------------------------------------------------------
    TensorId addTensor(Tensor t) {
        // Internal tensors (attention scores are tokens^2 per head) can be far larger than any
        // layer output that shape inference checked: refuse sizes past 2^40 elements, checked
        // without overflow.
        __int128 elements = 1;
        for (auto d : t.shape) {
            elements *= d;
            if (elements > kMaxTensorElements) break;
        }
        if (elements > kMaxTensorElements && m_error.empty())
            m_error = "tensor '" + t.name + "' " + shapeToString(t.shape) +
                      " has more than 2^40 elements per sample";
        TensorId id(static_cast<std::uint32_t>(m_g.tensors.size()));
        if (!t.storage.valid()) t.storage = id;
        m_g.tensors.push_back(std::move(t));
        return id;
    }
    TensorId input(const std::string& name, DType dtype, const Shape& shape) {
        Tensor t;
        t.name = name;
        t.kind = TensorKind::Input;
        t.dtype = dtype;
        t.shape = shape;
        t.requiresGrad = false;
        TensorId id = addTensor(std::move(t));
        m_g.inputs.push_back(id);
        return id;
    }
    TensorId param(const std::string& label, const Shape& shape) {
        Tensor t;
        t.name = opName(label);
        t.kind = TensorKind::Parameter;
        t.dtype = m_paramType;
        t.shape = shape;
        t.batched = false;
        TensorId id = addTensor(std::move(t));
        m_g.parameters.push_back(id);
        return id;
    }
    TensorId activation(const std::string& label, DType dtype, const Shape& shape,
                        bool batched = true, bool requiresGrad = true) {
        Tensor t;
        t.name = opName(label);
        t.dtype = dtype;
        t.shape = shape;
        t.batched = batched;
        t.requiresGrad = requiresGrad;
        t.producer = OpId(static_cast<std::uint32_t>(m_g.ops.size()));  // the op about to be added
        return addTensor(std::move(t));
    }
    Affine bytesOf(TensorId t) const { return m_g.tensor(t).bytes(); }
    static Affine scaled(Affine a, std::int64_t f) {
        return {satMul(a.perSample, f), satMul(a.fixed, f)};
    }

    OpId addOp(Op op) {
        // Costs are products of sizes checked one by one; their product can still be beyond
        // anything a step can run (and beyond int64 before it saturated).
        for (const OpCost* c : {&op.forward, &op.backward})
            for (const Affine* a : {&c->flops, &c->bytesMoved})
                for (std::int64_t v : {a->perSample, a->fixed})
                    if (v > kMaxOpCost && m_error.empty())
                        m_error = "op '" + op.name + "' would need more than 2^60 (" +
                                  "1.15e18) FLOPs or bytes moved per sample, the largest "
                                  "supported";
        op.module = m_stack.back();
        OpId id(static_cast<std::uint32_t>(m_g.ops.size()));
        for (auto o : op.outputs) m_g.tensors[o.index()].producer = id;
        m_g.ops.push_back(std::move(op));
        return id;
    }

    // Elementwise op costs: `flopsPerElement` per output element; reads inputs, writes output.
    // Computed in floating point and saturated, so that addOp's range check sees an overflow.
    static OpCost elementwise(Affine elems, double flopsPerElement, Affine bytes) {
        auto scaled = [&](std::int64_t n) {
            const double f = double(n) * flopsPerElement;
            return f >= double(kSaturated) ? kSaturated : static_cast<std::int64_t>(f);
        };
        OpCost c;
        c.flops = {scaled(elems.perSample), scaled(elems.fixed)};
        c.bytesMoved = bytes;
        return c;
    }
    Affine elemsOf(TensorId t) const {
        const Tensor& tt = m_g.tensor(t);
        return tt.batched ? Affine{tt.elements(), 0} : Affine{0, tt.elements()};
    }

    // ---- primitive ops ---------------------------------------------------------------------
    TensorId unary(OpKind kind, const std::string& label, TensorId x, bool inplace = false) {
        const Tensor in = m_g.tensor(x);
        // Autocast runs softmax in fp32 (its fp32_set_opt_dtype list): the 16-bit input is
        // read and an fp32 result written, no copy. Other activations keep their input's dtype.
        const DType outType = kind == OpKind::Softmax && m_autocast ? DType::F32 : in.dtype;
        TensorId y = activation(label, outType, in.shape, in.batched);
        if (inplace) m_g.tensors[y.index()].storage = m_g.tensor(x).storage;
        Op op;
        op.kind = kind;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y};
        op.inPlaceInput = inplace ? 0 : -1;
        // What backward needs (derivatives.yaml): relu/tanh/sigmoid/softmax their result,
        // gelu/silu their input.
        bool savesOutput = kind == OpKind::Relu || kind == OpKind::Tanh ||
                           kind == OpKind::Sigmoid || kind == OpKind::Softmax;
        op.saved = {savesOutput ? y : x};
        double f = kind == OpKind::Relu ? 1 : kind == OpKind::Softmax ? 5 : 8;
        Affine io = bytesOf(x) + bytesOf(y);
        op.forward = elementwise(elemsOf(y), f, io);
        op.backward = elementwise(elemsOf(y), f, io + bytesOf(y));
        addOp(std::move(op));
        return y;
    }

    TensorId activationOp(Activation a, const std::string& label, TensorId x, bool inplace) {
        switch (a) {
            case Activation::Relu: return unary(OpKind::Relu, label, x, inplace);
            case Activation::Gelu: return unary(OpKind::Gelu, label, x, inplace);
            case Activation::Silu: return unary(OpKind::Silu, label, x, inplace);
        }
        return x;
    }

    // How a GEMM is split under tensor parallelism (ShardOptions): column-parallel GEMMs split
    // their output features, row-parallel ones their input features.
    enum class Split { None, Column, Row };

    TensorId linear(const std::string& label, TensorId x, std::int64_t out, bool bias,
                    TensorId tiedWeight = TensorId::invalid(), Split split = Split::None) {
        const std::int64_t inF = m_g.tensor(x).shape.back();
        std::vector<TensorId> params = {tiedWeight.valid() ? tiedWeight
                                                           : param(label + ".weight", {out, inF})};
        if (bias) params.push_back(param(label + ".bias", {out}));
        return linearWith(label, x, out, std::move(params), split);
    }

    // A linear over existing parameters (weight, optional bias). Under autocast it runs on
    // 16-bit copies of its input and parameters (linear is on autocast's lower-precision list):
    // it saves the copies, and the casts' backward turns the 16-bit gradients into the fp32
    // parameter gradients.
    TensorId linearWith(const std::string& label, TensorId x, std::int64_t out,
                        std::vector<TensorId> params, Split split = Split::None) {
        const bool bias = params.size() > 1;
        x = castTo(x, m_act, label + ".input_cast");
        std::vector<TensorId> weights = castParams(label, params);
        const Tensor in = m_g.tensor(x);
        const std::int64_t inF = in.shape.back();
        const bool tp = m_shard.tp > 1 && split != Split::None;
        // Under sequence parallelism a column-parallel GEMM runs on the gathered sequence and a
        // row-parallel one scatters its output back to the rank's part of the sequence.
        const std::int64_t gather = tp && split == Split::Column ? m_seq : 1;
        const std::int64_t scatter = tp && split == Split::Row ? m_seq : 1;
        Shape outShape = in.shape;
        outShape.back() = out;
        if (outShape.size() >= 2) outShape.front() = outShape.front() * gather / scatter;
        TensorId y = activation(label, m_act, outShape);
        Op op;
        op.kind = OpKind::Linear;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y};
        bindWeights(op, x, params, weights);
        op.attrs.in = inF;
        op.attrs.out = out;
        op.attrs.bias = bias;
        const std::int64_t rows = m_g.tensor(x).elements() / inF * gather;
        op.attrs.rowsFactor = gather;
        const Affine w = bytesOf(weights[0]);
        if (tp) {
            const Affine xFull = scaled(bytesOf(x), gather), yFull = scaled(bytesOf(y), scatter);
            if (split == Split::Column) {
                if (gather > 1) {
                    // The gathered input exists while the GEMM runs, and again in backward.
                    op.commForward[0] = {CollectiveKind::AllGather, CommGroup::Tensor, xFull};
                    op.commBackward[0] = {CollectiveKind::AllGather, CommGroup::Tensor, xFull};
                    op.commBackward[1] = {CollectiveKind::ReduceScatter, CommGroup::Tensor, xFull};
                    op.workspaceForward = xFull;
                    op.workspaceBackward = xFull + xFull;
                } else {
                    op.commBackward[0] = {CollectiveKind::AllReduce, CommGroup::Tensor, xFull};
                }
            } else if (scatter > 1) {
                op.commForward[0] = {CollectiveKind::ReduceScatter, CommGroup::Tensor, yFull};
                op.commBackward[0] = {CollectiveKind::AllGather, CommGroup::Tensor, yFull};
                op.workspaceForward = yFull;
                op.workspaceBackward = yFull;
            } else {
                op.commForward[0] = {CollectiveKind::AllReduce, CommGroup::Tensor, yFull};
            }
        }
        op.forward.matmul = op.backward.matmul = true;
        const std::int64_t biasFlops = bias ? satMul(rows, out) : 0;
        op.forward.flops = {satAdd(satProduct({2, rows, inF, out}), biasFlops), 0};
        op.forward.bytesMoved = bytesOf(x) + bytesOf(y) + w;
        op.backward.flops = {satAdd(satProduct({4, rows, inF, out}), biasFlops), 0};
        op.backward.bytesMoved = bytesOf(x) + bytesOf(x) + bytesOf(y) + w + w;
        addOp(std::move(op));
        return y;
    }

    TensorId norm(NormKind kind, const std::string& label, TensorId x) {
        // Autocast runs layer_norm in fp32 (its fp32 list: a 16-bit input is cast first, and
        // the copy is what backward keeps); RMSNorm modules (Hugging Face's LlamaRMSNorm)
        // compute in fp32 and return fp32 as well (fp32 weight x normalised value).
        if (m_autocast) x = castTo(x, DType::F32, label + ".input_cast");
        const Tensor in = m_g.tensor(x);
        const std::int64_t c = in.shape.back();
        Shape rowShape(in.shape.begin(), in.shape.end() - 1);
        if (rowShape.empty()) rowShape = {1};
        TensorId y = activation(label, m_autocast ? DType::F32 : m_act, in.shape);
        Op op;
        op.name = opName(label);
        op.inputs = {x};
        op.attrs.in = c;
        if (kind == NormKind::LayerNorm) {
            op.kind = OpKind::LayerNorm;
            TensorId mean = activation(label + ".mean", DType::F32, rowShape, true, false);
            TensorId rstd = activation(label + ".rstd", DType::F32, rowShape, true, false);
            op.outputs = {y, mean, rstd};
            op.params = {param(label + ".weight", {c}), param(label + ".bias", {c})};
            op.saved = {x, mean, rstd};
        } else {
            op.kind = OpKind::RmsNorm;
            TensorId rstd = activation(label + ".rstd", DType::F32, rowShape, true, false);
            op.outputs = {y, rstd};
            op.params = {param(label + ".weight", {c})};
            op.saved = {x, rstd};
        }
        Affine io = bytesOf(x) + bytesOf(y);
        op.forward = elementwise(elemsOf(y), 8, io);
        op.backward = elementwise(elemsOf(y), 16, io + bytesOf(x));
        addOp(std::move(op));
        return y;
    }

    TensorId dropout(const std::string& label, TensorId x, double p, bool inplace = false) {
        if (p <= 0.0) return x;  // p = 0 is not lowered at all (docs/memory-model.md)
        const Tensor in = m_g.tensor(x);
        TensorId y = activation(label, in.dtype, in.shape);
        TensorId mask = activation(label + ".mask", DType::U8, in.shape, true, false);
        if (inplace) m_g.tensors[y.index()].storage = m_g.tensor(x).storage;
        Op op;
        op.kind = OpKind::Dropout;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y, mask};
        op.saved = {mask};
        op.inPlaceInput = inplace ? 0 : -1;
        op.attrs.p = p;
        Affine io = bytesOf(x) + bytesOf(y) + bytesOf(mask);
        op.forward = elementwise(elemsOf(y), 3, io);
        op.backward = elementwise(elemsOf(y), 2, io);
        addOp(std::move(op));
        return y;
    }

    TensorId binary(OpKind kind, const std::string& label, TensorId a, TensorId b,
                    bool inplace = false) {
        const Tensor in = m_g.tensor(a);
        // Type promotion: an fp32 and a 16-bit operand give fp32 (the residual stream under
        // autocast); an in-place op keeps its target's dtype.
        const DType other = m_g.tensor(b).dtype;
        const DType outType = !inplace && dtypeBytes(other) > dtypeBytes(in.dtype) ? other
                                                                                   : in.dtype;
        TensorId y = activation(label, outType, in.shape);
        if (inplace) m_g.tensors[y.index()].storage = m_g.tensor(a).storage;
        Op op;
        op.kind = kind;
        op.name = opName(label);
        op.inputs = {a, b};
        op.outputs = {y};
        op.inPlaceInput = inplace ? 0 : -1;
        if (kind == OpKind::Mul) op.saved = {a, b};
        Affine io = bytesOf(a) + bytesOf(b) + bytesOf(y);
        op.forward = elementwise(elemsOf(y), 1, io);
        op.backward = elementwise(elemsOf(y), kind == OpKind::Mul ? 2 : 0, io);
        addOp(std::move(op));
        return y;
    }

    // ---- blocks ----------------------------------------------------------------------------
    // Rotary position embeddings on q and k, written over the qkv projection's output as fused
    // RoPE kernels do: no new buffer, nothing saved (the rotation depends on positions only),
    // and the attention core reads and saves the rotated qkv in its place. Outside the module
    // attention_core, so a region around the core never recomputes the rotation twice.
    TensorId rotary(const Layer& l, TensorId qkv, std::int64_t t, std::int64_t h,
                    std::int64_t kv, std::int64_t d, std::int64_t tk) {
        const Tensor in = m_g.tensor(qkv);
        TensorId y = activation("rotary", in.dtype, in.shape);
        m_g.tensors[y.index()].storage = in.storage;
        Op op;
        op.kind = OpKind::Rotary;
        op.name = opName("rotary");
        op.inputs = {qkv};
        op.outputs = {y};
        op.inPlaceInput = 0;
        op.attrs.tokens = t;
        op.attrs.heads = h;
        op.attrs.kvHeads = kv;
        op.attrs.headDim = d;
        op.attrs.rotaryDims = rotaryDims(d, l.rotaryFraction);
        op.attrs.rotaryBase = l.rotaryBase;
        if (tk != t) op.attrs.keyTokens = tk;
        // Each rotated pair reads two values and writes two: 6 FLOPs (two products and a sum,
        // twice), over the q and k heads' rotated dimensions.
        const std::int64_t rotated = satProduct({t, h + kv, op.attrs.rotaryDims});
        const Affine io{satMul(2 * dtypeBytes(in.dtype), rotated), 0};
        op.forward = elementwise({rotated, 0}, 3, io);
        op.backward = elementwise({rotated, 0}, 3, io);
        addOp(std::move(op));
        return y;
    }

    TensorId attention(const Layer& l, TensorId x) {
        const Shape shape = m_g.tensor(x).shape;
        // The sequence this rank attends over (its input may be a sequence-parallel part of it)
        // and its share of the heads under tensor parallelism.
        const std::int64_t t = shape[0] * m_seq, c = shape[1];
        const std::int64_t d = c / l.heads, tp = m_shard.tp;
        const std::int64_t h = l.heads / tp, kv = (l.kvHeads > 0 ? l.kvHeads : l.heads) / tp;
        // Keys and values span every context-parallel rank's part of the sequence.
        const std::int64_t tk = t * m_shard.cp;
        TensorId qkv = linear("qkv", x, (h + 2 * kv) * d, l.qkvBias.value_or(l.bias),
                              TensorId::invalid(), Split::Column);
        if (l.rotary) qkv = rotary(l, qkv, t, h, kv, d, tk);
        push("attention_core", "attention_core");
        OpAttrs a;
        a.tokens = t;
        a.heads = h;
        a.kvHeads = kv;
        a.headDim = d;
        a.causal = l.causal;
        a.p = l.dropout;
        if (tk != t) a.keyTokens = tk;
        TensorId y;
        const std::int64_t attnFlops = satProduct({2, h, t, tk, d});
        if (l.attention == AttentionImpl::Flash) {
            y = activation("flash", m_act, {t, h * d});
            TensorId lse = activation("flash.lse", DType::F32, {h, t}, true, false);
            Op op;
            op.kind = OpKind::FlashAttn;
            op.name = opName("flash");
            op.inputs = {qkv};
            op.outputs = {y, lse};
            op.saved = {qkv, y, lse};
            op.attrs = a;
            if (l.dropout > 0.0) {
                // Dropout on the probabilities, inside the kernel: no mask is stored. The op
                // keeps the RNG draw it used (one int64, PyTorch's philox seed and offset),
                // and backward regenerates the mask from it.
                TensorId rng = activation("flash.rng", DType::I64, {1}, false, false);
                op.outputs.push_back(rng);
                op.saved.push_back(rng);
            }
            const std::int64_t f = satMul(l.causal ? 1 : 2, attnFlops);
            op.forward.matmul = op.backward.matmul = true;
            op.forward.flops = {f, 0};
            op.forward.bytesMoved = bytesOf(qkv) + bytesOf(y) + bytesOf(lse);
            op.backward.flops = {satMul(f, 5) / 2, 0};
            op.backward.bytesMoved = bytesOf(qkv) + bytesOf(qkv) + bytesOf(y) + bytesOf(y);
            if (m_shard.cp > 1) {
                // Ring attention: the other ranks' keys and values pass through, two chunks of
                // this rank's size in flight at once; backward sends their gradients back.
                const Affine kvLocal{bytesOf(qkv).perSample / (h + 2 * kv) * (2 * kv), 0};
                const Affine kvAll = scaled(kvLocal, m_shard.cp);
                op.workspaceForward = kvLocal + kvLocal;
                op.workspaceBackward = kvLocal + kvLocal + kvLocal + kvLocal;
                op.commForward[0] = {CollectiveKind::AllGather, CommGroup::Context, kvAll};
                op.commBackward[0] = {CollectiveKind::AllGather, CommGroup::Context, kvAll};
                op.commBackward[1] = {CollectiveKind::ReduceScatter, CommGroup::Context, kvAll};
            }
            addOp(std::move(op));
        } else {
            TensorId kSrc = qkv, vSrc = qkv;
            if (kv != h) {
                TensorId kx = activation("expand_k", m_act, {h, t, d});
                TensorId vx = activation("expand_v", m_act, {h, t, d});
                Op op;
                op.kind = OpKind::ExpandKv;
                op.name = opName("expand_kv");
                op.inputs = {qkv};
                op.outputs = {kx, vx};
                op.attrs = a;
                op.forward.bytesMoved = bytesOf(kx) + bytesOf(vx) + bytesOf(qkv);
                op.backward.bytesMoved = op.forward.bytesMoved;
                op.backward.flops = {satProduct({2, h, t, d}), 0};
                addOp(std::move(op));
                kSrc = kx;
                vSrc = vx;
            }
            TensorId s = activation("scores", m_act, {h, t, t});
            {
                Op op;
                op.kind = OpKind::AttnScores;
                op.name = opName("scores");
                op.inputs = kSrc == qkv ? std::vector<TensorId>{qkv}
                                        : std::vector<TensorId>{qkv, kSrc};
                op.outputs = {s};
                op.saved = op.inputs;
                op.attrs = a;
                op.forward.matmul = op.backward.matmul = true;
                op.forward.flops = {attnFlops, 0};
                op.forward.bytesMoved = bytesOf(qkv) + bytesOf(s);
                op.backward.flops = {satMul(2, attnFlops), 0};
                op.backward.bytesMoved = bytesOf(qkv) + bytesOf(qkv) + bytesOf(s);
                addOp(std::move(op));
            }
            TensorId pr = unary(OpKind::Softmax, "softmax", s);
            TensorId pd = dropout("dropout", pr, l.dropout);
            // Under autocast the probabilities are fp32 (softmax) and the matmul casts them.
            pd = castTo(pd, m_act, "probs_cast");
            y = activation("context", m_act, {t, h * d});
            Op op;
            op.kind = OpKind::AttnContext;
            op.name = opName("context");
            op.inputs = {pd, vSrc};
            op.outputs = {y};
            op.saved = {pd, vSrc};
            op.attrs = a;
            op.forward.matmul = op.backward.matmul = true;
            op.forward.flops = {attnFlops, 0};
            op.forward.bytesMoved = bytesOf(pd) + bytesOf(vSrc) + bytesOf(y);
            op.backward.flops = {satMul(2, attnFlops), 0};
            op.backward.bytesMoved = bytesOf(pd) + bytesOf(pd) + bytesOf(vSrc) + bytesOf(y);
            addOp(std::move(op));
        }
        pop();
        TensorId o = linear("proj", y, c, l.bias, TensorId::invalid(), Split::Row);
        return dropout("dropout", o, l.dropout);
    }

    TensorId mlp(const Layer& l, TensorId x) {
        const std::int64_t c = m_g.tensor(x).shape.back();
        const std::int64_t hidden = l.mlpHidden / m_shard.tp;
        const TensorId none = TensorId::invalid();
        TensorId hdn;
        if (l.gated) {
            TensorId gate = linear("gate", x, hidden, l.bias, none, Split::Column);
            TensorId up = linear("up", x, hidden, l.bias, none, Split::Column);
            TensorId act = activationOp(l.activation, "act", gate, false);
            hdn = binary(OpKind::Mul, "mul", act, up);
            hdn = linear("down", hdn, c, l.bias, none, Split::Row);
        } else {
            TensorId h1 = linear("fc1", x, hidden, l.bias, none, Split::Column);
            TensorId act = activationOp(l.activation, "act", h1, false);
            hdn = linear("fc2", act, c, l.bias, none, Split::Row);
        }
        return dropout("dropout", hdn, l.dropout);
    }

    // BERT / RoBERTa (post-LN): LayerNorm(x + dropout(attention(x))), then
    // LayerNorm(h + dropout(mlp(h))). The attention reads the block input, the MLP and the
    // second residual the first norm's output; each norm saves its sum (its input).
    TensorId postNormBlock(const Layer& l, TensorId x) {
        push("attention", "attention");
        TensorId a = attention(l, x);
        pop();
        TensorId x1 = binary(OpKind::Add, "add1", x, a);
        TensorId h = norm(l.norm, "ln1", x1);
        push("mlp", "mlp");
        TensorId m = mlp(l, h);
        pop();
        TensorId x2 = binary(OpKind::Add, "add2", h, m);
        return norm(l.norm, "ln2", x2);
    }

    TensorId transformerBlock(const Layer& l, TensorId x) {
        if (l.normPosition == NormPosition::Post) return postNormBlock(l, x);
        TensorId h = norm(l.norm, "ln1", x);
        push("attention", "attention");
        TensorId a = attention(l, h);
        pop();
        if (l.parallelResidual) {
            // GPT-NeoX / GPT-J: x + attention(ln1(x)) + mlp(ln2(x)); ln2 normalises the block
            // input, which backward keeps anyway, instead of a new residual sum.
            TensorId h2 = norm(l.norm, "ln2", x);
            push("mlp", "mlp");
            TensorId m = mlp(l, h2);
            pop();
            TensorId x1 = binary(OpKind::Add, "add1", x, a);
            return binary(OpKind::Add, "add2", x1, m);
        }
        TensorId x1 = binary(OpKind::Add, "add1", x, a);
        TensorId h2 = norm(l.norm, "ln2", x1);
        push("mlp", "mlp");
        TensorId m = mlp(l, h2);
        pop();
        return binary(OpKind::Add, "add2", x1, m);
    }

    TensorId conv(const std::string& label, TensorId x, std::int64_t outC, std::int64_t k,
                  std::int64_t stride, std::int64_t padding, bool bias,
                  std::int64_t dilation = 1, std::int64_t groups = 1) {
        const Shape in = m_g.tensor(x).shape;
        const std::int64_t ho = convOutputSize(in[1], k, stride, padding, dilation);
        const std::int64_t wo = convOutputSize(in[2], k, stride, padding, dilation);
        // Each output channel reads the in / groups channels of its group.
        const std::int64_t inPerGroup = in[0] / groups;
        std::vector<TensorId> params = {param(label + ".weight", {outC, inPerGroup, k, k})};
        if (bias) params.push_back(param(label + ".bias", {outC}));
        // conv2d is on autocast's lower-precision list, as linear (linearWith).
        x = castTo(x, m_act, label + ".input_cast");
        std::vector<TensorId> weights = castParams(label, params);
        TensorId y = activation(label, m_act, {outC, ho, wo});
        Op op;
        op.kind = OpKind::Conv2d;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y};
        bindWeights(op, x, params, weights);
        op.attrs.in = in[0];
        op.attrs.out = outC;
        op.attrs.kernel = k;
        op.attrs.stride = stride;
        op.attrs.padding = padding;
        op.attrs.dilation = dilation;
        op.attrs.groups = groups;
        op.attrs.bias = bias;
        const std::int64_t f = satProduct({2, outC, ho, wo, inPerGroup, k, k});
        op.forward.matmul = op.backward.matmul = true;
        op.forward.flops = {f, 0};
        op.forward.bytesMoved = bytesOf(x) + bytesOf(y) + bytesOf(weights[0]);
        op.backward.flops = {satMul(2, f), 0};
        op.backward.bytesMoved = bytesOf(x) + bytesOf(x) + bytesOf(y) + bytesOf(weights[0]);
        addOp(std::move(op));
        return y;
    }

    TensorId batchnorm(const std::string& label, TensorId x) {
        const Shape in = m_g.tensor(x).shape;
        // Not on any autocast list: cuDNN's batch norm takes a 16-bit input with fp32
        // parameters and returns the input's dtype.
        TensorId y = activation(label, m_g.tensor(x).dtype, in);
        TensorId mean = activation(label + ".mean", DType::F32, {in[0]}, false, false);
        TensorId invstd = activation(label + ".invstd", DType::F32, {in[0]}, false, false);
        Op op;
        op.kind = OpKind::BatchNorm2d;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y, mean, invstd};
        op.params = {param(label + ".weight", {in[0]}), param(label + ".bias", {in[0]})};
        op.saved = {x, mean, invstd};
        op.attrs.in = in[0];
        Affine io = bytesOf(x) + bytesOf(y);
        op.forward = elementwise(elemsOf(y), 6, io + bytesOf(x));
        op.backward = elementwise(elemsOf(y), 10, io + bytesOf(x) + bytesOf(x));
        addOp(std::move(op));
        return y;
    }

    TensorId maxpool(const std::string& label, TensorId x, std::int64_t k, std::int64_t stride,
                     std::int64_t padding) {
        const Shape in = m_g.tensor(x).shape;
        const std::int64_t ho = (in[1] + 2 * padding - k) / stride + 1;
        const std::int64_t wo = (in[2] + 2 * padding - k) / stride + 1;
        TensorId y = activation(label, m_g.tensor(x).dtype, {in[0], ho, wo});
        TensorId idx = activation(label + ".indices", DType::I64, {in[0], ho, wo}, true, false);
        Op op;
        op.kind = OpKind::MaxPool2d;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y, idx};
        op.saved = {x, idx};
        op.attrs.kernel = k;
        op.attrs.stride = stride;
        op.attrs.padding = padding;
        Affine io = bytesOf(x) + bytesOf(y) + bytesOf(idx);
        op.forward = elementwise(elemsOf(y), double(k) * double(k), io);
        op.backward = elementwise(elemsOf(y), 1, io + bytesOf(x));
        addOp(std::move(op));
        return y;
    }

    TensorId residualBlock(const Layer& l, TensorId x) {
        const Shape in = m_g.tensor(x).shape;
        const bool bottleneck = l.variant == ResidualVariant::Bottleneck;
        const std::int64_t outC = bottleneck ? 4 * l.channels : l.channels;
        TensorId h;
        // torchvision's blocks: ReLU(inplace=True) and `out += identity`, both in place on a
        // batchnorm output that nothing saved (batchnorm saves its input).
        if (bottleneck) {
            h = conv("conv1", x, l.channels, 1, 1, 0, false);
            h = unary(OpKind::Relu, "relu1", batchnorm("bn1", h), true);
            h = conv("conv2", h, l.channels, 3, l.stride, 1, false);
            h = unary(OpKind::Relu, "relu2", batchnorm("bn2", h), true);
            h = batchnorm("bn3", conv("conv3", h, outC, 1, 1, 0, false));
        } else {
            h = conv("conv1", x, l.channels, 3, l.stride, 1, false);
            h = unary(OpKind::Relu, "relu1", batchnorm("bn1", h), true);
            h = batchnorm("bn2", conv("conv2", h, l.channels, 3, 1, 1, false));
        }
        TensorId shortcut = x;
        if (l.stride != 1 || in[0] != outC) {
            push("shortcut", "shortcut");
            shortcut = batchnorm("bn", conv("conv", x, outC, 1, l.stride, 0, false));
            pop();
        }
        TensorId sum = binary(OpKind::Add, "add", h, shortcut, true);
        return unary(OpKind::Relu, "relu", sum, true);
    }

    TensorId embedding(const Layer& l, TensorId tokens) {
        // Under tensor parallelism each rank holds a vocabulary slice and the partial lookups
        // are summed (all-reduce), or reduce-scattered along the sequence with sequence
        // parallelism.
        const std::int64_t t = m_net.input.tokens, tp = m_shard.tp;
        // A lookup in the weight: its dtype (fp32 under autocast, not on any list).
        TensorId y = activation("embed", m_paramType, {t / m_seq, l.dim});
        Op op;
        op.kind = OpKind::Embedding;
        op.name = opName("embed");
        op.inputs = {tokens};
        op.outputs = {y};
        m_tokenEmbedding = param("wte", {m_net.input.vocab / tp, l.dim});
        if (tp > 1) {
            const Affine full = scaled(bytesOf(y), m_seq);
            if (m_seq > 1) {
                op.commForward[0] = {CollectiveKind::ReduceScatter, CommGroup::Tensor, full};
                op.commBackward[0] = {CollectiveKind::AllGather, CommGroup::Tensor, full};
                op.workspaceForward = full;
            } else {
                op.commForward[0] = {CollectiveKind::AllReduce, CommGroup::Tensor, full};
            }
        }
        op.params = {m_tokenEmbedding};
        if (l.positions > 0) op.params.push_back(param("wpe", {l.positions, l.dim}));
        // Token types (BERT's segment ids): one more lookup added to the sum. The ids are
        // transformers' default, all 0, a registered buffer expanded over the batch: no memory
        // per sample, and the lookup saves that view only.
        if (l.tokenTypes > 0) op.params.push_back(param("wtt", {l.tokenTypes, l.dim}));
        op.saved = {tokens};
        op.attrs.vocab = m_net.input.vocab;
        op.attrs.positions = l.positions;
        op.attrs.tokenTypes = l.tokenTypes;
        op.attrs.tokens = t;
        op.attrs.out = l.dim;
        Affine io = bytesOf(tokens) + bytesOf(y) + bytesOf(y);
        if (l.tokenTypes > 0) io += bytesOf(y) + bytesOf(y);  // the type rows read, one more sum
        op.forward = elementwise(elemsOf(y), l.tokenTypes > 0 ? 2 : 1, io);
        op.backward = elementwise(elemsOf(y), l.tokenTypes > 0 ? 2 : 1, io + bytesOf(y));
        addOp(std::move(op));
        return dropout("dropout", y, l.dropout);
    }

    // ViT's embeddings (transformers' ViTEmbeddings): a convolution with kernel = stride =
    // patch, its output read as tokens (flatten(2).transpose(1, 2): a view), the class token
    // prepended (torch.cat: a new tensor), the learned positions added and dropout. The conv
    // saves its input (the image) and weight; cat and add save nothing; the cat's result lives
    // only until the add has read it: the patch_tokens op's forward workspace.
    TensorId patchEmbedding(const Layer& l, TensorId x) {
        TensorId c = conv("conv", x, l.dim, l.kernel, l.kernel, 0, true);
        const Tensor ct = m_g.tensor(c);
        const std::int64_t patches = ct.shape[1] * ct.shape[2];
        const std::int64_t tokens = patches + (l.classToken ? 1 : 0);
        std::vector<TensorId> params;
        if (l.classToken) params.push_back(param("cls_token", {l.dim}));
        params.push_back(param("position_embeddings", {tokens, l.dim}));
        // Under autocast the 16-bit patches meet fp32 parameters: cat and add promote to fp32,
        // as the embedding lookup's residual stream is fp32.
        const DType outType = m_autocast ? m_paramType : ct.dtype;
        TensorId y = activation("tokens", outType, {tokens, l.dim});
        Op op;
        op.kind = OpKind::PatchTokens;
        op.name = opName("tokens");
        op.inputs = {c};
        op.outputs = {y};
        op.params = params;
        op.attrs.tokens = tokens;
        op.attrs.out = l.dim;
        op.attrs.classToken = l.classToken;
        if (l.classToken) op.workspaceForward = bytesOf(y);
        Affine io = bytesOf(c) + bytesOf(y) + bytesOf(y);
        if (l.classToken) io += bytesOf(y) + bytesOf(y);  // cat writes, the add reads it
        op.forward = elementwise(elemsOf(y), 1, io);
        op.backward = elementwise(elemsOf(y), 1, bytesOf(y) + bytesOf(c) + bytesOf(y));
        addOp(std::move(op));
        return dropout("dropout", y, l.dropout);
    }

    // `x[:, 0]`: a view of the first token (no memory, no work). Whatever saves the view keeps
    // its base alive (autograd saves the view, whose storage is the base's); backward makes the
    // gradient of the whole input, zeros but for token 0 (select_backward).
    TensorId selectToken(TensorId x) {
        const Tensor in = m_g.tensor(x);
        TensorId y = activation("select", in.dtype, {in.shape.back()}, in.batched);
        m_g.tensors[y.index()].storage = in.storage;
        Op op;
        op.kind = OpKind::SelectToken;
        op.name = opName("select");
        op.inputs = {x};
        op.outputs = {y};
        op.attrs.tokens = in.shape.front();
        op.attrs.out = in.shape.back();
        op.backward = elementwise(elemsOf(x), 0, bytesOf(x) + bytesOf(y));
        addOp(std::move(op));
        return y;
    }

    TensorId loss(LayerKind kind, TensorId x) {
        if (kind == LayerKind::CrossEntropy && m_head.held) return chunkedCrossEntropy(x);
        if (kind == LayerKind::Mse && m_autocast) x = castTo(x, DType::F32, "input_cast");
        const Tensor in = m_g.tensor(x);
        TensorId lossT = activation("loss", DType::F32, {}, false, true);
        Op op;
        op.name = opName(kind == LayerKind::CrossEntropy ? "cross_entropy" : "mse");
        if (kind == LayerKind::CrossEntropy) {
            const std::int64_t v = in.shape.back();
            Shape rowShape(in.shape.begin(), in.shape.end() - 1);
            TensorId targets = input("targets", DType::I64, rowShape);
            // Log-probabilities: fp32, but for pure bf16, where log_softmax runs in the
            // logits' dtype.
            const DType logpType = m_precision == Precision::Bf16 ? DType::BF16 : DType::F32;
            TensorId logp = activation("log_probs", logpType, in.shape, true, false);
            op.kind = OpKind::CrossEntropy;
            op.inputs = {x, targets};
            op.outputs = {lossT, logp};
            op.saved = {logp, targets};
            op.attrs.vocab = v;
            if (m_shard.tp > 1 &&
                v * m_shard.tp == (m_shard.vocab > 0 ? m_shard.vocab : m_net.input.vocab)) {
                // Vocabulary-parallel cross-entropy: the row maximum, the sum of exponentials
                // and the target logit are all-reduced (fp32, one each per row).
                const Affine rows{satMul(satMul(elemsOf(x).perSample / v, 3), 4), 0};
                op.commForward[0] = {CollectiveKind::AllReduce, CommGroup::Tensor, rows};
            }
            // Megatron-style mixed precision copies the 16-bit logits to fp32 first
            // (`output.float()`: a transient the size of the logits in fp32). Its backward runs
            // as autograd does: NllLossBackward makes the fp32 gradient of the log-probabilities,
            // LogSoftmaxBackward the fp32 gradient of the copy while the saved log-probabilities
            // are alive: three fp32 tensors at once. Both are then freed and ToCopyBackward casts
            // the fp32 gradient into the 16-bit one. The op is one instruction, which binds the
            // log-probabilities and the logits' gradient, so its workspace is what that peak
            // holds beyond them. Autocast instead runs log_softmax on the 16-bit logits with an
            // fp32 result (fp32_set_opt_dtype, no copy) and its backward writes the 16-bit
            // gradient directly: only the gradient of the log-probabilities; fp32 and pure bf16
            // the same in their dtype.
            const std::int64_t logpBytes = satMul(in.elements(), dtypeBytes(logpType));
            const std::int64_t f32 = satMul(in.elements(), 4);
            const std::int64_t grad = satMul(in.elements(), dtypeBytes(in.dtype));
            // (`.float()` of logits already fp32 returns them: no copy.)
            const bool copy = hasMasterWeights(m_precision) && in.dtype != DType::F32;
            op.workspaceForward = {copy ? f32 : 0, 0};
            op.workspaceBackward = {copy ? std::max(3 * f32, f32 + grad) - f32 - grad : logpBytes, 0};
            Affine io = bytesOf(x) + bytesOf(logp);
            op.forward = elementwise(elemsOf(logp), 5, io + bytesOf(logp));
            op.backward = elementwise(elemsOf(logp), 4, io + bytesOf(logp) + bytesOf(x));
        } else {
            // The target is data as loaded: fp32 under autocast (mse_loss is on its fp32 list,
            // so a 16-bit input is cast to fp32 first, above).
            TensorId target = input("target", dataDType(), in.shape);
            op.kind = OpKind::Mse;
            op.inputs = {x, target};
            op.outputs = {lossT};
            op.saved = {x, target};
            Affine io = bytesOf(x) + bytesOf(target);
            op.forward = elementwise(elemsOf(x), 3, io);
            op.backward = elementwise(elemsOf(x), 3, io + bytesOf(x));
        }
        addOp(std::move(op));
        m_g.loss = lossT;
        return lossT;
    }

    // ---- precision -------------------------------------------------------------------------
    // Dense input data (images, regression targets): fp32 under autocast (the data loader's
    // tensors are not cast), else in the model's activation dtype.
    DType dataDType() const { return m_autocast ? DType::F32 : m_act; }

    // `x` converted to `dtype` by a cast op (autocast's cast kernels), or `x` itself when it
    // has that dtype. The copy is what the consuming op saves; backward casts the gradient back.
    TensorId castTo(TensorId x, DType dtype, const std::string& label) {
        const Tensor in = m_g.tensor(x);
        if (!m_autocast || in.dtype == dtype) return x;
        TensorId y = activation(label, dtype, in.shape, in.batched, in.requiresGrad);
        Op op;
        op.kind = OpKind::Cast;
        op.name = opName(label);
        op.inputs = {x};
        op.outputs = {y};
        op.forward = elementwise(elemsOf(y), 1, bytesOf(x) + bytesOf(y));
        op.backward = elementwise(elemsOf(y), 1, bytesOf(x) + bytesOf(y));
        addOp(std::move(op));
        return y;
    }

    // A GEMM op's weights: under autocast the 16-bit copies are operands it saves (with its
    // input), else the parameters themselves, with only the input saved.
    void bindWeights(Op& op, TensorId x, const std::vector<TensorId>& params,
                     const std::vector<TensorId>& weights) const {
        if (m_autocast) {
            op.inputs.insert(op.inputs.end(), weights.begin(), weights.end());
            op.saved = {x, weights[0]};
        } else {
            op.params = params;
            op.saved = {x};
        }
    }

    // Under autocast, the 16-bit copies of an op's fp32 parameters, made by one cast op
    // (`label.weight_cast`); else the parameters themselves. The cast's backward converts the
    // copies' gradients into the parameters' fp32 gradients.
    std::vector<TensorId> castParams(const std::string& label, const std::vector<TensorId>& params) {
        if (!m_autocast) return params;
        Op op;
        op.kind = OpKind::Cast;
        op.name = opName(label + ".weight_cast");
        op.params = params;
        Affine io;
        std::int64_t elements = 0;
        for (TensorId p : params) {
            // A copy: making the cast's output grows the tensor list under a reference.
            const Tensor pt = m_g.tensor(p);
            const std::string base = pt.name.substr(pt.name.rfind('/') + 1);
            TensorId c = activation(base + "_cast", m_act, pt.shape, false, true);
            op.outputs.push_back(c);
            io += bytesOf(p) + bytesOf(c);
            elements = satAdd(elements, pt.elements());
        }
        op.forward = elementwise({0, elements}, 1, io);
        op.backward = elementwise({0, elements}, 1, io);
        std::vector<TensorId> copies = op.outputs;
        addOp(std::move(op));
        return copies;
    }

    // ---- chunked cross-entropy ---------------------------------------------------------------
    // The linear before a chunked cross-entropy: its parameters are made here, in its own
    // module, and the loss's fused op computes it (the layer's output passes through).
    Result<TensorId> holdHead(const Layer& l, TensorId x, int inst) {
        const std::int64_t inF = m_g.tensor(x).shape.back();
        m_head = {};
        m_head.held = true;
        m_head.out = l.out;
        const bool tied = m_net.tieEmbeddings && m_tokenEmbedding.valid() &&
                          static_cast<std::size_t>(inst) + 2 ==
                              static_cast<std::size_t>(expandedLayerCount(m_net));
        if (tied) {
            const Shape& w = m_g.tensor(m_tokenEmbedding).shape;
            if (l.out != w[0] || inF != w[1])
                return makeError("layer " + std::to_string(inst) +
                                 " (linear): tie_embeddings needs out = vocab and in = the "
                                 "embedding width");
            m_head.params = {m_tokenEmbedding};
        } else {
            m_head.params = {param("linear.weight", {l.out, inF})};
        }
        if (l.bias) m_head.params.push_back(param("linear.bias", {l.out}));
        return x;
    }

    // The head's linear and the cross-entropy as one op over chunks of kLossChunkRows rows
    // (Wijmans et al. 2024, "Cut Your Losses in Large-Vocabulary Language Models"; Liger
    // Kernel's fused linear cross-entropy): forward computes each chunk's logits and keeps only
    // each row's log-sum-exp (fp32); backward recomputes each chunk's logits and accumulates
    // the input and weight gradients. Saves the hidden states, the log-sum-exp and the
    // targets; the logits never exist for more than one chunk.
    TensorId chunkedCrossEntropy(TensorId x) {
        m_head.held = false;
        x = castTo(x, m_act, "input_cast");
        std::vector<TensorId> weights = castParams("linear", m_head.params);
        const Tensor in = m_g.tensor(x);
        const std::int64_t h = in.shape.back(), v = m_head.out;
        Shape rowShape(in.shape.begin(), in.shape.end() - 1);
        if (rowShape.empty()) rowShape = {1};
        const std::int64_t rows = in.elements() / h;  // per sample
        TensorId targets = input("targets", DType::I64, rowShape);
        TensorId lossT = activation("loss", DType::F32, {}, false, true);
        TensorId lse = activation("lse", DType::F32, rowShape, true, false);
        Op op;
        op.kind = OpKind::LinearCrossEntropy;
        op.name = opName("linear_cross_entropy");
        op.inputs = {x, targets};
        op.outputs = {lossT, lse};
        if (m_autocast) op.inputs.insert(op.inputs.end(), weights.begin(), weights.end());
        else op.params = m_head.params;
        op.saved = {x, lse, targets};
        if (m_autocast) op.saved.push_back(weights[0]);
        op.attrs.in = h;
        op.attrs.out = v;
        op.attrs.vocab = v;
        op.attrs.bias = m_head.params.size() > 1;
        op.attrs.tokens = rows;
        op.attrs.chunkRows = kLossChunkRows;
        // Per element of a chunk's logits: forward the logits (b bytes) and, when 16-bit, their
        // fp32 form for the log-sum-exp; backward the recomputed logits, the fp32 softmax
        // turned in place into the gradient and, when 16-bit, that gradient cast back for the
        // two GEMMs.
        const std::int64_t b = dtypeBytes(in.dtype);
        const std::int64_t fwdPerElement = b == 4 ? 4 : b + 4;
        const std::int64_t bwdPerElement = b == 4 ? 8 : 2 * b + 4;
        const std::int64_t logits = satMul(rows, v);
        op.workspaceForward = {satMul(logits, fwdPerElement), 0};
        op.workspaceBackward = {satMul(logits, bwdPerElement), 0};
        const std::int64_t gemm = satProduct({2, rows, h, v});
        op.forward.matmul = op.backward.matmul = true;
        op.forward.flops = {satAdd(gemm, satMul(5, logits)), 0};
        op.backward.flops = {satAdd(satMul(3, gemm), satMul(4, logits)), 0};
        const Affine w = bytesOf(weights[0]);
        const Affine chunkTraffic = {satMul(2, satMul(logits, fwdPerElement)), 0};
        op.forward.bytesMoved = bytesOf(x) + w + bytesOf(lse) + chunkTraffic;
        op.backward.bytesMoved = bytesOf(x) + bytesOf(x) + w + w + bytesOf(lse) +
                                 Affine{satMul(2, satMul(logits, bwdPerElement)), 0};
        addOp(std::move(op));
        m_g.loss = lossT;
        return lossT;
    }

    Result<TensorId> lowerLayer(const Layer& l, TensorId x, const Shape& shapeIn, int inst) {
        switch (l.kind) {
            case LayerKind::Linear: {
                bool isHead = m_net.tieEmbeddings && m_tokenEmbedding.valid() &&
                              static_cast<std::size_t>(inst) + 2 ==
                                  static_cast<std::size_t>(expandedLayerCount(m_net));
                // The output head is split by vocabulary under tensor parallelism.
                const std::int64_t vocab = m_shard.vocab > 0 ? m_shard.vocab : m_net.input.vocab;
                const bool vocabSplit = m_shard.tp > 1 && vocab > 0 && l.out == vocab;
                const std::int64_t out = vocabSplit ? l.out / m_shard.tp : l.out;
                const Split split = vocabSplit ? Split::Column : Split::None;
                if (isHead) {
                    const Shape& w = m_g.tensor(m_tokenEmbedding).shape;
                    if (out != w[0] || shapeIn.back() != w[1])
                        return makeError("layer " + std::to_string(inst) +
                                         " (linear): tie_embeddings needs out = vocab and in = "
                                         "the embedding width");
                    return linear("linear", x, out, l.bias, m_tokenEmbedding, split);
                }
                return linear("linear", x, out, l.bias, TensorId::invalid(), split);
            }
            case LayerKind::Relu: return unary(OpKind::Relu, "relu", x, l.inplace);
            case LayerKind::Gelu: return unary(OpKind::Gelu, "gelu", x, l.inplace);
            case LayerKind::Silu: return unary(OpKind::Silu, "silu", x, l.inplace);
            case LayerKind::Tanh: return unary(OpKind::Tanh, "tanh", x, l.inplace);
            case LayerKind::Sigmoid: return unary(OpKind::Sigmoid, "sigmoid", x, l.inplace);
            case LayerKind::Softmax: return unary(OpKind::Softmax, "softmax", x);
            case LayerKind::LayerNorm: return norm(NormKind::LayerNorm, "layernorm", x);
            case LayerKind::RmsNorm: return norm(NormKind::RmsNorm, "rmsnorm", x);
            case LayerKind::Dropout: return dropout("dropout", x, l.p, l.inplace);
            case LayerKind::Embedding: return embedding(l, x);
            case LayerKind::Conv2d:
                return conv("conv", x, l.outChannels, l.kernel, l.stride, l.padding, l.bias,
                            l.dilation, l.groups);
            case LayerKind::BatchNorm2d: return batchnorm("batchnorm", x);
            case LayerKind::MaxPool2d: return maxpool("maxpool", x, l.kernel, l.stride, l.padding);
            case LayerKind::GlobalAvgPool: {
                const Shape in = m_g.tensor(x).shape;
                TensorId y = activation("avgpool", m_g.tensor(x).dtype, {in[0], 1, 1});
                Op op;
                op.kind = OpKind::GlobalAvgPool;
                op.name = opName("avgpool");
                op.inputs = {x};
                op.outputs = {y};
                op.saved = {x};
                op.forward = elementwise(elemsOf(x), 1, bytesOf(x) + bytesOf(y));
                op.backward = elementwise(elemsOf(x), 1, bytesOf(x) + bytesOf(y));
                addOp(std::move(op));
                return y;
            }
            case LayerKind::Flatten: {
                const Tensor in = m_g.tensor(x);
                TensorId y = activation("flatten", in.dtype, {in.elements()});
                m_g.tensors[y.index()].storage = in.storage;
                m_g.tensors[y.index()].viewOf = x;
                Op op;
                op.kind = OpKind::Flatten;
                op.name = opName("flatten");
                op.inputs = {x};
                op.outputs = {y};
                addOp(std::move(op));
                return y;
            }
            case LayerKind::Attention: return attention(l, x);
            case LayerKind::Mlp: return mlp(l, x);
            case LayerKind::TransformerBlock: return transformerBlock(l, x);
            case LayerKind::ResidualBlock: return residualBlock(l, x);
            case LayerKind::CrossEntropy:
            case LayerKind::Mse: return loss(l.kind, x);
            case LayerKind::PatchEmbedding: return patchEmbedding(l, x);
            case LayerKind::SelectToken: return selectToken(x);
        }
        return makeError("unknown layer kind");
    }

    static constexpr __int128 kMaxTensorElements = __int128(1) << 40;
    static constexpr std::size_t kMaxOps = 100000;
    static constexpr std::int64_t kMaxOpCost = std::int64_t{1} << 60;

    const Network& m_net;
    DType m_act;        // 16-bit ops' (every op's but under autocast) activation dtype
    DType m_paramType;  // parameters' dtype
    bool m_autocast;
    Precision m_precision;
    LossImpl m_lossImpl;
    ShardOptions m_shard;
    std::int64_t m_seq = 1;  // sequence split of the layers outside the tensor-parallel GEMMs
    // The head linear a chunked cross-entropy fuses (holdHead).
    struct HeldHead {
        bool held = false;
        std::int64_t out = 0;
        std::vector<TensorId> params;
    } m_head;
    std::string m_error;
    Graph m_g;
    std::vector<ModuleId> m_stack;
    TensorId m_tokenEmbedding;
};

}  // namespace

Result<Graph> lower(const Network& net, const TrainingConfig& training,
                    const ShardOptions& shard) {
    return Lowerer(net, training, shard).run();
}

Result<Graph> lower(const Network& net, Precision precision) {
    TrainingConfig training;
    training.precision = precision;
    return lower(net, training);
}

Affine opWorkspace(const Op& op, bool backward, std::int64_t microBatch) {
    const Affine w = backward ? op.workspaceBackward : op.workspaceForward;
    const std::int64_t rowsPerSample = op.attrs.tokens;
    if (op.attrs.chunkRows <= 0 || rowsPerSample <= 0 || w.perSample == 0) return w;
    if (satMul(rowsPerSample, microBatch) <= op.attrs.chunkRows) return w;
    return {0, satMul(w.perSample / rowsPerSample, op.attrs.chunkRows)};
}

std::string_view opKindName(OpKind k) {
    switch (k) {
        case OpKind::Linear: return "linear";
        case OpKind::Relu: return "relu";
        case OpKind::Gelu: return "gelu";
        case OpKind::Silu: return "silu";
        case OpKind::Tanh: return "tanh";
        case OpKind::Sigmoid: return "sigmoid";
        case OpKind::Softmax: return "softmax";
        case OpKind::LayerNorm: return "layernorm";
        case OpKind::RmsNorm: return "rmsnorm";
        case OpKind::Dropout: return "dropout";
        case OpKind::Mul: return "mul";
        case OpKind::Add: return "add";
        case OpKind::Embedding: return "embedding";
        case OpKind::AttnScores: return "attention_scores";
        case OpKind::AttnContext: return "attention_context";
        case OpKind::ExpandKv: return "expand_kv";
        case OpKind::FlashAttn: return "flash_attention";
        case OpKind::Conv2d: return "conv2d";
        case OpKind::BatchNorm2d: return "batchnorm2d";
        case OpKind::MaxPool2d: return "maxpool2d";
        case OpKind::GlobalAvgPool: return "global_avg_pool";
        case OpKind::Flatten: return "flatten";
        case OpKind::CrossEntropy: return "cross_entropy";
        case OpKind::Mse: return "mse";
        case OpKind::Cast: return "cast";
        case OpKind::LinearCrossEntropy: return "linear_cross_entropy";
        case OpKind::PatchTokens: return "patch_tokens";
        case OpKind::SelectToken: return "select_token";
        case OpKind::Rotary: return "rotary";
    }
    return "?";
}

ModuleId Graph::findModule(const std::string& path) const {
    for (std::size_t i = 0; i < modules.size(); ++i)
        if (modules[i].path == path) return ModuleId(static_cast<std::uint32_t>(i));
    return ModuleId::invalid();
}

}  // namespace remat
