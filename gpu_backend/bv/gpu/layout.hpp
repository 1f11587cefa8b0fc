// Where block elements live on the GPU: the maps of lang/bv/layout.hpp for the target this
// translation unit compiles for (sm_90 under nvcc, the AMD map otherwise; gfx942 and gfx90a share
// it), plus the calling thread's coordinates in them. The maps, their tile parameters and wave
// grids are defined there alone, so the interpreter's diagnostics, coalescing figures and the
// viewer describe exactly the registers this lowering uses.
//  - 2-D blocks (R, C): the factorised map (layout2d), NR row registers x NC column registers.
//  - 1-D blocks (N): the flat map over every thread of the program (layout1d); they also carry
//    their values at the positions a .row() or .col() of them needs (see block.hpp), which the
//    compiler drops when unused.
#pragma once
#include "bv/gpu/wave.hpp"
#include "bv/layout.hpp"
#include "bv/target.hpp"

namespace bv::gpu {

#if BV_NVIDIA
inline constexpr target lowering_target = target::sm_90;
#else
inline constexpr target lowering_target = target::gfx942;
#endif
static_assert(wave_size_of(lowering_target) == prim::wave_size,
              "The layout maps' wave size must be the hardware wave size of this lowering.");

using tile2d = layout::static_tile<lowering_target>;
template <int R, int C, int W>
using layout2d = layout::static_map2d<lowering_target, R, C, W>;
template <int N, int W>
using layout1d = layout::static_map1d<lowering_target, N, W>;

// Runtime coordinates of the calling thread, for the maps above.
template <int R, int C, int W>
BV_DI int row_of(int ri) {
  using L = layout2d<R, C, W>;
  return L::rows::at(L::lane_row(prim::lane_id()), L::wave_row(prim::wave_id()), ri);
}
// Without copies along the columns (C a whole number of column tiles), a thread's column is its
// lane part, below one tile, plus a constant of the register: col_lane_part() + cols::raw(0, 0,
// ci). On AMD the lane part is hidden from the compiler: knowing its low bits zero, it made each +
// c an OR nested in the offsets that loads and stores test for contiguity, and could not fold
// those tests (memory.hpp's vector_ok); a plain sum it folds.
template <int R, int C, int W>
BV_DI int col_lane_part() {
  using L = layout2d<R, C, W>;
  static_assert(C % L::cols::tile() == 0, "col_lane_part needs C a whole number of column tiles.");
  int lane_part = L::cols::raw(L::lane_col(prim::lane_id()), L::wave_col(prim::wave_id()), 0);
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  asm("" : "+v"(lane_part));
#endif
  return lane_part;
}
template <int R, int C, int W>
BV_DI int col_of(int ci) {
  using L = layout2d<R, C, W>;
#if !BV_NVIDIA && defined(__HIP_DEVICE_COMPILE__)
  if constexpr (C % L::cols::tile() == 0) return col_lane_part<R, C, W>() + L::cols::raw(0, 0, ci);
#endif
  return L::cols::at(L::lane_col(prim::lane_id()), L::wave_col(prim::wave_id()), ci);
}
// Whether register (ri, ci) of this thread is the first copy of its element (not a replica).
template <int R, int C, int W>
BV_DI bool owner2d(int ri, int ci) {
  return layout2d<R, C, W>::map().owner(prim::wave_id(), prim::lane_id(), ri, ci);
}
// Whether this thread's row register ri (column register ci) of a 2-D block holds its rows' (its
// columns') first copy. Where whole waves are the copies (the block has fewer rows than one pass
// of the waves' lanes covers, in whole waves' rows), the test reads the wave alone: a branch on it
// is uniform and skips the copies' work outright.
template <class D, int N>
BV_DI bool owns_along(int w, int l, int i) {
  if constexpr (D::tile() <= N)
    return true;
  else if constexpr (N % D::raw(0, 1, 0) == 0)  // whole waves' rows (columns) of lanes
    return D::raw(0, prim::wave_uniform(w), i) < N;
  else
    return D::raw(l, w, i) < N;
}
template <int R, int C, int W>
BV_DI bool owns_row(int ri) {
  using L = layout2d<R, C, W>;
  return owns_along<typename L::rows, R>(L::wave_row(prim::wave_id()), L::lane_row(prim::lane_id()),
                                         ri);
}
template <int R, int C, int W>
BV_DI bool owns_col(int ci) {
  using L = layout2d<R, C, W>;
  return owns_along<typename L::cols, C>(L::wave_col(prim::wave_id()), L::lane_col(prim::lane_id()),
                                         ci);
}
// Whether a 1-D block of N elements has no copies: N a multiple of v * threads. Then every raw
// element of a program's threads (a launch starts exactly W * wave_size of them) is below N, and
// flat_of and owner1d say so themselves: the compiler does not know the thread id's bound, and
// through the map's `% N` and `< N` every register's column became a value of its own, so the
// loads' contiguity tests did not fold and each column, mask and owner test stayed live from load
// to store (RMSNorm f16 over 8192 columns on 16 warps: 56 registers on sm_90a, 40 without).
template <int N, int W>
inline constexpr bool no_copies1d = N % (layout1d<N, W>::v * layout1d<N, W>::threads) == 0;

template <int N, int W>
BV_DI int flat_of(int i) {
  if constexpr (no_copies1d<N, W>)
    return layout1d<N, W>::raw(prim::thread_id(), i);
  else
    return layout1d<N, W>::element(prim::thread_id(), i);
}
// (A raw element past N is a copy; spelled out rather than through map().owner(), which the AMD
// compiler schedules slightly differently.)
template <int N, int W>
BV_DI bool owner1d(int i) {
  if constexpr (no_copies1d<N, W>)
    return true;
  else
    return layout1d<N, W>::raw(prim::thread_id(), i) < N;
}

}  // namespace bv::gpu
