// The operand lists of an instruction (inputs, outputs, saved tensors, gradients...): a vector of
// buffer ids that keeps up to four ids inside itself and goes to the heap only beyond that.
// Nearly every op has at most four operands per list, so compiling a program of 20,000
// instructions makes no heap allocation per list, where std::vector made tens of thousands.
// A list takes 20 bytes (an instruction holds eight): the heap pointer, when there is one, is
// kept in the bytes of the inline ids, and the size and capacity are 16-bit (no op has more
// than 65,535 operands in one list; reserve() refuses more). Every pass over a program's
// instructions reads less memory for it. The interface is the subset of std::vector that
// programs use.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
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
        if (!o.onHeap()) {
            // The common case: the ids inline, copied as bytes.
            std::memcpy(static_cast<void*>(this), static_cast<const void*>(&o), sizeof(BufferList));
            return;
        }
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
    BufferId* data() { return onHeap() ? heap() : m_inline; }
    const BufferId* data() const { return onHeap() ? heap() : m_inline; }
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
        if (n > kMaxSize) throw std::length_error("more than 65,535 operands in one list");
        auto* grown = new BufferId[n];
        const std::uint16_t size = m_size;
        std::copy(begin(), end(), grown);
        release();
        setHeap(grown);
        m_size = size;
        m_capacity = std::uint16_t(n);
    }
    void push_back(BufferId b) {
        // Doubling, up to the largest size; one more past that is refused by reserve().
        if (m_size == m_capacity)
            reserve(m_capacity == kMaxSize ? kMaxSize + 1
                                           : std::min<std::size_t>(2 * std::size_t(m_capacity),
                                                                   kMaxSize));
        data()[m_size++] = b;
    }
    BufferId& emplace_back(BufferId b) {
        push_back(b);
        return back();
    }
    void resize(std::size_t n, BufferId fill = BufferId::invalid()) {
        reserve(n);
        for (std::size_t i = m_size; i < n; ++i) data()[i] = fill;
        m_size = std::uint16_t(n);
    }

    friend bool operator==(const BufferList& a, const BufferList& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    static constexpr std::uint16_t kInline = 4;
    static constexpr std::size_t kMaxSize = 0xFFFF;
    static_assert(sizeof(BufferId*) <= kInline * sizeof(BufferId));
    bool onHeap() const { return m_capacity > kInline; }
    BufferId* heap() const {
        BufferId* p;
        std::memcpy(&p, static_cast<const void*>(m_inline), sizeof p);
        return p;
    }
    void setHeap(BufferId* p) { std::memcpy(static_cast<void*>(m_inline), &p, sizeof p); }
    void release() {
        if (onHeap()) delete[] heap();
        m_capacity = kInline;
        m_size = 0;
    }
    // Every member is a plain value: the ids inline, or the heap pointer, move as bytes (a
    // program's instructions are moved into their final order by the tens of thousands).
    void take(BufferList& o) {
        std::memcpy(static_cast<void*>(this), static_cast<const void*>(&o), sizeof(BufferList));
        o.m_capacity = kInline;
        o.m_size = 0;
    }

    // The ids inline, or (on the heap) the bytes of the heap pointer.
    BufferId m_inline[kInline];
    std::uint16_t m_size = 0;
    std::uint16_t m_capacity = kInline;
};

}  // namespace remat
