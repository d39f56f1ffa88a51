#include "fit.h"

#include <algorithm>
#include <cmath>

#include "lower.h"
#include "parallel_eval.h"
#include "report.h"

namespace remat {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
    std::vector<std::int64_t> out;
    for (std::int64_t d = 1; d * d <= n; ++d)
        if (n % d == 0) {
            out.push_back(d);
            if (d != n / d) out.push_back(n / d);
        }
    std::sort(out.begin(), out.end());
    return out;
}

// Micro-batch sizes tried for `samples` per data-parallel rank: the divisors that are powers
// of two, and the whole.
std::vector<std::int64_t> microBatches(std::int64_t samples) {
    std::vector<std::int64_t> out;
    for (std::int64_t b = 1; b <= samples; b *= 2)
        if (samples % b == 0) out.push_back(b);
    if (out.back() != samples) out.push_back(samples);
    return out;
}

struct ModelFacts {
    std::int64_t transformerBlocks = 0;
    std::int64_t chain = 0;  // blocks a pipeline splits
    bool eager = false;
    bool tokens = false;
    std::int64_t sequence = 0;
};

ModelFacts factsOf(const Network& net) {
    ModelFacts f;
    for (std::size_t src : expandedLayerSources(net)) {
        const Layer& l = net.layers[src];
        if (l.kind == LayerKind::TransformerBlock) {
            ++f.transformerBlocks;
            f.eager = f.eager || l.attention == AttentionImpl::Eager;
        }
        if (isBlock(l.kind)) ++f.chain;
    }
    f.tokens = net.input.isTokens();
    f.sequence = net.input.tokens;
    return f;
}

std::vector<Strategy> fitStrategies(const ModelFacts& f) {
    std::vector<Strategy> out;
    Strategy none;
    out.push_back(none);
    if (f.eager && f.transformerBlocks > 0) {
        Strategy sel;
        sel.kind = StrategyKind::Selective;
        sel.kinds = {"attention_core"};
        out.push_back(sel);
    }
    if (f.chain >= 4) {
        Strategy every;
        every.kind = StrategyKind::EveryK;
        every.k = 2;
        out.push_back(every);
    }
    Strategy full;
    full.kind = StrategyKind::Full;
    out.push_back(full);
    return out;
}

struct Family {
    std::int64_t tp = 1, pp = 1, cp = 1, dp = 1;
};

std::string familyName(const Family& f) {
    ParallelConfig p;
    p.tp = f.tp;
    p.pp = f.pp;
    p.cp = f.cp;
    p.dp = f.dp;
    p.sequenceParallel = f.tp > 1;
    return describeLayout(p);
}

struct Search {
    const Network& net;
    const TrainingConfig& base;
    const ClusterSpec& cluster;
    const CancelFlag* cancel;
    bool reference = false;
    ModelFacts facts;
    std::vector<Strategy> strategies;
    ModelFlops flops;
    std::int64_t evaluated = 0;

    std::vector<Family> families(std::int64_t gpus) const {
        std::vector<Family> out;
        for (std::int64_t tp : divisors(gpus)) {
            if (tp > cluster.gpusPerNode) continue;
            if (tp > 1 && facts.transformerBlocks == 0) continue;
            for (std::int64_t pp : divisors(gpus / tp)) {
                if (pp > 1 && (facts.chain == 0 || facts.chain % pp != 0)) continue;
                std::vector<std::int64_t> cps{1};
                // Context parallelism for long sequences only (Megatron-LM uses it from 8K
                // tokens on), with flash attention.
                if (facts.transformerBlocks > 0 && !facts.eager && facts.sequence >= 8192)
                    for (std::int64_t cp : {2, 4, 8}) cps.push_back(cp);
                for (std::int64_t cp : cps) {
                    if ((gpus / tp / pp) % cp != 0) continue;
                    Family f{tp, pp, cp, gpus / tp / pp / cp};
                    out.push_back(f);
                }
            }
        }
        return out;
    }

    // The best fitting candidates of one family and the reason it fails when none fits.
    void searchFamily(const Family& f, std::int64_t globalBatch, bool offload,
                      std::vector<FitCandidate>& found, std::string& why) {
        if (globalBatch % f.dp != 0) {
            why = "the global batch " + std::to_string(globalBatch) +
                  " does not split over dp " + std::to_string(f.dp);
            return;
        }
        const std::int64_t perRank = globalBatch / f.dp;
        std::vector<int> zeros{0};
        // With data parallelism ZeRO-1 holds less than plain data parallelism at the same
        // communication (an all-reduce either way) and a shorter optimizer step: stage 0 is
        // never better, so the search starts at 1.
        if (f.dp > 1) zeros = {1, 2, 3};
        if (offload) zeros = {3};
        // Every strategy and micro-batch of this layout lowers the same stages.
        LoweredStages lowered;
        for (const Strategy& s : strategies) {
            // One preparation per micro-batch serves every ZeRO stage; a stage that fails at
            // a micro-batch is not tried larger.
            std::vector<bool> stopped(zeros.size(), false);
            for (std::int64_t b : microBatches(perRank)) {
                if (cancelRequested(cancel)) return;
                if (std::all_of(stopped.begin(), stopped.end(), [](bool x) { return x; })) break;
                TrainingConfig cfg = base;
                cfg.microBatch = b;
                cfg.accumulationSteps = perRank / b;
                ParallelConfig& p = cfg.parallel;
                p = ParallelConfig{};
                p.tp = f.tp;
                p.sequenceParallel = f.tp > 1;
                p.pp = f.pp;
                p.cp = f.cp;
                p.dp = f.dp;
                p.zeroStage = zeros.front();
                p.offloadOptimizer = offload;
                p.offloadParameters = offload;
                if (!validateLayout(net, p)) break;
                auto prep = prepareParallel(net, s, {}, cfg, cluster, cancel, &flops,
                                            reference ? nullptr : &lowered);
                if (!prep) {
                    if (why.empty()) why = prep.error().message;
                    break;
                }
                for (std::size_t zi = 0; zi < zeros.size(); ++zi) {
                    if (stopped[zi]) continue;
                    p.zeroStage = zeros[zi];
                    ++evaluated;
                    // The reference search evaluates each candidate whole, from the network up.
                    auto e = reference ? evaluateParallel(net, s, {}, cfg, cluster, false, cancel)
                                       : finishParallel(*prep, p, cluster, false, cancel, false);
                    if (!e) {
                        if (why.empty()) why = e.error().message;
                        stopped[zi] = true;
                        continue;
                    }
                    if (!e->fits) {
                        // The leanest attempt's reason stays: the last ZeRO stage and
                        // strategy tried at the smallest micro-batch.
                        if (b == microBatches(perRank).front()) {
                            if (!e->hostFits)
                                why = "offloaded state needs " + formatBytes(e->hostBytesPerNode) +
                                      " of host memory per node, more than its " +
                                      formatBytes(cluster.hostMemoryBytes);
                            else
                                why = "per GPU with ZeRO-" + std::to_string(p.zeroStage) +
                                      " and " + s.spelling() + ", " +
                                      explainNoFit(e->evaluation.timeline, cluster.device);
                        }
                        stopped[zi] = true;  // a larger micro-batch needs more memory still
                        continue;
                    }
                    FitCandidate c;
                    c.layout = p;
                    c.strategy = s;
                    c.microBatch = b;
                    c.accumulation = cfg.accumulationSteps;
                    c.peakBytes = e->evaluation.timeline.peakBytes;
                    c.stepTimeS = e->time.totalS;
                    c.mfu = e->mfu;
                    c.samplesPerS = e->samplesPerS();
                    c.hostBytesPerNode = e->hostBytesPerNode;
                    found.push_back(c);
                }
            }
        }
    }

    // Candidates for `gpus`, best first.
    std::vector<FitCandidate> run(std::int64_t gpus, std::int64_t globalBatch, bool offload,
                                  std::vector<std::string>* rejected) {
        std::vector<FitCandidate> all;
        for (const Family& f : families(gpus)) {
            std::vector<FitCandidate> found;
            std::string why;
            searchFamily(f, globalBatch, offload, found, why);
            if (found.empty() && rejected && !why.empty())
                rejected->push_back(familyName(f) + ": " + why);
            all.insert(all.end(), found.begin(), found.end());
            if (cancelRequested(cancel)) break;
        }
        std::sort(all.begin(), all.end(), [](const FitCandidate& a, const FitCandidate& b) {
            return a.samplesPerS > b.samplesPerS;
        });
        return all;
    }
};

}  // namespace

Result<FitResult> fitSearch(const Network& net, const TrainingConfig& base,
                            const ClusterSpec& cluster, const FitOptions& options,
                            const CancelFlag* cancel) {
    if (options.gpus < 1 || options.gpus > kMaxParallelDegree)
        return makeError("--gpus must be between 1 and " + std::to_string(kMaxParallelDegree));
    FitResult r;
    r.gpus = options.gpus;
    // Default: every GPU's data-parallel share is the model's own micro-batch x accumulation.
    r.globalBatch = options.globalBatch > 0
                        ? options.globalBatch
                        : satMul(satMul(base.microBatch, base.accumulationSteps), options.gpus);
    if (r.globalBatch < 1 || r.globalBatch > (std::int64_t{1} << 30))
        return makeError("--global-batch must be between 1 and 1073741824");
    Search search{net, base, cluster, cancel, options.reference, factsOf(net), {}, {}};
    search.strategies = fitStrategies(search.facts);
    search.flops = modelFlopsOf(net, base);

    auto all = search.run(options.gpus, r.globalBatch, false, &r.rejected);
    if (cancelRequested(cancel)) return makeError(kCancelledMessage);
    r.fits = !all.empty();
    if (all.size() > options.top) all.resize(options.top);
    r.candidates = std::move(all);
    if (!r.fits) {
        // Model states: what no layout without offload can shrink below states / N per GPU.
        auto g = lower(net, base);
        if (!g) return g.error();
        TrainingConfig one = base;
        one.parallel = ParallelConfig{};
        Plan none;
        none.strategy = "none";
        auto p = compile(*g, none, one, compileOptionsFor(cluster.device));
        if (!p) return p.error();
        double states = 0;
        for (const Buffer& b : p->buffers)
            if (b.role == BufferRole::Parameter || b.role == BufferRole::ParamGrad ||
                b.role == BufferRole::MasterWeight || b.role == BufferRole::OptimizerState)
                states += double(b.bytes.fixed);
        const double usable = double(cluster.device.usableBytes());
        const double perParam = g->parameterCount > 0 ? states / double(g->parameterCount) : 0;
        char buf[600];
        const double perGpu = states / double(options.gpus);
        std::snprintf(buf, sizeof buf,
                      "model states alone are %.0f B x %.4g parameters = %s (%s), against %lld x "
                      "%s usable = %s; sharded over all %lld GPUs they would still take %s per "
                      "GPU%s",
                      perParam, double(g->parameterCount),
                      formatBytes(std::int64_t(states), ByteUnits::Decimal).c_str(),
                      formatBytes(std::int64_t(states)).c_str(), (long long)options.gpus,
                      formatBytes(std::int64_t(usable)).c_str(),
                      formatBytes(std::int64_t(usable * double(options.gpus))).c_str(),
                      (long long)options.gpus, formatBytes(std::int64_t(perGpu)).c_str(),
                      perGpu >= usable ? ", more than a GPU holds" : ", before any activation");
        r.modelStatesMessage = buf;
        if (options.searchMinGpus) {
            // The smallest count that fits: whole nodes, counts of the form 2^k and 3 x 2^k
            // (what batch sizes and layer counts divide), from what the states alone need.
            const double need = std::max(double(options.gpus + 1), std::ceil(states / usable));
            std::vector<std::int64_t> counts;
            for (std::int64_t base : {std::int64_t{1}, std::int64_t{3}})
                for (std::int64_t n = base; n <= kMaxParallelDegree; n *= 2)
                    if (double(n) >= need && n % cluster.gpusPerNode == 0) counts.push_back(n);
            std::sort(counts.begin(), counts.end());
            for (std::size_t i = 0; i < counts.size() && i < 12; ++i) {
                auto found = search.run(counts[i], r.globalBatch, false, nullptr);
                if (cancelRequested(cancel)) return makeError(kCancelledMessage);
                if (!found.empty()) {
                    r.minGpus = counts[i];
                    r.minGpusPlan = found.front();
                    break;
                }
            }
        }
        // Offloading optimizer state, master weights, parameters and gradients to host memory
        // (ZeRO-3 with ZeRO-Infinity's CPU offload) on the N GPUs asked for.
        std::vector<std::string> offloadWhy;
        auto off = search.run(options.gpus, r.globalBatch, true, &offloadWhy);
        if (!off.empty()) {
            r.offloadFits = true;
            r.offloadPlan = off.front();
        } else {
            r.offloadMessage = offloadWhy.empty() ? std::string("no layout to try")
                                                  : offloadWhy.front();
        }
    }
    r.evaluated = search.evaluated;
    return r;
}

}  // namespace remat
