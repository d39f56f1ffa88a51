// Measured op times in a calibrated device profile: the key that lets a time measured on one
// model apply to another (op kind, shapes, attributes and precision — not the op's name), the
// lookup the simulator uses, and the warnings shown when a calibrated profile is applied to
// something other than what it was measured on (another model, precision or backend).
#pragma once

#include <string>
#include <vector>

#include "device.h"
#include "graph.h"

namespace remat {

// "linear mixed-bf16 [1024,768] -> [1024,2304] in=768 out=2304 bias": equal for two ops that
// run the same kernels on tensors of the same per-sample shapes and dtypes.
std::string opShapeKey(const Graph& g, const Op& op, Precision precision);

// The measured time of `op` in a calibrated profile: by op name (profiles of the first form,
// which only apply to the model they were measured on), else by shape key. Null when none.
const MeasuredOpTime* measuredTime(const DeviceSpec& d, const Graph& g, const Op& op,
                                   Precision precision);

// How many of the graph's ops (views excluded) have a measured time.
struct CalibrationCoverage {
    int ops = 0;
    int measured = 0;
};
CalibrationCoverage calibrationCoverage(const DeviceSpec& d, const Graph& g, Precision precision);

// Sentences (no trailing period, no newline) for applying a calibrated profile to `model` at
// `precision`: empty for an uncalibrated profile or one applied to what it was measured on.
std::vector<std::string> calibrationWarnings(const DeviceSpec& d, const Graph& g,
                                             Precision precision, const std::string& model);

}  // namespace remat
