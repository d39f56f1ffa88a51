// CudaBackend's entries for convolution, batch norm, max pooling and global average pooling:
// each checks the operands the program bound (count, dtype, NCHW shape against the op's
// kernel, stride, padding, dilation and groups), derives the launcher's sizes and enqueues it on
// the backend's stream (conv.cu). Backward entries accumulate into the gradients they are given
// and skip those left unbound. A convolution's im2col columns (one sample's) are scratch the
// backend takes from its pool for the op and gives back after it, stream-ordered: the program
// does not show them, so they are reported as the step's scratch peak, as the CPU backend
// reports its own. Batch norm's running statistics live on the device, one pair of fp32 vectors
// per op, and are updated by every forward that is not a recompute (the CPU backend's rule).

#include <algorithm>
#include <string>
#include <vector>

#include "cuda_backend.h"
#include "cuda_check.cuh"
#include "cuda_state.h"
#include "launchers.h"

namespace remat {

namespace cu = gpu::cuda;

namespace {

constexpr float kBatchNormEps = 1e-5f;

bool isFloat(DType t) {
    return t == DType::F32 || t == DType::BF16 || t == DType::F16;
}

// The first operand problem of a call, named after the op.
Error problem(const OpCall& c, const std::string& what) {
    return makeError(std::string(opKindName(c.op->kind)) + " '" + c.op->name + "': " + what);
}

bool nchw(const TensorRef& t) {
    return t.bound() && t.shape.size() == 4;
}

void* opt(const std::vector<TensorRef>& v, std::size_t i) {
    return i < v.size() ? v[i].data : nullptr;
}

// The convolution's shape from its input and output (or output gradient); an error when they
// do not match the op's attributes or the weight.
Result<cu::ConvShape> convShape(const OpCall& c, const TensorRef& x, const TensorRef& y,
                                const TensorRef& w) {
    if (!nchw(x) || !nchw(y) || !isFloat(x.dtype) || y.dtype != x.dtype || w.dtype != x.dtype)
        return problem(c, "input and output must be [N, C, H, W] of one floating dtype");
    cu::ConvShape g;
    g.n = x.shape[0];
    g.c = x.shape[1];
    g.h = x.shape[2];
    g.w = x.shape[3];
    g.o = y.shape[1];
    g.ho = y.shape[2];
    g.wo = y.shape[3];
    g.k = c.op->attrs.kernel;
    g.stride = c.op->attrs.stride;
    g.pad = c.op->attrs.padding;
    g.dil = c.op->attrs.dilation;
    g.groups = c.op->attrs.groups;
    if (const char* p = cu::convShapeProblem(g)) return problem(c, p);
    if (y.shape[0] != g.n || g.c != c.op->attrs.in || g.o != c.op->attrs.out ||
        w.elements() != g.o * g.colRows())
        return problem(c,
                       "operand shapes do not match the kernel, stride, padding, dilation, "
                       "groups and weight [out, in / groups, k, k]");
    return g;
}

// Scratch from the backend's pool for the duration of one op: freed on the stream when it goes
// out of scope, after the kernels that use it (stream order), so the pool can hand it out again.
class OpScratch {
public:
    OpScratch(CudaBackend::State& s, std::int64_t bytes) : m_s(s), m_bytes(bytes) {
        if (bytes <= 0) return;
        const cudaError_t e = cudaMallocFromPoolAsync(&m_data, std::size_t(bytes), s.pool, s.stream);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();  // not sticky
            m_data = nullptr;
            return;
        }
        REMAT_CUDA_CHECK(e);
        s.scratchBytes += bytes;
        s.scratchPeakBytes = std::max(s.scratchPeakBytes, s.scratchBytes);
    }
    ~OpScratch() {
        if (!m_data) return;
        m_s.scratchBytes -= m_bytes;
        const cudaError_t e = cudaFreeAsync(m_data, m_s.stream);
        if (e != cudaSuccess && m_s.deferred.empty())
            m_s.deferred = std::string("cudaFreeAsync: ") + cudaGetErrorName(e);
    }
    OpScratch(const OpScratch&) = delete;
    OpScratch& operator=(const OpScratch&) = delete;
    // Null when the pool could not provide the bytes (or none were asked for).
    void* data() const { return m_data; }
    bool failed() const { return m_bytes > 0 && !m_data; }

private:
    CudaBackend::State& m_s;
    std::int64_t m_bytes = 0;
    void* m_data = nullptr;
};

Error scratchProblem(const OpCall& c, std::int64_t bytes) {
    return problem(c, "out of GPU memory for the convolution's im2col columns (" +
                          std::to_string(bytes) + " bytes of scratch beyond the program's buffers)");
}

// The op's running statistics for this step: set to mean 0 and variance 1 by the step's first
// forward of the op; null for a recompute, which leaves them alone.
float* runningStatistics(CudaBackend::State& s, const OpCall& c, std::int64_t channels) {
    if (c.recompute) return nullptr;
    auto& r = s.running[c.opId.value];
    if (r.data && r.channels != channels) {
        REMAT_CUDA_CHECK(cudaFree(r.data));
        r.data = nullptr;
    }
    if (!r.data) {
        REMAT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&r.data),
                                    std::size_t(2 * channels) * sizeof(float)));
        r.channels = channels;
        r.setThisStep = false;
    }
    if (!r.setThisStep) {
        std::vector<float> init(std::size_t(2 * channels), 0.0f);
        std::fill(init.begin() + channels, init.end(), 1.0f);
        // Pageable source: the call returns once `init` has been staged.
        REMAT_CUDA_CHECK(cudaMemcpyAsync(r.data, init.data(), init.size() * sizeof(float),
                                         cudaMemcpyHostToDevice, s.stream));
        r.setThisStep = true;
    }
    return r.data;
}

Result<cu::PoolShape> poolShape(const OpCall& c, const TensorRef& x, const TensorRef& y) {
    if (!nchw(x) || !nchw(y) || !isFloat(x.dtype) || y.dtype != x.dtype)
        return problem(c, "input and output must be [N, C, H, W] of one floating dtype");
    cu::PoolShape g;
    g.planes = x.shape[0] * x.shape[1];
    g.h = x.shape[2];
    g.w = x.shape[3];
    g.ho = y.shape[2];
    g.wo = y.shape[3];
    g.k = c.op->attrs.kernel;
    g.stride = c.op->attrs.stride;
    g.pad = c.op->attrs.padding;
    if (g.k < 1 || g.stride < 1 || g.pad < 0 || 2 * g.pad > g.k ||
        y.shape[0] * y.shape[1] != g.planes || g.ho != (g.h + 2 * g.pad - g.k) / g.stride + 1 ||
        g.wo != (g.w + 2 * g.pad - g.k) / g.stride + 1)
        return problem(c, "operand shapes do not match the kernel, stride and padding");
    return g;
}

}  // namespace

Status CudaBackend::conv2dForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.inputs.empty() || c.outputs.empty() || c.params.empty() || !c.params[0].bound())
            return problem(c, "missing operands");
        auto g = convShape(c, c.inputs[0], c.outputs[0], c.params[0]);
        if (!g) return g.error();
        const void* bias = c.params.size() > 1 ? c.params[1].data : nullptr;
        if (bias && (c.params[1].elements() != g->o || c.params[1].dtype != c.inputs[0].dtype))
            return problem(c, "the bias must be one per output channel");
        const std::int64_t bytes = cu::convColumnElements(*g) * dtypeBytes(c.inputs[0].dtype);
        OpScratch columns(*m_state, bytes);
        if (columns.failed()) return scratchProblem(c, bytes);
        cu::conv2dForward(m_state->blas, c.inputs[0].dtype, c.inputs[0].data, c.params[0].data,
                          bias, c.outputs[0].data, columns.data(), *g, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::conv2dBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.saved.empty() || c.gradOutputs.empty() || c.params.empty())
            return problem(c, "missing operands");
        if (!c.gradOutputs[0].bound()) return Ok{};
        auto g = convShape(c, c.saved[0], c.gradOutputs[0], c.params[0]);
        if (!g) return g.error();
        void* dx = opt(c.gradInputs, 0);
        void* dw = opt(c.paramGrads, 0);
        const std::int64_t bytes =
            dx || dw ? cu::convColumnElements(*g) * dtypeBytes(c.saved[0].dtype) : 0;
        OpScratch columns(*m_state, bytes);
        if (columns.failed()) return scratchProblem(c, bytes);
        cu::conv2dBackward(m_state->blas, c.saved[0].dtype, c.saved[0].data, c.params[0].data,
                           c.gradOutputs[0].data, dx, dw,
                           c.params.size() > 1 ? opt(c.paramGrads, 1) : nullptr, columns.data(),
                           *g, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::batchNorm2dForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.inputs.empty() || c.outputs.size() < 3 || c.params.size() < 2)
            return problem(c, "missing operands");
        const TensorRef &x = c.inputs[0], &y = c.outputs[0];
        if (!nchw(x) || !isFloat(x.dtype) || !y.bound() || y.dtype != x.dtype ||
            y.elements() != x.elements())
            return problem(c, "input and output must be [N, C, H, W] of one floating dtype");
        const std::int64_t ch = x.shape[1];
        for (const TensorRef* s : {&c.outputs[1], &c.outputs[2]})
            if (!s->bound() || s->dtype != DType::F32 || s->elements() != ch)
                return problem(c, "mean and invstd must be fp32, one per channel");
        for (const TensorRef& p : c.params)
            if (!p.bound() || p.dtype != x.dtype || p.elements() != ch)
                return problem(c, "weight and bias must be one per channel, in the input's dtype");
        float* running = runningStatistics(*m_state, c, ch);
        cu::batchNorm2dForward(x.dtype, x.data, c.params[0].data, c.params[1].data, y.data,
                               static_cast<float*>(c.outputs[1].data),
                               static_cast<float*>(c.outputs[2].data), running,
                               running ? running + ch : nullptr, float(kBatchNormMomentum),
                               x.shape[0], ch, x.shape[2] * x.shape[3], kBatchNormEps,
                               m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::batchNorm2dBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.saved.size() < 3 || c.gradOutputs.empty() || c.params.size() < 2)
            return problem(c, "missing operands");
        const TensorRef &x = c.saved[0], &dy = c.gradOutputs[0];
        if (!dy.bound()) return Ok{};
        if (!nchw(x) || !isFloat(x.dtype) || dy.dtype != x.dtype || dy.elements() != x.elements())
            return problem(c, "saved input and output gradient must be [N, C, H, W] alike");
        const std::int64_t ch = x.shape[1];
        if (c.saved[1].dtype != DType::F32 || c.saved[2].dtype != DType::F32 ||
            c.saved[1].elements() != ch || c.saved[2].elements() != ch ||
            c.params[0].dtype != x.dtype || c.params[0].elements() != ch)
            return problem(c, "mean, invstd and weight must be one per channel");
        cu::batchNorm2dBackward(x.dtype, x.data, static_cast<const float*>(c.saved[1].data),
                                static_cast<const float*>(c.saved[2].data), c.params[0].data,
                                dy.data, opt(c.gradInputs, 0), opt(c.paramGrads, 0),
                                opt(c.paramGrads, 1), x.shape[0], ch, x.shape[2] * x.shape[3],
                                m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::maxPool2dForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.inputs.empty() || c.outputs.size() < 2) return problem(c, "missing operands");
        auto g = poolShape(c, c.inputs[0], c.outputs[0]);
        if (!g) return g.error();
        const TensorRef& idx = c.outputs[1];
        if (!idx.bound() || idx.dtype != DType::I64 || idx.elements() != c.outputs[0].elements())
            return problem(c, "indices must be int64, one per output element");
        cu::maxPool2dForward(c.inputs[0].dtype, c.inputs[0].data, c.outputs[0].data,
                             static_cast<std::int64_t*>(idx.data), *g, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::maxPool2dBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.saved.size() < 2 || c.gradOutputs.empty()) return problem(c, "missing operands");
        if (!c.gradOutputs[0].bound() || c.gradInputs.empty() || !c.gradInputs[0].bound())
            return Ok{};
        auto g = poolShape(c, c.saved[0], c.gradOutputs[0]);
        if (!g) return g.error();
        const TensorRef& idx = c.saved[1];
        if (idx.dtype != DType::I64 || idx.elements() != c.gradOutputs[0].elements() ||
            c.gradInputs[0].dtype != c.saved[0].dtype)
            return problem(c, "indices must be int64, one per output element");
        cu::maxPool2dBackward(c.saved[0].dtype, static_cast<const std::int64_t*>(idx.data),
                              c.gradOutputs[0].data, c.gradInputs[0].data, *g, m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::globalAvgPoolForward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.inputs.empty() || c.outputs.empty()) return problem(c, "missing operands");
        const TensorRef &x = c.inputs[0], &y = c.outputs[0];
        if (!nchw(x) || !isFloat(x.dtype) || !y.bound() || y.dtype != x.dtype ||
            y.elements() != x.shape[0] * x.shape[1] || x.shape[2] * x.shape[3] < 1)
            return problem(c, "input [N, C, H, W] and output [N, C, 1, 1] of one floating dtype");
        cu::globalAvgPoolForward(x.dtype, x.data, y.data, x.shape[0] * x.shape[1],
                                 x.shape[2] * x.shape[3], m_state->stream);
        return Ok{};
    });
}

Status CudaBackend::globalAvgPoolBackward(const OpCall& c) {
    return m_state->guard(c.op->name, [&]() -> Status {
        if (c.saved.empty() || c.gradOutputs.empty()) return problem(c, "missing operands");
        if (!c.gradOutputs[0].bound() || c.gradInputs.empty() || !c.gradInputs[0].bound())
            return Ok{};
        const TensorRef &x = c.saved[0], &dy = c.gradOutputs[0], &dx = c.gradInputs[0];
        if (!nchw(x) || !isFloat(x.dtype) || dy.dtype != x.dtype || dx.dtype != x.dtype ||
            dy.elements() != x.shape[0] * x.shape[1] || dx.elements() != x.elements() ||
            x.shape[2] * x.shape[3] < 1)
            return problem(c, "gradients must match the saved input [N, C, H, W]");
        cu::globalAvgPoolBackward(x.dtype, dy.data, dx.data, x.shape[0] * x.shape[1],
                                  x.shape[2] * x.shape[3], m_state->stream);
        return Ok{};
    });
}

}  // namespace remat
