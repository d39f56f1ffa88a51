// fp32 staging of operands for the CPU kernels (cpu_kernels.h).
#include "cpu_kernels.h"

#include <string>

#include "thread_pool.h"

namespace remat::cpu {

namespace {

// Elements [b, e) of a 16-bit buffer into fp32 and back, the dtype switch outside the loop so
// that the loop compiles to straight conversions.
void decodeRange(const TensorRef& t, float* dst, std::int64_t b, std::int64_t e) {
    const auto* src = static_cast<const std::uint16_t*>(t.data);
    if (t.dtype == DType::BF16)
        for (std::int64_t i = b; i < e; ++i) dst[i] = bf16ToFloat(src[i]);
    else if (t.dtype == DType::F16)
        for (std::int64_t i = b; i < e; ++i) dst[i] = fp16ToFloat(src[i]);
    else
        for (std::int64_t i = b; i < e; ++i) dst[i] = loadElement(t, i);
}

void encodeRange(const TensorRef& t, const float* src, std::int64_t b, std::int64_t e) {
    auto* dst = static_cast<std::uint16_t*>(t.data);
    if (t.dtype == DType::BF16)
        for (std::int64_t i = b; i < e; ++i) dst[i] = floatToBf16(src[i]);
    else if (t.dtype == DType::F16)
        for (std::int64_t i = b; i < e; ++i) dst[i] = floatToFp16(src[i]);
    else
        for (std::int64_t i = b; i < e; ++i) storeElement(t, i, src[i]);
}

}  // namespace

float* Scratch::take(std::int64_t elements) {
    auto* p = static_cast<float*>(m_allocator.allocate(elements * 4));
    if (!p) throw ScratchExhausted{};
    m_liveBytes += elements * 4;
    if (m_liveBytes > m_peakBytes) m_peakBytes = m_liveBytes;
    return p;
}

void Scratch::give(float* block, std::int64_t elements) noexcept {
    if (!block) return;
    m_allocator.release(block);
    m_liveBytes -= elements * 4;
}

ReadF32::ReadF32(Scratch& scratch, const TensorRef& t, float* stage)
    : m_scratch(scratch), m_elements(t.elements()) {
    if (!t.bound()) return;
    if (t.dtype == DType::F32) {
        m_data = static_cast<const float*>(t.data);
        return;
    }
    float* dst = stage ? stage : (m_owned = scratch.take(m_elements));
    forEachChunk(scratch.pool(), m_elements, kElementChunk,
                 [&](std::int64_t b, std::int64_t e) { decodeRange(t, dst, b, e); });
    m_data = dst;
}

ReadF32::~ReadF32() { m_scratch.give(m_owned, m_elements); }

WriteF32::WriteF32(Scratch& scratch, const TensorRef& t, Mode mode, float* stage)
    : m_scratch(scratch), m_ref(t) {
    if (!t.bound()) return;
    if (t.dtype == DType::F32) {
        m_data = static_cast<float*>(t.data);
        return;
    }
    m_staged = true;
    const std::int64_t n = t.elements();
    m_data = stage ? stage : (m_owned = scratch.take(n));
    if (mode == Mode::Accumulate)
        forEachChunk(scratch.pool(), n, kElementChunk,
                     [&](std::int64_t b, std::int64_t e) { decodeRange(t, m_data, b, e); });
}

WriteF32::~WriteF32() {
    if (m_staged) {
        const std::int64_t n = m_ref.elements();
        forEachChunk(m_scratch.pool(), n, kElementChunk,
                     [&](std::int64_t b, std::int64_t e) { encodeRange(m_ref, m_data, b, e); });
    }
    m_scratch.give(m_owned, m_ref.elements());
}

namespace {
Status operandError(const OpCall& c, const char* what) {
    return makeError(std::string(opKindName(c.op->kind)) + ": missing " + what + " operand");
}
}  // namespace

Status expectForward(const OpCall& c, std::size_t inputs, std::size_t outputs,
                     std::size_t params) {
    if (c.inputs.size() < inputs) return operandError(c, "input");
    if (c.outputs.size() < outputs) return operandError(c, "output");
    if (c.params.size() < params) return operandError(c, "parameter");
    for (std::size_t i = 0; i < inputs; ++i)
        if (!c.inputs[i].bound()) return operandError(c, "input");
    for (std::size_t i = 0; i < outputs; ++i)
        if (!c.outputs[i].bound()) return operandError(c, "output");
    return Ok{};
}

Status expectBackward(const OpCall& c, std::size_t saved, std::size_t inputs,
                      std::size_t outputs, std::size_t params) {
    if (c.saved.size() < saved) return operandError(c, "saved");
    if (c.gradInputs.size() < inputs) return operandError(c, "input gradient");
    if (c.gradOutputs.size() < outputs) return operandError(c, "output gradient");
    if (c.params.size() < params || c.paramGrads.size() < params)
        return operandError(c, "parameter");
    for (std::size_t i = 0; i < saved; ++i)
        if (!c.saved[i].bound()) return operandError(c, "saved");
    return Ok{};
}

}  // namespace remat::cpu
