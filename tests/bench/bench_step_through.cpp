// Speed of the step-through on long programs: indexing a program once (what showing the
// step-through or the schedule grid costs after an edit), the live set after one instruction,
// one step's caption, and one step of the panel (live set, caption, blocks, slider) — each on
// GPT-2 small deepened to 400 layer instances under `full` (over 100,000 instructions) and on
// GPT-2 small itself. Runs offscreen. Results go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <memory>

#include "../deep_model.h"
#include "analysis.h"
#include "live_blocks_view.h"
#include "lower.h"
#include "playback_program.h"
#include "step_caption.h"
#include "step_through_panel.h"
#include "strategy.h"

using namespace remat;
using namespace remat::ui;

namespace {

struct Compiled {
    Graph graph;
    Program program;
    Timeline timeline;
};

std::shared_ptr<const Compiled> compiled(std::int64_t instances) {
    const ModelFile m =
        instances > 0 ? test::presetWithInstances(instances) : *loadModel("gpt2-small");
    const DeviceSpec& device = builtinDevices().front();
    auto c = std::make_shared<Compiled>();
    c->graph = *lower(m.network, m.training.precision);
    auto plan = makePlan(c->graph, *parseStrategy("full"));
    c->program = *compile(c->graph, *plan, m.training, compileOptionsFor(device));
    c->timeline = simulate(c->graph, c->program, device);
    return c;
}

const Compiled& model(std::int64_t instances) {
    static std::shared_ptr<const Compiled> deep = compiled(400), small = compiled(0);
    return instances > 0 ? *deep : *small;
}

void count(benchmark::State& state, const Compiled& c) {
    state.counters["instructions"] = double(c.program.instructions.size());
    state.counters["buffers"] = double(c.program.buffers.size());
}

void BM_Index(benchmark::State& state) {
    const Compiled& c = model(state.range(0));
    // The document hands over the timeline's inputs it already made.
    const auto series = std::make_shared<const TimelineSeriesInputs>(
        timelineSeriesInputs(c.graph, c.program, c.timeline));
    for (auto _ : state) {
        auto data = makePlaybackProgram(nullptr, c.graph, c.program, c.timeline, series);
        benchmark::DoNotOptimize(data->blockScaleBytes);
    }
    count(state, c);
}
BENCHMARK(BM_Index)->Arg(0)->Arg(400)->Unit(benchmark::kMillisecond);

void BM_LiveSet(benchmark::State& state) {
    const Compiled& c = model(state.range(0));
    const LiveSetIndex live(c.graph, c.program);
    std::vector<BufferId> set;
    const std::size_t at = c.timeline.peakInstruction;
    for (auto _ : state) {
        live.liveAfter(at, set);
        benchmark::DoNotOptimize(set.data());
    }
    count(state, c);
}
BENCHMARK(BM_LiveSet)->Arg(0)->Arg(400)->Unit(benchmark::kMicrosecond);

void BM_Caption(benchmark::State& state) {
    const Compiled& c = model(state.range(0));
    const LiveSetIndex live(c.graph, c.program);
    const std::vector<int> layers = opLayers(c.graph);
    // The first recompute: its caption scans its run.
    std::size_t at = 0;
    while (c.program.instructions[at].kind != InstrKind::Recompute) ++at;
    for (auto _ : state)
        benchmark::DoNotOptimize(
            stepCaption(c.graph, c.program, layers, live, at, ByteUnits::Binary));
    count(state, c);
}
BENCHMARK(BM_Caption)->Arg(0)->Arg(400)->Unit(benchmark::kMicrosecond);

// One step forward in the panel, shown at 400 x 600, including its paint.
void BM_PanelStep(benchmark::State& state) {
    const Compiled& c = model(state.range(0));
    StepThroughPanel panel;
    panel.resize(400, 600);
    panel.show();
    panel.setProgram(nullptr, c.graph, c.program, c.timeline);
    panel.setActive(true);
    QApplication::processEvents();
    for (auto _ : state) {
        if (panel.currentStep() + 1 >= panel.stepCount()) panel.goToFirst();
        panel.stepForward();
        panel.repaint();
    }
    count(state, c);
}
BENCHMARK(BM_PanelStep)->Arg(0)->Arg(400)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
