// GPU launchers of the library kernels in kernels/ (RMSNorm, LayerNorm, the gated activations,
// dropout, cross-entropy, attention, the fused matmul, conv2d), on device tensors. GPU-compiled
// translation units only: used by src/host_api_lib*.cu and bench/gpu/bench_gpu_lib.cu. The kernel
// sources and their launch configurations are the interpreter's (the tables next to each kernel,
// bv/launch_config.hpp); these launch them for the device's target on device tensors.
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

namespace k = bv::kernels;

// y = rmsnorm(x) * w over rows of a contiguous [m, n] x; rstd [m] fp32.
template <class T>
launch_result rmsnorm_fwd(const device_tensor<T>& x, const device_tensor<T>& w, device_tensor<T>& y,
                          device_tensor<float>& rstd, float eps = 1e-6f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return with_config<k::rmsnorm_configs>(n, "rmsnorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::rmsnorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, w, y, rstd, n, n, n,
                                                                eps);
  });
}

// h = x + res; y = rmsnorm(h) * w.
template <class T>
launch_result add_rmsnorm_fwd(const device_tensor<T>& x, const device_tensor<T>& res,
                              const device_tensor<T>& w, device_tensor<T>& h, device_tensor<T>& y,
                              device_tensor<float>& rstd, float eps = 1e-6f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return with_config<k::rmsnorm_configs>(n, "add_rmsnorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::add_rmsnorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, res, w, h, y, rstd,
                                                                    n, n, n, n, n, eps);
  });
}

// y = layernorm(x) * w + b; mean and rstd [m] fp32.
template <class T>
launch_result layernorm_fwd(const device_tensor<T>& x, const device_tensor<T>& w,
                            const device_tensor<T>& b, device_tensor<T>& y,
                            device_tensor<float>& mean, device_tensor<float>& rstd,
                            float eps = 1e-5f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return with_config<k::layernorm_configs>(n, "layernorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::layernorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, w, b, y, mean, rstd,
                                                                  n, n, n, eps);
  });
}

// y [m, n] = act(x[:, :n]) * x[:, n:] for a contiguous x [m, 2n].
template <k::gate_act A, class T>
launch_result act_mul_fwd(const device_tensor<T>& x, device_tensor<T>& y) {
  const int m = static_cast<int>(y.size(0)), n = static_cast<int>(y.size(1));
  return with_config<k::act_mul_configs>(n, "act_mul_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::act_mul_fwd_kernel<T, A, cf.block, cf.waves>>(grid(m, cdiv(n, cf.block)), x, y,
                                                                   2 * n, n, n);
  });
}
// dx [m, 2n] = [dgate | dup] from dy [m, n] and x [m, 2n].
template <k::gate_act A, class T>
launch_result act_mul_bwd(const device_tensor<T>& dy, const device_tensor<T>& x,
                          device_tensor<T>& dx) {
  const int m = static_cast<int>(dy.size(0)), n = static_cast<int>(dy.size(1));
  return with_config<k::act_mul_configs>(n, "act_mul_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::act_mul_bwd_kernel<T, A, cf.block, cf.waves>>(grid(m, cdiv(n, cf.block)), dy,
                                                                   x, dx, n, 2 * n, 2 * n, n);
  });
}

// out = dropout(x, p, seed): the mask is a function of (seed, element index) alone, so it is the
// interpreter's for the same seed whatever the block width.
template <class T>
launch_result dropout(const device_tensor<T>& x, device_tensor<T>& out, float p, int seed) {
  const int n = static_cast<int>(x.numel());
  return with_config<k::dropout_configs>(n, "dropout", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::dropout_kernel<T, cf.block, cf.waves>>(grid(cdiv(n, cf.block)), x, out, n, p,
                                                            seed);
  });
}

// loss [m], lse [m] from logits x [m, v] and targets [m].
template <class T>
launch_result cross_entropy_fwd(const device_tensor<T>& x, const device_tensor<int32_t>& target,
                                device_tensor<float>& loss, device_tensor<float>& lse) {
  const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
  return with_config<k::cross_entropy_configs>(v, "cross_entropy_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::cross_entropy_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, target, loss, lse,
                                                                      v, v);
  });
}
// dx [m, v] from the forward's lse and dloss [m].
template <class T>
launch_result cross_entropy_bwd(const device_tensor<T>& x, const device_tensor<int32_t>& target,
                                const device_tensor<float>& lse, const device_tensor<float>& dloss,
                                device_tensor<T>& dx) {
  const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
  return with_config<k::cross_entropy_configs>(v, "cross_entropy_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::cross_entropy_bwd_kernel<T, cf.block, cf.waves>>(grid(m), x, target, lse,
                                                                      dloss, dx, v, v, v);
  });
}

// o = softmax(q k^T / sqrt(D) [+ causal mask]) v over contiguous [B, H, S, D] q, k, v (16-bit);
// lse [B*H, S] fp32; D (64 or 128) fixed here, so each caller instantiates only its own.
template <int D, class T>
launch_result attention_fwd_d(const device_tensor<T>& q, const device_tensor<T>& k,
                              const device_tensor<T>& v, device_tensor<T>& o,
                              device_tensor<float>& lse, bool causal) {
  if (q.size(3) != D)
    throw std::invalid_argument("GPU attention_fwd: head dim " + std::to_string(q.size(3)) +
                                " given to the launcher for " + std::to_string(D));
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  using configs = bv::kernels::attention_fwd_configs<sizeof(T)>;
  return with_config_for<configs, D>("attention_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    auto run = [&](auto causal_c) {
      constexpr bool C = decltype(causal_c)::value;
      return launch_units<bv::kernels::attention_fwd_kernel<T, D, cf.bm, cf.bn, C, cf.waves>,
                          detail::units<>, cf.min_programs>(grid(cdiv(s, cf.bm), bh), q, k, v, o,
                                                            lse, s, scale);
    };
    return causal ? run(std::true_type{}) : run(std::false_type{});
  });
}
// Head dim 64 (the Triton peer's shape).
template <class T>
launch_result attention_fwd(const device_tensor<T>& q, const device_tensor<T>& k,
                            const device_tensor<T>& v, device_tensor<T>& o,
                            device_tensor<float>& lse, bool causal) {
  if (q.size(3) != 64)
    throw std::invalid_argument("GPU attention_fwd: head dim 64 only in this launcher");
  return attention_fwd_d<64>(q, k, v, o, lse, causal);
}

// c = gelu_tanh(a @ b + bias) for contiguous a [M, K], b [K, N], bias [N]; c of a's dtype.
template <class T>
launch_result matmul_bias_gelu(const device_tensor<T>& a, const device_tensor<T>& b,
                               const device_tensor<T>& bias, device_tensor<T>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  return with_config<k::matmul_bias_act_configs>(M, "matmul_bias_gelu", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    return launch<k::matmul_bias_act_kernel<T, T, k::epilogue::gelu_tanh, cf.bm, cf.bn, cf.bk,
                                            cf.group_m, cf.waves>>(
        grid(cdiv(M, cf.bm) * cdiv(N, cf.bn)), a, b, bias, c, M, N, K, K, 1, N, 1, N, 1);
  });
}

// c = a @ b with K split `splits` ways into a contiguous fp32 c: zero c, then the split products.
template <class T>
void matmul_splitk(const device_tensor<T>& a, const device_tensor<T>& b, device_tensor<float>& c,
                   int splits) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  const int n = static_cast<int>(c.numel());
  launch<k::zero_kernel>(grid(cdiv(n, 1024)), c, n);
  with_config<k::matmul_splitk_configs>(K, "matmul_splitk", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    const int k_per_split = k::splitk_slice(K, splits, cf.bk);
    return launch<k::matmul_splitk_kernel<T, cf.bm, cf.bn, cf.bk, cf.waves>>(
        grid(cdiv(M, cf.bm) * cdiv(N, cf.bn), cdiv(K, k_per_split)), a, b, c, M, N, K, k_per_split,
        K, 1, N, 1, N, 1);
  });
}

// Direct NCHW conv2d: out [n, oc, oh, ow] from x [n, c, h, w], w [oc, c, kh, kw], bias [oc].
template <class T>
launch_result conv2d(const device_tensor<T>& x, const device_tensor<T>& w,
                     const device_tensor<T>& bias, device_tensor<T>& out, int sh, int sw, int ph,
                     int pw) {
  const int n = static_cast<int>(x.size(0)), c = static_cast<int>(x.size(1)),
            h = static_cast<int>(x.size(2)), wd = static_cast<int>(x.size(3));
  const int oc = static_cast<int>(w.size(0)), kh = static_cast<int>(w.size(2)),
            kw = static_cast<int>(w.size(3));
  const int oh = static_cast<int>(out.size(2)), ow = static_cast<int>(out.size(3));
  return with_config<k::conv2d_configs>(oh * ow, "conv2d", [&](auto cfg) {
    constexpr launch_config cf = decltype(cfg)::value;
    return launch<k::conv2d_kernel<T, cf.bm, cf.bn, cf.bk, cf.waves>>(
        grid(cdiv(oh * ow, cf.bn), cdiv(oc, cf.bm), n), x, w, bias, out, c, h, wd, oc, kh, kw, oh,
        ow, sh, sw, ph, pw);
  });
}

// Backward of the norms: dx per row and dw (db) through per-program partial rows summed by
// col_sum_kernel.
template <class T>
launch_result col_sum(const device_tensor<float>& partial, device_tensor<T>& out) {
  const int g = static_cast<int>(partial.size(0)), n = static_cast<int>(partial.size(1));
  return with_config<k::col_sum_configs>(n, "col_sum", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::col_sum_kernel<T, cf.bm, cf.bn, cf.waves>>(grid(cdiv(n, cf.bn)), partial, out,
                                                                g, n);
  });
}
// Partial rows the callers allocate: RMSNorm's backward programs, LayerNorm's lock groups or
// two-stage programs, for rows x n on the device's target (the declarations in kernels/).
inline int norm_bwd_programs(int rows, int n) {
  return k::norm_bwd_programs(device_target(), rows, n);
}
inline int layernorm_bwd_partials(bool lock, int rows, int n) {
  return k::layernorm_bwd_partials(device_target(),
                                   lock ? k::reduction::lock : k::reduction::two_stage, rows, n);
}

template <class T>
void rmsnorm_bwd(const device_tensor<T>& dy, const device_tensor<T>& x, const device_tensor<T>& w,
                 const device_tensor<float>& rstd, device_tensor<T>& dx, device_tensor<T>& dw,
                 device_tensor<float>& partial) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  const int g = static_cast<int>(partial.size(0));
  with_config<k::rmsnorm_configs>(n, "rmsnorm_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<k::rmsnorm_bwd_kernel<T, cf.block, cf.waves>>(grid(g), dy, x, w, rstd, dx,
                                                                partial, n, n, n, m, n);
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
  if (lock) locks.fill_bytes(0);
  with_config<k::layernorm_configs>(n, "layernorm_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    if (lock)
      return launch<k::layernorm_bwd_lock_kernel<T, cf.block, cf.waves>>(
          grid(m), dy, x, w, mean, rstd, dx, dw_partial, db_partial, locks, n, n, n, n, g);
    return launch<k::layernorm_bwd_twostage_kernel<T, cf.block, cf.waves>>(
        grid(g), dy, x, w, mean, rstd, dx, dw_partial, db_partial, n, n, n, m, n);
  });
  col_sum(dw_partial, dw);
  col_sum(db_partial, db);
}

// dq, dk, dv for [B, H, S, 64] f16/bf16 from o, lse and dout: delta = rowsum(dO * O), then the
// dK/dV and dQ kernels.
template <class T>
void attention_bwd(const device_tensor<T>& q, const device_tensor<T>& k, const device_tensor<T>& v,
                   const device_tensor<T>& o, const device_tensor<float>& lse,
                   const device_tensor<T>& dout, device_tensor<T>& dq, device_tensor<T>& dk,
                   device_tensor<T>& dv, device_tensor<float>& delta, bool causal) {
  if (q.size(3) != 64)
    throw std::invalid_argument("GPU attention_bwd: head dim 64 only in this build");
  constexpr int D = 64;
  const int bh = static_cast<int>(q.size(0) * q.size(1)), s = static_cast<int>(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  with_config_for<bv::kernels::attention_bwd_configs<sizeof(T)>, D>("attention_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    launch<bv::kernels::attention_bwd_preprocess_kernel<T, D, cf.bm, cf.waves>>(
        grid(cdiv(s, cf.bm), bh), o, dout, delta, s);
    auto run = [&](auto causal_c) {
      constexpr bool C = decltype(causal_c)::value;
      launch<bv::kernels::attention_bwd_dkdv_kernel<T, D, cf.bm, cf.bn, C, cf.waves>>(
          grid(cdiv(s, cf.bn), bh), q, k, v, dout, lse, delta, dk, dv, s, scale);
      launch<bv::kernels::attention_bwd_dq_kernel<T, D, cf.bm, cf.bn, C, cf.waves>>(
          grid(cdiv(s, cf.bm), bh), q, k, v, dout, lse, delta, dq, s, scale);
    };
    if (causal)
      run(std::true_type{});
    else
      run(std::false_type{});
  });
}

}  // namespace bv::gpu::kernels
