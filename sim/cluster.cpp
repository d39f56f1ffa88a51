#include "cluster.h"

#include <cmath>

#include "builtin_resources.h"
#include "json_input.h"
#include "text.h"

namespace remat {
namespace {

using nlohmann::json;

// The plausible ranges of the cluster fields (docs/parallelism.md): outside them a value is a
// typo or a hostile file, never a machine.
constexpr double kMinLinkBandwidth = 1e6, kMaxLinkBandwidth = 1e14;  // 1 MB/s to 100 TB/s
constexpr double kMaxLatency = 1.0;                                  // seconds
constexpr std::int64_t kMaxGpusPerNode = 1024;
constexpr double kMaxHostBytes = double(std::int64_t{1} << 50);

class Reader {
public:
    explicit Reader(std::string where) : m_where(std::move(where)) {}
    const std::string& error() const { return m_error; }
    bool ok() const { return m_error.empty(); }

    double number(const json& j, const char* key, const std::string& at, double lo, double hi,
                  const char* range) {
        if (!ok()) return 0;
        if (!j.contains(key) || !j[key].is_number())
            return fail(at + "." + key, std::string("expected a number ") + range), 0;
        const double v = j[key].get<double>();
        if (!std::isfinite(v) || v < lo || v > hi)
            return fail(at + "." + key, std::string("expected a number ") + range + ", got " +
                                            printableJson(j[key])),
                   0;
        return v;
    }
    std::string text(const json& j, const char* key, const std::string& at, bool required) {
        if (!ok()) return {};
        if (!j.contains(key)) {
            if (required) fail(at + "." + key, "expected a string");
            return {};
        }
        if (!j[key].is_string()) return fail(at + "." + key, "expected a string"), std::string();
        std::string s = j[key].get<std::string>();
        if (s.size() > 4000) return fail(at + "." + key, "longer than 4000 characters"), std::string();
        return s;
    }
    LinkSpec link(const json& j, const char* key) {
        LinkSpec l;
        const std::string at = std::string("$.") + key;
        if (!ok()) return l;
        if (!j.contains(key) || !j[key].is_object()) return fail(at, "expected an object"), l;
        const json& o = j[key];
        l.bandwidthBytesPerS = number(o, "bandwidth_bytes_per_s", at, kMinLinkBandwidth,
                                      kMaxLinkBandwidth, "(1e6 to 1e14 bytes/s)");
        l.latencyS = number(o, "latency_s", at, 0, kMaxLatency, "(0 to 1 s)");
        l.source = text(o, "source", at, false);
        return l;
    }
    void fail(const std::string& path, const std::string& why) {
        if (ok()) m_error = m_where + path.substr(1) + ": " + why;
    }

private:
    std::string m_where;
    std::string m_error;
};

}  // namespace

Result<ClusterSpec> parseCluster(const std::string& text, const std::string& origin) {
    auto parsed = parseJsonText(text, origin);
    if (!parsed) return parsed.error();
    const json& j = *parsed;
    const std::string w = printable(origin, 200) + ": $";
    if (!j.is_object()) return makeError(w + ": expected an object");
    if (!j.contains("format") || j["format"] != "remat-cluster/1")
        return makeError(w + ".format: expected \"remat-cluster/1\"");
    Reader r(w);
    ClusterSpec c;
    c.id = r.text(j, "id", "$", true);
    if (r.ok() && (c.id.empty() || c.id.size() > 64)) r.fail("$.id", "expected 1 to 64 characters");
    c.name = r.text(j, "name", "$", false);
    if (c.name.empty()) c.name = c.id;
    const std::string deviceId = r.text(j, "device", "$", true);
    c.gpusPerNode = std::int64_t(r.number(j, "gpus_per_node", "$", 1, double(kMaxGpusPerNode),
                                          "(1 to 1024)"));
    if (r.ok() && double(c.gpusPerNode) != j["gpus_per_node"].get<double>())
        r.fail("$.gpus_per_node", "expected a whole number");
    c.intraNode = r.link(j, "intra_node");
    c.interNode = r.link(j, "inter_node");
    c.hostLink = r.link(j, "host_link");
    c.hostMemoryBytes = std::int64_t(r.number(j, "host_memory_bytes", "$", double(1 << 20),
                                              kMaxHostBytes, "(1 MiB to 1 PiB)"));
    c.hostMemoryBandwidthBytesPerS = r.number(j, "host_memory_bandwidth_bytes_per_s", "$",
                                              kMinLinkBandwidth, kMaxLinkBandwidth,
                                              "(1e6 to 1e14 bytes/s)");
    c.source = r.text(j, "source", "$", false);
    if (!r.ok()) return makeError(r.error());
    auto d = findDevice(deviceId);
    if (!d) return makeError(w + ".device: " + d.error().message);
    c.device = std::move(*d);
    return c;
}

const std::vector<ClusterSpec>& builtinClusters() {
    static const std::vector<ClusterSpec> clusters = [] {
        std::vector<ClusterSpec> out;
        for (const BuiltinFile& f : builtinClusterFiles()) {
            auto c = parseCluster(std::string(f.text), std::string(f.id) + ".json");
            if (c) out.push_back(std::move(*c));
        }
        return out;
    }();
    return clusters;
}

Result<ClusterSpec> findCluster(const std::string& idOrPath) {
    for (const ClusterSpec& c : builtinClusters())
        if (c.id == idOrPath) return c;
    if (idOrPath.find('/') == std::string::npos && idOrPath.find(".json") == std::string::npos) {
        std::string ids;
        for (const ClusterSpec& c : builtinClusters()) ids += (ids.empty() ? "" : ", ") + c.id;
        return makeError("unknown cluster '" + printable(idOrPath, 80) + "' (built in: " + ids +
                         "; or a cluster profile file)");
    }
    auto text = readInputFile(idOrPath, "cluster profile");
    if (!text) return text.error();
    return parseCluster(*text, idOrPath);
}

ClusterSpec clusterForDevice(const DeviceSpec& device) {
    for (const ClusterSpec& c : builtinClusters())
        if (c.device.id == device.id) {
            ClusterSpec out = c;
            out.device = device;  // a calibrated or edited profile of the same GPU
            return out;
        }
    // No NVLink figures known for this GPU: eight per node talking over PCIe Gen4 and a
    // 100 Gb/s network, stated as such.
    ClusterSpec c;
    c.id = "pcie-node-" + device.id;
    c.name = "nodes of 8 x " + device.name + " on PCIe";
    c.device = device;
    c.gpusPerNode = 8;
    c.intraNode = {3.2e10, 1.0e-5, "PCIe Gen4 x16 peer to peer: 32 GB/s each way"};
    c.interNode = {1.25e10 / 8, 1.0e-5, "one 100 Gb/s network port per node shared by 8 GPUs"};
    c.hostLink = {3.2e10, 1.0e-5, "PCIe Gen4 x16: 32 GB/s each way"};
    c.hostMemoryBytes = std::int64_t{512} << 30;
    c.hostMemoryBandwidthBytesPerS = 2.048e11;
    c.source = "generic PCIe node assumed for a GPU without a built-in cluster profile";
    return c;
}

}  // namespace remat
