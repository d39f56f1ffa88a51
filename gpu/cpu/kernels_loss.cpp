// The losses on the CPU: cross-entropy (mean over rows, through fp32 log-probabilities that
// backward reuses) and mean squared error (mean over all elements). Their backward is seeded
// with lossGradScale, since nothing produces a gradient for the loss itself. Rows and
// elements run in fixed chunks over the pool; the cross-entropy mean adds the rows' terms in
// row order, and the MSE sum adds fixed chunks' partial sums in chunk order, so the loss has
// the same bits with any thread count.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_kernels.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {
// The program's declared workspace as fp32 staging memory, when it is big enough.
float* workspaceFloats(const OpCall& c, std::int64_t elements, std::int64_t offsetElements = 0) {
    if (!c.workspace.bound() || c.workspace.bytes() < (offsetElements + elements) * 4) return nullptr;
    return static_cast<float*>(c.workspace.data) + offsetElements;
}
}  // namespace

Status crossEntropyForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 2, 2, 0); !st) return st;
    const TensorRef& logits = c.inputs[0];
    const TensorRef& targets = c.inputs[1];
    const std::int64_t classes = logits.shape.back();
    const std::int64_t rows = logits.elements() / classes;
    if (targets.dtype != DType::I64 || targets.elements() != rows)
        return makeError("cross_entropy: targets must be int64, one per row");
    if (c.outputs[0].dtype != DType::F32 || c.outputs[1].dtype != DType::F32)
        return makeError("cross_entropy: loss and log-probabilities must be fp32");
    // A 16-bit model's fp32 copy of the logits goes into the workspace the program declared
    // for exactly that copy.
    ReadF32 x(s, logits, workspaceFloats(c, logits.elements()));
    const auto* t = static_cast<const std::int64_t*>(targets.data);
    auto* logp = static_cast<float*>(c.outputs[1].data);
    for (std::int64_t r = 0; r < rows; ++r)
        if (t[r] < 0 || t[r] >= classes)
            return makeError("cross_entropy: target " + std::to_string(t[r]) + " outside [0, " +
                             std::to_string(classes) + ")");
    forEachChunk(s.pool(), rows, rowChunk(classes), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
            const float* xr = x.data() + r * classes;
            float* lr = logp + r * classes;
            float mx = -INFINITY;
            for (std::int64_t j = 0; j < classes; ++j) mx = std::fmax(mx, xr[j]);
            double sum = 0.0;
            for (std::int64_t j = 0; j < classes; ++j) sum += std::exp(double(xr[j] - mx));
            const float lse = float(std::log(sum));
            for (std::int64_t j = 0; j < classes; ++j) lr[j] = xr[j] - mx - lse;
        }
    });
    double total = 0.0;
    for (std::int64_t r = 0; r < rows; ++r) total -= logp[r * classes + t[r]];
    *static_cast<float*>(c.outputs[0].data) = float(total / double(rows));
    return Ok{};
}

Status crossEntropyBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 2, 1, 0, 0); !st) return st;
    if (!c.gradInputs[0].bound()) return Ok{};
    const TensorRef& logp = c.saved[0];
    const std::int64_t classes = logp.shape.back();
    const std::int64_t rows = logp.elements() / classes;
    const auto* lp = static_cast<const float*>(logp.data);
    const auto* t = static_cast<const std::int64_t*>(c.saved[1].data);
    const float scale = c.lossGradScale / float(rows);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate,
                workspaceFloats(c, logp.elements()));
    for (std::int64_t r = 0; r < rows; ++r)
        if (t[r] < 0 || t[r] >= classes) return makeError("cross_entropy: target out of range");
    forEachChunk(s.pool(), rows, rowChunk(classes), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r)
            for (std::int64_t j = 0; j < classes; ++j) {
                const float onehot = j == t[r] ? 1.0f : 0.0f;
                dx[r * classes + j] += (std::exp(lp[r * classes + j]) - onehot) * scale;
            }
    });
    return Ok{};
}

Status mseForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 2, 1, 0); !st) return st;
    const std::int64_t n = c.inputs[0].elements();
    if (c.inputs[1].elements() != n) return makeError("mse: input and target sizes differ");
    ReadF32 x(s, c.inputs[0]);
    ReadF32 y(s, c.inputs[1]);
    // Partial sums of fixed chunks (host memory: one double per chunk), added in order.
    const std::int64_t chunks = (n + kElementChunk - 1) / kElementChunk;
    std::vector<double> partial(std::size_t(std::max<std::int64_t>(chunks, 0)), 0.0);
    forEachChunk(s.pool(), n, kElementChunk, [&](std::int64_t b, std::int64_t e) {
        double sum = 0.0;
        for (std::int64_t i = b; i < e; ++i) {
            const double d = double(x[i]) - double(y[i]);
            sum += d * d;
        }
        partial[std::size_t(b / kElementChunk)] = sum;
    });
    double sum = 0.0;
    for (double p : partial) sum += p;
    *static_cast<float*>(c.outputs[0].data) = float(sum / double(n));
    return Ok{};
}

Status mseBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 2, 1, 0, 0); !st) return st;
    if (!c.gradInputs[0].bound()) return Ok{};
    const std::int64_t n = c.saved[0].elements();
    ReadF32 x(s, c.saved[0]);
    ReadF32 y(s, c.saved[1]);
    WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
    const float scale = 2.0f * c.lossGradScale / float(n);
    forEachChunk(s.pool(), n, kElementChunk, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) dx[i] += (x[i] - y[i]) * scale;
    });
    return Ok{};
}

}  // namespace remat::cpu
