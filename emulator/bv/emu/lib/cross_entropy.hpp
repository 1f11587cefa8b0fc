// Emulated launch recipes: cross-entropy forward (loss and log-sum-exp per row) and backward.
// See bv/emu/library.hpp for what a recipe is.
#pragma once
#include <cstdint>

#include "bv/bv.hpp"
#include "bv/kernels/cross_entropy.hpp"

namespace bv::emu::lib {

// loss [m], lse [m] from logits x [m, v] and targets [m].
template <class T>
result cross_entropy_fwd(const device_tensor<T>& x, const device_tensor<int32_t>& target,
                         device_tensor<float>& loss, device_tensor<float>& lse) {
  const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
  return with_config<kernels::cross_entropy_configs>(v, "cross_entropy_fwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::cross_entropy_fwd_kernel<T, cf.block, cf.waves>>(grid(m), x, target,
                                                                            loss, lse, v, v);
  });
}

// dx [m, v] from the forward's lse and dloss [m].
template <class T>
result cross_entropy_bwd(const device_tensor<T>& x, const device_tensor<int32_t>& target,
                         const device_tensor<float>& lse, const device_tensor<float>& dloss,
                         device_tensor<T>& dx) {
  const int m = static_cast<int>(x.size(0)), v = static_cast<int>(x.size(1));
  return with_config<kernels::cross_entropy_configs>(v, "cross_entropy_bwd", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::cross_entropy_bwd_kernel<T, cf.block, cf.waves>>(grid(m), x, target, lse,
                                                                            dloss, dx, v, v, v);
  });
}

}  // namespace bv::emu::lib
