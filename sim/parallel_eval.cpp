#include "parallel_eval.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "lower.h"
#include "sharding.h"
#include "simulator_lean.h"
#include "training_rules.h"

namespace remat {
namespace {

// Layers (compact: consecutive instances of one layer entry become one entry with a repeat)
// for the expanded instances [first, first + count).
std::vector<Layer> layerRange(const Network& net, const std::vector<std::size_t>& sources,
                              std::int64_t first, std::int64_t count) {
    std::vector<Layer> out;
    std::size_t lastSource = SIZE_MAX;
    for (std::int64_t i = first; i < first + count; ++i) {
        const std::size_t src = sources[std::size_t(i)];
        if (src == lastSource) {
            ++out.back().repeat;
            continue;
        }
        Layer l = net.layers[src];
        l.repeat = 1;
        out.push_back(std::move(l));
        lastSource = src;
    }
    return out;
}

// Seconds of a program's tensor- and context-parallel collectives (a recompute repeats the
// forward's).
double collectiveSeconds(const Graph& g, const Program& p, const LayoutPlacement& place,
                         const ClusterSpec& c) {
    double total = 0;
    const std::int64_t b = p.microBatch;
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        if (ins.kind != InstrKind::Forward && ins.kind != InstrKind::Recompute &&
            ins.kind != InstrKind::Backward)
            continue;
        const Op& op = g.op(ins.op);
        const auto& calls = ins.kind == InstrKind::Backward ? op.commBackward : op.commForward;
        for (const Collective& k : calls) {
            if (k.kind == CollectiveKind::None) continue;
            const GroupPlacement& grp = k.group == CommGroup::Tensor ? place.tp : place.cp;
            total += collectiveTime(k.kind, k.bytes.atReal(b), grp, c) * double(p.timesRun(i));
        }
    }
    return total;
}

double parameterBytes(const Graph& g) {
    double sum = 0;
    for (TensorId t : g.parameters) sum += double(g.tensor(t).bytes().fixed);
    return sum;
}

// Bytes of the optimizer's fp32 state and master weights per parameter byte of the graph.
double optimizerStateBytes(const Program& p) {
    double sum = 0;
    for (const Buffer& b : p.buffers)
        if (b.role == BufferRole::MasterWeight || b.role == BufferRole::OptimizerState)
            sum += double(b.bytes.fixed);
    return sum;
}

}  // namespace

Result<StageNetwork> stageNetwork(const Network& net, const ParallelConfig& p, std::int64_t stage) {
    StageNetwork out;
    out.shard.tp = p.tp;
    out.shard.sequenceParallel = p.sequenceParallel;
    out.shard.cp = p.cp;
    out.shard.vocab = net.input.vocab;
    out.network = net;
    if (p.cp > 1 && net.input.isTokens()) out.network.input.tokens = net.input.tokens / p.cp;
    const auto sources = expandedLayerSources(net);
    const std::int64_t n = std::int64_t(sources.size());
    out.firstLayer = 0;
    out.layerCount = n;
    if (p.pp <= 1) return out;

    auto shapes = inferShapes(out.network);
    if (!shapes) return shapes.error();
    std::vector<std::int64_t> blocks;
    for (std::int64_t i = 0; i < n; ++i)
        if (isBlock(net.layers[sources[std::size_t(i)]].kind)) blocks.push_back(i);
    const std::int64_t perStage = std::int64_t(blocks.size()) / p.pp;
    if (perStage < 1) return makeError("parallel.pp: fewer blocks than pipeline stages");
    const std::int64_t firstBlock = blocks[std::size_t(stage * perStage)];
    const std::int64_t lastBlock = blocks[std::size_t(stage * perStage + perStage - 1)];
    const std::int64_t from = stage == 0 ? 0 : firstBlock;
    const std::int64_t to = stage == p.pp - 1 ? n - 1 : lastBlock;
    out.firstLayer = from;
    out.layerCount = to - from + 1;
    out.network.layers = layerRange(net, sources, from, to - from + 1);
    out.network.tieEmbeddings = false;  // each end stage holds its own copy (Megatron-LM)
    if (stage > 0) {
        out.network.input = InputSpec{};
        out.network.input.shape = (*shapes)[std::size_t(from)];
        out.shard.receivesActivations = true;
    }
    out.shard.sendsActivations = stage < p.pp - 1;
    out.network.sendsOutput = out.shard.sendsActivations;
    return out;
}

ModelFlops modelFlopsOf(const Network& net, const TrainingConfig& training) {
    ModelFlops f;
    TrainingConfig one = training;
    one.parallel = ParallelConfig{};
    auto full = lower(net, one);
    if (!full) return f;
    for (const Op& op : full->ops) {
        f.perSample += double(op.forward.flops.perSample) + double(op.backward.flops.perSample);
        f.fixed += double(op.forward.flops.fixed) + double(op.backward.flops.fixed);
    }
    return f;
}

Result<PreparedLayout> prepareParallel(const Network& net, const Strategy& s,
                                       const std::vector<RegionSpec>& manual,
                                       const TrainingConfig& cfg, const ClusterSpec& cluster,
                                       const CancelFlag* cancel, const ModelFlops* flops,
                                       LoweredStages* lowered) {
    const ParallelConfig& lay = cfg.parallel;
    if (auto st = validateLayout(net, lay); !st) return st.error();
    if (lay.pp > 1 && s.kind == StrategyKind::Manual && !manual.empty())
        return makeError("parallel.pp: a manual plan names layers of the whole network; with "
                         "pipeline parallelism use a named strategy (full, every:K, sqrt, "
                         "selective, optimal), which each stage applies to its own layers");
    if (lay.tp > 1 && cfg.lossImpl == LossImpl::Chunked)
        return makeError("parallel.tp: the chunked cross-entropy (loss_impl chunked) is not "
                         "modelled with tensor parallelism; use the standard one");
    PreparedLayout out;
    out.cfg = cfg;
    out.flops = flops ? *flops : modelFlopsOf(net, cfg);
    TrainingConfig stageCfg = cfg;
    stageCfg.parallel = ParallelConfig{};
    if (lay.pp > 1) stageCfg.accumulationSteps = 1;  // one micro-batch; the pipeline does the rest
    // Stages with the same layers and ends lower and compile alike: run each kind once.
    std::map<std::tuple<std::int64_t, bool, bool>, std::size_t> cache;
    const LayoutPlacement placement = placeLayout(lay, cluster);
    out.runOf.resize(std::size_t(lay.pp));
    for (std::int64_t st = 0; st < lay.pp; ++st) {
        if (cancelRequested(cancel)) return makeError(kCancelledMessage);
        auto sn = stageNetwork(net, lay, st);
        if (!sn) return sn.error();
        const auto key = std::tuple{st == 0 || st == lay.pp - 1 ? st : -1,
                                    sn->shard.receivesActivations, sn->shard.sendsActivations};
        StageSummary sum;
        sum.stage = st;
        sum.firstLayer = sn->firstLayer;
        sum.layerCount = sn->layerCount;
        sum.inFlight = inFlightMicroBatches(lay, st, cfg.accumulationSteps);
        out.stages.push_back(sum);
        if (auto it = cache.find(key); it != cache.end()) {
            out.runOf[std::size_t(st)] = it->second;
            continue;
        }
        std::shared_ptr<const Graph> graph;
        if (lowered)
            if (auto it = lowered->graphs.find(key); it != lowered->graphs.end()) graph = it->second;
        if (!graph) {
            auto g = lower(sn->network, stageCfg, sn->shard);
            if (!g) return makeError("stage " + std::to_string(st) + ": " + g.error().message);
            graph = std::make_shared<const Graph>(std::move(*g));
            if (lowered) lowered->graphs.emplace(key, graph);
        }
        std::shared_ptr<OpTimeMemo> memo;
        if (lowered) {
            auto& slot = lowered->opTimes[{key, stageCfg.microBatch}];
            if (!slot) slot = std::make_shared<OpTimeMemo>();
            memo = slot;
        } else {
            memo = std::make_shared<OpTimeMemo>();
        }
        Baseline dummy;
        auto e = evaluate(*graph, s, lay.pp > 1 ? std::vector<RegionSpec>{} : manual, stageCfg,
                          cluster.device, &dummy, cancel, memo.get());
        if (!e) return e.error();
        cache.emplace(key, out.runs.size());
        out.runOf[std::size_t(st)] = out.runs.size();
        PreparedLayout::Run run;
        run.collectiveS = collectiveSeconds(*graph, e->program, placement, cluster);
        run.graph = std::move(graph);
        run.opTimes = std::move(memo);
        run.eval = std::move(*e);
        out.runs.push_back(std::move(run));
    }
    return out;
}

Result<ParallelEvaluation> evaluateParallel(const Network& net, const Strategy& s,
                                            const std::vector<RegionSpec>& manual,
                                            const TrainingConfig& cfg, const ClusterSpec& cluster,
                                            bool withBaseline, const CancelFlag* cancel) {
    auto prepared = prepareParallel(net, s, manual, cfg, cluster, cancel);
    if (!prepared) return prepared.error();
    return finishParallel(*prepared, cfg.parallel, cluster, withBaseline, cancel);
}

Result<ParallelEvaluation> finishParallel(const PreparedLayout& prep, const ParallelConfig& lay,
                                          const ClusterSpec& cluster, bool withBaseline,
                                          const CancelFlag* cancel, bool keepRank) {
    const TrainingConfig& cfg = prep.cfg;
    const auto& runs = prep.runs;
    const auto& runOf = prep.runOf;
    ParallelEvaluation out;
    out.layout = lay;
    out.cluster = cluster;
    out.placement = placeLayout(lay, cluster);
    out.microBatches = cfg.accumulationSteps;
    out.globalBatch = satMul(satMul(cfg.microBatch, cfg.accumulationSteps), lay.dp);
    out.stages = prep.stages;
    const DeviceSpec& device = cluster.device;
    TrainingConfig stageCfg = cfg;
    stageCfg.parallel = ParallelConfig{};
    if (lay.pp > 1) stageCfg.accumulationSteps = 1;
    ShardingPlan sharding;
    sharding.zeroStage = lay.zeroStage;
    sharding.shardDegree = out.placement.shard.size;
    sharding.offloadOptimizer = lay.offloadOptimizer || lay.offloadParameters;
    sharding.offloadParameters = lay.offloadParameters;
    sharding.offloadActivations = lay.offloadActivations;

    // Each distinct stage's program rewritten for sharding (one micro-batch in flight), then
    // every stage's peak with its own in-flight band: the band is constant from the first
    // forward to the last backward, so the peak is the larger of the live bytes inside that
    // span plus the band and those outside it.
    const bool rewrite =
        sharding.zeroStage > 0 || sharding.offloadOptimizer || sharding.offloadActivations;
    struct Shared {
        Timeline timeline;
        Program program;  // rewritten, when the layout rewrites
        std::int64_t inside = 0, outside = 0;
        std::int64_t keptBytes = 0;
        std::int64_t offloadedBytes = 0;  // activations sent to the host per micro-batch
        double collectiveS = 0;
        std::size_t first = SIZE_MAX, last = 0;  // the first forward, the last backward
        bool lean = false;  // `timeline` without its per-instruction arrays (simulateLean)
        // `program` not built: the compiled one over `buffers` (a rewrite that only resizes).
        bool resizeOnly = false;
        std::vector<Buffer> buffers;
    };
    std::vector<Shared> shared(runs.size());
    for (std::size_t k = 0; k < runs.size(); ++k) {
        if (cancelRequested(cancel)) return makeError(kCancelledMessage);
        const PreparedLayout::Run& r = runs[k];
        Program& rewritten = shared[k].program;
        const Program* prog = &r.eval.program;
        // A search's rewrite that only resizes buffers: the compiled instructions over the
        // resized buffers, simulated without a copy (the program is built only if needed).
        const bool resizeOnly = rewrite && !keepRank && !shardingInserts(sharding);
        if (resizeOnly) {
            shared[k].buffers = r.eval.program.buffers;
            resizeForSharding(shared[k].buffers, sharding);
        } else if (rewrite) {
            auto sp = shardedProgram(*r.graph, r.eval.program, sharding, keepRank);
            if (!sp) return sp.error();
            rewritten = std::move(*sp);
            prog = &rewritten;
        }
        // The span the band covers: the first forward to the last backward.
        std::size_t& first = shared[k].first;
        std::size_t& last = shared[k].last;
        for (std::size_t i = 0; i < prog->instructions.size(); ++i) {
            const InstrKind kd = prog->instructions[i].kind;
            if (kd == InstrKind::Forward && first == SIZE_MAX) first = i;
            if (kd == InstrKind::Backward) last = i;
        }
        if (rewrite && !keepRank) {
            // A search: the live bytes inside and outside the span, no per-instruction arrays.
            LiveSpan span;
            span.first = first;
            span.last = last;
            shared[k].timeline =
                resizeOnly ? simulateLean(*r.graph, r.eval.program, device, span, cancel,
                                          r.opTimes.get(), &shared[k].buffers)
                           : simulateLean(*r.graph, rewritten, device, span, cancel,
                                          r.opTimes.get());
            shared[k].resizeOnly = resizeOnly;
            shared[k].lean = true;
            shared[k].inside = span.inside;
            shared[k].outside = span.outside;
        } else {
            shared[k].timeline = rewrite ? simulate(*r.graph, rewritten, device, cancel,
                                                    r.opTimes.get())
                                         : r.eval.timeline;
            const Timeline& t = shared[k].timeline;
            for (std::size_t i = 0; i < t.live.size(); ++i) {
                const std::int64_t live = totalBytes(t.live[i]);
                std::int64_t& into = i >= first && i <= last ? shared[k].inside : shared[k].outside;
                into = std::max(into, live);
            }
        }
        shared[k].keptBytes = r.eval.timeline.savedActivationAffine.at(cfg.microBatch);
        if (sharding.offloadActivations) {
            // The other in-flight micro-batches' offloaded activations wait on the host.
            shared[k].offloadedBytes = offloadedActivationBytes(*prog, cfg.microBatch);
            shared[k].keptBytes = std::max<std::int64_t>(0, shared[k].keptBytes - shared[k].offloadedBytes);
        }
        shared[k].collectiveS = r.collectiveS;
    }
    std::vector<const Timeline*> timelines(out.stages.size());
    for (std::size_t st = 0; st < out.stages.size(); ++st) {
        const Shared& sh = shared[runOf[st]];
        StageSummary& sum = out.stages[st];
        const std::int64_t band =
            std::llround(double(sh.keptBytes) * std::max(0.0, sum.inFlight - 1.0));
        sum.peakBytes = std::max(sh.inside + band, sh.outside);
        sum.collectiveS = sh.collectiveS;
        const PhaseTotals& t = sh.timeline.timeS;
        sum.microBatchS = t.forward + t.recompute + t.backward + sum.collectiveS;
        timelines[st] = &sh.timeline;  // without the band: times and FLOPs only
        if (sum.peakBytes > out.stages[out.peakStage].peakBytes) out.peakStage = st;
    }

    // Time of the step.
    StepTime& time = out.time;
    const std::int64_t m = cfg.accumulationSteps;
    std::size_t slow = 0;
    for (std::size_t st = 0; st < out.stages.size(); ++st)
        if (out.stages[st].microBatchS > out.stages[slow].microBatchS) slow = st;
    const double perMicro = out.stages[slow].microBatchS;  // pp 1: the whole accumulation
    const double v = lay.schedule == PipelineSchedule::Interleaved ? double(lay.virtualStages) : 1.0;
    if (lay.pp > 1) {
        time.computeS = double(m) * perMicro;
        time.bubbleS = double(lay.pp - 1) / v * perMicro;
        // The stage output (and its gradient back) crosses each boundary once per micro-batch
        // and model chunk.
        double sent = 0;
        for (const PreparedLayout::Run& r : runs)
            if (r.graph->stageOutput.valid())
                sent = r.graph->tensor(r.graph->stageOutput).bytes().atReal(cfg.microBatch);
        time.pipelineTransferS =
            2.0 * double(m) * v * transferTime(sent, linkFor(out.placement.pp, cluster));
    } else {
        time.computeS = perMicro;
    }
    const double backwardPerMicro = lay.pp > 1
                                        ? timelines[slow]->timeS.backward
                                        : timelines[slow]->timeS.backward / double(std::max<std::int64_t>(m, 1));
    // Data parallelism: the rank's gradients (and, sharded, its parameters).
    double gradBytes = 0;
    for (std::size_t st = 0; st < out.stages.size(); ++st)
        gradBytes = std::max(gradBytes, parameterBytes(*runs[runOf[st]].graph));
    const GroupPlacement& dpGroup = out.placement.dp;
    const GroupPlacement& shardGroup = out.placement.shard;
    if (lay.dp > 1) {
        if (lay.zeroStage <= 1) {
            time.dataParallelS = collectiveTime(CollectiveKind::AllReduce, gradBytes, dpGroup, cluster);
            time.dataParallelExposedS = std::max(0.0, time.dataParallelS - backwardPerMicro);
        } else if (lay.zeroStage == 2) {
            const double rs = collectiveTime(CollectiveKind::ReduceScatter, gradBytes, dpGroup, cluster);
            const double ag = collectiveTime(CollectiveKind::AllGather, gradBytes, dpGroup, cluster);
            time.dataParallelS = rs + ag;
            time.dataParallelExposedS = std::max(0.0, rs - backwardPerMicro) + ag;
        } else {
            // Per micro-batch: gather for forward, again for backward, reduce-scatter the
            // gradients, all behind that micro-batch's compute (prefetch).
            const double ag = collectiveTime(CollectiveKind::AllGather, gradBytes, shardGroup, cluster);
            const double rs = collectiveTime(CollectiveKind::ReduceScatter, gradBytes, shardGroup, cluster);
            double replicas = 0;
            if (shardGroup.size < lay.dp) {
                GroupPlacement rep{lay.dp / shardGroup.size, true};
                replicas = collectiveTime(CollectiveKind::AllReduce, gradBytes / double(shardGroup.size),
                                          rep, cluster);
            }
            const double perMb = 2 * ag + rs;
            const double microCompute = lay.pp > 1 ? perMicro : perMicro / double(std::max<std::int64_t>(m, 1));
            time.dataParallelS = double(m) * perMb + replicas;
            time.dataParallelExposedS =
                double(m) * std::max(0.0, perMb - microCompute) + replicas;
        }
    }
    // The optimizer: on the GPU its time follows the sharded state; offloaded, the host updates
    // its shard at its memory bandwidth (read and write parameter, master weight and moments,
    // read the gradient) and the updated 16-bit parameters come back over the host link.
    time.optimizerS = timelines[slow]->timeS.optimizer;
    // GPUs of this layout sharing one node's host memory.
    const std::int64_t gpusInNode = std::min(lay.gpus(), cluster.gpusPerNode);
    if (lay.offloadOptimizer || lay.offloadParameters) {
        const double shard = double(std::max<std::int64_t>(sharding.shardDegree, 1));
        const double stateBytes = optimizerStateBytes(runs[runOf[slow]].eval.program) /
                                  (lay.zeroStage >= 1 ? shard : 1.0);
        const double shardParamBytes = gradBytes / (lay.zeroStage >= 1 ? shard : 1.0);
        const double hostBw = cluster.hostMemoryBandwidthBytesPerS / double(cluster.gpusPerNode);
        time.optimizerS += (2.0 * stateBytes + 3.0 * shardParamBytes) / hostBw;
        const double grads = transferTime(shardParamBytes, cluster.hostLink);
        const double params = transferTime(shardParamBytes, cluster.hostLink);
        double hostBytes = stateBytes + shardParamBytes;  // + the 16-bit gradients' copy
        if (lay.offloadParameters) {
            // Each micro-batch streams the parameter shard in for forward and again for
            // backward and its gradients out, behind that micro-batch's compute (prefetch).
            const double microCompute =
                lay.pp > 1 ? perMicro : perMicro / double(std::max<std::int64_t>(m, 1));
            time.offloadTransferS =
                double(m) * std::max(0.0, 2.0 * params + grads - microCompute);
            hostBytes += shardParamBytes;
        } else {
            time.offloadTransferS = std::max(0.0, grads - backwardPerMicro) + params;
        }
        out.hostBytesPerNode = std::int64_t(hostBytes) * gpusInNode;
        out.hostFits = out.hostBytesPerNode <= cluster.hostMemoryBytes;
    }
    if (lay.offloadActivations) {
        // Kept activations go to the host in forward and come back for backward, for every
        // micro-batch a rank holds at once; the transfers run behind that micro-batch's
        // compute.
        double worstHost = 0, exposed = 0;
        for (std::size_t st = 0; st < out.stages.size(); ++st) {
            const Shared& sh = shared[runOf[st]];
            worstHost = std::max(worstHost, double(sh.offloadedBytes) * out.stages[st].inFlight);
            const double each = transferTime(double(sh.offloadedBytes), cluster.hostLink);
            const double microCompute =
                lay.pp > 1 ? out.stages[st].microBatchS
                           : out.stages[st].microBatchS / double(std::max<std::int64_t>(m, 1));
            exposed = std::max(exposed, double(m) * std::max(0.0, 2.0 * each - microCompute));
        }
        time.offloadTransferS += exposed;
        out.hostBytesPerNode += std::int64_t(worstHost) * gpusInNode;
        out.hostFits = out.hostBytesPerNode <= cluster.hostMemoryBytes;
    }
    time.totalS = time.computeS + time.bubbleS + time.pipelineTransferS +
                  time.dataParallelExposedS + time.optimizerS + time.offloadTransferS;

    // Model FLOPs: the whole network's forward and backward at the micro-batch, no recompute.
    {
        const double perMicroFlops =
            prep.flops.perSample * double(cfg.microBatch) + prep.flops.fixed;
        out.modelFlopsPerStep = perMicroFlops * double(m) * double(lay.dp);
        // Recompute of every rank: each stage's per-rank recompute, over its tp x cp ranks,
        // every micro-batch (pp 1: the program holds all of them) and data-parallel replica.
        double recompute = 0;
        for (const Timeline* t : timelines) recompute += t->flops.recompute;
        recompute *= double(lay.tp * lay.cp * lay.dp) * (lay.pp > 1 ? double(m) : 1.0);
        // The fastest rate a GEMM of the step may run at (TF32 where the settings allow it).
        const double peak = device.matmulPeak(computeDType(cfg.precision),
                                              tf32ForConv(cfg.tf32) || tf32ForMatmul(cfg.tf32));
        if (time.totalS > 0 && peak > 0) {
            out.mfu = out.modelFlopsPerStep / (time.totalS * double(lay.gpus()) * peak);
            out.hfu = (out.modelFlopsPerStep + recompute) /
                      (time.totalS * double(lay.gpus()) * peak);
        }
    }

    // The peaking rank's evaluation, with plan `none` under the same layout as its baseline.
    // The peaking rank in full: its program with the band, simulated.
    const std::size_t ps = out.peakStage;
    const PreparedLayout::Run& peakRun = runs[runOf[ps]];
    Shared& peakShared = shared[runOf[ps]];
    Program peakProgram;
    Timeline peakTimeline;
    ShardingPlan bandPlan = sharding;
    if (out.stages[ps].inFlight > 1.0) {
        bandPlan.inFlight = out.stages[ps].inFlight;
        bandPlan.keptPerMicroBatch = peakRun.eval.timeline.savedActivationAffine;
        if (sharding.offloadActivations) {
            const std::int64_t all = bandPlan.keptPerMicroBatch.at(cfg.microBatch);
            const double stays = all > 0 ? double(peakShared.keptBytes) / double(all) : 0.0;
            bandPlan.keptPerMicroBatch = {
                std::llround(double(bandPlan.keptPerMicroBatch.perSample) * stays),
                std::llround(double(bandPlan.keptPerMicroBatch.fixed) * stays)};
        }
    }
    // A search needs only the peak and whether it fits. The band (applySharding's in-flight
    // buffer) is allocated just before the first forward and freed after the last backward's
    // frees, and only allocs and frees change the live bytes, so the banded program's peak is
    // the larger of the shared rewrite's peak inside that span plus the band and its peak
    // outside it: no second rewrite and simulation, unless the rank does not fit and its
    // timeline must say why.
    bool bandDone = false;
    if (!keepRank && out.stages[ps].inFlight > 1.0 && peakShared.first != SIZE_MAX &&
        peakShared.last >= peakShared.first) {
        const double extra = bandPlan.inFlight - 1.0;
        const Affine band{std::llround(double(bandPlan.keptPerMicroBatch.perSample) * extra),
                          std::llround(double(bandPlan.keptPerMicroBatch.fixed) * extra)};
        const std::int64_t peak = std::max<std::int64_t>(
            {0, satAdd(peakShared.inside, band.at(cfg.microBatch)), peakShared.outside});
        if (peak <= device.usableBytes()) {
            peakTimeline = std::move(peakShared.timeline);
            peakTimeline.peakBytes = peak;
            peakTimeline.fits = true;
            bandDone = true;
        }
    }
    if (bandDone) {
    } else if (out.stages[ps].inFlight <= 1.0) {
        // No band: the shared rewrite is the rank's program.
        if (keepRank) peakProgram = rewrite ? std::move(peakShared.program) : peakRun.eval.program;
        if (peakShared.lean && !peakShared.timeline.fits) {
            // Why it does not fit is read from the whole timeline (explainNoFit).
            if (peakShared.resizeOnly) {
                auto sp = shardedProgram(*peakRun.graph, peakRun.eval.program, sharding, false);
                if (!sp) return sp.error();
                peakShared.program = std::move(*sp);
            }
            peakTimeline = simulate(*peakRun.graph, peakShared.program, device, cancel,
                                    peakRun.opTimes.get());
        }
        else
            peakTimeline = std::move(peakShared.timeline);
    } else {
        auto banded = shardedProgram(*peakRun.graph, peakRun.eval.program, bandPlan, keepRank);
        if (!banded) return banded.error();
        peakProgram = std::move(*banded);
        peakTimeline = simulate(*peakRun.graph, peakProgram, device, cancel, peakRun.opTimes.get());
    }
    out.stages[ps].peakBytes = peakTimeline.peakBytes;
    if (keepRank) {
        out.graph = *peakRun.graph;
        out.evaluation = peakRun.eval;
        out.evaluation.program = std::move(peakProgram);
    } else {
        out.evaluation.strategy = peakRun.eval.strategy;
    }
    out.evaluation.timeline = std::move(peakTimeline);
    out.evaluation.baselinePeakBytes = 0;
    out.evaluation.baselineTimeS = 0;
    out.evaluation.baselineSavedActivationBytes = 0;
    if (withBaseline) {
        Strategy none;
        auto b = evaluate(out.graph, none, {}, stageCfg, device, nullptr, cancel);
        if (!b) return b.error();
        ShardingPlan plan = sharding;
        plan.inFlight = out.stages[ps].inFlight;
        plan.keptPerMicroBatch = b->timeline.savedActivationAffine;
        if (auto ok = applySharding(out.graph, b->program, plan); !ok) return ok.error();
        Timeline bt = simulate(out.graph, b->program, device, cancel);
        out.evaluation.baselinePeakBytes = bt.peakBytes;
        out.evaluation.baselineTimeS = bt.timeS.total();
        out.evaluation.baselineSavedActivationBytes = bt.savedActivationBytes;
    }
    out.fits = out.evaluation.timeline.fits && out.hostFits;
    return out;
}

}  // namespace remat
