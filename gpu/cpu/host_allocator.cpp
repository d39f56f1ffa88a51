#include "host_allocator.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

namespace remat {

namespace {
constexpr std::int64_t kAlignment = 64;
constexpr std::int64_t kSmallLimit = 4096;
}  // namespace

HostAllocator::~HostAllocator() {
    for (auto& [block, size] : m_inUse) std::free(block);
    m_inUse.clear();
    trim();
}

std::int64_t HostAllocator::sizeClass(std::int64_t bytes) {
    if (bytes <= kSmallLimit) return std::max<std::int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    // Four classes per power of two: [2^k, 2^(k+1)) is split in steps of 2^(k-2).
    const int k = 63 - std::countl_zero(std::uint64_t(bytes - 1));
    const std::int64_t step = std::int64_t{1} << (k - 2);
    return (bytes + step - 1) / step * step;
}

void* HostAllocator::allocate(std::int64_t bytes) {
    if (bytes <= 0) return nullptr;
    const std::int64_t size = sizeClass(bytes);
    void* block = nullptr;
    auto it = m_cache.find(size);
    if (it != m_cache.end() && !it->second.empty()) {
        block = it->second.back();
        it->second.pop_back();
    } else {
        block = std::aligned_alloc(std::size_t(kAlignment), std::size_t(size));
        if (!block && cachedBytes() > 0) {
            trim();
            block = std::aligned_alloc(std::size_t(kAlignment), std::size_t(size));
        }
        if (!block) return nullptr;
        m_reservedBytes += size;
        m_reservedPeakBytes = std::max(m_reservedPeakBytes, m_reservedBytes);
    }
    m_inUse.emplace(block, size);
    m_usedBytes += size;
    m_usedPeakBytes = std::max(m_usedPeakBytes, m_usedBytes);
    return block;
}

void HostAllocator::release(void* block) noexcept {
    auto it = m_inUse.find(block);
    if (it == m_inUse.end()) return;
    const std::int64_t size = it->second;
    m_inUse.erase(it);
    m_usedBytes -= size;
    m_cache[size].push_back(block);
}

void HostAllocator::trim() noexcept {
    for (auto& [size, blocks] : m_cache) {
        for (void* b : blocks) std::free(b);
        m_reservedBytes -= size * std::int64_t(blocks.size());
        blocks.clear();
    }
    m_cache.clear();
}

void HostAllocator::resetPeaks() {
    m_usedPeakBytes = m_usedBytes;
    m_reservedPeakBytes = m_reservedBytes;
}

}  // namespace remat
