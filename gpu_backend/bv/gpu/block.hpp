// Block values on the GPU: every block is a handful of registers per thread, placed by the maps
// of bv/gpu/layout.hpp. A 2-D block holds NR x NC registers (row registers x column registers);
// a 1-D block holds its flat registers `f` and, for free broadcasting, its values at the places a
// .row() (`r`) or a .col() (`c`) of it needs. Every op computes all three from its operands (a
// load reloads them, an arange recomputes them); the compiler keeps only the ones a kernel uses.
//
// Lazy 1-D blocks: a row reduction whose rows each lie in one wave (reduce.hpp) has its values
// where c wants them and nowhere else; moving them to f and r takes a trip through LDS between two
// barriers. So its result is `lazy`: c holds the values, f and r are placeholders. Ops between
// 1-D blocks compute all three sets as usual and pass the flag on (their c is right, f and r are
// placeholders again), and .col() reads c; whatever reads f or r for real (a store, a load's
// offsets or mask, .row(), a broadcast into a 2-D block, a reduction of the 1-D block, print_if)
// settles the block first: c to LDS and back as f and r. The flag is the same in every thread,
// and after inlining a constant except where a loop carries a lazy block: the attention forward's
// row maximum and sum are lazy through the key loop and settled once, by the store of lse after
// it, where they took four barriers a key step.
#pragma once
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "bv/dtype.hpp"
#include "bv/gpu/layout.hpp"
#include "bv/operand.hpp"
#include "bv/ops.hpp"
#include "bv/rules.hpp"
#include "bv/shape.hpp"

namespace bv {
inline namespace gpu_lang {

template <class T, class S, int W = default_waves>
struct basic_block;

template <class T, int... D>
using block = basic_block<T, shape<D...>, default_waves>;

}  // namespace gpu_lang

template <class T, class S, int W>
struct operand_traits<gpu_lang::basic_block<T, S, W>> {
  static constexpr bool block = true;
  using elem = T;
  using shape_type = S;
  static constexpr int waves = W;
};

inline namespace gpu_lang {

// Conversions between element types; 16-bit floats go through float.
template <class To, class From>
BV_DI To cvt(const From& x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (is_16bit_float<To>) {
    return To(static_cast<float>(x));
  } else if constexpr (is_16bit_float<From>) {
    return static_cast<To>(static_cast<float>(x));
  } else {
    return static_cast<To>(x);
  }
}

// max / min in which a NaN operand wins, as on the CPU. On sm_80+ one instruction for f32
// (max.NaN.f32, instead of two compares and two selects: attention's row maxima); it also orders
// -0 below +0, where the portable form returns the second operand of two zeros.
template <class A>
BV_DI A nan_max(A a, A b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<A, float>) {
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  return (a != a || a > b) ? a : b;
}
template <class A>
BV_DI A nan_min(A a, A b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<A, float>) {
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  return (a != a || a < b) ? a : b;
}

namespace detail {
using namespace bv::lang;  // operand traits and concepts (bv/operand.hpp)

// Which registers a generator fills: a 1-D block's flat, row-role or col-role registers, or a
// 2-D block's registers.
struct part_f {};
struct part_r {};
struct part_c {};
struct part_2 {};
}  // namespace detail

template <class T, int R, int C, int W>
struct basic_block<T, shape<R, C>, W> {
  static_assert(rules::element<T>());
  using value_type = T;
  using shape_type = shape<R, C>;
  using layout = gpu::layout2d<R, C, W>;
  static constexpr int waves = W;
  static constexpr int size = R * C;
  static constexpr int rank = 2;
  static constexpr int rows = R;
  static constexpr int cols = C;
  static constexpr int NR = layout::NR, NC = layout::NC;

  T v[NR * NC];

  template <class U>
  BV_DI basic_block<U, shape<R, C>, W> to(dtype<U>) const {
    basic_block<U, shape<R, C>, W> out;
#pragma unroll
    for (int i = 0; i < NR * NC; ++i) out.v[i] = cvt<U>(v[i]);
    return out;
  }
  template <class Y>
  BV_DI basic_block& operator+=(const Y& y);
  template <class Y>
  BV_DI basic_block& operator-=(const Y& y);
  template <class Y>
  BV_DI basic_block& operator*=(const Y& y);
  template <class Y>
  BV_DI basic_block& operator/=(const Y& y);
};

template <class T, int N, int W>
struct basic_block<T, shape<N>, W> {
  static_assert(rules::element<T>());
  using value_type = T;
  using shape_type = shape<N>;
  using layout = gpu::layout1d<N, W>;
  using row_layout = gpu::layout2d<1, N, W>;
  using col_layout = gpu::layout2d<N, 1, W>;
  static constexpr int waves = W;
  static constexpr int size = N;
  static constexpr int rank = 1;
  static constexpr int rows = 1;
  static constexpr int cols = N;
  static constexpr int NF = layout::regs;
  // The row and column roles are kept while they are small (a block that large could not be
  // broadcast into a 2-D block in registers anyway); beyond that .row()/.col() go through LDS.
  static constexpr int role_limit = 64;
  static constexpr bool row_role = row_layout::NC <= role_limit;
  static constexpr bool col_role = col_layout::NR <= role_limit;
  static constexpr int NRow = row_role ? row_layout::NC : 0;  // registers of .row()
  static constexpr int NCol = col_role ? col_layout::NR : 0;  // registers of .col()

  T f[NF];
  T r[NRow > 0 ? NRow : 1];
  T c[NCol > 0 ? NCol : 1];
  // Only c holds the values (above; never without col_role). An int on AMD: hipcc 5.2 kept a
  // struct's bool members carried through a for_range in scratch (20 bytes in gfx90a's attention
  // forward in halves of D, whose carried m and l are such blocks). A bool on NVIDIA, where an int
  // moved ptxas's register counts by 1 or 2 in most attention kernels.
  std::conditional_t<BV_NVIDIA, bool, int> lazy = false;

  template <class U>
  BV_DI basic_block<U, shape<N>, W> to(dtype<U>) const {
    basic_block<U, shape<N>, W> out;
#pragma unroll
    for (int i = 0; i < NF; ++i) out.f[i] = cvt<U>(f[i]);
#pragma unroll
    for (int i = 0; i < NRow; ++i) out.r[i] = cvt<U>(r[i]);
#pragma unroll
    for (int i = 0; i < NCol; ++i) out.c[i] = cvt<U>(c[i]);
    out.lazy = lazy;
    return out;
  }

  // The same values with f and r filled from c, through LDS (through_lds).
  BV_DI basic_block settle() const {
    basic_block out = *this;
    if constexpr (col_role) {
      const T* s = through_lds();
#pragma unroll
      for (int i = 0; i < NF; ++i) out.f[i] = s[gpu::flat_of<N, W>(i)];
#pragma unroll
      for (int i = 0; i < NRow; ++i) out.r[i] = s[gpu::col_of<1, N, W>(i)];
    }
    out.lazy = false;
    return out;
  }

  // Triton's x[None, :] and x[:, None]: no data moves (but a lazy block settles for .row()).
  BV_DI basic_block<T, shape<1, N>, W> row() const {
    using O = basic_block<T, shape<1, N>, W>;
    O out;
    if constexpr (row_role) {
      static_assert(O::NR == 1 && O::NC == NRow, "row(): layout mismatch");
      const basic_block x = lazy ? settle() : *this;
#pragma unroll
      for (int i = 0; i < NRow; ++i) out.v[i] = x.r[i];
    } else {
      const T* s = through_lds();
#pragma unroll
      for (int ci = 0; ci < O::NC; ++ci) out.v[ci] = s[gpu::col_of<1, N, W>(ci)];
    }
    return out;
  }
  BV_DI basic_block<T, shape<N, 1>, W> col() const {
    using O = basic_block<T, shape<N, 1>, W>;
    O out;
    if constexpr (col_role) {
      static_assert(O::NR == NCol, "col(): layout mismatch");
#pragma unroll
      for (int ri = 0; ri < O::NR; ++ri)
#pragma unroll
        for (int ci = 0; ci < O::NC; ++ci) out.v[ri * O::NC + ci] = c[ri];
    } else {
      const T* s = through_lds();
#pragma unroll
      for (int ri = 0; ri < O::NR; ++ri)
#pragma unroll
        for (int ci = 0; ci < O::NC; ++ci) out.v[ri * O::NC + ci] = s[gpu::row_of<N, 1, W>(ri)];
    }
    return out;
  }
  // The whole block in LDS (a layout conversion): valid until the next op that uses LDS. Each
  // element is written by one thread: from f (its owner in the flat map), or for a lazy block
  // from c (its owner in an N x 1 block's map), the only registers that hold it.
  BV_DI const T* through_lds() const {
    T* s = gpu::prim::lds<T, N, gpu::lds_tag::scratch_a>();
    gpu::prim::barrier();
    if (col_role && lazy) {
#pragma unroll
      for (int i = 0; i < NCol; ++i)
        if (gpu::owner2d<N, 1, W>(i, 0)) s[gpu::row_of<N, 1, W>(i)] = c[i];
    } else {
#pragma unroll
      for (int i = 0; i < NF; ++i)
        if (gpu::owner1d<N, W>(i)) s[gpu::flat_of<N, W>(i)] = f[i];
    }
    gpu::prim::barrier();
    return s;
  }

  template <class Y>
  BV_DI basic_block& operator+=(const Y& y);
  template <class Y>
  BV_DI basic_block& operator-=(const Y& y);
  template <class Y>
  BV_DI basic_block& operator*=(const Y& y);
  template <class Y>
  BV_DI basic_block& operator/=(const Y& y);
};

namespace detail {
template <class X>
inline constexpr bool is_block1d = false;
template <class T, int N, int W>
inline constexpr bool is_block1d<basic_block<T, shape<N>, W>> = true;

// Whether x is a lazy 1-D block (false for anything else).
template <class X>
BV_DI bool lazy_of(const X& x) {
  if constexpr (is_block1d<X>)
    return x.lazy;
  else
    return false;
}
// out, an op's result, lazy when it is 1-D and any of the op's operands is.
template <class B, class... X>
BV_DI void pass_lazy(B& out, const X&... xs) {
  if constexpr (B::rank == 1) out.lazy = (lazy_of(xs) || ...);
}
// x with every register set holding its values (anything but a lazy 1-D block as is).
template <class X>
BV_DI X settled(const X& x) {
  if constexpr (is_block1d<X>) {
    if (x.lazy) return x.settle();
  }
  return x;
}
// An operand of an op whose result has shape S: a 1-D operand of a 2-D result gives its r
// registers, so it settles; into a 1-D result it stays as it is, lazy or not (the result then
// takes the flag: lazy_of).
template <class S, class X>
BV_DI X operand_for(const X& x) {
  if constexpr (S::rank == 2)
    return settled(x);
  else
    return x;
}

// Fill every register of `out` with f(part, i, j): (part_2, ri, ci) for 2-D blocks, (part_*, i,
// 0) for the three register sets of 1-D blocks.
template <class B, class F>
BV_DI void generate(B& out, F&& f) {
  if constexpr (B::rank == 2) {
#pragma unroll
    for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
      for (int ci = 0; ci < B::NC; ++ci) out.v[ri * B::NC + ci] = f(part_2{}, ri, ci);
  } else {
#pragma unroll
    for (int i = 0; i < B::NF; ++i) out.f[i] = f(part_f{}, i, 0);
#pragma unroll
    for (int i = 0; i < B::NRow; ++i) out.r[i] = f(part_r{}, i, 0);
#pragma unroll
    for (int i = 0; i < B::NCol; ++i) out.c[i] = f(part_c{}, i, 0);
  }
}

// The value of operand x (a scalar or a block broadcastable to the target) at register (a, b) of
// part P of the target, converted to C.
template <class C, class P, class X>
BV_DI C get(const X& x, P, int a, int b) {
  if constexpr (Scalar<X>) {
    return cvt<C>(x);
  } else {
    using XB = std::remove_cvref_t<X>;
    if constexpr (std::is_same_v<P, part_2>) {
      if constexpr (XB::rank == 1) {
        static_assert(XB::row_role || XB::size == 1,
                      "This 1-D block is too large to broadcast into a 2-D block in registers; "
                      "broadcast its .row() (which goes through LDS) instead.");
        return cvt<C>(x.r[XB::cols == 1 ? 0 : b]);
      } else
        return cvt<C>(x.v[(XB::rows == 1 ? 0 : a) * XB::NC + (XB::cols == 1 ? 0 : b)]);
    } else {
      static_assert(XB::rank == 1, "internal: a 2-D operand cannot feed a 1-D result");
      const int i = XB::size == 1 ? 0 : a;
      if constexpr (std::is_same_v<P, part_f>)
        return cvt<C>(x.f[i]);
      else if constexpr (std::is_same_v<P, part_r>)
        return cvt<C>(x.r[i]);
      else
        return cvt<C>(x.c[i]);
    }
  }
}

// Apply f to x and y broadcast to a common shape, computing in compute_t<C> and producing Out
// (C when Out is void).
template <class Out, class C, class X, class Y, class F>
BV_DI auto zip(const X& x, const Y& y, F f) {
  using S = typename shape_join<shape_of<X>, shape_of<Y>>::type;
  constexpr int W = join_waves<X, Y>();
  using O = std::conditional_t<std::is_void_v<Out>, C, Out>;
  using CC = compute_t<C>;
  const X xs = operand_for<S>(x);
  const Y ys = operand_for<S>(y);
  basic_block<O, S, W> out;
  generate(out, [&](auto p, int a, int b) {
    return cvt<O>(f(get<CC>(xs, p, a, b), get<CC>(ys, p, a, b)));
  });
  pass_lazy(out, x, y);
  return out;
}

template <class O, class T, class S, int W, class F>
BV_DI basic_block<O, S, W> map(const basic_block<T, S, W>& x, F f) {
  basic_block<O, S, W> out;
  generate(out, [&](auto p, int a, int b) { return f(get<T>(x, p, a, b)); });
  pass_lazy(out, x);
  return out;
}
}  // namespace detail

#define BV_ARITH(op, ch)                                                      \
  template <class X, class Y>                                                 \
  requires detail::BinaryOperands<X, Y> BV_DI auto operator op(X x, Y y) {    \
    using C = typename detail::result_elem<X, Y>::type;                       \
    return detail::zip<void, C>(x, y, [](auto a, auto b) { return a op b; }); \
  }
BV_ARITH_OPS(BV_ARITH)
#undef BV_ARITH

namespace detail {
// A 2-D comparison's result as the AMD device keeps it: a lane mask (an SGPR pair) is made from
// a 0/1 VGPR where it is used. The compiler hoists a loop-invariant comparison (attention's key
// and query bounds, one per column register) out of the loop, and as masks they held an SGPR
// pair each for the whole loop and spilled; as 0/1 values they take a VGPR each, of which a wave
// has more, and each use costs one compare. The empty volatile asm stays in the loop, so what is
// hoisted is the 0/1 value, not the mask. 1-D comparisons stay masks: the norms' row loops hold
// their column masks across the loop on 16 waves, where VGPRs are the scarcer (128 a lane).
template <bool TwoD>
BV_DI bool as_lane_value(bool b) {
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  if constexpr (TwoD) {
    int v = b;
    asm volatile("" : "+v"(v));
    return v != 0;
  }
#endif
  return b;
}
template <class X, class Y>
inline constexpr bool two_d_result = shape_join<shape_of<X>, shape_of<Y>>::type::rank == 2;
}  // namespace detail

#define BV_CMP(op, c1, c2)                                                 \
  template <class X, class Y>                                              \
  requires detail::BinaryOperands<X, Y> BV_DI auto operator op(X x, Y y) { \
    using C = typename detail::result_elem<X, Y>::type;                    \
    return detail::zip<bool, C>(x, y, [](auto a, auto b) {                 \
      return detail::as_lane_value<detail::two_d_result<X, Y>>(a op b);    \
    });                                                                    \
  }
BV_COMPARE_OPS(BV_CMP)
#undef BV_CMP

#define BV_BITWISE(op, name)                                                                     \
  template <class X, class Y>                                                                    \
  requires detail::BinaryOperands<X, Y> BV_DI auto operator op(X x, Y y) {                       \
    using C = typename detail::result_elem<X, Y>::type;                                          \
    static_assert(rules::bitwise<C>());                                                          \
    return detail::zip<void, C>(x, y, [](auto a, auto b) { return static_cast<C>(a op b); });    \
  }
BV_BITWISE_OPS(BV_BITWISE)
#undef BV_BITWISE

template <class X, class Y>
requires detail::BinaryOperands<X, Y> BV_DI auto operator%(X x, Y y) {
  using C = typename detail::result_elem<X, Y>::type;
  return detail::zip<void, C>(x, y, [](auto a, auto b) {
    if constexpr (is_float<C>)
      return fmodf(static_cast<float>(a), static_cast<float>(b));
    else
      return a % b;
  });
}

template <class X, class Y>
requires detail::BinaryOperands<X, Y> BV_DI auto operator&&(X x, Y y) { return x & y; }
template <class X, class Y>
requires detail::BinaryOperands<X, Y> BV_DI auto operator||(X x, Y y) { return x | y; }

template <class T, class S, int W>
BV_DI basic_block<T, S, W> operator-(const basic_block<T, S, W>& x) {
  return detail::map<T>(x, [](T a) { return cvt<T>(-cvt<compute_t<T>>(a)); });
}
template <class T, class S, int W>
BV_DI basic_block<bool, S, W> operator!(const basic_block<T, S, W>& x) {
  return detail::map<bool>(x, [](T a) { return !cvt<bool>(a); });
}
template <class T, class S, int W>
BV_DI basic_block<T, S, W> operator~(const basic_block<T, S, W>& x) {
  static_assert(rules::bit_not<T>());
  if constexpr (std::is_same_v<T, bool>)
    return !x;
  else
    return detail::map<T>(x, [](T a) { return static_cast<T>(~a); });
}

#define BV_COMPOUND(op)                                                          \
  template <class T, class S, int W>                                             \
  template <class Y>                                                             \
  BV_DI basic_block<T, S, W>& basic_block<T, S, W>::operator op##=(const Y& y) { \
    return *this = (*this op y).to(dtype<T>{});                                  \
  }
#define BV_COMPOUND_BOTH(op)                                                                   \
  template <class T, int R, int C, int W>                                                      \
  template <class Y>                                                                           \
  BV_DI basic_block<T, shape<R, C>, W>& basic_block<T, shape<R, C>, W>::operator op##=(        \
      const Y& y) {                                                                            \
    return *this = (*this op y).to(dtype<T>{});                                                \
  }                                                                                            \
  template <class T, int N, int W>                                                             \
  template <class Y>                                                                           \
  BV_DI basic_block<T, shape<N>, W>& basic_block<T, shape<N>, W>::operator op##=(const Y& y) { \
    return *this = (*this op y).to(dtype<T>{});                                                \
  }
BV_COMPOUND_BOTH(+)
BV_COMPOUND_BOTH(-)
BV_COMPOUND_BOTH(*)
BV_COMPOUND_BOTH(/)
#undef BV_COMPOUND_BOTH
#undef BV_COMPOUND

// where(mask, a, b): a where the mask is set, b elsewhere; all three broadcast together.
template <class M, class X, class Y>
requires(Block<M> && (Block<X> || Scalar<X>)&&(Block<Y> || Scalar<Y>)) BV_DI
    auto where(M mask, X x, Y y) {
  static_assert(rules::where_mask<detail::elem_of<M>>());
  using R = detail::where_result<M, X, Y>;
  using C = typename R::elem;
  using S = typename R::shape_type;
  constexpr int W = R::waves;
  const M ms = detail::operand_for<S>(mask);
  const X xs = detail::operand_for<S>(x);
  const Y ys = detail::operand_for<S>(y);
  basic_block<C, S, W> out;
  detail::generate(out, [&](auto p, int a, int b) {
    return detail::get<bool>(ms, p, a, b) ? detail::get<C>(xs, p, a, b)
                                          : detail::get<C>(ys, p, a, b);
  });
  detail::pass_lazy(out, mask, x, y);
  return out;
}

template <class U, class T, class S, int W>
BV_DI basic_block<U, S, W> cast(const basic_block<T, S, W>& x, dtype<U> d = {}) {
  return x.to(d);
}

// transpose(x): rows become columns, a layout conversion through LDS. tl.trans is trans() in
// dot.hpp: a lazy view, so that dot can read a transposed operand straight from its own staging.
namespace detail {
template <class T, int R, int C, int W>
BV_DI basic_block<T, shape<C, R>, W> transpose(const basic_block<T, shape<R, C>, W>& x) {
  using X = basic_block<T, shape<R, C>, W>;
  using O = basic_block<T, shape<C, R>, W>;
  constexpr int ld = C + 1;  // odd stride: the transposed reads spread over the banks
  T* s = gpu::prim::lds<T, R * ld, gpu::lds_tag::scratch_b>();
  gpu::prim::barrier();
#pragma unroll
  for (int ri = 0; ri < X::NR; ++ri)
#pragma unroll
    for (int ci = 0; ci < X::NC; ++ci)
      if (gpu::owner2d<R, C, W>(ri, ci))
        s[gpu::row_of<R, C, W>(ri) * ld + gpu::col_of<R, C, W>(ci)] = x.v[ri * X::NC + ci];
  gpu::prim::barrier();
  O out;
#pragma unroll
  for (int ri = 0; ri < O::NR; ++ri)
#pragma unroll
    for (int ci = 0; ci < O::NC; ++ci)
      out.v[ri * O::NC + ci] = s[gpu::col_of<C, R, W>(ci) * ld + gpu::row_of<C, R, W>(ri)];
  return out;
}
}  // namespace detail

// broadcast_to<D...>(x): x repeated to a larger shape (tl.broadcast_to); no data moves.
template <int... D, class T, class S, int W>
BV_DI basic_block<T, shape<D...>, W> broadcast_to(const basic_block<T, S, W>& x) {
  static_assert(rules::broadcast_to<(broadcasts_to<S, shape<D...>>)>());
  using O = basic_block<T, shape<D...>, W>;
  const basic_block<T, S, W> xs = detail::operand_for<shape<D...>>(x);
  O out;
  detail::generate(out, [&](auto p, int a, int b) { return detail::get<T>(xs, p, a, b); });
  detail::pass_lazy(out, x);
  return out;
}

}  // namespace gpu_lang
}  // namespace bv
