// RMSNorm: y = x * rstd * w with rstd = 1 / sqrt(mean(x^2) + eps), one program per row,
// computing in fp32 and casting on store. The forward saves rstd per row for the backward; the
// fused variant adds a residual first and writes the sum too (one memory round trip saved).
// Backward: dx per row, dw by a two-stage reduction (per-program partial rows, then col_sum).
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void rmsnorm_fwd_kernel(program<W> p, ptr<const T> x, ptr<const T> w, ptr<T> y,
                                  ptr<float> rstd, int sx, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  // x and w stay in their own dtype across the reduction and are widened after it, as in
  // LayerNorm's forward: for f16 that is half the registers of f32 copies held across it. The
  // values are the same (widening is exact).
  auto xs = load(x + row * sx + cols, mask, 0.0f);
  auto ws = load(w + cols, mask, 0.0f);
  auto x2 = xs.to(f32);
  const float r = rsqrt(sum(x2 * x2) / n + eps);
  store(rstd + row, r);
  store(y + row * sy + cols, xs.to(f32) * r * ws.to(f32), mask);
}

// h = x + res (stored to hout), y = rmsnorm(h) * w.
template <class T, int BLOCK, int W = 4>
BV_KERNEL void add_rmsnorm_fwd_kernel(program<W> p, ptr<const T> x, ptr<const T> res,
                                      ptr<const T> w, ptr<T> hout, ptr<T> y, ptr<float> rstd,
                                      int sx, int sr, int sh, int sy, int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  auto xv = load(x + row * sx + cols, mask, 0.0f).to(f32);
  auto rv = load(res + row * sr + cols, mask, 0.0f).to(f32);
  auto wv = load(w + cols, mask, 0.0f).to(f32);
  // Round the sum to T before normalising: the stored residual stream and the normalised output
  // then agree exactly, as when the two ops run separately.
  auto h = (xv + rv).to(dtype<T>{}).to(f32);
  store(hout + row * sh + cols, h, mask);
  const float r = rsqrt(sum(h * h) / n + eps);
  store(rstd + row, r);
  store(y + row * sy + cols, h * r * wv, mask);
}

// dx = rstd * (dy*w) - x * rstd^3 * mean(dy*w*x); each program walks rows pid, pid+G, ... and
// keeps its share of dw = sum_rows dy * x * rstd in registers, written once as partial row pid.
template <class T, int BLOCK, int W = 4>
BV_KERNEL void rmsnorm_bwd_kernel(program<W> p, ptr<const T> dy, ptr<const T> x, ptr<const T> w,
                                  ptr<const float> rstd, ptr<T> dx, ptr<float> dw_partial, int sdy,
                                  int sx, int sdx, int m, int n) {
  const int pid = p.id(0), programs = p.num_programs(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  auto wv = load(w + cols, mask, 0.0f).to(f32);
  auto dw = zeros<float, BLOCK>(p);
  for (int row = pid; row < m; row += programs) {
    auto xv = load(x + row * sx + cols, mask, 0.0f).to(f32);
    auto dyv = load(dy + row * sdy + cols, mask, 0.0f).to(f32);
    const float r = load(rstd + row);
    auto g = dyv * wv;
    const float c = sum(g * xv) / n;
    store(dx + row * sdx + cols, r * g - xv * (r * r * r * c), mask);
    dw += dyv * xv * r;
  }
  store(dw_partial + pid * n + cols, dw, mask);
}

// Launch configurations (bv/launch_config.hpp) of the fused residual add + RMSNorm and of the
// backward, by row length: one program per row, the whole row in registers, the smallest block
// that holds it, with 2 to 16 waves (4 to 16 elements a thread on 32-lane warps). The backward's
// first stage runs at most 256 programs (two per SM on an H100), each walking every 256th row.
// At 8192 x 8192 f16 on an H200 (bench/gpu/rmsnorm_family.cu, back to back): add_rmsnorm 0.148 ms
// at 16 warps, 0.158 at 8; the backward 0.147 at 16, 0.182 at 8. The same on AMD, where 16
// waves of 64 lanes are 1024 threads, the workgroup limit.
struct rmsnorm_configs {
  static constexpr const char* key = "row length";
  // clang-format off
  static constexpr launch_config table[] = {
      // row length up to   block           waves        backward programs (at most)
      {.up_to = 256,        .block = 256,   .waves = 2,  .programs = 256},
      {.up_to = 1024,       .block = 1024,  .waves = 4,  .programs = 256},
      {.up_to = 4096,       .block = 4096,  .waves = 8,  .programs = 256},
      {.up_to = 8192,       .block = 8192,  .waves = 16, .programs = 256},
  };
  // clang-format on
};

// The forward's own rows: those above, but 8 warps at 8192 on sm_90, where it reads and writes
// one f16 row with no reduction state kept across rows (same file's measurement: 0.068 ms at 8
// warps against 0.074 at 16, 3.94 TB/s).
struct rmsnorm_fwd_configs {
  static constexpr const char* key = "row length";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        row length up to   block           waves
      {                                .up_to = 256,       .block = 256,   .waves = 2},
      {                                .up_to = 1024,      .block = 1024,  .waves = 4},
      {                                .up_to = 4096,      .block = 4096,  .waves = 8},
      {.targets = only(target::sm_90), .up_to = 8192,      .block = 8192,  .waves = 8},
      {                                .up_to = 8192,      .block = 8192,  .waves = 16},
  };
  // clang-format on
};

// Programs of the backward's first stage for rows x n on target t: the declared cap, never more
// than rows.
inline int norm_bwd_programs(target t, int64_t rows, int64_t n) {
  const int cap = config_for<rmsnorm_configs>(t, n, "rmsnorm_bwd").programs;
  return static_cast<int>(rows < cap ? rows : cap);
}

// y = rmsnorm(x) * w over the last dimension of a 2-D x; rstd [rows] (fp32) for the backward.
template <class T>
launch_result rmsnorm_fwd(const tensor<T>& x, const tensor<T>& w, tensor<T>& y, tensor<float>& rstd,
                          float eps = 1e-6f) {
  const int m = detail::i32(x.size(0)), n = detail::i32(x.size(1));
  return with_config<rmsnorm_fwd_configs>(n, "rmsnorm_fwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<rmsnorm_fwd_kernel<T, k.block, k.waves>>(
        grid(m), x, w, y, rstd, detail::i32(x.stride(0)), detail::i32(y.stride(0)), n, eps);
  });
}

// h = x + res; y = rmsnorm(h) * w (the fused residual add + RMSNorm of a decoder block).
template <class T>
launch_result add_rmsnorm_fwd(const tensor<T>& x, const tensor<T>& res, const tensor<T>& w,
                              tensor<T>& h, tensor<T>& y, tensor<float>& rstd, float eps = 1e-6f) {
  const int m = detail::i32(x.size(0)), n = detail::i32(x.size(1));
  return with_config<rmsnorm_configs>(n, "add_rmsnorm_fwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<add_rmsnorm_fwd_kernel<T, k.block, k.waves>>(
        grid(m), x, res, w, h, y, rstd, detail::i32(x.stride(0)), detail::i32(res.stride(0)),
        detail::i32(h.stride(0)), detail::i32(y.stride(0)), n, eps);
  });
}

// dx and dw from dy, x, w and the forward's rstd. Two launches: rows, then the dw column sums.
template <class T>
std::vector<launch_result> rmsnorm_bwd(const tensor<T>& dy, const tensor<T>& x, const tensor<T>& w,
                                       const tensor<float>& rstd, tensor<T>& dx, tensor<T>& dw) {
  const int m = detail::i32(x.size(0)), n = detail::i32(x.size(1));
  const int g = norm_bwd_programs(launch_target(), m, n);
  auto partial = tensor<float>::empty("dw_partial", {g, n});
  std::vector<launch_result> out;
  out.push_back(with_config<rmsnorm_configs>(n, "rmsnorm_bwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<rmsnorm_bwd_kernel<T, k.block, k.waves>>(
        grid(g), dy, x, w, rstd, dx, partial, detail::i32(dy.stride(0)), detail::i32(x.stride(0)),
        detail::i32(dx.stride(0)), m, n);
  }));
  out.push_back(col_sum(partial, dw));
  return out;
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_RMSNORM_INSTANCES_OF(X, T)                                                            \
  X(launch_result rmsnorm_fwd(const tensor<T>&, const tensor<T>&, tensor<T>&, tensor<float>&,    \
                              float))                                                            \
  X(launch_result add_rmsnorm_fwd(const tensor<T>&, const tensor<T>&, const tensor<T>&,          \
                                  tensor<T>&, tensor<T>&, tensor<float>&, float))                \
  X(std::vector<launch_result> rmsnorm_bwd(const tensor<T>&, const tensor<T>&, const tensor<T>&, \
                                           const tensor<float>&, tensor<T>&, tensor<T>&))
#define BV_RMSNORM_INSTANCES(X)     \
  BV_RMSNORM_INSTANCES_OF(X, float) \
  BV_RMSNORM_INSTANCES_OF(X, half)  \
  BV_RMSNORM_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_RMSNORM_INSTANCES)

}  // namespace bv::kernels
