// Shared pieces of the `remat` CLI commands: the options every command takes (model, strategy,
// training overrides, device), turning them into a lowered graph and settings, printing a user
// error, and echoing text from files and arguments safely (`shown`: control characters escaped,
// long text cut). Commands live one per file in app/cli/.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "cluster.h"
#include "device.h"
#include "graph.h"
#include "model_file.h"
#include "result.h"
#include "strategy.h"
#include "text.h"

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
    // Parallel layout overrides (docs/parallelism.md); unset: the model file's `parallel`.
    std::optional<std::int64_t> dp, tp, pp, cp;
    // --gpus: the layout's GPU count, dp x tp x pp x cp. Without --dp it sets dp to N / (tp x pp
    // x cp); with --dp it must equal the product.
    std::optional<std::int64_t> gpus;
    std::string zero, schedule, offload, cluster;
    bool sequenceParallel = false;
    std::string mainGrads;      // --main-grads
    std::string optimizerImpl;  // --optimizer-impl
    std::string lossImpl;       // --loss-impl
    std::string tf32;           // --tf32
    std::string recomputeImpl;  // empty: the file's
};

// Registers MODEL and the shared flags on a subcommand.
void addCommonOptions(CLI::App& cmd, CommonOptions& o, bool withStrategy = true);

// Everything a command needs once the options are resolved.
struct Context {
    std::string origin;  // MODEL as given: the file path or preset name, for messages
    ModelFile model;
    TrainingConfig training;
    DeviceSpec device;
    // The GPUs' cluster: --cluster, else the built-in one made of the device (cluster.h).
    ClusterSpec cluster;
    Graph graph;
    Strategy strategy;
    std::vector<RegionSpec> manual;
    // A calibrated profile applied to another model, precision or backend (sim/calibration.h);
    // resolve() prints them to stderr, `--json` outputs list them under "warnings".
    std::vector<std::string> warnings;
};

Result<Context> resolve(const CommonOptions& o);

// For the commands that execute the step on this machine (run, calibrate): an error naming the
// layout when the model or the flags spread the step over several GPUs, saying how to run the
// single-GPU step instead and which commands predict the layout.
Status singleGpuOnly(const Context& c, const std::string& command);

// The parallel flags onto `p` (a flag given overrides the file's field). --gpus is checked
// against the product of the degrees (or gives dp), naming both when they disagree.
Status applyParallelOptions(const CommonOptions& o, ParallelConfig& p);

// userError for a failure once the model is loaded (a plan that cannot be built, a program too
// large): the message starts with the model file or preset, so it names what it concerns.
int userError(const Context& c, const std::string& message);

// Prints "remat: <message>" to stderr as one line (control characters and newlines escaped) and
// returns the exit code for user errors (2).
int userError(const std::string& message);

// ", got N" for a refused count flag; empty for a value CLI11 saturated (past +-2^62).
std::string echoedCount(std::int64_t v);

// Text from a file or an argument as it may be written to the terminal (remat::printable).
std::string shown(const std::string& text, std::size_t maxChars = kEchoLimit);
// A whole sentence that quotes such text (an unsafe reason): escaped, cut only when very long.
inline constexpr std::size_t kSentenceLimit = 400;

// The model's name as the headers print it: the file's name, else the MODEL argument; escaped.
std::string modelName(const Context& c, const CommonOptions& o);

// The strategies `compare`, `pareto` and `max-batch` list: the named ones, with the file's own
// (manual) plan right after `none` when the file has one.
std::vector<Strategy> listedStrategies(const Context& c);

// Why `plan` is unsafe under the context's training settings (RNG not preserved, an in-place
// write into a kept tensor): the compiler's reasons, empty for a safe plan, or the compiler's
// error when the plan does not compile.
Result<std::vector<std::string>> unsafeReasons(const Context& c, const Plan& plan);

// "mixed-bf16, adamw" and, after them, each framework setting that is not its default
// ("fp32 main grads", "foreach optimizer", "chunked loss", "tf32 all"): the headers' settings.
std::string trainingText(const TrainingConfig& t);
// ", megatron checkpoint" for a checkpoint implementation other than the default, else empty:
// what the headers append to the training settings.
std::string recomputeImplNote(const TrainingConfig& training);

// One JSON document for stdout; strings that are not valid UTF-8 (a name given on the command
// line) are replaced rather than thrown on.
std::string dumpJson(const nlohmann::json& j, int indent = 2);

}  // namespace remat::cli
