// The entry functions of the fuzz targets: one per input path a user or an attacker controls —
// a model file (parsed, lowered, planned with several strategies, compiled and simulated), a
// device or calibrated profile (parsed, written back, and used to simulate a small model), a
// Hugging Face config.json (imported, then like a model file), a PyTorch memory snapshot
// (the pickle reader, the curves and their alignment), and the `remat` command line
// (the read-only commands on preset models). Each takes the raw input
// bytes and checks the contracts of docs/reliability.md beyond "no sanitizer report": a
// rejection is one printable line of bounded length naming its origin, an accepted input
// round-trips and gives finite, non-negative predictions, a CLI user error exits 2 with one
// "remat:" line and never "internal error". A broken contract prints what broke and aborts, so
// that libFuzzer (tests/fuzz/fuzz_main.cpp) and the plain replay of the corpora in the ordinary
// sanitizer build (tests/fuzz/replay_main.cpp) both report it as a crash with the input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace remat::fuzz {

enum class Outcome {
    Accepted,  // the input was valid and went all the way through
    Rejected,  // refused with a message that meets the contract
    Skipped,   // valid but over the fuzzers' work bound (see kMaxFuzzOps), or not fuzzed here
};

// The origin given to the parsers: messages about the input must start with "fuzz: ".
inline constexpr std::string_view kOrigin = "fuzz";

Outcome fuzzModelFile(std::string_view input);
Outcome fuzzDeviceProfile(std::string_view input);
Outcome fuzzHfConfig(std::string_view input);
// A PyTorch memory snapshot (pickle): read, turned into curves, aligned with mlp-3x1024.
Outcome fuzzSnapshot(std::string_view input);
// Arguments are the input's lines ('\n'-separated), after the program name.
Outcome fuzzCliArguments(std::string_view input);

// The first message the last input was refused with (empty when it was accepted).
const std::string& lastMessage();

struct Target {
    std::string name;  // "model", "device", "cli", "hf", "snapshot": fuzz_<name>, corpus/<name>/
    Outcome (*run)(std::string_view);
};
const std::vector<Target>& targets();
const Target* findTarget(std::string_view name);

std::string_view outcomeName(Outcome o);

}  // namespace remat::fuzz
