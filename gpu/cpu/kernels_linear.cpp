// The linear layer on the CPU: y = x W^T + b, its input and parameter gradients, all three
// products through the tiled parallel sgemm with beta = 1 where the result is accumulated
// into; the bias gradient sums its rows column by column, in row order.
#include "cpu_kernels.h"
#include "gemm.h"
#include "thread_pool.h"

namespace remat::cpu {

namespace {
constexpr std::int64_t kColumnChunk = 256;
}

Status linearForward(Scratch& s, const OpCall& c) {
    if (auto st = expectForward(c, 1, 1, 1); !st) return st;
    const std::int64_t in = c.op->attrs.in, out = c.op->attrs.out;
    // The input may be bound as the storage of a view (a flatten of [N, C, 1, 1]): only its
    // element count matters.
    if (in <= 0 || c.inputs[0].elements() % in != 0 || c.params[0].elements() != in * out)
        return makeError("linear: operand shapes do not match in/out features");
    const std::int64_t rows = c.inputs[0].elements() / in;
    ReadF32 x(s, c.inputs[0]);
    ReadF32 w(s, c.params[0]);
    WriteF32 y(s, c.outputs[0], WriteF32::Mode::Overwrite);
    const bool bias = c.params.size() > 1;
    if (bias) {
        ReadF32 b(s, c.params[1]);
        forEachChunk(s.pool(), rows, rowChunk(out), [&](std::int64_t r0, std::int64_t r1) {
            for (std::int64_t r = r0; r < r1; ++r)
                for (std::int64_t j = 0; j < out; ++j) y[r * out + j] = b[j];
        });
    }
    parallelSgemm(s.pool(), Transpose::No, Transpose::Yes, rows, out, in, 1.0f, x.data(), in,
                  w.data(), in, bias ? 1.0f : 0.0f, y.data(), out);
    return Ok{};
}

Status linearBackward(Scratch& s, const OpCall& c) {
    if (auto st = expectBackward(c, 1, 1, 1, 1); !st) return st;
    if (!c.gradOutputs[0].bound()) return Ok{};
    const std::int64_t in = c.op->attrs.in, out = c.op->attrs.out;
    const std::int64_t rows = c.saved[0].elements() / in;
    ReadF32 dy(s, c.gradOutputs[0]);
    if (c.gradInputs[0].bound()) {
        ReadF32 w(s, c.params[0]);
        WriteF32 dx(s, c.gradInputs[0], WriteF32::Mode::Accumulate);
        parallelSgemm(s.pool(), Transpose::No, Transpose::No, rows, in, out, 1.0f, dy.data(), out,
                      w.data(), in, 1.0f, dx.data(), in);
    }
    {
        ReadF32 x(s, c.saved[0]);
        WriteF32 dw(s, c.paramGrads[0], WriteF32::Mode::Accumulate);
        parallelSgemm(s.pool(), Transpose::Yes, Transpose::No, out, in, rows, 1.0f, dy.data(), out,
                      x.data(), in, 1.0f, dw.data(), in);
    }
    if (c.params.size() > 1 && c.paramGrads.size() > 1 && c.paramGrads[1].bound()) {
        WriteF32 db(s, c.paramGrads[1], WriteF32::Mode::Accumulate);
        forEachChunk(s.pool(), out, kColumnChunk, [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t j = j0; j < j1; ++j) db[j] += dy[r * out + j];
        });
    }
    return Ok{};
}

}  // namespace remat::cpu
