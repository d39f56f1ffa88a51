#include "report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace remat {

nlohmann::json evaluationToJson(const Graph& g, const Evaluation& e, const DeviceSpec& d) {
    using nlohmann::json;
    const Timeline& t = e.timeline;
    json breakdown = json::object();
    for (Category c : kAllCategories)
        breakdown[std::string(categoryKey(c))] = t.breakdownAtPeak[std::size_t(c)];
    json j;
    j["strategy"] = e.strategy.spelling();
    j["regions"] = e.program.plan.regions.size();
    j["device"] = d.id;
    j["micro_batch"] = e.program.microBatch;
    j["accumulation_steps"] = e.program.accumulationSteps;
    j["precision"] = precisionName(e.program.precision);
    j["optimizer"] = optimizerName(e.program.optimizer);
    j["parameters"] = g.parameterCount;
    j["peak_bytes"] = t.peakBytes;
    j["peak_instruction"] = t.peakInstruction;
    j["peak_instruction_text"] = describeInstruction(g, e.program, t.peakInstruction);
    j["breakdown_at_peak"] = breakdown;
    j["saved_activation_bytes"] = t.savedActivationBytes;
    j["flops"] = {{"forward", t.flops.forward},
                  {"backward", t.flops.backward},
                  {"recompute", t.flops.recompute}};
    j["time_s"] = {{"forward", t.timeS.forward},
                   {"backward", t.timeS.backward},
                   {"recompute", t.timeS.recompute},
                   {"optimizer", t.timeS.optimizer},
                   {"total", t.timeS.total()}};
    j["recompute_overhead"] = e.recomputeOverhead();
    j["memory_saved_fraction"] = e.memorySavedFraction();
    j["baseline_peak_bytes"] = e.baselinePeakBytes;
    j["device_usable_bytes"] = d.usableBytes();
    j["fits"] = t.fits;
    j["max_micro_batch"] = t.maxMicroBatch;
    j["samples_per_s"] = t.samplesPerS();
    j["instructions"] = e.program.instructions.size();
    j["unsafe"] = e.program.unsafeReasons;
    return j;
}

std::string formatBytes(std::int64_t bytes, ByteUnits units) {
    const double base = units == ByteUnits::Binary ? 1024.0 : 1000.0;
    const char* names[] = {"B", units == ByteUnits::Binary ? "KiB" : "kB",
                           units == ByteUnits::Binary ? "MiB" : "MB",
                           units == ByteUnits::Binary ? "GiB" : "GB",
                           units == ByteUnits::Binary ? "TiB" : "TB"};
    double v = double(bytes);
    int i = 0;
    while (std::fabs(v) >= base && i < 4) {
        v /= base;
        ++i;
    }
    char buf[64];
    if (i == 0) std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    else std::snprintf(buf, sizeof buf, "%.2f %s", v, names[i]);
    return buf;
}

std::string formatSeconds(double s) {
    char buf[64];
    if (s >= 1.0) std::snprintf(buf, sizeof buf, "%.3f s", s);
    else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    return buf;
}

std::string formatPercent(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", f * 100.0);
    return buf;
}

}  // namespace remat
