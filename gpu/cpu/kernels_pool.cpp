// Batch norm (training mode), max pooling and global average pooling on the CPU, all NCHW.
// Batch norm reduces each channel over N, H, W in double, in (n, h, w) order, inside one task
// per channel; its backward uses only the saved input, mean and inverse standard deviation.
// A forward that is not a recompute folds the batch's statistics into the running ones
// (RunningStatistics), so a checkpointed plan leaves them exactly as plan `none` does. Max
// pooling scans each window in (kh, kw) order and keeps the first maximum; its backward adds
// every output gradient to the input element its saved index names, one task per plane, in
// output order. Global average pooling sums each plane in double. Every task is a channel or
// a plane, fixed by the shape, so no thread count changes a bit.
#include <atomic>
#include <cmath>
#include <limits>

#include "cpu_kernels.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

struct Nchw {
    std::int64_t n = 0, c = 0, h = 0, w = 0;
    std::int64_t plane() const { return h * w; }
};

Result<Nchw> nchw(const TensorRef& t, const char* op) {
    if (t.shape.size() != 4) return makeError(std::string(op) + ": the input must be [N, C, H, W]");
    return Nchw{t.shape[0], t.shape[1], t.shape[2], t.shape[3]};
}

}  // namespace

void RunningStatistics::reset() {
    m_stats.clear();
}

void RunningStatistics::update(std::uint32_t op, const std::vector<double>& mean,
                               const std::vector<double>& unbiasedVar) {
    auto [it, inserted] = m_stats.try_emplace(op);
    Entry& e = it->second;
    if (inserted) {
        e.mean.assign(mean.size(), 0.0f);
        e.var.assign(mean.size(), 1.0f);
    }
    const double m = kBatchNormMomentum;
    for (std::size_t i = 0; i < mean.size() && i < e.mean.size(); ++i) {
        e.mean[i] = float((1.0 - m) * e.mean[i] + m * mean[i]);
        e.var[i] = float((1.0 - m) * e.var[i] + m * unbiasedVar[i]);
    }
    ++e.updates;
}

const RunningStatistics::Entry* RunningStatistics::find(std::uint32_t op) const {
    auto it = m_stats.find(op);
    return it == m_stats.end() ? nullptr : &it->second;
}

Status batchNorm2dForward(Scratch& s, RunningStatistics& running, const OpCall& c) {
    if (auto st = expectForward(c, 1, 3, 2); !st) return st;
    auto d = nchw(c.inputs[0], "batchnorm2d");
    if (!d) return d.error();
    const std::int64_t C = d->c, plane = d->plane(), count = d->n * plane;
    if (c.outputs[1].elements() != C || c.outputs[2].elements() != C ||
        c.outputs[1].dtype != DType::F32 || c.outputs[2].dtype != DType::F32 ||
        c.params[0].elements() != C || c.params[1].elements() != C || count < 1)
        return makeError(
            "batchnorm2d: mean and invstd must be fp32, one per channel, and the "
            "weight and bias one per channel");
    ReadF32 x(s, c.inputs[0]);
    ReadF32 w(s, c.params[0]);
    ReadF32 b(s, c.params[1]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    auto* mean = static_cast<float*>(c.outputs[1].data);
    auto* invstd = static_cast<float*>(c.outputs[2].data);
    std::vector<double> batchMean(std::size_t(C), 0.0), batchVar(std::size_t(C), 0.0);
    forEachChunk(s.pool(), C, 1, [&](std::int64_t c0, std::int64_t c1) {
        for (std::int64_t ch = c0; ch < c1; ++ch) {
            double sum = 0.0;
            for (std::int64_t n = 0; n < d->n; ++n) {
                const float* p = x.data() + (n * C + ch) * plane;
                for (std::int64_t i = 0; i < plane; ++i) sum += p[i];
            }
            const double mu = sum / double(count);
            double var = 0.0;
            for (std::int64_t n = 0; n < d->n; ++n) {
                const float* p = x.data() + (n * C + ch) * plane;
                for (std::int64_t i = 0; i < plane; ++i) var += (p[i] - mu) * (p[i] - mu);
            }
            batchMean[std::size_t(ch)] = mu;
            batchVar[std::size_t(ch)] = count > 1 ? var / double(count - 1) : var;
            var /= double(count);
            const float m = float(mu);
            const float rs = float(1.0 / std::sqrt(var + double(kNormEpsilon)));
            mean[ch] = m;
            invstd[ch] = rs;
            const float scale = rs * w[ch], shift = b[ch];
            for (std::int64_t n = 0; n < d->n; ++n) {
                const float* p = x.data() + (n * C + ch) * plane;
                float* q = y.data() + (n * C + ch) * plane;
                for (std::int64_t i = 0; i < plane; ++i) q[i] = (p[i] - m) * scale + shift;
            }
        }
    });
    if (!c.recompute) running.update(c.opId.value, batchMean, batchVar);
    return Ok{};
}

Status batchNorm2dBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 3, 1, 1, 2); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    auto d = nchw(c.saved[0], "batchnorm2d");
    if (!d) return d.error();
    const std::int64_t C = d->c, plane = d->plane(), count = d->n * plane;
    if (c.saved[1].elements() != C || c.saved[2].elements() != C)
        return makeError("batchnorm2d: mean and invstd must be one per channel");
    ReadF32 x(s, c.saved[0]);
    const auto* mean = static_cast<const float*>(c.saved[1].data);
    const auto* invstd = static_cast<const float*>(c.saved[2].data);
    ReadF32 w(s, c.params[0]);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    WriteF32 dw(s, c.paramGrads[0], WriteF32::Mode::Accumulate);
    WriteF32 db(s, c.paramGrads[1], WriteF32::Mode::Accumulate);
    forEachChunk(s.pool(), C, 1, [&](std::int64_t c0, std::int64_t c1) {
        for (std::int64_t ch = c0; ch < c1; ++ch) {
            const float m = mean[ch], rs = invstd[ch];
            double sumDy = 0.0, sumDyXhat = 0.0;
            for (std::int64_t n = 0; n < d->n; ++n) {
                const float* p = x.data() + (n * C + ch) * plane;
                const float* g = dy.data() + (n * C + ch) * plane;
                for (std::int64_t i = 0; i < plane; ++i) {
                    sumDy += g[i];
                    sumDyXhat += double(g[i]) * ((p[i] - m) * rs);
                }
            }
            if (dw.bound()) dw[ch] += float(sumDyXhat);
            if (db.bound()) db[ch] += float(sumDy);
            if (!dx.bound()) continue;
            // dx = w·rs·(dy − mean(dy) − x̂·mean(dy·x̂)).
            const float meanDy = float(sumDy / double(count));
            const float meanDyXhat = float(sumDyXhat / double(count));
            const float k = w[ch] * rs;
            for (std::int64_t n = 0; n < d->n; ++n) {
                const float* p = x.data() + (n * C + ch) * plane;
                const float* g = dy.data() + (n * C + ch) * plane;
                float* q = dx.data() + (n * C + ch) * plane;
                for (std::int64_t i = 0; i < plane; ++i) {
                    const float xhat = (p[i] - m) * rs;
                    q[i] += k * (g[i] - meanDy - xhat * meanDyXhat);
                }
            }
        }
    });
    return Ok{};
}

Status maxPool2dForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 2, 0); !st) return st;
    auto d = nchw(c.inputs[0], "maxpool2d");
    if (!d) return d.error();
    const TensorRef& yr = c.outputs[0];
    const std::int64_t k = c.op->attrs.kernel, st = c.op->attrs.stride, pad = c.op->attrs.padding;
    if (yr.shape.size() != 4 || c.outputs[1].dtype != DType::I64 ||
        c.outputs[1].elements() != yr.elements() || k < 1 || st < 1 || pad < 0 || 2 * pad > k ||
        yr.shape[2] != (d->h + 2 * pad - k) / st + 1 ||
        yr.shape[3] != (d->w + 2 * pad - k) / st + 1)
        return makeError(
            "maxpool2d: output or indices do not match the kernel, stride and "
            "padding (padding at most half the kernel)");
    const std::int64_t ho = yr.shape[2], wo = yr.shape[3];
    ReadF32 x(s, c.inputs[0]);
    WriteF32 y(s, yr, WriteF32::Mode::Overwrite);
    auto* idx = static_cast<std::int64_t*>(c.outputs[1].data);
    forEachChunk(s.pool(), d->n * d->c, 1, [&](std::int64_t p0, std::int64_t p1) {
        for (std::int64_t pl = p0; pl < p1; ++pl) {
            const float* in = x.data() + pl * d->plane();
            for (std::int64_t oh = 0; oh < ho; ++oh)
                for (std::int64_t ow = 0; ow < wo; ++ow) {
                    float best = -std::numeric_limits<float>::infinity();
                    std::int64_t at = -1;
                    for (std::int64_t kh = 0; kh < k; ++kh) {
                        const std::int64_t ih = oh * st - pad + kh;
                        if (ih < 0 || ih >= d->h) continue;
                        for (std::int64_t kw = 0; kw < k; ++kw) {
                            const std::int64_t iw = ow * st - pad + kw;
                            if (iw < 0 || iw >= d->w) continue;
                            const float v = in[ih * d->w + iw];
                            // The first maximum; a NaN wins over any number, as in PyTorch.
                            if (at < 0 || v > best || (std::isnan(v) && !std::isnan(best))) {
                                best = v;
                                at = ih * d->w + iw;
                            }
                        }
                    }
                    const std::int64_t o = pl * ho * wo + oh * wo + ow;
                    y[o] = best;
                    idx[o] = at;
                }
        }
    });
    return Ok{};
}

Status maxPool2dBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 2, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    auto d = nchw(c.saved[0], "maxpool2d");
    if (!d) return d.error();
    const TensorRef& dyr = c.gradOutputs[0];
    if (c.saved[1].dtype != DType::I64 || c.saved[1].elements() != dyr.elements() ||
        dyr.shape.size() != 4 || dyr.shape[0] * dyr.shape[1] != d->n * d->c)
        return makeError("maxpool2d: indices and output gradient do not match");
    const std::int64_t outPlane = dyr.shape[2] * dyr.shape[3], plane = d->plane();
    const auto* idx = static_cast<const std::int64_t*>(c.saved[1].data);
    ReadF32 dy(s, dyr);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    std::atomic<bool> bad{false};
    forEachChunk(s.pool(), d->n * d->c, 1, [&](std::int64_t p0, std::int64_t p1) {
        for (std::int64_t pl = p0; pl < p1; ++pl)
            for (std::int64_t o = 0; o < outPlane; ++o) {
                const std::int64_t at = idx[pl * outPlane + o];
                if (at < 0 || at >= plane) {
                    bad = true;
                    continue;
                }
                dx[pl * plane + at] += dy[pl * outPlane + o];
            }
    });
    if (bad) return makeError("maxpool2d: a saved index lies outside its input plane");
    return Ok{};
}

Status globalAvgPoolForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 0); !st) return st;
    auto d = nchw(c.inputs[0], "global_avg_pool");
    if (!d) return d.error();
    if (c.outputs[0].elements() != d->n * d->c || d->plane() < 1)
        return makeError("global_avg_pool: the output must be [N, C, 1, 1]");
    ReadF32 x(s, c.inputs[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    const std::int64_t plane = d->plane();
    forEachChunk(s.pool(), d->n * d->c, rowChunk(plane), [&](std::int64_t p0, std::int64_t p1) {
        for (std::int64_t pl = p0; pl < p1; ++pl) {
            double sum = 0.0;
            const float* in = x.data() + pl * plane;
            for (std::int64_t i = 0; i < plane; ++i) sum += in[i];
            y[pl] = float(sum / double(plane));
        }
    });
    return Ok{};
}

Status globalAvgPoolBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 0); !st) return st;
    if (!c.gradOutputs[0].bound() || !c.gradInputs[0].bound()) return Ok{};
    auto d = nchw(c.gradInputs[0], "global_avg_pool");
    if (!d) return d.error();
    if (c.gradOutputs[0].elements() != d->n * d->c)
        return makeError("global_avg_pool: the output gradient must be [N, C, 1, 1]");
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    const std::int64_t plane = d->plane();
    const float inv = float(1.0 / double(plane));
    forEachChunk(s.pool(), d->n * d->c, rowChunk(plane), [&](std::int64_t p0, std::int64_t p1) {
        for (std::int64_t pl = p0; pl < p1; ++pl) {
            const float g = dy[pl] * inv;
            for (std::int64_t i = 0; i < plane; ++i) dx[pl * plane + i] += g;
        }
    });
    return Ok{};
}

}  // namespace remat::cpu
