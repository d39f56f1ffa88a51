// `remat`: the command-line front end (no Qt), so that it builds and runs on a headless GPU
// machine with only a compiler and the CUDA toolkit.
//
// Exit codes: 0 success, 1 a run whose check failed (`run`, `selftest`), 2 a user error (a bad
// argument or file, an input that asks for more memory than the machine has), 3 a bug in remat
// itself. Nothing a file or an argument contains may reach 3: every exception that input can
// cause is caught here as a one-line user error.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "allocator_tuning.h"
#include "cli/commands.h"
#include "text.h"

namespace {

// "remat simulate" for the subcommand that was running; "remat" before one was chosen.
std::string commandName(const CLI::App& app) {
    std::string name = "remat";
    for (const CLI::App* sub : app.get_subcommands()) name += " " + sub->get_name();
    return name;
}

int oneLine(const std::string& message, int code) {
    std::cerr << "remat: " << remat::printable(message, 4000) << "\n";
    return code;
}

}  // namespace

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
    remat::cli::addSweep(app, exitCode);
    remat::cli::addFit(app, exitCode);
    remat::cli::addImportHf(app, exitCode);
    remat::cli::addExport(app, exitCode);
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
        // CLI11 quotes the offending value; it is escaped like any echoed text.
        std::cerr << "remat: " << remat::printable(e.what(), 400)
                  << " (run 'remat --help' or 'remat COMMAND --help')\n";
        return 2;
    } catch (const std::bad_alloc&) {
        return oneLine("out of memory while running '" + commandName(app) +
                           "'; the input asks for more than this machine has",
                       2);
    } catch (const std::length_error&) {
        // A container asked to grow past what it can address: a size from the input.
        return oneLine("out of memory while running '" + commandName(app) +
                           "'; the input asks for more than this machine has",
                       2);
    } catch (const nlohmann::json::exception& e) {
        // Library code turns every JSON failure into a message naming the file; one that gets
        // here is still about the input, not a broken program.
        return oneLine("could not use the input of '" + commandName(app) + "': " + e.what(), 2);
    } catch (const std::exception& e) {
        return oneLine("internal error in '" + commandName(app) + "' (a bug in remat, please " +
                           "report it with the command line and input): " + e.what(),
                       3);
    } catch (...) {
        return oneLine("internal error in '" + commandName(app) + "' (a bug in remat, please " +
                           "report it with the command line and input)",
                       3);
    }
    return exitCode;
}
