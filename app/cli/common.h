// Shared pieces of the `remat` CLI commands: the options every command takes (model, strategy,
// training overrides, device), turning them into a lowered graph and settings, and printing a
// user error. Commands live one per file in app/cli/.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "device.h"
#include "graph.h"
#include "model_file.h"
#include "result.h"
#include "strategy.h"

namespace remat::cli {

struct CommonOptions {
    std::string model;
    std::string strategy;  // empty: the file's
    std::optional<std::int64_t> microBatch;
    std::optional<std::int64_t> accum;
    std::string precision;
    std::string optimizer;
    std::string device;
    bool json = false;
};

// Registers MODEL and the shared flags on a subcommand.
void addCommonOptions(CLI::App& cmd, CommonOptions& o, bool withStrategy = true);

// Everything a command needs once the options are resolved.
struct Context {
    ModelFile model;
    TrainingConfig training;
    DeviceSpec device;
    Graph graph;
    Strategy strategy;
    std::vector<RegionSpec> manual;
};

Result<Context> resolve(const CommonOptions& o);

// Prints "remat: <message>" to stderr and returns the exit code for user errors.
int userError(const std::string& message);

}  // namespace remat::cli
