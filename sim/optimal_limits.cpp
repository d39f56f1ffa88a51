#include "optimal_limits.h"

#include <vector>

#include "checked.h"

namespace remat {
namespace {

constexpr const char* kInstead =
    ". Use fewer layers (or blocks), or a strategy without a search: every:K, sqrt, "
    "selective:KIND, revolve:C";

// endable[u]: chain elements a region could end at from unit u to the end of u's run of
// region members (units a region may contain).
std::vector<std::int64_t> endableAhead(const ChainModel& model) {
    const int n = model.unitCount();
    std::vector<std::int64_t> ahead(std::size_t(n) + 1, 0);
    for (int u = n - 1; u >= 0; --u)
        ahead[std::size_t(u)] =
            model.regionMember(u)
                ? ahead[std::size_t(u) + 1] + (model.canEndRegion(u) ? 1 : 0)
                : 0;
    return ahead;
}

}  // namespace

SearchSize singleLevelSearchSize(const ChainModel& model) {
    const std::vector<std::int64_t> ahead = endableAhead(model);
    SearchSize s;
    s.units = model.unitCount();
    for (int b = 0; b < model.unitCount(); ++b)
        s.choices += 1 + (model.canStartRegion(b) ? ahead[std::size_t(b)] : 0);
    s.steps = satMul(s.units, s.choices);
    return s;
}

std::int64_t nestedCells(const ChainModel& model, int slots) {
    // A level [a, j] (j a chain element, a..j region members) tries, for both stream flags,
    // the kept unit and every child region [a, l], l <= j, each over every free-slot count;
    // the top level does the same over [a, end of the run].
    const int n = model.unitCount();
    std::int64_t ranges = 0;
    for (int j = 0; j < n; ++j) {
        if (!model.canEndRegion(j)) continue;
        for (int a = j; a >= 0 && model.regionMember(a); --a) ranges = satAdd(ranges, j - a + 2);
    }
    const std::vector<std::int64_t> ahead = endableAhead(model);
    for (int a = 0; a < n; ++a) ranges = satAdd(ranges, 1 + ahead[std::size_t(a)]);
    return satMul(satMul(ranges, 2), std::int64_t(slots) + 1);
}

Status checkSingleLevelSearch(const ChainModel& model, const std::string& planner) {
    const SearchSize s = singleLevelSearchSize(model);
    if (s.steps <= kMaxOptimalSearchSteps) return Ok{};
    return makeError(planner + ": a chain of " + std::to_string(s.units) + " units with " +
                     std::to_string(s.choices) + " segment choices needs a search of about " +
                     std::to_string(s.steps) +
                     " steps (units x choices); the largest search supported has " +
                     std::to_string(kMaxOptimalSearchSteps) + kInstead);
}

Status checkNestedSearch(const ChainModel& model, int slots) {
    const std::int64_t cells = nestedCells(model, slots);
    if (cells <= kMaxNestedCells) return Ok{};
    return makeError("optimal-nested: a chain of " + std::to_string(model.unitCount()) +
                     " units at " + std::to_string(slots) +
                     " memory slots needs about " + std::to_string(cells) +
                     " table cells; the largest nested search supported has " +
                     std::to_string(kMaxNestedCells) + kInstead + ", or optimal:BUDGET");
}

std::string searchTooLargeMessage(const std::string& planner, std::int64_t mergeSteps,
                                  std::int64_t limit, int boundary, int units) {
    return planner + ": the search stopped at unit " + std::to_string(boundary) + " of " +
           std::to_string(units) + " after " + std::to_string(mergeSteps) +
           " steps, more than the largest search supported (" + std::to_string(limit) + ")" +
           kInstead;
}

}  // namespace remat
