// Strong integer ids for the graph and the program. An OpId cannot be passed where a TensorId
// is expected; each id is an index into the owning vector and `invalid()` marks "none".
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

namespace remat {

template <typename Tag>
struct StrongId {
    std::uint32_t value = std::numeric_limits<std::uint32_t>::max();

    constexpr StrongId() = default;
    constexpr explicit StrongId(std::uint32_t v) : value(v) {}
    static constexpr StrongId invalid() { return StrongId(); }
    constexpr bool valid() const { return value != std::numeric_limits<std::uint32_t>::max(); }
    constexpr std::size_t index() const { return value; }
    friend constexpr bool operator==(StrongId a, StrongId b) { return a.value == b.value; }
    friend constexpr auto operator<=>(StrongId a, StrongId b) { return a.value <=> b.value; }
};

using OpId = StrongId<struct OpTag>;
using TensorId = StrongId<struct TensorTag>;
using ModuleId = StrongId<struct ModuleTag>;
using BufferId = StrongId<struct BufferTag>;

}  // namespace remat

template <typename Tag>
struct std::hash<remat::StrongId<Tag>> {
    std::size_t operator()(remat::StrongId<Tag> id) const noexcept {
        return std::hash<std::uint32_t>{}(id.value);
    }
};
