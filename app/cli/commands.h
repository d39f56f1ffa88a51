// The `remat` subcommands. Each `add*` registers its subcommand on the app and binds a handler
// that sets `exitCode` when the subcommand runs.
#pragma once

#include <CLI/CLI.hpp>

namespace remat::cli {

void addSimulate(CLI::App& app, int& exitCode);
void addCompare(CLI::App& app, int& exitCode);
void addProgram(CLI::App& app, int& exitCode);
void addRun(CLI::App& app, int& exitCode);
void addSelftest(CLI::App& app, int& exitCode);
void addCalibrate(CLI::App& app, int& exitCode);
void addPareto(CLI::App& app, int& exitCode);
void addMaxBatch(CLI::App& app, int& exitCode);
void addSweep(CLI::App& app, int& exitCode);
void addImportHf(CLI::App& app, int& exitCode);
void addFit(CLI::App& app, int& exitCode);
void addExport(CLI::App& app, int& exitCode);

}  // namespace remat::cli
