// The CUDA handles behind CudaBackend (cuda_backend.h) and the one place CudaErrors become
// Statuses. Internal to gpu/cuda: it includes the CUDA runtime and cuBLAS headers, so only this
// folder's sources include it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cuda_backend.h"
#include "cuda_error.h"
#include "executor.h"

namespace remat {

struct CudaBackend::State {
    int device = 0;
    std::string deviceName;
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    cudaMemPool_t pool = nullptr;
    void* gemmWorkspace = nullptr;
    std::int64_t gemmWorkspaceBytes = 0;

    std::vector<cudaEvent_t> startEvents, stopEvents;
    std::vector<std::uint8_t> timed;  // per instruction: 0 none, 1 start, 2 both events recorded
    // Per instruction: seconds of its earlier runs in this step (a repeat's body runs again).
    std::vector<double> earlierS;

    // Scratch the backend takes from the pool for an op, which the program does not show (the
    // convolution's im2col columns): bytes taken now and the step's high-water mark.
    std::int64_t scratchBytes = 0;
    std::int64_t scratchPeakBytes = 0;

    // Batch norm's running statistics by op id: fp32 [mean × channels, variance × channels] on
    // the device (cudaMalloc, outside the pool: PyTorch keeps them as module buffers, not as
    // activations), set to 0 and 1 by the step's first forward of the op, as every step starts
    // from the seed (the CPU backend's rule).
    struct RunningStats {
        float* data = nullptr;
        std::int64_t channels = 0;
        bool setThisStep = false;
    };
    std::map<std::uint32_t, RunningStats> running;

    std::int64_t liveBytes = 0;
    std::int64_t contextUsedBytes = -1;  // device used right after the context was created
    std::int64_t libraryBytes = 0;       // stream, cuBLAS handle and pool creation
    DeviceMemoryStats lastStats;
    bool stepOpen = false;

    // REMAT_CUDA_SYNC=1: synchronise after every op so an asynchronous kernel fault is reported
    // by the op that caused it rather than by a later call.
    bool synchronizeEachOp = false;
    // Set once a sticky error has made the context unusable; every later call reports it.
    std::string fault;
    // An error from a call that cannot return one (release, timers), reported by the next
    // call that can.
    std::string deferred;

    Status failed(const std::string& where, const gpu::CudaError& e) {
        std::string message = where + ": " + e.what();
        if (e.kind() == gpu::CudaErrorKind::Runtime || e.kind() == gpu::CudaErrorKind::Blas) {
            // A sticky error (illegal address, launch failure) poisons the context: every later
            // call returns it. Detect that now so the next call says so plainly.
            const cudaError_t after = cudaStreamSynchronize(stream);
            if (after != cudaSuccess) {
                fault = std::string("the CUDA context is unusable after ") +
                        cudaGetErrorName(after) + " (" + std::to_string(int(after)) +
                        "): restart remat to use the GPU again";
                message += "; " + fault;
            }
        }
        return makeError(message);
    }

    template <typename F>
    Status guard(const std::string& where, F&& f) {
        if (!fault.empty()) return makeError(where + ": " + fault);
        if (!deferred.empty()) {
            std::string d = std::move(deferred);
            deferred.clear();
            return makeError(where + ": an earlier CUDA call failed: " + d);
        }
        try {
            Status st = f();
            if (st && synchronizeEachOp) {
                const cudaError_t e = cudaStreamSynchronize(stream);
                if (e != cudaSuccess)
                    throw gpu::CudaError(gpu::CudaErrorKind::Runtime, int(e), cudaGetErrorName(e),
                                         "cudaStreamSynchronize after the op", __FILE__, __LINE__);
            }
            return st;
        } catch (const gpu::CudaError& e) {
            return failed(where, e);
        }
    }
};

}  // namespace remat
