// CudaBackend's life cycle, memory, copies and timers (the op entries are in cuda_ops.cpp).

#include "cuda_backend.h"

#include <cstdlib>
#include <limits>

#include "cuda_check.cuh"
#include "cuda_state.h"
#include "launchers.h"

namespace remat {

namespace {

std::string cudaCode(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + " (" + std::to_string(int(e)) + ")";
}

std::string formatMiB(std::int64_t bytes) {
    const double mib = double(bytes) / (1024.0 * 1024.0);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f MiB", mib);
    return buf;
}

std::int64_t deviceUsedBytes() {
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) return -1;
    return std::int64_t(totalBytes) - std::int64_t(freeBytes);
}

std::int64_t poolAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr) {
    std::uint64_t v = 0;
    if (!pool || cudaMemPoolGetAttribute(pool, attr, &v) != cudaSuccess) return -1;
    return std::int64_t(v);
}

void destroyState(CudaBackend::State& s) noexcept {
    if (s.stream) cudaStreamSynchronize(s.stream);
    for (cudaEvent_t e : s.startEvents) cudaEventDestroy(e);
    for (cudaEvent_t e : s.stopEvents) cudaEventDestroy(e);
    s.startEvents.clear();
    s.stopEvents.clear();
    for (auto& [op, r] : s.running) cudaFree(r.data);
    s.running.clear();
    if (s.blas) cublasDestroy(s.blas);
    if (s.pool) {
        cudaMemPoolTrimTo(s.pool, 0);
        cudaMemPoolDestroy(s.pool);
    }
    if (s.stream) cudaStreamDestroy(s.stream);
    s.blas = nullptr;
    s.pool = nullptr;
    s.stream = nullptr;
}

}  // namespace

Result<std::unique_ptr<CudaBackend>> CudaBackend::create(int device) {
    int count = 0;
    const cudaError_t probe = cudaGetDeviceCount(&count);
    if (probe != cudaSuccess) {
        // 35 no driver, 34 the stub libcuda, 100 a driver but no device: a GPU-less machine.
        cudaGetLastError();
        return makeError(cudaCode(probe) + ", " + cudaGetErrorString(probe));
    }
    if (count == 0) return makeError("no CUDA device is visible (0 devices)");
    if (device < 0 || device >= count)
        return makeError("device " + std::to_string(device) + " does not exist (" +
                         std::to_string(count) + " visible)");

    auto s = std::make_unique<State>();
    s->device = device;
    if (const char* sync = std::getenv("REMAT_CUDA_SYNC")) s->synchronizeEachOp = sync[0] == '1';
    try {
        REMAT_CUDA_CHECK(cudaSetDevice(device));
        REMAT_CUDA_CHECK(cudaFree(nullptr));  // creates the context now, not inside a step
        s->contextUsedBytes = deviceUsedBytes();
        cudaDeviceProp props{};
        REMAT_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
        s->deviceName = std::string(props.name) + " (sm_" + std::to_string(props.major) +
                        std::to_string(props.minor) + ", " +
                        formatMiB(std::int64_t(props.totalGlobalMem)) + ")";
        if (const cudaError_t img = gpu::cuda::probeKernelImage(); img != cudaSuccess) {
            cudaGetLastError();
            return makeError(std::string(props.name) + " (sm_" + std::to_string(props.major) +
                             std::to_string(props.minor) + ") cannot run this build's kernels: " +
                             cudaCode(img) + "; rebuild with CMAKE_CUDA_ARCHITECTURES including " +
                             std::to_string(props.major) + std::to_string(props.minor));
        }
        REMAT_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
        REMAT_CUBLAS_CHECK(cublasCreate(&s->blas));
        REMAT_CUBLAS_CHECK(cublasSetStream(s->blas, s->stream));
        // Plain fp32 GEMMs: no TF32 unless a profile says so (device profiles: "plain").
        REMAT_CUBLAS_CHECK(cublasSetMathMode(s->blas, CUBLAS_DEFAULT_MATH));
        // After cublasSetStream (which resets it): no workspace until the program's is given.
        REMAT_CUBLAS_CHECK(cublasSetWorkspace(s->blas, nullptr, 0));

        cudaMemPoolProps props2{};
        props2.allocType = cudaMemAllocationTypePinned;
        props2.handleTypes = cudaMemHandleTypeNone;
        props2.location.type = cudaMemLocationTypeDevice;
        props2.location.id = device;
        REMAT_CUDA_CHECK(cudaMemPoolCreate(&s->pool, &props2));
        // Keep freed blocks cached for the whole step (as PyTorch's caching allocator does);
        // endStep trims the pool back to nothing.
        std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
        REMAT_CUDA_CHECK(
            cudaMemPoolSetAttribute(s->pool, cudaMemPoolAttrReleaseThreshold, &threshold));
        const std::int64_t used = deviceUsedBytes();
        if (used >= 0 && s->contextUsedBytes >= 0) s->libraryBytes = used - s->contextUsedBytes;
    } catch (const gpu::CudaError& e) {
        destroyState(*s);
        return makeError(std::string("the CUDA backend could not start: ") + e.what());
    }
    return std::unique_ptr<CudaBackend>(new CudaBackend(std::move(s)));
}

Result<std::unique_ptr<Backend>> makeCudaBackend() {
    auto b = CudaBackend::create(0);
    if (!b) return b.error();
    return std::unique_ptr<Backend>(std::move(*b));
}

CudaBackend::CudaBackend(std::unique_ptr<State> state) : m_state(std::move(state)) {}

CudaBackend::~CudaBackend() {
    destroyState(*m_state);
}

std::string CudaBackend::deviceName() const {
    return m_state->deviceName;
}

bool CudaBackend::supports(OpKind kind) const {
    switch (kind) {
        case OpKind::Cast:
        case OpKind::LinearCrossEntropy:
        case OpKind::PatchTokens:
        case OpKind::SelectToken:
            return false;
        default:
            return true;
    }
}

std::int64_t CudaBackend::liveBytes() const {
    return m_state->liveBytes;
}

std::int64_t CudaBackend::libraryOverheadBytes() const {
    return m_state->libraryBytes;
}

// ---- a run ----------------------------------------------------------------------------------

Status CudaBackend::beginStep(std::size_t instructionCount) {
    State& s = *m_state;
    return s.guard("begin step", [&]() -> Status {
        REMAT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        while (s.startEvents.size() < instructionCount) {
            cudaEvent_t a = nullptr, b = nullptr;
            REMAT_CUDA_CHECK(cudaEventCreate(&a));
            s.startEvents.push_back(a);
            REMAT_CUDA_CHECK(cudaEventCreate(&b));
            s.stopEvents.push_back(b);
        }
        s.timed.assign(instructionCount, 0);
        s.earlierS.assign(instructionCount, 0.0);
        std::uint64_t zero = 0;
        REMAT_CUDA_CHECK(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrUsedMemHigh, &zero));
        REMAT_CUDA_CHECK(cudaMemPoolSetAttribute(s.pool, cudaMemPoolAttrReservedMemHigh, &zero));
        s.lastStats = DeviceMemoryStats{};
        s.lastStats.deviceUsedBeforeBytes = deviceUsedBytes();
        s.scratchBytes = 0;
        s.scratchPeakBytes = 0;
        for (auto& [op, r] : s.running) r.setThisStep = false;
        s.stepOpen = true;
        return Ok{};
    });
}

Status CudaBackend::endStep() {
    State& s = *m_state;
    s.stepOpen = false;
    return s.guard("end step", [&]() -> Status {
        REMAT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        s.lastStats.usedPeakBytes = poolAttribute(s.pool, cudaMemPoolAttrUsedMemHigh);
        s.lastStats.reservedPeakBytes = poolAttribute(s.pool, cudaMemPoolAttrReservedMemHigh);
        // Measured before trimming: what the step left the device holding.
        s.lastStats.deviceUsedAfterBytes = deviceUsedBytes();
        REMAT_CUDA_CHECK(cudaMemPoolTrimTo(s.pool, 0));
        return Ok{};
    });
}

// timed[i]: 1 once the start event is recorded, 2 once both are; only pairs are read. Timing
// an instruction again first adds its previous run (waiting for it if need be) to earlierS.
void CudaBackend::startTimer(std::size_t instruction) {
    State& s = *m_state;
    if (instruction >= s.timed.size() || !s.fault.empty()) return;
    if (s.timed[instruction] == 2) {
        float ms = 0.0f;
        cudaError_t e = cudaEventSynchronize(s.stopEvents[instruction]);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, s.startEvents[instruction], s.stopEvents[instruction]);
        if (e != cudaSuccess) {
            if (s.deferred.empty()) s.deferred = "cudaEventElapsedTime: " + cudaCode(e);
        } else {
            s.earlierS[instruction] += double(ms) * 1e-3;
        }
    }
    s.timed[instruction] = 0;
    const cudaError_t e = cudaEventRecord(s.startEvents[instruction], s.stream);
    if (e != cudaSuccess) {
        if (s.deferred.empty()) s.deferred = "cudaEventRecord: " + cudaCode(e);
        return;
    }
    s.timed[instruction] = 1;
}

void CudaBackend::stopTimer(std::size_t instruction) {
    State& s = *m_state;
    if (instruction >= s.timed.size() || !s.fault.empty() || s.timed[instruction] != 1) return;
    const cudaError_t e = cudaEventRecord(s.stopEvents[instruction], s.stream);
    if (e != cudaSuccess) {
        if (s.deferred.empty()) s.deferred = "cudaEventRecord: " + cudaCode(e);
        return;
    }
    s.timed[instruction] = 2;
}

Result<std::vector<double>> CudaBackend::elapsedSeconds() {
    State& s = *m_state;
    std::vector<double> out(s.timed.size(), 0.0);
    Status st = s.guard("elapsed time", [&]() -> Status {
        REMAT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        for (std::size_t i = 0; i < s.timed.size(); ++i) {
            out[i] = i < s.earlierS.size() ? s.earlierS[i] : 0.0;
            if (s.timed[i] != 2) continue;
            float ms = 0.0f;
            REMAT_CUDA_CHECK(cudaEventElapsedTime(&ms, s.startEvents[i], s.stopEvents[i]));
            out[i] += double(ms) * 1e-3;
        }
        return Ok{};
    });
    if (!st) return st.error();
    return out;
}

DeviceMemoryStats CudaBackend::memoryStats() const {
    const State& s = *m_state;
    DeviceMemoryStats d = s.lastStats;
    if (s.stepOpen) {  // mid-step: the pool's figures so far
        d.usedPeakBytes = poolAttribute(s.pool, cudaMemPoolAttrUsedMemHigh);
        d.reservedPeakBytes = poolAttribute(s.pool, cudaMemPoolAttrReservedMemHigh);
    }
    d.scratchPeakBytes = s.scratchPeakBytes;  // the convolutions' columns
    if (s.fault.empty()) {  // after a sticky fault the context, and its memory, are gone
        d.inUseBytes = poolAttribute(s.pool, cudaMemPoolAttrUsedMemCurrent);
        d.heldBytes = poolAttribute(s.pool, cudaMemPoolAttrReservedMemCurrent);
    }
    return d;
}

// ---- memory -----------------------------------------------------------------------------------

Result<DeviceBlock> CudaBackend::allocate(std::int64_t bytes) {
    State& s = *m_state;
    DeviceBlock block;
    Status st = s.guard("allocate", [&]() -> Status {
        if (bytes <= 0) return makeError("cannot allocate " + std::to_string(bytes) + " bytes");
        void* p = nullptr;
        const cudaError_t e = cudaMallocFromPoolAsync(&p, std::size_t(bytes), s.pool, s.stream);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();  // not sticky: clear it so the run can be unwound cleanly
            std::size_t freeBytes = 0, totalBytes = 0;
            cudaMemGetInfo(&freeBytes, &totalBytes);
            const std::int64_t reserved = poolAttribute(s.pool, cudaMemPoolAttrReservedMemCurrent);
            const std::int64_t used = poolAttribute(s.pool, cudaMemPoolAttrUsedMemCurrent);
            return makeError(
                "out of GPU memory: requested " + std::to_string(bytes) + " bytes (" +
                formatMiB(bytes) + ") with " + std::to_string(s.liveBytes) +
                " bytes live, so the program predicts " + std::to_string(s.liveBytes + bytes) +
                " bytes (" + formatMiB(s.liveBytes + bytes) +
                ") live after this allocation; available: " + formatMiB(std::int64_t(freeBytes)) +
                " free on the device of " + formatMiB(std::int64_t(totalBytes)) + ", plus " +
                formatMiB(reserved - used) + " cached in the pool");
        }
        REMAT_CUDA_CHECK(e);
        block.data = p;
        block.bytes = bytes;
        s.liveBytes += bytes;
        return Ok{};
    });
    if (!st) return st.error();
    return block;
}

void CudaBackend::release(DeviceBlock block) noexcept {
    State& s = *m_state;
    if (!block.data) return;
    if (block.data == s.gemmWorkspace) {
        // cuBLAS must not keep using memory the program has freed.
        cublasSetWorkspace(s.blas, nullptr, 0);
        s.gemmWorkspace = nullptr;
        s.gemmWorkspaceBytes = 0;
    }
    s.liveBytes -= block.bytes;
    if (!s.fault.empty()) return;  // the context is gone; its memory goes with it
    const cudaError_t e = cudaFreeAsync(block.data, s.stream);
    if (e != cudaSuccess && s.deferred.empty()) s.deferred = "cudaFreeAsync: " + cudaCode(e);
}

Status CudaBackend::fillZero(DeviceBlock block) {
    State& s = *m_state;
    return s.guard("fill zero", [&]() -> Status {
        if (block.bytes > 0)
            REMAT_CUDA_CHECK(cudaMemsetAsync(block.data, 0, std::size_t(block.bytes), s.stream));
        return Ok{};
    });
}

Status CudaBackend::upload(DeviceBlock dst, const void* host, std::int64_t bytes) {
    State& s = *m_state;
    return s.guard("upload", [&]() -> Status {
        if (bytes < 0 || bytes > dst.bytes)
            return makeError("upload of " + std::to_string(bytes) + " bytes into a block of " +
                             std::to_string(dst.bytes));
        // From pageable memory the call returns once `host` has been staged, so the caller
        // may free it; the copy stays ordered on the stream with the kernels.
        if (bytes > 0)
            REMAT_CUDA_CHECK(cudaMemcpyAsync(dst.data, host, std::size_t(bytes),
                                             cudaMemcpyHostToDevice, s.stream));
        return Ok{};
    });
}

Status CudaBackend::download(DeviceBlock src, void* host, std::int64_t bytes) {
    State& s = *m_state;
    return s.guard("download", [&]() -> Status {
        if (bytes < 0 || bytes > src.bytes)
            return makeError("download of " + std::to_string(bytes) + " bytes from a block of " +
                             std::to_string(src.bytes));
        if (bytes > 0)
            REMAT_CUDA_CHECK(cudaMemcpyAsync(host, src.data, std::size_t(bytes),
                                             cudaMemcpyDeviceToHost, s.stream));
        REMAT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
        return Ok{};
    });
}

Status CudaBackend::setGemmWorkspace(DeviceBlock block) {
    State& s = *m_state;
    return s.guard("set GEMM workspace", [&]() -> Status {
        REMAT_CUBLAS_CHECK(cublasSetWorkspace(s.blas, block.data, std::size_t(block.bytes)));
        s.gemmWorkspace = block.data;
        s.gemmWorkspaceBytes = block.data ? block.bytes : 0;
        return Ok{};
    });
}

}  // namespace remat
