#include "fuzz_entries.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis.h"
#include "calibration.h"
#include "cluster.h"
#include "cli/commands.h"
#include "device.h"
#include "hf_import.h"
#include "lower.h"
#include "memory_snapshot.h"
#include "model_file.h"
#include "network.h"
#include "pickle_reader.h"
#include "report.h"
#include "strategy.h"
#include "text.h"

namespace remat::fuzz {

namespace {

// Work bound for accepted inputs: a model whose lowered graph has more ops than this is
// skipped after lowering, and one with more expanded layer instances before lowering, so that
// the fuzzer's time goes into breadth rather than into one GPT-3 after another (eight
// evaluations of GPT-3 175B's 2,000 ops take seconds under the sanitizers). LLaMA-7B (about
// 800 ops) and every smaller preset go all the way through.
constexpr std::int64_t kMaxFuzzLayers = 256;
constexpr std::size_t kMaxFuzzOps = 1024;
// A rejection message is one line: the origin, a JSON path or flag, and echoed values cut by
// printable() to 80 characters each. This is a generous ceiling for that.
constexpr std::size_t kMaxMessageBytes = 1024;
// Arguments per CLI input: more than any real command line of the read-only commands uses.
constexpr std::size_t kMaxCliArgs = 24;

[[noreturn]] void broken(std::string_view what, std::string_view detail) {
    std::fprintf(stderr, "fuzz contract broken: %.*s\n  %s\n", int(what.size()), what.data(),
                 printable(detail, 400).c_str());
    std::fflush(stderr);
    std::abort();
}

bool validUtf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (n == 0 || i + n > s.size()) return false;
        for (std::size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
        i += n;
    }
    return true;
}

// Text that reaches a terminal: no control characters but newlines (and tabs where allowed),
// valid UTF-8.
bool terminalSafe(std::string_view s, bool allowNewlines) {
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n' && allowNewlines) continue;
        if (c == '\t' && allowNewlines) continue;
        if (c < 0x20 || c == 0x7f) return false;
    }
    return validUtf8(s);
}

// The rejection message of the last input, for fuzz_replay's listing.
std::string g_lastMessage;

// `where` names the stage in the failure report; `originFirst`: the message must start with
// "fuzz: " (parser messages name the file first; later stages are prefixed by their caller).
void checkMessage(std::string_view where, const std::string& message, bool originFirst) {
    if (g_lastMessage.empty()) g_lastMessage = message;
    if (message.empty()) broken(where, "empty error message");
    if (message.size() > kMaxMessageBytes)
        broken(where, "error message of " + std::to_string(message.size()) + " bytes: " + message);
    if (!terminalSafe(message, false))
        broken(where, "error message is not one printable line: " + message);
    if (originFirst && message.rfind(std::string(kOrigin) + ": ", 0) != 0)
        broken(where, "error message does not start with the file: " + message);
}

bool allNumbersFinite(const nlohmann::json& j) {
    if (j.is_number_float()) return std::isfinite(j.get<double>());
    if (j.is_structured())
        for (const auto& v : j) if (!allNumbersFinite(v)) return false;
    return true;
}

bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

void checkPhases(std::string_view where, const PhaseTotals& p, std::string_view what) {
    for (double v : {p.forward, p.recompute, p.backward, p.optimizer, p.total()})
        if (!finiteNonNegative(v))
            broken(where, std::string(what) + " is negative or not finite: " + std::to_string(v));
}

void checkEvaluation(std::string_view where, const Graph& g, const Evaluation& e,
                     const DeviceSpec& d) {
    const Timeline& t = e.timeline;
    if (t.peakBytes < 0) broken(where, "negative peak " + std::to_string(t.peakBytes));
    if (t.savedActivationBytes < 0) broken(where, "negative saved activations");
    for (std::int64_t b : t.breakdownAtPeak)
        if (b < 0) broken(where, "negative category at the peak " + std::to_string(b));
    if (!e.program.instructions.empty() && t.peakInstruction >= e.program.instructions.size())
        broken(where, "peak instruction outside the program");
    checkPhases(where, t.flops, "FLOP count");
    checkPhases(where, t.timeS, "step time");
    if (t.maxMicroBatch < 0 || t.maxMicroBatch > kMaxMicroBatch)
        broken(where, "largest micro-batch " + std::to_string(t.maxMicroBatch));
    if (e.baselinePeakBytes < 0) broken(where, "negative baseline peak");
    if (!std::isfinite(e.recomputeOverhead()) || !std::isfinite(e.memorySavedFraction()))
        broken(where, "overhead or saving is not finite");
    // What `simulate --json` prints must serialise (a JSON exception is the CLI's exit 3) and
    // hold no NaN or infinity (which the JSON writer would print as null).
    try {
        const nlohmann::json report = evaluationToJson(g, e, d);
        if (!allNumbersFinite(report))
            broken(where, "the JSON report holds a NaN or infinity: " + report.dump().substr(0, 300));
        (void)report.dump();
    } catch (const std::exception& ex) {
        broken(where, std::string("the JSON report throws: ") + ex.what());
    }
}

void checkGraph(const Graph& g) {
    if (g.parameterCount < 0) broken("lower", "negative parameter count");
    for (const Op& op : g.ops) {
        for (const OpCost* c : {&op.forward, &op.backward})
            for (const Affine* a : {&c->flops, &c->bytesMoved})
                if (a->perSample < 0 || a->fixed < 0)
                    broken("lower", "op " + op.name + ": negative FLOPs or bytes (overflow)");
        for (const Affine* a : {&op.workspaceForward, &op.workspaceBackward})
            if (a->perSample < 0 || a->fixed < 0)
                broken("lower", "op " + op.name + ": negative workspace (overflow)");
    }
}

Strategy named(const char* spelling) {
    auto s = parseStrategy(spelling);
    if (!s) broken("parseStrategy", std::string(spelling) + ": " + s.error().message);
    return *s;
}

// Every strategy family on the same graph: the file's own plan, the named strategies, Revolve
// and the budgeted optimum (a budget between the all-checkpointed and the baseline peak).
void evaluateStrategies(const Graph& g, const ModelFile& m, const DeviceSpec& device) {
    const TrainingConfig& cfg = m.training;
    auto baseline = evaluateBaseline(g, cfg, device);
    if (!baseline) {
        checkMessage("evaluateBaseline", baseline.error().message, false);
        return;
    }
    std::vector<Strategy> strategies;
    auto own = parseStrategy(defaultStrategy(m));
    if (!own) checkMessage("parseStrategy(file)", own.error().message, false);
    else strategies.push_back(*own);
    for (const char* s : {"none", "full", "every:2", "sqrt", "selective:attention,mlp", "revolve:2"})
        strategies.push_back(named(s));
    Strategy optimal;
    optimal.kind = StrategyKind::Optimal;
    optimal.budgetBytes = std::max<std::int64_t>(1, baseline->peakBytes / 4 * 3);
    strategies.push_back(optimal);

    const std::vector<RegionSpec> manual = manualRegions(m);
    for (const Strategy& s : strategies) {
        auto e = evaluate(g, s, manual, cfg, device, &*baseline);
        if (!e) {
            checkMessage("evaluate", e.error().message, false);
            continue;
        }
        checkEvaluation("evaluate " + s.spelling(), g, *e, device);
    }
}

const DeviceSpec& defaultDevice() {
    static const DeviceSpec d = [] {
        auto r = findDevice("a100-80gb");
        if (!r) broken("setup", r.error().message);
        return *r;
    }();
    return d;
}

bool isBuiltinDevice(const std::string& id) {
    const auto& all = builtinDevices();
    return std::any_of(all.begin(), all.end(), [&](const DeviceSpec& d) { return d.id == id; });
}

}  // namespace

Outcome fuzzModelFile(std::string_view input) {
    g_lastMessage.clear();
    const std::string text(input);
    auto m = parseModel(text, std::string(kOrigin));
    if (!m) {
        checkMessage("parseModel", m.error().message, true);
        return Outcome::Rejected;
    }
    // Accepted files round-trip exactly (docs/model-format.md).
    try {
        auto again = parseModel(modelToJson(*m), "again");
        if (!again) broken("round trip", again.error().message);
        if (!(*again == *m)) broken("round trip", "the model changed: " + modelToJson(*m));
    } catch (const std::exception& ex) {
        broken("modelToJson", ex.what());
    }
    if (expandedLayerCount(m->network) > kMaxFuzzLayers) return Outcome::Skipped;
    auto g = lower(m->network, m->training.precision);
    if (!g) {
        checkMessage("lower", g.error().message, false);
        return Outcome::Rejected;
    }
    checkGraph(*g);
    if (g->ops.size() > kMaxFuzzOps) return Outcome::Skipped;
    // A device named by the file is used when built in; a path would make the fuzzer read
    // whatever file its mutations spell.
    const DeviceSpec* device = &defaultDevice();
    DeviceSpec named;
    if (!m->device.empty() && isBuiltinDevice(m->device)) {
        named = *findDevice(m->device);
        device = &named;
    }
    evaluateStrategies(*g, *m, *device);
    return Outcome::Accepted;
}

Outcome fuzzDeviceProfile(std::string_view input) {
    g_lastMessage.clear();
    const std::string text(input);
    auto d = parseDevice(text, std::string(kOrigin));
    if (!d) {
        checkMessage("parseDevice", d.error().message, true);
        return Outcome::Rejected;
    }
    if (d->usableBytes() <= 0) broken("parseDevice", "accepted a profile with no usable memory");
    // An accepted profile is written back (the calibrate command does) and read again.
    try {
        auto again = parseDevice(deviceToJson(*d), "again");
        if (!again) broken("device round trip", again.error().message);
        if (again->memoryBytes != d->memoryBytes || again->reserveBytes != d->reserveBytes ||
            again->measured.size() != d->measured.size() || again->peakFp32 != d->peakFp32 ||
            again->launchOverheadS != d->launchOverheadS ||
            again->measuredByShape.size() != d->measuredByShape.size() ||
            again->efficiency.present != d->efficiency.present ||
            again->efficiency.gemmBf16 != d->efficiency.gemmBf16 ||
            again->efficiency.tileM != d->efficiency.tileM ||
            again->calibrationOrigin.model != d->calibrationOrigin.model)
            broken("device round trip", "the profile changed: " + deviceToJson(*d));
    } catch (const std::exception& ex) {
        broken("deviceToJson", ex.what());
    }
    // Predictions on this device are finite: a small transformer (whose op names calibrated
    // seeds use) in full and mixed precision, with and without checkpointing.
    static const ModelFile tiny = [] {
        auto m = loadModel("gpt2-tiny");
        if (!m) broken("setup", m.error().message);
        return *m;
    }();
    for (Precision p : {Precision::Fp32, Precision::MixedBf16}) {
        auto g = lower(tiny.network, p);
        if (!g) broken("setup", g.error().message);
        TrainingConfig cfg = tiny.training;
        cfg.precision = p;
        // The mismatch warnings of a calibrated profile are sentences, never a crash.
        for (const std::string& w : calibrationWarnings(*d, *g, p, tiny.network.name))
            if (w.empty()) broken("calibrationWarnings", "an empty warning");
        for (const char* s : {"none", "full"}) {
            auto e = evaluate(*g, named(s), {}, cfg, *d);
            if (!e) {
                checkMessage("evaluate on the profile", e.error().message, false);
                continue;
            }
            checkEvaluation(std::string("evaluate ") + s + " on the profile", *g, *e, *d);
        }
    }
    return Outcome::Accepted;
}

// A Hugging Face config: imported (sim/hf_import.h), the import's text fields checked (they
// reach the terminal and the GUI), then the model like any model file: it loads again from its
// JSON and goes through lowering and every strategy within the work bound.
Outcome fuzzHfConfig(std::string_view input) {
    g_lastMessage.clear();
    const std::string text(input);
    auto i = importHfConfig(text, std::string(kOrigin));
    if (!i) {
        checkMessage("importHfConfig", i.error().message, true);
        return Outcome::Rejected;
    }
    for (const auto& f : i->ignored)
        if (!terminalSafe(f.key, false) || !terminalSafe(f.reason, false) || f.reason.empty())
            broken("ignored field", f.key + ": " + f.reason);
    if (!terminalSafe(i->model.network.name, false) || i->model.network.name.size() > 256)
        broken("imported name", i->model.network.name);
    if (!terminalSafe(i->model.description, false))
        broken("imported description", i->model.description);
    std::string json;
    try {
        json = modelToJson(i->model);
    } catch (const std::exception& ex) {
        broken("modelToJson of an import", ex.what());
    }
    auto again = parseModel(json, "again");
    if (!again) broken("import does not load", again.error().message);
    if (!(*again == i->model)) broken("import round trip", json);
    if (expandedLayerCount(i->model.network) > kMaxFuzzLayers) return Outcome::Skipped;
    auto g = lower(i->model.network, i->model.training.precision);
    if (!g) broken("import does not lower", g.error().message);
    checkGraph(*g);
    if (g->ops.size() > kMaxFuzzOps) return Outcome::Skipped;
    evaluateStrategies(*g, i->model, defaultDevice());
    return Outcome::Accepted;
}

namespace {

// Swaps std::cout and std::cerr for string buffers for its lifetime: the commands print
// there, and the fuzzer checks what they printed instead of flooding its own output.
class CapturedOutput {
public:
    CapturedOutput() : m_out(std::cout.rdbuf(m_outText.rdbuf())), m_err(std::cerr.rdbuf(m_errText.rdbuf())) {}
    ~CapturedOutput() {
        std::cout.rdbuf(m_out);
        std::cerr.rdbuf(m_err);
    }
    std::string out() const { return m_outText.str(); }
    std::string err() const { return m_errText.str(); }

private:
    std::ostringstream m_outText, m_errText;
    std::streambuf* m_out;
    std::streambuf* m_err;
};

// The CLI target explores arguments, not model sizes (the model target does that): the two
// presets that evaluate in milliseconds keep it at hundreds of commands a second.
std::vector<std::string> presetIds() { return {"gpt2-tiny", "mlp-3x1024"}; }

std::vector<std::string> deviceIds() {
    std::vector<std::string> out;
    for (const auto& d : builtinDevices()) out.push_back(d.id);
    return out;
}

std::vector<std::string> clusterIds() {
    std::vector<std::string> out;
    for (const auto& c : builtinClusters()) out.push_back(c.id);
    return out;
}

}  // namespace

Outcome fuzzCliArguments(std::string_view input) {
    g_lastMessage.clear();
    std::vector<std::string> args;
    std::size_t start = 0;
    while (start <= input.size()) {
        const std::size_t end = std::min(input.find('\n', start), input.size());
        args.emplace_back(input.substr(start, end - start));
        start = end + 1;
    }
    if (!args.empty() && args.back().empty()) args.pop_back();
    if (args.size() > kMaxCliArgs) return Outcome::Skipped;

    // The app as app/remat_main.cpp builds it, with only the commands that read presets and
    // print: files named by arguments are not opened (MODEL must be one of presetIds(), --device
    // a built-in profile and --cluster a built-in cluster, or a name that cannot be a file),
    // nothing runs an executor and nothing is written.
    CLI::App app{"remat"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "remat 0.1.0");
    int exitCode = 0;
    cli::addSimulate(app, exitCode);
    cli::addCompare(app, exitCode);
    cli::addProgram(app, exitCode);
    cli::addPareto(app, exitCode);
    cli::addMaxBatch(app, exitCode);
    // A name that is neither allowed nor possibly a file (no '/', nothing of that name in the
    // working directory) is kept: its "unknown preset / device" message is fuzzed too.
    static const std::vector<std::string> presets = presetIds();
    static const std::vector<std::string> devices = deviceIds();
    static const std::vector<std::string> clusters = clusterIds();
    static const std::vector<std::string> allPresets = builtinModelNames();
    bool restricted = false;
    auto allowedName = [](const std::vector<std::string>& allowed, const std::string& v) {
        if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return true;
        if (std::find(allPresets.begin(), allPresets.end(), v) != allPresets.end()) return false;
        std::error_code ec;
        return !v.empty() && v.find('/') == std::string::npos && !std::filesystem::exists(v, ec) && !ec;
    };
    for (CLI::App* sub : app.get_subcommands({})) {
        for (const char* name : {"MODEL", "--device", "--cluster"}) {
            CLI::Option* opt = sub->get_option_no_throw(name);
            if (!opt) continue;
            const auto& allowed = std::string(name) == "MODEL"       ? presets
                                  : std::string(name) == "--device" ? devices
                                                                    : clusters;
            opt->check(CLI::Validator(
                [&allowed, &restricted, allowedName](std::string& v) {
                    if (allowedName(allowed, v)) return std::string();
                    restricted = true;
                    return std::string("not fuzzed: a file name or a slow preset");
                },
                "NAME"));
        }
    }

    std::reverse(args.begin(), args.end());  // CLI11 takes a vector last-first
    CapturedOutput captured;
    try {
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        // remat_main: help and version print and exit 0; other parse errors exit 2 with
        // CLI11's message, which remat_main escapes.
        app.exit(e, std::cout, std::cerr);
        if (e.get_exit_code() != 0) g_lastMessage = printable(e.what(), 200);
        return restricted ? Outcome::Skipped : Outcome::Rejected;
    } catch (const std::exception& e) {
        broken("remat", std::string("internal error (exit 3): ") + e.what());
    }
    const std::string err = captured.err();
    if (!terminalSafe(captured.out(), true))
        broken("remat stdout", "control characters or invalid UTF-8 on stdout");
    if (!terminalSafe(err, true)) broken("remat stderr", "control characters on stderr: " + err);
    // Only a line of its own: arguments echoed in a message may spell "internal error".
    if (err.rfind("remat: internal error", 0) == 0 || err.find("\nremat: internal error") != std::string::npos)
        broken("remat", err);
    if (exitCode == 0) return Outcome::Accepted;
    if (exitCode != 2) broken("remat", "exit code " + std::to_string(exitCode) + ": " + err);
    const std::string firstLine = err.substr(0, err.find('\n'));
    if (firstLine.rfind("remat: ", 0) != 0) broken("remat", "user error without 'remat: ': " + err);
    checkMessage("remat user error", firstLine, false);
    return Outcome::Rejected;
}

const std::string& lastMessage() { return g_lastMessage; }

Outcome fuzzSnapshot(std::string_view input) {
    g_lastMessage.clear();
    auto root = parsePickle(input, std::string(kOrigin));
    if (!root) {
        checkMessage("parsePickle", root.error().message, true);
        return Outcome::Rejected;
    }
    auto s = memorySnapshotFromPickle(**root, std::string(kOrigin));
    if (!s) {
        checkMessage("memorySnapshotFromPickle", s.error().message, true);
        return Outcome::Rejected;
    }
    const std::size_t n = s->events.size();
    if (s->allocated.size() != n || s->reserved.size() != n) broken("snapshot curves", "lengths");
    if (s->startAllocated < 0 || s->startReserved < 0) broken("snapshot start", "negative bytes");
    for (std::size_t k = 0; k < n; ++k)
        if (s->allocated[k] < 0 || s->reserved[k] < 0 || s->allocated[k] > s->peakAllocated ||
            s->reserved[k] > s->peakReserved)
            broken("snapshot curves", "negative or above the peak at event " + std::to_string(k));
    // Laid over a small predicted step (mlp-3x1024, as in the tests).
    static const auto predicted = [] {
        auto m = loadModel("mlp-3x1024");
        auto g = lower(m->network, m->training);
        auto d = findDevice("a100-80gb");
        return evaluate(*g, *parseStrategy("none"), {}, m->training, *d);
    }();
    if (!predicted) broken("mlp-3x1024", predicted.error().message);
    auto ov = alignSnapshot(*s, predicted->program, predicted->timeline);
    if (!ov) {
        checkMessage("alignSnapshot", ov.error().message, false);
        return Outcome::Rejected;
    }
    const std::size_t count = predicted->program.instructions.size();
    if (ov->allocated.size() != count || ov->reserved.size() != count)
        broken("snapshot overlay", "not one value per instruction");
    if (*std::max_element(ov->allocated.begin(), ov->allocated.end()) != ov->measuredPeakAllocated)
        broken("snapshot overlay", "the drawn allocated curve misses the measured peak");
    if (ov->stepFirstEvent > ov->stepEndEvent || ov->stepEndEvent > n)
        broken("snapshot overlay", "step outside the trace");
    return Outcome::Accepted;
}

const std::vector<Target>& targets() {
    static const std::vector<Target> all = {
        {"model", &fuzzModelFile},
        {"device", &fuzzDeviceProfile},
        {"cli", &fuzzCliArguments},
        {"hf", &fuzzHfConfig},
        {"snapshot", &fuzzSnapshot},
    };
    return all;
}

const Target* findTarget(std::string_view name) {
    for (const Target& t : targets())
        if (t.name == name) return &t;
    return nullptr;
}

std::string_view outcomeName(Outcome o) {
    switch (o) {
        case Outcome::Accepted: return "accepted";
        case Outcome::Rejected: return "rejected";
        case Outcome::Skipped: return "skipped";
    }
    return "?";
}

}  // namespace remat::fuzz
