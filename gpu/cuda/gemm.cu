// GEMMs through cuBLAS: the generic column-major wrappers (cublasGemmEx and
// cublasGemmStridedBatchedEx) and the linear layer built on them. Storage may be fp32, bf16 or
// fp16; accumulation is always fp32 (CUBLAS_COMPUTE_32F), which for fp32 storage means plain
// fp32 arithmetic — TF32 is never requested, matching the device profiles' "plain" default.
// The products themselves are planned in gemm_plan.cpp (row-major layouts seen column-major,
// so no data is moved); this file runs the plans.

#include <climits>

#include "launchers.h"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

cudaDataType_t cudaType(DType t) {
    switch (t) {
        case DType::F32:
            return CUDA_R_32F;
        case DType::BF16:
            return CUDA_R_16BF;
        case DType::F16:
            return CUDA_R_16F;
        default:
            break;
    }
    REMAT_REQUIRE(false, "gemm: expected a floating-point dtype");
    return CUDA_R_32F;
}

bool fitsInt(std::int64_t v) {
    return v >= 0 && v <= INT_MAX;
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void gemm(cublasHandle_t h, DType t, bool transA, bool transB, std::int64_t m, std::int64_t n,
          std::int64_t k, float alpha, const void* a, std::int64_t lda, const void* b,
          std::int64_t ldb, float beta, void* c, std::int64_t ldc) {
    REMAT_REQUIRE(
        fitsInt(m) && fitsInt(n) && fitsInt(k) && fitsInt(lda) && fitsInt(ldb) && fitsInt(ldc),
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

void runGemms(cublasHandle_t h, DType t, const std::vector<GemmCall>& calls,
              const GemmOperands& operands) {
    const std::int64_t es = dtypeBytes(t);
    auto at = [&](const GemmMatrix& m) {
        void* base = operands[std::size_t(m.operand)];
        REMAT_REQUIRE(base, "runGemms: an operand the plan uses is not bound");
        return static_cast<char*>(base) + m.offset * es;
    };
    for (const GemmCall& g : calls) {
        if (g.batch == 1)
            gemm(h, t, g.transA, g.transB, g.m, g.n, g.k, g.alpha, at(g.a), g.a.ld, at(g.b), g.b.ld,
                 g.beta, at(g.c), g.c.ld);
        else
            gemmStridedBatched(h, t, g.transA, g.transB, g.m, g.n, g.k, g.alpha, at(g.a), g.a.ld,
                               g.a.stride, at(g.b), g.b.ld, g.b.stride, g.beta, at(g.c), g.c.ld,
                               g.c.stride, g.batch);
    }
}

void linearForward(cublasHandle_t h, DType t, const void* x, const void* w, const void* b, void* y,
                   std::int64_t rows, std::int64_t in, std::int64_t out, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && in > 0 && out > 0, "linearForward");
    if (rows == 0) return;
    REMAT_REQUIRE(x && w && y, "linearForward operands");
    // With a bias, y starts as the bias rows and the GEMM accumulates onto it (beta = 1), so
    // x W^T + b is rounded once, as the reference rounds it, not once per addition.
    if (b) rowBroadcast(t, b, y, rows, out, s);
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::X)] = const_cast<void*>(x);
    ops[std::size_t(GemmOperand::W)] = const_cast<void*>(w);
    ops[std::size_t(GemmOperand::Y)] = y;
    runGemms(h, t, linearForwardGemms(rows, in, out, b != nullptr), ops);
}

void linearBackward(cublasHandle_t h, DType t, const void* x, const void* w, const void* dy,
                    void* dx, void* dw, void* db, std::int64_t rows, std::int64_t in,
                    std::int64_t out, cudaStream_t s) {
    REMAT_REQUIRE(rows >= 0 && in > 0 && out > 0, "linearBackward");
    if (rows == 0) return;
    REMAT_REQUIRE(dy, "linearBackward: output gradient");
    REMAT_REQUIRE(!dx || w, "linearBackward: weight");
    REMAT_REQUIRE(!dw || x, "linearBackward: saved input");
    GemmOperands ops{};
    ops[std::size_t(GemmOperand::X)] = const_cast<void*>(x);
    ops[std::size_t(GemmOperand::W)] = const_cast<void*>(w);
    ops[std::size_t(GemmOperand::DY)] = const_cast<void*>(dy);
    ops[std::size_t(GemmOperand::DX)] = dx;
    ops[std::size_t(GemmOperand::DW)] = dw;
    runGemms(h, t, linearBackwardGemms(rows, in, out, dx != nullptr, dw != nullptr), ops);
    if (db) columnSum(t, dy, db, rows, out, s);
}

}  // namespace remat::gpu::cuda
