// Speed of `remat fit`: the whole search of layouts x ZeRO stages x strategies x micro-batches.
// GPT-3 175B on 1,024 A100s (global batch 1536) is the case the parallelism page walks; it
// should answer well within 2 s. Also the 8-GPU "does not fit" answer with its smallest-count search
// and offload attempt. Results go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <stdexcept>

#include "fit.h"
#include "model_file.h"

using namespace remat;

namespace {

void fitGpt3(benchmark::State& state, std::int64_t gpus) {
    auto m = loadModel("gpt3-175b");
    if (!m) throw std::runtime_error(m.error().message);
    auto cluster = findCluster("dgx-a100-80gb");
    if (!cluster) throw std::runtime_error(cluster.error().message);
    FitOptions o;
    o.gpus = gpus;
    o.globalBatch = 1536;
    std::int64_t evaluated = 0;
    for (auto _ : state) {
        auto r = fitSearch(m->network, m->training, *cluster, o);
        if (!r) throw std::runtime_error(r.error().message);
        evaluated = r->evaluated;
        benchmark::DoNotOptimize(r->candidates.data());
    }
    state.counters["evaluated"] = double(evaluated);
}

}  // namespace

BENCHMARK_CAPTURE(fitGpt3, gpt3_175b_1024_gpus, 1024)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(fitGpt3, gpt3_175b_8_gpus_no_fit, 8)->Unit(benchmark::kMillisecond)->Iterations(1);
