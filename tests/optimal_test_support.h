// Generators shared by the optimal planners' tests: small random networks whose chain elements
// differ in width and kind (MLPs of linear + activation layers, with norms, dropout, in-place
// activations and views; heterogeneous transformer stacks; small residual networks), random
// training settings, a device with a non-trivial roofline, and exhaustive enumeration of the
// single-level plans of a chain.
#pragma once

#include <QtTest/QtTest>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis.h"
#include "compiler.h"
#include "lower.h"
#include "network.h"
#include "optimal_model.h"
#include "simulator.h"
#include "training_rules.h"

namespace remat::test {

// Round peaks so that memory-bound and compute-bound ops both occur at the tests' sizes.
inline DeviceSpec optimalTestDevice() {
    DeviceSpec d;
    d.id = "test";
    d.name = "test device";
    d.memoryBytes = std::int64_t{1} << 40;
    d.peakFp32 = 2e12;
    d.peakTf32 = d.peakBf16 = d.peakFp16 = 8e12;
    d.bandwidthBytesPerS = 1e11;
    d.launchOverheadS = 2e-6;
    d.gemmWorkspaceBytes = 4096;
    return d;
}

inline Layer layerOf(LayerKind k) {
    Layer l;
    l.kind = k;
    return l;
}

// An MLP of `elements` chain elements: linear layers of random widths, each usually followed
// by an activation (sometimes in place), with norms, dropout and a view mixed in.
inline Network randomMlp(std::mt19937& rng, int elements, bool allowInPlace = true) {
    std::uniform_int_distribution<int> width(3, 40), pick(0, 99);
    Network net;
    net.name = "random-mlp";
    net.input.shape = {width(rng)};
    bool lastWasLinear = false;
    while (int(net.layers.size()) < elements) {
        const int p = pick(rng);
        if (!lastWasLinear || p < 30) {
            Layer l = layerOf(LayerKind::Linear);
            l.out = width(rng);
            l.bias = pick(rng) < 70;
            net.layers.push_back(l);
            lastWasLinear = true;
            continue;
        }
        lastWasLinear = false;
        Layer l;
        if (p < 45)
            l = layerOf(LayerKind::Relu);
        else if (p < 55)
            l = layerOf(LayerKind::Gelu);
        else if (p < 62)
            l = layerOf(LayerKind::Tanh);
        else if (p < 68)
            l = layerOf(LayerKind::Sigmoid);
        else if (p < 74)
            l = layerOf(LayerKind::Silu);
        else if (p < 82)
            l = layerOf(LayerKind::LayerNorm);
        else if (p < 88)
            l = layerOf(LayerKind::RmsNorm);
        else {
            l = layerOf(LayerKind::Dropout);
            l.p = 0.1;
        }
        // In place only where the op saves its output (as ReLU(inplace=True) is used): gelu
        // and silu save their input, so writing over it is unsafe with or without a plan.
        const bool savesOutput =
            l.kind == LayerKind::Relu || l.kind == LayerKind::Tanh || l.kind == LayerKind::Sigmoid;
        if (allowInPlace && savesOutput && pick(rng) < 35) l.inplace = true;
        net.layers.push_back(l);
    }
    net.layers.push_back(layerOf(LayerKind::Mse));
    return net;
}

// An MLP whose chain elements are all the same linear layer (Revolve's homogeneous chain).
inline Network homogeneousMlp(int elements, std::int64_t width) {
    Network net;
    net.name = "homogeneous-mlp";
    net.input.shape = {width};
    for (int i = 0; i < elements; ++i) {
        Layer l = layerOf(LayerKind::Linear);
        l.out = width;
        net.layers.push_back(l);
    }
    net.layers.push_back(layerOf(LayerKind::Mse));
    return net;
}

// A token model with `blocks` transformer blocks that differ in MLP width, heads, attention
// kind, gating, norm and dropout.
inline Network randomTransformer(std::mt19937& rng, int blocks) {
    std::uniform_int_distribution<int> pick(0, 99);
    const std::int64_t heads[] = {1, 2, 4};
    Network net;
    net.name = "random-transformer";
    net.input.tokens = 4 + pick(rng) % 8;
    net.input.vocab = 16 + pick(rng) % 32;
    const std::int64_t dim = 8 * (1 + pick(rng) % 3);
    Layer e = layerOf(LayerKind::Embedding);
    e.dim = dim;
    e.positions = net.input.tokens;
    e.dropout = pick(rng) < 50 ? 0.1 : 0.0;
    net.layers.push_back(e);
    for (int b = 0; b < blocks; ++b) {
        Layer t = layerOf(LayerKind::TransformerBlock);
        t.heads = heads[pick(rng) % 3];
        t.kvHeads = pick(rng) < 25 ? 1 : 0;
        t.mlpHidden = dim * (1 + pick(rng) % 4);
        t.activation = pick(rng) < 50 ? Activation::Gelu : Activation::Silu;
        t.gated = pick(rng) < 30;
        t.norm = pick(rng) < 70 ? NormKind::LayerNorm : NormKind::RmsNorm;
        t.attention = pick(rng) < 30 ? AttentionImpl::Flash : AttentionImpl::Eager;
        t.dropout = pick(rng) < 40 ? 0.1 : 0.0;
        t.bias = pick(rng) < 70;
        net.layers.push_back(t);
    }
    net.layers.push_back(layerOf(LayerKind::LayerNorm));
    Layer head = layerOf(LayerKind::Linear);
    head.out = net.input.vocab;
    head.bias = false;
    net.layers.push_back(head);
    net.layers.push_back(layerOf(LayerKind::CrossEntropy));
    return net;
}

// A small image network of residual blocks (in-place adds and ReLUs inside the blocks).
inline Network randomResNet(std::mt19937& rng, int blocks) {
    std::uniform_int_distribution<int> pick(0, 99);
    Network net;
    net.name = "random-resnet";
    net.input.shape = {3, 8, 8};
    Layer c = layerOf(LayerKind::Conv2d);
    c.outChannels = 4;
    c.kernel = 3;
    c.padding = 1;
    c.bias = false;
    net.layers.push_back(c);
    net.layers.push_back(layerOf(LayerKind::BatchNorm2d));
    Layer r = layerOf(LayerKind::Relu);
    r.inplace = true;
    net.layers.push_back(r);
    for (int b = 0; b < blocks; ++b) {
        Layer rb = layerOf(LayerKind::ResidualBlock);
        rb.variant = pick(rng) < 50 ? ResidualVariant::Basic : ResidualVariant::Bottleneck;
        rb.channels = 2 + pick(rng) % 4;
        rb.stride = pick(rng) < 20 ? 2 : 1;
        net.layers.push_back(rb);
    }
    net.layers.push_back(layerOf(LayerKind::GlobalAvgPool));
    net.layers.push_back(layerOf(LayerKind::Flatten));
    Layer fc = layerOf(LayerKind::Linear);
    fc.out = 5;
    net.layers.push_back(fc);
    net.layers.push_back(layerOf(LayerKind::CrossEntropy));
    return net;
}

inline TrainingConfig randomTraining(std::mt19937& rng) {
    std::uniform_int_distribution<int> pick(0, 99);
    TrainingConfig cfg;
    cfg.microBatch = 1 + pick(rng) % 4;
    cfg.accumulationSteps = pick(rng) < 30 ? 2 : 1;
    cfg.precision = pick(rng) < 30 ? Precision::MixedBf16 : Precision::Fp32;
    const Optimizer opts[] = {Optimizer::Sgd, Optimizer::Momentum, Optimizer::AdamW};
    cfg.optimizer = opts[pick(rng) % 3];
    return cfg;
}

// randomTraining with the framework settings drawn too: every precision mode (fp32 main
// gradients among the mixed ones), optimizer implementation, cross-entropy implementation and
// TF32 mode. For the simulator-side tests; the executors run only some of these.
inline TrainingConfig randomFrameworkTraining(std::mt19937& rng) {
    TrainingConfig cfg = randomTraining(rng);
    std::uniform_int_distribution<int> pick(0, 99);
    const Precision precisions[] = {Precision::Fp32,         Precision::MixedBf16,
                                    Precision::MixedFp16,    Precision::AutocastBf16,
                                    Precision::AutocastFp16, Precision::Bf16};
    cfg.precision = precisions[pick(rng) % 6];
    if (hasMasterWeights(cfg.precision) && pick(rng) < 50) cfg.mainGrads = MainGrads::Fp32;
    const Optimizer opts[] = {Optimizer::Sgd, Optimizer::Momentum, Optimizer::Adam,
                              Optimizer::AdamW};
    cfg.optimizer = opts[pick(rng) % 4];
    const OptimizerImpl impls[] = {OptimizerImpl::Fused, OptimizerImpl::Foreach,
                                   OptimizerImpl::ForLoop};
    cfg.optimizerImpl = impls[pick(rng) % 3];
    cfg.lossImpl = pick(rng) < 50 ? LossImpl::Chunked : LossImpl::Standard;
    const Tf32Mode tf32[] = {Tf32Mode::None, Tf32Mode::Conv, Tf32Mode::Matmul, Tf32Mode::All};
    cfg.tf32 = tf32[pick(rng) % 4];
    return cfg;
}

inline Graph lowerOrDie(const Network& net, Precision p) {
    auto g = lower(net, p);
    if (!g) qFatal("lower: %s", g.error().message.c_str());
    return std::move(*g);
}

inline Graph lowerOrDie(const Network& net, const TrainingConfig& cfg) {
    auto g = lower(net, cfg);
    if (!g) qFatal("lower: %s", g.error().message.c_str());
    return std::move(*g);
}

struct Simulated {
    std::int64_t peakBytes = 0;
    double recomputeTimeS = 0.0;
    bool unsafe = false;
};

inline Simulated simulatePlan(const Graph& g, const Plan& plan, const TrainingConfig& cfg,
                              const DeviceSpec& d) {
    auto p = compile(g, plan, cfg, compileOptionsFor(d));
    if (!p) qFatal("compile: %s", p.error().message.c_str());
    Timeline t = simulate(g, *p, d);
    return Simulated{t.peakBytes, t.timeS.recompute, p->unsafe()};
}

// Every single-level plan of the model's units: each chain element kept or in one region of
// consecutive chain elements (gaps inside). `visit` gets the segment list.
// With `safeOnly` false, regions the model refuses to start (an in-place op would overwrite
// their held input) are enumerated too, so a brute force can judge them by compiling.
inline void forEachSingleLevelPlan(
    const ChainModel& m, const std::function<void(const std::vector<UnitSegment>&)>& visit,
    bool safeOnly = true) {
    std::vector<UnitSegment> segs;
    std::function<void(int)> rec = [&](int u) {
        if (u == m.unitCount()) {
            visit(segs);
            return;
        }
        segs.push_back(UnitSegment{u, u, false});
        rec(u + 1);
        segs.pop_back();
        if (m.units()[std::size_t(u)].kind != UnitKind::ChainElement) return;
        if (safeOnly && !m.canStartRegion(u)) return;
        for (int j = u; j < m.unitCount() && m.regionMember(j); ++j) {
            if (!m.canEndRegion(j)) continue;
            segs.push_back(UnitSegment{u, j, true});
            rec(j + 1);
            segs.pop_back();
        }
    };
    rec(0);
}

inline bool closeTime(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}) + 1e-15;
}

}  // namespace remat::test
