// Row-major single-precision GEMM for the CPU executor: C = alpha * op(A) op(B) + beta * C,
// through CBLAS (OpenBLAS, set to one thread so results are bitwise reproducible) when the
// build found it, else a plain C++ loop nest with the same contract. `parallelSgemm` spreads
// one product over the CPU backend's threads: C is cut into tiles fixed by its shape alone,
// each computed by one single-threaded call, the reduction dimension never split — so the
// result is the same bits with any thread count.
//
// OpenBLAS is loaded on first use, not at program start, for two reasons that matter under a
// memory limit (`ulimit -v`, a container): loaded with more than one thread it starts worker
// threads that each map a 128 MiB work buffer at once, and when a mapping fails OpenBLAS
// retries it forever — the process hangs, even at exit. Loading it ourselves lets us start it
// with OPENBLAS_NUM_THREADS=1 (no worker threads) and check, before its first GEMM, that its
// work buffers can be mapped — one per GEMM running at once, so one per executor thread — so
// a run that cannot get them ends with a message instead.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "result.h"

namespace remat::cpu {

enum class Transpose { No, Yes };

class ThreadPool;

// Loads the GEMM library if needed and makes sure that `concurrentCalls` GEMMs running at
// once can each obtain a work buffer (OpenBLAS: 128 MiB of address space per concurrent
// call, mapped on first need and kept for the life of the process). It checks that the
// missing buffers can be mapped, then runs that many GEMMs side by side so that OpenBLAS
// maps them now rather than in the middle of a run. An error names what is missing — the
// library, or the address space with this process's limit — and nothing hangs. Cheap once
// it has succeeded for at least that many calls; safe from any thread.
Status prepareGemm(int concurrentCalls = 1);

// Thrown by sgemm() when prepareGemm() fails on a path that did not call it first; the CPU
// backend turns it into an error Status.
struct GemmUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void sgemm(Transpose transA, Transpose transB, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc);

// The tiles parallelSgemm cuts C (m x n) into: kGemmTileRows x kGemmTileCols, multiples of
// every register tile OpenBLAS uses for sgemm on x86-64 and ARM64, and a product under
// kGemmSerialFlops is one call.
inline constexpr std::int64_t kGemmTileRows = 256;
inline constexpr std::int64_t kGemmTileCols = 256;
inline constexpr double kGemmSerialFlops = 2.0 * 64 * 64 * 64;

// sgemm on the pool, tile by tile (above). Every element of C is computed by the same call
// sequence whatever pool.threads() is.
void parallelSgemm(ThreadPool& pool, Transpose transA, Transpose transB, std::int64_t m,
                   std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda,
                   const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);

// Sets OPENBLAS_NUM_THREADS=1 in the environment, where OpenBLAS reads it when it is loaded.
// prepareGemm() does this itself; a multi-threaded program (the GUI) calls it early on its
// main thread, because setenv must not race with other threads reading the environment.
void setGemmLibraryEnvironment();

// Fixes the GEMM library's threading to one thread (deterministic summation order); safe to
// call more than once. Loads nothing: prepareGemm() does.
void configureGemmLibrary();
// "OpenBLAS 0.3.21 ..., 1 thread per call" or "built-in loops"; the library's name without its
// configuration while it is not loaded.
std::string gemmLibraryName();

// Bytes of address space OpenBLAS maps for one GEMM work buffer (0 without OpenBLAS): the
// x86-64 build's BUFFER_SIZE (32 << 22) plus the two guard pages it adds. A process whose
// GEMMs run on N threads at once holds N of them.
std::int64_t gemmLibraryBufferBytes();

}  // namespace remat::cpu
