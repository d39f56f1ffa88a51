// `remat`: the command-line front end (no Qt), so that it builds and runs on a headless GPU
// machine with only a compiler and the CUDA toolkit.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "allocator_tuning.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
    remat::keepFreedMemoryForReuse();
    CLI::App app{"remat: predict and measure activation checkpointing plans"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "remat 0.1.0");
    int exitCode = 0;
    remat::cli::addSimulate(app, exitCode);
    remat::cli::addCompare(app, exitCode);
    remat::cli::addProgram(app, exitCode);
    remat::cli::addRun(app, exitCode);
    remat::cli::addSelftest(app, exitCode);
    remat::cli::addCalibrate(app, exitCode);
    remat::cli::addPareto(app, exitCode);
    remat::cli::addMaxBatch(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // Argument mistakes are user errors like any other: one "remat:" line, exit code 2.
        std::cerr << "remat: " << e.what() << "\n(run 'remat --help' or 'remat COMMAND --help')\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "remat: internal error: " << e.what() << "\n";
        return 3;
    }
    return exitCode;
}
