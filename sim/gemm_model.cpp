#include "gemm_model.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "device.h"

namespace remat {

double epilogueKFill(const DeviceSpec& d, DType dtype) {
    const double bw = d.achievableBandwidth();
    if (bw <= 0) return 0.0;
    const double rate = d.matmulPeak(dtype) * d.matmulBestFraction(dtype);
    return d.efficiency.epilogueExposed * double(dtypeBytes(dtype)) * rate / (2.0 * bw);
}

GemmSchedule gemmSchedule(const DeviceSpec& d, DType dtype, const GemmShape& g) {
    GemmSchedule best;
    const DeviceEfficiency& e = d.efficiency;
    if (!e.present || g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return best;
    const double m = double(g.m), n = double(g.n), k = double(g.k), batch = double(g.batch);
    // A matrix smaller than the tile gets a smaller tile (the library has kernels for narrow
    // shapes): the power of two that covers it, from 16 up.
    const auto tileFor = [](std::int64_t dim, std::int64_t tile) {
        return double(std::min(tile, std::max<std::int64_t>(16, std::bit_ceil(std::uint64_t(dim)))));
    };
    const double tm = tileFor(g.m, e.tileM), tn = tileFor(g.n, e.tileN), sms = double(e.smCount);
    const double kFill = epilogueKFill(d, dtype);
    const double tiles = std::ceil(m / tm) * std::ceil(n / tn) * batch;
    // Splitting k only helps while there are idle SMs: at most SMs / tiles slices, and never
    // slices shorter than one element.
    const double maxSplits = std::max(1.0, std::min(std::floor(sms / tiles), k));
    double bestScore = -1.0;
    for (double s = 1; s <= maxSplits; ++s) {
        const double slice = std::ceil(k / s);
        const double waves = std::ceil(tiles * s / sms);
        GemmSchedule c;
        c.tiles = tiles;
        c.splits = s;
        c.waves = waves;
        c.kFill = kFill;
        c.utilization = m * n * batch * k / (waves * sms * tm * tn * slice);
        c.fill = slice / (slice + kFill);
        const double score = c.utilization * c.fill;
        if (score > bestScore) {
            bestScore = score;
            best = c;
        }
    }
    return best;
}

double gemmEfficiency(const DeviceSpec& d, DType dtype, const GemmShape& g, bool tf32) {
    if (!d.efficiency.present) return 1.0;
    const GemmSchedule s = gemmSchedule(d, dtype, g);
    return d.matmulBestFraction(dtype, tf32) * s.utilization * s.fill;
}

double gemmComputeTime(const DeviceSpec& d, DType dtype, const GemmShape& g, bool tf32) {
    const double peak = d.matmulPeak(dtype, tf32);
    if (peak <= 0) return 0.0;
    return g.flops() / (peak * gemmEfficiency(d, dtype, g, tf32));
}

namespace {

std::int64_t rowsOf(const Graph& g, TensorId x, std::int64_t features, std::int64_t b) {
    const Tensor& t = g.tensor(x);
    const std::int64_t rows = features > 0 ? t.elements() / features : 0;
    return t.batched ? rows * b : rows;
}

}  // namespace

GemmList opGemms(const Graph& g, const Op& op, Direction dir, std::int64_t b) {
    GemmList out;
    const bool fwd = dir == Direction::Forward;
    const OpAttrs& a = op.attrs;
    switch (op.kind) {
        case OpKind::Linear: {
            // y = x W^T: [R x in] [in x out]. Backward: dx = dy W ([R x out] [out x in]) and
            // dW = dy^T x ([out x R] [R x in]).
            const std::int64_t r = rowsOf(g, op.inputs[0], a.in, b) * std::max<std::int64_t>(a.rowsFactor, 1);
            if (fwd) {
                out.add({r, a.out, a.in});
            } else {
                out.add({r, a.in, a.out});
                out.add({a.out, a.in, r});
            }
            break;
        }
        case OpKind::AttnScores: {
            // S = Q K^T per (sample, head): [t x d] [d x t]. Backward: dQ = dS K, dK = dS^T Q.
            const std::int64_t t = a.tokens, d = a.headDim, bh = a.heads * b;
            if (fwd) {
                out.add({t, t, d, bh});
            } else {
                out.add({t, d, t, bh});
                out.add({t, d, t, bh});
            }
            break;
        }
        case OpKind::AttnContext: {
            // Y = P V: [t x t] [t x d]. Backward: dP = dY V^T ([t x d] [d x t]), dV = P^T dY.
            const std::int64_t t = a.tokens, d = a.headDim, bh = a.heads * b;
            if (fwd) {
                out.add({t, d, t, bh});
            } else {
                out.add({t, t, d, bh});
                out.add({t, d, t, bh});
            }
            break;
        }
        case OpKind::FlashAttn: {
            // FlashAttention runs S = Q K^T and O = P V blockwise; its backward recomputes S and
            // runs dV, dP, dQ and dK. A causal mask skips half of the blocks.
            // Under context parallelism the rank's queries meet every rank's keys.
            const std::int64_t t = a.tokens, d = a.headDim, bh = a.heads * b;
            const std::int64_t k = a.keyTokens > 0 ? a.keyTokens : t;
            const double half = a.causal ? 0.5 : 1.0;
            out.add({t, k, d, bh, half});
            out.add({t, d, k, bh, half});
            if (!fwd) {
                out.add({t, k, d, bh, half});
                out.add({t, d, k, bh, half});
                out.add({k, d, t, bh, half});
            }
            break;
        }
        case OpKind::Conv2d: {
            // Implicit GEMM: rows are output pixels (b Ho Wo), columns output channels, the
            // reduction runs over in_channels x k x k. Backward: data gradient
            // ([b Ho Wo x out] [out x in k k]) and weight gradient ([out x b Ho Wo] [.. x in k k]).
            // Grouped: one such GEMM per group over its in / groups and out / groups channels.
            const Tensor& y = g.tensor(op.outputs[0]);
            const std::int64_t pixels = (y.shape.size() >= 3 ? y.shape[1] * y.shape[2] : 1) * b;
            const std::int64_t groups = std::max<std::int64_t>(a.groups, 1);
            const std::int64_t red = a.in / groups * a.kernel * a.kernel;
            const std::int64_t outG = a.out / groups;
            if (fwd) {
                out.add({pixels, outG, red, groups});
            } else {
                out.add({pixels, red, outG, groups});
                out.add({outG, red, pixels, groups});
            }
            break;
        }
        default: break;
    }
    return out;
}

int opKernelCount(const Op& op, Direction dir) {
    const bool fwd = dir == Direction::Forward;
    switch (op.kind) {
        case OpKind::Flatten: return 0;
        // addmm with the bias in the GEMM's epilogue; backward: two GEMMs and the bias
        // gradient's reduction over rows.
        case OpKind::Linear: return fwd ? 1 : 2 + (op.attrs.bias ? 1 : 0);
        // baddbmm, then the causal mask (masked_fill); backward: two bmm (and the mask's).
        case OpKind::AttnScores: return (fwd ? 1 : 2) + (op.attrs.causal ? 1 : 0);
        case OpKind::AttnContext: return fwd ? 1 : 2;
        // One fused kernel; backward: a preprocessing kernel (rowwise dO . O) and the main one.
        case OpKind::FlashAttn: return fwd ? 1 : 2;
        // Convolution: one kernel; backward: data and weight gradients (and the bias's).
        case OpKind::Conv2d: return fwd ? 1 : 2 + (op.attrs.bias ? 1 : 0);
        // layer_norm / rms_norm backward: the input gradient and the weight (and bias)
        // gradient reductions are separate kernels.
        case OpKind::LayerNorm:
        case OpKind::RmsNorm: return fwd ? 1 : 2;
        // Token lookup (and position lookup and their sum); backward: one
        // embedding_dense_backward per table.
        case OpKind::Embedding: {
            const int tables = 1 + (op.attrs.positions > 0 ? 1 : 0) + (op.attrs.tokenTypes > 0 ? 1 : 0);
            return fwd ? 2 * tables - 1 : tables;
        }
        // cat of the class token (when there is one) and the position add; backward: the
        // position and class-token gradients' reductions over the batch and the copy of the
        // patches' gradient into the convolution's layout.
        case OpKind::PatchTokens: return fwd ? (op.attrs.classToken ? 2 : 1) : (op.attrs.classToken ? 3 : 2);
        // A view; backward: select_backward (zero fill, then the copy of token 0's gradient).
        case OpKind::SelectToken: return fwd ? 0 : 2;
        // repeat_interleave of K and of V; backward: one reduction each.
        case OpKind::ExpandKv: return 2;
        // Gradients of both factors.
        case OpKind::Mul: return fwd ? 1 : 2;
        // log_softmax and nll_loss; backward: nll_loss_backward and log_softmax_backward.
        case OpKind::CrossEntropy: return 2;
        // (x - t)^2 and its mean; backward: one elementwise kernel and the scale.
        case OpKind::Mse: return 2;
        default: return 1;
    }
}

}  // namespace remat
