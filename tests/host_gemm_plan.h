// Runs the CUDA backend's cuBLAS call plans (gpu/cuda/gemm_plan.h) on the host, so the tests of
// the attention and convolution plans can check their index arithmetic on any machine: one
// GemmCall is cublasGemmStridedBatchedEx in fp32 with double accumulation — column-major op(A)
// m x k and op(B) k x n, leading dimensions, strides between batch entries, and beta = 0
// ignoring what C held. Operands are found by their GemmOperand role.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "cuda/gemm_plan.h"

namespace remat::test {

using GemmBuffers = std::map<gpu::cuda::GemmOperand, std::vector<float>*>;

inline void hostGemm(const gpu::cuda::GemmCall& g, const GemmBuffers& buffers) {
    const float* a = buffers.at(g.a.operand)->data() + g.a.offset;
    const float* b = buffers.at(g.b.operand)->data() + g.b.offset;
    float* c = buffers.at(g.c.operand)->data() + g.c.offset;
    for (std::int64_t p = 0; p < g.batch; ++p) {
        const float* ap = a + p * g.a.stride;
        const float* bp = b + p * g.b.stride;
        float* cp = c + p * g.c.stride;
        for (std::int64_t i = 0; i < g.m; ++i)
            for (std::int64_t j = 0; j < g.n; ++j) {
                double sum = 0.0;
                for (std::int64_t l = 0; l < g.k; ++l) {
                    const float av = g.transA ? ap[l + i * g.a.ld] : ap[i + l * g.a.ld];
                    const float bv = g.transB ? bp[j + l * g.b.ld] : bp[l + j * g.b.ld];
                    sum += double(av) * bv;
                }
                float& out = cp[i + j * g.c.ld];
                out = float(g.alpha * sum + (g.beta == 0.0f ? 0.0 : double(g.beta) * out));
            }
    }
}

inline void runGemms(const std::vector<gpu::cuda::GemmCall>& calls, const GemmBuffers& buffers) {
    for (const auto& g : calls) hostGemm(g, buffers);
}

}  // namespace remat::test
