// The GPU backend as a CPU-compiled program sees it: plain C++ (no GPU headers), so a program
// built with the host compiler (the blockvec CLI, the tests) can run kernels on the GPU next to
// the interpreter. The definitions come from libblockvec_gpu: built by nvcc (or hipcc) when the
// project is configured with a GPU compiler, else a stub whose available() is false.
//
// Each entry point takes host arrays, copies them to the device, runs the kernel from kernels/
// (the same source the interpreter runs), copies the outputs back and returns the kernel's device
// time in milliseconds. Errors (no device, a failed HIP/CUDA call) throw std::runtime_error with
// the failing call named.
#pragma once
#include <cstdint>
#include <string>

namespace bv::gpu {

enum class dtype_id : int { f32, f16, bf16 };
// 16-bit floats cross this interface as their bits (Eigen::half / bv::half on the CPU side).

// Whether this program was built with a GPU backend at all.
bool built();
// Whether kernels can run on a GPU now: built with one, a device is present, and BV_INTERPRET
// is not set to a non-zero value (as TRITON_INTERPRET=1 forces the interpreter).
bool available();
// One line: the device (name, architecture, multiprocessors), or why none can be used.
std::string describe();

// out = x + y over n elements (add_kernel).
double add(dtype_id t, const void* x, const void* y, void* out, int64_t n);
// out = x over n elements (copy_kernel).
double copy(dtype_id t, const void* x, void* out, int64_t n);
// Row-wise softmax of a contiguous rows x cols matrix (softmax_kernel, or softmax_looped_kernel
// for rows longer than 8192).
double softmax(dtype_id t, const void* x, void* out, int rows, int cols);
// c = a @ b for contiguous row-major a (M x K), b (K x N); c (M x N) of dtype `out`, f32 or t.
double matmul(dtype_id t, dtype_id out, const void* a, const void* b, void* c, int M, int N, int K);

// The library kernels (src/host_api_rows.cu, host_api_attention.cu, host_api_products.cu,
// host_api_backward.cu; their launchers and configurations in kernels/).
// Contiguous row-major arrays; f32 and f16 (bf16 throws: not instantiated in this build); the
// fp32 statistics (rstd, mean, lse, loss) are float arrays.
// y = rmsnorm(x) * w over rows of x [rows, cols]; rstd [rows].
double rmsnorm_fwd(dtype_id t, const void* x, const void* w, void* y, float* rstd, int rows,
                   int cols, float eps);
// h = x + res; y = rmsnorm(h) * w; rstd [rows].
double add_rmsnorm_fwd(dtype_id t, const void* x, const void* res, const void* w, void* h, void* y,
                       float* rstd, int rows, int cols, float eps);
// y = layernorm(x) * w + b; mean, rstd [rows].
double layernorm_fwd(dtype_id t, const void* x, const void* w, const void* b, void* y, float* mean,
                     float* rstd, int rows, int cols, float eps);
// y [rows, n] = act(x[:, :n]) * x[:, n:] for x [rows, 2n]; gelu: GELU(tanh), else SiLU.
double act_mul_fwd(dtype_id t, bool gelu, const void* x, void* y, int rows, int n);
// dx [rows, 2n] from dy [rows, n] and x [rows, 2n].
double act_mul_bwd(dtype_id t, bool gelu, const void* dy, const void* x, void* dx, int rows, int n);
// out = dropout(x, p, seed) over n elements (the interpreter's mask for the same seed).
double dropout(dtype_id t, const void* x, void* out, int64_t n, float p, int seed);
// loss, lse [rows] from logits x [rows, v] and targets [rows] (negative: ignored).
double cross_entropy_fwd(dtype_id t, const void* x, const int32_t* target, float* loss, float* lse,
                         int rows, int v);
// dx [rows, v] from x, targets, the forward's lse and dloss [rows].
double cross_entropy_bwd(dtype_id t, const void* x, const int32_t* target, const float* lse,
                         const float* dloss, void* dx, int rows, int v);
// o [B, H, S, D] = softmax(q k^T / sqrt(D) [+ causal]) v; lse [B*H, S]. f16 or bf16, D = 64 or
// 128 (tiles and warps by target: kernels/bv/kernels/attention.hpp's attention_fwd_configs).
double attention_fwd(dtype_id t, const void* q, const void* k, const void* v, void* o, float* lse,
                     int B, int H, int S, int D, bool causal);
// c [M, N] = gelu_tanh(a @ b + bias) (matmul_bias_act_kernel, GELU epilogue); f32 or f16, c of
// the inputs' dtype.
double matmul_bias_gelu(dtype_id t, const void* a, const void* b, const void* bias, void* c, int M,
                        int N, int K);
// Direct NCHW conv2d with stride and padding: out [n, oc, oh, ow] from x [n, c, h, w],
// w [oc, c, kh, kw], bias [oc]; oh = (h + 2 ph - kh) / sh + 1, likewise ow. f32 or f16.
double conv2d(dtype_id t, const void* x, const void* w, const void* bias, void* out, int n, int c,
              int h, int wd, int oc, int kh, int kw, int sh, int sw, int ph, int pw);
// Backward kernels. rstd, mean, lse: the forward's fp32 statistics.
// dx [rows, cols], dw [cols] (dtype t) for y = rmsnorm(x) * w. f32 or f16.
double rmsnorm_bwd(dtype_id t, const void* dy, const void* x, const void* w, const float* rstd,
                   void* dx, void* dw, int rows, int cols);
// out [n] = the column sums of partial [g, n], f32: the second stage of the norms' backward
// reductions, on its own.
double col_sum(const float* partial, float* out, int g, int n);
// dx, dw, db for y = layernorm(x) * w + b; lock: the spin-lock reduction, else two-stage.
double layernorm_bwd(dtype_id t, bool lock, const void* dy, const void* x, const void* w,
                     const float* mean, const float* rstd, void* dx, void* dw, void* db, int rows,
                     int cols);
// dq, dk, dv [B, H, S, D] from q, k, v, the forward's o and lse [B*H, S], and dout. f16, D = 64 or
// 128.
double attention_bwd(dtype_id t, const void* q, const void* k, const void* v, const void* o,
                     const float* lse, const void* dout, void* dq, void* dk, void* dv, int B, int H,
                     int S, int D, bool causal);

// Split-K matmul: c [M, N] fp32 = a [M, K] @ b [K, N] with K cut into
// `splits` slices whose partial tiles are added into c with atomic adds (c zeroed by a first
// launch, as kernels::matmul_splitk does). f32, f16 or bf16 inputs; 64x64x32 tiles, 4 warps.
double matmul_splitk(dtype_id t, const void* a, const void* b, float* c, int M, int N, int K,
                     int splits);
// RoPE (kernels/bv/kernels/rope.hpp), D = 64 or 128; cos and sin tables [S, D/2] fp32.
// split: dst [H, S, D] = rope(src[:, col0 : col0 + H * D]) for src [S, src_stride].
double rope_split(dtype_id t, const void* src, void* dst, const float* cos, const float* sin, int S,
                  int H, int D, int src_stride, int col0, float sign);
// merge: dst[:, col0 : col0 + H * D] = rope(src [H, S, D]) for dst [S, dst_stride]; dst is read
// first (its other columns are kept) and written back whole.
double rope_merge(dtype_id t, const void* src, void* dst, const float* cos, const float* sin, int S,
                  int H, int D, int dst_stride, int col0, float sign);

// The TinyLlama-style decoder block of samples/transformer (RMSNorm, RoPE causal attention,
// SwiGLU, residuals; head dim 64), f32, forward and backward on the GPU, composed by the same
// host code as on the interpreter (samples/transformer/block.hpp over the launchers in kernels/).
// Inputs and results are host buffers, row-major, in the shapes block.hpp gives them.
struct transformer_block_io {
  int64_t seq = 0, heads = 0, ffn = 0;
  float eps = 1e-6f;
  const float *x = nullptr, *dout = nullptr;
  const float *attn_norm = nullptr, *wqkv = nullptr, *wo = nullptr, *mlp_norm = nullptr,
              *w_gate_up = nullptr, *w_down = nullptr;
  float *out = nullptr, *dx = nullptr;
  float *d_attn_norm = nullptr, *d_wqkv = nullptr, *d_wo = nullptr, *d_mlp_norm = nullptr,
        *d_w_gate_up = nullptr, *d_w_down = nullptr;
};
// Runs the block once and copies every result back; with samples > 0, then times `samples` more
// forward + backward passes over the same device tensors. Returns milliseconds of device time: of
// the one run, or the fastest timed one.
double transformer_block(const transformer_block_io& io, int samples = 0);

}  // namespace bv::gpu
