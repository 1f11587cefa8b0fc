// for_range over tile streams on the GPU: for_range(p, lo, hi, step, init, along(bp, by, bc)...,
// body) is acc = init; for step i at k = lo + i * step: acc = body(k, tile_i..., acc), tile_i of
// each stream being load(advance(bp, i * by), bc) (the interpreter's definition, lang's
// tile_stream).
//
// Where every stream's tile is one the TMA copies in an image wgmma reads (sm_90a: a wgmma A tile
// in fmt_a stepped along its columns and in fmt_wm along its rows, a B tile in fmt_bn, any other
// tile of 64k columns in fmt_wm; block_ptr.hpp) and the launch gave its block pointer a ring with
// a tensor map of that image, the loop runs the pipeline itself, with nothing in the step but the
// work (S: the rings' slots):
//  - before the loop, the tiles of steps 0 .. S - 2 are issued, each into the slot after the
//    ring's last tile (slot and mbarrier phase follow the ring's count of tiles);
//  - step i waits for its tiles' mbarriers and hands the body views of the slots (pinned bp_tiles:
//    known fresh and in their format, so a dot that reads them as they lie is wgmma straight from
//    the slots, with no count to read, no record to write and no proxy fence; one that needs
//    another format reads them into registers);
//  - carrying an accumulator(), each step's wgmma group stays in flight into the next: after the
//    body, once this warp's group of step i - 1 is done (wgmma_wait1) and every warp is past it
//    (one barrier), the tiles of step i + S - 1 go into the slots step i - 1 read;
//  - carrying anything else (the attention forward's accumulator, maxima and sums), nothing is in
//    flight between steps: step S - 1's tiles go before the loop too, and at the start of step i
//    step i + S - 1's, so that S - 1 steps' copies are in flight while a step's work runs. On one
//    warpgroup, the waves that issue them wait for every warp to be past step i - 1 (a named
//    barrier the others arrive at); on more, no warp waits: each one adds itself to a count in
//    LDS, and the warp that counts last issues the refill (past_step), so that one warpgroup's
//    softmax runs beside the other's wgmma. Which loops count follows docs/PERFORMANCE.md's
//    measurement ("Refills by the last warp past a step": on one warpgroup, and in the matmul's
//    loop, the count was slower than the barriers).
// A held stream (along {0, 0}: the attention forward's q) is loaded once before the loop through
// its ring (by the TMA or by cp.async, then a proxy fence), in its stream's format, and every
// step's view of it is pinned too: a dot reading it checks nothing, records nothing and fences
// nothing at the steps, where a tile loaded before the loop and read in the body has its ring's
// count read, its freshness tested, its tile recorded and a proxy fence at every dot.
// What the ring-by-ring loads do at every step (learn the step from the last load, test the
// prefetch window, keep a record of the tile in flight) is known here from the loop's own
// arguments. The body must not load the streamed block pointers itself (the interpreter reports
// it); the loop checks the rings' counts at its end and traps where one moved. Anything else
// (another target, dtype or tile shape, no ring, a tensor the TMA cannot copy, a wgmma A tile's or
// an fmt_wm tile's rows across the tensor's edge at some step, unaligned columns) runs the same
// loop with each step's tiles loaded through the block pointers (their rings pipeline them, as in
// a kernel's own loop). On AMD, where block pointers have no rings, the loop loads the next step's
// tiles into registers during this step's dot (stream_loop_amd below).
#pragma once
#include <algorithm>
#include <climits>
#include <tuple>
#include <utility>

#include "bv/gpu/accumulator.hpp"
#include "bv/gpu/wide_tile.hpp"

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
         (wg_a_tile<R, C, W>() || wg_b_tile<R, C, W>() || wm_chunk_tile<R, C, W>());
#else
  return false;
#endif
}

#if BV_NVIDIA
// The format a stream's tiles take: the image its reader needs, told by the tile's shape and, for
// a wgmma A tile, by its step, as a ring's loads tell it (fmt_for_step): along its columns (K) it
// is a's, fmt_a; along its rows it is read as wgmma's B (the attention forward's k and v at 128
// keys a block), fmt_wm. The step is a constant of the inlined kernel, so the format folds and
// every dot on the view compiles to one path (a format known only at run time left the matmul's
// dot a second path, and ptxas serialised its wgmma: 18% slower).
template <int R, int C, int W>
BV_DI int stream_fmt(const index2& by) {
  if constexpr (wg_a_tile<R, C, W>())
    return by.d0 == 0 ? fmt_a : fmt_wm;
  else
    return wg_b_tile<R, C, W>() ? fmt_bn : fmt_wm;
}
// The waves that issue a stream's boxes (for an A tile, in either of its maps' formats).
template <class BP>
constexpr int stream_issuers() {
  constexpr int R = BP::shape_type::rows, C = BP::shape_type::cols, W = BP::waves;
  if constexpr (wg_a_tile<R, C, W>())
    return std::max(tma_tile_issuers<R, C, W, fmt_a>(), tma_tile_issuers<R, C, W, fmt_wm>());
  else
    return tma_tile_issuers<R, C, W, (wg_b_tile<R, C, W>() ? fmt_bn : fmt_wm)>();
}
// ... and by its block pointer over n steps: a held stream, a ring; a moving one, a ring with a
// tensor map of the stream's format (a wgmma A tile's map is fmt_a's or fmt_wm's: block_ptr.hpp's
// tmap_wm), box columns 16-byte aligned at every step, and for an fmt_a tile (whose map cannot
// bound the rows) the rows inside the tensor at every step; for an fmt_wm tile rows from
// multiples of 32, past the tensor's end only where its map bounds them (wm_rows_bounded).
template <class T, int R, int C, int W>
BV_DI bool tma_streamable(const tile_stream<block_ptr<T, R, C, W>>& s, int n) {
  const auto& b = s.bp;
  if (s.held()) return b.stages >= 1;
  if (b.stages < 2 || b.tmap == nullptr || b.off1 % 8 != 0 || s.by.d1 % 8 != 0) return false;
  const int f = stream_fmt<R, C, W>(s.by);
  if constexpr (wg_a_tile<R, C, W>())
    if (tmap_wm(b.tmap) != (f == fmt_wm)) return false;
  if (f == fmt_a) return s.by.d0 == 0 && b.off0 >= 0 && b.off0 + R <= b.shape0;
  if (f == fmt_wm)
    return b.off0 % 32 == 0 && s.by.d0 % 32 == 0 && s.by.d0 >= 0 && b.off0 >= 0 &&
           wm_rows_bounded(
               b.shape0, static_cast<int64_t>(b.off0) + static_cast<int64_t>(n - 1) * s.by.d0 + R);
  return true;
}
template <class T, int R, int C, int W>
BV_DI ring_ref<T, R, C, W> ring_of(const block_ptr<T, R, C, W>& b) {
  return {b.base, b.shape0, b.shape1, b.stride0, b.stride1, b.stages, b.meta, b.ring_at, b.tmap};
}
// Whether the loop can run the streams by the TMA: each one can (tma_streamable), one at least
// moves, and no two share a ring (two streams of one block pointer would issue into the same
// slots). The ring offsets are constants of the inlined kernel: the test folds.
template <class... BP>
BV_DI bool tma_loop(int n, const tile_stream<BP>&... s) {
  const int at[] = {s.bp.ring_at...};
  constexpr int k = sizeof...(BP);
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < k; ++j)
      if (at[i] == at[j]) return false;
  return (tma_streamable(s, n) && ...) && (!s.held() || ...);
}
// Every tile from before the loop still in the ring's slots (t0: the loop's first) waited for, by
// every thread: a ring's prefetch may still be in flight, only the issuing waves refill a slot,
// and a wave that waits for tile t by its phase's parity must not be a phase behind (the parity
// of t - stages is t's: the wait would pass at once).
template <class T, int R, int C, int W>
BV_DI void ring_drain(const ring_ref<T, R, C, W>& r, int t0) {
#pragma unroll 1
  for (int t = t0 > r.stages ? t0 - r.stages : 0; t < t0; ++t) ring_wait(r, t);
}
// Issue the stream's tile of step j (tile number t0 + j) into its slot, whose previous tile every
// thread waited for (in the loop, or ring_drain before it). A held stream's one tile was loaded
// before the loop: nothing to issue. One: every box by the calling wave's lane 0 (tma_boxes).
template <bool One = false, class T, int R, int C, int W>
BV_DI void stream_issue(const tile_stream<block_ptr<T, R, C, W>>& s, const ring_ref<T, R, C, W>& r,
                        int t0, int j) {
  if (s.held()) return;
  const int t = t0 + j, slot = t % r.stages;
  const uint32_t bar = r.bar(slot);
  const uint32_t img = gpu::prim::lds_addr(r.ring() + slot * r.tile_bytes);
  const int o0 = s.bp.off0 + j * s.by.d0, o1 = s.bp.off1 + j * s.by.d1;
  if constexpr (wg_a_tile<R, C, W>()) {
    if (stream_fmt<R, C, W>(s.by) == fmt_wm)
      ring_copy_tma_wm<R, C, W, One>(tmap_addr(r.tmap), img, bar, o0, o1);
    else
      ring_copy_tma<R, C, W, One>(r.tmap, img, bar, o0, o1);
  } else if constexpr (wg_b_tile<R, C, W>()) {
    ring_copy_tma<R, C, W, One>(r.tmap, img, bar, o0, o1);
  } else {
    ring_copy_tma_wm<R, C, W, One>(r.tmap, img, bar, o0, o1);
  }
}
// A held stream's tile (loaded before the loop) pinned: fresh and in the stream's format, copied
// again if not. The format folds, so that every dot on the view compiles to one path (stream_fmt).
template <class T, int R, int C, int W>
BV_DI bp_tile<T, R, C, W> stream_pin(const tile_stream<block_ptr<T, R, C, W>>& s,
                                     bp_tile<T, R, C, W> v) {
  const int f = stream_fmt<R, C, W>(s.by);
  if (!v.fresh() | (v.fmt != f)) v.refetch(f);
  v.fmt = f;
  v.pinned = true;
  return v;
}
// The view of the stream's tile of step j, waited for (a held stream's: its one tile, h).
template <class T, int R, int C, int W>
BV_DI bp_tile<T, R, C, W> stream_view(const tile_stream<block_ptr<T, R, C, W>>& s,
                                      const ring_ref<T, R, C, W>& r, int t0, int j,
                                      const bp_tile<T, R, C, W>& h) {
  if (s.held()) return h;
  ring_wait(r, t0 + j);
  bp_tile<T, R, C, W> v{r, s.bp.off0 + j * s.by.d0, s.bp.off1 + j * s.by.d1, s.bc.dim0, s.bc.dim1};
  v.t = t0 + j;
  v.fmt = stream_fmt<R, C, W>(s.by);
  v.pinned = true;
  return v;
}

// The slots a tile loop counts the warps past (stream_loop_tma; a loop over more refills after a
// barrier), and their counts: a static LDS array for each loop (Tag: its body's type).
inline constexpr int max_counted_slots = 16;
template <class Tag>
BV_DI uint32_t* past_counts() {
  __shared__ uint32_t c[max_counted_slots];
  return c;
}
template <class Acc, class Body, class Held, size_t... I, class... BP>
BV_DI Acc stream_loop_tma(std::index_sequence<I...>, int lo, int hi, int step, const Acc& init,
                          Body& body, const Held& held, const tile_stream<BP>&... s) {
  using Carry = typename in_flight_of<Acc>::type;
  const int n = for_range_steps(lo, hi, step);
  const std::tuple<decltype(ring_of(s.bp))...> r{ring_of(s.bp)...};
  // An accumulator() carried: each step's wgmma group stays in flight into the next, so step
  // i - 1's slots are free only after step i's group is issued (then wgmma_wait1). Otherwise every
  // read of step i - 1 is done when step i starts.
  constexpr bool keep = !std::is_same_v<Carry, Acc>;
  // The smallest moving stream's ring's slots: step i + S - 1's tiles go into step i - 1's slots.
  int S = INT_MAX;
  ((S = !s.held() && s.bp.stages < S ? s.bp.stages : S), ...);
  // The held streams' tiles, each in its ring's slot for the whole loop; copies by cp.async
  // visible to wgmma's reads (a fence once here, none at the dots).
  const Held h{(s.held() ? stream_pin(s, std::get<I>(held)) : std::get<I>(held))...};
  if ((s.held() || ...)) gpu::prim::fence_proxy_async();
  // Each ring's count of tiles so far (this wave's copy; all equal): a moving stream's first
  // tile in this loop, a held stream's count past its tile.
  const int t0[] = {gpu::prim::wave_uniform(*std::get<I>(r).count())...};
  ((s.held() ? void() : ring_drain(std::get<I>(r), t0[I])), ...);
  // The program's waves (every stream's) and threads.
  constexpr int W = std::max({BP::waves...});
  static_assert(((BP::waves == W) && ...), "internal: a program's block pointers share its waves");
  constexpr int threads = 32 * W;
  // Refills counted (past_step) in loops that carry no accumulator() on more than one warpgroup.
  constexpr bool counting = !keep && W > 4;
  // The count of warps past each slot's step, zeroed before the barrier that every count follows.
  // A count only grows by whole rounds of the program's warps, so it could go on from an earlier
  // loop's value, but LDS is not zeroed at a program's start.
  uint32_t* past = nullptr;
  if constexpr (counting) {
    past = past_counts<Body>();
    if (gpu::prim::wave_id() == 0 && gpu::prim::lane_id() < max_counted_slots)
      past[gpu::prim::lane_id()] = 0;
  }
  // No wave still reads a slot the first issues refill (a view from before the loop).
  gpu::prim::barrier();
  // Before the first step: S - 1 steps' tiles (S where no group stays in flight).
  const int ahead = keep ? S - 1 : S;
  // The waves that issue any moving stream's boxes (folds: the steps are constants of the inlined
  // kernel).
  const int issuers = std::max({s.held() ? 0 : stream_issuers<BP>()...});
  // Only the issuing waves run a refill (tma_boxes: their lanes 0 arrive for every thread).
  const bool issuer = gpu::prim::wave_id() < issuers;
  // Step i - 1's slots free, every warp past its reads: each warp's lane 0 counts itself on the
  // slot's count, and the warp that counts last issues step i + S - 1's boxes into them, all from
  // its lane 0, so no warp waits for another. The count's acquire-release makes every warp's
  // reads of the slots happen before the refill's copies.
  const auto past_step = [&](int i) BV_INLINE_LAMBDA {
    if (gpu::prim::lane_id() == 0) {
      const uint32_t n_past = gpu::prim::lds_count(gpu::prim::lds_addr(&past[(i - 1) % S]));
      if (n_past % W == W - 1) (stream_issue<true>(s, std::get<I>(r), t0[I], i + S - 1), ...);
    }
  };
  const bool counted = counting && S <= max_counted_slots;
  if (issuer) {
#pragma unroll 1
    for (int j = 0; j < ahead && j < n; ++j) (stream_issue(s, std::get<I>(r), t0[I], j), ...);
  }
  Carry acc = [&] {
    if constexpr (keep)
      return retag<Carry>(init);
    else
      return init;
  }();
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (!keep && i > 0 && i + S - 1 < n) {
      // Step i - 1's slots are free once every warp is past it: counted, or the waves that issue
      // boxes wait at a named barrier per slot, which the others arrive at. A warp cannot reach
      // step i + S, and count or arrive at this slot again, before the refill: that step's tiles
      // come from it.
      if (counted) {
        past_step(i);
      } else {
        if (S > 15)  // more slots than named barriers
          gpu::prim::barrier();
        else if (issuer)
          gpu::prim::named_sync(1 + (i - 1) % S, threads);
        else
          gpu::prim::named_arrive(1 + (i - 1) % S, threads);
        if (issuer) (stream_issue(s, std::get<I>(r), t0[I], i + S - 1), ...);
      }
    }
    BV_INLINE_CALLS acc =
        body(lo + i * step, stream_view(s, std::get<I>(r), t0[I], i, std::get<I>(h))...,
             static_cast<const Carry&>(acc));
    // A dot the body left in flight and never read (pending.hpp) done before its slots refill.
    if constexpr (!keep) wgmma_settle();
    if (keep && i + S - 1 < n) {
      // Every warp's group of step i - 1 done: its slots are free.
      gpu::prim::wgmma_wait1();
      gpu::prim::barrier();
      if (issuer) (stream_issue(s, std::get<I>(r), t0[I], i + S - 1), ...);
    }
  }
  wgmma_settle();
  // The rings' counts move past this loop's tiles (a later load of the block pointers starts
  // after them, and the program's end waits for the right phases). A count that moved during the
  // loop is a load of a streamed block pointer in the body, whose copy may have gone into a slot
  // this loop still read: trap (a printf would serialise every wgmma of the kernel).
  if (((*std::get<I>(r).count() != t0[I]) || ...)) gpu::prim::trap();
  ((s.held() ? void() : void(*std::get<I>(r).count() = t0[I] + n)), ...);
  if constexpr (keep)
    return retag<Acc>(acc);
  else
    return acc;
}
#endif
}  // namespace detail

namespace detail {
// body(k, tiles..., acc), every call in it inlined first (accumulator.hpp's BV_INLINE_CALLS: a
// loop body optimised apart from the kernel's block pointers cost gfx942's 128x256 matmul an SGPR
// spill).
template <class Body, class Tiles, class Acc, size_t... I>
BV_DI auto call_body(Body& body, int k, const Tiles& t, const Acc& acc, std::index_sequence<I...>) {
  BV_INLINE_CALLS return body(k, std::get<I>(t)..., acc);
}
// A held stream's tile where the loop runs a step (runs), else its view unloaded: a ring tile's
// view names its ring either way, so that the ring's offset stays a constant (a view that was
// the loaded one or a default-made one lost it, and dots of two rings could no longer tell them
// apart: static LDS staging, and the attention forward spilled 1.4 KB on sm_90a).
template <class BP>
BV_DI auto held_tile(const tile_stream<BP>& s, bool runs) {
  using V = decltype(load(s.bp, s.bc));
  if constexpr (is_bp_tile<V>) {
    V v = view_of(s.bp, s.bc);
    if (runs) v = load(s.bp, s.bc);
    return v;
  } else {
    return runs ? load(s.bp, s.bc) : V{};
  }
}
#if !BV_NVIDIA
// AMD: the next step's tiles in flight during this step's products. A step's tiles come to the
// body as prefetch_tiles (views of their blocks, with the loop's hook); a dot of two of them
// stages them in LDS, then calls the hook, which loads the next step's tiles into registers before
// the MFMAs read LDS, so their latency hides behind the products. Before, each step's loads went
// out after the last step's MFMAs, and at the 16-bit matmul's 128x256x64 tile (2 waves a SIMD,
// one workgroup a CU) no other workgroup's work hid them either. The loads are the ones the step
// would make, moved a step earlier: a body must not store over a later step's tile (the sm_90a
// pipeline issues its copies stages - 1 steps ahead). The hook runs once a step, after the body
// if no dot ran it; the last step loads nothing.
//
// A block pointer's offsets go through an empty asm at every step: otherwise clang hoists each
// register's offset along the dimension a stream does not advance (b's columns in the matmul) out
// of the loop, about 60 SGPRs live through it, and gfx942's 128x256 matmul spilled 4 of them.
template <class BP>
BV_DI void in_step(BP& bp) {
#if defined(__HIP_DEVICE_COMPILE__)
  asm volatile("" : "+s"(bp.off0), "+s"(bp.off1));
#else
  (void)bp;
#endif
}
// A stream's tile on AMD: 16 bytes a lane where wide_map fits it (wide_tile.hpp), else the block.
template <class BP>
using amd_tile =
    std::conditional_t<wide_stream<BP>(), wide_tile<BP>, typename wide_tile<BP>::block_type>;
template <class BP>
BV_DI amd_tile<BP> amd_load(const tile_stream<BP>& s) {
  if constexpr (wide_stream<BP>())
    return wide_load(s.bp, s.bc);
  else
    return load(s.bp, s.bc);
}
// The loop's state: the streams, the tiles of the step to come, and whether this step's hook ran.
// Member functions, not lambdas, so that all of it is inlined and stays in registers (lambdas
// left to the inliner kept the streams in scratch: 620 bytes on gfx942's 128x256 matmul).
// Stages: the loop's for_range<Stages>, which a dot of two of its tiles reads (dot.hpp: 2 or more
// stage its operands through two LDS images in turn); images counts the dots staged so far.
template <int Stages, class Tiles, class... BP>
struct prefetcher {
  static constexpr int stages = Stages;
  std::tuple<tile_stream<BP>...> s;
  const Tiles& held;
  Tiles cur;
  bool more = false, done = false;
  int images = 0;

  template <size_t... I>
  BV_DI void load_step(std::index_sequence<I...>) {
    (in_step(std::get<I>(s).bp), ...);
    cur = Tiles{(std::get<I>(s).held() ? std::get<I>(held) : amd_load(std::get<I>(s)))...};
    ((std::get<I>(s).bp = advance(std::get<I>(s).bp, std::get<I>(s).by)), ...);
  }
  BV_DI void operator()() {
    if (!done) {
      done = true;
      if (more) load_step(std::index_sequence_for<BP...>{});
    }
  }
};
template <class B>
struct as_block {
  using block_type = B;
};
// A streamed tile on AMD: its registers (a wide_tile, or the block) with the loop's hook. dot
// stages it into LDS from them; anything else reads its block (get()).
template <class Img, class Hook>
struct prefetch_tile {
  static constexpr bool wide = is_wide_tile<Img>;
  using block_type = typename std::conditional_t<wide, Img, as_block<Img>>::block_type;
  using value_type = typename block_type::value_type;
  using shape_type = typename block_type::shape_type;
  static constexpr int waves = block_type::waves;
  Img img;
  Hook* hook;
  BV_DI block_type get() const {
    if constexpr (wide)
      return img.get();
    else
      return img;
  }
  BV_DI operator block_type() const { return get(); }
  template <class U>
  BV_DI auto to(dtype<U> d) const {
    return get().to(d);
  }
};
template <class X>
inline constexpr bool is_prefetch_tile = false;
template <class Img, class Hook>
inline constexpr bool is_prefetch_tile<prefetch_tile<Img, Hook>> = true;
// trans() of a streamed tile: dot stages the tile as the transposed operand, from its registers;
// anything else reads the transposed block.
template <class PT>
struct prefetch_trans {
  PT src;
  using value_type = typename PT::value_type;
  using shape_type = shape<PT::shape_type::cols, PT::shape_type::rows>;
  static constexpr int waves = PT::waves;
  using block_type = basic_block<value_type, shape_type, waves>;
  BV_DI block_type get() const { return transpose(src.get()); }
  BV_DI operator block_type() const { return get(); }
  template <class U>
  BV_DI auto to(dtype<U> d) const {
    return trans(src.get().to(d));
  }
};
template <class X>
inline constexpr bool is_prefetch_trans = false;
template <class PT>
inline constexpr bool is_prefetch_trans<prefetch_trans<PT>> = true;
}  // namespace detail
template <class Img, class Hook>
inline constexpr bool is_view<detail::prefetch_tile<Img, Hook>> = true;
template <class PT>
inline constexpr bool is_view<detail::prefetch_trans<PT>> = true;
template <class Img, class Hook>
BV_DI detail::prefetch_trans<detail::prefetch_tile<Img, Hook>> trans(
    const detail::prefetch_tile<Img, Hook>& x) {
  return {x};
}
template <class PT>
BV_DI PT trans(const detail::prefetch_trans<PT>& x) {
  return x.src;
}
namespace detail {
template <class Tiles, class Hook, size_t... I>
BV_DI auto hooked(const Tiles& t, Hook* h, std::index_sequence<I...>) {
  using out = std::tuple<prefetch_tile<std::tuple_element_t<I, Tiles>, Hook>...>;
  return out{prefetch_tile<std::tuple_element_t<I, Tiles>, Hook>{std::get<I>(t), h}...};
}
template <int Stages, class Acc, class Body, size_t... I, class Tiles, class... BP>
BV_DI Acc stream_loop_amd(std::index_sequence<I...>, int lo, int n, int step, const Acc& init,
                          Body& body, const Tiles& held, tile_stream<BP>... s) {
  prefetcher<Stages, Tiles, BP...> pf{{s...}, held, {}};
  pf.load_step(std::index_sequence<I...>{});
  Acc acc = init;
  for (int i = 0; i < n; ++i) {
    pf.more = i + 1 < n;
    pf.done = false;
    const auto t = hooked(pf.cur, &pf, std::index_sequence<I...>{});
    acc = call_body(body, lo + i * step, t, acc, std::index_sequence<I...>{});
    pf();
  }
  return acc;
}
#endif
template <int Stages, int W, class Acc, class Body, size_t... I, class... BP>
BV_DI Acc stream_loop(const program<W>& p, int lo, int hi, int step, const Acc& init, Body& body,
                      std::index_sequence<I...>, tile_stream<BP>... s) {
  // (Types spelled out: HIP has no device code for class template argument deduction.)
  using tiles = std::tuple<decltype(load(s.bp, s.bc))...>;
  // The held streams' tiles, loaded before either loop (where it runs a step) by one load each: a
  // load in the body, or one in each loop, put a ring load's copy code beside the loop's live
  // values (the attention forward spilled 700 to 900 bytes on sm_90a).
  const bool runs = lo < hi && step > 0;
#if BV_NVIDIA
  const tiles held{held_tile(s, s.held() && runs)...};
  if constexpr ((tma_stream_tile<BP>() && ...)) {
    if (runs) {
      const int n = for_range_steps(lo, hi, step);
      if (tma_loop(n, s...))
        return stream_loop_tma(std::index_sequence_for<BP...>{}, lo, hi, step, init, body, held,
                               s...);
    }
  }
#else
  const std::tuple<amd_tile<BP>...> amd_held{(s.held() && runs ? amd_load(s) : amd_tile<BP>{})...};
  if (runs)
    return stream_loop_amd<Stages>(std::index_sequence_for<BP...>{}, lo,
                                   for_range_steps(lo, hi, step), step, init, body, amd_held, s...);
  const tiles held{};  // (no step runs)
#endif
  return for_range(p, lo, hi, step, init, [&](int k, const auto& acc) BV_INLINE_LAMBDA {
    // The tiles in the order the streams are written, as a kernel's own loop would load them.
    const tiles t{(s.held() ? std::get<I>(held) : load(s.bp, s.bc))...};
    auto out = call_body(body, k, t, acc, std::index_sequence_for<BP...>{});
    ((s.bp = advance(s.bp, s.by)), ...);
    return out;
  });
}
// for_range's arguments after init as a tuple: the streams, then the body.
template <int Stages, int W, class Acc, class Args, size_t... I>
BV_DI Acc stream_loop_of(const program<W>& p, int lo, int hi, int step, const Acc& init,
                         const Args& args, std::index_sequence<I...>) {
  BV_INLINE_CALLS return stream_loop<Stages>(p, lo, hi, step, init, std::get<sizeof...(I)>(args),
                                             std::index_sequence<I...>{}, std::get<I>(args)...);
}
}  // namespace detail

#if !BV_NVIDIA
namespace detail {
template <class X>
inline constexpr bool is_trans_block = false;
template <class T, int R, int C, int W>
inline constexpr bool is_trans_block<trans_view<T, R, C, W>> = true;
template <class X>
inline constexpr bool amd_streamed = is_prefetch_tile<X> || is_prefetch_trans<X>;
// The registers a dot operand is staged from: a streamed tile's (a wide_tile's or its block's),
// the tile or block a trans() views, or the block itself.
template <class X>
BV_DI const auto& staged_from(const X& x) {
  if constexpr (is_prefetch_tile<X>)
    return x.img;
  else if constexpr (is_prefetch_trans<X>)
    return x.src.img;
  else if constexpr (is_trans_block<X>)
    return x.src;
  else
    return x;
}
// What dot_lds stages of an operand of a dot with a streamed tile, along K: as the A operand,
// [M][K] (a's rows, or the columns of the K x M tile or block whose transpose a is); as the B
// operand, [N][K] (b's columns, or the rows of the N x K tile or block whose transpose b is). A
// trans() of a streamed tile is staged with no transpose of its own.
template <bool A, class X>
BV_DI auto staged_as(const X& x) {
  if constexpr (A != (is_prefetch_trans<X> || is_trans_block<X>))
    return rows(staged_from(x));
  else
    return cols(staged_from(x));
}
// An operand as dot's other overloads take it: a streamed tile's block, a trans() of one as a
// trans() of its block (lazy), anything else as it is.
template <class X>
BV_DI auto unstreamed(const X& x) {
  if constexpr (is_prefetch_tile<X>)
    return x.get();
  else if constexpr (is_prefetch_trans<X>)
    return trans(x.src.get());
  else
    return x;
}
// Whether dot_lds_double takes a dot of two streamed tiles whose loop has Stages: two or more,
// 16-bit wide tiles (wide_tile.hpp; b's K rows then a multiple of 32) of one K slice of 32 or 64
// k's (xor_image's rows), an MFMA product, and two images of both operands within a workgroup's
// 64 KiB of LDS.
template <int Stages, class SA, class SB, class A, class B, class C, int M, int K, int N, int W>
constexpr bool double_images() {
  if constexpr (Stages >= 2 && is_16bit_float<A> && std::is_same_v<A, B> &&
                double_image_shape<A, M, K, N, W>() && use_tensor_cores<A, B, C, M, N, K, W>())
    return is_wide_tile<std::remove_cvref_t<decltype(SA::x)>> &&
           is_wide_tile<std::remove_cvref_t<decltype(SB::x)>> &&
           2 * (M + N) * K * int{sizeof(A)} <= lds_bytes_of(gpu::lowering_target);
  else
    return false;
}

template <class X>
inline constexpr bool streamed_dot_operand = amd_streamed<X> || is_trans_block<X> || is_block<X>;
}  // namespace detail
// dot with a streamed tile on AMD (the tile loops' steps): both operands staged into LDS straight
// from their registers. A dot of two streamed tiles as they are (the matmul's step) lets the
// next step's loads go out once both are in LDS (stream_loop_amd), and in a for_range<2> loop
// stages them into two images in turn (dot_lds_double: one barrier a step). Operands of two
// element types go through their blocks.
template <class X, class Y, class C, int M, int N, int W>
requires((detail::amd_streamed<X> || detail::amd_streamed<Y>)&&detail::streamed_dot_operand<X>&&
             detail::streamed_dot_operand<Y>) BV_DI
    basic_block<C, shape<M, N>, W> dot(const X& x, const Y& y,
                                       const basic_block<C, shape<M, N>, W>& acc) {
  using A = typename X::value_type;
  using B = typename Y::value_type;
  constexpr int K = X::shape_type::cols, K2 = Y::shape_type::rows;
  static_assert(X::shape_type::rows == M && Y::shape_type::cols == N,
                "dot(a, b, acc) needs acc to be M x N for a M x K and b K x N.");
  if constexpr (std::is_same_v<A, B>) {
    static_assert(rules::dot<A, M, K, B, K2, N, true>());
    detail::check_dot_shapes<A, M, K, N, W>();
    basic_block<C, shape<M, N>, W> out = acc;
    if constexpr (detail::is_prefetch_tile<X> && detail::is_prefetch_tile<Y>) {
      const auto sa = detail::staged_as<true>(x);
      const auto sb = detail::staged_as<false>(y);
      const auto next = [&] {
        (*x.hook)();
        (*y.hook)();
      };
      using Hook = std::remove_pointer_t<decltype(x.hook)>;
      if constexpr (detail::double_images<Hook::stages, decltype(sa), decltype(sb), A, B, C, M, K,
                                          N, W>())
        detail::dot_lds_double<A, C, M, K, N, W>(sa, sb, out, next, x.hook->images++);
      else
        detail::dot_lds<A, B, C, M, K, N, W>(sa, sb, out, next);
    } else {
      detail::dot_lds<A, B, C, M, K, N, W>(detail::staged_as<true>(x), detail::staged_as<false>(y),
                                           out);
    }
    return out;
  } else {
    return dot(detail::unstreamed(x), detail::unstreamed(y), acc);
  }
}
template <class X, class Y, class... Acc>
requires(detail::amd_streamed<X> || detail::amd_streamed<Y>) BV_DI
    auto dot(const X& x, const Y& y, const Acc&... acc) {
  if constexpr (sizeof...(Acc) == 0 && detail::streamed_dot_operand<X> &&
                detail::streamed_dot_operand<Y>) {
    return dot(x, y, detail::dot_zeros<X, Y>());
  } else if constexpr (sizeof...(Acc) == 1 && detail::streamed_dot_operand<X> &&
                       detail::streamed_dot_operand<Y> &&
                       (is_block<decltype(detail::unview(acc))> && ...)) {
    return dot(x, y, detail::unview(acc)...);
  } else {
    return dot(detail::unstreamed(x), detail::unstreamed(y), detail::unview(acc)...);
  }
}
#endif

// for_range<Stages>(p, lo, hi, step, init, along(bp, by, bc)..., body) (lang's
// block_ptr_args.hpp says what Stages is on each target).
template <int Stages = 0, int W, class Acc, class S0, class... Rest>
requires(TileStream<S0> && sizeof...(Rest) >= 1) BV_DI Acc
    for_range(const program<W>& p, int lo, int hi, int step, const Acc& init, S0&& s0,
              Rest&&... rest) {
  static_assert(rules::loop_stages<Stages>());
  stream_args::check<S0, Rest...>();
  return detail::stream_loop_of<Stages>(p, lo, hi, step, init, std::forward_as_tuple(s0, rest...),
                                        std::make_index_sequence<sizeof...(Rest)>{});
}

}  // namespace gpu_lang
}  // namespace bv
