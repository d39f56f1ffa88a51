// Stopping long work from another thread. The desktop app evaluates large models on a worker
// thread; when the user cancels, or a newer edit supersedes the one in flight, it sets a flag
// that the compiler, the simulator and the optimal planners read between steps (a micro-step,
// a block of instructions, a boundary of the chain) and give up early. A function that takes a
// flag treats a null pointer as "never cancelled"; one that stops early returns the error
// kCancelledMessage (or, for the simulator, an incomplete timeline the caller must discard).
#pragma once

#include <atomic>

namespace remat {

using CancelFlag = std::atomic<bool>;

inline bool cancelRequested(const CancelFlag* flag) {
    return flag != nullptr && flag->load(std::memory_order_relaxed);
}

inline constexpr const char* kCancelledMessage = "cancelled";

}  // namespace remat
