// The CUDA convolution as im2col + GEMM, planned on the host as plain data: the shape
// (ConvShape), the index arithmetic of the im2col and col2im kernels (conv.cu) as inline
// functions both the kernels and the host call, the columns' size, and per sample the cuBLAS
// calls (gemm_plan.h) of the forward, the weight gradient and the input gradient — one
// strided-batched call over the channel groups. A test (tst_conv_plan) runs the same index
// functions and plans on the host and compares with the CPU backend, so the part most likely to
// be wrong is checked on machines without a GPU. No CUDA header is included.
//
// Layouts, row-major: x [n, c, h, w], w [o, c/groups, k, k], y [n, o, ho, wo]. One sample's
// columns are [groups][rows = (c/groups)·k·k][cols = ho·wo], i.e. [c·k·k, ho·wo] with row
// (ci, ki, kj) holding x[ci, oh·stride − pad + ki·dil, ow·stride − pad + kj·dil] (0 outside):
// group g's block times its weight rows w_g [o/groups, rows] is y_g [o/groups, cols] in place.
// A 1x1 convolution whose output keeps the input's size (no padding, stride 1) reads its input
// as its columns and needs none.
#pragma once

#include <cstdint>
#include <vector>

#include "gemm_plan.h"

#ifdef __CUDACC__
#define REMAT_HOST_DEVICE __host__ __device__
#else
#define REMAT_HOST_DEVICE
#endif

namespace remat::gpu::cuda {

struct ConvShape {
    std::int64_t n = 0, c = 0, h = 0, w = 0, o = 0, ho = 0, wo = 0;
    std::int64_t k = 1, stride = 1, pad = 0, dil = 1, groups = 1;

    REMAT_HOST_DEVICE std::int64_t cg() const { return c / groups; }
    REMAT_HOST_DEVICE std::int64_t og() const { return o / groups; }
    REMAT_HOST_DEVICE std::int64_t colRows() const { return cg() * k * k; }
    REMAT_HOST_DEVICE std::int64_t colCols() const { return ho * wo; }
    // The input is its own column matrix.
    REMAT_HOST_DEVICE bool direct() const { return k == 1 && pad == 0 && ho == h && wo == w; }
};

// Why a shape cannot be run (sizes, divisibility by the groups, the output size the kernel,
// stride, padding and dilation give), or null.
const char* convShapeProblem(const ConvShape& g);

// Elements of one sample's columns, all groups (0 for a direct convolution).
std::int64_t convColumnElements(const ConvShape& g);

// The input element, within one sample, that column entry (row, col) holds — row over c·k·k
// (all groups), col over ho·wo — or −1 for the zero padding.
REMAT_HOST_DEVICE inline std::int64_t convColumnSource(const ConvShape& g, std::int64_t row,
                                                       std::int64_t col) {
    const std::int64_t ci = row / (g.k * g.k), ki = (row / g.k) % g.k, kj = row % g.k;
    const std::int64_t oh = col / g.wo, ow = col % g.wo;
    const std::int64_t ih = oh * g.stride - g.pad + ki * g.dil;
    const std::int64_t iw = ow * g.stride - g.pad + kj * g.dil;
    if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) return -1;
    return (ci * g.h + ih) * g.w + iw;
}

// col2im as a gather: the column (ho·wo position) through which tap (ki, kj) reads input
// position (ih, iw), or −1 when no output window reads it through that tap.
REMAT_HOST_DEVICE inline std::int64_t convTapColumn(const ConvShape& g, std::int64_t ih,
                                                    std::int64_t iw, std::int64_t ki,
                                                    std::int64_t kj) {
    const std::int64_t th = ih + g.pad - ki * g.dil, tw = iw + g.pad - kj * g.dil;
    if (th < 0 || tw < 0 || th % g.stride != 0 || tw % g.stride != 0) return -1;
    const std::int64_t oh = th / g.stride, ow = tw / g.stride;
    if (oh >= g.ho || ow >= g.wo) return -1;
    return oh * g.wo + ow;
}

// Sample `n`: y_g = w_g · columns_g for every group (beta 1 when y already holds the bias).
// Columns: the Columns operand, or X at sample n for a direct convolution.
std::vector<GemmCall> convForwardGemms(const ConvShape& g, std::int64_t n, bool accumulate);
// Sample `n`: dw_g += dy_g · columns_gᵀ (samples run in order, so the sum is deterministic).
std::vector<GemmCall> convWeightGradGemms(const ConvShape& g, std::int64_t n);
// Sample `n`: DColumns_g = w_gᵀ · dy_g, which col2im adds into dx; for a direct convolution
// the product is added into DX at sample n itself.
std::vector<GemmCall> convInputGradGemms(const ConvShape& g, std::int64_t n);

}  // namespace remat::gpu::cuda
