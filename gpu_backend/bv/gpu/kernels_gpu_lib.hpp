// GPU launch configurations of the library kernels in kernels/ (RMSNorm, LayerNorm, the gated
// activations, dropout, cross-entropy, attention), on device tensors. GPU-compiled translation
// units only: used by src/host_api_lib.cu and bench/gpu/bench_gpu_lib.cu. The kernel sources are
// the interpreter's; only the block widths and warps per program are chosen here.
#pragma once
#include <cmath>
#include <stdexcept>
#include <string>

#include "bv/bv.hpp"
#include "bv/gpu/kernels_gpu.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/conv2d.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/dropout.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/rmsnorm.hpp"

namespace bv::gpu::kernels {

namespace detail {
// One program per row, the whole row in registers: the smallest block in {256, 1024, 4096,
// 8192} that holds n, with 2, 4, 8, 16 warps (as softmax): 4 to 16 elements per thread.
template <class F>
launch_result with_row_block(int n, const char* kernel, F&& f) {
  if (n <= 256) return f(std::integral_constant<int, 256>{}, std::integral_constant<int, 2>{});
  if (n <= 1024) return f(std::integral_constant<int, 1024>{}, std::integral_constant<int, 4>{});
  if (n <= 4096) return f(std::integral_constant<int, 4096>{}, std::integral_constant<int, 8>{});
  if (n <= 8192) return f(std::integral_constant<int, 8192>{}, std::integral_constant<int, 16>{});
  throw std::invalid_argument(std::string(kernel) + ": rows of " + std::to_string(n) +
                              " elements do not fit one 8192-wide block");
}
}  // namespace detail

// y = rmsnorm(x) * w over rows of a contiguous [m, n] x; rstd [m] fp32.
template <class T>
launch_result rmsnorm_fwd(const device_tensor<T>& x, const device_tensor<T>& w, device_tensor<T>& y,
                          device_tensor<float>& rstd, float eps = 1e-6f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return detail::with_row_block(n, "rmsnorm_fwd", [&](auto b, auto wv) {
    return launch<bv::kernels::rmsnorm_fwd_kernel<T, decltype(b)::value, decltype(wv)::value>>(
        grid(m), x, w, y, rstd, n, n, n, eps);
  });
}

// h = x + res; y = rmsnorm(h) * w.
template <class T>
launch_result add_rmsnorm_fwd(const device_tensor<T>& x, const device_tensor<T>& res,
                              const device_tensor<T>& w, device_tensor<T>& h, device_tensor<T>& y,
                              device_tensor<float>& rstd, float eps = 1e-6f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return detail::with_row_block(n, "add_rmsnorm_fwd", [&](auto b, auto wv) {
    return launch<bv::kernels::add_rmsnorm_fwd_kernel<T, decltype(b)::value, decltype(wv)::value>>(
        grid(m), x, res, w, h, y, rstd, n, n, n, n, n, eps);
  });
}

// y = layernorm(x) * w + b; mean and rstd [m] fp32.
template <class T>
launch_result layernorm_fwd(const device_tensor<T>& x, const device_tensor<T>& w,
                            const device_tensor<T>& b, device_tensor<T>& y,
                            device_tensor<float>& mean, device_tensor<float>& rstd,
                            float eps = 1e-5f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return detail::with_row_block(n, "layernorm_fwd", [&](auto blk, auto wv) {
    return launch<bv::kernels::layernorm_fwd_kernel<T, decltype(blk)::value, decltype(wv)::value>>(
        grid(m), x, w, b, y, mean, rstd, n, n, n, eps);
  });
}

inline constexpr int act_mul_block = 1024;
// y [m, n] = act(x[:, :n]) * x[:, n:] for a contiguous x [m, 2n].
template <bv::kernels::gate_act A, class T>
launch_result act_mul_fwd(const device_tensor<T>& x, device_tensor<T>& y) {
  const int m = static_cast<int>(y.size(0)), n = static_cast<int>(y.size(1));
  return launch<bv::kernels::act_mul_fwd_kernel<T, A, act_mul_block, 4>>(
      grid(m, cdiv(n, act_mul_block)), x, y, 2 * n, n, n);
}
// dx [m, 2n] = [dgate | dup] from dy [m, n] and x [m, 2n].
template <bv::kernels::gate_act A, class T>
launch_result act_mul_bwd(const device_tensor<T>& dy, const device_tensor<T>& x,
                          device_tensor<T>& dx) {
  const int m = static_cast<int>(dy.size(0)), n = static_cast<int>(dy.size(1));
  return launch<bv::kernels::act_mul_bwd_kernel<T, A, act_mul_block, 4>>(
      grid(m, cdiv(n, act_mul_block)), dy, x, dx, n, 2 * n, 2 * n, n);
}

// out = dropout(x, p, seed): the mask is a function of (seed, element index) alone, so it is the
// interpreter's for the same seed whatever the block width.
template <class T>
launch_result dropout(const device_tensor<T>& x, device_tensor<T>& out, float p, int seed) {
  constexpr int B = 2048;
  const int n = static_cast<int>(x.numel());
  return launch<bv::kernels::dropout_kernel<T, B, 4>>(grid(cdiv(n, B)), x, out, n, p, seed);
}

inline constexpr int cross_entropy_block = 2048;
// loss [m], lse [m] from logits x [m, v] and targets [m].
template <class T>
launch_result cross_entropy_fwd(const device_tensor<T>& x, const device_tensor<int32_t>& target,
                                device_tensor<float>& loss, device_tensor<float>& lse) {
  const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
  return launch<bv::kernels::cross_entropy_fwd_kernel<T, cross_entropy_block, 8>>(
      grid(m), x, target, loss, lse, v, v);
}
// dx [m, v] from the forward's lse and dloss [m].
template <class T>
launch_result cross_entropy_bwd(const device_tensor<T>& x, const device_tensor<int32_t>& target,
                                const device_tensor<float>& lse, const device_tensor<float>& dloss,
                                device_tensor<T>& dx) {
  const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
  return launch<bv::kernels::cross_entropy_bwd_kernel<T, cross_entropy_block, 8>>(
      grid(m), x, target, lse, dloss, dx, v, v, v);
}

// o = softmax(q k^T / sqrt(D) [+ causal mask]) v over contiguous [B, H, S, 64] q, k, v (16-bit);
// lse [B*H, S] fp32. 128 query rows x 64 keys per step, 8 warps: measured 4.59 ms against 5.91 ms
// for 64x64 tiles with 4 warps at 4x16x4096x64 on an H100 (docs/PERFORMANCE.md).
template <class T>
launch_result attention_fwd(const device_tensor<T>& q, const device_tensor<T>& k,
                            const device_tensor<T>& v, device_tensor<T>& o,
                            device_tensor<float>& lse, bool causal) {
  if (q.size(3) != 64)
    throw std::invalid_argument("GPU attention_fwd: head dim 64 only in this build");
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(64.0f);
  // 128 x 64 tiles, 8 warps of 16 query rows, registers capped for 2 programs per SM (16 warps:
  // the loop is latency-bound; 1.55-1.58 ms against 2.40 with 1 program per SM at 4x16x4096x64,
  // H100, 2026-11-21).
  constexpr int BM = 128, BN = 64, W = 8;
  if (causal)
    return launch_units<bv::kernels::attention_fwd_kernel<T, 64, BM, BN, true, W>, detail::units<>,
                        2>(grid(cdiv(s, BM), bh), q, k, v, o, lse, s, scale);
  return launch_units<bv::kernels::attention_fwd_kernel<T, 64, BM, BN, false, W>, detail::units<>,
                      2>(grid(cdiv(s, BM), bh), q, k, v, o, lse, s, scale);
}

// c = gelu_tanh(a @ b + bias) for contiguous a [M, K], b [K, N], bias [N]; c of a's dtype.
// 64x64x32 tiles, 4 warps, GROUP_M 8 (the interpreter's configuration).
template <class T>
launch_result matmul_bias_gelu(const device_tensor<T>& a, const device_tensor<T>& b,
                               const device_tensor<T>& bias, device_tensor<T>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  return launch<bv::kernels::matmul_bias_act_kernel<T, T, bv::kernels::epilogue::gelu_tanh, 64, 64,
                                                    32, 8, 4>>(
      grid(cdiv(M, 64) * cdiv(N, 64)), a, b, bias, c, M, N, K, K, 1, N, 1, N, 1);
}

// Direct NCHW conv2d: out [n, oc, oh, ow] from x [n, c, h, w], w [oc, c, kh, kw], bias [oc].
template <class T>
launch_result conv2d(const device_tensor<T>& x, const device_tensor<T>& w,
                     const device_tensor<T>& bias, device_tensor<T>& out, int sh, int sw, int ph,
                     int pw) {
  constexpr int BOC = 32, BP = 64, BK = 32;
  const int n = static_cast<int>(x.size(0)), c = static_cast<int>(x.size(1)),
            h = static_cast<int>(x.size(2)), wd = static_cast<int>(x.size(3));
  const int oc = static_cast<int>(w.size(0)), kh = static_cast<int>(w.size(2)),
            kw = static_cast<int>(w.size(3));
  const int oh = static_cast<int>(out.size(2)), ow = static_cast<int>(out.size(3));
  return launch<bv::kernels::conv2d_kernel<T, BOC, BP, BK, 4>>(
      grid(cdiv(oh * ow, BP), cdiv(oc, BOC), n), x, w, bias, out, c, h, wd, oc, kh, kw, oh, ow, sh,
      sw, ph, pw);
}

// Backward of the norms: dx per row and dw (db) through per-program partial rows summed by
// col_sum_kernel. Up to 256 programs for the two-stage reductions (two per SM on an H100).
template <class T>
launch_result col_sum(const device_tensor<float>& partial, device_tensor<T>& out) {
  const int g = static_cast<int>(partial.size(0)), n = static_cast<int>(partial.size(1));
  return launch<bv::kernels::col_sum_kernel<T, 32, 128, 4>>(grid(cdiv(n, 128)), partial, out, g, n);
}
inline int norm_bwd_programs(int rows) { return rows < 256 ? rows : 256; }

template <class T>
void rmsnorm_bwd(const device_tensor<T>& dy, const device_tensor<T>& x, const device_tensor<T>& w,
                 const device_tensor<float>& rstd, device_tensor<T>& dx, device_tensor<T>& dw,
                 device_tensor<float>& partial) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  const int g = static_cast<int>(partial.size(0));
  detail::with_row_block(n, "rmsnorm_bwd", [&](auto b, auto wv) {
    return launch<bv::kernels::rmsnorm_bwd_kernel<T, decltype(b)::value, decltype(wv)::value>>(
        grid(g), dy, x, w, rstd, dx, partial, n, n, n, m, n);
  });
  col_sum(partial, dw);
}

// lock: rows hash onto `groups` partial rows under atomic_cas spin locks (locks: 2 * groups int32,
// zeroed here); two-stage: one partial row per program. partial rows: [groups or programs, n].
template <class T>
void layernorm_bwd(bool lock, const device_tensor<T>& dy, const device_tensor<T>& x,
                   const device_tensor<T>& w, const device_tensor<float>& mean,
                   const device_tensor<float>& rstd, device_tensor<T>& dx, device_tensor<T>& dw,
                   device_tensor<T>& db, device_tensor<float>& dw_partial,
                   device_tensor<float>& db_partial, device_tensor<int32_t>& locks) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  const int g = static_cast<int>(dw_partial.size(0));
  if (lock) {
    locks.fill_bytes(0);
    detail::with_row_block(n, "layernorm_bwd", [&](auto b, auto wv) {
      return launch<
          bv::kernels::layernorm_bwd_lock_kernel<T, decltype(b)::value, decltype(wv)::value>>(
          grid(m), dy, x, w, mean, rstd, dx, dw_partial, db_partial, locks, n, n, n, n, g);
    });
  } else {
    detail::with_row_block(n, "layernorm_bwd", [&](auto b, auto wv) {
      return launch<
          bv::kernels::layernorm_bwd_twostage_kernel<T, decltype(b)::value, decltype(wv)::value>>(
          grid(g), dy, x, w, mean, rstd, dx, dw_partial, db_partial, n, n, n, m, n);
    });
  }
  col_sum(dw_partial, dw);
  col_sum(db_partial, db);
}

// dq, dk, dv for [B, H, S, 64] f16/bf16 from o, lse and dout: delta = rowsum(dO * O), then the
// dK/dV and dQ kernels (64x64 tiles, 4 warps, the interpreter's configuration).
template <class T>
void attention_bwd(const device_tensor<T>& q, const device_tensor<T>& k, const device_tensor<T>& v,
                   const device_tensor<T>& o, const device_tensor<float>& lse,
                   const device_tensor<T>& dout, device_tensor<T>& dq, device_tensor<T>& dk,
                   device_tensor<T>& dv, device_tensor<float>& delta, bool causal) {
  if (q.size(3) != 64)
    throw std::invalid_argument("GPU attention_bwd: head dim 64 only in this build");
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(64.0f);
  constexpr int B = 64;
  launch<bv::kernels::attention_bwd_preprocess_kernel<T, 64, B, 4>>(grid(cdiv(s, B), bh), o, dout,
                                                                    delta, s);
  auto run = [&](auto c) {
    constexpr bool C = decltype(c)::value;
    launch<bv::kernels::attention_bwd_dkdv_kernel<T, 64, B, B, C, 4>>(
        grid(cdiv(s, B), bh), q, k, v, dout, lse, delta, dk, dv, s, scale);
    launch<bv::kernels::attention_bwd_dq_kernel<T, 64, B, B, C, 4>>(grid(cdiv(s, B), bh), q, k, v,
                                                                    dout, lse, delta, dq, s, scale);
  };
  if (causal)
    run(std::true_type{});
  else
    run(std::false_type{});
}

}  // namespace bv::gpu::kernels
