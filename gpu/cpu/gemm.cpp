#include "gemm.h"

#ifdef REMAT_HAVE_CBLAS
#include <cblas.h>
#endif

namespace {
#ifdef REMAT_HAVE_OPENBLAS
using BlasInt = blasint;
#else
using BlasInt = int;
#endif
}  // namespace

namespace remat::cpu {

void sgemm(Transpose transA, Transpose transB, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc) {
    if (m <= 0 || n <= 0) return;
#ifdef REMAT_HAVE_CBLAS
    cblas_sgemm(CblasRowMajor, transA == Transpose::Yes ? CblasTrans : CblasNoTrans,
                transB == Transpose::Yes ? CblasTrans : CblasNoTrans, BlasInt(m), BlasInt(n),
                BlasInt(k), alpha, a, BlasInt(lda), b, BlasInt(ldb), beta, c, BlasInt(ldc));
#else
    const bool ta = transA == Transpose::Yes, tb = transB == Transpose::Yes;
    for (std::int64_t i = 0; i < m; ++i) {
        float* ci = c + i * ldc;
        for (std::int64_t j = 0; j < n; ++j) ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
        for (std::int64_t p = 0; p < k; ++p) {
            const float av = alpha * (ta ? a[p * lda + i] : a[i * lda + p]);
            if (tb) {
                for (std::int64_t j = 0; j < n; ++j) ci[j] += av * b[j * ldb + p];
            } else {
                const float* bp = b + p * ldb;
                for (std::int64_t j = 0; j < n; ++j) ci[j] += av * bp[j];
            }
        }
    }
#endif
}

void configureGemmLibrary() {
#ifdef REMAT_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
}

std::string gemmLibraryName() {
#ifdef REMAT_HAVE_OPENBLAS
    std::string config = openblas_get_config();
    return config + ", 1 thread";
#elif defined(REMAT_HAVE_CBLAS)
    return "CBLAS";
#else
    return "built-in loops";
#endif
}

}  // namespace remat::cpu
