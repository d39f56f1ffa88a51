#include "device.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "builtin_resources.h"

namespace remat {

using nlohmann::json;

double DeviceSpec::matmulPeak(DType t) const {
    switch (t) {
        case DType::BF16: return peakBf16;
        case DType::F16: return peakFp16;
        default: return fp32MatmulUsesTf32 ? peakTf32 : peakFp32;
    }
}

namespace {

Result<double> positiveNumber(const json& j, const std::string& key, const std::string& where) {
    if (!j.contains(key)) return makeError(where + ": missing '" + key + "'");
    const json& v = j.at(key);
    if (!v.is_number() || !(v.get<double>() > 0))
        return makeError(where + "." + key + ": expected a positive number");
    return v.get<double>();
}

Result<std::int64_t> byteCount(const json& j, const std::string& key, const std::string& where,
                               bool allowZero) {
    if (!j.contains(key)) return makeError(where + ": missing '" + key + "'");
    const json& v = j.at(key);
    if (!v.is_number_integer())
        return makeError(where + "." + key + ": expected a whole number of bytes");
    auto b = v.get<std::int64_t>();
    if (b < 0 || (!allowZero && b == 0) || b > kMaxDeviceBytes)
        return makeError(where + "." + key + ": out of range");
    return b;
}

}  // namespace

Result<DeviceSpec> parseDevice(const std::string& text, const std::string& origin) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        return makeError(origin + ": not valid JSON (" + e.what() + ")");
    }
    const std::string w = origin + ": $";
    if (!j.is_object()) return makeError(w + ": expected an object");
    if (!j.contains("format") || j["format"] != "remat-device/1")
        return makeError(w + ".format: expected \"remat-device/1\"");
    DeviceSpec d;
    if (!j.contains("id") || !j["id"].is_string()) return makeError(w + ".id: expected a string");
    d.id = j["id"].get<std::string>();
    if (j.contains("name") && !j["name"].is_string())
        return makeError(w + ".name: expected a string");
    d.name = j.value("name", d.id);
    auto mem = byteCount(j, "memory_bytes", w, false);
    if (!mem) return mem.error();
    d.memoryBytes = *mem;
    if (!j.contains("peak_flops") || !j["peak_flops"].is_object())
        return makeError(w + ".peak_flops: expected an object");
    const json& pf = j["peak_flops"];
    const std::string pw = w + ".peak_flops";
    for (auto [key, dst] : {std::pair{"fp32", &d.peakFp32}, std::pair{"tf32", &d.peakTf32},
                            std::pair{"bf16", &d.peakBf16}, std::pair{"fp16", &d.peakFp16}}) {
        auto v = positiveNumber(pf, key, pw);
        if (!v) return v.error();
        *dst = *v;
    }
    std::string mode = j.value("fp32_matmul", std::string("plain"));
    if (mode != "plain" && mode != "tf32")
        return makeError(w + ".fp32_matmul: expected \"plain\" or \"tf32\"");
    d.fp32MatmulUsesTf32 = mode == "tf32";
    auto bw = positiveNumber(j, "memory_bandwidth_bytes_per_s", w);
    if (!bw) return bw.error();
    d.bandwidthBytesPerS = *bw;
    if (j.contains("launch_overhead_s")) {
        if (!j["launch_overhead_s"].is_number() || j["launch_overhead_s"].get<double>() < 0)
            return makeError(w + ".launch_overhead_s: expected a number >= 0");
        d.launchOverheadS = j["launch_overhead_s"].get<double>();
    }
    if (j.contains("reserve_bytes")) {
        auto r = byteCount(j, "reserve_bytes", w, true);
        if (!r) return r.error();
        d.reserveBytes = *r;
    }
    if (d.reserveBytes >= d.memoryBytes)
        return makeError(w + ".reserve_bytes: must be less than memory_bytes");
    if (j.contains("gemm_workspace_bytes")) {
        auto g = byteCount(j, "gemm_workspace_bytes", w, true);
        if (!g) return g.error();
        d.gemmWorkspaceBytes = *g;
    }
    if (j.contains("source") && j["source"].is_string()) d.source = j["source"].get<std::string>();
    if (j.contains("calibration")) {
        const json& c = j["calibration"];
        const std::string cw = w + ".calibration";
        if (!c.is_object()) return makeError(cw + ": expected an object");
        if (!c.contains("micro_batch") || !c["micro_batch"].is_number_integer() ||
            c["micro_batch"].get<std::int64_t>() < 1)
            return makeError(cw + ".micro_batch: expected a positive whole number");
        d.calibrationMicroBatch = c["micro_batch"].get<std::int64_t>();
        if (!c.contains("ops") || !c["ops"].is_object())
            return makeError(cw + ".ops: expected an object keyed by op name");
        for (const auto& [name, v] : c["ops"].items()) {
            const std::string ow = cw + ".ops[\"" + name + "\"]";
            if (!v.is_object()) return makeError(ow + ": expected an object");
            MeasuredOpTime t;
            for (auto [key, dst] : {std::pair{"forward_s", &t.forwardS},
                                    std::pair{"backward_s", &t.backwardS}}) {
                if (!v.contains(key) || !v[key].is_number() || v[key].get<double>() < 0)
                    return makeError(ow + "." + key + ": expected a number >= 0");
                *dst = v[key].get<double>();
            }
            d.measured[name] = t;
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
    std::ifstream in(idOrPath);
    if (!in) {
        std::string known;
        for (const auto& d : builtinDevices()) known += (known.empty() ? "" : ", ") + d.id;
        return makeError("unknown device '" + idOrPath + "' (built in: " + known +
                         "; or give a profile file)");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return parseDevice(ss.str(), idOrPath);
}

}  // namespace remat
