// Elementwise math. 16-bit floats compute in fp32 and round back, as Triton's math library does.
#pragma once
#include <cmath>

#include "bv/cpu/block.hpp"
#include "bv/cpu/values.hpp"

namespace bv {

namespace detail {
template <class T, class S, int W, class F>
basic_block<T, S, W> unary_float(const basic_block<T, S, W>& x, F f, const char* op,
                                 const std::source_location& loc) {
  static_assert(rules::math_float<T>());
  using C = compute_t<T>;
  auto out = basic_block<T, S, W>::from(f(x.arr().template cast<C>()).template cast<T>());
  // The nan check wants the op that turned finite values into NaN/Inf (log(0), sqrt(-1)).
  if (value_checks_on()) [[unlikely]]
    check_result(out.vals().data(), S::size, x.read(), S::size, op, loc);
  return out;
}
}  // namespace detail

#define BV_UNARY(name, expr)                                                              \
  template <class T, class S, int W>                                                      \
  basic_block<T, S, W> name(const basic_block<T, S, W>& x,                                \
                            std::source_location loc = std::source_location::current()) { \
    return detail::unary_float(                                                           \
        x, [](const auto& a) { return expr; }, #name, loc);                               \
  }                                                                                       \
  template <class T>                                                                      \
  requires Scalar<T>                                                                      \
  auto name(T s) {                                                                        \
    using C = compute_t<std::conditional_t<is_float<T>, T, float>>;                       \
    Eigen::Array<C, 1, 1> a;                                                              \
    a[0] = static_cast<C>(s);                                                             \
    return static_cast<std::conditional_t<is_float<T>, T, float>>((expr)[0]);             \
  }
BV_UNARY(exp, a.exp())
BV_UNARY(exp2, a.unaryExpr([](auto q) { return std::exp2(q); }))
BV_UNARY(log, a.log())
BV_UNARY(log2, a.unaryExpr([](auto q) { return std::log2(q); }))
BV_UNARY(sqrt, a.sqrt())
BV_UNARY(rsqrt, a.rsqrt())
BV_UNARY(sigmoid, (1 + (-a).exp()).inverse())
BV_UNARY(tanh, a.tanh())
BV_UNARY(sin, a.sin())
BV_UNARY(cos, a.cos())
BV_UNARY(erf, a.unaryExpr([](auto q) { return std::erf(q); }))
BV_UNARY(floor, a.floor())
BV_UNARY(ceil, a.ceil())
#undef BV_UNARY

template <class T, class S, int W>
basic_block<T, S, W> abs(const basic_block<T, S, W>& x) {
  if constexpr (is_16bit_float<T>)
    return basic_block<T, S, W>::from(x.arr().template cast<float>().abs().template cast<T>());
  else if constexpr (std::is_same_v<T, bool>)
    return x;
  else
    return basic_block<T, S, W>::from(x.arr().abs());
}

// maximum / minimum: elementwise, blocks with blocks or scalars (tl.maximum, tl.minimum). A NaN
// in either operand gives NaN, as on the GPU.
template <class X, class Y>
requires detail::BinaryOperands<X, Y>
auto maximum(const X& x, const Y& y) {
  using C = typename detail::result_elem<X, Y>::type;
  return detail::zip<void, C>(x, y, [](const auto& a, const auto& b) {
    return a.binaryExpr(b, [](C p, C q) -> C {
      if constexpr (is_float<C>)
        if (p != p || q != q) return p != p ? p : q;
      return p > q ? p : q;
    });
  });
}
template <class X, class Y>
requires detail::BinaryOperands<X, Y>
auto minimum(const X& x, const Y& y) {
  using C = typename detail::result_elem<X, Y>::type;
  return detail::zip<void, C>(x, y, [](const auto& a, const auto& b) {
    return a.binaryExpr(b, [](C p, C q) -> C {
      if constexpr (is_float<C>)
        if (p != p || q != q) return p != p ? p : q;
      return p < q ? p : q;
    });
  });
}

// fma(a, b, c) = a * b + c with one rounding.
template <class T, class S, int W>
basic_block<T, S, W> fma(const basic_block<T, S, W>& a, const basic_block<T, S, W>& b,
                         const basic_block<T, S, W>& c) {
  using C = compute_t<T>;
  basic_block<T, S, W> out;
  T* o = out.data();
  const T *pa = a.data(), *pb = b.data(), *pc = c.data();
  for (int i = 0; i < S::size; ++i)
    o[i] = static_cast<T>(
        std::fma(static_cast<C>(pa[i]), static_cast<C>(pb[i]), static_cast<C>(pc[i])));
  return out;
}

}  // namespace bv
