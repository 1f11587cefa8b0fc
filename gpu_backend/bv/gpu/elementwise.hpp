// Elementwise math on the GPU. 16-bit floats compute in fp32 and round back, as on the CPU.
// exp uses the hardware's fast exp2 (Triton's tl.exp does the same).
#pragma once
#include "bv/gpu/block.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
template <class C>
struct fm;
template <>
struct fm<float> {
#if BV_NVIDIA
  // ex2.approx.ftz: one MUFU.EX2. exp2f and __expf give ex2.approx without ftz, which ptxas
  // widens to a compare and two multiplies around it for results below 2^-126 (a third of the
  // attention forward's softmax instructions); those results are 0 here, as on the tensor cores'
  // f16 inputs they feed.
  static BV_DI float ex2(float a) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(a));
    return y;
  }
  static BV_DI float exp(float a) { return ex2(a * 1.44269504088896341f); }
  static BV_DI float exp2(float a) { return ex2(a); }
  static BV_DI float log(float a) { return __logf(a); }
  static BV_DI float log2(float a) { return log2f(a); }
  static BV_DI float sqrt(float a) { return sqrtf(a); }
  static BV_DI float rsqrt(float a) { return rsqrtf(a); }
#else
  // LLVM intrinsics the AMDGPU backend lowers to v_exp_f32 / v_log_f32 / v_sqrt_f32 itself.
  static BV_DI float exp(float a) { return __builtin_exp2f(a * 1.44269504088896341f); }
  static BV_DI float exp2(float a) { return __builtin_exp2f(a); }
  static BV_DI float log(float a) { return __builtin_log2f(a) * 0.693147180559945309f; }
  static BV_DI float log2(float a) { return __builtin_log2f(a); }
  static BV_DI float sqrt(float a) { return __builtin_sqrtf(a); }
  static BV_DI float rsqrt(float a) { return 1.0f / __builtin_sqrtf(a); }
#endif
  static BV_DI float sigmoid(float a) { return 1.0f / (1.0f + exp(-a)); }
  static BV_DI float tanh(float a) { return tanhf(a); }
  static BV_DI float sin(float a) { return sinf(a); }
  static BV_DI float cos(float a) { return cosf(a); }
  static BV_DI float erf(float a) { return erff(a); }
  static BV_DI float floor(float a) { return floorf(a); }
  static BV_DI float ceil(float a) { return ceilf(a); }
  static BV_DI float abs(float a) { return fabsf(a); }
  static BV_DI float fma(float a, float b, float c) { return fmaf(a, b, c); }
};
template <>
struct fm<double> {
  static BV_DI double exp(double a) { return ::exp(a); }
  static BV_DI double exp2(double a) { return ::exp2(a); }
  static BV_DI double log(double a) { return ::log(a); }
  static BV_DI double log2(double a) { return ::log2(a); }
  static BV_DI double sqrt(double a) { return ::sqrt(a); }
  static BV_DI double rsqrt(double a) { return ::rsqrt(a); }
  static BV_DI double sigmoid(double a) { return 1.0 / (1.0 + ::exp(-a)); }
  static BV_DI double tanh(double a) { return ::tanh(a); }
  static BV_DI double sin(double a) { return ::sin(a); }
  static BV_DI double cos(double a) { return ::cos(a); }
  static BV_DI double erf(double a) { return ::erf(a); }
  static BV_DI double floor(double a) { return ::floor(a); }
  static BV_DI double ceil(double a) { return ::ceil(a); }
  static BV_DI double abs(double a) { return ::fabs(a); }
  static BV_DI double fma(double a, double b, double c) { return ::fma(a, b, c); }
};
}  // namespace detail

#define BV_UNARY(name)                                                                    \
  template <class T, class S, int W>                                                      \
  BV_DI basic_block<T, S, W> name(const basic_block<T, S, W>& x) {                        \
    static_assert(rules::math_float<T>());                                                \
    using C = compute_t<T>;                                                               \
    return detail::map<T>(x, [](T a) { return cvt<T>(detail::fm<C>::name(cvt<C>(a))); }); \
  }                                                                                       \
  template <class T>                                                                      \
  requires Scalar<T> BV_DI auto name(T s) {                                               \
    using R = std::conditional_t<is_float<T>, T, float>;                                  \
    using C = compute_t<R>;                                                               \
    return cvt<R>(detail::fm<C>::name(cvt<C>(s)));                                        \
  }
BV_UNARY(exp)
BV_UNARY(exp2)
BV_UNARY(log)
BV_UNARY(log2)
BV_UNARY(sqrt)
BV_UNARY(rsqrt)
BV_UNARY(sigmoid)
BV_UNARY(tanh)
BV_UNARY(sin)
BV_UNARY(cos)
BV_UNARY(erf)
BV_UNARY(floor)
BV_UNARY(ceil)
#undef BV_UNARY

template <class T, class S, int W>
BV_DI basic_block<T, S, W> abs(const basic_block<T, S, W>& x) {
  if constexpr (is_float<T>)
    return detail::map<T>(
        x, [](T a) { return cvt<T>(detail::fm<compute_t<T>>::abs(cvt<compute_t<T>>(a))); });
  else if constexpr (std::is_same_v<T, bool>)
    return x;
  else
    return detail::map<T>(x, [](T a) { return a < 0 ? static_cast<T>(-a) : a; });
}

// maximum / minimum: a NaN in either operand gives NaN.
template <class X, class Y>
requires detail::BinaryOperands<X, Y> BV_DI auto maximum(X x, Y y) {
  using C = typename detail::result_elem<X, Y>::type;
  return detail::zip<void, C>(x, y, [](auto p, auto q) {
    if constexpr (is_float<C>) return nan_max(p, q);
    return p > q ? p : q;
  });
}
template <class X, class Y>
requires detail::BinaryOperands<X, Y> BV_DI auto minimum(X x, Y y) {
  using C = typename detail::result_elem<X, Y>::type;
  return detail::zip<void, C>(x, y, [](auto p, auto q) {
    if constexpr (is_float<C>) return nan_min(p, q);
    return p < q ? p : q;
  });
}

template <class T, class S, int W>
BV_DI basic_block<T, S, W> fma(const basic_block<T, S, W>& a, const basic_block<T, S, W>& b,
                               const basic_block<T, S, W>& c) {
  using C = compute_t<T>;
  basic_block<T, S, W> out;
  detail::pass_lazy(out, a, b, c);
  detail::generate(out, [&](auto p, int i, int j) {
    if constexpr (is_float<T>)
      return cvt<T>(detail::fm<C>::fma(detail::get<C>(a, p, i, j), detail::get<C>(b, p, i, j),
                                       detail::get<C>(c, p, i, j)));
    else
      return static_cast<T>(detail::get<C>(a, p, i, j) * detail::get<C>(b, p, i, j) +
                            detail::get<C>(c, p, i, j));
  });
  return out;
}

}  // namespace gpu_lang
}  // namespace bv
