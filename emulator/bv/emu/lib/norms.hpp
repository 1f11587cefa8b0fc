// Emulated launch recipes: RMSNorm and LayerNorm (forward one program per row; backward dx per
// row and dw/db through partial rows summed by col_sum), and col_sum itself. See
// bv/emu/library.hpp for what a recipe is.
#pragma once
#include <cstdint>
#include <vector>

#include "bv/bv.hpp"
#include "bv/kernels/col_sum.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/rmsnorm.hpp"

namespace bv::emu::lib {

// out [n] = the column sums of partial [g, n].
template <class T>
result col_sum(const device_tensor<float>& partial, device_tensor<T>& out) {
  const int g = static_cast<int>(partial.size(0)), n = static_cast<int>(partial.size(1));
  return with_config<kernels::col_sum_configs>(n, "col_sum", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::col_sum_kernel<T, cf.bm, cf.bn, cf.waves>>(grid(cdiv(n, cf.bn)), partial,
                                                                      out, g, n);
  });
}

// y = rmsnorm(x) * w over rows of a contiguous [m, n] x; rstd [m] fp32.
template <class T>
result rmsnorm_fwd(const device_tensor<T>& x, const device_tensor<T>& w, device_tensor<T>& y,
                   device_tensor<float>& rstd, float eps = 1e-6f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return with_config<kernels::rmsnorm_fwd_configs>(n, "rmsnorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::rmsnorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, w, y, rstd, n, n,
                                                                      n, eps);
  });
}

// h = x + res; y = rmsnorm(h) * w.
template <class T>
result add_rmsnorm_fwd(const device_tensor<T>& x, const device_tensor<T>& res,
                       const device_tensor<T>& w, device_tensor<T>& h, device_tensor<T>& y,
                       device_tensor<float>& rstd, float eps = 1e-6f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return with_config<kernels::rmsnorm_configs>(n, "add_rmsnorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::add_rmsnorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, res, w, h, y,
                                                                          rstd, n, n, n, n, n, eps);
  });
}

// dx per row and dw through one partial row per backward program, summed by col_sum: two
// launches, the partial rows allocated here for the emulated target.
template <class T>
std::vector<result> rmsnorm_bwd(const device_tensor<T>& dy, const device_tensor<T>& x,
                                const device_tensor<T>& w, const device_tensor<float>& rstd,
                                device_tensor<T>& dx, device_tensor<T>& dw) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  const int g = kernels::norm_bwd_programs(gpu::device_target(), m, n);
  auto partial = device_tensor<float>::empty("dw_partial", {g, n});
  std::vector<result> out;
  out.push_back(with_config<kernels::rmsnorm_configs>(n, "rmsnorm_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::rmsnorm_bwd_kernel<T, cf.block, cf.waves>>(grid(g), dy, x, w, rstd, dx,
                                                                      partial, n, n, n, m, n);
  }));
  out.push_back(col_sum(partial, dw));
  return out;
}

// y = layernorm(x) * w + b; mean and rstd [m] fp32.
template <class T>
result layernorm_fwd(const device_tensor<T>& x, const device_tensor<T>& w,
                     const device_tensor<T>& b, device_tensor<T>& y, device_tensor<float>& mean,
                     device_tensor<float>& rstd, float eps = 1e-5f) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  return with_config<kernels::layernorm_fwd_configs>(n, "layernorm_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::layernorm_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, w, b, y, mean,
                                                                        rstd, n, n, n, eps);
  });
}

// dx per row; dw and db into partial rows (lock: rows hash onto lock-guarded group rows, the locks
// zeroed here; two-stage: one partial row per program), then column sums: three launches.
template <class T>
std::vector<result> layernorm_bwd(const device_tensor<T>& dy, const device_tensor<T>& x,
                                  const device_tensor<T>& w, const device_tensor<float>& mean,
                                  const device_tensor<float>& rstd, device_tensor<T>& dx,
                                  device_tensor<T>& dw, device_tensor<T>& db,
                                  kernels::reduction how) {
  const int m = static_cast<int>(x.size(0)), n = static_cast<int>(x.size(1));
  const bool lock = how == kernels::reduction::lock;
  const int g = kernels::layernorm_bwd_partials(gpu::device_target(), how, m, n);
  auto dwp = device_tensor<float>::empty("dw_partial", {g, n});
  auto dbp = device_tensor<float>::empty("db_partial", {g, n});
  auto locks = device_tensor<int32_t>::zeros("locks", {2 * g});
  std::vector<result> out;
  out.push_back(with_config<kernels::layernorm_configs>(n, "layernorm_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    if (lock)
      return launch<kernels::layernorm_bwd_lock_kernel<T, cf.block, cf.waves>>(
          grid(m), dy, x, w, mean, rstd, dx, dwp, dbp, locks, n, n, n, n, g);
    return launch<kernels::layernorm_bwd_twostage_kernel<T, cf.block, cf.waves>>(
        grid(g), dy, x, w, mean, rstd, dx, dwp, dbp, n, n, n, m, n);
  }));
  out.push_back(col_sum(dwp, dw));
  out.push_back(col_sum(dbp, db));
  return out;
}

}  // namespace bv::emu::lib
