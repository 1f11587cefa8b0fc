// Where block elements live on the GPU: constexpr maps (wave, lane, register) -> element, the
// same kind of map as lang/bv/layout.hpp's, specialised so that the accumulator of dot needs no
// conversion:
//  - 2-D blocks (R, C) use a factorised blocked layout: a thread's registers form a grid of
//    row registers x column registers; which rows it holds depends on R alone and which columns
//    on C alone, so broadcasting (R,1) or (1,C) into (R,C) never moves data. Its parameters are
//    those of the matrix cores' accumulator: on NVIDIA mma.sync m16n8 (lanes 8 x 4, lanes along
//    columns first; each lane holds 8 contiguous columns, the 2-column pairs of four n-tiles,
//    which dot stages in mma order), on AMD MFMA 32x32 used transposed (lanes 32 x 2, 4
//    contiguous columns per lane, lanes along rows first).
//  - 1-D blocks (N) use a flat layout over every thread of the program (4 contiguous elements per
//    thread, the widest vector loads); they also carry their values at the positions a .row() or
//    .col() of them needs (see block.hpp), which the compiler drops when unused.
#pragma once
#include "bv/gpu/wave.hpp"
#include "bv/layout.hpp"

namespace bv::gpu {

// The waves of a program arranged as WM x WN over a 2-D block. NVIDIA: every wave along the rows
// (WN = 1), as FlashAttention-2 splits its warps: a wave then holds whole rows of every 2-D block,
// so the A operand of dot (and the P of attention) is already in mma.sync's fragment layout in
// registers, and reductions along rows stay inside a wave. AMD: 2-D wave grids (MFMA path).
#if BV_NVIDIA
constexpr int waves_m(int w) { return w; }
#else
constexpr int waves_m(int w) { return w == 1 ? 1 : (w == 2 ? 2 : (w == 4 ? 2 : (w == 8 ? 4 : 4))); }
#endif
constexpr int waves_n(int w) { return w / waves_m(w); }

struct tile2d {
#if BV_NVIDIA
  // 8 contiguous columns per lane (16-byte f16 accesses), 4 lanes along the columns: the mma
  // accumulator's columns in another order (dot.hpp's mma_order), so dot needs no conversion.
  static constexpr int spt0 = 1, spt1 = 8, tpw0 = 8, tpw1 = 4;
  static constexpr bool lanes_cols_first = true;
#else
  static constexpr int spt0 = 1, spt1 = 4, tpw0 = 32, tpw1 = 2;
  static constexpr bool lanes_cols_first = false;
#endif
};

// One dimension of a 2-D block: extent n, split as spt per thread, tpw per wave, wpc waves.
template <int n, int spt, int tpw, int wpc>
struct dim_map {
  BV_HD static constexpr int tile() { return spt * tpw * wpc; }
  BV_HD static constexpr int reps() { return tile() >= n ? 1 : n / tile(); }
  BV_HD static constexpr int regs() { return spt * reps(); }
  // Unwrapped coordinate of register i for the lane/wave coordinate (l, w) along this dimension;
  // it is >= n for a replicated copy (n smaller than a tile).
  BV_HD static constexpr int raw(int l, int w, int i) {
    return (i / spt) * tile() + (w * tpw + l) * spt + i % spt;
  }
  BV_HD static constexpr int at(int l, int w, int i) { return raw(l, w, i) % n; }
};

template <int R, int C, int W>
struct layout2d {
  static constexpr int WM = waves_m(W), WN = waves_n(W);
  using rows = dim_map<R, tile2d::spt0, tile2d::tpw0, WM>;
  using cols = dim_map<C, tile2d::spt1, tile2d::tpw1, WN>;
  static constexpr int NR = rows::regs(), NC = cols::regs();
  static constexpr int regs = NR * NC;
  BV_HD static constexpr int lane_row(int lane) {
    return tile2d::lanes_cols_first ? lane / tile2d::tpw1 : lane % tile2d::tpw0;
  }
  BV_HD static constexpr int lane_col(int lane) {
    return tile2d::lanes_cols_first ? lane % tile2d::tpw1 : lane / tile2d::tpw0;
  }
  BV_HD static constexpr int wave_row(int wave) { return wave / WN; }
  BV_HD static constexpr int wave_col(int wave) { return wave % WN; }
  // The element (row, col) that register (ri, ci) of (wave, lane) holds.
  BV_HD static constexpr layout::coord element(int wave, int lane, int ri, int ci) {
    return {rows::at(lane_row(lane), wave_row(wave), ri),
            cols::at(lane_col(lane), wave_col(wave), ci)};
  }
};

// The flat 1-D layout: thread t of the program holds elements ((i / v) * T + t) * v + i % v.
template <int N, int W>
struct layout1d {
  static constexpr int threads = W * prim::wave_size;
  static constexpr int v = N / threads >= 4 ? 4 : (N / threads >= 2 ? 2 : 1);
  static constexpr int reps = N <= v * threads ? 1 : N / (v * threads);
  static constexpr int regs = v * reps;
  BV_HD static constexpr int raw(int thread, int i) {
    return ((i / v) * threads + thread) * v + i % v;
  }
  BV_HD static constexpr int element(int thread, int i) { return raw(thread, i) % N; }
};

// Runtime coordinates of the calling thread, for the maps above.
template <int R, int C, int W>
BV_DI int row_of(int ri) {
  using L = layout2d<R, C, W>;
  return L::rows::at(L::lane_row(prim::lane_id()), L::wave_row(prim::wave_id()), ri);
}
template <int R, int C, int W>
BV_DI int col_of(int ci) {
  using L = layout2d<R, C, W>;
  return L::cols::at(L::lane_col(prim::lane_id()), L::wave_col(prim::wave_id()), ci);
}
// Whether register (ri, ci) of this thread is the first copy of its element (not a replica).
template <int R, int C, int W>
BV_DI bool owner2d(int ri, int ci) {
  using L = layout2d<R, C, W>;
  const int lr = L::lane_row(prim::lane_id()), lc = L::lane_col(prim::lane_id());
  const int wr = L::wave_row(prim::wave_id()), wc = L::wave_col(prim::wave_id());
  return L::rows::raw(lr, wr, ri) < R && L::cols::raw(lc, wc, ci) < C;
}
template <int N, int W>
BV_DI int flat_of(int i) {
  return layout1d<N, W>::element(prim::thread_id(), i);
}
template <int N, int W>
BV_DI bool owner1d(int i) {
  return layout1d<N, W>::raw(prim::thread_id(), i) < N;
}

}  // namespace bv::gpu
