// Machine-readable and human-readable reports of an evaluation: the JSON object of DESIGN §6
// (`peak_bytes`, `breakdown_at_peak`, `time_s`, ...; keys other tools rely on) and byte/time
// formatting shared by the CLI and the GUI.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "analysis.h"
#include "graph.h"

namespace remat {

nlohmann::json evaluationToJson(const Graph& g, const Evaluation& e, const DeviceSpec& d);

enum class ByteUnits { Binary, Decimal };  // GiB or GB
std::string formatBytes(std::int64_t bytes, ByteUnits units = ByteUnits::Binary);
std::string formatSeconds(double s);
std::string formatPercent(double fraction);

}  // namespace remat
