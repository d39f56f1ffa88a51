// Speed of the edit loop: lower + compile + simulate, the work the GUI redoes on every click.
// GPT-3 175B (96 blocks) must stay under 10 ms; cost should grow linearly with layers
// (compare the 100- and 1,000-layer chains). Results go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <string>

#include "analysis.h"
#include "lower.h"
#include "model_file.h"
#include "simulator.h"
#include "strategy.h"

using namespace remat;

namespace {

ModelFile preset(const char* name) {
    auto m = loadModel(name);
    if (!m) throw std::runtime_error(m.error().message);
    return *m;
}

ModelFile chain(int layers) {
    std::string s = R"({"format":"remat-model/1","input":{"shape":[1024]},"layers":[)";
    for (int i = 0; i < layers; ++i)
        s += i % 2 ? R"({"kind":"relu"},)" : R"({"kind":"linear","out":1024},)";
    s += R"({"kind":"mse"}],"training":{"micro_batch":64}})";
    auto m = parseModel(s, "chain");
    if (!m) throw std::runtime_error(m.error().message);
    return *m;
}

void runOnce(benchmark::State& state, const ModelFile& m, const char* strategy) {
    const DeviceSpec& device = builtinDevices().front();
    const Strategy s = *parseStrategy(strategy);
    for (auto _ : state) {
        auto g = lower(m.network, m.training.precision);
        auto plan = makePlan(*g, s);
        auto p = compile(*g, *plan, m.training, compileOptionsFor(device));
        Timeline t = simulate(*g, *p, device);
        benchmark::DoNotOptimize(t.peakBytes);
    }
}

void BM_Gpt3_175B(benchmark::State& state) {
    static const ModelFile m = preset("gpt3-175b");
    runOnce(state, m, state.range(0) ? "sqrt" : "none");
}
BENCHMARK(BM_Gpt3_175B)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// What a plan edit in the GUI costs: the graph is cached, only compile + simulate rerun.
void BM_Gpt3_175B_PlanEdit(benchmark::State& state) {
    static const ModelFile m = preset("gpt3-175b");
    const DeviceSpec& device = builtinDevices().front();
    auto g = lower(m.network, m.training.precision);
    auto plan = makePlan(*g, *parseStrategy("every:2"));
    for (auto _ : state) {
        auto p = compile(*g, *plan, m.training, compileOptionsFor(device));
        Timeline t = simulate(*g, *p, device);
        benchmark::DoNotOptimize(t.peakBytes);
    }
}
BENCHMARK(BM_Gpt3_175B_PlanEdit)->Unit(benchmark::kMillisecond);

void BM_Gpt2Small(benchmark::State& state) {
    static const ModelFile m = preset("gpt2-small");
    runOnce(state, m, "every:3");
}
BENCHMARK(BM_Gpt2Small)->Unit(benchmark::kMillisecond);

void BM_Chain(benchmark::State& state) {
    const ModelFile m = chain(int(state.range(0)));
    runOnce(state, m, "sqrt");
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Chain)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

}  // namespace

// main(): bench_main.cpp.
