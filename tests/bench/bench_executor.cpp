// Speed of the CPU reference executor: one whole training step (alloc, initialisation,
// forward, recompute, backward, optimizer) of the presets the executor tests run —
// mlp-3x1024 with its file's plan, gpt2-tiny under `full` and `selective:attention_core` and
// resnet-101 shrunk as `remat run --shrink` shrinks it (sim/shrink.h) under `sqrt` — plus
// the CPU-rate probe `remat run` makes first, each with 1 and 2 threads (the argument) and,
// for the steps, 4. The tests check what these runs compute — the same bits with any
// thread count — and how long they take is reported here. Run by hand:
//   build/<dir>/tests/bench/bench_executor
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

#include "analysis.h"
#include "backends.h"
#include "cpu/cpu_rates.h"
#include "lower.h"
#include "model_file.h"
#include "shrink.h"
#include "strategy.h"

using namespace remat;

namespace {

struct Compiled {
    Graph graph;
    Program program;
};

Compiled compilePreset(const char* name, const char* strategy, bool shrink = false) {
    auto m = loadModel(name);
    if (!m) throw std::runtime_error(m.error().message);
    if (shrink) {
        auto s = shrinkNetwork(m->network, m->training);
        if (!s) throw std::runtime_error(s.error().message);
        m->network = s->network;
        m->training = s->training;
    }
    auto g = lower(m->network, m->training.precision);
    if (!g) throw std::runtime_error(g.error().message);
    auto s = parseStrategy(strategy ? strategy : defaultStrategy(*m));
    if (!s) throw std::runtime_error(s.error().message);
    auto plan = makePlan(*g, *s, manualRegions(*m));
    if (!plan) throw std::runtime_error(plan.error().message);
    auto p = compile(*g, *plan, m->training, CompileOptions{});
    if (!p) throw std::runtime_error(p.error().message);
    return {std::move(*g), std::move(*p)};
}

void step(benchmark::State& state, const char* preset, const char* strategy,
          bool shrink = false) {
    const Compiled c = compilePreset(preset, strategy, shrink);
    auto executor = makeExecutor("cpu", int(state.range(0)));
    if (!executor) throw std::runtime_error(executor.error().message);
    ExecuteOptions o;
    for (auto _ : state) {
        auto m = (*executor)->execute(c.graph, c.program, o);
        if (!m) {
            state.SkipWithError(m.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(m->losses.data());
        state.counters["tracked_peak_MiB"] = double(m->peakBytes) / (1 << 20);
        state.counters["device_peak_MiB"] = double(m->device.reservedPeakBytes) / (1 << 20);
    }
}

void BM_StepMlp3x1024(benchmark::State& state) {
    step(state, "mlp-3x1024", nullptr);
}
void BM_StepGpt2TinyFull(benchmark::State& state) {
    step(state, "gpt2-tiny", "full");
}
void BM_StepGpt2TinySelective(benchmark::State& state) {
    step(state, "gpt2-tiny", "selective:attention_core");
}

void BM_StepResnet101ShrunkSqrt(benchmark::State& state) {
    step(state, "resnet-101", "sqrt", true);
}

void BM_ProbeCpuRates(benchmark::State& state) {
    for (auto _ : state) {
        auto r = probeCpuRates(int(state.range(0)));
        if (!r) {
            state.SkipWithError(r.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(r->gemmFlopsPerS);
    }
}

}  // namespace

BENCHMARK(BM_StepMlp3x1024)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepGpt2TinyFull)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepGpt2TinySelective)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepResnet101ShrunkSqrt)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeCpuRates)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
