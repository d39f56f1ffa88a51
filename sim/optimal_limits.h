// Bounds on the optimal planners' work, so that every request they accept answers within a few
// seconds and the rest is refused with the numbers. Two kinds of bound, both counts (never
// clocks), so that the same input always gets the same answer:
// - before any search, from the chain's shape alone: the single-level search's size (chain units
//   times the segments the dynamic program chooses between) and the nested program's table
//   cells (ranges times first segments times memory slots); a request over the limit is refused
//   with the estimate and the largest supported, as the compiler refuses a program over its
//   instruction limit;
// - during the single-level search, whose cost no shape count predicts well (its Pareto sets
//   grow with how alike the chain's elements are): its merge steps, the partial plans it takes
//   into the boundaries' Pareto sets (about 40 ns each); a search that passes the limit stops
//   and is refused with how far it got.
// The limits and the CPU time measured at them are in docs/reliability.md.
#pragma once

#include <cstdint>
#include <string>

#include "optimal_model.h"
#include "result.h"

namespace remat {

// Single-level search size: units x segment choices (each boundary's choices: keep the next
// unit, or one region per chain element it can end at).
inline constexpr std::int64_t kMaxOptimalSearchSteps = 300'000'000;
// Merge steps one single-level search (the beam pass and the exact pass together) may take; a
// frontier (`remat pareto`, the GUI's comparison) takes at most this many over all its solves.
inline constexpr std::int64_t kMaxOptimalMergeSteps = 32'000'000;
// Instructions a frontier may compile and simulate to verify its points, all points together.
inline constexpr std::int64_t kMaxFrontierInstructions = 16'000'000;
// Nested program: table cells filled (sum over ranges of first segments, times memory slots).
inline constexpr std::int64_t kMaxNestedCells = 600'000'000;

struct SearchSize {
    std::int64_t units = 0;
    std::int64_t choices = 0;  // segments the single-level program chooses between
    std::int64_t steps = 0;    // units x choices
};
SearchSize singleLevelSearchSize(const ChainModel& model);

// Table cells the nested program fills at `slots` memory slots (an upper bound: a small
// budget may use fewer slots).
std::int64_t nestedCells(const ChainModel& model, int slots);

// Ok, or "PLANNER: a chain of N units with C segment choices needs a search of about S steps
// (units x choices); the largest search supported has ..." with what to do instead.
Status checkSingleLevelSearch(const ChainModel& model, const std::string& planner);
Status checkNestedSearch(const ChainModel& model, int slots);

// The refusal of a search (or a frontier's searches) that passed kMaxOptimalMergeSteps:
// "PLANNER: the search stopped at unit B of N after S steps, more than the largest search
// supported (L). Use ...".
std::string searchTooLargeMessage(const std::string& planner, std::int64_t mergeSteps,
                                  std::int64_t limit, int boundary, int units);

}  // namespace remat
