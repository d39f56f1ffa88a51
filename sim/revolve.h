// Binomial checkpointing (Griewank & Walther, "Algorithm 799: Revolve", 2000) for a chain of l
// equal steps with c checkpoint slots, the chain's input occupying one of them, expressed as the
// nested checkpointed regions the compiler runs: at each level the first region is the part
// Revolve advances over before storing its next checkpoint, and the level continues with one
// slot fewer; inside a region the same split repeats with all c slots. Every step then runs
// forward t(l, c) + l times, where t(l, c) = r l - C(c + r, r - 1) is Griewank's minimal number
// of advances and r the least integer with C(c + r, c) >= l.
#pragma once

#include <cstdint>

#include "graph.h"
#include "plan.h"
#include "result.h"

namespace remat {

// Griewank's t(l, c): forward steps beyond the one taping forward each step gets. c >= 1.
std::int64_t revolveAdvances(std::int64_t steps, std::int64_t slots);
// Forward evaluations of chain steps in the whole schedule: t(l, c) + l.
std::int64_t revolveForwardSteps(std::int64_t steps, std::int64_t slots);

// The Revolve plan over the graph's chain (`revolve:C`); the chain is treated as homogeneous.
Result<Plan> planRevolve(const Graph& g, std::int64_t slots);

}  // namespace remat
