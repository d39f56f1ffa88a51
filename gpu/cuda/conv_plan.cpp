// The convolution plans of conv_plan.h. cuBLAS is column-major: a row-major [r, c] matrix with
// row stride ld is a column-major [c, r] one, so each row-major product P = A · B is issued as
// Pᵀ = Bᵀ · Aᵀ with the operands' roles swapped and no data moved. The groups are the batch of
// one strided-batched call: their weight rows, column blocks and output channels are equally
// spaced.

#include "conv_plan.h"

namespace remat::gpu::cuda {

namespace {

using Op = GemmOperand;

// One sample's columns of group 0 and the spacing between groups: the workspace, or the
// sample's input planes when the convolution is direct.
GemmMatrix columns(const ConvShape& g, std::int64_t n, Op workspace, Op input) {
    if (g.direct()) return {input, n * g.c * g.h * g.w, g.colCols(), g.cg() * g.h * g.w};
    return {workspace, 0, g.colCols(), g.colRows() * g.colCols()};
}

GemmMatrix outputs(const ConvShape& g, std::int64_t n, Op op) {
    return {op, n * g.o * g.colCols(), g.colCols(), g.og() * g.colCols()};
}

GemmMatrix weights(const ConvShape& g, Op op) {
    return {op, 0, g.colRows(), g.og() * g.colRows()};
}

}  // namespace

const char* convShapeProblem(const ConvShape& g) {
    if (g.n < 0 || g.c <= 0 || g.h <= 0 || g.w <= 0 || g.o <= 0 || g.ho <= 0 || g.wo <= 0)
        return "convolution sizes must be positive";
    if (g.k < 1 || g.stride < 1 || g.pad < 0 || g.dil < 1 || g.groups < 1)
        return "kernel, stride, dilation and groups must be positive and padding not negative";
    if (g.c % g.groups != 0 || g.o % g.groups != 0)
        return "groups must divide the input and output channels";
    const std::int64_t hRoom = g.h + 2 * g.pad - g.dil * (g.k - 1) - 1;
    const std::int64_t wRoom = g.w + 2 * g.pad - g.dil * (g.k - 1) - 1;
    if (hRoom < 0 || wRoom < 0 || g.ho != hRoom / g.stride + 1 || g.wo != wRoom / g.stride + 1)
        return "the output size does not follow from the kernel, stride, padding and dilation";
    return nullptr;
}

std::int64_t convColumnElements(const ConvShape& g) {
    return g.direct() ? 0 : g.c * g.k * g.k * g.colCols();
}

std::vector<GemmCall> convForwardGemms(const ConvShape& g, std::int64_t n, bool accumulate) {
    // y_g [og, cols] = w_g [og, rows] · col_g [rows, cols]; column-major:
    // y_gᵀ [cols, og] = col_gᵀ [cols, rows] · w_gᵀ [rows, og].
    GemmCall c;
    c.m = g.colCols();
    c.n = g.og();
    c.k = g.colRows();
    c.beta = accumulate ? 1.0f : 0.0f;
    c.a = columns(g, n, Op::Columns, Op::X);
    c.b = weights(g, Op::W);
    c.c = outputs(g, n, Op::Y);
    c.batch = g.groups;
    return {c};
}

std::vector<GemmCall> convWeightGradGemms(const ConvShape& g, std::int64_t n) {
    // dw_g [og, rows] += dy_g [og, cols] · col_gᵀ [cols, rows]; column-major:
    // dw_gᵀ [rows, og] += (col_gᵀ stored [cols, rows])ᵀ · dy_gᵀ [cols, og].
    GemmCall c;
    c.transA = true;
    c.m = g.colRows();
    c.n = g.og();
    c.k = g.colCols();
    c.beta = 1.0f;
    c.a = columns(g, n, Op::Columns, Op::X);
    c.b = outputs(g, n, Op::DY);
    c.c = weights(g, Op::DW);
    c.batch = g.groups;
    return {c};
}

std::vector<GemmCall> convInputGradGemms(const ConvShape& g, std::int64_t n) {
    // dcol_g [rows, cols] = w_gᵀ [rows, og] · dy_g [og, cols]; column-major:
    // dcol_gᵀ [cols, rows] = dy_gᵀ [cols, og] · (w_gᵀ stored [rows, og])ᵀ.
    GemmCall c;
    c.transB = true;
    c.m = g.colCols();
    c.n = g.colRows();
    c.k = g.og();
    c.beta = g.direct() ? 1.0f : 0.0f;
    c.a = outputs(g, n, Op::DY);
    c.b = weights(g, Op::W);
    c.c = columns(g, n, Op::DColumns, Op::DX);
    c.batch = g.groups;
    return {c};
}

}  // namespace remat::gpu::cuda
