// The parallel prediction as the CLI and other tools print it: the per-GPU figures under the
// single-GPU JSON keys (those of the rank that peaks) plus a `parallel` object with the layout,
// the stages, the step time's parts and MFU (docs/cli-output.md), and the same as text.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "parallel_eval.h"

namespace remat {

nlohmann::json parallelEvaluationToJson(const ParallelEvaluation& pe);
nlohmann::json layoutToJson(const ParallelConfig& p);

// The lines `remat simulate` prints after the single-GPU figures of the peaking rank.
std::string parallelSummaryText(const ParallelEvaluation& pe);

}  // namespace remat
