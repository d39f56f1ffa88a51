// Speed of the optimal planners (issue 5), results in docs/performance.md ("Optimal planner"):
// - single-level optimum of a 200-layer heterogeneous chain at budgets from the smallest
//   feasible peak to no checkpointing: the solve alone (what a budget slider reruns) and the
//   whole planOptimal (model, tables, solve, verifying compile + simulate); target 50 ms;
// - re-plan + re-simulate as a budget slider does it (planner cached; solve, compile,
//   simulate) for GPT-2 small (target one 16 ms frame) and GPT-3 175B (target 100 ms);
// - the nested optimum at 500 memory slots for 100 layers (target 1 s), and its growth with
//   layers (25..200) at 500 slots and with slots (125..2000) at 100 layers.
#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>

#include "analysis.h"
#include "compiler.h"
#include "lower.h"
#include "model_file.h"
#include "optimal.h"
#include "optimal_nested.h"
#include "simulator.h"

using namespace remat;

namespace {

// An MLP of `layers` chain elements (every layer its own element): linear layers of random
// widths (64..4096) alternating with a randomly chosen activation, norm or dropout; fp32 SGD at
// micro-batch 4096, so activations rather than parameters set the peak and the budget matters.
struct Case {
    Graph graph;
    TrainingConfig training;
    DeviceSpec device;
};

Case heterogeneousChain(int layers, std::uint32_t seed = 5) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> width(64, 4096), pick(0, 5);
    Network net;
    net.name = "heterogeneous";
    net.input.shape = {1024};
    for (int i = 0; i < layers; ++i) {
        Layer l;
        if (i % 2 == 0) {
            l.kind = LayerKind::Linear;
            l.out = width(rng);
        } else {
            const LayerKind kinds[] = {LayerKind::Relu,      LayerKind::Gelu, LayerKind::Tanh,
                                       LayerKind::LayerNorm, LayerKind::Silu, LayerKind::Dropout};
            l.kind = kinds[pick(rng)];
            l.p = 0.1;
        }
        net.layers.push_back(l);
    }
    Layer loss;
    loss.kind = LayerKind::Mse;
    net.layers.push_back(loss);
    Case c;
    c.training.microBatch = 4096;
    c.training.optimizer = Optimizer::Sgd;
    auto g = lower(net, c.training.precision);
    if (!g) throw std::runtime_error(g.error().message);
    c.graph = std::move(*g);
    c.device = *findDevice("a100-80gb");
    return c;
}

// A preset with its own settings; `microBatch` > 0 overrides (GPT-3 at its preset's micro-batch
// of 1 peaks at the optimizer state whatever the plan, so the slider is measured at 16).
Case preset(const char* name, std::int64_t microBatch = 0) {
    auto m = loadModel(name);
    if (!m) throw std::runtime_error(m.error().message);
    Case c;
    c.training = m->training;
    if (microBatch > 0) c.training.microBatch = microBatch;
    auto g = lower(m->network, c.training.precision);
    if (!g) throw std::runtime_error(g.error().message);
    c.graph = std::move(*g);
    c.device = *findDevice(m->device.empty() ? "a100-80gb" : m->device);
    return c;
}

std::int64_t nonePeak(const Case& c) {
    Plan none;
    auto p = compile(c.graph, none, c.training, compileOptionsFor(c.device));
    return simulate(c.graph, *p, c.device).peakBytes;
}

// Budget at `percent` of the way from the smallest feasible peak to no checkpointing.
std::int64_t budgetAt(const Case& c, const OptimalPlanner& planner, int percent) {
    const std::int64_t lo = planner.minimumPeak().predictedPeakBytes;
    return lo + (nonePeak(c) - lo) * percent / 100;
}

// Re-solves `budget` for as long as the benchmark runs; reports the Pareto sets' size.
void timeSolve(benchmark::State& state, const OptimalPlanner& planner, std::int64_t budget) {
    for (auto _ : state) {
        auto sol = planner.solve(budget);
        if (!sol) state.SkipWithError("no plan");
        benchmark::DoNotOptimize(sol);
    }
    state.counters["states"] = double(planner.lastStateCount());
    state.counters["candidates"] = double(planner.lastCandidateCount());
}

void BM_SingleLevelSolve200(benchmark::State& state) {
    static const Case c = heterogeneousChain(200);
    static const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    static const OptimalPlanner planner(model);
    timeSolve(state, planner, budgetAt(c, planner, int(state.range(0))));
    state.counters["budget_pct"] = double(state.range(0));
}
BENCHMARK(BM_SingleLevelSolve200)->DenseRange(0, 100, 10)->Unit(benchmark::kMillisecond);

// The same on chains drawn with other seeds (range(0): seed, range(1): p), so that the figure
// is not one lucky chain's.
void BM_SingleLevelSolve200Seeds(benchmark::State& state) {
    const Case c = heterogeneousChain(200, std::uint32_t(state.range(0)));
    const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    const OptimalPlanner planner(model);
    timeSolve(state, planner, budgetAt(c, planner, int(state.range(1))));
}
BENCHMARK(BM_SingleLevelSolve200Seeds)
    ->ArgsProduct({{1, 2, 3, 4}, {25, 50, 75}})
    ->Unit(benchmark::kMillisecond);

// Growth with the chain's length at p = 50, from scratch (planOptimal: model, tables, time bound,
// solve, verifying compile + simulate).
void BM_SingleLevelPlanOptimalLength(benchmark::State& state) {
    const Case c = heterogeneousChain(int(state.range(0)));
    const std::int64_t budget =
        budgetAt(c, OptimalPlanner(*ChainModel::build(c.graph, c.training, c.device)), 50);
    for (auto _ : state) {
        auto v = planOptimal(c.graph, c.training, c.device, budget);
        if (!v) state.SkipWithError(v.error().message.c_str());
        benchmark::DoNotOptimize(v);
    }
}
BENCHMARK(BM_SingleLevelPlanOptimalLength)
    ->Arg(50)
    ->Arg(100)
    ->Arg(200)
    ->Arg(400)
    ->Arg(800)  // refused since the merge-step limit: the message is the benchmark's error
    ->Unit(benchmark::kMillisecond);

// The work limits (sim/optimal_limits.h; docs/reliability.md): planOptimal from scratch on GPT-2
// small stretched to range(0) blocks (range(1) = 1 for optimal-nested at 500 slots), budget
// halfway from the smallest reachable peak to no checkpointing. Near 250 blocks the
// single-level search is close to its merge-step limit, beyond it stops there; 150 blocks are
// near the nested table limit; 1,996 blocks are refused before any search.
void BM_LimitsGpt2Shape(benchmark::State& state) {
    const int blocks = int(state.range(0));
    const bool nested = state.range(1) == 1;
    Case c = preset("gpt2-small");
    auto m = loadModel("gpt2-small");
    for (Layer& l : m->network.layers)
        if (l.repeat > 1) l.repeat = blocks;
    auto g = lower(m->network, c.training.precision);
    if (!g) throw std::runtime_error(g.error().message);
    c.graph = std::move(*g);
    const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    const OptimalPlanner planner(model);
    std::vector<UnitSegment> kept;
    for (int u = 0; u < model.unitCount(); ++u) kept.push_back(UnitSegment{u, u, false});
    const std::int64_t budget =
        (planner.minimumPeak().predictedPeakBytes + model.predict(kept)->peakBytes) / 2;
    std::string outcome = "planned";
    for (auto _ : state) {
        auto v = nested ? planOptimalNested(c.graph, c.training, c.device, budget)
                        : planOptimal(c.graph, c.training, c.device, budget);
        outcome = v ? "planned" : v.error().message.substr(0, 60);
        benchmark::DoNotOptimize(v);
    }
    state.SetLabel(outcome);
    state.counters["units"] = model.unitCount();
}
BENCHMARK(BM_LimitsGpt2Shape)
    ->Args({200, 0})
    ->Args({250, 0})
    ->Args({270, 0})
    ->Args({400, 0})
    ->Args({1996, 0})
    ->Args({140, 1})
    ->Args({150, 1})
    ->Args({160, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void BM_SingleLevelPlanOptimal200(benchmark::State& state) {
    static const Case c = heterogeneousChain(200);
    static const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    static const OptimalPlanner planner(model);
    const std::int64_t budget = budgetAt(c, planner, int(state.range(0)));
    for (auto _ : state) {
        auto v = planOptimal(c.graph, c.training, c.device, budget);
        if (!v) state.SkipWithError(v.error().message.c_str());
        benchmark::DoNotOptimize(v);
    }
}
BENCHMARK(BM_SingleLevelPlanOptimal200)->DenseRange(0, 100, 10)->Unit(benchmark::kMillisecond);

// A budget slider: the model and tables are cached per (network, settings); each slider value
// solves, compiles and simulates.
void sliderStep(benchmark::State& state, const Case& c) {
    const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    const OptimalPlanner planner(model);
    const std::int64_t budget = budgetAt(c, planner, int(state.range(0)));
    for (auto _ : state) {
        auto sol = planner.solve(budget);
        if (!sol) state.SkipWithError("no plan");
        Plan plan = model.toPlan(sol->segments, "optimal");
        auto p = compile(c.graph, plan, c.training, compileOptionsFor(c.device));
        Timeline t = simulate(c.graph, *p, c.device);
        benchmark::DoNotOptimize(t.peakBytes);
    }
}

void BM_SliderGpt2Small(benchmark::State& state) {
    static const Case c = preset("gpt2-small");
    sliderStep(state, c);
}
BENCHMARK(BM_SliderGpt2Small)->Arg(0)->Arg(50)->Arg(100)->Unit(benchmark::kMillisecond);

void BM_SliderGpt3_175B(benchmark::State& state) {
    static const Case c = preset("gpt3-175b", 16);
    sliderStep(state, c);
}
BENCHMARK(BM_SliderGpt3_175B)->Arg(0)->Arg(50)->Arg(100)->Unit(benchmark::kMillisecond);

// Everything from scratch for one budget: model, tables, solve, verification, then the
// evaluation's own compile + simulate (what `remat simulate -s optimal:B` does).
void replanFromScratch(benchmark::State& state, const Case& c) {
    const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    const std::int64_t budget = budgetAt(c, OptimalPlanner(model), 50);
    for (auto _ : state) {
        auto v = planOptimal(c.graph, c.training, c.device, budget);
        if (!v) state.SkipWithError(v.error().message.c_str());
        benchmark::DoNotOptimize(v->timeline.peakBytes);
    }
}
void BM_ReplanFromScratchGpt2Small(benchmark::State& state) {
    static const Case c = preset("gpt2-small");
    replanFromScratch(state, c);
}
BENCHMARK(BM_ReplanFromScratchGpt2Small)->Unit(benchmark::kMillisecond);
void BM_ReplanFromScratchGpt3_175B(benchmark::State& state) {
    static const Case c = preset("gpt3-175b", 16);
    replanFromScratch(state, c);
}
BENCHMARK(BM_ReplanFromScratchGpt3_175B)->Unit(benchmark::kMillisecond);

// Nested optimum: layers x slots, at the budget halfway between the smallest single-level
// peak and no checkpointing.
void BM_Nested(benchmark::State& state) {
    const int layers = int(state.range(0));
    const int slots = int(state.range(1));
    const Case c = heterogeneousChain(layers);
    const ChainModel model = *ChainModel::build(c.graph, c.training, c.device);
    const std::int64_t budget = budgetAt(c, OptimalPlanner(model), 50);
    for (auto _ : state) {
        auto sol = solveNested(model, budget, slots);
        if (!sol) state.SkipWithError("no plan");
        benchmark::DoNotOptimize(sol);
    }
    state.counters["layers"] = layers;
    state.counters["slots"] = slots;
}
BENCHMARK(BM_Nested)
    ->Args({25, 500})
    ->Args({50, 500})
    ->Args({100, 500})
    ->Args({200, 500})
    ->Args({100, 125})
    ->Args({100, 250})
    ->Args({100, 1000})
    ->Args({100, 2000})
    ->Unit(benchmark::kMillisecond);

}  // namespace

// main(): bench_main.cpp.
