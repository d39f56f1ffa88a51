// Token + learned position embedding, forward and backward. Backward is deterministic without
// atomics or scratch (the program declares none for this op): the block of token position n
// owns vocabulary row tokens[n] only when n is that id's first occurrence in the micro-batch,
// and then sums the output gradients of every occurrence in position order. Finding the owner
// and the occurrences costs O(N^2) coalesced reads of L2-resident int64s (8192 tokens: 34M
// per pass), small beside the step's GEMMs.
// The position table's gradient is a fixed-order column sum over the samples.

#include "launchers.h"
#include "reduce.cuh"
#include "storage.cuh"

namespace remat::gpu::cuda {

namespace {

constexpr int kBlock = 256;

// ---- kernels -------------------------------------------------------------------------------

// Blocks stride over token rows, threads over the embedding width.
template <typename T>
__global__ void embeddingForwardKernel(const std::int64_t* tokens, const T* wte, const T* wpe, T* y,
                                       std::int64_t rows, std::int64_t tokensPerSample,
                                       std::int64_t dim, std::int64_t vocab) {
    for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
        const std::int64_t tok = tokens[row];
        const bool valid = tok >= 0 && tok < vocab;
        const T* te = wte + (valid ? tok : 0) * dim;
        const T* pe = wpe ? wpe + (row % tokensPerSample) * dim : nullptr;
        T* out = y + row * dim;
        for (std::int64_t c = threadIdx.x; c < dim; c += blockDim.x) {
            float v = 0.0f;
            if (valid) v = toFloat(te[c]) + (pe ? toFloat(pe[c]) : 0.0f);
            out[c] = fromFloat<T>(v);
        }
    }
}

// Positions of tok at or after n, in order, gathered once per block so the channel loop reads
// only them; a token repeated more than kMaxMatches times falls back to scanning every position.
constexpr int kMaxMatches = 2048;

template <typename T>
__global__ void embeddingBackwardTokensKernel(const std::int64_t* tokens, const T* dy, T* dwte,
                                              std::int64_t rows, std::int64_t dim,
                                              std::int64_t vocab) {
    __shared__ int matches[kMaxMatches];
    __shared__ int warpCounts[kBlock / 32];
    __shared__ int total;
    const std::int64_t n = blockIdx.x;
    const std::int64_t tok = tokens[n];
    if (tok < 0 || tok >= vocab) return;
    int earlier = 0;
    for (std::int64_t j = threadIdx.x; j < n && !earlier; j += blockDim.x)
        earlier = tokens[j] == tok;
    if (__syncthreads_or(earlier)) return;  // an earlier block owns this vocabulary row

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    for (std::int64_t base = n; base < rows; base += blockDim.x) {
        const std::int64_t j = base + threadIdx.x;
        const bool match = j < rows && tokens[j] == tok;
        const unsigned ballot = __ballot_sync(0xffffffffu, match);
        if (lane == 0) warpCounts[warp] = __popc(ballot);
        __syncthreads();
        if (match) {
            int offset = total + __popc(ballot & ((1u << lane) - 1u));
            for (int w = 0; w < warp; ++w) offset += warpCounts[w];
            if (offset < kMaxMatches) matches[offset] = int(j);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int w = 0; w < kBlock / 32; ++w) total += warpCounts[w];
        __syncthreads();
    }
    const int count = total;
    for (std::int64_t c = threadIdx.x; c < dim; c += blockDim.x) {
        float acc = 0.0f;
        if (count <= kMaxMatches) {
            for (int k = 0; k < count; ++k) acc += toFloat(dy[std::int64_t(matches[k]) * dim + c]);
        } else {
            for (std::int64_t j = n; j < rows; ++j)
                if (tokens[j] == tok) acc += toFloat(dy[j * dim + c]);
        }
        dwte[tok * dim + c] = fromFloat<T>(toFloat(dwte[tok * dim + c]) + acc);
    }
}

// dwpe[p, c] += sum over samples b of dy[b, p, c], in sample order.
template <typename T>
__global__ void embeddingBackwardPositionsKernel(const T* dy, T* dwpe, std::int64_t batch,
                                                 std::int64_t tokensPerSample, std::int64_t dim) {
    const std::int64_t n = tokensPerSample * dim;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        float acc = 0.0f;
        for (std::int64_t b = 0; b < batch; ++b) acc += toFloat(dy[b * n + i]);
        dwpe[i] = fromFloat<T>(toFloat(dwpe[i]) + acc);
    }
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

void embeddingForward(DType t, const std::int64_t* tokens, const void* wte, const void* wpe,
                      void* y, std::int64_t batch, std::int64_t tokensPerSample, std::int64_t dim,
                      std::int64_t vocab, cudaStream_t s) {
    REMAT_REQUIRE(batch >= 0 && tokensPerSample > 0 && dim > 0 && vocab > 0, "embeddingForward");
    REMAT_REQUIRE(batch == 0 || (tokens && wte && y), "embeddingForward operands");
    const std::int64_t rows = batch * tokensPerSample;
    if (rows == 0) return;
    dispatchFloat(t, "embeddingForward", [&](auto tag) {
        using T = decltype(tag);
        embeddingForwardKernel<T><<<rowGrid(rows), kBlock, 0, s>>>(
            tokens, static_cast<const T*>(wte), static_cast<const T*>(wpe), static_cast<T*>(y),
            rows, tokensPerSample, dim, vocab);
    });
    REMAT_LAUNCH_CHECK("embeddingForwardKernel");
}

void embeddingBackward(DType t, const std::int64_t* tokens, const void* dy, void* dwte, void* dwpe,
                       std::int64_t batch, std::int64_t tokensPerSample, std::int64_t dim,
                       std::int64_t vocab, cudaStream_t s) {
    REMAT_REQUIRE(batch >= 0 && tokensPerSample > 0 && dim > 0 && vocab > 0, "embeddingBackward");
    REMAT_REQUIRE(batch == 0 || (tokens && dy), "embeddingBackward operands");
    const std::int64_t rows = batch * tokensPerSample;
    REMAT_REQUIRE(rows <= 0x7fffffff, "embeddingBackward: too many tokens");
    if (rows == 0) return;
    dispatchFloat(t, "embeddingBackward", [&](auto tag) {
        using T = decltype(tag);
        if (dwte) {
            embeddingBackwardTokensKernel<T><<<unsigned(rows), kBlock, 0, s>>>(
                tokens, static_cast<const T*>(dy), static_cast<T*>(dwte), rows, dim, vocab);
            REMAT_LAUNCH_CHECK("embeddingBackwardTokensKernel");
        }
        if (dwpe) {
            embeddingBackwardPositionsKernel<T>
                <<<gridFor(tokensPerSample * dim, kBlock), kBlock, 0, s>>>(
                    static_cast<const T*>(dy), static_cast<T*>(dwpe), batch, tokensPerSample, dim);
            REMAT_LAUNCH_CHECK("embeddingBackwardPositionsKernel");
        }
    });
}

}  // namespace remat::gpu::cuda
