// for_range over tile streams on the GPU: for_range(p, lo, hi, step, init, along(bp, by, bc)...,
// body) is acc = init; for step i at k = lo + i * step: acc = body(k, tile_i..., acc), tile_i of
// each stream being load(advance(bp, i * by), bc) (the interpreter's definition, lang's
// tile_stream).
//
// Where every stream's tile is one the TMA copies in wgmma's own image (sm_90a: a wgmma A tile in
// fmt_a, a B tile in fmt_bn; block_ptr.hpp) and the launch gave its block pointer a ring with a
// tensor map, the loop runs the pipeline itself, with nothing in the step but the work:
//  - before the loop, the tiles of steps 0 .. D - 1 are issued (D = stages - 1), each into the
//    slot after the ring's last tile (slot and mbarrier phase follow the ring's count of tiles);
//  - step i waits for its tiles' mbarriers and hands the body views of the slots (pinned bp_tiles:
//    known fresh and in their format, so a dot from two of them is wgmma straight from the slots,
//    its group left in flight into the next step with an accumulator(), and with no count to read,
//    no record to write and no proxy fence);
//  - after the body, once this warp's group of step i - 1 is done (wgmma_wait1) and every warp is
//    past it (one barrier), the tiles of step i + D go into the slots step i - 1 read.
// What the ring-by-ring loads do at every step (learn the step from the last load, test the
// prefetch window, keep a record of the tile in flight) is known here from the loop's own
// arguments. The body must not load the streamed block pointers itself (the interpreter reports
// it); the loop checks the rings' counts at its end and traps where one moved. Anything else
// (another target, dtype or tile shape, no ring, a tensor the TMA cannot copy, a wgmma A tile whose
// rows cross the tensor's edge, unaligned columns) runs the same loop with each step's tiles loaded
// through the block pointers (their rings pipeline them, as in a kernel's own loop).
#pragma once
#include <climits>
#include <utility>

#include "bv/gpu/accumulator.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
// Streams the loop can run by the TMA, by the tile's type.
template <class BP>
constexpr bool tma_stream_tile() {
#if BV_NVIDIA
  using T = typename BP::element_type;
  constexpr int R = BP::shape_type::rows, C = BP::shape_type::cols, W = BP::waves;
  return gpu::prim::has_tma && ring_tile<T, R, C, W>() &&
         (wg_a_tile<R, C, W>() || wg_b_tile<R, C, W>());
#else
  return false;
#endif
}

#if BV_NVIDIA
// ... and by its block pointer: a ring with a tensor map, box columns 16-byte aligned at every
// step, and a wgmma A tile's rows inside the tensor at every step (its map cannot bound them).
template <class T, int R, int C, int W>
BV_DI bool tma_streamable(const tile_stream<block_ptr<T, R, C, W>>& s) {
  const auto& b = s.bp;
  if (b.stages < 2 || b.tmap == nullptr || b.off1 % 8 != 0 || s.by.d1 % 8 != 0) return false;
  if constexpr (wg_a_tile<R, C, W>()) return s.by.d0 == 0 && b.off0 >= 0 && b.off0 + R <= b.shape0;
  return true;
}
template <class T, int R, int C, int W>
BV_DI ring_ref<T, R, C, W> ring_of(const block_ptr<T, R, C, W>& b) {
  return {b.base, b.shape0, b.shape1, b.stride0, b.stride1, b.stages, b.meta, b.ring_at, b.tmap};
}
// Issue the stream's tile of step j (tile number t0 + j) into its slot, after the slot's previous
// tile landed when that tile is not one this loop waited for (wait_old).
template <class T, int R, int C, int W>
BV_DI void stream_issue(const tile_stream<block_ptr<T, R, C, W>>& s, int t0, int j, bool wait_old) {
  const auto r = ring_of(s.bp);
  const int t = t0 + j, slot = t % r.stages;
  const uint32_t bar = r.bar(slot);
  if (wait_old && t >= r.stages) gpu::prim::mbar_wait(bar, ((t - r.stages) / r.stages) & 1);
  ring_copy_tma<R, C, W>(r.tmap, gpu::prim::lds_addr(r.ring() + slot * r.tile_bytes), bar,
                         s.bp.off0 + j * s.by.d0, s.bp.off1 + j * s.by.d1);
}
// The view of the stream's tile of step j, waited for.
template <class T, int R, int C, int W>
BV_DI bp_tile<T, R, C, W> stream_view(const tile_stream<block_ptr<T, R, C, W>>& s, int t0, int j) {
  const auto r = ring_of(s.bp);
  ring_wait(r, t0 + j);
  bp_tile<T, R, C, W> v{r, s.bp.off0 + j * s.by.d0, s.bp.off1 + j * s.by.d1, s.bc.dim0, s.bc.dim1};
  v.t = t0 + j;
  v.fmt = wg_a_tile<R, C, W>() ? fmt_a : fmt_bn;
  v.pinned = true;
  return v;
}

template <class Acc, class Body, size_t... I, class... BP>
BV_DI Acc stream_loop_tma(std::index_sequence<I...>, int lo, int hi, int step, const Acc& init,
                          Body& body, const tile_stream<BP>&... s) {
  using Carry = typename in_flight_of<Acc>::type;
  const int n = static_cast<int>((static_cast<int64_t>(hi) - lo + step - 1) / step);
  // Tiles in flight ahead of the step: one slot less than the smallest ring has (its slot of the
  // step before is refilled only after that step).
  int D = INT_MAX;
  ((D = s.bp.stages - 1 < D ? s.bp.stages - 1 : D), ...);
  // Each ring's count of tiles so far (this wave's copy; all equal): this loop's first tile.
  const int t0[] = {*ring_of(s.bp).count()...};
  // No wave still reads a slot the first issues refill (a view from before the loop).
  gpu::prim::barrier();
#pragma unroll 1
  for (int j = 0; j < D && j < n; ++j) (stream_issue(s, t0[I], j, true), ...);
  Carry acc = retag<Carry>(init);
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    BV_INLINE_CALLS acc =
        body(lo + i * step, stream_view(s, t0[I], i)..., static_cast<const Carry&>(acc));
    if (i + D < n) {
      // Every warp's group of step i - 1 done: its slots are free.
      gpu::prim::wgmma_wait1();
      gpu::prim::barrier();
      (stream_issue(s, t0[I], i + D, i + D < s.bp.stages), ...);
    }
  }
  wgmma_settle();
  // The rings' counts move past this loop's tiles (a later load of the block pointers starts
  // after them, and the program's end waits for the right phases). A count that moved during the
  // loop is a load of a streamed block pointer in the body, whose copy may have gone into a slot
  // this loop still read: trap (a printf would serialise every wgmma of the kernel).
  if (((*ring_of(s.bp).count() != t0[I]) || ...)) gpu::prim::trap();
  ((*ring_of(s.bp).count() = t0[I] + n), ...);
  return retag<Acc>(acc);
}
#endif
}  // namespace detail

// for_range(p, lo, hi, step, init, along(bp, by, bc)..., body): one or two tile streams.
template <int W, class Acc, class BP0, class Body>
BV_DI Acc for_range(const program<W>& p, int lo, int hi, int step, const Acc& init,
                    tile_stream<BP0> s0, Body&& body) {
#if BV_NVIDIA
  if constexpr (detail::tma_stream_tile<BP0>()) {
    if (lo < hi && step > 0 && detail::tma_streamable(s0))
      return detail::stream_loop_tma(std::make_index_sequence<1>{}, lo, hi, step, init, body, s0);
  }
#endif
  return for_range(p, lo, hi, step, init, [&](int k, const auto& acc) {
    auto out = body(k, load(s0.bp, s0.bc), acc);
    s0.bp = advance(s0.bp, s0.by);
    return out;
  });
}
template <int W, class Acc, class BP0, class BP1, class Body>
BV_DI Acc for_range(const program<W>& p, int lo, int hi, int step, const Acc& init,
                    tile_stream<BP0> s0, tile_stream<BP1> s1, Body&& body) {
#if BV_NVIDIA
  if constexpr (detail::tma_stream_tile<BP0>() && detail::tma_stream_tile<BP1>()) {
    if (lo < hi && step > 0 && detail::tma_streamable(s0) && detail::tma_streamable(s1))
      return detail::stream_loop_tma(std::make_index_sequence<2>{}, lo, hi, step, init, body, s0,
                                     s1);
  }
#endif
  return for_range(p, lo, hi, step, init, [&](int k, const auto& acc) {
    // The tiles in the order they are written, as a kernel's own loop would load them.
    auto t0 = load(s0.bp, s0.bc);
    auto t1 = load(s1.bp, s1.bc);
    auto out = body(k, t0, t1, acc);
    s0.bp = advance(s0.bp, s0.by);
    s1.bp = advance(s1.bp, s1.by);
    return out;
  });
}

}  // namespace gpu_lang
}  // namespace bv
