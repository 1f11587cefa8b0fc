// Host-side helpers shared by the library's launchers: picking a compile-time block width for a
// runtime row length, and int32 casts of tensor sizes and strides (kernels index in int32, as in
// Triton). Host only: kernels never include this for the GPU pass.
#pragma once
#include "bv/bv.hpp"

#if !BV_GPU
#include <stdexcept>
#include <string>
#include <type_traits>

namespace bv::kernels::detail {

inline int i32(int64_t v) {
  if (v > INT32_MAX || v < INT32_MIN)
    throw std::invalid_argument("blockvec kernels index in int32; size " + std::to_string(v) +
                                " does not fit");
  return static_cast<int>(v);
}

// Calls f(std::integral_constant<int, B>) with the smallest block B in {256, 1024, 8192} that holds
// a row of n elements: one program per row, the whole row in registers (the seed's pattern).
// Three widths keep the instantiations per kernel few. 1024 rather than 2048 in the middle: on the
// interpreter, blocks above 1024 fp32 elements run 4-5x slower per element (measured: RMSNorm
// 256 rows at block 1024 1.2 ms, at block 2048 9.9 ms), so the common model widths up to 1024
// stay on the fast size.
template <class F>
auto with_row_block(int64_t n, const char* kernel, F&& f) {
  if (n <= 256) return f(std::integral_constant<int, 256>{});
  if (n <= 1024) return f(std::integral_constant<int, 1024>{});
  if (n <= 8192) return f(std::integral_constant<int, 8192>{});
  throw std::invalid_argument(std::string(kernel) + ": rows of " + std::to_string(n) +
                              " elements do not fit one 8192-wide block");
}

}  // namespace bv::kernels::detail
#endif
