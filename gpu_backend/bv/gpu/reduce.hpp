// Reductions on the GPU: each thread folds its registers, a wave folds across lanes with
// butterfly shuffles, and waves meet in LDS. Replicated registers (a block smaller than its
// layout's tile) take part once. Axis reductions give a 1-D block in its three register sets.
#pragma once
#include "bv/gpu/block.hpp"
#include "bv/gpu/memory.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, bool>, int32_t, compute_t<T>>;

template <class R>
BV_DI R lowest() {
  if constexpr (std::is_same_v<R, float>)
    return -__builtin_huge_valf();
  else if constexpr (std::is_same_v<R, double>)
    return -__builtin_huge_val();
  else if constexpr (std::is_same_v<R, int64_t>)
    return static_cast<int64_t>(0x8000000000000000ull);
  else
    return static_cast<R>(0x80000000u);
}
template <class R>
BV_DI R highest() {
  if constexpr (std::is_same_v<R, float>)
    return __builtin_huge_valf();
  else if constexpr (std::is_same_v<R, double>)
    return __builtin_huge_val();
  else if constexpr (std::is_same_v<R, int64_t>)
    return static_cast<int64_t>(0x7fffffffffffffffull);
  else
    return static_cast<R>(0x7fffffff);
}

struct op_add {
  template <class A>
  BV_DI A operator()(A a, A b) const {
    return a + b;
  }
};
struct op_max {  // a NaN wins, as on the CPU
  template <class A>
  BV_DI A operator()(A a, A b) const {
    return nan_max(a, b);
  }
};
struct op_min {
  template <class A>
  BV_DI A operator()(A a, A b) const {
    return nan_min(a, b);
  }
};

// An (value, index) pair for argmax: the larger value, the smaller index on ties.
template <class R>
struct arg_acc {
  R v;
  int32_t i;
};
struct op_argmax {
  template <class R>
  BV_DI arg_acc<R> operator()(arg_acc<R> a, arg_acc<R> b) const {
    return (b.v > a.v || (b.v == a.v && b.i < a.i)) ? b : a;
  }
};

// Two sums carried together (sum2): one trip through the lanes and LDS for both.
template <class R>
struct pair_acc {
  R a, b;
};
struct op_add2 {
  template <class R>
  BV_DI pair_acc<R> operator()(pair_acc<R> x, pair_acc<R> y) const {
    return {x.a + y.a, x.b + y.b};
  }
};

template <class A>
BV_DI A shuffle_acc(A a, int mask) {
  if constexpr (sizeof(A) < 4) {
    return static_cast<A>(gpu::prim::shuffle_xor(static_cast<int32_t>(a), mask));
  } else if constexpr (requires { a.i; }) {
    return {gpu::prim::shuffle_xor(a.v, mask), gpu::prim::shuffle_xor(a.i, mask)};
  } else if constexpr (requires { a.b; }) {
    return {gpu::prim::shuffle_xor(a.a, mask), gpu::prim::shuffle_xor(a.b, mask)};
  } else {
    return gpu::prim::shuffle_xor(a, mask);
  }
}

// Fold across the lanes of a wave whose lane bits are selected by [first, first * count).
template <int First, int Count, class A, class Op>
BV_DI A wave_fold(A a, Op op) {
#pragma unroll
  for (int m = First; m < First * Count; m <<= 1) a = op(a, shuffle_acc(a, m));
  return a;
}

template <class A, class Op, int W>
BV_DI A program_fold(A a, Op op) {
  a = wave_fold<1, gpu::prim::wave_size>(a, op);
  if constexpr (W > 1) {
    A* s = gpu::prim::lds<A, W, gpu::lds_tag::program_fold>();
    gpu::prim::barrier();
    if (gpu::prim::lane_id() == 0) s[gpu::prim::wave_id()] = a;
#ifndef BV_EMU_MUTATION_BARRIER
    // (Test hook: the emulator's mutation tests, tests/emulator/CMakeLists.txt, leave this
    // barrier out; the softmax test must catch the waves reading partials not yet written.)
    gpu::prim::barrier();
#endif
    a = s[0];
#pragma unroll
    for (int w = 1; w < W; ++w) a = op(a, s[w]);
  }
  return a;
}

// A thread's registers folded into one value. Sums, maxima and minima fold in pairs (a tree of
// depth log2 N), which the hardware runs N / 2 at a time where a chain waits on each result: the
// attention softmax's row maxima and sums are such chains, 16 long a row at 64 keys. init is their
// identity, so the result is the chain's (the sum's up to rounding: pairwise, its error grows as
// log N). Other folds (argmax's first index on ties, whose NaN handling is not associative) keep
// the chain.
template <class Op>
inline constexpr bool folds_in_pairs =
    std::is_same_v<Op, op_add> || std::is_same_v<Op, op_max> || std::is_same_v<Op, op_min>;
template <class A, int N, class Op>
BV_DI A fold_registers(A (&x)[N], A init, Op op) {
  if constexpr (folds_in_pairs<Op>) {
#pragma unroll
    for (int w = 1; w < N; w *= 2)
#pragma unroll
      for (int j = 0; j + w < N; j += 2 * w) x[j] = op(x[j], x[j + w]);
    return x[0];
  } else {
    A a = init;
#pragma unroll
    for (int j = 0; j < N; ++j) a = op(a, x[j]);
    return a;
  }
}

// Every element of x folded into one value (each thread gets it). f(value, flat index) -> A.
template <class A, class Op, class T, class S, int W, class F>
BV_DI A reduce_all(const basic_block<T, S, W>& x0, A init, Op op, F make) {
  const basic_block<T, S, W> x = settled(x0);
  A acc = init;
  if constexpr (S::rank == 1) {
    using B = basic_block<T, S, W>;
#pragma unroll
    for (int i = 0; i < B::NF; ++i)
      if (gpu::owner1d<S::size, W>(i)) acc = op(acc, make(x.f[i], gpu::flat_of<S::size, W>(i)));
  } else {
    using B = basic_block<T, S, W>;
#pragma unroll
    for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
      for (int ci = 0; ci < B::NC; ++ci)
        if (gpu::owner2d<S::rows, S::cols, W>(ri, ci))
          acc = op(acc, make(x.v[ri * B::NC + ci], gpu::row_of<S::rows, S::cols, W>(ri) * S::cols +
                                                       gpu::col_of<S::rows, S::cols, W>(ci)));
  }
  return program_fold<A, Op, W>(acc, op);
}

// A 2-D block folded along Axis into a 1-D block of the kept extent. make(value, reduced index).
template <int Axis, class A, class Op, class T, int R, int C, int W, class F, class Out>
BV_DI auto reduce_axis(const basic_block<T, shape<R, C>, W>& x, A init, Op op, F make, Out out_of) {
  using L = gpu::layout2d<R, C, W>;
  using B = basic_block<T, shape<R, C>, W>;
  constexpr int K = Axis == 1 ? R : C;           // kept extent
  constexpr int NK = Axis == 1 ? B::NR : B::NC;  // kept registers
  constexpr int NX = Axis == 1 ? B::NC : B::NR;  // reduced registers
  constexpr int WX = Axis == 1 ? L::WN : L::WM;  // waves along the reduced dimension
  const int lane = gpu::prim::lane_id(), wave = gpu::prim::wave_id();
  A acc[NK];
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    A part[NX];  // this thread's values of the kept index k, init where it holds none
#pragma unroll
    for (int j = 0; j < NX; ++j) {
      const int ri = Axis == 1 ? k : j, ci = Axis == 1 ? j : k;
      const bool own = Axis == 1 ? L::cols::raw(L::lane_col(lane), L::wave_col(wave), ci) < C
                                 : L::rows::raw(L::lane_row(lane), L::wave_row(wave), ri) < R;
      part[j] = own ? make(x.v[ri * B::NC + ci],
                           Axis == 1 ? gpu::col_of<R, C, W>(ci) : gpu::row_of<R, C, W>(ri))
                    : init;
    }
    acc[k] = fold_registers(part, init, op);
    // lanes along the reduced dimension
    if constexpr (gpu::tile2d::lanes_cols_first == (Axis == 1))
      acc[k] = wave_fold<1, (Axis == 1 ? gpu::tile2d::tpw1 : gpu::tile2d::tpw0)>(acc[k], op);
    else
      acc[k] = wave_fold<(Axis == 1 ? gpu::tile2d::tpw0 : gpu::tile2d::tpw1),
                         (Axis == 1 ? gpu::tile2d::tpw1 : gpu::tile2d::tpw0)>(acc[k], op);
  }
  using O = decltype(out_of(init));
  // Each row in one wave: every lane of it holds the row's value, where c wants it (a K x 1
  // block's rows are the R x C block's), so the result is lazy (block.hpp) and nothing moves.
  if constexpr (Axis == 1 && WX == 1 && basic_block<O, shape<K>, W>::col_role) {
    basic_block<O, shape<K>, W> out;
    static_assert(out.NCol == NK, "internal: a K x 1 block's rows are the K x C block's");
    // c holds the rows' values; f and r are placeholders until the block settles: values of this
    // thread's own rows, so that what ops compute on them before then is computed on values the
    // kernel's data holds.
#pragma unroll
    for (int k = 0; k < NK; ++k) out.c[k] = out_of(acc[k]);
#pragma unroll
    for (int i = 0; i < out.NF; ++i) out.f[i] = out.c[0];
#pragma unroll
    for (int i = 0; i < out.NRow; ++i) out.r[i] = out.c[0];
    out.lazy = true;
    return out;
  }
  // waves along the reduced dimension meet in LDS: s[wave coordinate][kept index]
  A* s = gpu::prim::lds<A, WX * K, gpu::lds_tag::axis_fold>();
  gpu::prim::barrier();
  const int lx = Axis == 1 ? L::lane_col(lane) : L::lane_row(lane);
  const int wx = Axis == 1 ? L::wave_col(wave) : L::wave_row(wave);
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    const bool own_k = Axis == 1 ? L::rows::raw(L::lane_row(lane), L::wave_row(wave), k) < R
                                 : L::cols::raw(L::lane_col(lane), L::wave_col(wave), k) < C;
    const int idx = Axis == 1 ? gpu::row_of<R, C, W>(k) : gpu::col_of<R, C, W>(k);
    if (lx == 0 && own_k) s[wx * K + idx] = acc[k];
  }
  gpu::prim::barrier();
  auto value = [&](int idx) {
    A a = s[idx];
#pragma unroll
    for (int w = 1; w < WX; ++w) a = op(a, s[w * K + idx]);
    return out_of(a);
  };
  basic_block<O, shape<K>, W> out;
#pragma unroll
  for (int i = 0; i < out.NF; ++i) out.f[i] = value(gpu::flat_of<K, W>(i));
#pragma unroll
  for (int i = 0; i < out.NRow; ++i) out.r[i] = value(gpu::col_of<1, K, W>(i));
#pragma unroll
  for (int i = 0; i < out.NCol; ++i) out.c[i] = value(gpu::row_of<K, 1, W>(i));
  return out;
}

template <int Axis, class S>
constexpr void check_axis() {
  static_assert(rules::reduction_axis<Axis, S::rank>());
}

struct ident {
  template <class A>
  BV_DI A operator()(A a) const {
    return a;
  }
};
}  // namespace detail

#define BV_REDUCE(name, opname, init_expr)                                                         \
  template <class T, class S, int W>                                                               \
  BV_DI auto name(const basic_block<T, S, W>& x) {                                                 \
    using R = detail::acc_t<T>;                                                                    \
    return detail::reduce_all(x, init_expr, detail::opname{}, [](T v, int) { return cvt<R>(v); }); \
  }                                                                                                \
  template <int Axis, class T, class S, int W>                                                     \
  BV_DI auto name(const basic_block<T, S, W>& x) {                                                 \
    detail::check_axis<Axis, S>();                                                                 \
    using R = detail::acc_t<T>;                                                                    \
    if constexpr (S::rank == 1)                                                                    \
      return name(x);                                                                              \
    else                                                                                           \
      return detail::reduce_axis<Axis>(                                                            \
          x, init_expr, detail::opname{}, [](T v, int) { return cvt<R>(v); }, detail::ident{});    \
  }
BV_REDUCE(sum, op_add, R(0))
BV_REDUCE(max, op_max, detail::lowest<R>())
BV_REDUCE(min, op_min, detail::highest<R>())
#undef BV_REDUCE

// sum2(x, y): {sum(x), sum(y)} for two blocks of one shape, folded together: each thread adds
// its registers of both, then one butterfly and one trip through LDS (two barriers) carry the
// pair, where two sum() calls take two trips (four barriers). The interpreter's sum2
// (bv/cpu/reduce.hpp) gives the same two sums.
template <class R>
struct sum2_result {
  R first, second;
};
template <class T1, class T2, class S, int W>
BV_DI auto sum2(const basic_block<T1, S, W>& x0, const basic_block<T2, S, W>& y0) {
  const basic_block<T1, S, W> x = detail::settled(x0);
  const basic_block<T2, S, W> y = detail::settled(y0);
  using R = detail::acc_t<T1>;
  static_assert(std::is_same_v<R, detail::acc_t<T2>>,
                "sum2 takes two blocks of the same accumulation type (f32 with f32, ...)");
  detail::pair_acc<R> acc{R(0), R(0)};
  if constexpr (S::rank == 1) {
    using B = basic_block<T1, S, W>;
#pragma unroll
    for (int i = 0; i < B::NF; ++i)
      if (gpu::owner1d<S::size, W>(i)) {
        acc.a += cvt<R>(x.f[i]);
        acc.b += cvt<R>(y.f[i]);
      }
  } else {
    using B = basic_block<T1, S, W>;
#pragma unroll
    for (int ri = 0; ri < B::NR; ++ri)
#pragma unroll
      for (int ci = 0; ci < B::NC; ++ci)
        if (gpu::owner2d<S::rows, S::cols, W>(ri, ci)) {
          acc.a += cvt<R>(x.v[ri * B::NC + ci]);
          acc.b += cvt<R>(y.v[ri * B::NC + ci]);
        }
  }
  acc = detail::program_fold<detail::pair_acc<R>, detail::op_add2, W>(acc, detail::op_add2{});
  return sum2_result<R>{acc.a, acc.b};
}

// argmax: the index of the largest element (the first one on ties), as i32.
template <class T, class S, int W>
BV_DI int32_t argmax(const basic_block<T, S, W>& x) {
  static_assert(rules::argmax_1d<S::rank>());
  using R = detail::acc_t<T>;
  return detail::reduce_all(x, detail::arg_acc<R>{detail::lowest<R>(), 0x7fffffff},
                            detail::op_argmax{},
                            [](T v, int i) {
                              return detail::arg_acc<R>{cvt<R>(v), i};
                            })
      .i;
}
template <int Axis, class T, class S, int W>
BV_DI auto argmax(const basic_block<T, S, W>& x) {
  detail::check_axis<Axis, S>();
  if constexpr (S::rank == 1) {
    return argmax(x);
  } else {
    using R = detail::acc_t<T>;
    return detail::reduce_axis<Axis>(
        x, detail::arg_acc<R>{detail::lowest<R>(), 0x7fffffff}, detail::op_argmax{},
        [](T v, int i) {
          return detail::arg_acc<R>{cvt<R>(v), i};
        },
        [](detail::arg_acc<R> a) { return a.i; });
  }
}

}  // namespace gpu_lang
}  // namespace bv
