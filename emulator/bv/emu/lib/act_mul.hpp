// Emulated launch recipes: the gated activations act(gate) * up and their backward. See
// bv/emu/library.hpp for what a recipe is.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/act_mul.hpp"

namespace bv::emu::lib {

// y [m, n] = act(x[:, :n]) * x[:, n:] for a contiguous x [m, 2n].
template <kernels::gate_act A, class T>
result act_mul_fwd(const device_tensor<T>& x, device_tensor<T>& y) {
  const int m = static_cast<int>(y.size(0)), n = static_cast<int>(y.size(1));
  return with_config<kernels::act_mul_configs>(n, "act_mul_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::act_mul_fwd_kernel<T, A, cf.block, cf.waves>>(grid(m, cdiv(n, cf.block)),
                                                                         x, y, 2 * n, n, n);
  });
}

// dx [m, 2n] = [dgate | dup] from dy [m, n] and x [m, 2n].
template <kernels::gate_act A, class T>
result act_mul_bwd(const device_tensor<T>& dy, const device_tensor<T>& x, device_tensor<T>& dx) {
  const int m = static_cast<int>(dy.size(0)), n = static_cast<int>(dy.size(1));
  return with_config<kernels::act_mul_configs>(n, "act_mul_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::act_mul_bwd_kernel<T, A, cf.block, cf.waves>>(
        grid(m, cdiv(n, cf.block)), dy, x, dx, n, 2 * n, 2 * n, n);
  });
}

}  // namespace bv::emu::lib
