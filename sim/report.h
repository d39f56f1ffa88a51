// Machine-readable and human-readable reports of an evaluation: the JSON object of cli-output.md
// (`peak_bytes`, `breakdown_at_peak`, `time_s`, ...; keys other tools rely on), the one byte/
// time/percent formatter shared by the CLI and the GUI, memory budgets written back in the unit
// the user wrote them in, and the one wording of what "recompute overhead" and "saved" are a
// share of.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "analysis.h"
#include "graph.h"

namespace remat {

nlohmann::json evaluationToJson(const Graph& g, const Evaluation& e, const DeviceSpec& d);

enum class ByteUnits { Binary, Decimal };  // GiB or GB
// "32.65 MiB": two decimals in the largest unit that keeps the figure below 1024 (1000) after
// rounding, so 1023.999 KiB prints as "1.00 MiB", never "1024.00 KiB".
std::string formatBytes(std::int64_t bytes, ByteUnits units = ByteUnits::Binary);
std::string formatSeconds(double s);
std::string formatPercent(double fraction);

// A byte count as a budget to paste back into `optimal:BUDGET`: in `unit` (a unit as
// parseByteSize reads it: "GiB", "GB", "MiB", "k", ...; empty or unknown: the binary unit that
// keeps the figure readable; "B": a plain byte count), with at most `decimals` decimals, ROUNDED
// UP, so that the spelling parses to at least `bytes`: "7.06GiB" for 7.051 GiB.
std::string formatBudget(std::int64_t bytes, std::string_view unit = {}, int decimals = 2);
// The unit of a budget as the user wrote it ("7.5 GiB" -> "GiB", "123" -> "B").
std::string budgetUnit(std::string_view text);

// What the relative figures of an evaluation are a share of; the CLI's headers, help texts,
// JSON key documentation and the docs use these words.
//  recompute overhead = (step time - step time without checkpointing) / step time without
//                       checkpointing, where a step is forward + backward (+ recompute) +
//                       optimizer of every micro-batch;
//  saved (peak)       = 1 - peak / peak without checkpointing (the whole peak: model states,
//                       activations, workspace);
//  activations saved  = 1 - saved activations / saved activations without checkpointing (what
//                       is held for backward just before the last micro-batch's backward).
inline constexpr const char* kRecomputeOverheadMeaning =
    "extra step time over the step without checkpointing (forward + backward + optimizer)";
inline constexpr const char* kPeakSavedMeaning =
    "share of the whole peak without checkpointing that the plan removes";
inline constexpr const char* kActivationsSavedMeaning =
    "share of the activations saved for backward without checkpointing that the plan removes";

}  // namespace remat
