#include "parallel_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "report.h"

namespace remat {

nlohmann::json layoutToJson(const ParallelConfig& p) {
    using nlohmann::json;
    json off = json::array();
    if (p.offloadOptimizer) off.push_back("optimizer");
    if (p.offloadParameters) off.push_back("parameters");
    if (p.offloadActivations) off.push_back("activations");
    return {{"gpus", p.gpus()},
            {"dp", p.dp},
            {"zero", p.zeroStage},
            {"hybrid_shard", p.hybridShard},
            {"tp", p.tp},
            {"sequence_parallel", p.sequenceParallel},
            {"pp", p.pp},
            {"schedule", scheduleName(p.schedule, p.virtualStages)},
            {"cp", p.cp},
            {"offload", off},
            {"text", describeLayout(p)}};
}

nlohmann::json parallelEvaluationToJson(const ParallelEvaluation& pe) {
    using nlohmann::json;
    json j = evaluationToJson(pe.graph, pe.evaluation, pe.cluster.device);
    json par = layoutToJson(pe.layout);
    par["cluster"] = pe.cluster.id;
    par["nodes"] = pe.placement.nodes;
    par["micro_batches"] = pe.microBatches;
    par["global_batch"] = pe.globalBatch;
    par["peak_stage"] = pe.peakStage;
    json stages = json::array();
    for (const StageSummary& s : pe.stages)
        stages.push_back({{"stage", s.stage},
                          {"first_layer", s.firstLayer},
                          {"layers", s.layerCount},
                          {"in_flight_micro_batches", s.inFlight},
                          {"peak_bytes", s.peakBytes},
                          {"micro_batch_s", s.microBatchS},
                          {"collective_s", s.collectiveS}});
    par["stages"] = stages;
    const StepTime& t = pe.time;
    par["step_time_s"] = {{"compute", t.computeS},
                          {"bubble", t.bubbleS},
                          {"pipeline_transfer", t.pipelineTransferS},
                          {"data_parallel", t.dataParallelS},
                          {"data_parallel_exposed", t.dataParallelExposedS},
                          {"optimizer", t.optimizerS},
                          {"offload_transfer", t.offloadTransferS},
                          {"total", t.totalS}};
    par["model_flops_per_step"] = pe.modelFlopsPerStep;
    par["mfu"] = pe.mfu;
    par["hfu"] = pe.hfu;
    par["samples_per_s"] = pe.samplesPerS();
    par["host_bytes_per_node"] = pe.hostBytesPerNode;
    par["host_fits"] = pe.hostFits;
    j["parallel"] = par;
    // Whole-step figures of the layout where the single-GPU keys would mislead.
    j["fits"] = pe.fits;
    j["samples_per_s"] = pe.samplesPerS();
    return j;
}

std::string parallelSummaryText(const ParallelEvaluation& pe) {
    std::string out;
    char line[512];
    const StepTime& t = pe.time;
    std::snprintf(line, sizeof line, "layout             %s on %lld GPUs (%lld %s of %s)\n",
                  describeLayout(pe.layout).c_str(), (long long)pe.layout.gpus(),
                  (long long)pe.placement.nodes, pe.placement.nodes == 1 ? "node" : "nodes",
                  pe.cluster.name.c_str());
    out += line;
    std::snprintf(line, sizeof line,
                  "global batch       %lld samples (micro-batch x %lld micro-batches x dp %lld)\n",
                  (long long)pe.globalBatch, (long long)pe.microBatches, (long long)pe.layout.dp);
    out += line;
    if (pe.stages.size() > 1) {
        out += "pipeline stages    peak per GPU (in-flight micro-batches):";
        for (const StageSummary& s : pe.stages) {
            std::snprintf(line, sizeof line, "%s%lld: %s (%.3g)", s.stage ? ", " : " ",
                          (long long)s.stage, formatBytes(s.peakBytes).c_str(), s.inFlight);
            out += line;
        }
        out += "\n";
    }
    std::snprintf(line, sizeof line, "step time          %s  (compute %s, bubble %s, pipeline transfers %s, data-parallel %s exposed of %s, optimizer %s, offload transfers %s)\n",
                  formatSeconds(t.totalS).c_str(), formatSeconds(t.computeS).c_str(),
                  formatSeconds(t.bubbleS).c_str(), formatSeconds(t.pipelineTransferS).c_str(),
                  formatSeconds(t.dataParallelExposedS).c_str(),
                  formatSeconds(t.dataParallelS).c_str(), formatSeconds(t.optimizerS).c_str(),
                  formatSeconds(t.offloadTransferS).c_str());
    out += line;
    std::snprintf(line, sizeof line,
                  "throughput         %.1f samples/s, MFU %.1f%% (with recompute: %.1f%%)\n",
                  pe.samplesPerS(), 100.0 * pe.mfu, 100.0 * pe.hfu);
    out += line;
    if (pe.hostBytesPerNode > 0) {
        std::snprintf(line, sizeof line, "host memory        %s per node offloaded (%s)\n",
                      formatBytes(pe.hostBytesPerNode).c_str(),
                      pe.hostFits ? "fits" : "does NOT fit the node's host memory");
        out += line;
    }
    return out;
}

}  // namespace remat
