// The operand lists of an instruction (inputs, outputs, saved tensors, gradients...): a vector of
// buffer ids that keeps up to four ids inside itself and goes to the heap only beyond that.
// Nearly every op has at most four operands per list, so compiling a program of 20,000
// instructions makes no heap allocation per list, where std::vector made tens of thousands.
// The interface is the subset of std::vector that programs use.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>

#include "ids.h"

namespace remat {

class BufferList {
public:
    static_assert(std::is_trivially_copyable_v<BufferId>);

    using value_type = BufferId;
    using iterator = BufferId*;
    using const_iterator = const BufferId*;

    BufferList() = default;
    BufferList(std::initializer_list<BufferId> ids) {
        reserve(ids.size());
        for (BufferId b : ids) push_back(b);
    }
    BufferList(const BufferList& o) {
        reserve(o.m_size);
        std::copy(o.begin(), o.end(), data());
        m_size = o.m_size;
    }
    BufferList(BufferList&& o) noexcept { take(o); }
    BufferList& operator=(const BufferList& o) {
        if (this != &o) {
            clear();
            reserve(o.m_size);
            std::copy(o.begin(), o.end(), data());
            m_size = o.m_size;
        }
        return *this;
    }
    BufferList& operator=(BufferList&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~BufferList() { release(); }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    BufferId* data() { return onHeap() ? m_heap : m_inline; }
    const BufferId* data() const { return onHeap() ? m_heap : m_inline; }
    BufferId& operator[](std::size_t i) { return data()[i]; }
    const BufferId& operator[](std::size_t i) const { return data()[i]; }
    BufferId& front() { return data()[0]; }
    const BufferId& front() const { return data()[0]; }
    BufferId& back() { return data()[m_size - 1]; }
    const BufferId& back() const { return data()[m_size - 1]; }
    iterator begin() { return data(); }
    iterator end() { return data() + m_size; }
    const_iterator begin() const { return data(); }
    const_iterator end() const { return data() + m_size; }

    void clear() { m_size = 0; }
    void reserve(std::size_t n) {
        if (n <= m_capacity) return;
        auto* grown = new BufferId[n];
        std::copy(begin(), end(), grown);
        release();
        m_heap = grown;
        m_capacity = std::uint32_t(n);
    }
    void push_back(BufferId b) {
        if (m_size == m_capacity) reserve(std::size_t(m_capacity) * 2);
        data()[m_size++] = b;
    }
    BufferId& emplace_back(BufferId b) {
        push_back(b);
        return back();
    }
    void resize(std::size_t n, BufferId fill = BufferId::invalid()) {
        reserve(n);
        for (std::size_t i = m_size; i < n; ++i) data()[i] = fill;
        m_size = std::uint32_t(n);
    }

    friend bool operator==(const BufferList& a, const BufferList& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    static constexpr std::uint32_t kInline = 4;
    bool onHeap() const { return m_capacity > kInline; }
    void release() {
        if (onHeap()) delete[] m_heap;
        m_heap = nullptr;
        m_capacity = kInline;
        m_size = 0;
    }
    // Every member is a plain value: the ids inline, or the heap pointer, move as bytes (a
    // program's instructions are moved into their final order by the tens of thousands).
    void take(BufferList& o) {
        std::memcpy(static_cast<void*>(this), static_cast<const void*>(&o), sizeof(BufferList));
        o.m_heap = nullptr;
        o.m_capacity = kInline;
        o.m_size = 0;
    }

    BufferId m_inline[kInline];
    BufferId* m_heap = nullptr;
    std::uint32_t m_size = 0;
    std::uint32_t m_capacity = kInline;
};

}  // namespace remat
