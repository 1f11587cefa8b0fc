// Emulated launch recipe: RoPE applied while splitting a [S, cols] projection into [H, S, D]
// heads. See bv/emu/library.hpp for what a recipe is.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/rope.hpp"

namespace bv::emu::lib {

// dst [H, S, D] from src's columns col0 + h * D onwards, rotated by the cos/sin tables [S, D / 2]
// (sign -1 rotates back).
template <int D, class T>
result rope_split(const device_tensor<T>& src, int col0, device_tensor<T>& dst,
                  const device_tensor<float>& cos_t, const device_tensor<float>& sin_t,
                  float sign) {
  const int h = static_cast<int>(dst.size(dst.dim() - 3)),
            s = static_cast<int>(dst.size(dst.dim() - 2));
  return with_config<kernels::rope_configs>(D, "rope_split", [&](auto c) {
    return launch<kernels::rope_split_kernel<T, D, decltype(c)::value.waves>>(
        grid(s, h), src, dst, cos_t, sin_t, s, static_cast<int>(src.size(1)), col0, sign);
  });
}

}  // namespace bv::emu::lib
