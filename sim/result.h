// The project's one error-carrying result type. Every function a user's input can make fail
// (a malformed model file, an impossible size, an invalid plan) returns Result<T>: either the
// value or an Error whose message says what is wrong and where. Nothing in sim/ throws on user
// input and nothing exits; only app/ and ui/ turn an Error into a message for a person.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace remat {

struct Error {
    std::string message;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<T>(m_state);
    }
    const T& value() const& {
        assert(ok());
        return std::get<T>(m_state);
    }
    T&& value() && {
        assert(ok());
        return std::get<T>(std::move(m_state));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        assert(!ok());
        return std::get<Error>(m_state);
    }

private:
    std::variant<T, Error> m_state;
};

// Result<void> stand-in: success carries nothing.
struct Ok {};
using Status = Result<Ok>;

inline Error makeError(std::string message) { return Error{std::move(message)}; }

}  // namespace remat
