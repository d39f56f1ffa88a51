#include "device.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "builtin_resources.h"
#include "json_input.h"
#include "text.h"

namespace remat {

using nlohmann::json;

double DeviceSpec::matmulBestFraction(DType t) const {
    switch (t) {
        case DType::BF16: return efficiency.gemmBf16;
        case DType::F16: return efficiency.gemmFp16;
        default: return fp32MatmulUsesTf32 ? efficiency.gemmTf32 : efficiency.gemmFp32;
    }
}

double DeviceSpec::matmulPeak(DType t) const {
    switch (t) {
        case DType::BF16: return peakBf16;
        case DType::F16: return peakFp16;
        default: return fp32MatmulUsesTf32 ? peakTf32 : peakFp32;
    }
}

namespace {

// A finite number in [lo, hi]; the message names the field, the range and the value.
Result<double> numberIn(const json& j, const std::string& key, const std::string& where,
                        const DeviceRange& range) {
    if (!j.contains(key)) return makeError(where + ": missing '" + key + "'");
    const json& v = j.at(key);
    if (!v.is_number())
        return makeError(where + "." + key + ": expected a number " + range.text + ", got " +
                         printableJson(v));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < range.lo || x > range.hi)
        return makeError(where + "." + key + ": " + printableJson(v) + " is outside the plausible range " +
                         range.text);
    return x;
}

Result<std::int64_t> byteCount(const json& j, const std::string& key, const std::string& where,
                               std::int64_t lo, std::int64_t hi, const std::string& rangeText) {
    if (!j.contains(key)) return makeError(where + ": missing '" + key + "'");
    const json& v = j.at(key);
    if (!v.is_number_integer())
        return makeError(where + "." + key + ": expected a whole number of bytes " + rangeText +
                         ", got " + printableJson(v));
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(hi))
        return makeError(where + "." + key + ": " + printableJson(v) + " is outside the range " +
                         rangeText);
    const auto b = v.get<std::int64_t>();
    if (b < lo || b > hi)
        return makeError(where + "." + key + ": " + printableJson(v) + " is outside the range " +
                         rangeText);
    return b;
}

// A whole number in [lo, hi]; `path` names it in the message.
Result<std::int64_t> integerValue(const json& v, const std::string& path, const DeviceRange& range) {
    if (!v.is_number_integer())
        return makeError(path + ": expected a whole number " + range.text + ", got " +
                         printableJson(v));
    const double x = v.is_number_unsigned() ? double(v.get<std::uint64_t>()) : double(v.get<std::int64_t>());
    if (x < range.lo || x > range.hi)
        return makeError(path + ": " + printableJson(v) + " is outside the range " + range.text);
    return static_cast<std::int64_t>(x);
}

Result<std::int64_t> integerIn(const json& j, const std::string& key, const std::string& where,
                               const DeviceRange& range) {
    if (!j.contains(key)) return makeError(where + ": missing '" + key + "'");
    return integerValue(j.at(key), where + "." + key, range);
}

Result<std::string> optionalString(const json& j, const std::string& key, const std::string& where,
                                   const std::string& def) {
    if (!j.contains(key)) return def;
    if (!j.at(key).is_string())
        return makeError(where + "." + key + ": expected a string, got " + printableJson(j.at(key)));
    return j.at(key).get<std::string>();
}

Result<std::unordered_map<std::string, MeasuredOpTime>> parseMeasuredOps(const json& ops,
                                                                        const std::string& where) {
    if (!ops.is_object()) return makeError(where + ": expected an object keyed by op");
    std::unordered_map<std::string, MeasuredOpTime> out;
    for (const auto& [opName, v] : ops.items()) {
        const std::string ow = where + "[\"" + printable(opName) + "\"]";
        if (!v.is_object()) return makeError(ow + ": expected an object");
        MeasuredOpTime t;
        for (auto [key, dst] : {std::pair{"forward_s", &t.forwardS},
                                std::pair{"backward_s", &t.backwardS}}) {
            auto x = numberIn(v, key, ow, kMeasuredOpTimeRange);
            if (!x) return x.error();
            *dst = *x;
        }
        out[opName] = t;
    }
    return out;
}

Result<DeviceEfficiency> parseEfficiency(const json& e, const std::string& ew) {
    if (!e.is_object()) return makeError(ew + ": expected an object");
    DeviceEfficiency out;
    out.present = true;
    if (!e.contains("gemm_fraction") || !e["gemm_fraction"].is_object())
        return makeError(ew + ".gemm_fraction: expected an object with fp32, tf32, bf16 and fp16");
    for (auto [key, dst] : {std::pair{"fp32", &out.gemmFp32}, std::pair{"tf32", &out.gemmTf32},
                            std::pair{"bf16", &out.gemmBf16}, std::pair{"fp16", &out.gemmFp16}}) {
        auto v = numberIn(e["gemm_fraction"], key, ew + ".gemm_fraction", kEfficiencyFractionRange);
        if (!v) return v.error();
        *dst = *v;
    }
    auto sms = integerIn(e, "sm_count", ew, kSmCountRange);
    if (!sms) return sms.error();
    out.smCount = *sms;
    if (!e.contains("gemm_tile") || !e["gemm_tile"].is_array() || e["gemm_tile"].size() != 2)
        return makeError(ew + ".gemm_tile: expected [rows, columns], two whole numbers " +
                         kGemmTileRange.text);
    auto rows = integerValue(e["gemm_tile"][0], ew + ".gemm_tile[0]", kGemmTileRange);
    if (!rows) return rows.error();
    auto cols = integerValue(e["gemm_tile"][1], ew + ".gemm_tile[1]", kGemmTileRange);
    if (!cols) return cols.error();
    out.tileM = *rows;
    out.tileN = *cols;
    auto exposed = numberIn(e, "gemm_epilogue_exposed", ew, kEpilogueExposedRange);
    if (!exposed) return exposed.error();
    out.epilogueExposed = *exposed;
    auto bw = numberIn(e, "bandwidth_fraction", ew, kEfficiencyFractionRange);
    if (!bw) return bw.error();
    out.bandwidth = *bw;
    auto source = optionalString(e, "source", ew, "");
    if (!source) return source.error();
    out.source = std::move(*source);
    return out;
}

Result<CalibrationOrigin> parseOrigin(const json& o, const std::string& ow) {
    if (!o.is_object()) return makeError(ow + ": expected an object");
    CalibrationOrigin out;
    for (auto [key, dst] : {std::pair{"model", &out.model}, std::pair{"precision", &out.precision},
                            std::pair{"backend", &out.backend},
                            std::pair{"device_name", &out.deviceName}, std::pair{"date", &out.date}}) {
        auto v = optionalString(o, key, ow, "");
        if (!v) return v.error();
        if (v->size() > 1024)
            return makeError(ow + "." + key + ": expected at most 1024 characters, got " +
                             std::to_string(v->size()));
        *dst = std::move(*v);
    }
    if (!out.precision.empty() && !parsePrecision(out.precision))
        return makeError(ow + ".precision: expected fp32, mixed-bf16 or mixed-fp16, got \"" +
                         printable(out.precision) + "\"");
    return out;
}

}  // namespace

Result<DeviceSpec> parseDevice(const std::string& text, const std::string& origin) {
    auto parsed = parseJsonText(text, origin);
    if (!parsed) return parsed.error();
    const json& j = *parsed;
    const std::string w = printable(origin, 200) + ": $";
    if (!j.is_object()) return makeError(w + ": expected an object");
    if (!j.contains("format") || j["format"] != "remat-device/1")
        return makeError(w + ".format: expected \"remat-device/1\"");
    DeviceSpec d;
    if (!j.contains("id") || !j["id"].is_string())
        return makeError(w + ".id: expected a string");
    d.id = j["id"].get<std::string>();
    if (d.id.empty() || d.id.size() > kMaxDeviceIdLength)
        return makeError(w + ".id: expected 1 to " + std::to_string(kMaxDeviceIdLength) +
                         " characters, got " + std::to_string(d.id.size()));
    auto name = optionalString(j, "name", w, d.id);
    if (!name) return name.error();
    d.name = std::move(*name);
    auto mem = byteCount(j, "memory_bytes", w, std::int64_t(kDeviceMemoryRange.lo),
                         std::int64_t(kDeviceMemoryRange.hi), kDeviceMemoryRange.text);
    if (!mem) return mem.error();
    d.memoryBytes = *mem;
    if (!j.contains("peak_flops") || !j["peak_flops"].is_object())
        return makeError(w + ".peak_flops: expected an object with fp32, tf32, bf16 and fp16");
    const json& pf = j["peak_flops"];
    const std::string pw = w + ".peak_flops";
    for (auto [key, dst] : {std::pair{"fp32", &d.peakFp32}, std::pair{"tf32", &d.peakTf32},
                            std::pair{"bf16", &d.peakBf16}, std::pair{"fp16", &d.peakFp16}}) {
        auto v = numberIn(pf, key, pw, kDeviceFlopsRange);
        if (!v) return v.error();
        *dst = *v;
    }
    auto mode = optionalString(j, "fp32_matmul", w, "plain");
    if (!mode) return mode.error();
    if (*mode != "plain" && *mode != "tf32")
        return makeError(w + ".fp32_matmul: expected \"plain\" or \"tf32\", got \"" +
                         printable(*mode) + "\"");
    d.fp32MatmulUsesTf32 = *mode == "tf32";
    auto bw = numberIn(j, "memory_bandwidth_bytes_per_s", w, kDeviceBandwidthRange);
    if (!bw) return bw.error();
    d.bandwidthBytesPerS = *bw;
    if (j.contains("launch_overhead_s")) {
        auto lo = numberIn(j, "launch_overhead_s", w, kDeviceLaunchOverheadRange);
        if (!lo) return lo.error();
        d.launchOverheadS = *lo;
    }
    const std::string withinMemory = "(0 to memory_bytes)";
    if (j.contains("reserve_bytes")) {
        auto r = byteCount(j, "reserve_bytes", w, 0, d.memoryBytes, withinMemory);
        if (!r) return r.error();
        d.reserveBytes = *r;
    }
    if (d.reserveBytes >= d.memoryBytes)
        return makeError(w + ".reserve_bytes: must be less than memory_bytes");
    if (j.contains("gemm_workspace_bytes")) {
        auto g = byteCount(j, "gemm_workspace_bytes", w, 0, d.memoryBytes, withinMemory);
        if (!g) return g.error();
        d.gemmWorkspaceBytes = *g;
    }
    auto source = optionalString(j, "source", w, "");
    if (!source) return source.error();
    d.source = std::move(*source);
    if (j.contains("efficiency")) {
        auto e = parseEfficiency(j["efficiency"], w + ".efficiency");
        if (!e) return e.error();
        d.efficiency = std::move(*e);
    }
    if (j.contains("calibration")) {
        const json& c = j["calibration"];
        const std::string cw = w + ".calibration";
        if (!c.is_object()) return makeError(cw + ": expected an object");
        auto mb = byteCount(c, "micro_batch", cw, 1, std::int64_t{1} << 24, "(1 to 16777216)");
        if (!mb) return makeError(cw + ".micro_batch: expected a whole number from 1 to 16777216");
        d.calibrationMicroBatch = *mb;
        if (c.contains("measured_on")) {
            auto origin = parseOrigin(c["measured_on"], cw + ".measured_on");
            if (!origin) return origin.error();
            d.calibrationOrigin = std::move(*origin);
        }
        // "ops" (by op name, the first form) and "ops_by_shape" (by op kind and shape): at
        // least one of them.
        if (!c.contains("ops") && !c.contains("ops_by_shape"))
            return makeError(cw + ".ops_by_shape: expected an object keyed by op shape");
        for (auto [key, dst] : {std::pair{"ops", &d.measured}, std::pair{"ops_by_shape", &d.measuredByShape}}) {
            if (!c.contains(key)) continue;
            auto ops = parseMeasuredOps(c[key], cw + "." + key);
            if (!ops) return ops.error();
            *dst = std::move(*ops);
        }
    }
    return d;
}

std::string deviceToJson(const DeviceSpec& d) {
    json j;
    j["format"] = "remat-device/1";
    j["id"] = d.id;
    j["name"] = d.name;
    j["memory_bytes"] = d.memoryBytes;
    j["peak_flops"] = {{"fp32", d.peakFp32}, {"tf32", d.peakTf32}, {"bf16", d.peakBf16},
                       {"fp16", d.peakFp16}};
    j["fp32_matmul"] = d.fp32MatmulUsesTf32 ? "tf32" : "plain";
    j["memory_bandwidth_bytes_per_s"] = d.bandwidthBytesPerS;
    j["launch_overhead_s"] = d.launchOverheadS;
    j["reserve_bytes"] = d.reserveBytes;
    j["gemm_workspace_bytes"] = d.gemmWorkspaceBytes;
    if (!d.source.empty()) j["source"] = d.source;
    if (d.efficiency.present) {
        const DeviceEfficiency& e = d.efficiency;
        json ej = {{"gemm_fraction",
                    {{"fp32", e.gemmFp32}, {"tf32", e.gemmTf32}, {"bf16", e.gemmBf16}, {"fp16", e.gemmFp16}}},
                   {"sm_count", e.smCount},
                   {"gemm_tile", {e.tileM, e.tileN}},
                   {"gemm_epilogue_exposed", e.epilogueExposed},
                   {"bandwidth_fraction", e.bandwidth}};
        if (!e.source.empty()) ej["source"] = e.source;
        j["efficiency"] = ej;
    }
    if (d.calibrated()) {
        auto opsJson = [](const std::unordered_map<std::string, MeasuredOpTime>& ops) {
            json out = json::object();
            for (const auto& [name, t] : ops)
                out[name] = {{"forward_s", t.forwardS}, {"backward_s", t.backwardS}};
            return out;
        };
        json c = {{"micro_batch", d.calibrationMicroBatch}};
        if (d.calibrationOrigin.known()) {
            const CalibrationOrigin& o = d.calibrationOrigin;
            c["measured_on"] = {{"model", o.model},
                                {"precision", o.precision},
                                {"backend", o.backend},
                                {"device_name", o.deviceName},
                                {"date", o.date}};
        }
        if (!d.measured.empty()) c["ops"] = opsJson(d.measured);
        if (!d.measuredByShape.empty()) c["ops_by_shape"] = opsJson(d.measuredByShape);
        j["calibration"] = c;
    }
    return j.dump(2) + "\n";
}

const std::vector<DeviceSpec>& builtinDevices() {
    static const std::vector<DeviceSpec> devices = [] {
        std::vector<DeviceSpec> out;
        for (const auto& f : builtinDeviceFiles()) {
            auto d = parseDevice(std::string(f.text), std::string(f.id) + ".json");
            if (d) out.push_back(std::move(*d));
        }
        return out;
    }();
    return devices;
}

Result<DeviceSpec> findDevice(const std::string& idOrPath) {
    for (const auto& d : builtinDevices())
        if (d.id == idOrPath) return d;
    auto text = readInputFile(idOrPath, "device profile");
    if (!text) {
        std::string known;
        for (const auto& d : builtinDevices()) known += (known.empty() ? "" : ", ") + d.id;
        return makeError(text.error().message + " (built-in devices: " + known + ")");
    }
    return parseDevice(*text, idOrPath);
}

}  // namespace remat
