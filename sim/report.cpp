#include "report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

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
    j["main_grads"] = mainGradsName(e.program.mainGrads);
    j["optimizer_impl"] = optimizerImplName(e.program.optimizerImpl);
    j["loss_impl"] = !g.ops.empty() && g.ops.back().kind == OpKind::LinearCrossEntropy
                        ? "chunked"
                        : "standard";
    j["tf32"] = tf32ModeName(e.program.tf32);
    j["recompute_impl"] = recomputeImplName(e.program.recomputeImpl);
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
    j["activations_saved_fraction"] = e.activationsSavedFraction();
    j["baseline_peak_bytes"] = e.baselinePeakBytes;
    j["baseline_saved_activation_bytes"] = e.baselineSavedActivationBytes;
    j["baseline_step_time_s"] = e.baselineTimeS;
    j["device_usable_bytes"] = d.usableBytes();
    j["fits"] = t.fits;
    j["max_micro_batch"] = t.maxMicroBatch;
    j["samples_per_s"] = t.samplesPerS();
    j["instructions"] = e.program.instructions.size();
    // The program as written; with a repeat, one step runs more (executed_instructions).
    const Program& p = e.program;
    j["executed_instructions"] = p.executedInstructions();
    j["repeat"] = p.repeat ? json{{"begin", p.repeat->begin},
                                  {"end", p.repeat->end},
                                  {"times", p.repeat->times},
                                  {"first_micro_step", p.instructions[p.repeat->begin].microStep},
                                  {"caption", repeatCaption(p)}}
                           : json(nullptr);
    j["unsafe"] = e.program.allUnsafeReasons();
    j["gradients_will_differ"] = e.program.gradientsWillDiffer();
    j["safe_notes"] = e.program.safeNotes;
    j["no_fit_reason"] = t.fits ? json(nullptr) : json(explainNoFit(t, d));
    return j;
}

std::string formatBytes(std::int64_t bytes, ByteUnits units) {
    const double base = units == ByteUnits::Binary ? 1024.0 : 1000.0;
    const char* names[] = {
        "B", units == ByteUnits::Binary ? "KiB" : "kB", units == ByteUnits::Binary ? "MiB" : "MB",
        units == ByteUnits::Binary ? "GiB" : "GB", units == ByteUnits::Binary ? "TiB" : "TB"};
    double v = double(bytes);
    int i = 0;
    // Move up a unit while the figure, as printed with two decimals, would reach the base.
    while (i < 4 && std::fabs(i == 0 ? v : std::round(v * 100.0) / 100.0) >= base) {
        v /= base;
        ++i;
    }
    char buf[64];
    if (i == 0)
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", v, names[i]);
    return buf;
}

namespace {

// The scale of a unit as parseByteSize reads it (case-insensitive); 0 when unknown.
std::int64_t unitScale(std::string_view unit) {
    std::string u;
    for (char c : unit) u += char(std::tolower(static_cast<unsigned char>(c)));
    constexpr std::int64_t k = 1024;
    if (u == "b") return 1;
    if (u == "k" || u == "kib") return k;
    if (u == "kb") return 1000;
    if (u == "m" || u == "mib") return k * k;
    if (u == "mb") return 1000 * 1000;
    if (u == "g" || u == "gib") return k * k * k;
    if (u == "gb") return std::int64_t{1000} * 1000 * 1000;
    if (u == "t" || u == "tib") return k * k * k * k;
    if (u == "tb") return std::int64_t{1000} * 1000 * 1000 * 1000;
    if (u == "p" || u == "pib") return k * k * k * k * k;
    if (u == "pb") return std::int64_t{1000} * 1000 * 1000 * 1000 * 1000;
    return 0;
}

}  // namespace

std::string budgetUnit(std::string_view text) {
    std::size_t i = text.size();
    while (i > 0 && std::isalpha(static_cast<unsigned char>(text[i - 1]))) --i;
    std::string_view unit = text.substr(i);
    return unit.empty() ? std::string("B") : std::string(unit);
}

std::string formatBudget(std::int64_t bytes, std::string_view unit, int decimals) {
    if (bytes < 0) bytes = 0;
    std::string name(unit);
    std::int64_t scale = unitScale(unit);
    if (scale == 0) {
        // No (known) unit: the binary unit that keeps the figure at least 1.
        static const std::pair<const char*, std::int64_t> kReadable[] = {
            {"TiB", std::int64_t{1} << 40},
            {"GiB", std::int64_t{1} << 30},
            {"MiB", std::int64_t{1} << 20},
            {"KiB", std::int64_t{1} << 10}};
        name.clear();
        scale = 1;
        for (const auto& [n, s] : kReadable)
            if (bytes >= s) {
                name = n;
                scale = s;
                break;
            }
    }
    if (scale == 1) return std::to_string(bytes);  // a plain byte count is exact as it is
    decimals = std::clamp(decimals, 0, 9);
    std::int64_t pow10 = 1;
    for (int d = 0; d < decimals; ++d) pow10 *= 10;
    // ceil(bytes * 10^decimals / scale); the product needs more than 64 bits.
    __extension__ using Wide = __int128;
    const Wide scaled = (Wide(bytes) * pow10 + (scale - 1)) / scale;
    const auto whole = std::int64_t(scaled / pow10);
    auto frac = std::int64_t(scaled % pow10);
    int digits = decimals;
    while (digits > 0 && frac % 10 == 0) {  // 7.50 -> 7.5, 7.00 -> 7
        frac /= 10;
        --digits;
    }
    std::string out = std::to_string(whole);
    if (digits > 0) {
        std::string f = std::to_string(frac);
        out += "." + std::string(std::size_t(digits) - f.size(), '0') + f;
    }
    return out + name;
}

std::string formatSeconds(double s) {
    char buf[64];
    if (s >= 1.0)
        std::snprintf(buf, sizeof buf, "%.3f s", s);
    else if (s >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    return buf;
}

std::string formatPercent(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", f * 100.0);
    return buf;
}

}  // namespace remat
