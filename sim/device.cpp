#include "device.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "builtin_resources.h"
#include "json_input.h"
#include "text.h"

namespace remat {

using nlohmann::json;

double DeviceSpec::matmulPeak(DType t) const {
    switch (t) {
        case DType::BF16: return peakBf16;
        case DType::F16: return peakFp16;
        default: return fp32MatmulUsesTf32 ? peakTf32 : peakFp32;
    }
}

double DeviceSpec::matmulPeak(DType t, bool tf32Allowed) const {
    if (t == DType::F32 && tf32Allowed) return peakTf32;
    return matmulPeak(t);
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

Result<std::string> optionalString(const json& j, const std::string& key, const std::string& where,
                                   const std::string& def) {
    if (!j.contains(key)) return def;
    if (!j.at(key).is_string())
        return makeError(where + "." + key + ": expected a string, got " + printableJson(j.at(key)));
    return j.at(key).get<std::string>();
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
    if (j.contains("calibration")) {
        const json& c = j["calibration"];
        const std::string cw = w + ".calibration";
        if (!c.is_object()) return makeError(cw + ": expected an object");
        auto mb = byteCount(c, "micro_batch", cw, 1, std::int64_t{1} << 24, "(1 to 16777216)");
        if (!mb) return makeError(cw + ".micro_batch: expected a whole number from 1 to 16777216");
        d.calibrationMicroBatch = *mb;
        if (!c.contains("ops") || !c["ops"].is_object())
            return makeError(cw + ".ops: expected an object keyed by op name");
        for (const auto& [opName, v] : c["ops"].items()) {
            const std::string ow = cw + ".ops[\"" + printable(opName) + "\"]";
            if (!v.is_object()) return makeError(ow + ": expected an object");
            MeasuredOpTime t;
            for (auto [key, dst] : {std::pair{"forward_s", &t.forwardS},
                                    std::pair{"backward_s", &t.backwardS}}) {
                auto x = numberIn(v, key, ow, kMeasuredOpTimeRange);
                if (!x) return x.error();
                *dst = *x;
            }
            d.measured[opName] = t;
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
    if (!d.measured.empty()) {
        json ops = json::object();
        for (const auto& [name, t] : d.measured)
            ops[name] = {{"forward_s", t.forwardS}, {"backward_s", t.backwardS}};
        j["calibration"] = {{"micro_batch", d.calibrationMicroBatch}, {"ops", ops}};
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
