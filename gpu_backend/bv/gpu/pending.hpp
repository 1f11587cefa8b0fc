// A dot's result that the tensor cores may still be computing: pending_block<T, M, N, W>.
//
// dot(x, trans(y)) of two ring tiles on sm_90a is wgmma reading both slots in place
// (block_ptr.hpp). Where y is a tile stream's view (tile_loop.hpp: its slot is the loop's until the
// step ends, and the loop waits for every group before it refills one), dot leaves the group in
// flight and returns its registers as a pending_block: a view, so that its first read (get(), the
// conversion to a block, an operator, a reduction, store) waits for the group. What a kernel
// writes between the dot and that read runs while the tensor cores compute it: the attention
// forward's variant 5 issues the next key block's scores, then runs this block's softmax
// (FlashAttention-3's order within a warpgroup). Its value is the interpreter's, dot's block. A
// dot into a pending_block (the sum of products over the halves of D) chains its group behind the
// first without waiting. Any other dot of ring tiles waits for its group at once: a later load may
// refill its slots, which the ring's record (ring_state::inflight) would then have to guard.
#pragma once
#include "bv/gpu/block_ptr.hpp"

namespace bv {
inline namespace gpu_lang {

#if BV_NVIDIA
template <class T, int R, int C, int W>
struct pending_block {
  using value_type = T;
  using shape_type = shape<R, C>;
  using block_type = basic_block<T, shape<R, C>, W>;
  static constexpr int waves = W;

  block_type b;  // the registers the group writes, in the layout's order

  // Every group of this warp done (wgmma waits by count, not by group).
  BV_DI void settle() const { gpu::prim::wgmma_wait0(); }
  BV_DI block_type get() const {
    settle();
    return b;
  }
  BV_DI operator block_type() const { return get(); }
  // A new value, once the group can no longer write the registers.
  BV_DI pending_block& operator=(const block_type& x) {
    settle();
    b = x;
    return *this;
  }
  template <class U>
  BV_DI basic_block<U, shape<R, C>, W> to(dtype<U> d) const {
    return get().to(d);
  }
#define BV_PENDING_COMPOUND(op)                     \
  template <class Y>                                \
  BV_DI pending_block& operator op##=(const Y& y) { \
    block_type x = get();                           \
    x op## = y;                                     \
    b = x;                                          \
    return *this;                                   \
  }
  BV_PENDING_COMPOUND(+)
  BV_PENDING_COMPOUND(-)
  BV_PENDING_COMPOUND(*)
  BV_PENDING_COMPOUND(/)
#undef BV_PENDING_COMPOUND
};
template <class T, int R, int C, int W>
inline constexpr bool is_view<pending_block<T, R, C, W>> = true;

namespace detail {
// Whether dot(x, y) has wgmma's path from two rings with y read K-major (the transposed tile's
// overload in block_ptr.hpp), the one whose group can be left in flight.
template <class X, class Y>
constexpr bool pending_dot() {
  if constexpr (is_bp_tile<X> && is_bp_trans<Y>) {
    using AX = typename X::value_type;
    using BY = typename Y::value_type;
    using SX = typename X::shape_type;
    using SY = typename Y::shape_type;
    using C = compute_t<promote_t<AX, BY>>;
    constexpr int M = SX::rows, K = SX::cols, N = SY::cols, W = X::waves;
    return std::is_same_v<AX, BY> && std::is_same_v<C, float> && SY::rows == K &&
           use_tensor_cores<AX, BY, C, M, N, K, W>() && wg_kmajor_dot<M, K, N, W>();
  } else {
    return false;
  }
}
}  // namespace detail

// dot(x, trans(y), acc) into a pending block: a stream's y chains a group behind acc's; any other
// waits for acc, then for its own product.
template <class X, class Y, class C, int M, int N, int W>
requires(is_bp_tile<X>&& is_bp_trans<Y>) BV_DI pending_block<C, M, N, W> dot(
    const X& x, const Y& y, const pending_block<C, M, N, W>& acc) {
  constexpr int K = detail::dot_k<X, Y, M, N>();
  detail::check_dot_shapes<typename X::value_type, M, K, N, W>();
  pending_block<C, M, N, W> out;
  if constexpr (detail::pending_dot<X, Y>()) {
    if (detail::in_two_rings(x, y.src) && detail::ring_ok(x, detail::fmt_a) &&
        detail::ring_ok(y.src, detail::fmt_wm)) {
      if (y.src.pinned) {
        out.b = acc.b;  // a chain's registers, maybe in flight: wgmma orders its own accesses
        detail::ring_dot<detail::fmt_wm, M, K, N, W, detail::wg_keep_all, true>(x, y.src, out.b);
      } else {
        out.b = acc.get();
        detail::ring_dot<detail::fmt_wm, M, K, N, W, detail::wg_sync, true>(x, y.src, out.b);
      }
      return out;
    }
  }
  out.b = dot(x, y, acc.get());
  return out;
}
#endif

// dot(x, y) with a transposed tile (dot(q, trans(k))): from its zeros. On sm_90a, of two ring
// tiles that wgmma reads in place, a pending_block (above).
template <class X, class Y>
requires((is_bp_trans<X> || is_bp_trans<Y>)&&(View<X> || Block<X>)&&(View<Y> || Block<Y>)) BV_DI
    auto dot(const X& x, const Y& y) {
#if BV_NVIDIA
  if constexpr (detail::pending_dot<X, Y>()) {
    using Z = decltype(detail::dot_zeros<X, Y>());
    return dot(x, y,
               pending_block<typename Z::value_type, Z::rows, Z::cols, Z::waves>{
                   detail::dot_zeros<X, Y>()});
  } else {
    return dot(x, y, detail::dot_zeros<X, Y>());
  }
#else
  return dot(x, y, detail::dot_zeros<X, Y>());
#endif
}

}  // namespace gpu_lang
}  // namespace bv
