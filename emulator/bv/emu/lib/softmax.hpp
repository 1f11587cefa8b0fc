// Emulated launch recipes: softmax over rows (one program per row; the looped variant where the
// table picks it for wide rows). See bv/emu/library.hpp for what a recipe is.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/softmax.hpp"

namespace bv::emu::lib {

// out = softmax(x) over each row of a contiguous [rows, cols] x.
template <class T>
result softmax(const device_tensor<T>& x, device_tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  return with_config<kernels::softmax_configs>(cols, "softmax", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    if constexpr (cf.variant == 1)
      return launch<kernels::softmax_looped_kernel<T, cf.block, cf.waves>>(grid(rows), x, out, cols,
                                                                           cols, cols);
    else
      return launch<kernels::softmax_kernel<T, cf.block, cf.waves>>(grid(rows), x, out, cols, cols,
                                                                    cols);
  });
}

}  // namespace bv::emu::lib
