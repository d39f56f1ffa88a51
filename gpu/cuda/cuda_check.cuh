// Checking macros for CUDA runtime calls, cuBLAS calls, kernel launches and launcher
// preconditions. Each failure throws remat::gpu::CudaError with the call's text, the file and
// the line (see cuda_error.h); nothing here exits or aborts.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_error.h"

namespace remat::gpu::cuda {

inline const char* cublasStatusName(cublasStatus_t s) {
    switch (s) {
        case CUBLAS_STATUS_SUCCESS:
            return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED:
            return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED:
            return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE:
            return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH:
            return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR:
            return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED:
            return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR:
            return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED:
            return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR:
            return "CUBLAS_STATUS_LICENSE_ERROR";
        default:
            return "CUBLAS_STATUS_UNKNOWN";
    }
}

[[noreturn]] inline void throwCuda(cudaError_t e, const char* call, const char* file, int line) {
    const CudaErrorKind kind =
        e == cudaErrorMemoryAllocation ? CudaErrorKind::OutOfMemory : CudaErrorKind::Runtime;
    throw CudaError(kind, int(e), cudaGetErrorName(e), call, file, line);
}

inline void checkCuda(cudaError_t e, const char* call, const char* file, int line) {
    if (e != cudaSuccess) throwCuda(e, call, file, line);
}

inline void checkCublas(cublasStatus_t s, const char* call, const char* file, int line) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw CudaError(CudaErrorKind::Blas, int(s), cublasStatusName(s), call, file, line);
}

// A launch error (bad configuration, or an earlier asynchronous fault surfacing here) is
// reported under the kernel's name, so the message says which op failed.
inline void checkLaunch(const char* kernel, const char* file, int line) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throwCuda(e, kernel, file, line);
}

}  // namespace remat::gpu::cuda

#define REMAT_CUDA_CHECK(call) ::remat::gpu::cuda::checkCuda((call), #call, __FILE__, __LINE__)
#define REMAT_CUBLAS_CHECK(call) ::remat::gpu::cuda::checkCublas((call), #call, __FILE__, __LINE__)
#define REMAT_LAUNCH_CHECK(kernel) ::remat::gpu::cuda::checkLaunch(kernel, __FILE__, __LINE__)
#define REMAT_REQUIRE(cond, what)                                                                \
    do {                                                                                         \
        if (!(cond))                                                                             \
            throw ::remat::gpu::CudaError(::remat::gpu::CudaErrorKind::Precondition, 0,          \
                                          "precondition failed", std::string(what) + ": " #cond, \
                                          __FILE__, __LINE__);                                   \
    } while (0)
