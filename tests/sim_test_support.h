// Helpers shared by the simulator tests: a unit device with round numbers and no reserve, and
// one-call build of (graph, program, timeline) from a model text and a strategy spelling.
#pragma once

#include <QtTest/QtTest>
#include <string>

#include "analysis.h"
#include "lower.h"
#include "model_file.h"
#include "simulator.h"
#include "strategy.h"

namespace remat::test {

// 1 TFLOP/s, 1 TB/s, no launch overhead, no reserve, no GEMM workspace: bytes in a program
// are then exactly the tensors the test reasons about.
inline DeviceSpec unitDevice(std::int64_t memoryBytes = std::int64_t{1} << 40) {
    DeviceSpec d;
    d.id = "unit";
    d.name = "unit";
    d.memoryBytes = memoryBytes;
    d.peakFp32 = d.peakTf32 = d.peakBf16 = d.peakFp16 = 1e12;
    d.bandwidthBytesPerS = 1e12;
    return d;
}

struct Built {
    ModelFile model;
    Graph graph;
    Program program;
    Timeline timeline;
};

inline Built build(const std::string& modelJson, const std::string& strategy,
                   const TrainingConfig* training = nullptr,
                   const DeviceSpec& device = unitDevice()) {
    Built b;
    auto m = parseModel(modelJson, "test.json");
    if (!m) qFatal("model: %s", m.error().message.c_str());
    b.model = *m;
    TrainingConfig cfg = training ? *training : b.model.training;
    auto g = lower(b.model.network, cfg);
    if (!g) qFatal("lower: %s", g.error().message.c_str());
    b.graph = std::move(*g);
    auto s = parseStrategy(strategy);
    if (!s) qFatal("strategy: %s", s.error().message.c_str());
    auto plan = makePlan(b.graph, *s, manualRegions(b.model));
    if (!plan) qFatal("plan: %s", plan.error().message.c_str());
    CompileOptions opt;
    opt.gemmWorkspaceBytes = device.gemmWorkspaceBytes;
    auto p = compile(b.graph, *plan, cfg, opt);
    if (!p) qFatal("compile: %s", p.error().message.c_str());
    b.program = std::move(*p);
    b.timeline = simulate(b.graph, b.program, device);
    return b;
}

inline std::int64_t liveAt(const Built& b, std::size_t i) { return totalBytes(b.timeline.live[i]); }

inline std::size_t countKind(const Program& p, InstrKind k) {
    std::size_t n = 0;
    for (const auto& ins : p.instructions) n += ins.kind == k;
    return n;
}

}  // namespace remat::test
