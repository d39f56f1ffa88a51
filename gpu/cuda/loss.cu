// The losses: cross-entropy (row log-softmax of the logits into fp32 log-probabilities, then the
// mean negative log-likelihood over rows) and mean squared error, forward and backward. The
// scalar losses are reduced by one block in a fixed order (no atomics), so they are
// bit-reproducible. Backward is seeded with the loss gradient `seed` (1 / accumulation steps).

#include "launchers.h"
#include "reduce.cuh"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kRowBlock = 256;
constexpr int kReduceBlock = 1024;
constexpr int kBlock = 256;

// ---- kernels -------------------------------------------------------------------------------

// One block per row: logp = x - max - log(sum exp(x - max)), in fp32.
template <typename T>
__global__ void logSoftmaxKernel(const T* logits, float* logProbs, std::int64_t vocab) {
    __shared__ float scratchMax[32], scratchSum[32];
    const std::int64_t row = blockIdx.x;
    const T* x = logits + row * vocab;
    float* lp = logProbs + row * vocab;
    MaxSum ms;
    for (std::int64_t c = threadIdx.x; c < vocab; c += blockDim.x) ms = push(ms, toFloat(x[c]));
    ms = blockMaxSum(ms, scratchMax, scratchSum);
    const float lse = ms.max + logf(ms.sum);
    for (std::int64_t c = threadIdx.x; c < vocab; c += blockDim.x) lp[c] = toFloat(x[c]) - lse;
}

// loss = mean over rows of -logp[row, target[row]]; an out-of-range target makes it NaN.
__global__ void nllMeanKernel(const float* logProbs, const std::int64_t* targets, float* loss,
                              std::int64_t rows, std::int64_t vocab) {
    __shared__ float scratch[32];
    float acc = 0.0f;
    for (std::int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
        const std::int64_t tg = targets[r];
        acc += (tg >= 0 && tg < vocab) ? -logProbs[r * vocab + tg] : NAN;
    }
    const float total = blockSum(acc, scratch);
    if (threadIdx.x == 0) *loss = total / float(rows);
}

// Blocks stride over rows, threads over the vocabulary: the target is read once per row and
// no element index is divided.
template <typename T>
__global__ void crossEntropyBackwardKernel(const float* logProbs, const std::int64_t* targets,
                                           T* dLogits, std::int64_t rows, std::int64_t vocab,
                                           float scale) {
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const std::int64_t target = targets[r];
        const float* lp = logProbs + r * vocab;
        T* d = dLogits + r * vocab;
        for (std::int64_t c = threadIdx.x; c < vocab; c += blockDim.x) {
            const float g = expf(lp[c]) - (c == target ? 1.0f : 0.0f);
            d[c] = fromFloat<T>(toFloat(d[c]) + scale * g);
        }
    }
}

template <typename T>
__global__ void mseForwardKernel(const T* x, const T* target, float* loss, std::int64_t n) {
    __shared__ float scratch[32];
    float acc = 0.0f;
    for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const float d = toFloat(x[i]) - toFloat(target[i]);
        acc += d * d;
    }
    const float total = blockSum(acc, scratch);
    if (threadIdx.x == 0) *loss = total / float(n);
}

template <typename T>
__global__ void mseBackwardKernel(const T* x, const T* target, T* dx, std::int64_t n, float scale) {
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
        dx[i] = fromFloat<T>(toFloat(dx[i]) + scale * (toFloat(x[i]) - toFloat(target[i])));
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void crossEntropyForward(DType t, const void* logits, const std::int64_t* targets, float* logProbs,
                         float* loss, std::int64_t rows, std::int64_t vocab, cudaStream_t s) {
    REMAT_REQUIRE(rows > 0 && vocab > 0, "crossEntropyForward: shape");
    REMAT_REQUIRE(rows <= 0x7fffffff, "crossEntropyForward: too many rows");
    REMAT_REQUIRE(logits && targets && logProbs && loss, "crossEntropyForward operands");
    dispatchFloat(t, "crossEntropyForward", [&](auto tag) {
        using T = decltype(tag);
        logSoftmaxKernel<T>
            <<<unsigned(rows), kRowBlock, 0, s>>>(static_cast<const T*>(logits), logProbs, vocab);
    });
    REMAT_LAUNCH_CHECK("logSoftmaxKernel");
    nllMeanKernel<<<1, kReduceBlock, 0, s>>>(logProbs, targets, loss, rows, vocab);
    REMAT_LAUNCH_CHECK("nllMeanKernel");
}

void crossEntropyBackward(DType t, const float* logProbs, const std::int64_t* targets,
                          void* dLogits, std::int64_t rows, std::int64_t vocab, float seed,
                          cudaStream_t s) {
    REMAT_REQUIRE(rows > 0 && vocab > 0, "crossEntropyBackward: shape");
    REMAT_REQUIRE(logProbs && targets, "crossEntropyBackward operands");
    if (!dLogits) return;
    dispatchFloat(t, "crossEntropyBackward", [&](auto tag) {
        using T = decltype(tag);
        crossEntropyBackwardKernel<T><<<rowGrid(rows), kBlock, 0, s>>>(
            logProbs, targets, static_cast<T*>(dLogits), rows, vocab, seed / float(rows));
    });
    REMAT_LAUNCH_CHECK("crossEntropyBackwardKernel");
}

void mseForward(DType t, const void* x, const void* target, float* loss, std::int64_t n,
                cudaStream_t s) {
    REMAT_REQUIRE(n > 0 && x && target && loss, "mseForward");
    dispatchFloat(t, "mseForward", [&](auto tag) {
        using T = decltype(tag);
        mseForwardKernel<T><<<1, kReduceBlock, 0, s>>>(static_cast<const T*>(x),
                                                       static_cast<const T*>(target), loss, n);
    });
    REMAT_LAUNCH_CHECK("mseForwardKernel");
}

void mseBackward(DType t, const void* x, const void* target, void* dx, std::int64_t n, float seed,
                 cudaStream_t s) {
    REMAT_REQUIRE(n > 0 && x && target, "mseBackward");
    if (!dx) return;
    dispatchFloat(t, "mseBackward", [&](auto tag) {
        using T = decltype(tag);
        mseBackwardKernel<T><<<gridFor(n, kBlock), kBlock, 0, s>>>(
            static_cast<const T*>(x), static_cast<const T*>(target), static_cast<T*>(dx), n,
            2.0f * seed / float(n));
    });
    REMAT_LAUNCH_CHECK("mseBackwardKernel");
}

}  // namespace remat::gpu::cuda
