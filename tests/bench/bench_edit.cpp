// Speed of an edit in the desktop app, results in docs/performance.md ("Document update in the
// GUI"): a checkpoint toggle on each preset, timed from the edit to the painted frame. The edit
// itself (undo command, evaluation on the GUI thread, TimelinePlot::setData, the summary panel)
// is what Google Benchmark's time measures; the event loop's next turn (layouts and the paint
// of the window, plus whatever background results arrived) is timed apart, and "frame_ms" is
// the two together: the time until the new timeline and summary are on screen. Target: one
// 16 ms frame for every preset, GPT-3 175B included. The budget slider is timed the same way.
// Runs offscreen; also reports the GUI thread's CPU time for the frame ("frame_cpu_ms"), the
// 90th percentile frame and the share of frames over 16 ms, and the timeline's share
// ("plot_ms", wall). Edits run back to back (the worst case: the background comparison restarts
// under every edit) and, for the two largest presets, 150 ms apart as a user clicks. Also timed
// here, for the figures the widget tests used to print: the document's share of an edit alone,
// TimelinePlot::setData alone, and the longest wait of the event loop after opening GPT-3 175B
// or changing its strategy (the comparison then runs in the background). Last, the GUI
// thread's longest block around work near the documented limits (longWork), with evaluations
// in the background and, for comparison, all on the GUI thread as before.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <memory>
#include <vector>

#include "../deep_model.h"
#include "allocator_tuning.h"
#include "budget_slider.h"
#include "document.h"
#include "main_window.h"
#include "model_file.h"
#include "timeline_plot.h"

using namespace remat;
using namespace remat::ui;

namespace {

// The main window on `preset` (at `microBatch` when > 0), shown at 1600 x 1000 and settled; null,
// with the benchmark marked skipped, when the preset or the micro-batch is refused.
std::unique_ptr<MainWindow> openWindow(benchmark::State& state, const char* preset,
                                       std::int64_t microBatch = 0) {
    MainWindow::Options o;
    o.interactive = false;
    o.autosave = false;
    o.restoreSettings = false;
    auto w = std::make_unique<MainWindow>(o);
    if (!w->openModel(QString::fromLatin1(preset))) {
        state.SkipWithError(qPrintable(w->lastError()));
        return nullptr;
    }
    if (microBatch > 0 && !w->document()->setMicroBatch(microBatch).ok()) {
        state.SkipWithError("the micro-batch was refused");
        return nullptr;
    }
    w->resize(1600, 1000);
    w->show();
    QApplication::processEvents();
    return w;
}

void editPreset(benchmark::State& state, const char* preset, int pauseMs = 0,
                bool flipBack = false) {
    const std::unique_ptr<MainWindow> window = openWindow(state, preset);
    if (!window) return;
    MainWindow& w = *window;
    const auto layers = std::int64_t(w.document()->graph().layerModules.size());
    std::int64_t i = 0;
    double cpu = 0.0, plot = 0.0, wall = 0.0, events = 0.0, frame = 0.0, frameCpu = 0.0;
    std::vector<double> frames;
    for (auto _ : state) {
        if (pauseMs > 0) {
            // A user's pace: the event loop runs (and the background comparison with it) for a
            // while before the next click.
            state.PauseTiming();
            QElapsedTimer idle;
            idle.start();
            while (idle.elapsed() < pauseMs) QApplication::processEvents(QEventLoop::AllEvents, 5);
            state.ResumeTiming();
        }
        // Cumulative: layer after layer, until every layer is its own region, then back. Flipped:
        // each layer on and off again, so the plan stays one region away from the preset's.
        const std::int64_t step = i++;
        const std::int64_t layer =
            (flipBack ? step / 2 : step) % std::max<std::int64_t>(1, layers - 1);
        QElapsedTimer edit;
        edit.start();
        const double cpuStart = threadCpuMs();
        if (!w.document()->toggleRegion(RegionSpec{false, layer, layer, ""}).ok()) {
            state.SkipWithError("the toggle was refused");
            return;
        }
        cpu += w.lastUpdateCpuMs();
        wall += w.lastUpdateMs();
        plot += w.timeline()->lastSetDataMs();
        // What the event loop does next (layouts, the paint of the frame, the background
        // comparison's results) is timed apart.
        state.PauseTiming();
        QElapsedTimer loop;
        loop.start();
        QApplication::processEvents();
        events += double(loop.nsecsElapsed()) / 1e6;
        frame += double(edit.nsecsElapsed()) / 1e6;
        frames.push_back(double(edit.nsecsElapsed()) / 1e6);
        frameCpu += threadCpuMs() - cpuStart;
        state.ResumeTiming();
    }
    const double n = double(std::max<std::int64_t>(1, i));
    state.counters["cpu_ms"] = cpu / n;
    state.counters["wall_ms"] = wall / n;      // the window's own measure of the same span
    state.counters["events_ms"] = events / n;  // the event loop's turn after the edit (wall)
    state.counters["plot_ms"] = plot / n;      // TimelinePlot::setData, replot included (wall)
    state.counters["frame_ms"] = frame / n;    // edit + the next turn: the frame on screen (wall)
    state.counters["frame_cpu_ms"] = frameCpu / n;  // the same span, GUI-thread CPU time
    // The share of edits whose frame missed 16 ms, and the 90th percentile frame.
    if (!frames.empty()) {
        std::sort(frames.begin(), frames.end());
        state.counters["frame_p90_ms"] = frames[frames.size() * 9 / 10];
        state.counters["over_16ms"] =
            double(frames.end() - std::upper_bound(frames.begin(), frames.end(), 16.0)) /
            double(frames.size());
    }
}

// The budget slider (issue 5): each step moves the slider between a quarter and three quarters
// of its range, which re-plans with optimal:B, re-simulates and re-plots; timed like an edit,
// up to the painted frame. Targets: one frame for GPT-2 small, 100 ms for GPT-3 175B (at
// micro-batch 16: at its preset's 1 no plan lowers the peak and the slider is disabled).
void slidePreset(benchmark::State& state, const char* preset, std::int64_t microBatch) {
    const std::unique_ptr<MainWindow> window = openWindow(state, preset, microBatch);
    if (!window) return;
    auto* budget = window->findChild<BudgetSlider*>();
    if (!budget || !budget->slider()->isEnabled()) {
        state.SkipWithError("no budget slider");
        return;
    }
    QSlider* slider = budget->slider();
    const int lo = slider->minimum(), hi = slider->maximum();
    std::int64_t i = 0;
    double frame = 0.0, frameCpu = 0.0;
    for (auto _ : state) {
        const int position = (i++ % 2) ? lo + (hi - lo) / 4 : lo + 3 * (hi - lo) / 4;
        QElapsedTimer t;
        t.start();
        const double cpuStart = threadCpuMs();
        slider->setValue(position);
        state.PauseTiming();
        QApplication::processEvents();
        frame += double(t.nsecsElapsed()) / 1e6;
        frameCpu += threadCpuMs() - cpuStart;
        state.ResumeTiming();
    }
    const double n = double(std::max<std::int64_t>(1, i));
    state.counters["frame_ms"] = frame / n;
    state.counters["frame_cpu_ms"] = frameCpu / n;
}

// The document's part of an edit alone (undo command, evaluation with the cached graph and
// baseline, no views): what tst_document checks for behaviour, timed. "cpu_ms" is the GUI
// thread's CPU time, which does not depend on what else the machine runs; the target is well
// inside one 16 ms frame for every preset.
void documentEdit(benchmark::State& state, const char* preset) {
    Document doc;
    if (!doc.open(QString::fromLatin1(preset)).ok()) {
        state.SkipWithError("the preset was refused");
        return;
    }
    const auto layers = std::int64_t(doc.graph().layerModules.size());
    std::int64_t i = 0;
    double cpu = 0.0;
    for (auto _ : state) {
        const std::int64_t layer = i++ % std::max<std::int64_t>(1, layers - 1);
        const double cpuStart = threadCpuMs();
        if (!doc.toggleRegion(RegionSpec{false, layer, layer, ""}).ok()) {
            state.SkipWithError("the toggle was refused");
            return;
        }
        cpu += threadCpuMs() - cpuStart;
    }
    state.counters["cpu_ms"] = cpu / double(std::max<std::int64_t>(1, i));
    state.counters["instructions"] = double(doc.evaluation().program.instructions.size());
}

// TimelinePlot::setData on its own (decimation, drawing, labels), from a state the plot shares
// (the interactive path) and through the copying overload; tst_timeline_plot checks that both
// draw the same.
void replotPreset(benchmark::State& state, const char* preset, const char* strategy, bool copying) {
    Document doc;
    if (!doc.open(QString::fromLatin1(preset)).ok() ||
        !doc.setStrategy(QString::fromLatin1(strategy)).ok()) {
        state.SkipWithError("the preset or strategy was refused");
        return;
    }
    const auto s = doc.stateHandle();
    TimelinePlot plot;
    plot.resize(1400, 600);
    plot.show();
    QApplication::processEvents();
    double cpu = 0.0;
    std::int64_t n = 0;
    for (auto _ : state) {
        const double cpuStart = threadCpuMs();
        if (copying)
            plot.setData(*s->graph, s->evaluation.program, s->evaluation.timeline, s->device);
        else
            plot.setData(s, *s->graph, s->evaluation.program, s->evaluation.timeline, s->device);
        cpu += threadCpuMs() - cpuStart;
        ++n;
    }
    state.counters["cpu_ms"] = cpu / double(std::max<std::int64_t>(1, n));
    state.counters["drawn"] = double(plot.displayedInstructions().size());
}

// The longest the GUI thread is busy without returning to the event loop, after one action
// (opening a preset, or a strategy change) while the background comparison that follows runs:
// a 1 ms timer measures the gaps between its ticks for `settleMs`. "longest_gap_ms" above 100 is
// a freeze a user notices.
void longestGap(benchmark::State& state, const char* preset, bool changeStrategy) {
    const std::unique_ptr<MainWindow> window = openWindow(state, "mlp-3x1024");
    if (!window) return;
    MainWindow& w = *window;
    double action = 0.0, longest = 0.0;
    std::int64_t n = 0;
    for (auto _ : state) {
        state.PauseTiming();
        if (changeStrategy && !w.openModel(QString::fromLatin1(preset))) {
            state.SkipWithError("the preset was refused");
            return;
        }
        for (int k = 0; k < 50; ++k) QApplication::processEvents();
        state.ResumeTiming();
        QElapsedTimer t;
        t.start();
        const bool ok = changeStrategy ? w.document()
                                             ->setStrategy(n % 2 ? QStringLiteral("sqrt")
                                                                 : QStringLiteral("every:3"))
                                             .ok()
                                       : w.openModel(QString::fromLatin1(preset));
        action += double(t.nsecsElapsed()) / 1e6;
        if (!ok) {
            state.SkipWithError("the action was refused");
            return;
        }
        state.PauseTiming();
        // The background comparison runs now; the GUI thread only receives its results.
        QElapsedTimer settle, tick;
        settle.start();
        tick.start();
        double gap = 0.0;
        while (settle.elapsed() < 3000) {
            QApplication::processEvents(QEventLoop::AllEvents, 1);
            gap = std::max(gap, double(tick.nsecsElapsed()) / 1e6);
            tick.restart();
        }
        longest = std::max(longest, gap);
        if (!changeStrategy) (void)w.openModel(QStringLiteral("mlp-3x1024"));
        ++n;
        state.ResumeTiming();
    }
    const double count = double(std::max<std::int64_t>(1, n));
    state.counters["action_ms"] = action / count;  // the synchronous part (wall)
    state.counters["longest_gap_ms"] = longest;    // the event loop's longest wait after it
}

// Work near the documented limits (docs/model-format.md), timed for the GUI thread's longest
// block: from the action to the moment its result is on screen, a 1 ms timer measures the gaps
// between its ticks, and the action call itself counts as one gap. "block_ms" is the longest
// of them — what the window is frozen for — and "done_ms" the time until the result is
// applied (the document idle again). `background` false evaluates everything on the GUI thread
// as before evaluations could run in the background (the "before" figures).
enum class LongWork {
    Revolve364,   // GPT-2 small with 364 layer instances: full -> revolve:1 (3.9 M instr.)
    Open2000,     // opening GPT-2 small with 1,996 blocks: 2,000 layer instances
    Revolve2000,  // the same with revolve:4 (1.63 M instructions)
    OptimalGpt3,  // GPT-3 175B at micro-batch 16: optimal at mid-range
    Optimal2000,  // the 2,000-instance model: optimal at mid-range
    SlideGpt3,    // six budget slider positions 20 ms apart on GPT-3 175B (micro-batch 16)
    Slide2000,    // the same on the 2,000-instance model
};

constexpr qint64 kLongWorkLimitMs = 60000;

void longWork(benchmark::State& state, LongWork work, bool background) {
    MainWindow::Options o;
    o.interactive = false;
    o.autosave = false;
    o.restoreSettings = false;
    double block = 0.0, blockCpu = 0.0, done = 0.0, call = 0.0, apply = 0.0, applyCpu = 0.0;
    bool cancelled = false;
    std::int64_t n = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto w = std::make_unique<MainWindow>(o);
        Document* doc = w->document();
        doc->setBackgroundEvaluation(background);
        const bool big = work == LongWork::Revolve2000 || work == LongWork::Optimal2000 ||
                         work == LongWork::Slide2000;
        const bool gpt3 = work == LongWork::OptimalGpt3 || work == LongWork::SlideGpt3;
        bool ok = true;
        if (big)
            ok = doc->openModel(remat::test::presetWithInstances(2000), QString()).ok() &&
                 doc->waitUntilIdle().ok();
        if (gpt3) ok = w->openModel(QStringLiteral("gpt3-175b")) && doc->setMicroBatch(16).ok();
        if (work == LongWork::Revolve364)
            ok = doc->openModel(remat::test::presetWithInstances(364), QString()).ok() &&
                 doc->waitUntilIdle().ok() && doc->setStrategy(QStringLiteral("full")).ok();
        w->resize(1600, 1000);
        w->show();
        while (doc->isBusy() || !ok) {
            if (!ok) {
                state.SkipWithError("the model was refused");
                return;
            }
            QApplication::processEvents(QEventLoop::AllEvents, 5);
        }
        auto* budget = w->findChild<BudgetSlider*>();
        QElapsedTimer wait;
        wait.start();
        while (budget && !budget->slider()->isEnabled() && wait.elapsed() < 120000)
            QApplication::processEvents(QEventLoop::AllEvents, 5);
        QApplication::processEvents();
        const QString mid =
            QString::number(budget ? (budget->minimumBytes() + budget->maximumBytes()) / 2 : 0);
        state.ResumeTiming();

        QElapsedTimer total, tick;
        total.start();
        tick.start();
        double longest = 0.0, longestCpu = 0.0, tickCpu = threadCpuMs();
        auto gap = [&] {
            longest = std::max(longest, double(tick.nsecsElapsed()) / 1e6);
            tick.restart();
            // The same gap in the GUI thread's CPU time: what it cost, whatever the load.
            const double now = threadCpuMs();
            longestCpu = std::max(longestCpu, now - tickCpu);
            tickCpu = now;
        };
        Status st = Ok{};
        switch (work) {
            case LongWork::Revolve364:
                st = doc->setStrategy(QStringLiteral("revolve:1"));
                break;
            case LongWork::Open2000:
                st = doc->openModel(remat::test::presetWithInstances(2000), QString());
                break;
            case LongWork::Revolve2000:
                st = doc->setStrategy(QStringLiteral("revolve:4"));
                break;
            case LongWork::OptimalGpt3:
            case LongWork::Optimal2000:
                st = doc->setStrategy(QStringLiteral("optimal:") + mid);
                break;
            case LongWork::SlideGpt3:
            case LongWork::Slide2000: {
                QSlider* slider = budget->slider();
                for (int k = 0; k < 6; ++k) {
                    slider->setValue(slider->minimum() +
                                     (slider->maximum() - slider->minimum()) * (2 + k) / 10);
                    gap();
                    QElapsedTimer pace;
                    pace.start();
                    while (pace.elapsed() < 20) {
                        QApplication::processEvents(QEventLoop::AllEvents, 1);
                        gap();
                        QThread::msleep(1);
                    }
                }
                break;
            }
        }
        call += double(tick.nsecsElapsed()) / 1e6;
        gap();
        if (!st.ok()) {
            state.SkipWithError(st.error().message.c_str());
            return;
        }
        {
            // Wait as the window does: asleep until an event comes (the ticks, the result).
            QTimer ticks;
            ticks.setInterval(1);
            QObject::connect(&ticks, &QTimer::timeout, gap);
            ticks.start();
            // Work that takes longer than a minute is cancelled: how long the window is
            // blocked is the figure here, and Cancel must not block it either.
            QElapsedTimer limit;
            limit.start();
            while (doc->isBusy() && limit.elapsed() < kLongWorkLimitMs)
                QApplication::processEvents(QEventLoop::WaitForMoreEvents);
            if (doc->isBusy()) {
                doc->cancelEvaluation();
                gap();
                cancelled = true;
            }
        }
        // The frame that shows the result.
        QApplication::processEvents();
        gap();
        done += double(total.nsecsElapsed()) / 1e6;
        // The GUI thread's share of applying the result: the views' update after the evaluation.
        apply = std::max(apply, w->lastUpdateMs() - doc->state().evaluateMs);
        applyCpu = std::max(applyCpu, w->lastUpdateCpuMs() - doc->state().evaluateCpuMs);
        block = std::max(block, longest);
        blockCpu = std::max(blockCpu, longestCpu);
        ++n;
        state.PauseTiming();
        w.reset();
        state.ResumeTiming();
    }
    const double count = double(std::max<std::int64_t>(1, n));
    state.counters["block_ms"] = block;               // the GUI thread's longest block (wall)
    state.counters["block_cpu_ms"] = blockCpu;  // the most GUI-thread CPU time between two ticks
    state.counters["call_ms"] = call / count;         // the action call (and drags) alone
    state.counters["done_ms"] = done / count;         // until the result is applied and shown
    state.counters["apply_ms"] = apply;               // the views' update with the result (wall)
    state.counters["apply_cpu_ms"] = applyCpu;        // the same in the GUI thread's CPU time
    state.counters["cancelled"] = cancelled ? 1 : 0;  // not done within a minute: cancelled
}

}  // namespace

#define REMAT_LONG_WORK(name, work, background)         \
    BENCHMARK_CAPTURE(longWork, name, work, background) \
        ->Iterations(1)                                 \
        ->Unit(benchmark::kMillisecond)
REMAT_LONG_WORK(revolve_364_instances_before, LongWork::Revolve364, false);
REMAT_LONG_WORK(revolve_364_instances_background, LongWork::Revolve364, true);
REMAT_LONG_WORK(open_2000_instances_before, LongWork::Open2000, false);
REMAT_LONG_WORK(open_2000_instances_background, LongWork::Open2000, true);
REMAT_LONG_WORK(revolve_2000_instances_before, LongWork::Revolve2000, false);
REMAT_LONG_WORK(revolve_2000_instances_background, LongWork::Revolve2000, true);
REMAT_LONG_WORK(optimal_gpt3_175b_before, LongWork::OptimalGpt3, false);
REMAT_LONG_WORK(optimal_gpt3_175b_background, LongWork::OptimalGpt3, true);
REMAT_LONG_WORK(slider_gpt3_175b_before, LongWork::SlideGpt3, false);
REMAT_LONG_WORK(slider_gpt3_175b_background, LongWork::SlideGpt3, true);
// On the GUI thread these take minutes on a loaded 2-core machine (`remat simulate` with the
// same model and budget: 18 s of CPU); only the background runs are timed.
REMAT_LONG_WORK(optimal_2000_instances_background, LongWork::Optimal2000, true);
REMAT_LONG_WORK(slider_2000_instances_background, LongWork::Slide2000, true);

BENCHMARK_CAPTURE(slidePreset, gpt2_small, "gpt2-small", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(slidePreset, gpt3_175b_b16, "gpt3-175b", 16)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, mlp_3x1024, "mlp-3x1024")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, gpt2_small, "gpt2-small")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, resnet_101, "resnet-101")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, llama_7b, "llama-7b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, gpt3_175b, "gpt3-175b")->Unit(benchmark::kMillisecond);
// Each layer on and off again: the plan stays one region away from the preset's.
BENCHMARK_CAPTURE(editPreset, resnet_101_flip, "resnet-101", 0, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, gpt3_175b_flip, "gpt3-175b", 0, true)->Unit(benchmark::kMillisecond);
// Edits 150 ms apart, the comparison running in between: what a user clicking through the stack
// sees. (The runs above are back to back, the comparison restarting under every edit.)
BENCHMARK_CAPTURE(editPreset, resnet_101_paced, "resnet-101", 150)
    ->Iterations(40)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(editPreset, gpt3_175b_paced, "gpt3-175b", 150)
    ->Iterations(40)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(documentEdit, mlp_3x1024, "mlp-3x1024")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(documentEdit, gpt2_small, "gpt2-small")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(documentEdit, resnet_101, "resnet-101")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(documentEdit, llama_7b, "llama-7b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(documentEdit, gpt3_175b, "gpt3-175b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replotPreset, gpt2_small_every3, "gpt2-small", "every:3", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replotPreset, gpt3_175b_sqrt, "gpt3-175b", "sqrt", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(replotPreset, gpt3_175b_sqrt_copying, "gpt3-175b", "sqrt", true)
    ->Unit(benchmark::kMillisecond);
// Responsiveness around the heaviest actions: opening GPT-3 175B, and a strategy change on it.
BENCHMARK_CAPTURE(longestGap, open_gpt3_175b, "gpt3-175b", false)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(longestGap, strategy_gpt3_175b, "gpt3-175b", true)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    remat::keepFreedMemoryForReuse();  // as remat-studio does
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
