// Storage types of the CUDA kernels. Activations, parameters and gradients are stored as fp32,
// bf16 or fp16 (DESIGN §3 precision modes) and always computed in fp32: kernels load through
// toFloat and store through fromFloat<T>, which round to nearest even as the CPU reference does
// when it emulates 16-bit storage. dispatchFloat turns the program's DType into the template
// argument once, at the launcher.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda_check.cuh"
#include "types.h"

namespace remat::gpu::cuda {

__device__ __forceinline__ float toFloat(float x) {
    return x;
}
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) {
    return __bfloat162float(x);
}
__device__ __forceinline__ float toFloat(__half x) {
    return __half2float(x);
}

template <typename T>
__device__ __forceinline__ T fromFloat(float x);
template <>
__device__ __forceinline__ float fromFloat<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __half fromFloat<__half>(float x) {
    return __float2half_rn(x);
}

// Calls f(T{}) with T the storage type of `t`; only the floating dtypes are accepted.
template <typename F>
void dispatchFloat(DType t, const char* what, F&& f) {
    switch (t) {
        case DType::F32:
            f(float{});
            return;
        case DType::BF16:
            f(__nv_bfloat16{});
            return;
        case DType::F16:
            f(__half{});
            return;
        default:
            break;
    }
    REMAT_REQUIRE(false, std::string(what) + ": expected a floating-point dtype");
}

// Grid size for a grid-stride loop over n elements; the loop covers whatever the cap leaves.
inline unsigned gridFor(std::int64_t n, int block) {
    const std::int64_t blocks = (n + block - 1) / block;
    constexpr std::int64_t kMaxBlocks = 65535LL * 16;
    return unsigned(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

// Grid size for kernels whose blocks stride over rows.
inline unsigned rowGrid(std::int64_t rows) {
    constexpr std::int64_t kMaxBlocks = 65535LL * 16;
    return unsigned(rows < 1 ? 1 : (rows > kMaxBlocks ? kMaxBlocks : rows));
}

}  // namespace remat::gpu::cuda
