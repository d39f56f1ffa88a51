// Sizes of the exhaustive and randomised sweeps. Optimised builds run them in full; debug and
// sanitizer builds (3-10x slower) run a reduced set so the whole suite stays within minutes
// on two cores — the full set still runs in the release pass of every CI run.
#pragma once

#include <algorithm>

namespace remat::test {

#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
inline constexpr bool kReducedSweeps = true;
#else
inline constexpr bool kReducedSweeps = false;
#endif

// `n` trials in optimised builds, a quarter (at least one) otherwise.
inline int sweepCount(int n) { return kReducedSweeps ? std::max(1, n / 4) : n; }

}  // namespace remat::test
