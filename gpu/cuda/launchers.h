// The launchers of the CUDA kernels: the one door from the CUDA backend to the GPU code. Each
// family lives in its own .cu file (elementwise, softmax, norm, dropout, embedding, attention,
// gemm, loss, conv, optimizer) with a kernels section and a launchers section. Conventions shared by
// every launcher: pointers are device pointers into buffers the program allocated; `t` is the
// storage dtype of the floating operands (fp32, bf16 or fp16, always computed in fp32); forward
// launchers overwrite their outputs; backward launchers ACCUMULATE (+=) into every gradient
// they are given, because the program binds fan-out gradients to one buffer; a null gradient
// pointer means "no gradient wanted". Every launcher checks its preconditions and the launch
// (CudaError on failure) and enqueues on the given stream without synchronising. No launcher
// allocates memory: scratch comes from the program's workspace buffers or from the backend
// (the convolution's columns), passed in.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

#include "backend.h"
#include "conv_plan.h"
#include "gemm_plan.h"
#include "graph.h"
#include "types.h"

namespace remat::gpu::cuda {

// Whether this build holds a kernel image the current device can run: cudaSuccess, or the
// error a launch would fail with (cudaErrorNoKernelImageForDevice on an unsupported arch).
cudaError_t probeKernelImage();

// ---- elementwise.cu ------------------------------------------------------------------------
// kind is one of Relu, Gelu (tanh approximation), Silu, Tanh, Sigmoid. y may alias x.
void activationForward(OpKind kind, DType t, const void* x, void* y, std::int64_t n,
                       cudaStream_t s);
// `saved` is what the op saved: the output for relu/tanh/sigmoid, the input for gelu/silu.
void activationBackward(OpKind kind, DType t, const void* saved, const void* dy, void* dx,
                        std::int64_t n, cudaStream_t s);
void addForward(DType t, const void* a, const void* b, void* y, std::int64_t n, cudaStream_t s);
void mulForward(DType t, const void* a, const void* b, void* y, std::int64_t n, cudaStream_t s);
void mulBackward(DType t, const void* a, const void* b, const void* dy, void* da, void* db,
                 std::int64_t n, cudaStream_t s);
// dst += src.
void accumulate(DType t, const void* src, void* dst, std::int64_t n, cudaStream_t s);
// y[r, c] += bias[c].
void biasAdd(DType t, void* y, const void* bias, std::int64_t rows, std::int64_t cols,
             cudaStream_t s);
// y[r, c] = row[c].
void rowBroadcast(DType t, const void* row, void* y, std::int64_t rows, std::int64_t cols,
                  cudaStream_t s);
// dst[c] += sum over r of x[r, c], summed in a fixed order (bit-reproducible).
void columnSum(DType t, const void* x, void* dst, std::int64_t rows, std::int64_t cols,
               cudaStream_t s);
// Conversions between fp32 and a storage dtype (mixed-precision master weights).
void castFromF32(DType t, const float* src, void* dst, std::int64_t n, cudaStream_t s);
void castToF32(DType t, const void* src, float* dst, std::int64_t n, cudaStream_t s);

// ---- softmax.cu ----------------------------------------------------------------------------
// Row softmax over the last dimension; -inf entries (masked scores) get probability 0.
void softmaxForward(DType t, const void* x, void* y, std::int64_t rows, std::int64_t cols,
                    cudaStream_t s);
void softmaxBackward(DType t, const void* y, const void* dy, void* dx, std::int64_t rows,
                     std::int64_t cols, cudaStream_t s);

// ---- norm.cu -------------------------------------------------------------------------------
// mean and rstd are fp32, one per row. Weight/bias gradients are reduced over rows in a fixed
// order, so they are bit-reproducible (no atomics).
void layerNormForward(DType t, const void* x, const void* w, const void* b, void* y, float* mean,
                      float* rstd, std::int64_t rows, std::int64_t cols, float eps, cudaStream_t s);
void layerNormBackward(DType t, const void* x, const float* mean, const float* rstd, const void* w,
                       const void* dy, void* dx, void* dw, void* db, std::int64_t rows,
                       std::int64_t cols, cudaStream_t s);
void rmsNormForward(DType t, const void* x, const void* w, void* y, float* rstd, std::int64_t rows,
                    std::int64_t cols, float eps, cudaStream_t s);
void rmsNormBackward(DType t, const void* x, const float* rstd, const void* w, const void* dy,
                     void* dx, void* dw, std::int64_t rows, std::int64_t cols, cudaStream_t s);

// ---- dropout.cu ----------------------------------------------------------------------------
// The mask is a pure function of (seed, op, draw, element index), so a recompute with the same
// draw reproduces it. Kept elements are scaled by 1/(1-p); mask bytes are 1 (kept) or 0.
// `stream` is rng::dropoutStream(seed, op id, rng draw) (gpu/counter_rng.h): the kernel draws
// the very bits the CPU reference draws.
void dropoutForward(DType t, const void* x, void* y, std::uint8_t* mask, std::int64_t n, float p,
                    std::uint64_t stream, cudaStream_t s);
void dropoutBackward(DType t, const std::uint8_t* mask, const void* dy, void* dx, std::int64_t n,
                     float p, cudaStream_t s);

// ---- embedding.cu --------------------------------------------------------------------------
// y[b, i, :] = wte[tokens[b, i], :] + wpe[i, :] (wpe may be null). Token ids outside
// [0, vocab) produce a zero row and no gradient.
void embeddingForward(DType t, const std::int64_t* tokens, const void* wte, const void* wpe,
                      void* y, std::int64_t batch, std::int64_t tokensPerSample, std::int64_t dim,
                      std::int64_t vocab, cudaStream_t s);
// Deterministic: each vocabulary row's gradient is summed by one thread block in token order.
void embeddingBackward(DType t, const std::int64_t* tokens, const void* dy, void* dwte, void* dwpe,
                       std::int64_t batch, std::int64_t tokensPerSample, std::int64_t dim,
                       std::int64_t vocab, cudaStream_t s);

// ---- gemm.cu -------------------------------------------------------------------------------
// Row-major GEMMs through cuBLAS with fp32 accumulation (CUBLAS_COMPUTE_32F; plain fp32, no
// TF32, for fp32 storage). The handle carries the stream and the workspace.
// Linear: x [rows, in], weight [out, in], bias [out] -> y [rows, out].
void linearForward(cublasHandle_t h, DType t, const void* x, const void* w, const void* b, void* y,
                   std::int64_t rows, std::int64_t in, std::int64_t out, cudaStream_t s);
void linearBackward(cublasHandle_t h, DType t, const void* x, const void* w, const void* dy,
                    void* dx, void* dw, void* db, std::int64_t rows, std::int64_t in,
                    std::int64_t out, cudaStream_t s);
// Executes a plan of gemm_plan.h; `operands` holds each role's device pointer (null when the
// plan does not use it).
using GemmOperands = std::array<void*, kGemmOperandCount>;
void runGemms(cublasHandle_t h, DType t, const std::vector<GemmCall>& calls,
              const GemmOperands& operands);
// Column-major building blocks (cuBLAS's native order).
void gemm(cublasHandle_t h, DType t, bool transA, bool transB, std::int64_t m, std::int64_t n,
          std::int64_t k, float alpha, const void* a, std::int64_t lda, const void* b,
          std::int64_t ldb, float beta, void* c, std::int64_t ldc);
void gemmStridedBatched(cublasHandle_t h, DType t, bool transA, bool transB, std::int64_t m,
                        std::int64_t n, std::int64_t k, float alpha, const void* a,
                        std::int64_t lda, std::int64_t strideA, const void* b, std::int64_t ldb,
                        std::int64_t strideB, float beta, void* c, std::int64_t ldc,
                        std::int64_t strideC, std::int64_t batch);

// ---- attention.cu --------------------------------------------------------------------------
// Layouts of gemm_plan.h (AttnShape). kExp / vExp are null when kvHeads == heads.
void attnScoresForward(cublasHandle_t h, DType t, const void* qkv, const void* kExp, void* scores,
                       const AttnShape& a, cudaStream_t s);
void attnScoresBackward(cublasHandle_t h, DType t, const void* qkv, const void* kExp,
                        const void* dScores, void* dQkv, void* dKExp, const AttnShape& a,
                        cudaStream_t s);
void attnContextForward(cublasHandle_t h, DType t, const void* probs, const void* qkv,
                        const void* vExp, void* y, const AttnShape& a, cudaStream_t s);
void attnContextBackward(cublasHandle_t h, DType t, const void* probs, const void* qkv,
                         const void* vExp, const void* dy, void* dProbs, void* dQkv, void* dVExp,
                         const AttnShape& a, cudaStream_t s);
void expandKvForward(DType t, const void* qkv, void* kExp, void* vExp, const AttnShape& a,
                     cudaStream_t s);
void expandKvBackward(DType t, const void* dKExp, const void* dVExp, void* dQkv, const AttnShape& a,
                      cudaStream_t s);

// ---- flash_attention.cu ---------------------------------------------------------------------
// Fused attention (FlashAttn): qkv [B, T, (H + 2 KV) D] -> out [B, T, H D] and the fp32
// log-sum-exp [B, H, T]; backward accumulates into dQkv from qkv, out, lse and dOut, recomputing
// the scores. Head dimensions up to kMaxHeadDim. With dropout (p > 0) forward writes `draw` to
// the int64 rngState and backward reads the draw back from it on the device.
inline constexpr std::int64_t kMaxHeadDim = 256;
struct FlashDropout {
    float p = 0.0f;
    std::uint64_t seed = 0;
    std::uint32_t opId = 0;
    std::uint32_t draw = 0;  // forward only
};
void flashAttnForward(DType t, const void* qkv, void* out, float* lse, std::int64_t* rngState,
                      const AttnShape& a, const FlashDropout& drop, cudaStream_t s);
void flashAttnBackward(DType t, const void* qkv, const void* out, const float* lse,
                       const std::int64_t* rngState, const void* dOut, void* dQkv,
                       const AttnShape& a, const FlashDropout& drop, cudaStream_t s);

// ---- rotary.cu -----------------------------------------------------------------------------
// Rotary position embeddings (rotary_math.h) on the q and k heads of qkv [B, T, (H + 2 KV) D],
// in place (forward: x == y allowed); backward adds the inverse rotation of dy into dx.
struct RotaryShape {
    std::int64_t batch = 0, tokens = 0, heads = 0, kvHeads = 0, headDim = 0, dims = 0;
    double base = 10000.0;
};
void rotaryForward(DType t, const void* x, void* y, const RotaryShape& r, cudaStream_t s);
void rotaryBackward(DType t, const void* dy, void* dx, const RotaryShape& r, cudaStream_t s);

// ---- loss.cu -------------------------------------------------------------------------------
// Cross-entropy on an fp32 log-softmax of the logits, mean over rows; loss is one fp32 value.
// `seed` is the loss gradient (1 / accumulation steps).
void crossEntropyForward(DType t, const void* logits, const std::int64_t* targets, float* logProbs,
                         float* loss, std::int64_t rows, std::int64_t vocab, cudaStream_t s);
void crossEntropyBackward(DType t, const float* logProbs, const std::int64_t* targets,
                          void* dLogits, std::int64_t rows, std::int64_t vocab, float seed,
                          cudaStream_t s);
// Mean squared error over all elements.
void mseForward(DType t, const void* x, const void* target, float* loss, std::int64_t n,
                cudaStream_t s);
void mseBackward(DType t, const void* x, const void* target, void* dx, std::int64_t n, float seed,
                 cudaStream_t s);

// ---- conv.cu -------------------------------------------------------------------------------
// NCHW. Convolution x[n, c, h, w] * w[o, c/groups, k, k] (+ b[o]) -> y[n, o, ho, wo], square
// kernel, stride, zero padding, dilation and channel groups, as im2col + cuBLAS (conv_plan.h).
// `columns` is scratch of convColumnElements(g) elements of dtype t (unused, may be null, for a
// direct convolution); the caller provides it.
void conv2dForward(cublasHandle_t h, DType t, const void* x, const void* w, const void* b,
                   void* y, void* columns, const ConvShape& g, cudaStream_t s);
void conv2dBackward(cublasHandle_t h, DType t, const void* x, const void* w, const void* dy,
                    void* dx, void* dw, void* db, void* columns, const ConvShape& g,
                    cudaStream_t s);
// Training-mode batch norm per channel over (n, plane); mean and invstd fp32 [c], biased
// variance; weight and bias in the activations' dtype. With runMean and runVar (fp32 [c]) the
// batch's mean and unbiased variance are folded into them with `momentum`; null leaves them.
void batchNorm2dForward(DType t, const void* x, const void* w, const void* b, void* y, float* mean,
                        float* invstd, float* runMean, float* runVar, float momentum,
                        std::int64_t n, std::int64_t c, std::int64_t plane, float eps,
                        cudaStream_t s);
void batchNorm2dBackward(DType t, const void* x, const float* mean, const float* invstd,
                         const void* w, const void* dy, void* dx, void* dw, void* db,
                         std::int64_t n, std::int64_t c, std::int64_t plane, cudaStream_t s);
// Max pooling over `planes` planes of h x w, -inf padding; indices are h * w + w positions in
// the input plane of each window's first maximum.
struct PoolShape {
    std::int64_t planes = 0, h = 0, w = 0, ho = 0, wo = 0;
    std::int64_t k = 1, stride = 1, pad = 0;
};
void maxPool2dForward(DType t, const void* x, void* y, std::int64_t* indices, const PoolShape& g,
                      cudaStream_t s);
void maxPool2dBackward(DType t, const std::int64_t* indices, const void* dy, void* dx,
                       const PoolShape& g, cudaStream_t s);
// y[p] = mean of plane p (`plane` elements each).
void globalAvgPoolForward(DType t, const void* x, void* y, std::int64_t planes,
                          std::int64_t plane, cudaStream_t s);
void globalAvgPoolBackward(DType t, const void* dy, void* dx, std::int64_t planes,
                           std::int64_t plane, cudaStream_t s);

// ---- optimizer.cu --------------------------------------------------------------------------
// The update rules of gpu/README.md (sgd; momentum; adam; adamw with decoupled weight decay),
// hyper-parameters from backend.h, `step` 1-based for Adam's bias correction. Updates `param`
// (storage dtype t) from `grad` (dtype t). With `master` (fp32) the update is
// applied to the master weights and the parameter is their rounded copy; m1/m2 are the fp32
// states the optimizer needs (null otherwise).
void optimizerStep(Optimizer o, DType t, void* param, const void* grad, float* master, float* m1,
                   float* m2, std::int64_t n, const OptimizerHyperParams& hyper, std::int64_t step,
                   cudaStream_t s);

}  // namespace remat::gpu::cuda
