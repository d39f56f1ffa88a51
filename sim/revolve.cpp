#include "revolve.h"

#include <limits>
#include <vector>

namespace remat {
namespace {

// C(n, k) saturating at int64 max.
std::int64_t binomial(std::int64_t n, std::int64_t k) {
    if (k < 0 || k > n) return 0;
    k = std::min(k, n - k);
    std::int64_t r = 1;
    for (std::int64_t i = 1; i <= k; ++i) {
        // r * (n - k + i) / i is exact at every step (a binomial coefficient).
        if (r > std::numeric_limits<std::int64_t>::max() / (n - k + i))
            return std::numeric_limits<std::int64_t>::max();
        r = r * (n - k + i) / i;
    }
    return r;
}

// beta(c, r) = C(c + r, c): the most steps c slots reverse with at most r forwards per step.
std::int64_t beta(std::int64_t c, std::int64_t r) {
    return binomial(c + r, c);
}

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max() / 4;

std::int64_t advances(std::int64_t l, std::int64_t c) {
    if (l <= 1) return 0;
    if (c <= 0) return kNever;
    return revolveAdvances(l, c);
}

// Chain indices [a, a + l) at one level, with c slots: the first region (Revolve's first
// advance) then the rest of the level with c - 1; inside the first region the same split repeats
// with all c slots. Levels wait on an explicit work list rather than the call stack: with one
// slot the nesting is as deep as the chain.
void buildLevels(std::int64_t a0, std::int64_t l0, std::int64_t c0,
                 std::vector<std::pair<std::int64_t, std::int64_t>>& regions) {
    struct Level {
        std::int64_t a, l, c;
    };
    std::vector<Level> work{{a0, l0, c0}};
    while (!work.empty()) {
        auto [a, l, c] = work.back();
        work.pop_back();
        while (l > 1) {
            const std::int64_t target = advances(l, c);
            std::int64_t split = l - 1;
            for (std::int64_t s = 1; s < l; ++s) {
                const std::int64_t rest = advances(l - s, c - 1);
                if (rest >= kNever) continue;
                if (s + rest + advances(s, c) == target) {
                    split = s;
                    break;
                }
            }
            regions.push_back({a, a + split - 1});
            work.push_back({a, split, c});
            a += split;
            l -= split;
            --c;
        }
    }
}

}  // namespace

std::int64_t revolveAdvances(std::int64_t l, std::int64_t c) {
    if (l <= 1) return 0;
    if (c < 1) return kNever;
    std::int64_t r = 0;
    while (beta(c, r) < l) ++r;
    return r * l - beta(c + 1, r - 1);
}

std::int64_t revolveForwardSteps(std::int64_t steps, std::int64_t slots) {
    return revolveAdvances(steps, slots) + steps;
}

Result<Plan> planRevolve(const Graph& g, std::int64_t slots) {
    if (slots < 1) return makeError("revolve: needs at least one checkpoint slot");
    Plan plan;
    plan.strategy = "revolve:" + std::to_string(slots);
    const auto n = std::int64_t(g.chain.size());
    std::vector<std::pair<std::int64_t, std::int64_t>> regions;
    buildLevels(0, n, slots, regions);
    for (const auto& [first, last] : regions) {
        const Module& a = g.module(g.chain[std::size_t(first)]);
        const Module& b = g.module(g.chain[std::size_t(last)]);
        plan.regions.push_back(
            Region{a.firstOp, b.lastOp(), first == last ? a.path : a.path + "-" + b.path, true});
    }
    auto st = normalizePlan(g, plan);
    if (!st) return st.error();
    return plan;
}

}  // namespace remat
