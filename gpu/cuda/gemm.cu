// GEMMs through cuBLAS: the generic column-major wrappers (cublasGemmEx and
// cublasGemmStridedBatchedEx) and the linear layer built on them. Storage may be fp32, bf16 or
// fp16; accumulation is always fp32 (CUBLAS_COMPUTE_32F), which for fp32 storage means plain
// fp32 arithmetic — TF32 is never requested, matching the device profiles' "plain" default.
// The program's layouts are row-major; a row-major [r, c] matrix is a column-major [c, r] one,
// so each product is written transposed (y^T = W x^T) and no data is moved.

#include <climits>

#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

cudaDataType_t cudaType(DType t) {
    switch (t) {
        case DType::F32: return CUDA_R_32F;
        case DType::BF16: return CUDA_R_16BF;
        case DType::F16: return CUDA_R_16F;
        default: break;
    }
    REMAT_REQUIRE(false, "gemm: expected a floating-point dtype");
    return CUDA_R_32F;
}

bool fitsInt(std::int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void gemm(cublasHandle_t h, DType t, bool transA, bool transB, std::int64_t m, std::int64_t n,
          std::int64_t k, float alpha, const void* a, std::int64_t lda, const void* b,
          std::int64_t ldb, float beta, void* c, std::int64_t ldc) {
    REMAT_REQUIRE(fitsInt(m) && fitsInt(n) && fitsInt(k) && fitsInt(lda) && fitsInt(ldb) &&
                      fitsInt(ldc),
                  "gemm: dimensions exceed cuBLAS's int range");
    if (m == 0 || n == 0) return;
    REMAT_REQUIRE(a && b && c, "gemm operands");
    const cudaDataType_t ct = cudaType(t);
    REMAT_CUBLAS_CHECK(cublasGemmEx(h, transA ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    transB ? CUBLAS_OP_T : CUBLAS_OP_N, int(m), int(n), int(k),
                                    &alpha, a, ct, int(lda), b, ct, int(ldb), &beta, c, ct,
                                    int(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void gemmStridedBatched(cublasHandle_t h, DType t, bool transA, bool transB, std::int64_t m,
                        std::int64_t n, std::int64_t k, float alpha, const void* a,
                        std::int64_t lda, std::int64_t strideA, const void* b, std::int64_t ldb,
                        std::int64_t strideB, float beta, void* c, std::int64_t ldc,
                        std::int64_t strideC, std::int64_t batch) {
    REMAT_REQUIRE(fitsInt(m) && fitsInt(n) && fitsInt(k) && fitsInt(lda) && fitsInt(ldb) &&
                      fitsInt(ldc) && fitsInt(batch),
                  "gemmStridedBatched: dimensions exceed cuBLAS's int range");
    if (m == 0 || n == 0 || batch == 0) return;
    REMAT_REQUIRE(a && b && c, "gemmStridedBatched operands");
    const cudaDataType_t ct = cudaType(t);
    REMAT_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        h, transA ? CUBLAS_OP_T : CUBLAS_OP_N, transB ? CUBLAS_OP_T : CUBLAS_OP_N, int(m), int(n),
        int(k), &alpha, a, ct, int(lda), strideA, b, ct, int(ldb), strideB, &beta, c, ct, int(ldc),
        strideC, int(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// y^T [out, rows] = W [out, in] . x^T [in, rows]; in column-major terms A = W^T stored [in, out]
// (transposed on use), B = x^T stored [in, rows].
void linearForward(cublasHandle_t h, DType t, const void* x, const void* w, const void* b,
                   void* y, std::int64_t rows, std::int64_t in, std::int64_t out,
                   cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && in > 0 && out > 0, "linearForward");
    if (rows == 0) return;
    REMAT_REQUIRE(x && w && y, "linearForward operands");
    if (b) {
        // y = bias broadcast, then y += x W^T: the bias rides on the GEMM's beta.
        // Rounded once, as the reference rounds x W^T + b, rather than once per addition.
        rowBroadcast(t, b, y, rows, out, s);
        gemm(h, t, true, false, out, rows, in, 1.0f, w, in, x, in, 1.0f, y, out);
    } else {
        gemm(h, t, true, false, out, rows, in, 1.0f, w, in, x, in, 0.0f, y, out);
    }
}

// dx^T [in, rows] += W^T [in, out] . dy^T [out, rows];
// dW^T [in, out] += x^T [in, rows] . dy [rows, out]; db[o] += sum over rows of dy[:, o].
void linearBackward(cublasHandle_t h, DType t, const void* x, const void* w, const void* dy,
                    void* dx, void* dw, void* db, std::int64_t rows, std::int64_t in,
                    std::int64_t out, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && in > 0 && out > 0, "linearBackward");
    if (rows == 0) return;
    REMAT_REQUIRE(dy, "linearBackward: output gradient");
    if (dx) {
        REMAT_REQUIRE(w, "linearBackward: weight");
        gemm(h, t, false, false, in, rows, out, 1.0f, w, in, dy, out, 1.0f, dx, in);
    }
    if (dw) {
        REMAT_REQUIRE(x, "linearBackward: saved input");
        gemm(h, t, false, true, in, out, rows, 1.0f, x, in, dy, out, 1.0f, dw, in);
    }
    if (db) columnSum(t, dy, db, rows, out, s);
}

}  // namespace remat::gpu::cuda
