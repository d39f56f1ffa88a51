// Warp and block reductions shared by the row kernels (softmax, norms, losses). The combining
// order is fixed by the butterfly pattern and lane numbering, so every sum is bit-reproducible
// from run to run; none use atomics.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

namespace remat::gpu::cuda {

__device__ __forceinline__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Running (max, sum of exp(x - max)) pair of an online softmax; -inf entries contribute 0.
struct MaxSum {
    float max = -INFINITY;
    float sum = 0.0f;
};

__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
    if (a.max == -INFINITY) return b;
    if (b.max == -INFINITY) return a;
    const float m = fmaxf(a.max, b.max);
    return {m, a.sum * expf(a.max - m) + b.sum * expf(b.max - m)};
}

__device__ __forceinline__ MaxSum push(MaxSum a, float x) {
    return combine(a, MaxSum{x, 1.0f});
}

__device__ __forceinline__ MaxSum warpMaxSum(MaxSum v) {
    for (int o = 16; o > 0; o >>= 1) {
        MaxSum other{__shfl_xor_sync(0xffffffffu, v.max, o),
                     __shfl_xor_sync(0xffffffffu, v.sum, o)};
        v = combine(v, other);
    }
    return v;
}

// Block-wide sum for blocks of up to 1024 threads; every thread receives the result. `scratch`
// holds 32 floats of shared memory.
__device__ __forceinline__ float blockSum(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = (blockDim.x + 31) >> 5;
    v = warpSum(v);
    __syncthreads();  // scratch may still be read by a previous call
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : 0.0f;
    return warpSum(v);
}

__device__ __forceinline__ MaxSum blockMaxSum(MaxSum v, float* scratchMax, float* scratchSum) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = (blockDim.x + 31) >> 5;
    v = warpMaxSum(v);
    __syncthreads();
    if (lane == 0) {
        scratchMax[warp] = v.max;
        scratchSum[warp] = v.sum;
    }
    __syncthreads();
    MaxSum w = lane < warps ? MaxSum{scratchMax[lane], scratchSum[lane]} : MaxSum{};
    return warpMaxSum(w);
}

}  // namespace remat::gpu::cuda
