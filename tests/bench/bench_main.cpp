// The entry point of the simulator's benchmarks (bench_simulate, bench_optimal): Google
// Benchmark's own main, after the allocator setting the programs make at start, so the figures
// are those of `remat` and `remat-studio`.
#include <benchmark/benchmark.h>

#include "allocator_tuning.h"

int main(int argc, char** argv) {
    remat::keepFreedMemoryForReuse();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
