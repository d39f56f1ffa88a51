// Helpers shared by the executor tests: a model text parsed, lowered and compiled, each step
// ending the test run with its message when it fails (the texts are the tests' own).
#pragma once

#include <QtTest/QtTest>
#include <string>

#include "compiler.h"
#include "lower.h"
#include "model_file.h"

namespace remat::test {

inline ModelFile parse(const std::string& json) {
    auto m = parseModel(json, "test");
    if (!m) qFatal("%s", m.error().message.c_str());
    return *m;
}

inline Graph lowerOrDie(const ModelFile& m, Precision precision) {
    auto g = lower(m.network, precision);
    if (!g) qFatal("%s", g.error().message.c_str());
    return std::move(*g);
}

inline Program compileOrDie(const Graph& g, const Plan& plan, const TrainingConfig& cfg) {
    auto p = compile(g, plan, cfg, CompileOptions{});
    if (!p) qFatal("%s", p.error().message.c_str());
    return std::move(*p);
}

}  // namespace remat::test
