// accumulator<T, M, N>(p) on the GPU: dot's accumulator, kept in the tensor cores' order.
//
// Its value is a block of zeros (the interpreter's accumulator is zeros<T, M, N>); what differs is
// where its registers' columns are. The 2-D layout gives lane t of a quad 8 contiguous columns of
// each 32 (lang/bv/layout.hpp), wgmma's accumulator gives it the pairs 2t, 2t + 1 of every 8. A
// dot into a basic_block makes the two agree by permuting the columns of b's image (mma_order):
// pairs of b go to LDS one 4-byte copy at a time. An acc_block instead holds the registers as
// wgmma leaves them when b's image is in natural order (block_ptr.hpp's fmt_bn, 16-byte copies):
// register i of lane t, of 32-column group G = i / 8, holds column 32 G + 8 (i % 8 / 2) + 2 t +
// i % 2, that is mma_order of the layout's column for that register; rows are the layout's.
//
// dot(a, b, acc) updates it in that order: from two block-pointer rings (wgmma, or mma.sync for
// a mixed pair of tile shapes), or with a in registers and b from a ring (wgmma from b's fmt_wm
// slot), with no conversion; any other dot converts it to the layout's order and back (correct,
// slower: a kernel that declares no stages). acc op x for x the same along each row (a scalar,
// or x.col()) stays in that order, register by register. Anything else reads it as the block it
// is: get() (or the implicit conversion, or another operator, store, trans, a reduction) puts it
// in the layout's order once, with a 4 x 4 transpose of pairs among the lanes of each quad. Where
// wgmma cannot update it (AMD, sm_80, other dtypes or shapes), accumulator() is zeros(): a
// basic_block.
//
// for_range(p, lo, hi, step, acc, body) carries an acc_block through its loop as one whose last
// wgmma group may still be in flight (InFlight): a dot into it from two rings waits for the group
// before its own and leaves its own running, so the next step's loads and wgmma issue overlap it
// (the rings keep their prefetch off the slots it reads: block_ptr.hpp's ring_state::inflight).
// Anything that reads such a block waits for the group first, and the loop waits for it on every
// exit, before the path that skips the loop joins it: written as a plain for, ptxas sees the
// skipping path's zeros meet the group in flight and serialises every wgmma (C7515).
#pragma once
#include "bv/gpu/pending.hpp"

namespace bv {
inline namespace gpu_lang {

// The statement's calls inlined first, before the callee is optimised alone (clang 18 and
// later): a for_range body left to the ordinary inliner was optimised without the kernel's block
// pointers around it and cost gfx942's 128x256 matmul an SGPR spill.
#if defined(__clang__) && __clang_major__ >= 18
#define BV_INLINE_CALLS [[clang::always_inline]]
#else
#define BV_INLINE_CALLS
#endif

namespace detail {
// Every wgmma group this warp issued, done (nothing to wait for where there is no wgmma).
BV_DI void wgmma_settle() {
#if BV_NVIDIA
  gpu::prim::wgmma_wait0();
#endif
}
// Accumulators that wgmma updates in the tensor cores' order: f32, whole warpgroups over 64-row
// blocks (the rows wg_a_tile gives a warpgroup), 128k columns (wg_b_tile: from two rings), or,
// for dots of 16-bit operands (E), 64k columns (the N of wgmma with a from registers and b from a
// ring's fmt_wm slot, as the attention forward's p v). Not for other operands: a dot of f32
// operands (CUDA cores) would convert it to the layout's order and back at every call.
template <class T, int R, int C, int W, class E = void>
constexpr bool mma_acc() {
#if BV_NVIDIA
  constexpr int NR = R / (8 * W);
  constexpr bool cols = C % 128 == 0 || (C % 64 == 0 && is_16bit_float<E>);
  return gpu::prim::has_wgmma && std::is_same_v<T, float> && cols && (W == 4 || W == 8) &&
         R % (16 * W) == 0 && (NR & (NR - 1)) == 0 && gpu::layout2d<R, C, W>::WN == 1;
#else
  return false;
#endif
}

// Between the tensor cores' order and the layout's (either way: the map is its own inverse): in
// each row register and 32-column group, pair q of lane t in one order is pair t of lane q in the
// other, a 4 x 4 transpose of pairs among a quad's lanes, in two butterfly steps (lane bit b with
// pair bit b) of shuffles; pairs of 16-bit elements are one word, of f32 two.
template <class T, int NR, int NC>
BV_DI void quad_transpose(const T* in, T* out) {
  static_assert(NC % 8 == 0, "internal: accumulators have 32-column groups");
  constexpr int WP = 2 * static_cast<int>(sizeof(T)) / 4;  // 32-bit words a pair
  static_assert(WP >= 1 && 2 * sizeof(T) % 4 == 0, "internal: pairs of 2- or 4-byte elements");
  const int t = gpu::prim::lane_id() & 3;
#pragma unroll
  for (int g = 0; g < NR * NC / 8; ++g) {
    uint32_t u[4][WP];
    __builtin_memcpy(u, in + 8 * g, sizeof(u));
#pragma unroll
    for (int b = 0; b < 2; ++b) {
      const bool hi = (t >> b) & 1;
#pragma unroll
      for (int q0 = 0; q0 < 4; ++q0) {
        if ((q0 >> b) & 1) continue;
        const int q1 = q0 | (1 << b);
#pragma unroll
        for (int w = 0; w < WP; ++w) {
          // Keep the pair whose bit b is the lane's, swap the other with lane t ^ (1 << b).
          const uint32_t r = gpu::prim::shuffle_xor(hi ? u[q0][w] : u[q1][w], 1 << b);
          if (hi)
            u[q0][w] = r;
          else
            u[q1][w] = r;
        }
      }
    }
    __builtin_memcpy(out + 8 * g, u, sizeof(u));
  }
}
}  // namespace detail

template <class T, int R, int C, int W, bool InFlight = false>
struct acc_block {
  using value_type = T;
  using shape_type = shape<R, C>;
  using block_type = basic_block<T, shape<R, C>, W>;
  static constexpr int waves = W;
  static constexpr int NR = block_type::NR, NC = block_type::NC;
  static_assert(NC % 8 == 0, "internal: acc_block needs 32-column groups (detail::mma_acc)");

  T v[NR * NC];

  // The wgmma group still writing v, if any, done.
  BV_DI void settle() const {
    if constexpr (InFlight) detail::wgmma_settle();
  }
  // The block, in the layout's order.
  BV_DI block_type get() const {
    settle();
    block_type b;
    detail::quad_transpose<T, NR, NC>(v, b.v);
    return b;
  }
  BV_DI operator block_type() const { return get(); }
  // A block's values in the tensor cores' order.
  BV_DI static acc_block of(const block_type& b) {
    acc_block a;
    detail::quad_transpose<T, NR, NC>(b.v, a.v);
    return a;
  }
  // Converted element by element before the transpose, which then moves 16-bit pairs in one
  // word where f32 pairs take two.
  template <class U>
  BV_DI basic_block<U, shape<R, C>, W> to(dtype<U>) const {
    settle();
    acc_block<U, R, C, W> n;
#pragma unroll
    for (int i = 0; i < NR * NC; ++i) n.v[i] = cvt<U>(v[i]);
    return n.get();
  }
#define BV_ACC_COMPOUND(op)                     \
  template <class Y>                            \
  BV_DI acc_block& operator op##=(const Y& y) { \
    *this = of(get() op detail::unview(y));     \
    return *this;                               \
  }
  BV_ACC_COMPOUND(+)
  BV_ACC_COMPOUND(-)
  BV_ACC_COMPOUND(*)
  BV_ACC_COMPOUND(/)
#undef BV_ACC_COMPOUND
};

namespace detail {
// An operand the same in every column of an R-row block: a scalar, or an R x 1 block (x.col()).
template <class Y, int R>
concept col_constant = Scalar<Y> ||(Block<Y>&& std::is_same_v<shape_of<Y>, shape<R, 1>>);
// acc op y for y the same across each row (the attention forward's acc * alpha.col()): register
// by register, in the tensor cores' order, since the rows are the layout's: no conversion.
template <class T, int R, int C, int W, bool F, class Y, class Op>
BV_DI acc_block<T, R, C, W, F> rowwise(const acc_block<T, R, C, W, F>& x, const Y& y, Op op) {
  using A = acc_block<T, R, C, W, F>;
  x.settle();
  A out;
#pragma unroll
  for (int ri = 0; ri < A::NR; ++ri) {
    const T yr = get<T>(y, part_2{}, ri, 0);
#pragma unroll
    for (int ci = 0; ci < A::NC; ++ci) out.v[ri * A::NC + ci] = op(x.v[ri * A::NC + ci], yr);
  }
  return out;
}
}  // namespace detail
#define BV_ACC_ROWWISE(op)                                           \
  template <class T, int R, int C, int W, bool F, class Y>           \
  requires detail::col_constant<Y, R> BV_DI acc_block<T, R, C, W, F> \
  operator op(const acc_block<T, R, C, W, F>& x, const Y& y) {       \
    return detail::rowwise(x, y, [](T a, T b) { return a op b; });   \
  }
BV_ACC_ROWWISE(*)
BV_ACC_ROWWISE(/)
BV_ACC_ROWWISE(+)
BV_ACC_ROWWISE(-)
#undef BV_ACC_ROWWISE

template <class T, int R, int C, int W, bool F>
inline constexpr bool is_view<acc_block<T, R, C, W, F>> = true;

// accumulator<T, M, N>(p): an M x N block of zeros for dot to accumulate into;
// accumulator<T, M, N>(p, dtype<E>{}): the same for dots of E operands.
template <class T, int... D, int W, class E = void>
BV_DI auto accumulator(const program<W>& p, dtype<E> = {}) {
  static_assert(sizeof...(D) == 2,
                "accumulator<T, M, N>(p) is dot's M x N accumulator: give it two dimensions.");
  constexpr int dims[] = {D...};
  if constexpr (detail::mma_acc<T, dims[0], dims[1], W, E>()) {
    acc_block<T, dims[0], dims[1], W> a;
#pragma unroll
    for (int i = 0; i < a.NR * a.NC; ++i) a.v[i] = T(0);
    return a;
  } else {
    return zeros<T, D...>(p);
  }
}

// dot(a, b, acc) into an acc_block: from two rings with no conversion (a's slot in fmt_a, b's in
// fmt_bn, each copied again first if refilled since or in another format; b's ring then issues
// fmt_bn from its next load on), or a from registers and b from a ring (its slot in fmt_wm, rows
// in a's registers' k order, columns natural), anything else through the layout's order.
template <class X, class Y, class C, int M, int N, int W, bool F>
BV_DI acc_block<C, M, N, W, F> dot(const X& x, const Y& y, const acc_block<C, M, N, W, F>& acc) {
  constexpr int K = detail::dot_k<X, Y, M, N>();
#if BV_NVIDIA
  if constexpr (is_bp_tile<X> && is_bp_tile<Y>) {
    using AX = typename X::value_type;
    using BY = typename Y::value_type;
    detail::check_dot_shapes<AX, M, K, N, W>();
    if constexpr (std::is_same_v<AX, BY> && detail::use_tensor_cores<AX, BY, C, M, N, K, W>() &&
                  detail::wg_b_tile<K, N, W>()) {
      if (detail::in_two_rings(x, y) && detail::ring_ok(x, detail::fmt_a) &&
          detail::ring_ok(y, detail::fmt_bn)) {
        acc_block<C, M, N, W, F> out = acc;
        detail::ring_dot<detail::fmt_bn, M, K, N, W, F ? detail::wg_keep_last : detail::wg_sync>(
            x, y, out);
        return out;
      }
    }
  }
  if constexpr (Block<X> && is_bp_tile<Y>) {
    using AX = typename X::value_type;
    using BY = typename Y::value_type;
    if constexpr (std::is_same_v<AX, BY> && detail::use_tensor_cores<AX, BY, C, M, N, K, W>() &&
                  std::is_same_v<C, float> && detail::wg_rs_dot<false, M, K, N, W>()) {
      if (y.in_ring() && detail::ring_ok(y, detail::fmt_wm)) {
        acc.settle();
        acc_block<C, M, N, W, F> out = acc;
        detail::ring_rs_dot<false, M, K, N, W, detail::fmt_wm>(x, y, out);
        return out;
      }
    }
  }
#endif
  return acc_block<C, M, N, W, F>::of(dot(x, y, acc.get()));
}

namespace detail {
template <class X>
struct in_flight_of {  // for_range's carried value: an acc_block in flight, anything else as is
  using type = X;
};
template <class T, int R, int C, int W>
struct in_flight_of<acc_block<T, R, C, W>> {
  using type = acc_block<T, R, C, W, true>;
};
// The same registers under the other InFlight tag.
template <class To, class From>
BV_DI To retag(const From& x) {
  To y;
#pragma unroll
  for (int i = 0; i < From::NR * From::NC; ++i) y.v[i] = x.v[i];
  return y;
}
}  // namespace detail

// for_range(p, lo, hi, step, init, body): acc = init; for (k = lo; k < hi; k += step)
// acc = body(k, acc); the result is acc (the interpreter's definition). On sm_90a an
// accumulator() carried through it keeps each step's wgmma in flight into the next (above).
// (Stages first, as the tile-stream loop's; a loop without streams only checks it.)
template <int Stages = 0, int W, class Acc, class Body>
BV_DI Acc for_range(const program<W>&, int lo, int hi, int step, const Acc& init, Body&& body) {
  static_assert(rules::loop_stages<Stages>());
  using Carry = typename detail::in_flight_of<Acc>::type;
  static_assert(rules::for_range_body<std::invoke_result_t<Body&, int, const Carry&>, Carry>());
  // A step that would never reach hi: the interpreter reports it (loop-step); here a trap, not a
  // printf, which would make ptxas serialise every wgmma of the kernel.
  if (lo < hi && step <= 0) gpu::prim::trap();
  if constexpr (std::is_same_v<Carry, Acc>) {
    // Nothing in flight: the plain loop.
    Acc acc = init;
    for (int k = lo; k < hi; k += step) BV_INLINE_CALLS acc = body(k, static_cast<const Acc&>(acc));
    return acc;
  } else {
    Carry acc = detail::retag<Carry>(init);
    if (lo < hi) {
      int k = lo;
      do {
        BV_INLINE_CALLS acc = body(k, static_cast<const Carry&>(acc));
        k += step;
      } while (k < hi);
      detail::wgmma_settle();
    }
    return detail::retag<Acc>(acc);
  }
}

}  // namespace gpu_lang
}  // namespace bv
