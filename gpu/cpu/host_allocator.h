// The CPU executor's allocator: a size-class caching allocator over the C library, standing
// in for a GPU framework's caching allocator so that the CPU run has a real device-level
// figure. Requests are rounded up to a size class (64-byte steps up to 4 KiB, then four
// classes per power of two: at most 25% rounding), blocks are 64-byte aligned, and freed
// blocks are kept per class for reuse rather than returned. The high-water mark of bytes
// obtained from the system (blocks in use plus cached) is the executor's device-level peak;
// its gap to the tracked peak is rounding plus blocks cached in a class nobody asks for.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace remat {

class HostAllocator {
public:
    HostAllocator() = default;
    HostAllocator(const HostAllocator&) = delete;
    HostAllocator& operator=(const HostAllocator&) = delete;
    ~HostAllocator();

    // nullptr when the system has no memory left (after giving the cache back).
    void* allocate(std::int64_t bytes);
    void release(void* block) noexcept;
    // Returns every cached block to the system.
    void trim() noexcept;
    // High-water marks restart from the current figures.
    void resetPeaks();

    static std::int64_t sizeClass(std::int64_t bytes);

    std::int64_t usedBytes() const { return m_usedBytes; }          // classes of blocks in use
    std::int64_t reservedBytes() const { return m_reservedBytes; }  // in use + cached
    std::int64_t usedPeakBytes() const { return m_usedPeakBytes; }
    std::int64_t reservedPeakBytes() const { return m_reservedPeakBytes; }
    std::int64_t cachedBytes() const { return m_reservedBytes - m_usedBytes; }

private:
    std::unordered_map<void*, std::int64_t> m_inUse;  // block -> its class
    std::unordered_map<std::int64_t, std::vector<void*>> m_cache;
    std::int64_t m_usedBytes = 0;
    std::int64_t m_reservedBytes = 0;
    std::int64_t m_usedPeakBytes = 0;
    std::int64_t m_reservedPeakBytes = 0;
};

}  // namespace remat
