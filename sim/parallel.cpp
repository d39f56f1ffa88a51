#include "parallel.h"

#include <algorithm>
#include <cmath>

#include "network.h"

namespace remat {

std::optional<int> parseZeroStage(std::string_view s, bool* hybrid) {
    if (hybrid) *hybrid = false;
    if (s == "0" || s == "no_shard") return 0;
    if (s == "1") return 1;
    if (s == "2" || s == "shard_grad_op") return 2;
    if (s == "3" || s == "full_shard") return 3;
    if (s == "hybrid" || s == "hybrid_shard") {
        if (hybrid) *hybrid = true;
        return 3;
    }
    return std::nullopt;
}

std::optional<std::pair<PipelineSchedule, std::int64_t>> parseSchedule(std::string_view s) {
    if (s == "gpipe") return std::pair{PipelineSchedule::GPipe, std::int64_t{1}};
    if (s == "1f1b") return std::pair{PipelineSchedule::OneFOneB, std::int64_t{1}};
    constexpr std::string_view prefix = "interleaved:";
    if (s.substr(0, prefix.size()) != prefix) return std::nullopt;
    const std::string_view num = s.substr(prefix.size());
    if (num.empty() || num.size() > 6) return std::nullopt;
    std::int64_t v = 0;
    for (char ch : num) {
        if (ch < '0' || ch > '9') return std::nullopt;
        v = v * 10 + (ch - '0');
    }
    if (v < 2) return std::nullopt;
    return std::pair{PipelineSchedule::Interleaved, v};
}

std::string scheduleName(PipelineSchedule s, std::int64_t virtualStages) {
    switch (s) {
        case PipelineSchedule::GPipe: return "gpipe";
        case PipelineSchedule::OneFOneB: return "1f1b";
        case PipelineSchedule::Interleaved:
            return "interleaved:" + std::to_string(virtualStages);
    }
    return "1f1b";
}

std::string describeLayout(const ParallelConfig& p) {
    std::string out;
    auto part = [&](const std::string& s) {
        if (!out.empty()) out += " x ";
        out += s;
    };
    if (p.dp > 1 || p.zeroStage > 0) {
        std::string s = "dp " + std::to_string(p.dp);
        if (p.zeroStage > 0)
            s += p.hybridShard ? " (ZeRO-3 hybrid)" : " (ZeRO-" + std::to_string(p.zeroStage) + ")";
        part(s);
    }
    if (p.tp > 1) part("tp " + std::to_string(p.tp) + (p.sequenceParallel ? " (SP)" : ""));
    if (p.pp > 1) part("pp " + std::to_string(p.pp) + " (" + scheduleName(p.schedule, p.virtualStages) + ")");
    if (p.cp > 1) part("cp " + std::to_string(p.cp));
    if (out.empty()) out = "1 GPU";
    if (p.offloadOptimizer) out += ", optimizer offloaded";
    if (p.offloadParameters) out += ", parameters offloaded";
    if (p.offloadActivations) out += ", activations offloaded";
    return out;
}

namespace {

struct BlockFacts {
    std::int64_t blocks = 0;      // transformer block instances
    std::int64_t otherBlocks = 0; // residual block instances
    std::int64_t heads = 0, kvHeads = 0, mlpHidden = 0, width = 0;
    bool eager = false;
};

Status fail(const std::string& field, const std::string& why) {
    return makeError("parallel." + field + ": " + why);
}

}  // namespace

Status validateLayout(const Network& net, const ParallelConfig& p) {
    struct Degree {
        const char* field;
        std::int64_t v;
    };
    for (Degree d : {Degree{"dp", p.dp}, Degree{"tp", p.tp}, Degree{"pp", p.pp},
                     Degree{"cp", p.cp}, Degree{"schedule", p.virtualStages}})
        if (d.v < 1 || d.v > kMaxParallelDegree)
            return fail(d.field, "expected a whole number from 1 to " +
                                     std::to_string(kMaxParallelDegree) + ", got " +
                                     std::to_string(d.v));
    if (p.zeroStage < 0 || p.zeroStage > 3)
        return fail("zero", "expected 0, 1, 2 or 3, got " + std::to_string(p.zeroStage));
    const double gpus = double(p.dp) * double(p.tp) * double(p.pp) * double(p.cp);
    if (gpus > double(kMaxParallelDegree))
        return makeError("parallel: dp x tp x pp x cp = " + std::to_string(std::llround(gpus)) +
                         " GPUs, more than the " + std::to_string(kMaxParallelDegree) +
                         " supported");
    if (p.zeroStage > 0 && p.dp == 1)
        return fail("zero", "ZeRO stage " + std::to_string(p.zeroStage) +
                                " shards over the data-parallel ranks and needs dp > 1");
    if (p.offloadParameters && p.zeroStage != 3)
        return fail("offload", "offloading parameters streams each layer's parameters in as "
                               "ZeRO-3 gathers them, and needs zero 3 (full_shard)");
    if (p.sequenceParallel && p.tp == 1)
        return fail("sequence_parallel", "sequence parallelism splits along tp and needs tp > 1");
    if (p.schedule == PipelineSchedule::Interleaved && p.pp == 1)
        return fail("schedule", "an interleaved schedule needs pp > 1");
    if (p.schedule != PipelineSchedule::Interleaved && p.virtualStages != 1)
        return fail("schedule", "model chunks per rank are set by interleaved:V only");

    BlockFacts f;
    auto shapes = inferShapes(net);
    if (!shapes) return shapes.error();
    const auto sources = expandedLayerSources(net);
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const Layer& l = net.layers[sources[i]];
        if (l.kind == LayerKind::ResidualBlock) ++f.otherBlocks;
        if (l.kind != LayerKind::TransformerBlock) continue;
        if (f.blocks == 0) {
            f.heads = l.heads;
            f.kvHeads = l.kvHeads > 0 ? l.kvHeads : l.heads;
            f.mlpHidden = l.mlpHidden;
            f.width = (*shapes)[i].back();
        }
        f.eager = f.eager || l.attention == AttentionImpl::Eager;
        ++f.blocks;
    }
    const std::int64_t tokens = net.input.tokens;
    if (p.tp > 1 || p.cp > 1) {
        if (f.blocks == 0)
            return fail(p.tp > 1 ? "tp" : "cp",
                        "tensor and context parallelism split transformer blocks; this model "
                        "has none (use data or pipeline parallelism)");
    }
    if (p.tp > 1) {
        const std::string tp = " by tp " + std::to_string(p.tp);
        if (f.heads % p.tp != 0)
            return fail("tp", std::to_string(f.heads) + " attention heads are not divisible" + tp);
        if (f.kvHeads % p.tp != 0)
            return fail("tp", std::to_string(f.kvHeads) + " KV heads are not divisible" + tp);
        if (f.mlpHidden % p.tp != 0)
            return fail("tp", "the MLP width " + std::to_string(f.mlpHidden) +
                                  " is not divisible" + tp);
        if (p.sequenceParallel && tokens % p.tp != 0)
            return fail("sequence_parallel", "the sequence of " + std::to_string(tokens) +
                                                 " tokens is not divisible" + tp);
    }
    if (p.cp > 1) {
        if (f.eager)
            return fail("cp", "context parallelism needs flash attention (\"attention\": "
                              "\"flash\"), as in Megatron-LM");
        if (tokens % (2 * p.cp) != 0)
            return fail("cp", "the sequence of " + std::to_string(tokens) +
                                  " tokens is not divisible by 2 x cp = " +
                                  std::to_string(2 * p.cp) +
                                  " (each rank takes two balanced chunks of a causal sequence)");
        if (p.sequenceParallel && (tokens / p.cp) % p.tp != 0)
            return fail("sequence_parallel", "the " + std::to_string(tokens / p.cp) +
                                                 " tokens per context rank are not divisible "
                                                 "by tp " + std::to_string(p.tp));
    }
    if (p.pp > 1) {
        const std::int64_t chain = f.blocks > 0 ? f.blocks : f.otherBlocks;
        const std::int64_t parts = p.pp * p.virtualStages;
        if (chain == 0)
            return fail("pp", "pipeline stages split blocks (transformer_block or "
                              "residual_block); this model has none");
        if (chain % parts != 0)
            return fail("pp", std::to_string(chain) + " blocks are not divisible by pp x V = " +
                                  std::to_string(parts));
    }
    return Ok{};
}

double inFlightMicroBatches(const ParallelConfig& p, std::int64_t stage, std::int64_t m) {
    if (p.pp <= 1) return 1.0;
    m = std::max<std::int64_t>(m, 1);
    switch (p.schedule) {
        case PipelineSchedule::GPipe: return double(m);
        case PipelineSchedule::OneFOneB: return double(std::min(p.pp - stage, m));
        case PipelineSchedule::Interleaved: {
            const std::int64_t v = p.virtualStages;
            const std::int64_t chunks =
                std::min(2 * (p.pp - stage - 1) + (v - 1) * p.pp + 1, m * v);
            return double(chunks) / double(v);
        }
    }
    return 1.0;
}

double pipelineBubbleFraction(const ParallelConfig& p, std::int64_t m) {
    if (p.pp <= 1) return 0.0;
    const double v = p.schedule == PipelineSchedule::Interleaved ? double(p.virtualStages) : 1.0;
    return double(p.pp - 1) / (v * double(std::max<std::int64_t>(m, 1)));
}

}  // namespace remat
