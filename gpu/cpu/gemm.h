// Row-major single-precision GEMM for the CPU executor: C = alpha * op(A) op(B) + beta * C,
// through CBLAS (OpenBLAS, set to one thread so results are bitwise reproducible) when the
// build found it, else a plain C++ loop nest with the same contract.
#pragma once

#include <cstdint>
#include <string>

namespace remat::cpu {

enum class Transpose { No, Yes };

void sgemm(Transpose transA, Transpose transB, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc);

// Fixes the GEMM library's threading to one thread (deterministic summation order); safe to
// call more than once.
void configureGemmLibrary();
// "OpenBLAS 0.3.21 ... (1 thread)" or "built-in loops".
std::string gemmLibraryName();

}  // namespace remat::cpu
