// Emulated launch recipes: add, copy, dropout (one program per BLOCK elements). See
// bv/emu/library.hpp for what a recipe is.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/dropout.hpp"

namespace bv::emu::lib {

// out = x + y over n = out.numel() elements.
template <class T>
result add(const device_tensor<T>& x, const device_tensor<T>& y, device_tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<kernels::add_configs>(n, "add", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::add_kernel<T, cf.block, cf.waves>>(grid(cdiv(n, cf.block)), x, y, out,
                                                              n);
  });
}

// out = x over n = out.numel() elements.
template <class T>
result copy(const device_tensor<T>& x, device_tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<kernels::copy_configs>(n, "copy", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::copy_kernel<T, cf.block, cf.waves>>(grid(cdiv(n, cf.block)), x, out, n);
  });
}

// out = dropout(x, p, seed): the mask depends on (seed, element index) only, so it is the
// interpreter's whatever the block width.
template <class T>
result dropout(const device_tensor<T>& x, device_tensor<T>& out, float p, int seed) {
  const int n = static_cast<int>(x.numel());
  return with_config<kernels::dropout_configs>(n, "dropout", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::dropout_kernel<T, cf.block, cf.waves>>(grid(cdiv(n, cf.block)), x, out,
                                                                  n, p, seed);
  });
}

}  // namespace bv::emu::lib
