// 2-D convolution on the CPU (NCHW, square kernel, stride, zero padding, dilation, channel
// groups), as im2col and the tiled parallel GEMM, one sample and one group at a time. For sample
// n and group g (its C/G input and O/G output channels) the columns col[(C/G)·k·k, Ho·Wo] hold
// the padded input patches, taps `dilation` apart; y_n,g[O/G, Ho·Wo] = W_g[O/G, (C/G)·k·k] · col
// is exactly the output's layout, so the GEMM writes y in place. Backward: dW_g += dy_n,g ·
// col_n,gᵀ for n in order, dcol = W_gᵀ · dy_n,g scattered back into dx (col2im) channel by
// channel, and the bias gradient summed per output channel over samples then positions in
// order. A 1x1 convolution whose output keeps the input's size (stride 1, no padding) uses the
// input itself as its columns. The columns are one group of one sample's and come from the
// backend's scratch (the device-level figure, not the tracked bytes). Every cut — groups, GEMM
// tiles, column rows, channels — depends on the shape only, so no thread count changes a bit.
#include <optional>
#include <string>

#include "cpu_kernels.h"
#include "gemm.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

struct ConvGeometry {
    std::int64_t n = 0, c = 0, h = 0, w = 0;  // input
    std::int64_t o = 0, ho = 0, wo = 0;       // output
    std::int64_t k = 1, stride = 1, pad = 0, dil = 1, groups = 1;
    std::int64_t cg() const { return c / groups; }  // input channels per group
    std::int64_t og() const { return o / groups; }  // output channels per group
    std::int64_t colRows() const { return cg() * k * k; }
    std::int64_t colCols() const { return ho * wo; }
    // The input is its own column matrix: a 1x1 kernel without padding whose output keeps the
    // input's size (the host-memory estimate, host_budget.cpp, tells it by the same shapes).
    bool direct() const { return k == 1 && pad == 0 && ho == h && wo == w; }
};

Result<ConvGeometry> geometry(const Op& op, const TensorRef& x, const TensorRef& y) {
    ConvGeometry g;
    if (x.shape.size() != 4 || y.shape.size() != 4)
        return makeError("conv2d: input and output must be [N, C, H, W]");
    g.n = x.shape[0];
    g.c = x.shape[1];
    g.h = x.shape[2];
    g.w = x.shape[3];
    g.o = y.shape[1];
    g.ho = y.shape[2];
    g.wo = y.shape[3];
    g.k = op.attrs.kernel;
    g.stride = op.attrs.stride;
    g.pad = op.attrs.padding;
    g.dil = op.attrs.dilation;
    g.groups = op.attrs.groups;
    if (g.groups < 1 || g.c % g.groups != 0 || g.o % g.groups != 0)
        return makeError("conv2d: groups must divide the input and output channels");
    if (g.k < 1 || g.stride < 1 || g.pad < 0 || g.dil < 1 || y.shape[0] != g.n ||
        g.c != op.attrs.in || g.o != op.attrs.out ||
        g.ho != convOutputSize(g.h, g.k, g.stride, g.pad, g.dil) ||
        g.wo != convOutputSize(g.w, g.k, g.stride, g.pad, g.dil))
        return makeError(
            "conv2d: operand shapes do not match the kernel, stride, padding and dilation");
    return g;
}

// col[(ci, ki, kj), (oh, ow)] = x[ci, oh·s − p + ki·d, ow·s − p + kj·d], zero outside, for the
// group's input channels (xg points at its first).
void im2col(ThreadPool& pool, const ConvGeometry& g, const float* xg, float* col) {
    const std::int64_t cols = g.colCols();
    forEachChunk(pool, g.colRows(), rowChunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
            const std::int64_t ci = r / (g.k * g.k), ki = (r / g.k) % g.k, kj = r % g.k;
            const float* plane = xg + ci * g.h * g.w;
            float* out = col + r * cols;
            for (std::int64_t oh = 0; oh < g.ho; ++oh) {
                const std::int64_t ih = oh * g.stride - g.pad + ki * g.dil;
                for (std::int64_t ow = 0; ow < g.wo; ++ow) {
                    const std::int64_t iw = ow * g.stride - g.pad + kj * g.dil;
                    out[oh * g.wo + ow] =
                        ih >= 0 && ih < g.h && iw >= 0 && iw < g.w ? plane[ih * g.w + iw] : 0.0f;
                }
            }
        }
    });
}

// dx[ci, ih, iw] += dcol[(ci, ki, kj), (oh, ow)] for every patch position reading it, over the
// group's input channels; one task per input channel (it alone writes that plane), patches in
// (ki, kj, oh, ow) order.
void col2imAdd(ThreadPool& pool, const ConvGeometry& g, const float* dcol, float* dxg) {
    const std::int64_t cols = g.colCols();
    forEachChunk(pool, g.cg(), 1, [&](std::int64_t c0, std::int64_t c1) {
        for (std::int64_t ci = c0; ci < c1; ++ci) {
            float* plane = dxg + ci * g.h * g.w;
            for (std::int64_t ki = 0; ki < g.k; ++ki)
                for (std::int64_t kj = 0; kj < g.k; ++kj) {
                    const float* row = dcol + ((ci * g.k + ki) * g.k + kj) * cols;
                    for (std::int64_t oh = 0; oh < g.ho; ++oh) {
                        const std::int64_t ih = oh * g.stride - g.pad + ki * g.dil;
                        if (ih < 0 || ih >= g.h) continue;
                        for (std::int64_t ow = 0; ow < g.wo; ++ow) {
                            const std::int64_t iw = ow * g.stride - g.pad + kj * g.dil;
                            if (iw >= 0 && iw < g.w) plane[ih * g.w + iw] += row[oh * g.wo + ow];
                        }
                    }
                }
        }
    });
}

// fp32 scratch for one sample's columns, given back on scope exit; none when `elements` is 0.
class ScratchBlock {
public:
    ScratchBlock(Scratch& s, std::int64_t elements) : m_s(s), m_n(elements) {
        if (m_n > 0 && !(m_data = s.take(m_n))) throw ScratchExhausted{};
    }
    ~ScratchBlock() { m_s.give(m_data, m_n); }
    ScratchBlock(const ScratchBlock&) = delete;
    ScratchBlock& operator=(const ScratchBlock&) = delete;
    float* data() { return m_data; }

private:
    Scratch& m_s;
    std::int64_t m_n;
    float* m_data = nullptr;
};

std::int64_t columnElements(const ConvGeometry& g) {
    return g.direct() ? 0 : g.colRows() * g.colCols();
}

}  // namespace

Status conv2dForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 1); !st) return st;
    auto g = geometry(*c.op, c.inputs[0], c.outputs[0]);
    if (!g) return g.error();
    if (c.params[0].elements() != g->o * g->colRows())
        return makeError("conv2d: the weight is not [out, in / groups, k, k]");
    ReadF32 x(s, c.inputs[0]);
    ReadF32 w(s, c.params[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    const bool bias = c.params.size() > 1 && c.params[1].bound();
    const std::int64_t rows = g->colRows(), cols = g->colCols(), og = g->og();
    const std::int64_t inPlane = g->c * g->h * g->w, outPlane = g->o * cols;
    const std::int64_t inGroup = g->cg() * g->h * g->w, outGroup = og * cols;
    ScratchBlock col(s, columnElements(*g));
    std::optional<ReadF32> b;
    if (bias) b.emplace(s, c.params[1]);
    for (std::int64_t n = 0; n < g->n; ++n) {
        const float* xn = x.data() + n * inPlane;
        float* yn = y.data() + n * outPlane;
        if (bias)
            forEachChunk(s.pool(), g->o, rowChunk(cols), [&](std::int64_t o0, std::int64_t o1) {
                for (std::int64_t o = o0; o < o1; ++o)
                    for (std::int64_t p = 0; p < cols; ++p) yn[o * cols + p] = (*b)[o];
            });
        for (std::int64_t gi = 0; gi < g->groups; ++gi) {
            const float* xg = xn + gi * inGroup;
            const float* colData = xg;
            if (!g->direct()) {
                im2col(s.pool(), *g, xg, col.data());
                colData = col.data();
            }
            parallelSgemm(s.pool(), Transpose::No, Transpose::No, og, cols, rows, 1.0f,
                          w.data() + gi * og * rows, rows, colData, cols, bias ? 1.0f : 0.0f,
                          yn + gi * outGroup, cols);
        }
    }
    return Ok{};
}

Status conv2dBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 1); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    auto g = geometry(*c.op, c.saved[0], c.gradOutputs[0]);
    if (!g) return g.error();
    if (c.params[0].elements() != g->o * g->colRows())
        return makeError("conv2d: the weight is not [out, in / groups, k, k]");
    const std::int64_t rows = g->colRows(), cols = g->colCols(), og = g->og();
    const std::int64_t inPlane = g->c * g->h * g->w, outPlane = g->o * cols;
    const std::int64_t inGroup = g->cg() * g->h * g->w, outGroup = og * cols;
    ReadF32 dy(s, c.gradOutputs[0]);
    if (c.params.size() > 1 && c.paramGrads.size() > 1 && c.paramGrads[1].bound()) {
        WriteF32 db(s, c.paramGrads[1], WriteF32::Mode::Accumulate);
        forEachChunk(s.pool(), g->o, 1, [&](std::int64_t o0, std::int64_t o1) {
            for (std::int64_t o = o0; o < o1; ++o) {
                double sum = 0.0;
                for (std::int64_t n = 0; n < g->n; ++n) {
                    const float* d = dy.data() + n * outPlane + o * cols;
                    for (std::int64_t p = 0; p < cols; ++p) sum += d[p];
                }
                db[o] += float(sum);
            }
        });
    }
    if (c.paramGrads[0].bound()) {
        ReadF32 x(s, c.saved[0]);
        WriteF32 dw(s, c.paramGrads[0], WriteF32::Mode::Accumulate);
        ScratchBlock col(s, columnElements(*g));
        for (std::int64_t n = 0; n < g->n; ++n)
            for (std::int64_t gi = 0; gi < g->groups; ++gi) {
                const float* xg = x.data() + n * inPlane + gi * inGroup;
                const float* colData = xg;
                if (!g->direct()) {
                    im2col(s.pool(), *g, xg, col.data());
                    colData = col.data();
                }
                parallelSgemm(s.pool(), Transpose::No, Transpose::Yes, og, rows, cols, 1.0f,
                              dy.data() + n * outPlane + gi * outGroup, cols, colData, cols, 1.0f,
                              dw.data() + gi * og * rows, rows);
            }
    }
    if (c.gradInputs[0].bound()) {
        ReadF32 w(s, c.params[0]);
        WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
        if (g->direct()) {
            for (std::int64_t n = 0; n < g->n; ++n)
                for (std::int64_t gi = 0; gi < g->groups; ++gi)
                    parallelSgemm(s.pool(), Transpose::Yes, Transpose::No, rows, cols, og, 1.0f,
                                  w.data() + gi * og * rows, rows,
                                  dy.data() + n * outPlane + gi * outGroup, cols, 1.0f,
                                  dx.data() + n * inPlane + gi * inGroup, cols);
        } else {
            ScratchBlock scratch(s, rows * cols);
            float* dcol = scratch.data();
            for (std::int64_t n = 0; n < g->n; ++n)
                for (std::int64_t gi = 0; gi < g->groups; ++gi) {
                    parallelSgemm(s.pool(), Transpose::Yes, Transpose::No, rows, cols, og, 1.0f,
                                  w.data() + gi * og * rows, rows,
                                  dy.data() + n * outPlane + gi * outGroup, cols, 0.0f, dcol,
                                  cols);
                    col2imAdd(s.pool(), *g, dcol, dx.data() + n * inPlane + gi * inGroup);
                }
        }
    }
    return Ok{};
}

}  // namespace remat::cpu
