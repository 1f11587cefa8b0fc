// Element types: f32, f16, bf16, i32, i64 and bool, their names, and Triton's promotion rules.
#pragma once
#include <cstdint>
#include <type_traits>

#include "bv/config.hpp"

#if BV_GPU
#include "bv/gpu/half.hpp"  // bv::half, bv::bfloat16 as the GPU compiler's 16-bit types
#else
#include <Eigen/Core>
namespace bv {
using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
}  // namespace bv
#endif

namespace bv {

// A dtype tag: `x.to(bv::f16)` reads like Triton's x.to(tl.float16) and needs no `.template`.
template <class T>
struct dtype {
  using type = T;
};
inline constexpr dtype<float> f32{};
inline constexpr dtype<half> f16{};
inline constexpr dtype<bfloat16> bf16{};
inline constexpr dtype<int32_t> i32{};
inline constexpr dtype<int64_t> i64{};
inline constexpr dtype<bool> i1{};

template <class T>
inline constexpr bool is_element =
    std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> || std::is_same_v<T, bool> ||
    std::is_same_v<T, double>;

template <class T>
inline constexpr bool is_float = std::is_same_v<T, float> || std::is_same_v<T, half> ||
                                 std::is_same_v<T, bfloat16> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool is_16bit_float = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <class T>
inline constexpr bool is_int = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, half>) return "f16";
  else if constexpr (std::is_same_v<T, bfloat16>) return "bf16";
  else if constexpr (std::is_same_v<T, int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, int64_t>) return "i64";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else return "?";
}

// The type 16-bit floats compute in: math functions, reductions and dot run in fp32 as in Triton.
template <class T>
using compute_t = std::conditional_t<is_16bit_float<T>, float, T>;

namespace detail {
template <class A, class B>
constexpr auto promote_fn() {
  if constexpr (std::is_same_v<A, B>) return dtype<A>{};
  else if constexpr (std::is_same_v<A, bool>) return dtype<B>{};
  else if constexpr (std::is_same_v<B, bool>) return dtype<A>{};
  else if constexpr (is_int<A> && is_int<B>) return dtype<std::conditional_t<(sizeof(A) >= sizeof(B)), A, B>>{};
  else if constexpr (is_int<A>) return dtype<B>{};
  else if constexpr (is_int<B>) return dtype<A>{};
  // both floating: the wider; f16 with bf16 meets in f32
  else if constexpr (sizeof(A) == sizeof(B)) return dtype<float>{};
  else return dtype<std::conditional_t<(sizeof(A) > sizeof(B)), A, B>>{};
}
template <class A, class B>
struct promote {
  using type = typename decltype(promote_fn<A, B>())::type;
};

// A block of T combined with a C++ scalar of type S: the scalar does not widen a float block
// (x * 0.5 stays f16 on an f16 block), an integer block meets a floating scalar in f32, and
// integer blocks widen to the scalar's width (i32 offsets times an i64 stride give i64).
template <class T, class S>
struct scalar_promote {
  using type = std::conditional_t<
      is_float<T>, T,
      std::conditional_t<std::is_floating_point_v<S>, float,
                         std::conditional_t<std::is_same_v<T, bool>,
                                            std::conditional_t<std::is_same_v<S, bool>, bool,
                                                               std::conditional_t<(sizeof(S) > 4),
                                                                                  int64_t,
                                                                                  int32_t>>,
                                            std::conditional_t<(sizeof(S) > sizeof(T)), int64_t,
                                                               T>>>>;
};
}  // namespace detail

template <class A, class B>
using promote_t = typename detail::promote<A, B>::type;
template <class T, class S>
using scalar_promote_t = typename detail::scalar_promote<T, S>::type;

}  // namespace bv
