// LayerNorm and RMSNorm on the CPU, over the last dimension. Statistics are reduced in
// double and stored as fp32 (the program's mean/rstd buffers); backward uses only the saved
// input and statistics, as the op saves nothing else. Rows run in fixed chunks over the
// pool; the gain and bias gradients, sums over rows, run column by column with every column
// adding its rows in order, so no thread count changes a bit (cpu_kernels.h).
#include <cmath>

#include "cpu_kernels.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {

template <typename Body>
void eachRow(Scratch& s, std::int64_t rows, std::int64_t width, Body&& body) {
    forEachChunk(s.pool(), rows, rowChunk(width), [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t r = b; r < e; ++r) body(r);
    });
}

// body(j0, j1): a range of columns of a [rows, width] gradient; the body visits all rows.
template <typename Body>
void eachColumnRange(Scratch& s, std::int64_t width, Body&& body) {
    constexpr std::int64_t kColumnChunk = 64;
    forEachChunk(s.pool(), width, kColumnChunk, body);
}

}  // namespace

Status layerNormForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 3, 2); !st) return st;
    const std::int64_t width = c.inputs[0].shape.back();
    const std::int64_t rows = c.inputs[0].elements() / width;
    if (c.outputs[1].elements() != rows || c.outputs[2].elements() != rows ||
        c.outputs[1].dtype != DType::F32 || c.outputs[2].dtype != DType::F32)
        return makeError("layernorm: mean and rstd must be fp32, one per row");
    ReadF32 x(s, c.inputs[0]);
    ReadF32 w(s, c.params[0]);
    ReadF32 b(s, c.params[1]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    auto* mean = static_cast<float*>(c.outputs[1].data);
    auto* rstd = static_cast<float*>(c.outputs[2].data);
    eachRow(s, rows, width, [&](std::int64_t r) {
        const float* xr = x.data() + r * width;
        double sum = 0.0;
        for (std::int64_t j = 0; j < width; ++j) sum += xr[j];
        const double mu = sum / double(width);
        double var = 0.0;
        for (std::int64_t j = 0; j < width; ++j) var += (xr[j] - mu) * (xr[j] - mu);
        var /= double(width);
        const float m = float(mu);
        const float rs = float(1.0 / std::sqrt(var + double(kNormEpsilon)));
        mean[r] = m;
        rstd[r] = rs;
        float* yr = y.data() + r * width;
        for (std::int64_t j = 0; j < width; ++j) yr[j] = (xr[j] - m) * rs * w[j] + b[j];
    });
    return Ok{};
}

Status layerNormBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 3, 1, 1, 2); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const std::int64_t width = c.saved[0].shape.back();
    const std::int64_t rows = c.saved[0].elements() / width;
    ReadF32 x(s, c.saved[0]);
    const auto* mean = static_cast<const float*>(c.saved[1].data);
    const auto* rstd = static_cast<const float*>(c.saved[2].data);
    ReadF32 w(s, c.params[0]);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    WriteF32 dw(s, c.paramGrads[0], WriteF32::Mode::Accumulate);
    WriteF32 db(s, c.paramGrads.size() > 1 ? c.paramGrads[1] : TensorRef{},
                WriteF32::Mode::Accumulate);
    if (dx.bound())
        eachRow(s, rows, width, [&](std::int64_t r) {
            const float* xr = x.data() + r * width;
            const float* dyr = dy.data() + r * width;
            const float m = mean[r], rs = rstd[r];
            double sumG = 0.0, sumGX = 0.0;
            for (std::int64_t j = 0; j < width; ++j) {
                const float xhat = (xr[j] - m) * rs;
                const float g = dyr[j] * w[j];
                sumG += g;
                sumGX += double(g) * xhat;
            }
            const float meanG = float(sumG / double(width));
            const float meanGX = float(sumGX / double(width));
            for (std::int64_t j = 0; j < width; ++j) {
                const float xhat = (xr[j] - m) * rs;
                dx[r * width + j] += rs * (dyr[j] * w[j] - meanG - xhat * meanGX);
            }
        });
    if (dw.bound() || db.bound())
        eachColumnRange(s, width, [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t r = 0; r < rows; ++r) {
                const float* xr = x.data() + r * width;
                const float* dyr = dy.data() + r * width;
                const float m = mean[r], rs = rstd[r];
                for (std::int64_t j = j0; j < j1; ++j) {
                    if (dw.bound()) dw[j] += dyr[j] * ((xr[j] - m) * rs);
                    if (db.bound()) db[j] += dyr[j];
                }
            }
        });
    return Ok{};
}

Status rmsNormForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 2, 1); !st) return st;
    const std::int64_t width = c.inputs[0].shape.back();
    const std::int64_t rows = c.inputs[0].elements() / width;
    if (c.outputs[1].elements() != rows || c.outputs[1].dtype != DType::F32)
        return makeError("rmsnorm: rstd must be fp32, one per row");
    ReadF32 x(s, c.inputs[0]);
    ReadF32 w(s, c.params[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    auto* rstd = static_cast<float*>(c.outputs[1].data);
    eachRow(s, rows, width, [&](std::int64_t r) {
        const float* xr = x.data() + r * width;
        double sq = 0.0;
        for (std::int64_t j = 0; j < width; ++j) sq += double(xr[j]) * xr[j];
        const float rs = float(1.0 / std::sqrt(sq / double(width) + double(kNormEpsilon)));
        rstd[r] = rs;
        float* yr = y.data() + r * width;
        for (std::int64_t j = 0; j < width; ++j) yr[j] = xr[j] * rs * w[j];
    });
    return Ok{};
}

Status rmsNormBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 2, 1, 1, 1); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const std::int64_t width = c.saved[0].shape.back();
    const std::int64_t rows = c.saved[0].elements() / width;
    ReadF32 x(s, c.saved[0]);
    const auto* rstd = static_cast<const float*>(c.saved[1].data);
    ReadF32 w(s, c.params[0]);
    ReadF32 dy(s, c.gradOutputs[0]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    WriteF32 dw(s, c.paramGrads[0], WriteF32::Mode::Accumulate);
    if (dx.bound())
        eachRow(s, rows, width, [&](std::int64_t r) {
            const float* xr = x.data() + r * width;
            const float* dyr = dy.data() + r * width;
            const float rs = rstd[r];
            double sumGX = 0.0;
            for (std::int64_t j = 0; j < width; ++j) sumGX += double(dyr[j]) * w[j] * xr[j];
            // d/dx of x * rs * w: rs * g - x * rs^3 * mean(g * x), g = dy * w.
            const float k = float(sumGX / double(width)) * rs * rs * rs;
            for (std::int64_t j = 0; j < width; ++j)
                dx[r * width + j] += rs * dyr[j] * w[j] - xr[j] * k;
        });
    if (dw.bound())
        eachColumnRange(s, width, [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t r = 0; r < rows; ++r) {
                const float* xr = x.data() + r * width;
                const float* dyr = dy.data() + r * width;
                const float rs = rstd[r];
                for (std::int64_t j = j0; j < j1; ++j) dw[j] += dyr[j] * xr[j] * rs;
            }
        });
    return Ok{};
}

}  // namespace remat::cpu
