#include "host_budget.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <vector>

#include "gemm.h"
#include "thread_pool.h"
#include "host_allocator.h"

namespace remat {

namespace {

constexpr std::int64_t kMaxBytes = std::numeric_limits<std::int64_t>::max();

// Saturating: an estimate that overflows is "more than any machine has", not negative.
std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? kMaxBytes : r;
}
std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kMaxBytes : r;
}

std::int64_t elements(const Buffer& b) {
    std::int64_t n = 1;
    for (auto d : b.shape) n = mul(n, d);
    return n;
}
std::int64_t bufferBytes(const Buffer& b) {
    return mul(elements(b), dtypeBytes(b.dtype));
}

bool is16Bit(DType d) {
    return d == DType::BF16 || d == DType::F16;
}

// HostAllocator's behaviour, replayed: a request takes a cached block of its class or a new
// one; a release caches the block in its class. Blocks are never given back inside a step.
class AllocatorReplay {
public:
    void take(std::int64_t bytes) {
        const std::int64_t c = HostAllocator::sizeClass(bytes);
        std::int64_t& cached = m_cached[c];
        if (cached > 0) {
            --cached;
        } else {
            m_reserved = add(m_reserved, c);
            m_peak = std::max(m_peak, m_reserved);
        }
    }
    void give(std::int64_t bytes) { ++m_cached[HostAllocator::sizeClass(bytes)]; }
    std::int64_t peak() const { return m_peak; }

private:
    std::map<std::int64_t, std::int64_t> m_cached;
    std::int64_t m_reserved = 0;
    std::int64_t m_peak = 0;
};

std::int64_t gradientCopies(const Program& p) {
    std::int64_t bytes = 0;
    for (const Buffer& b : p.buffers)
        if (b.role == BufferRole::ParamGrad) bytes = add(bytes, mul(elements(b), 4));
    return bytes;
}

// The driver's largest host temporary: a parameter's or input's initial values (fp32 or
// int64) with their encoding in the buffer's dtype, or a gradient read back with its decoding.
std::int64_t largestTransient(const Program& p) {
    std::int64_t bytes = 0;
    for (const Buffer& b : p.buffers) {
        const std::int64_t n = elements(b);
        switch (b.role) {
            case BufferRole::Parameter:
            case BufferRole::MasterWeight:
            case BufferRole::Input:
            case BufferRole::ParamGrad:
                bytes = std::max(
                    bytes, b.dtype == DType::I64 ? mul(n, 8) : add(mul(n, 4), bufferBytes(b)));
                break;
            default:
                break;
        }
    }
    return bytes;
}

// Per instruction: the measurement's live bytes per category and elapsed seconds, the
// backend's start time and elapsed seconds.
std::int64_t records(const Program& p) {
    return mul(std::int64_t(p.instructions.size()),
               std::int64_t(sizeof(CategoryBytes) + 3 * sizeof(double)));
}

// ---- what the machine has ---------------------------------------------------------------------

std::int64_t readInt(const std::string& path) {
    std::ifstream f(path);
    std::string word;
    if (!(f >> word) || word == "max") return -1;
    try {
        std::size_t used = 0;
        const long long v = std::stoll(word, &used);
        return used == word.size() && v >= 0 ? std::int64_t(v) : -1;
    } catch (...) {
        return -1;
    }
}

std::int64_t memAvailable() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    while (f >> key) {
        if (key == "MemAvailable:") {
            std::int64_t kib = -1;
            f >> kib;
            return kib < 0 ? -1 : mul(kib, 1024);
        }
        f.ignore(1 << 12, '\n');
    }
    return -1;
}

// This process's cgroup path in a hierarchy: "0::/a/b" (v2) or "4:memory:/a/b" (v1).
std::string cgroupPath(bool v2) {
    std::ifstream f("/proc/self/cgroup");
    std::string line;
    while (std::getline(f, line)) {
        const auto first = line.find(':');
        const auto second = first == std::string::npos ? first : line.find(':', first + 1);
        if (second == std::string::npos) continue;
        const std::string id = line.substr(0, first);
        const std::string controllers = line.substr(first + 1, second - first - 1);
        if (v2 ? (id == "0" && controllers.empty()) : controllers == "memory")
            return line.substr(second + 1);
    }
    return {};
}

// The least headroom (limit - usage) from the process's cgroup up to the hierarchy's root,
// -1 when no level has a limit. A container sees its own cgroup as the root.
std::int64_t cgroupHeadroom(const std::string& root, const std::string& path, const char* limitFile,
                            const char* usageFile) {
    std::int64_t best = -1;
    std::string dir = path;
    for (;;) {
        const std::string base = root + (dir == "/" ? "" : dir) + "/";
        const std::int64_t limit = readInt(base + limitFile);
        // v1 reports "no limit" as a page-rounded 2^63 - 1.
        if (limit >= 0 && limit < (std::int64_t{1} << 60)) {
            const std::int64_t usage = std::max<std::int64_t>(0, readInt(base + usageFile));
            const std::int64_t headroom = std::max<std::int64_t>(0, limit - usage);
            best = best < 0 ? headroom : std::min(best, headroom);
        }
        if (dir.empty() || dir == "/") break;
        const auto slash = dir.find_last_of('/');
        dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
    }
    return best;
}

std::int64_t addressSpaceHeadroom() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
    std::ifstream status("/proc/self/status");
    std::string key;
    std::int64_t mapped = 0;
    while (status >> key) {
        if (key == "VmSize:") {
            std::int64_t kib = 0;
            status >> kib;
            mapped = mul(kib, 1024);
            break;
        }
        status.ignore(1 << 12, '\n');
    }
    const std::int64_t cap =
        limit.rlim_cur > std::uint64_t(kMaxBytes) ? kMaxBytes : std::int64_t(limit.rlim_cur);
    return std::max<std::int64_t>(0, cap - mapped);
}

}  // namespace

HostMemory availableHostMemory() {
    HostMemory m;
    auto consider = [&](std::int64_t bytes, const char* source) {
        if (bytes < 0) return;
        if (m.availableBytes < 0 || bytes < m.availableBytes) {
            m.availableBytes = bytes;
            m.source = source;
        }
    };
    consider(memAvailable(), "MemAvailable in /proc/meminfo");
    consider(cgroupHeadroom("/sys/fs/cgroup", cgroupPath(true), "memory.max", "memory.current"),
             "the cgroup's memory.max less its memory.current");
    consider(cgroupHeadroom("/sys/fs/cgroup/memory", cgroupPath(false), "memory.limit_in_bytes",
                            "memory.usage_in_bytes"),
             "the cgroup's memory limit less its usage");
    consider(addressSpaceHeadroom(),
             "this process's address-space limit (ulimit -v) less what it "
             "has mapped");
    return m;
}

// A convolution's im2col columns (gpu/cpu/kernels_conv.cpp): one sample's C·k·k × Ho·Wo fp32
// values, taken for the instruction (forward, and in backward once for the weight gradient and
// once again for the input gradient's columns, one after the other). A convolution is
// recognised by its operands: a 4-D weight [O, C, k, k] between 4-D activations. A 1x1
// convolution whose output keeps the input's size reads its input directly and takes none.
static std::int64_t convColumnBytes(const Program& p, const Instruction& ins) {
    if (ins.params.empty() || !ins.params[0].valid()) return 0;
    const Shape& w = p.buffer(ins.params[0]).shape;
    if (w.size() != 4) return 0;
    const bool backward = ins.kind == InstrKind::Backward;
    const BufferList& xs = backward ? ins.saved : ins.inputs;
    const BufferList& ys = backward ? ins.gradOutputs : ins.outputs;
    if (xs.empty() || ys.empty() || !xs[0].valid() || !ys[0].valid()) return 0;
    const Shape& x = p.buffer(xs[0]).shape;
    const Shape& y = p.buffer(ys[0]).shape;
    if (x.size() != 4 || y.size() != 4) return 0;
    if (w[2] == 1 && w[3] == 1 && y[2] == x[2] && y[3] == x[3]) return 0;
    return mul(mul(mul(w[1], w[2]), w[3]), mul(mul(y[2], y[3]), 4));
}

std::int64_t cpuAllocatorPeakBytes(const Program& p) {
    AllocatorReplay a;
    std::vector<std::int64_t> staged;
    for (const Instruction& ins : p.instructions) {
        switch (ins.kind) {
            case InstrKind::Alloc:
                a.take(bufferBytes(p.buffer(ins.buffer)));
                break;
            case InstrKind::Free:
                a.give(bufferBytes(p.buffer(ins.buffer)));
                break;
            case InstrKind::Forward:
            case InstrKind::Recompute:
            case InstrKind::Backward: {
                staged.clear();
                if (p.precision != Precision::Fp32)
                    for (const BufferList* list :
                         {&ins.inputs, &ins.outputs, &ins.params, &ins.saved, &ins.gradOutputs,
                          &ins.gradInputs, &ins.paramGrads})
                        for (BufferId id : *list)
                            if (id.valid() && is16Bit(p.buffer(id).dtype))
                                staged.push_back(mul(elements(p.buffer(id)), 4));
                const std::int64_t columns = convColumnBytes(p, ins);
                for (std::int64_t bytes : staged) a.take(bytes);
                if (columns > 0) {
                    a.take(columns);
                    a.give(columns);
                }
                for (std::int64_t bytes : staged) a.give(bytes);
                break;
            }
            case InstrKind::OptimizerStep:
                break;  // fused, in place: no staging
        }
    }
    return a.peak();
}

CpuRunHostEstimate estimateCpuRunHostBytes(const Program& run, const Program& reference,
                                           int threads) {
    CpuRunHostEstimate e;
    auto trackedPeak = [](const Program& p) {
        std::int64_t live = 0, peak = 0;
        for (const Instruction& ins : p.instructions) {
            if (ins.kind == InstrKind::Alloc)
                live = add(live, bufferBytes(p.buffer(ins.buffer)));
            else if (ins.kind == InstrKind::Free)
                live -= bufferBytes(p.buffer(ins.buffer));
            peak = std::max(peak, live);
        }
        return peak;
    };
    e.trackedPeakBytes = std::max(trackedPeak(run), trackedPeak(reference));
    const std::int64_t runAllocator = cpuAllocatorPeakBytes(run);
    const std::int64_t refAllocator = cpuAllocatorPeakBytes(reference);
    e.transientBytes = std::max(largestTransient(run), largestTransient(reference));
    e.gemmBufferBytes = cpu::gemmLibraryBufferBytes() *
                        std::int64_t(threads > 0 ? std::min(threads, cpu::kMaxThreads)
                                                 : cpu::defaultThreadCount());
    // The allocator gives its cache back between the runs; the measured run's gradients and
    // records stay while the reference runs.
    const std::int64_t runGrads = gradientCopies(run), refGrads = gradientCopies(reference);
    const std::int64_t duringRun = add(add(runAllocator, runGrads), records(run));
    const std::int64_t duringRef =
        add(add(add(refAllocator, refGrads), records(reference)), add(runGrads, records(run)));
    const bool refLarger = duringRef >= duringRun;
    e.allocatorPeakBytes = refLarger ? refAllocator : runAllocator;
    e.gradientCopiesBytes = refLarger ? add(runGrads, refGrads) : runGrads;
    e.recordsBytes = refLarger ? add(records(run), records(reference)) : records(run);
    e.totalBytes = add(add(std::max(duringRun, duringRef), e.transientBytes), e.gemmBufferBytes);
    return e;
}

}  // namespace remat
