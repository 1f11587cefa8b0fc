// LayerNorm in the shape of Triton's tutorial: the forward saves mean and rstd per row; the
// backward computes dx per row and accumulates dw/db across programs in one of two ways:
//  - lock: rows hash onto GROUP partial rows; a program takes that group's spin lock
//    (atomic_cas, released with atomic_xchg), adds its dw/db into the partial row and lets go.
//    The interpreter's scheduler yields on a failed compare-and-swap, so the spin survives the
//    sequential and shuffled schedules as it does on a GPU.
//  - two-stage: each program walks a strided set of rows, keeps dw/db in registers and writes one
//    partial row of its own: no lock, no atomics.
// Both finish with col_sum over the partial rows.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

// One reduction for both statistics: the sums of d = x - x[row, 0] and of d^2 give
// mean = x[row, 0] + sum(d) / n and var = sum(d^2) / n - (sum(d) / n)^2. Shifting by an element
// of the row (the shifted-data variance) keeps the cancellation small when |mean| >> std. The two
// sums travel together (sum2): on the GPU one trip through the lanes and LDS, two barriers instead
// of the four of two sum() calls (docs/PERFORMANCE.md has the figures).
template <class T, int BLOCK, int W = 4>
BV_KERNEL void layernorm_fwd_kernel(program<W> p, ptr<const T> x, ptr<const T> w, ptr<const T> b,
                                    ptr<T> y, ptr<float> mean, ptr<float> rstd, int sx, int sy,
                                    int n, float eps) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  const float shift = static_cast<float>(load(x + row * sx));
  // Masked lanes must add nothing to either sum: they load the shift itself (a T value, so the
  // same after the round trip), and x - shift is 0 there with no select per element (the forward
  // is bound by the instructions it issues on the GPU: docs/PERFORMANCE.md).
  // x stays in its own dtype across the reduction and is widened again after it: for f16 that is
  // half the registers of an f32 copy, which at 16 warps and 64 registers per thread (two programs
  // per SM) removes the spill around the reduction (GPU 0.1434 -> 0.1357 ms at 8192 x 8192 on an
  // H100, docs/PERFORMANCE.md). The values are the same: x - shift is recomputed exactly.
  auto xs = load(x + row * sx + cols, mask, shift);
  // w and b are loaded before the reduction, so that their latency overlaps it, and before d is
  // formed (ptxas, f16 at 16 warps, measured on the form before this one: no spill; 28 bytes of
  // spill with d formed first).
  auto wv = load(w + cols, mask, 0.0f);
  auto bv_ = load(b + cols, mask, 0.0f);
  auto d = xs.to(f32) - shift;
  const auto s = sum2(d, d * d);
  const float s1 = s.first, s2 = s.second;
  const float dm = s1 / n;
  const float var = s2 / n - dm * dm;
  const float r = rsqrt((var > 0.0f ? var : 0.0f) + eps);
  store(mean + row, shift + dm);
  store(rstd + row, r);
  // (x - shift - dm) * r as (x - shift) * r - dm * r, one subtraction an element fewer (an FMA on
  // the GPU): dm * r is rounded at the size of the normalised values, not of the mean. (The
  // mean's own rounding, x * r - mean * r or (x - mean) * r, fails rows far from zero with a small
  // spread: tests/kernels/test_layernorm.cpp holds that.)
  const float cd = -dm * r;
  store(y + row * sy + cols, ((xs.to(f32) - shift) * r + cd) * wv.to(f32) + bv_.to(f32), mask);
}

// dx for one row: with xhat = (x - mean) * rstd and g = dy * w,
// dx = (g - (xhat * mean(xhat * g) + mean(g))) * rstd.
template <class T, int BLOCK, int W = 4>
BV_KERNEL void layernorm_bwd_lock_kernel(program<W> p, ptr<const T> dy, ptr<const T> x,
                                         ptr<const T> w, ptr<const float> mean,
                                         ptr<const float> rstd, ptr<T> dx, ptr<float> dw_partial,
                                         ptr<float> db_partial, ptr<int32_t> locks, int sdy, int sx,
                                         int sdx, int n, int groups) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  auto xv = load(x + row * sx + cols, mask, 0.0f).to(f32);
  auto dyv = load(dy + row * sdy + cols, mask, 0.0f).to(f32);
  auto wv = load(w + cols, mask, 0.0f).to(f32);
  const float mu = load(mean + row), r = load(rstd + row);
  auto xhat = where(mask, (xv - mu) * r, 0.0f);
  auto g = dyv * wv;
  const float c1 = sum(xhat * g) / n, c2 = sum(g) / n;
  store(dx + row * sdx + cols, (g - (xhat * c1 + c2)) * r, mask);
  auto pdw = dyv * xhat;
  auto pdb = dyv;
  // Accumulate into this row's group under the group's lock. locks[0, groups) are the locks,
  // locks[groups, 2 * groups) say whether the group's partial rows hold data yet.
  const int group = row % groups;
  auto lock = locks + group;
  auto count = locks + groups + group;
  while (atomic_cas(lock, 0, 1) == 1) {
  }
  if (atomic_xchg(count, 1) != 0) {
    // Another program wrote this group first: add to what it left.
    pdw += load(dw_partial + group * n + cols, mask, 0.0f);
    pdb += load(db_partial + group * n + cols, mask, 0.0f);
  }
  store(dw_partial + group * n + cols, pdw, mask);
  store(db_partial + group * n + cols, pdb, mask);
  atomic_xchg(lock, 0);
}

template <class T, int BLOCK, int W = 4>
BV_KERNEL void layernorm_bwd_twostage_kernel(program<W> p, ptr<const T> dy, ptr<const T> x,
                                             ptr<const T> w, ptr<const float> mean,
                                             ptr<const float> rstd, ptr<T> dx,
                                             ptr<float> dw_partial, ptr<float> db_partial, int sdy,
                                             int sx, int sdx, int m, int n) {
  const int pid = p.id(0), programs = p.num_programs(0);
  auto cols = arange<BLOCK>(p);
  auto mask = cols < n;
  auto wv = load(w + cols, mask, 0.0f).to(f32);
  auto dw = zeros<float, BLOCK>(p);
  auto db = zeros<float, BLOCK>(p);
  for (int row = pid; row < m; row += programs) {
    auto xv = load(x + row * sx + cols, mask, 0.0f).to(f32);
    auto dyv = load(dy + row * sdy + cols, mask, 0.0f).to(f32);
    const float mu = load(mean + row), r = load(rstd + row);
    auto xhat = where(mask, (xv - mu) * r, 0.0f);
    auto g = dyv * wv;
    const float c1 = sum(xhat * g) / n, c2 = sum(g) / n;
    store(dx + row * sdx + cols, (g - (xhat * c1 + c2)) * r, mask);
    dw += dyv * xhat;
    db += dyv;
  }
  store(dw_partial + pid * n + cols, dw, mask);
  store(db_partial + pid * n + cols, db, mask);
}

// Launch configurations (bv/launch_config.hpp) of the two backward kernels above (the forward has
// its own table below), by row length: as RMSNorm's (rmsnorm.hpp), one program per row, the
// smallest block that holds it, 2 to 16 waves; the two-stage backward runs at most 256 programs.
// The GPU's choice, measured on an H100 at 8192 x 8192 f16 (docs/PERFORMANCE.md): 16 warps 0.161
// ms, 8 warps 0.266, 4 warps 0.219.
struct layernorm_configs {
  static constexpr const char* key = "row length";
  // clang-format off
  static constexpr launch_config table[] = {
      // row length up to   block           waves        two-stage programs (at most)
      {.up_to = 256,        .block = 256,   .waves = 2,  .programs = 256},
      {.up_to = 1024,       .block = 1024,  .waves = 4,  .programs = 256},
      {.up_to = 4096,       .block = 4096,  .waves = 8,  .programs = 256},
      {.up_to = 8192,       .block = 8192,  .waves = 16, .programs = 256},
  };
  // clang-format on
};

// The forward's own rows: those above, but 8 warps with registers for 4 programs an SM at 8192 on
// sm_90, 0.0951 to 0.0952 ms at 8192 x 8192 f16 on an H200 against 0.1090 to 0.1109 for 16 warps
// with 2, and 0.0969 to 0.0998 with 3 (bench/gpu/layernorm_dev.cu, 2026-12-05; more rows in
// flight an SM, where a program's reduction leaves nothing of its own in flight). ptxas spills 28
// bytes around the reduction at that cap, and it is still the fastest.
struct layernorm_fwd_configs {
  static constexpr const char* key = "row length";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        row length up to   block           waves        programs per SM (GPU)
      {                                .up_to = 256,       .block = 256,   .waves = 2},
      {                                .up_to = 1024,      .block = 1024,  .waves = 4},
      {                                .up_to = 4096,      .block = 4096,  .waves = 8},
      {.targets = only(target::sm_90), .up_to = 8192,      .block = 8192,  .waves = 8,  .min_programs = 4},
      {                                .up_to = 8192,      .block = 8192,  .waves = 16},
  };
  // clang-format on
};

enum class reduction { lock, two_stage };

// Partial rows of the backward's dw/db for rows x n on target t: the lock's groups (the
// tutorial's GROUP_SIZE_M: more groups, less contention, more partial rows to sum), or one per
// program of the two-stage reduction; never more than rows.
inline int layernorm_bwd_partials(target t, reduction how, int64_t rows, int64_t n) {
  const int cap = how == reduction::lock
                      ? (n <= 1024 ? 64 : (n <= 4096 ? 32 : 16))
                      : config_for<layernorm_configs>(t, n, "layernorm_bwd").programs;
  return static_cast<int>(rows < cap ? rows : cap);
}

template <class T>
launch_result layernorm_fwd(const tensor<T>& x, const tensor<T>& w, const tensor<T>& b,
                            tensor<T>& y, tensor<float>& mean, tensor<float>& rstd,
                            float eps = 1e-5f) {
  const int m = detail::i32(x.size(0)), n = detail::i32(x.size(1));
  return with_config<layernorm_fwd_configs>(n, "layernorm_fwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return detail::launch_tuned<layernorm_fwd_kernel<T, k.block, k.waves>, 0, k.min_programs>(
        0, grid(m), x, w, b, y, mean, rstd, detail::i32(x.stride(0)), detail::i32(y.stride(0)), n,
        eps);
  });
}

// dx, dw, db from dy and the forward's saved statistics. Two launches: rows, then col_sum of dw
// and db (a third launch).
template <class T>
std::vector<launch_result> layernorm_bwd(const tensor<T>& dy, const tensor<T>& x,
                                         const tensor<T>& w, const tensor<float>& mean,
                                         const tensor<float>& rstd, tensor<T>& dx, tensor<T>& dw,
                                         tensor<T>& db, reduction how = reduction::lock) {
  const int m = detail::i32(x.size(0)), n = detail::i32(x.size(1));
  const int g = layernorm_bwd_partials(launch_target(), how, m, n);
  auto dw_partial = tensor<float>::empty("dw_partial", {g, n});
  auto db_partial = tensor<float>::empty("db_partial", {g, n});
  std::vector<launch_result> out;
  if (how == reduction::lock) {
    auto locks = tensor<int32_t>::zeros("locks", {2 * g});
    out.push_back(with_config<layernorm_configs>(n, "layernorm_bwd", [&](auto c) {
      constexpr launch_config k = decltype(c)::value;
      return launch<layernorm_bwd_lock_kernel<T, k.block, k.waves>>(
          grid(m), dy, x, w, mean, rstd, dx, dw_partial, db_partial, locks,
          detail::i32(dy.stride(0)), detail::i32(x.stride(0)), detail::i32(dx.stride(0)), n, g);
    }));
  } else {
    out.push_back(with_config<layernorm_configs>(n, "layernorm_bwd", [&](auto c) {
      constexpr launch_config k = decltype(c)::value;
      return launch<layernorm_bwd_twostage_kernel<T, k.block, k.waves>>(
          grid(g), dy, x, w, mean, rstd, dx, dw_partial, db_partial, detail::i32(dy.stride(0)),
          detail::i32(x.stride(0)), detail::i32(dx.stride(0)), m, n);
    }));
  }
  out.push_back(col_sum(dw_partial, dw));
  out.push_back(col_sum(db_partial, db));
  return out;
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_LAYERNORM_INSTANCES_OF(X, T)                                                            \
  X(launch_result layernorm_fwd(const tensor<T>&, const tensor<T>&, const tensor<T>&, tensor<T>&,  \
                                tensor<float>&, tensor<float>&, float))                            \
  X(std::vector<launch_result> layernorm_bwd(const tensor<T>&, const tensor<T>&, const tensor<T>&, \
                                             const tensor<float>&, const tensor<float>&,           \
                                             tensor<T>&, tensor<T>&, tensor<T>&, reduction))
#define BV_LAYERNORM_INSTANCES(X)     \
  BV_LAYERNORM_INSTANCES_OF(X, float) \
  BV_LAYERNORM_INSTANCES_OF(X, half)  \
  BV_LAYERNORM_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_LAYERNORM_INSTANCES)

}  // namespace bv::kernels
