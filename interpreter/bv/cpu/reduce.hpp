// Reductions along an axis (tl.sum, tl.max, tl.min, tl.argmax) and over a whole block.
// 16-bit floats accumulate in fp32 and the result stays fp32, as tl.sum does.
#pragma once
#include <cmath>
#include <limits>
#include <source_location>

#include "bv/cpu/block.hpp"
#include "bv/cpu/render.hpp"
#include "bv/cpu/values.hpp"

namespace bv {

namespace detail {
template <int Axis, class S>
struct reduced_shape {
  static_assert(rules::reduction_axis<Axis, S::rank>());
  using type = std::conditional_t<Axis == 0, shape<S::cols>, shape<S::rows>>;
};

template <class T, class S, int W, class R, class F>
R reduce_all(const basic_block<T, S, W>& x, R init, F f) {
  R acc = init;
  const T* xv = x.data();
  for (int i = 0; i < S::size; ++i) acc = f(acc, static_cast<R>(xv[i]));
  return acc;
}

template <int Axis, class T, class S, int W, class R, class F>
auto reduce_axis(const basic_block<T, S, W>& x, R init, F f) {
  using RS = typename reduced_shape<Axis, S>::type;
  auto out = basic_block<R, RS, W>::from(basic_block<R, RS, W>::array::Constant(init));
  R* o = out.data();
  const T* xv = x.data();
  for (int r = 0; r < S::rows; ++r)
    for (int c = 0; c < S::cols; ++c) {
      R& acc = o[Axis == 0 ? c : r];
      acc = f(acc, static_cast<R>(xv[r * S::cols + c]));
    }
  return out;
}

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, bool>, int32_t, compute_t<T>>;

template <class R>
R lowest() {
  return std::numeric_limits<R>::has_infinity ? -std::numeric_limits<R>::infinity()
                                              : std::numeric_limits<R>::lowest();
}
template <class R>
R highest() {
  return std::numeric_limits<R>::has_infinity ? std::numeric_limits<R>::infinity()
                                              : std::numeric_limits<R>::max();
}
inline constexpr auto add = [](auto a, auto b) { return a + b; };

// The value checks look at what a reduction produced: a tagged lane in the input reaches the
// result (uninit, masked), or finite inputs gave NaN/Inf (nan).
template <class T, class S, int W, class R>
R checked(const basic_block<T, S, W>& x, R r, const char* op, const std::source_location& loc) {
  if (value_checks_on()) [[unlikely]]
    check_result(&r, 1, x.read(), S::size, op, loc);
  if (hooks.load(std::memory_order_relaxed)) [[unlikely]]
    on_op(loc, op, &render_erased<R>, &r);
  return r;
}
template <class T, class S, int W, class B>
B checked(const basic_block<T, S, W>& x, B r, const char* op,
          const std::source_location& loc) requires Block<B> {
  if (value_checks_on()) [[unlikely]]
    check_result(r.vals().data(), B::size, x.read(), S::size, op, loc);
  if (hooks.load(std::memory_order_relaxed)) [[unlikely]]
    on_op(loc, op, &render_erased<B>, &r);
  return r;
}
inline constexpr auto max2 = [](auto a, auto b) { return (a != a || a > b) ? a : b; };
inline constexpr auto min2 = [](auto a, auto b) { return (a != a || a < b) ? a : b; };

// max/min of f32 blocks without NaN go through Eigen's vectorised reductions; a NaN anywhere
// takes the lane-by-lane path, which propagates it as the GPU does.
template <bool Max, class T, class S, int W>
auto extreme_all(const basic_block<T, S, W>& x) {
  using R = acc_t<T>;
  if constexpr (std::is_same_v<T, float> && S::size >= 8)
    if (!x.arr().isNaN().any()) return R(Max ? x.arr().maxCoeff() : x.arr().minCoeff());
  if constexpr (Max)
    return reduce_all(x, lowest<R>(), max2);
  else
    return reduce_all(x, highest<R>(), min2);
}
template <bool Max, int Axis, class T, class S, int W>
auto extreme_axis(const basic_block<T, S, W>& x) {
  using R = acc_t<T>;
  if constexpr (std::is_same_v<T, float> && S::size >= 8) {
    if (!x.arr().isNaN().any()) {
      using RS = typename reduced_shape<Axis, S>::type;
      basic_block<float, RS, W> out;
      if constexpr (Axis == 1)
        out.vals() =
            Max ? x.grid().rowwise().maxCoeff().eval() : x.grid().rowwise().minCoeff().eval();
      else
        out.vals() = Max ? x.grid().colwise().maxCoeff().transpose().eval()
                         : x.grid().colwise().minCoeff().transpose().eval();
      return out;
    }
  }
  if constexpr (Max)
    return reduce_axis<Axis>(x, lowest<R>(), max2);
  else
    return reduce_axis<Axis>(x, highest<R>(), min2);
}
}  // namespace detail

// sum(x): every element; sum<AXIS>(x): along one axis, giving a block one rank lower
// (a 1-D block reduced along axis 0 gives a scalar).
template <class T, class S, int W>
auto sum(const basic_block<T, S, W>& x,
         std::source_location loc = std::source_location::current()) {
  using R = detail::acc_t<T>;
  if constexpr (std::is_same_v<R, float> && S::size >= 8)
    return detail::checked(x, R(x.arr().template cast<float>().sum()), "sum", loc);
  else
    return detail::checked(x, detail::reduce_all(x, R(0), detail::add), "sum", loc);
}
// sum of a fused block (fused.hpp): its expression added up in one pass, lanes never stored.
template <class S, int W, class E>
float sum(const fused<S, W, E>& x, std::source_location loc = std::source_location::current()) {
  const basic_block<float, S, W>& b = x;
  if (!x.pending()) return sum(b, loc);
  const float r = x.expr().arr().sum();
  // The value checks look at the inputs only when the result is not finite.
  if (detail::value_checks_on() && !std::isfinite(r)) [[unlikely]]
    return detail::checked(b, r, "sum", loc);
  return r;
}
template <int Axis, class T, class S, int W>
auto sum(const basic_block<T, S, W>& x,
         std::source_location loc = std::source_location::current()) {
  using R = detail::acc_t<T>;
  if constexpr (S::rank == 1) {
    static_assert(rules::reduction_axis<Axis, S::rank>());
    return sum(x, loc);
  } else if constexpr (std::is_same_v<R, float> && !std::is_same_v<T, bool>) {
    using RS = typename detail::reduced_shape<Axis, S>::type;
    basic_block<float, RS, W> out;
    if constexpr (Axis == 1)
      out.vals() = x.grid().template cast<float>().rowwise().sum().transpose().transpose();
    else
      out.vals() = x.grid().template cast<float>().colwise().sum().transpose();
    return detail::checked(x, out, "sum", loc);
  } else {
    return detail::checked(x, detail::reduce_axis<Axis>(x, R(0), detail::add), "sum", loc);
  }
}

// sum2(x, y): {sum(x), sum(y)} for two blocks of one shape, as the GPU backend spells it
// (bv/gpu/reduce.hpp), where the two sums share one trip through the lanes and LDS. Here they are
// the two sum() calls, each with its value check; a fused operand (x * x) is added up in one pass
// without storing its lanes.
template <class R>
struct sum2_result {
  R first, second;
};
template <class X, class Y>
requires(Block<X>&& Block<Y>) auto sum2(
    const X& x, const Y& y, std::source_location loc = std::source_location::current()) {
  using R = detail::acc_t<typename X::value_type>;
  static_assert(std::is_same_v<R, detail::acc_t<typename Y::value_type>>,
                "sum2 takes two blocks of the same accumulation type (f32 with f32, f16 with "
                "f32, ...).");
  static_assert(std::is_same_v<typename X::shape_type, typename Y::shape_type>,
                "sum2 takes two blocks of one shape; reduce blocks of different shapes with two "
                "sum() calls.");
  R first = sum(x, loc);
  R second = sum(y, loc);
  return sum2_result<R>{first, second};
}

template <class T, class S, int W>
auto max(const basic_block<T, S, W>& x,
         std::source_location loc = std::source_location::current()) {
  return detail::checked(x, detail::extreme_all<true>(x), "max", loc);
}
template <int Axis, class T, class S, int W>
auto max(const basic_block<T, S, W>& x,
         std::source_location loc = std::source_location::current()) {
  if constexpr (S::rank == 1) {
    static_assert(rules::reduction_axis<Axis, S::rank>());
    return max(x, loc);
  } else {
    return detail::checked(x, detail::extreme_axis<true, Axis>(x), "max", loc);
  }
}
template <class T, class S, int W>
auto min(const basic_block<T, S, W>& x,
         std::source_location loc = std::source_location::current()) {
  return detail::checked(x, detail::extreme_all<false>(x), "min", loc);
}
template <int Axis, class T, class S, int W>
auto min(const basic_block<T, S, W>& x,
         std::source_location loc = std::source_location::current()) {
  if constexpr (S::rank == 1) {
    static_assert(rules::reduction_axis<Axis, S::rank>());
    return min(x, loc);
  } else {
    return detail::checked(x, detail::extreme_axis<false, Axis>(x), "min", loc);
  }
}

// argmax: the index of the largest element (the first one on ties), as i32.
template <class T, class S, int W>
int32_t argmax(const basic_block<T, S, W>& x) {
  static_assert(rules::argmax_1d<S::rank>());
  int32_t best = 0;
  const T* xv = x.data();
  for (int i = 1; i < S::size; ++i)
    if (xv[i] > xv[best]) best = i;
  return best;
}
template <int Axis, class T, class S, int W>
auto argmax(const basic_block<T, S, W>& x) {
  if constexpr (S::rank == 1) {
    static_assert(rules::reduction_axis<Axis, S::rank>());
    return argmax(x);
  } else {
    using RS = typename detail::reduced_shape<Axis, S>::type;
    basic_block<int32_t, RS, W> out;
    int32_t* ov = out.data();
    const T* xv = x.data();
    for (int i = 0; i < RS::size; ++i) ov[i] = 0;
    for (int r = 0; r < S::rows; ++r)
      for (int c = 0; c < S::cols; ++c) {
        const int o = Axis == 0 ? c : r;
        const int cur = Axis == 0 ? ov[o] * S::cols + c : r * S::cols + ov[o];
        if (xv[r * S::cols + c] > xv[cur]) ov[o] = Axis == 0 ? r : c;
      }
    return out;
  }
}

}  // namespace bv
