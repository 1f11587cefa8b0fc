// Block pointers on the GPU (Triton's tl.make_block_ptr / tl.advance / tl.load(bp,
// boundary_check) / tl.store(bp, ...)); the interpreter's are interpreter/bv/cpu/block_ptr.hpp.
//
// Everywhere, a block-pointer load or store is the pointer-block load or store of
// base + rows * stride0 + cols * stride1 under the checked dimensions' mask (memory.hpp).
//
// NVIDIA sm_80+, 16-bit tiles whose rows and columns are multiples of 32: a block pointer over a
// read-only tensor (ptr<const T>) made while the launch gives its program dynamic LDS (a
// gpu_tuning's Stages, bv/launch_tuning.hpp) owns a ring of `stages` tile slots there (at most
// ring_max_stages, and at most N for make_block_ptr's max_slots<N>), filled by cp.async
// (zero-filled outside the tensor, completion tracked per slot by an mbarrier), each slot an image
// of the tile in one of two formats (fmt_a: natural order, 16-byte copies, for an A operand; fmt_b:
// columns in mma order, 4-byte copies, for a B operand; see fmt_b below). A load returns a tile
// view (bp_tile) of its slot; dot reads it with no staging and no barrier: on sm_90a (nvcc
// -arch=sm_90a) with wgmma straight from the slots through matrix descriptors, where both tiles'
// shapes fit it (wg_a_tile, wg_b_tile: the images are then wgmma's 128-byte-swizzled layouts),
// elsewhere with ldmatrix and mma.sync, as the A or the B operand. Each load also learns the step
// between this load's offsets and the previous one's, and issues the copies of the next tiles along
// that step (up to stages - 1 ahead), so the copies of later K steps are in flight while this
// step's dot runs: the software pipeline Triton builds for tl.load feeding tl.dot, from the kernel
// written as in Triton, without a prefetch in the source. The slots of all rings come from the
// front of the dynamic LDS (1024-byte aligned), their mbarriers and counts from its end.
//
// Safety, without trusting the kernel's use of the values:
//  - the ring's bookkeeping (tiles issued, the window of prefetched tiles, the last offsets)
//    lives in LDS, one copy per wave, so copies of a block pointer share it consistently;
//  - a prefetched tile is used only if its offsets are exactly those asked for; otherwise the
//    load copies the tile it needs (a mispredicted prefetch costs time, never values);
//  - a slot's format is checked by every dot that reads it, which copies the tile again in the
//    format its operand needs: the format a ring's first load guesses (from earlier programs'
//    first dots, program::fmt_hints, or from the tile's shape) costs time if wrong, never values;
//  - a slot is refilled only after a barrier (no wave still reads it) and after its previous
//    copies landed; a view remembers its tile number, and a view whose slot was refilled since
//    (a tile kept across later loads of the same ring) reads its tile from global memory;
//  - no ring (no dynamic LDS, odd strides or offsets, a non-unit column stride, other dtypes,
//    AMD): the same view reads global memory when used, as an ordinary masked load.
// Prefetches never read outside the tensor's shape and are not issued for tiles wholly outside
// it (so a loop that runs to the end of K leaves no copy in flight when the program ends).
//
// On sm_90a the Tensor Memory Accelerator copies the tiles wgmma reads in place (fmt_a of an A
// tile, fmt_bn of a B tile, ring_copy_tma; fmt_wm of a tile that is neither, or of an A tile whose
// ring's first dots read it as wgmma's B, through a 5-D map whose dimensions put its rows in mma
// order: tmap_wm): make_block_ptr builds a tensor map of the tensor in
// global memory the launch gives each program (runtime.hpp; a 16-byte aligned base, unit column
// stride, rows a multiple of 16 bytes apart, at most tmap_rings rings a program), and a few
// threads issue a tile's boxes where every thread issued its cp.async copies. The image is the
// same, so nothing that reads a slot changes. The launch's entry waits for the rings' last TMA
// copies before the program ends (tma_drain in program.hpp).
#pragma once
#include <climits>
#include <cstdio>

#include "bv/block_ptr_args.hpp"
#include "bv/gpu/dot.hpp"
#include "bv/gpu/elementwise.hpp"
#include "bv/gpu/memory.hpp"
#include "bv/gpu/program.hpp"
#include "bv/gpu/reduce.hpp"
#include "bv/rings.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
// Tiles that get an LDS ring (and a view as the result of load): bv/rings.hpp's rule for the
// lowering's target (none on AMD).
template <class T, int R, int C, int W>
constexpr bool ring_tile() {
  return rings::ring_tile(gpu::lowering_target, is_16bit_float<std::remove_const_t<T>>, R, C, W);
}
inline constexpr int ring_max_stages = rings::max_stages;
// A ring in LDS: `stages` slots of R * C 16-bit elements, one mbarrier per slot, and two ints per
// wave: the number of tiles issued into the ring so far (tile t lives in slot t % stages) and the
// format its loads issue (ring_state; every wave keeps its own copy, all equal).
// Everything else a ring's loads need is in the block pointer's registers (ring_regs), checked
// against that count: a load through a stale copy of the block pointer (another copy loaded
// since) sees a different count, and starts over.
struct ring_regs {
  int n = 0;                 // tiles issued (this block pointer's view of the ring)
  int pb = 0;                // prefetched tiles [pb, n): tile pb + i at last + (i + 1) * step
  int ps0 = 0, ps1 = 0;      // the step they were prefetched along
  int last0 = 0, last1 = 0;  // offsets of the previous load (the creation offsets at first)
};
// The per-wave bookkeeping of a ring in LDS (see ring_bytes_for).
struct alignas(8) ring_state {
  int count;  // tiles issued
  int fmt;    // the format loads issue unless they step along columns (fmt_for_step)
  // The tile of this ring that this wave's last wgmma group left in flight read (a dot inside
  // for_range, accumulator.hpp), or -1. No copy may refill its slot before that group is waited
  // for. A group waited for since may leave its number here: the next load that would refill
  // the slot waits (nothing is in flight, but it costs a second barrier) and clears it.
  int inflight;
};
static_assert(sizeof(ring_state) == rings::state_bytes,
              "bv/rings.hpp counts a ring's per-wave record as the lowering lays it out.");
// A ring's bytes: its slots, an mbarrier per slot, a ring_state per wave, and where the ring's
// format hint is kept (program::fmt_hints; ring_ref::hint): bv/rings.hpp's count.
constexpr int ring_bytes_for(int tile_bytes, int stages, int waves) {
  return rings::ring_bytes(tile_bytes, stages, waves);
}

// The image format of a slot (carried by the tile's view: the format its load or refetch issued
// it in, which the slot holds while the view is fresh):
//  - fmt_b: rows (k) in natural order, columns in mma_order (dot's B operand, read with ldmatrix
//    .trans; the accumulator's columns are mma's in that order): pairs go by 4-byte cp.async;
//  - fmt_a: rows and columns in natural order (dot's A operand, read with ldmatrix, k natural as
//    fmt_b's rows): 16-byte cp.async;
//  - fmt_bn: a B operand of wgmma (wg_b_tile) with rows and columns in natural order, for a dot
//    whose accumulator stays in the tensor cores' order (accumulator.hpp): 16-byte cp.async;
//  - fmt_wr: the B operand of wgmma with a in registers (dot.hpp's wg_rs_dot), as the tile b
//    itself (N-major) or as the N x K tile whose transpose b is (K-major): stage_wg's image, rows
//    and columns in mma_order (k then lies as a's registers do, n as the accumulator's columns):
//    pairs go by 4-byte cp.async;
//  - fmt_wm: stage_wg's image with rows in mma_order and columns in natural order: the B operand
//    of wgmma as the N x K tile whose transpose b is (K-major) with a read from an fmt_a slot
//    (k natural, n the accumulator's columns: dot(q, trans(k)) over two rings), or as the tile b
//    itself (N-major) with a in registers (k as a's registers lie) into an accumulator in the
//    tensor cores' order (n natural: accumulator.hpp): 16-byte cp.async, or the TMA, for the
//    tiles wm_chunk_tile names (others element by element).
// All swizzle the 16-byte chunks of a row (swz, or wgmma's 128-byte swizzle). A load issues fmt_a
// when its block pointer steps along its columns (K for an A operand); otherwise the format the
// ring's last copy-again asked for (a dot's, for its operand's role), and before any, the one the
// kernel's earlier programs' first dots asked for (program::fmt_hints), else the one the tile's
// shape suggests (first_fmt). dot copies a tile again in the format its role needs when the slot
// holds another.
inline constexpr int fmt_b = 0, fmt_a = 1, fmt_bn = 2, fmt_wr = 3, fmt_wm = 4;
#if BV_NVIDIA
template <int R, int C, int W>
BV_DI int img_index(int fmt, int row, int col) {
  if constexpr (C % 64 == 0) {
    if (fmt == fmt_wr) return wg_img<R, C>(mma_order(row), mma_order(col));
    if (fmt == fmt_wm) return wg_img<R, C>(mma_order(row), col);
  }
  if (fmt == fmt_a) {
    if constexpr (wg_a_tile<R, C, W>()) {
      const int P = wg_row<R, W>(row);
      return P * 64 + ((((col >> 3) ^ P) & 7) << 3) + (col & 7);
    } else {
      return swz<C>(row, col);
    }
  } else {
    if constexpr (wg_b_tile<R, C, W>()) {
      const int n = fmt == fmt_bn ? col : mma_order(col);
      return (n >> 6) * (R * 64) + row * 64 + ((((n >> 3) ^ row) & 7) << 3) + (n & 7);
    } else {
      return swz<C>(row, mma_order(col));
    }
  }
}
// The format a load issues: fmt_a along the columns, else the ring's.
BV_DI int fmt_for_step(int s0, int s1, int ring_fmt) {
  return s0 == 0 && s1 != 0 ? fmt_a : ring_fmt;
}
// A ring's format before any dot asked for one. On sm_90a a tile's shape tells its role: a wgmma A
// tile has 64 columns, a wgmma B tile 128k, so none is both; a B tile is taken to feed an
// accumulator (accumulator.hpp). Elsewhere fmt_b, as a load along rows most often feeds a B.
template <int R, int C, int W>
constexpr int first_fmt() {
  return wg_a_tile<R, C, W>() ? fmt_a : wg_b_tile<R, C, W>() ? fmt_bn : fmt_b;
}
#endif

// Tiles whose fmt_wm images go by the TMA or 16-byte copies: on sm_90a, 64k columns, and neither a
// wgmma A nor a wgmma B tile of a dot from two rings (wg_a_tile, wg_b_tile; the attention forward's
// 64 x 64 k and v are neither). A tile that is one copies fmt_wm element by element (correct,
// slow): the format of a ring is known only at run time, so a ring's load holds the code of every
// format its tile can take, and for those tiles the 16-byte fmt_wm copies cost kernels that never
// use them registers (the attention backward's dK/dV at head dimension 128 spilled 24 bytes more
// and took 4% longer on an H200).
template <int R, int C, int W>
constexpr bool wm_chunk_tile() {
#if BV_NVIDIA
  return gpu::prim::has_wgmma && C % 64 == 0 && !wg_a_tile<R, C, W>() && !wg_b_tile<R, C, W>();
#else
  return false;
#endif
}

// A wgmma A tile's ring has one tensor map, in the format its first tiles take: fmt_a's (64-row
// boxes, ring_copy_tma), or fmt_wm's (ring_copy_tma_wm) where the kernel's earlier programs' first
// dots read the ring's tiles as wgmma's B operand (program::fmt_hints: the attention forward's k
// and v at 128 keys a block, which are A tiles by their shape). The map's address is 128-byte
// aligned; its low bit says fmt_wm, so that every copy of the block pointer carries the kind with
// the map. Other tiles have a map of one kind (fmt_bn for a B tile, fmt_wm for the rest).
BV_HD inline const void* tmap_wm_tag(const void* map) {
  return static_cast<const unsigned char*>(map) + 1;
}
BV_HD inline bool tmap_wm(const void* map) { return (reinterpret_cast<uintptr_t>(map) & 1) != 0; }
BV_HD inline const void* tmap_addr(const void* map) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(map) & ~uintptr_t{1});
}

// A format hint as program::fmt_hints keeps it: the tile's shape with the format, so that a
// ring of another shape at the same index (made on another path) takes none.
template <int R, int C, int W>
constexpr int fmt_hint(int fmt) {
  return (R << 18 | C << 8 | W << 4) + fmt + 1;
}

// Where a ring is and what it copies from: the part of a block pointer that a view keeps too.
template <class T, int R, int C, int W>
struct ring_ref {
  using U = std::remove_const_t<T>;
  static constexpr int tile_bytes = R * C * 2;
  const U* base;
  int shape0, shape1, stride0, stride1;
  int stages;
  unsigned char* meta;  // the bookkeeping: stages mbarriers, then per-wave ints
  // The slots' offset in the dynamic LDS, which names the ring: a constant of the inlined kernel,
  // so comparisons of two rings fold (a comparison of their pointers did not).
  int at;
  // The ring's tensor map (sm_90a; make_block_ptr): its tiles in the map's format go by the TMA
  // (tmap_wm tags a wgmma A tile's fmt_wm map). nullptr: by cp.async.
  const void* tmap;
  // This wave's copy of the ring's state, and of the count of tiles issued in it.
  BV_DI ring_state* state() const {
    return reinterpret_cast<ring_state*>(meta + 8 * stages) + gpu::prim::wave_id();
  }
  // Where the ring keeps the address of its format hint (nullptr: none), after the ring states.
  BV_DI int** hint() const { return hint_at(meta, stages); }
  static BV_DI int** hint_at(unsigned char* meta, int stages) {
    return reinterpret_cast<int**>(meta + 8 * stages + static_cast<int>(sizeof(ring_state)) * W);
  }
  // A wgmma group reading tile t of this ring is left in flight (ring_state::inflight); oldest:
  // groups before it may be too, so the record keeps the oldest tile (the prefetch then stops
  // short of every in-flight tile's slot, all of them within stages of it).
  BV_DI void set_inflight(int t, bool oldest = false) const {
    int& f = state()->inflight;
    f = oldest && f >= 0 && f < t ? f : t;
  }
  BV_DI int* count() const { return &state()->count; }
#if BV_NVIDIA
  BV_DI uint32_t bar(int slot) const { return gpu::prim::lds_addr(meta + 8 * slot); }
  // The slots (1024-byte aligned where wgmma reads them).
  BV_DI unsigned char* ring() const { return gpu::prim::dyn_lds() + at; }
  BV_DI const U* slot_ptr(int t) const {
    return reinterpret_cast<const U*>(ring() + (t % stages) * tile_bytes);
  }
#endif
};
}  // namespace detail

namespace detail {
// The slots of a ring made under a launch's `stages` (below 2: no rings, nothing is pipelined),
// at most max_slots (make_block_ptr's max_slots<N>).
constexpr int ring_slots(int stages, int max_slots) { return rings::slot_count(stages, max_slots); }
}  // namespace detail

// Dynamic LDS bytes a program needs for block pointers of these tiles with `stages` slots each, at
// most MaxSlots (what a launcher passes in its gpu_tuning, bv/launch_tuning.hpp).
template <class T, int R, int C, int W, int MaxSlots = unlimited_slots>
constexpr int block_ptr_lds_bytes(int stages) {
  return rings::lds_bytes(gpu::lowering_target, is_16bit_float<std::remove_const_t<T>>, R, C, W,
                          stages, MaxSlots);
}

template <class T, int R, int C, int W>
struct block_ptr {
  T* base = nullptr;
  int shape0 = 0, shape1 = 0, stride0 = 0, stride1 = 0, off0 = 0, off1 = 0;
  int stages = 0;                 // its slots; 0: no ring (every load reads global memory)
  unsigned char* meta = nullptr;  // the ring's mbarriers and counts
  int ring_at = -1;               // the slots' offset in the dynamic LDS (ring_ref::at)
  const void* tmap = nullptr;     // the ring's tensor map (ring_ref::tmap)
  mutable detail::ring_regs rs;   // the pipeline's bookkeeping (loads update it)
  using element_type = T;
  using shape_type = shape<R, C>;
  static constexpr int waves = W;
};

// A loaded tile: in an LDS slot of its block pointer's ring (stages > 0), or described by its
// place in global memory. dot reads it from its slot; anything else materialises it (get(), or
// the implicit conversion to a block): from the slot, or by an ordinary masked load.
template <class T, int R, int C, int W>
struct bp_tile {
  using U = std::remove_const_t<T>;
  using value_type = U;
  using shape_type = shape<R, C>;
  using block_type = basic_block<U, shape<R, C>, W>;
  static constexpr int waves = W;
  detail::ring_ref<T, R, C, W> src;
  int off0, off1;
  bool check0, check1;
  int t;    // tile number in the ring (when src.stages > 0)
  int fmt;  // the format of its slot's image (block_ptr.hpp's fmt_a / fmt_b / ...)
  // A tile of a for_range over tile streams (tile_loop.hpp): fresh for the whole step and in
  // the format its stream issues, which is never copied again (a use that needs another format
  // reads it into registers: ring_ok). A constant of the inlined loop.
  bool pinned = false;

  BV_DI bool in_ring() const { return src.stages > 0; }
  // Whether the slot still holds this tile (not refilled by a later load of the ring).
  BV_DI bool fresh() const { return in_ring() && fresh_at(*src.count()); }
  // The same, given the ring's count of tiles issued (read ahead by a caller).
  BV_DI bool fresh_at(int issued) const { return t >= issued - src.stages; }
  // In the ring: its slot, copied there again first if it was refilled since (uniform: every
  // thread of the program makes the same calls).
  BV_DI const U* slot();
  // Copy the tile into the ring again, in format f: a new tile number, and f its slot's format.
  BV_DI void refetch(int f);
  BV_DI block_type get() const;
  BV_DI operator block_type() const { return get(); }
  template <class V>
  BV_DI basic_block<V, shape<R, C>, W> to(dtype<V> d) const {
    return get().to(d);
  }
};

template <class X>
inline constexpr bool is_bp_tile = false;
template <class T, int R, int C, int W>
inline constexpr bool is_bp_tile<bp_tile<T, R, C, W>> = true;
template <class X>
concept TileView = is_bp_tile<std::remove_cvref_t<X>>;
// Values that stand for a block and become one when something other than dot reads them (get(),
// or the implicit conversion): tile views, trans() of a block or a tile, and dot's accumulators
// (accumulator.hpp).
template <class X>
inline constexpr bool is_view = is_bp_tile<X>;
// trans(x) of a block (dot.hpp) too: dot reads it lazily, anything else materialises it.
template <class T, int R, int C, int W>
inline constexpr bool is_view<trans_view<T, R, C, W>> = true;
template <class X>
concept View = is_view<std::remove_cvref_t<X>>;

namespace detail {
template <class X>
BV_DI decltype(auto) unview(const X& x) {
  if constexpr (is_view<std::remove_cvref_t<X>>)
    return x.get();
  else
    return (x);
}

// Pointer block and mask of a tile (the interpreter's definition), written register by register
// (i32 offsets from the base, as a kernel's own pointer block; one unsigned compare per checked
// dimension for 0 <= index < shape).
template <class T, int W, int R, int C>
BV_DI auto tile_lanes(T* base, int off0, int off1, int stride0, int stride1) {
  basic_block<int32_t, shape<R, C>, W> o;
  generate(o, [&](auto, int ri, int ci) {
    return (off0 + gpu::row_of<R, C, W>(ri)) * stride0 +
           (off1 + gpu::col_of<R, C, W>(ci)) * stride1;
  });
  return ptr<T>{base} + o;
}
template <int W, int R, int C>
BV_DI auto tile_mask(int off0, int off1, int shape0, int shape1, bool check0, bool check1) {
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  // AMD: the bounds pass through an empty asm, so that the compares stay at the load. Otherwise
  // the compiler hoists those along the dimension a loop does not advance (a matmul's rows of a,
  // columns of b) out of the loop and keeps each one's 64-bit lane mask in an SGPR pair through
  // it: one pair per register of the tile, far more than a wave's ~100 SGPRs for 128-wide tiles.
  // Recomputing them is one VALU compare per register per load. (VGPR operands: correct for any
  // bounds, uniform or not.)
  asm volatile("" : "+v"(shape0), "+v"(shape1));
#endif
  basic_block<bool, shape<R, C>, W> m;
  generate(m, [&](auto, int ri, int ci) {
    const bool in0 = !check0 || static_cast<unsigned>(off0 + gpu::row_of<R, C, W>(ri)) <
                                    static_cast<unsigned>(shape0);
    const bool in1 = !check1 || static_cast<unsigned>(off1 + gpu::col_of<R, C, W>(ci)) <
                                    static_cast<unsigned>(shape1);
    return in0 && in1;
  });
  return m;
}

#if BV_NVIDIA
// Copy the tile at (o0, o1) into slot image `img` and arrive on the slot's mbarrier `bar`. A wave
// moves 128 contiguous bytes of the tensor per instruction (one row of up to 32 pairs, or two rows
// of a 32-column tile), which land on 128 contiguous bytes of the image (mma_order and the swizzle
// permute pairs and 16-byte chunks inside them): no bank conflict. Lane l of wave w takes pair
// l % LPR of row RPI w + l / LPR, then RPI W rows further per step a, and 2 LPR columns further
// per step g. The lane's bits and the steps' bits of (row, col) are disjoint and stay so through
// mma_order and the swizzle, so the LDS address of copy (a, g) is one of at most 8 per-lane
// bases (the XOR of the chunk with a constant) plus an immediate, and the global address a
// per-lane row pointer (advanced per a) plus an immediate. Aligned pairs (unit column stride,
// even row stride and column offset, 4-byte aligned base) go by cp.async (zero-filled outside the
// tensor); others by ordinary loads and LDS stores.
// fmt_a and fmt_bn, 16-byte chunks (unit column stride, row stride and column offset multiples
// of 8, 16-byte aligned base): lane l of wave w takes chunk l % LPR of row RPI w + l / LPR, then
// RPS rows further per step a and LPR chunks further per step g; as above, the swizzled LDS
// address of copy (a, g) is the lane's address XOR a constant plus an immediate. Chunks partly
// outside the tensor copy their inside part and zero-fill the rest.
// F: fmt_wm, or -1 for fmt_a and fmt_bn (fmt tells which): the fmt_wm copies are a second
// instantiation, only for the tiles wm_chunk_tile names.
template <class U, int R, int C, int W, int F>
BV_DI void ring_copy16(const U* base, int shape0, int shape1, int stride0, uint32_t img,
                       uint32_t bar, int o0, int o1, int fmt) {
  constexpr int CPR = C / 8;                // chunks per row
  constexpr int LPR = CPR < 32 ? CPR : 32;  // lanes per row
  constexpr int RPI = 32 / LPR;             // rows per wave instruction
  constexpr int RPS = RPI * W;              // rows per step
  constexpr int NA = (R + RPS - 1) / RPS;   // row steps
  constexpr int NG = CPR / LPR;             // chunk steps
  constexpr int cm = (C / 8 < 8 ? C / 8 : 8) - 1;
  static_assert(CPR % LPR == 0, "internal: ring tiles have 32 or a multiple of 64 columns");
  const int lane = gpu::prim::lane_id(), w = gpu::prim::wave_id();
  const int rl = RPI * w + lane / LPR, ch = lane % LPR;
  auto dst = [&](int a, int g) -> uint32_t {
    if constexpr (F == fmt_wm) {
      // stage_wg's blocks with rows in mma_order: a bit permutation, so for RPS a power of two
      // (rl < RPS) the row of copy a is mma_order(rl) | mma_order(RPS a), and its swizzle the
      // lane's XOR a constant.
      const int c = ch + LPR * g;
      const int P =
          (RPS & (RPS - 1)) == 0 ? (mma_order(rl) | mma_order(RPS * a)) : mma_order(rl + RPS * a);
      return img + 2 * ((c >> 3) * R * 64 + P * 64) + 16 * ((c ^ P) & 7);
    }
    if constexpr (wg_b_tile<R, C, W>()) {
      if (fmt == fmt_bn) {
        // 64-column blocks of R rows of 128 bytes, chunk c of row r at c ^ (r % 8) (where RPS
        // is a multiple of 8, row rl + RPS a swizzles as rl does, and the XOR folds).
        const int c = ch + LPR * g, row = rl + RPS * a;
        return img + 2 * ((c >> 3) * R * 64 + row * 64) + 16 * ((c ^ row) & 7);
      }
    }
    if constexpr (wg_a_tile<R, C, W>()) {
      // wg_row is a permutation of the row's bits (W and R / (8 W) powers of two), and rl and
      // RPS a have disjoint bits, so the row of copy a is wg_row(rl) + wg_row(RPS a); its low
      // three bits (the swizzle) are rl's.
      const int P = wg_row<R, W>(rl);
      return img + 128 * P + 16 * ((ch ^ P) & 7) + 128 * wg_row<R, W>(RPS * a) + 0 * g;
    } else {
      const uint32_t lane_addr = img + 2 * rl * C + 16 * (ch ^ ((rl ^ (rl >> 2)) & cm));
      const int ra = RPS * a;
      return (lane_addr ^ (((ra ^ (ra >> 2)) & cm) << 4)) + 2 * ra * C + 16 * LPR * g;
    }
  };
  int opaque_stride;
  asm volatile("mov.b32 %0, %1;" : "=r"(opaque_stride) : "r"(stride0));
  const U* lp = base + static_cast<int64_t>(o0 + rl) * opaque_stride + (o1 + 8 * ch);
  const int64_t step = static_cast<int64_t>(RPS) * opaque_stride;
  if (o0 >= 0 && o1 >= 0 && o0 + R <= shape0 && o1 + C <= shape1) {
    constexpr int CH = NA < 2 ? NA : 2;
    const U* rp[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) rp[c] = lp + c * step;
#pragma unroll
    for (int a = 0; a < NA; ++a) {
      if (R % RPS == 0 || rl + RPS * a < R)
#pragma unroll
        for (int g = 0; g < NG; ++g)
          gpu::prim::cp_async_16_full(dst(a, g), rp[a % CH] + 8 * LPR * g);
      rp[a % CH] += CH * step;
    }
  } else {
    // A tile across the tensor's edge: rare, so the row steps stay a loop (unrolled, this path
    // was hundreds of instructions of cold code in the middle of a k loop).
#pragma unroll 1
    for (int a = 0; a < NA; ++a) {
      const int gr = o0 + rl + RPS * a;
      if (R % RPS == 0 || rl + RPS * a < R)
#pragma unroll
        for (int g = 0; g < NG; ++g) {
          const int gc = o1 + 8 * (ch + LPR * g);
          const int left = shape1 - gc;
          const int n = (gr >= 0 && gr < shape0 && gc >= 0)
                            ? (left >= 8 ? 16 : (left > 0 ? 2 * left : 0))
                            : 0;
          gpu::prim::cp_async_16(dst(a, g), n ? lp + 8 * LPR * g : base, n);
        }
      lp += step;
    }
  }
  gpu::prim::cp_async_arrive(bar);
}

// Pairs (4-byte copies, or ordinary loads and LDS stores where unaligned), in format fmt; F is
// fmt_wr where the caller knows it is (the addresses then fold), else fmt_b.
template <class U, int R, int C, int W, int F>
BV_DI void ring_copy_pairs(const U* base, int shape0, int shape1, int stride0, int stride1,
                           uint32_t img, uint32_t bar, int o0, int o1, bool base_aligned, int fmt) {
  constexpr int LPR = C / 2 < 32 ? C / 2 : 32;  // lanes per row
  constexpr int RPI = 32 / LPR;                 // rows per wave instruction
  constexpr int RPS = RPI * W;                  // rows per step
  constexpr int NA = (R + RPS - 1) / RPS;       // row steps
  constexpr int NG = C / (2 * LPR);             // column steps
  constexpr int cm = (C / 8 < 8 ? C / 8 : 8) - 1;
  static_assert(gpu::prim::wave_size == 32, "internal: ring copies assume 32-lane waves");
  static_assert(C % (2 * LPR) == 0, "internal: ring tiles have 32 or a multiple of 64 columns");
  const int lane = gpu::prim::lane_id(), w = gpu::prim::wave_id();
  const int rl = RPI * w + lane / LPR, cl = 2 * (lane % LPR);
  const int mrl = rl, mcl = mma_order(cl);  // fmt_b: rows natural, columns in mma order
  const int Ll = (mcl >> 3) ^ ((mrl ^ (mrl >> 2)) & cm);
  // The lane's address; its bits 4-6 are the lane's 16-byte chunk in the row (img is 128-byte
  // aligned, the row offset a multiple of 64 bytes, the chunk field below it), so the chunk of copy
  // (a, g) is one XOR away, and its row and higher chunks an immediate.
  const uint32_t lane_addr = img + 2 * (mrl * C + (Ll << 3) + (mcl & 7));
  auto dst = [&](int a, int g) {
    if constexpr (F == fmt_wr) {
      // stage_wg's image: row w + W a and column cl + 64 g at image row mma_order(w) +
      // mma_order(W a) (disjoint bits, W a power of two), column mma_order(cl) + 64 g; the
      // 128-byte swizzle's row bits split the same way, so copy (a, g) is the lane's address XOR
      // a constant plus an immediate.
      static_assert(LPR == 32 && RPI == 1, "internal: fmt_wr tiles have 64k columns");
      const int rw = mma_order(rl), m = mcl;
      const uint32_t wl = img + 2 * (rw * 64 + ((((m >> 3) ^ rw) & 7) << 3) + (m & 7));
      const int ra = mma_order(W * a);
      return (wl ^ ((ra & 7) << 4)) + 2 * (g * R * 64 + 64 * ra);
    } else if constexpr (wg_b_tile<R, C, W>()) {
      // 64-column blocks of R rows of 128 bytes: row k = rl + W a (rl < W, so the swizzle's
      // k % 8 is rl % 8 XOR (W a) % 8), columns 64 g + mma_order(cl).
      static_assert(LPR == 32 && RPI == 1, "internal: wgmma B tiles have 128k columns");
      const int m = mcl & 63;
      const uint32_t wl = img + 2 * (rl * 64 + ((((m >> 3) ^ rl) & 7) << 3) + (m & 7));
      return (wl ^ (((W * a) & 7) << 4)) + 2 * (g * R * 64 + 64 * W * a);
    } else {
      const int mra = RPS * a, mcg = mma_order(2 * LPR * g);
      const int kap = (mcg >> 3) ^ ((mra ^ (mra >> 2)) & cm);
      return (lane_addr ^ ((kap & cm) << 4)) + 2 * (mra * C + ((kap & ~cm) << 3) + (mcg & 7));
    }
  };
  const bool aligned = (F == fmt_wr || fmt == fmt_b) && base_aligned && o1 % 2 == 0;
  if (aligned) {
    // The row step through an opaque copy of the stride: otherwise the compiler keeps every
    // step's row offset in registers across the caller's loop (they do not change in it).
    int opaque_stride;
    asm volatile("mov.b32 %0, %1;" : "=r"(opaque_stride) : "r"(stride0));
    const U* lp = base + static_cast<int64_t>(o0 + rl) * opaque_stride + (o1 + cl);
    const int64_t step = static_cast<int64_t>(RPS) * opaque_stride;
    if (o0 >= 0 && o1 >= 0 && o0 + R <= shape0 && o1 + C <= shape1) {
      // Two independent chains of row pointers (one chain would serialise the copies on the
      // latency of its 64-bit adds).
      constexpr int CH = NA < 2 ? NA : 2;
      const U* rp[CH];
#pragma unroll
      for (int c = 0; c < CH; ++c) rp[c] = lp + c * step;
#pragma unroll
      for (int a = 0; a < NA; ++a) {
        if (R % RPS == 0 || rl + RPS * a < R)
#pragma unroll
          for (int g = 0; g < NG; ++g)
            gpu::prim::cp_async_4_full(dst(a, g), rp[a % CH] + 2 * LPR * g);
        rp[a % CH] += CH * step;
      }
    } else {
      // Across the tensor's edge: a loop over the row steps, as in ring_copy16.
#pragma unroll 1
      for (int a = 0; a < NA; ++a) {
        const int gr = o0 + rl + RPS * a;
        if (R % RPS == 0 || rl + RPS * a < R)
#pragma unroll
          for (int g = 0; g < NG; ++g) {
            const int gc = o1 + cl + 2 * LPR * g;
            const int n = (gr >= 0 && gr < shape0 && gc >= 0)
                              ? (gc + 1 < shape1 ? 4 : (gc < shape1 ? 2 : 0))
                              : 0;
            gpu::prim::cp_async_4(dst(a, g), n ? lp + 2 * LPR * g : base, n);
          }
        lp += step;
      }
    }
    gpu::prim::cp_async_arrive(bar);
  } else {
    // Rare (odd strides or offsets): a plain loop, light on registers.
    constexpr int threads = W * gpu::prim::wave_size, NP = R * C / 2;
#pragma unroll 1
    for (int i = gpu::prim::thread_id(); i < NP; i += threads) {
      const int row = i / (C / 2), col = 2 * (i % (C / 2));
      const int gr = o0 + row, gc = o1 + col;
      U e[2] = {U(0.0f), U(0.0f)};
#pragma unroll
      for (int h = 0; h < 2; ++h)
        if (gr >= 0 && gr < shape0 && gc + h >= 0 && gc + h < shape1)
          e[h] = base[static_cast<int64_t>(gr) * stride0 + static_cast<int64_t>(gc + h) * stride1];
      uint32_t v;
      __builtin_memcpy(&v, e, 4);
      const uint32_t d = img + 2 * img_index<R, C, W>(fmt, row, col);
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(d), "r"(v) : "memory");
    }
    gpu::prim::mbar_arrive(bar);
  }
}

// The boxes in which the TMA copies a tile in format F (ring_copy_tma, ring_copy_tma_wm): a wgmma A
// tile's fmt_a image in boxes of 64 image rows, any other image in boxes of 64 columns; and the
// waves that issue them (tma_boxes), which are the waves a tile loop's refill waits for.
template <int R, int C, int W, int F>
constexpr int tma_tile_boxes() {
  return F == fmt_a && wg_a_tile<R, C, W>() ? R / 64 : C / 64;
}
template <int NB, int W>
constexpr int tma_issuers() {
  return W < NB ? W : NB;
}
template <int R, int C, int W, int F>
constexpr int tma_tile_issuers() {
  return tma_issuers<tma_tile_boxes<R, C, W, F>(), W>();
}
// By the TMA (a ring with a tensor map; fmt_a of a wgmma A tile, fmt_bn of a B tile), in boxes of
// 64 columns: fmt_bn's 64-column blocks of R rows are one box each; fmt_a's image permutes the
// tile's rows in groups of 8 (wg_row), and a tile inside the tensor's rows goes in boxes of 64
// image rows through a map whose dimensions follow that permutation. Those dimensions cannot bound
// the rows at the tensor's edge, so a tile across it goes by 16-byte copies: a second map for it
// (8-row boxes) cost every program a build, which took the f16 matmul at 8192^3 from 2.21 to 2.27
// ms. Lane 0 of wave w issues boxes w, w + W, ... and expects their bytes on the slot's mbarrier;
// the issuing lanes arrive for the program's other threads too (the mbarrier counts every thread,
// as its cp.async copies arrive), so that the waves that issue no box run nothing. Fewer, larger
// boxes and more waves issuing them are faster: the f16 matmul at 8192^3 took 2.74 ms with 8-row
// boxes for both tiles, 2.50 with b's blocks whole, 2.31 with a's 64-row boxes, and 3.43 with
// every box from one thread (docs/PERFORMANCE.md). Zero-filled outside the tensor, as the copies
// are.
//
// A tile's NB boxes of box_bytes each, spread over the waves: lane 0 of wave w expects the bytes of
// boxes w, w + W, ... on the slot's mbarrier, arrives for its share of the program's threads and
// issues them (issue(b)); the other threads do nothing. The phase cannot complete before the last
// issuer's arrival, which follows its bytes' expectation. One: the calling wave's lane 0 does all
// of it (a tile loop's refill by the last warp past a step, whichever wave that is).
template <int NB, int W, bool One = false, class F>
BV_DI void tma_boxes(uint32_t bar, uint32_t box_bytes, F&& issue) {
  constexpr int threads = W * gpu::prim::wave_size;
  if constexpr (One) {
    if (gpu::prim::lane_id() != 0) return;
    gpu::prim::mbar_arrive_tx(bar, box_bytes * NB);
    gpu::prim::mbar_arrive_n(bar, threads - 1);
#pragma unroll
    for (int b = 0; b < NB; ++b) issue(b);
    return;
  }
  constexpr int IW = tma_issuers<NB, W>();  // waves that issue boxes
  const int w = gpu::prim::wave_id();
  if (gpu::prim::lane_id() != 0 || w >= IW) return;
  gpu::prim::mbar_arrive_tx(bar, box_bytes * ((NB - 1 - w) / IW + 1));
  // This lane's share of the threads' arrivals, less the one just made.
  const int share = threads / IW + (w < threads % IW ? 1 : 0);
  if (share > 1) gpu::prim::mbar_arrive_n(bar, share - 1);
#pragma unroll
  for (int k = 0; k < (NB + IW - 1) / IW; ++k) {
    const int b = w + IW * k;
    if (NB % IW == 0 || b < NB) issue(b);
  }
}
template <int R, int C, int W, bool One = false>
BV_DI void ring_copy_tma(const void* tmap, uint32_t img, uint32_t bar, int o0, int o1) {
  if constexpr (wg_a_tile<R, C, W>()) {
    // A tile inside the tensor's rows (ring_copy: the others go by 16-byte copies): boxes of 64
    // image rows through the ring's map, whose dimensions split a row as the image orders it
    // (wg_row): rows g of an 8-row group, then the group 8 W rows further (register ri + 1), then
    // the groups of the warpgroup's 4 waves (8 rows apart); box b starts at image row 64 b, tensor
    // row 16 W rp + 32 wh for b = wh NR / 2 + rp.
    constexpr int NH = R / (16 * W);  // register pairs (NR / 2)
    tma_boxes<tma_tile_boxes<R, C, W, fmt_a>(), W, One>(bar, 8192u, [&](int b) {
      gpu::prim::tma_load<4>(img + 8192 * b, tmap, o1, o0 + 16 * W * (b % NH) + 32 * (b / NH), bar);
    });
  } else {
    tma_boxes<tma_tile_boxes<R, C, W, fmt_bn>(), W, One>(bar, 128u * R, [&](int b) {
      gpu::prim::tma_load<2>(img + b * R * 128, tmap, o1 + 64 * b, o0, bar);
    });
  }
}

// Whether fmt_wm's 5-D map reads rows o0 .. end - 1 (o0 >= 0, a multiple of 32) as the tensor
// holds them: its outer dimension counts whole groups of 32 rows (make_block_ptr), so a box's
// groups past the tensor's last whole group are zero-filled, which is the tensor only where its
// rows end at a group's end (the last key block of a loop that runs a block ahead).
BV_HD constexpr bool wm_rows_bounded(int64_t shape0, int64_t end) {
  return end <= shape0 || shape0 % 32 == 0;
}
// fmt_wm by the TMA through the 5-D map make_block_ptr builds for wm_chunk_tile tiles: a box per
// 64-column block, for o0 a multiple of 32 and rows wm_rows_bounded.
template <int R, int C, int W, bool One = false>
BV_DI void ring_copy_tma_wm(const void* tmap, uint32_t img, uint32_t bar, int o0, int o1) {
  tma_boxes<tma_tile_boxes<R, C, W, fmt_wm>(), W, One>(bar, 128u * R, [&](int b) {
    gpu::prim::tma_load<5>(img + b * R * 128, tmap, o1 + 64 * b, o0 / 32, bar);
  });
}
template <class U, int R, int C, int W>
BV_DI void ring_copy(const U* base, int shape0, int shape1, int stride0, int stride1, uint32_t img,
                     uint32_t bar, int o0, int o1, bool base_aligned, int fmt, const void* tmap) {
  // Which map the ring has (tmap_wm): folds to fmt_wm's for tiles that are neither A nor B tiles.
  const bool wm_map = wm_chunk_tile<R, C, W>() || (wg_a_tile<R, C, W>() && tmap_wm(tmap));
  if constexpr (gpu::prim::has_tma && (wg_a_tile<R, C, W>() || wg_b_tile<R, C, W>())) {
    // A box's first column a multiple of 16 bytes (the TMA faults on others with this swizzle).
    if (tmap != nullptr && !wm_map && o1 % 8 == 0 &&
        fmt == (wg_a_tile<R, C, W>() ? fmt_a : fmt_bn) &&
        (!wg_a_tile<R, C, W>() || (o0 >= 0 && o0 + R <= shape0))) {
      ring_copy_tma<R, C, W>(tmap, img, bar, o0, o1);
      return;
    }
  }
  if constexpr (gpu::prim::has_tma && (wm_chunk_tile<R, C, W>() || wg_a_tile<R, C, W>())) {
    // fmt_wm through its 5-D map (make_block_ptr): a box per 64-column block for a tile of whole
    // 32-row groups whose rows the map reads as they are (wm_rows_bounded); others by 16-byte
    // copies.
    if (tmap != nullptr && wm_map && fmt == fmt_wm && o1 % 8 == 0 && o0 % 32 == 0 && o0 >= 0 &&
        wm_rows_bounded(shape0, static_cast<int64_t>(o0) + R)) {
      ring_copy_tma_wm<R, C, W>(tmap_addr(tmap), img, bar, o0, o1);
      return;
    }
  }
  const bool chunks = base_aligned && stride1 == 1 && stride0 % 8 == 0 && o1 % 8 == 0 &&
                      reinterpret_cast<uintptr_t>(base) % 16 == 0;
  if ((fmt == fmt_a || (wg_b_tile<R, C, W>() && fmt == fmt_bn)) && chunks) {
    ring_copy16<U, R, C, W, -1>(base, shape0, shape1, stride0, img, bar, o0, o1, fmt);
    return;
  }
  if constexpr (wm_chunk_tile<R, C, W>()) {
    if (fmt == fmt_wm && chunks) {
      ring_copy16<U, R, C, W, fmt_wm>(base, shape0, shape1, stride0, img, bar, o0, o1, fmt);
      return;
    }
  }
  if constexpr (C % 64 == 0 && gpu::prim::has_wgmma) {
    if (fmt == fmt_wr) {
      ring_copy_pairs<U, R, C, W, fmt_wr>(base, shape0, shape1, stride0, stride1, img, bar, o0, o1,
                                          base_aligned, fmt);
      return;
    }
  }
  ring_copy_pairs<U, R, C, W, fmt_b>(base, shape0, shape1, stride0, stride1, img, bar, o0, o1,
                                     base_aligned, fmt);
}

// Whether pairs can go by 4-byte cp.async (else ordinary loads and LDS stores).
template <class U>
BV_DI bool pairs_aligned(const U* base, int stride0, int stride1, int o1) {
  return stride1 == 1 && stride0 % 2 == 0 && o1 % 2 == 0 &&
         reinterpret_cast<uintptr_t>(base) % 4 == 0;
}
// Issue tile number n at (o0, o1) into slot n % stages, after the slot's previous tile has
// landed when `wait_old` (a caller that waited for a later tile knows it has); the caller has
// passed a barrier since any wave read that slot.
template <class T, int R, int C, int W>
BV_DI void ring_issue(const ring_ref<T, R, C, W>& r, int n, bool wait_old, int o0, int o1,
                      int fmt) {
  const int slot = n % r.stages;
  const uint32_t bar = r.bar(slot);
  if (wait_old && n >= r.stages) gpu::prim::mbar_wait(bar, ((n - r.stages) / r.stages) & 1);
  ring_copy<typename ring_ref<T, R, C, W>::U, R, C, W>(
      r.base, r.shape0, r.shape1, r.stride0, r.stride1,
      gpu::prim::lds_addr(r.ring() + slot * r.tile_bytes), bar, o0, o1,
      pairs_aligned(r.base, r.stride0, r.stride1, o1), fmt, r.tmap);
}
// After the barrier that precedes refilling slots, with this wave's state st as read before it:
// the first tile number that may not be issued yet (issuing tile j refills the slot of tile
// j - stages, and a wgmma group in flight may still read one: ring_state::inflight). If tile t,
// which the caller issues next, would refill that slot, every wave waits for its own group and
// meets the others at a second barrier (every wave's state is the same, so all take one branch);
// then nothing is in flight and nothing bounds the issue.
template <class T, int R, int C, int W>
BV_DI int ring_issue_bound(const ring_ref<T, R, C, W>& r, const ring_state& st, int t) {
  const int bound = st.inflight < 0 ? INT_MAX : st.inflight + r.stages;
  if (t < bound) return bound;
  gpu::prim::wgmma_wait0();
  gpu::prim::barrier();
  r.state()->inflight = -1;
  return INT_MAX;
}
// Wait for tile t. Only t: cp.async copies land in order (each thread's arrive on t's mbarrier
// fires after all its earlier copies), TMA copies do not, so a slot is refilled only once its own
// tile was waited for (ring_load: by this load or an earlier one, or wait_old).
template <class T, int R, int C, int W>
BV_DI void ring_wait(const ring_ref<T, R, C, W>& r, int t) {
  gpu::prim::mbar_wait(r.bar(t % r.stages), (t / r.stages) & 1);
}

// A load through the ring: the tile at (o0, o1), from the prefetch window or copied now; then the
// next tiles along the step from the previous load are issued (the prefetch), and the tile is
// waited for. Returns its tile number; its format goes to fmt_out (a prefetched tile was issued
// along the same step, so in the same format).
template <class T, int R, int C, int W>
BV_DI int ring_load(const ring_ref<T, R, C, W>& r, ring_regs& rs, int o0, int o1, int& fmt_out) {
  const int S = r.stages;
  int* cp = r.count();
  const ring_state st = *r.state();  // this wave's own copy: no other wave writes it
  const int n_lds = st.count;
  const int s0 = o0 - rs.last0, s1 = o1 - rs.last1;
  const int fmt = fmt_for_step(s0, s1, st.fmt);
  fmt_out = fmt;
  int t;
  bool hit = rs.pb < rs.n && rs.ps0 == s0 && rs.ps1 == s1 && n_lds == rs.n;
  if (hit) {
    // The next prefetched tile. The one before it was this block pointer's last load, waited
    // for then; so are the tiles the prefetch below evicts (older than this one).
    t = rs.pb;
    rs.pb += 1;
  } else {
    // Not prefetched (first load, a new step, or the ring moved on through another copy of this
    // block pointer or a refetch): copy it now and start a new window after it.
    t = n_lds;
    rs.n = t;
    rs.pb = t + 1;
    rs.ps0 = s0;
    rs.ps1 = s1;
  }
  // Every wave is past its use of the tiles it read: a slot may be refilled below, but not one
  // a wgmma group in flight reads: the prefetch stops short of it (a miss whose own tile goes
  // there waits first). The test comes after the barrier, so that the barrier does not wait for
  // the state's load.
  gpu::prim::barrier();
  const int bound = ring_issue_bound(r, st, t);
  // A miss's own tile first, then the prefetch: keep stages - 1 tiles ahead, into slots older
  // than this tile's; never past the tensor. Tile j is at (o0, o1) + (j - t) * step. (A miss
  // waited for nothing after t yet: those slots' old tiles are waited first.) One call site, so
  // that the copy code is inlined once.
#pragma unroll 1
  for (int j = rs.n; j - t < S && j < bound; ++j) {
    const int q0 = o0 + (j - t) * s0, q1 = o1 + (j - t) * s1;
    if (j > t &&
        ((s0 == 0 && s1 == 0) || q0 >= r.shape0 || q1 >= r.shape1 || q0 + R <= 0 || q1 + C <= 0))
      break;
    ring_issue(r, j, !hit, q0, q1, fmt);
    rs.n = j + 1;
  }
  rs.last0 = o0;
  rs.last1 = o1;
  *cp = rs.n;
  ring_wait(r, t);
  return t;
}

// Copy a tile into the ring again (its view went stale, or is in another format than a dot
// needs): a new tile number. The block pointers of the ring see the count move and start over at
// their next load, in the format asked for here (a dot's operand keeps its role).
template <class T, int R, int C, int W>
BV_DI int ring_refetch(const ring_ref<T, R, C, W>& r, int o0, int o1, int fmt) {
  ring_state* sp = r.state();
  const int t = sp->count;
  gpu::prim::barrier();
  ring_issue_bound(r, *sp, t);
  ring_issue(r, t, true, o0, o1, fmt);
  sp->count = t + 1;
  // The ring's first tile copied again: the format the first dot wanted is the next programs'
  // first (make_block_ptr).
  if (t == 1 && sp->fmt != fmt && gpu::prim::thread_id() == 0) {
    int* h = *r.hint();
    if (h != nullptr) *reinterpret_cast<volatile int*>(h) = fmt_hint<R, C, W>(fmt);
  }
  sp->fmt = fmt;
  ring_wait(r, t);
  return t;
}
#endif
}  // namespace detail

#if BV_NVIDIA
template <class T, int R, int C, int W>
BV_DI void bp_tile<T, R, C, W>::refetch(int f) {
  t = detail::ring_refetch(src, off0, off1, f);
  fmt = f;
}
template <class T, int R, int C, int W>
BV_DI const typename bp_tile<T, R, C, W>::U* bp_tile<T, R, C, W>::slot() {
  if (!pinned && !fresh()) refetch(fmt);
  return src.slot_ptr(t);
}
#endif

// make_block_ptr<R, C>(p, base, {rows, cols}, {row_stride, col_stride}, {row_off, col_off}
// [, max_slots<N>]).
template <int R, int C, class T, int W, int N = unlimited_slots>
BV_DI block_ptr<T, R, C, W> make_block_ptr(const program<W>& p, ptr<T> base, index2 shape,
                                           index2 strides, index2 offsets, max_slots_t<N> = {}) {
  static_assert(rules::block_ptr_tile<R, C>());
  block_ptr<T, R, C, W> b;
  b.base = base.p;
  b.shape0 = shape.d0;
  b.shape1 = shape.d1;
  b.stride0 = strides.d0;
  b.stride1 = strides.d1;
  b.off0 = offsets.d0;
  b.off1 = offsets.d1;
#if BV_NVIDIA
  // Only a read-only tensor's block pointer (ptr<const T>) gets a ring: one the program writes
  // (an output tile stored through a block pointer) needs no slots, and a ring's copies of tiles
  // ahead would not see the program's own stores.
  if constexpr (std::is_const_v<T> && detail::ring_tile<T, R, C, W>() && gpu::prim::has_cp_async) {
    const int S = detail::ring_slots(p.stages, N);
    if (S >= 1) {
      // The slots from the front of the dynamic LDS (tile sizes are multiples of 1024 bytes, so
      // every ring's slots stay 1024-byte aligned, as wgmma's 128-byte swizzle needs), the
      // bookkeeping from its end; together what block_ptr_lds_bytes counts.
      // A kernel with a printf call gets every wgmma serialised by ptxas (each waited for before
      // the next): where wgmma exists, any ring tile can be its operand (a B operand with a from
      // registers takes 64k columns; fmt_wr), so the misuse below only traps there.
      constexpr bool say = !gpu::prim::has_wgmma;
      const int tiles = S * (R * C * 2);
      const int meta = detail::ring_bytes_for(R * C * 2, S, W) - tiles;
      const int at = p.lds_taken;
      p.lds_taken = at + tiles;
      p.lds_meta_taken += meta;
      const int dyn = static_cast<int>(gpu::prim::dyn_lds_bytes());
      if (p.lds_taken + p.lds_meta_taken > dyn) {
        if (say && gpu::prim::thread_id() == 0)
          printf(
              "blockvec GPU: program (%d,%d,%d): make_block_ptr needs %d bytes of dynamic LDS "
              "for its ring (%d slots); the launch gave %u. The launcher must size the "
              "dynamic LDS with block_ptr_lds_bytes.\n",
              p.id(0), p.id(1), p.id(2), p.lds_taken + p.lds_meta_taken, S,
              gpu::prim::dyn_lds_bytes());
        __trap();
      }
      b.ring_at = at;
      b.meta = gpu::prim::dyn_lds() + (dyn - p.lds_meta_taken);
      b.stages = S;
      // ring_copy's addressing relies on 128-byte alignment, wgmma's swizzle on 1024.
      const uint32_t slots = gpu::prim::lds_addr(gpu::prim::dyn_lds() + at);
      if (slots % (gpu::prim::has_wgmma ? 1024 : 128) != 0) {
        if (say && gpu::prim::thread_id() == 0)
          printf("blockvec GPU: dynamic LDS is not %d-byte aligned\n",
                 gpu::prim::has_wgmma ? 1024 : 128);
        __trap();
      }
      b.rs.last0 = offsets.d0;
      b.rs.last1 = offsets.d1;
      // The first tile's format: what earlier programs' first dots copied it again in, else the
      // one the tile's shape suggests. A hint only: every dot checks the format it reads.
      const int ri = p.rings_taken++;
      int* hint = p.fmt_hints != nullptr && ri < p.tmap_rings ? p.fmt_hints + ri : nullptr;
      const int h = hint != nullptr ? *reinterpret_cast<volatile int*>(hint) : 0;
      const int f = h - detail::fmt_hint<R, C, W>(0);
      *(reinterpret_cast<detail::ring_state*>(b.meta + 8 * S) + gpu::prim::wave_id()) = {
          0, f >= 0 && f <= detail::fmt_wm ? f : detail::first_fmt<R, C, W>(), -1};
      if (gpu::prim::thread_id() == 0) {
        *detail::ring_ref<T, R, C, W>::hint_at(b.meta, S) = hint;
        for (int s = 0; s < S; ++s)
          gpu::prim::mbar_init(gpu::prim::lds_addr(b.meta + 8 * s), W * gpu::prim::wave_size);
      }
      if constexpr (gpu::prim::has_tma &&
                    (detail::wg_a_tile<R, C, W>() || detail::wg_b_tile<R, C, W>() ||
                     detail::wm_chunk_tile<R, C, W>())) {
        // A tensor map where the TMA can copy the tiles (a 16-byte aligned base, unit column
        // stride, rows a multiple of 16 bytes apart), in the launch's global memory for this
        // program's maps, built by wave 0 in the first slot (not yet used).
        const int i = p.tmaps_taken++;
        const int pid = p.id(0) + p.num_programs(0) * (p.id(1) + p.num_programs(1) * p.id(2));
        // fmt_wm's map for a tile that is neither A nor B tile, and for an A tile whose earlier
        // programs' first dots read it in fmt_wm (tmap_wm), where the tensor has whole 32-row
        // groups to map.
        const bool wm_map = detail::wm_chunk_tile<R, C, W>() ||
                            (detail::wg_a_tile<R, C, W>() && f == detail::fmt_wm && shape.d0 >= 32);
        if (p.tmaps != nullptr && p.tma_list != nullptr && i < p.tmap_rings &&
            pid < p.tmap_programs && strides.d1 == 1 && strides.d0 > 0 && strides.d0 % 8 == 0 &&
            shape.d0 >= (detail::wm_chunk_tile<R, C, W>() ? 32 : 1) && shape.d1 > 0 &&
            reinterpret_cast<uintptr_t>(base.p) % 16 == 0) {
          unsigned char* map = p.tmaps + 128 * (pid * p.tmap_rings + i);
          const uint64_t rb = 2ull * strides.d0;  // bytes a row
          if (gpu::prim::wave_id() == 0) {
            if (wm_map) {
              // fmt_wm's rows in mma_order (ring_copy_tma): a row r = 32 g + 8 l + 2 m + e at
              // image row 32 g + 8 m + 2 l + e, as the dimensions (columns, e, l, m, g).
              gpu::prim::tmap_build(slots, map, base.p, shape.d1, 2, rb, 64, 2, 4, 8 * rb, 4,
                                    2 * rb, shape.d0 / 32, 32 * rb, R / 32);
            } else {
              if constexpr (detail::wg_a_tile<R, C, W>())  // ring_copy_tma's 64-row boxes
                gpu::prim::tmap_build(slots, map, base.p, shape.d1, shape.d0, rb, 64, 8, 2,
                                      8 * W * rb, 4, 8 * rb);
              else if constexpr (detail::wg_b_tile<R, C, W>())
                gpu::prim::tmap_build(slots, map, base.p, shape.d1, shape.d0, rb, 64, R);
            }
            // The map in the SM's descriptor cache before the first copy asks for it: 4% of what
            // an attention program of two key steps costs (bench/gpu/attention_fwd_dev.cu
            // --overhead).
            if (gpu::prim::lane_id() == 0) gpu::prim::tmap_prefetch(map);
            gpu::prim::fence_proxy_async();  // the slot's generic writes before the TMA's
          }
          p.tma_list->meta[i] = gpu::prim::lds_addr(b.meta);  // for the program's end
          p.tma_list->stages[i] = S;
          b.tmap = detail::wg_a_tile<R, C, W>() && wm_map ? detail::tmap_wm_tag(map) : map;
        }
      }
      gpu::prim::barrier();
    }
  }
#else
  (void)p;
#endif
  return b;
}

namespace detail {
// The view of a ring tile's block pointer before its load (no tile number yet).
template <class T, int R, int C, int W>
BV_DI bp_tile<T, R, C, W> view_of(const block_ptr<T, R, C, W>& bp, boundary_check bc) {
  return {{bp.base, bp.shape0, bp.shape1, bp.stride0, bp.stride1, bp.stages, bp.meta, bp.ring_at,
           bp.tmap},
          bp.off0,
          bp.off1,
          bc.dim0,
          bc.dim1,
          -1,
          fmt_b};
}
template <class T, int R, int C, int W>
BV_DI auto load_bp(const block_ptr<T, R, C, W>& bp, boundary_check bc) {
  if constexpr (!ring_tile<T, R, C, W>()) {
    return load(tile_lanes<T, W, R, C>(bp.base, bp.off0, bp.off1, bp.stride0, bp.stride1),
                tile_mask<W, R, C>(bp.off0, bp.off1, bp.shape0, bp.shape1, bc.dim0, bc.dim1),
                std::remove_const_t<T>{});
  } else {
    bp_tile<T, R, C, W> v = view_of(bp, bc);
#if BV_NVIDIA
    if (bp.stages > 0) v.t = ring_load(v.src, bp.rs, bp.off0, bp.off1, v.fmt);
#endif
    return v;
  }
}
}  // namespace detail

template <class T, int R, int C, int W>
BV_DI typename bp_tile<T, R, C, W>::block_type bp_tile<T, R, C, W>::get() const {
#if BV_NVIDIA
  if constexpr (detail::ring_tile<T, R, C, W>()) {
    if (in_ring()) {
      // From the slot image (any format, swizzled): pairs are contiguous.
      bp_tile v = *this;
      const U* img = v.slot();
      const int fmt = v.fmt;
      block_type out;
#pragma unroll
      for (int ri = 0; ri < block_type::NR; ++ri) {
        const int row = gpu::row_of<R, C, W>(ri);
#pragma unroll
        for (int ci = 0; ci < block_type::NC; ci += 2) {
          const int col = gpu::col_of<R, C, W>(ci);
          __builtin_memcpy(out.v + ri * block_type::NC + ci,
                           img + detail::img_index<R, C, W>(fmt, row, col), 4);
        }
      }
      return out;
    }
  }
#endif
  return load(detail::tile_lanes<const U, W, R, C>(src.base, off0, off1, src.stride0, src.stride1),
              detail::tile_mask<W, R, C>(off0, off1, src.shape0, src.shape1, check0, check1), 0.0f);
}

// load(bp) (unchecked) and load(bp, boundary_check(0, 1)): lanes outside the checked
// dimensions read as zero. On NVIDIA, a 16-bit tile with rows and columns multiples of 32 comes
// back as a bp_tile (see above); other tiles as blocks.
template <class T, int R, int C, int W>
BV_DI auto load(const block_ptr<T, R, C, W>& bp) {
  return detail::load_bp(bp, boundary_check{});
}
template <class T, int R, int C, int W>
BV_DI auto load(const block_ptr<T, R, C, W>& bp, boundary_check bc) {
  return detail::load_bp(bp, bc);
}

template <class T, int R, int C, int W, class V>
requires(Block<V> || Scalar<V> || View<V>) BV_DI
    void store(const block_ptr<T, R, C, W>& bp, const V& value) {
  store(detail::tile_lanes<T, W, R, C>(bp.base, bp.off0, bp.off1, bp.stride0, bp.stride1),
        detail::unview(value));
}
template <class T, int R, int C, int W, class V>
requires(Block<V> || Scalar<V> || View<V>) BV_DI
    void store(const block_ptr<T, R, C, W>& bp, const V& value, boundary_check bc) {
  store(detail::tile_lanes<T, W, R, C>(bp.base, bp.off0, bp.off1, bp.stride0, bp.stride1),
        detail::unview(value),
        detail::tile_mask<W, R, C>(bp.off0, bp.off1, bp.shape0, bp.shape1, bc.dim0, bc.dim1));
}
// (A view of f32 values stored to 16-bit elements converts first: an accumulator then moves
// half the words into the layout's order.)
namespace detail {
template <class T, class V>
BV_DI auto stored_value(const V& value) {
  using E = std::remove_const_t<T>;
  if constexpr (is_16bit_float<E> && !is_16bit_float<typename V::value_type>)
    return value.to(dtype<E>{});
  else
    return value.get();
}
}  // namespace detail
template <class T, class S, int W, class I, class V>
requires View<V> BV_DI void store(const ptr_block<T, S, W, I>& p, const V& value) {
  store(p, detail::stored_value<T>(value));
}
template <class T, class S, int W, class I, class V, class M>
requires View<V> BV_DI void store(const ptr_block<T, S, W, I>& p, const V& value, const M& mask) {
  store(p, detail::stored_value<T>(value), mask);
}

// dot with tile views. Two views in two rings are read from their slots (a by ldmatrix, b by
// ldmatrix .trans; a slot refilled since, or in the other format, is copied again first); so is
// b's, with a in registers, where wgmma takes a from registers (sm_90a, wg_rs_dot); any other
// combination goes through registers (views materialised, b staged in LDS as dot does).
namespace detail {
// The shapes of dot(x, y, acc) for an M x N acc: returns K.
template <class X, class Y, int M, int N>
constexpr int dot_k() {
  using SX = typename std::remove_cvref_t<X>::shape_type;
  using SY = typename std::remove_cvref_t<Y>::shape_type;
  static_assert(SX::rank == 2 && SY::rank == 2 && SX::cols == SY::rows,
                "dot(a, b, acc) needs a's columns to equal b's rows: a is MxK and b must be KxN.");
  static_assert(SX::rows == M && SY::cols == N,
                "dot(a, b, acc): acc must be M x N for an M x K a and a K x N b.");
  return SX::cols;
}
// The zero accumulator of dot(x, y) with two arguments: M x N in x's and y's promoted compute type.
template <class X, class Y>
BV_DI auto dot_zeros() {
  using SX = typename std::remove_cvref_t<X>::shape_type;
  using SY = typename std::remove_cvref_t<Y>::shape_type;
  using R = compute_t<promote_t<typename std::remove_cvref_t<X>::value_type,
                                typename std::remove_cvref_t<Y>::value_type>>;
  basic_block<R, shape<SX::rows, SY::cols>, std::remove_cvref_t<X>::waves> acc;
  generate(acc, [](auto, int, int) { return R(0); });
  return acc;
}

// dot(x, trans(y)) of two tiles in two rings that wgmma reads in place: x an A tile (fmt_a, so
// K = 64), y an N x K tile whose fmt_wm image is b K-major, its rows (n) in mma_order so that the
// accumulator's columns are the layout's (the attention forward's q k^T).
template <int M, int K, int N, int W>
constexpr bool wg_kmajor_dot() {
#if BV_NVIDIA
  return wg_a_tile<M, K, W>() && N % 64 == 0 && N <= 256;
#else
  return false;
#endif
}
#if BV_NVIDIA
// acc += x @ y for two views in two different rings, read in place: x from its fmt_a slot, y
// from its slot in format BF (fmt_b for an accumulator in the layout's order, fmt_bn for one in
// the tensor cores' order: accumulator.hpp), both with k in natural order, by wgmma when both
// images are wgmma's (sm_90a), else by ldmatrix (a) and ldmatrix .trans (b) and mma.sync, each
// image read in its own layout (a mixed pair: one operand's tile shape fits wgmma, the other's
// does not). A tile whose slot was refilled, or holds another format, is copied again first (its
// own ring only, so the other stays). Keep (dot.hpp's wgmma_core): wgmma's group is left in
// flight, and each ring of a view that is not pinned records the tile it reads
// (ring_state::inflight), so that no copy refills those slots first: wg_keep_last, which waited for
// the groups before, records this one's tile; wg_keep_all, which did not, the oldest tile a group
// may still read. BT: y is the N x K tile whose transpose is b (dot(x, trans(y))), read K-major by
// wgmma from its fmt_wm slot (wg_kmajor_dot).
template <int BF, int M, int K, int N, int W, int Keep = wg_sync, bool BT = false, class X, class Y,
          class Acc>
BV_DI void ring_dot(const X& x, const Y& y, Acc& acc) {
  using AX = typename X::value_type;
  X xv = x;
  Y yv = y;
  // Both counts read up front, not one after another's test: a refetch of one ring changes
  // none of the other's. A pinned view is fresh and in its format (the caller checked ring_ok):
  // nothing to read or copy, and its loop, not a record, keeps its slot from a refill.
  const int xn = xv.pinned ? 0 : *xv.src.count(), yn = yv.pinned ? 0 : *yv.src.count();
  if (!xv.pinned && (!xv.fresh_at(xn) | (xv.fmt != fmt_a))) xv.refetch(fmt_a);
  if (!yv.pinned && (!yv.fresh_at(yn) | (yv.fmt != BF))) yv.refetch(BF);
  constexpr bool wb = BT || wg_b_tile<K, N, W>();
  static_assert(!BT || wg_kmajor_dot<M, K, N, W>(), "internal: see wg_kmajor_dot");
  if constexpr (wg_a_tile<M, K, W>() && wb) {
    // Pinned slots were written by the TMA, which wgmma's reads follow without a proxy fence, or
    // fenced once before their loop (tile_loop.hpp's held streams).
    wgmma_core<AX, M, K, N, W, Keep, BT>(xv.src.slot_ptr(xv.t), yv.src.slot_ptr(yv.t), acc,
                                         !(xv.pinned && yv.pinned));
    if constexpr (Keep != wg_sync) {
      if (!xv.pinned) xv.src.set_inflight(xv.t, Keep == wg_keep_all);
      if (!yv.pinned) yv.src.set_inflight(yv.t, Keep == wg_keep_all);
    }
  } else
    mma_core<false, AX, float, M, K, N, W, wb>(a_image<AX, M, K, W>{xv.src.slot_ptr(xv.t)},
                                               yv.src.slot_ptr(yv.t), acc);
}
// acc += a @ b, a in registers, b (BT false) or b's transpose (BT true) the tile view y in a
// ring, read in place by wgmma (wgmma_rs_core) from y's slot in format F: fmt_wr for an
// accumulator in the layout's order, fmt_wm (N-major only) for one in the tensor cores' order
// (accumulator.hpp). A slot refilled since, or holding another format, is copied again first (and
// the ring then issues F from its next load on).
template <bool BT, int M, int K, int N, int W, int F = fmt_wr, class A, class Y, class Acc>
BV_DI void ring_rs_dot(const basic_block<A, shape<M, K>, W>& a, const Y& y, Acc& acc) {
  static_assert(F == fmt_wr || !BT, "internal: fmt_wm feeds a K-major b only from an fmt_a slot");
  Y yv = y;
  if (!yv.pinned && (!yv.fresh() | (yv.fmt != F))) yv.refetch(F);
  // The copies, visible to wgmma's reads (a pinned slot's were the TMA's or fenced before its
  // loop: no fence).
  if (!yv.pinned) gpu::prim::fence_proxy_async();
  wgmma_rs_core<BT, A, M, K, N, W>(a_regs<A, M, K, W>{a}, yv.src.slot_ptr(yv.t), acc);
}
// Whether two views are in two different rings. By offset, not pointer: the offsets fold, so a
// kernel whose operands always come from two rings (matmul) keeps no code, and no static LDS, for
// the other case.
template <class X, class Y>
BV_DI bool in_two_rings(const X& x, const Y& y) {
  return x.in_ring() && y.in_ring() && x.src.at != y.src.at;
}
// Whether a dot may read view v from its slot as format f: a pinned view only in its own format
// (it is never copied again); otherwise the dot reads it into registers. Folds: pinned and fmt are
// constants of the inlined loop.
template <class V>
BV_DI bool ring_ok(const V& v, int f) {
  return !v.pinned || v.fmt == f;
}
#endif

template <int M, int K, int N, class C, int W, class X, class Y>
BV_DI basic_block<C, shape<M, N>, W> dot_views(const X& x, const Y& y,
                                               const basic_block<C, shape<M, N>, W>& acc) {
#if BV_NVIDIA
  using AX = typename std::remove_cvref_t<decltype(unview(x))>::value_type;
  using BY = typename std::remove_cvref_t<decltype(unview(y))>::value_type;
  if constexpr (std::is_same_v<AX, BY> && use_tensor_cores<AX, BY, C, M, N, K, W>()) {
    if constexpr (is_bp_tile<X> && is_bp_tile<Y>) {
      // Both in rings (whether the launch gave stages is constant in a given kernel): in place.
      // Anything else (one operand in registers, both in one ring) goes through registers below.
      if (in_two_rings(x, y) && ring_ok(x, fmt_a) && ring_ok(y, fmt_b)) {
        basic_block<C, shape<M, N>, W> out = acc;
        ring_dot<fmt_b, M, K, N, W>(x, y, out);
        return out;
      }
    }
    // a in registers, b in a ring that wgmma reads with a from registers.
    if constexpr (!is_bp_tile<X> && is_bp_tile<Y> && std::is_same_v<C, float> &&
                  wg_rs_dot<false, M, K, N, W>()) {
      if (y.in_ring() && ring_ok(y, fmt_wr)) {
        basic_block<C, shape<M, N>, W> out = acc;
        ring_rs_dot<false, M, K, N, W>(x, y, out);
        return out;
      }
    }
  }
#endif
  return dot(unview(x), unview(y), acc);
}
}  // namespace detail

template <class X, class Y, class C, int M, int N, int W>
requires((TileView<X> || TileView<Y>)&&(TileView<X> || Block<X>)&&(TileView<Y> || Block<Y>)) BV_DI
    basic_block<C, shape<M, N>, W> dot(const X& x, const Y& y,
                                       const basic_block<C, shape<M, N>, W>& acc) {
  constexpr int K = detail::dot_k<X, Y, M, N>();
  detail::check_dot_shapes<typename std::remove_cvref_t<X>::value_type, M, K, N, W>();
  return detail::dot_views<M, K, N, C, W>(x, y, acc);
}
template <class X, class Y>
requires((TileView<X> || TileView<Y>)&&(TileView<X> || Block<X>)&&(TileView<Y> || Block<Y>)) BV_DI
    auto dot(const X& x, const Y& y) {
  return dot(x, y, detail::dot_zeros<X, Y>());
}
// trans of a view: of its materialised block; of a tile view, a lazy view of the tile (bp_trans),
// which dot can read from the tile's slot.
template <class X>
requires View<X> BV_DI auto trans(const X& x) { return trans(x.get()); }

template <class T, int R, int C, int W>
struct bp_trans {
  using U = std::remove_const_t<T>;
  using value_type = U;
  using shape_type = shape<C, R>;
  using block_type = basic_block<U, shape<C, R>, W>;
  static constexpr int waves = W;
  bp_tile<T, R, C, W> src;  // the tile whose transpose this is
  BV_DI block_type get() const { return detail::transpose(src.get()); }
  BV_DI operator block_type() const { return get(); }
  // The transpose of the materialised tile, still lazy (dot stages it from the tile's rows).
  BV_DI trans_view<U, R, C, W> lazy() const { return {src.get()}; }
  template <class V>
  BV_DI trans_view<V, R, C, W> to(dtype<V> d) const {
    return {src.get().to(d)};
  }
};
template <class T, int R, int C, int W>
inline constexpr bool is_view<bp_trans<T, R, C, W>> = true;
template <class X>
inline constexpr bool is_bp_trans = false;
template <class T, int R, int C, int W>
inline constexpr bool is_bp_trans<bp_trans<T, R, C, W>> = true;
template <class T, int R, int C, int W>
BV_DI bp_trans<T, R, C, W> trans(const bp_tile<T, R, C, W>& x) {
  return {x};
}
template <class T, int R, int C, int W>
BV_DI bp_tile<T, R, C, W> trans(const bp_trans<T, R, C, W>& x) {
  return x.src;
}

namespace detail {
// A dot operand as plain dot takes it: a transposed tile as the lazy transpose of its block, any
// other view materialised.
template <class X>
BV_DI decltype(auto) dot_operand(const X& x) {
  if constexpr (is_bp_trans<std::remove_cvref_t<X>>)
    return x.lazy();
  else
    return unview(x);
}
}  // namespace detail

// dot with a transposed tile view (dot(q, trans(k)) over a ring of k), on sm_90a: a in registers
// and the tile in a ring, where wg_rs_dot allows, or a a tile too, in another ring, where
// wg_kmajor_dot allows: wgmma reads the slots in place (ring_rs_dot, ring_dot); anything else
// takes the lazy transpose of the materialised tile.
template <class X, class Y, class C, int M, int N, int W>
requires((is_bp_trans<X> || is_bp_trans<Y>)&&(View<X> || Block<X>)&&(View<Y> || Block<Y>)) BV_DI
    basic_block<C, shape<M, N>, W> dot(const X& x, const Y& y,
                                       const basic_block<C, shape<M, N>, W>& acc) {
  constexpr int K = detail::dot_k<X, Y, M, N>();
  using AX = typename std::remove_cvref_t<X>::value_type;
  detail::check_dot_shapes<AX, M, K, N, W>();
#if BV_NVIDIA
  if constexpr (is_bp_tile<X> && is_bp_trans<Y>) {
    using BY = typename Y::value_type;
    if constexpr (std::is_same_v<AX, BY> && std::is_same_v<C, float> &&
                  detail::use_tensor_cores<AX, BY, C, M, N, K, W>() &&
                  detail::wg_kmajor_dot<M, K, N, W>()) {
      if (detail::in_two_rings(x, y.src) && detail::ring_ok(x, detail::fmt_a) &&
          detail::ring_ok(y.src, detail::fmt_wm)) {
        basic_block<C, shape<M, N>, W> out = acc;
        detail::ring_dot<detail::fmt_wm, M, K, N, W, false, true>(x, y.src, out);
        return out;
      }
    }
  }
  if constexpr (Block<X> && is_bp_trans<Y>) {
    using BY = typename Y::value_type;
    if constexpr (std::is_same_v<AX, BY> && std::is_same_v<C, float> &&
                  detail::use_tensor_cores<AX, BY, C, M, N, K, W>() &&
                  detail::wg_rs_dot<true, M, K, N, W>()) {
      if (y.src.in_ring() && detail::ring_ok(y.src, detail::fmt_wr)) {
        basic_block<C, shape<M, N>, W> out = acc;
        detail::ring_rs_dot<true, M, K, N, W>(x, y.src, out);
        return out;
      }
    }
  }
#endif
  return dot(detail::dot_operand(x), detail::dot_operand(y), acc);
}
// (dot(x, y) with a transposed tile: pending.hpp.)
template <class X, class T, int R, int C, int W>
requires TileView<X> BV_DI auto dot(const X& x, const trans_view<T, R, C, W>& y) {
  return dot(x.get(), y);
}
template <class X, class T, int R, int C, int W, class CC, int M, int N>
requires TileView<X> BV_DI auto dot(const X& x, const trans_view<T, R, C, W>& y,
                                    const basic_block<CC, shape<M, N>, W>& acc) {
  return dot(x.get(), y, acc);
}

// Elementwise operators and where() on tile views: on their materialised blocks.
#define BV_TILE_BINARY(op)                                                                   \
  template <class X, class Y>                                                                \
  requires((View<X> || View<Y>)&&(View<X> || Block<X> || Scalar<X>)&&(View<Y> || Block<Y> || \
                                                                      Scalar<Y>)) BV_DI auto \
  operator op(const X& x, const Y& y) {                                                      \
    return detail::unview(x) op detail::unview(y);                                           \
  }
BV_TILE_BINARY(+)
BV_TILE_BINARY(-)
BV_TILE_BINARY(*)
BV_TILE_BINARY(/)
BV_TILE_BINARY(<)
BV_TILE_BINARY(<=)
BV_TILE_BINARY(>)
BV_TILE_BINARY(>=)
BV_TILE_BINARY(==)
BV_TILE_BINARY(!=)
#undef BV_TILE_BINARY
template <class M, class X, class Y>
requires(View<M> || View<X> || View<Y>) BV_DI auto where(const M& mask, const X& x, const Y& y) {
  return where(detail::unview(mask), detail::unview(x), detail::unview(y));
}
template <class X>
requires View<X> BV_DI auto operator-(const X& x) { return -x.get(); }
// Reductions of a view: of its block.
#define BV_VIEW_REDUCE(name)                                             \
  template <class X>                                                     \
  requires View<X> BV_DI auto name(const X& x) { return name(x.get()); } \
  template <int Axis, class X>                                           \
  requires View<X> BV_DI auto name(const X& x) { return name<Axis>(x.get()); }
BV_VIEW_REDUCE(sum)
BV_VIEW_REDUCE(max)
BV_VIEW_REDUCE(min)
BV_VIEW_REDUCE(argmax)
#undef BV_VIEW_REDUCE
// Math and atomics on a view: on its block.
#define BV_VIEW_UNARY(name) \
  template <class X>        \
  requires View<X> BV_DI auto name(const X& x) { return name(x.get()); }
BV_VIEW_UNARY(exp)
BV_VIEW_UNARY(exp2)
BV_VIEW_UNARY(log)
BV_VIEW_UNARY(log2)
BV_VIEW_UNARY(sqrt)
BV_VIEW_UNARY(rsqrt)
BV_VIEW_UNARY(sigmoid)
BV_VIEW_UNARY(tanh)
BV_VIEW_UNARY(sin)
BV_VIEW_UNARY(cos)
BV_VIEW_UNARY(erf)
BV_VIEW_UNARY(floor)
BV_VIEW_UNARY(ceil)
BV_VIEW_UNARY(abs)
#undef BV_VIEW_UNARY
template <class X, class Y>
requires(View<X> || View<Y>) BV_DI auto maximum(const X& x, const Y& y) {
  return maximum(detail::unview(x), detail::unview(y));
}
template <class X, class Y>
requires(View<X> || View<Y>) BV_DI auto minimum(const X& x, const Y& y) {
  return minimum(detail::unview(x), detail::unview(y));
}
#define BV_VIEW_ATOMIC(name, op)                                                                \
  template <class T, class S, int W, class I, class V>                                          \
  requires View<V> BV_DI auto name(const ptr_block<T, S, W, I>& p, const V& v) {                \
    return name(p, v.get());                                                                    \
  }                                                                                             \
  template <class T, class S, int W, class I, class V, class M>                                 \
  requires View<V> BV_DI auto name(const ptr_block<T, S, W, I>& p, const V& v, const M& mask) { \
    return name(p, v.get(), detail::unview(mask));                                              \
  }
BV_ATOMIC_OPS(BV_VIEW_ATOMIC)
#undef BV_VIEW_ATOMIC

}  // namespace gpu_lang
}  // namespace bv
