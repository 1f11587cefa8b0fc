// Integer helpers used on the host and in kernels alike.
#pragma once
#include <cstdint>
#include <type_traits>

#include "bv/config.hpp"

namespace bv {

template <class A, class B>
BV_HD constexpr auto cdiv(A a, B b) {
  static_assert(std::is_integral_v<A> && std::is_integral_v<B>,
                "cdiv divides integers: pass integer sizes, not floating-point values.");
  return (a + b - 1) / b;
}

template <class A>
BV_HD constexpr A next_power_of_2(A n) {
  static_assert(std::is_integral_v<A>, "next_power_of_2 takes an integer.");
  A p = 1;
  while (p < n) p <<= 1;
  return p;
}

template <class A>
BV_HD constexpr bool is_power_of_2(A n) {
  return n > 0 && (n & (n - 1)) == 0;
}

}  // namespace bv
