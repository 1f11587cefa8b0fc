// Layouts: where each element of a block lives on the GPU, one set of maps per target. A map is a
// function (wave, lane, register) -> element, as in CuTe: the GPU lowering places block values in
// registers with it (gpu_backend/bv/gpu/layout.hpp reads the calling thread's wave and lane and
// asks these maps), and the interpreter, the trace and the viewer attribute block elements to
// waves and lanes with the same maps for the target they run, so a diagnostic's "wave 3", a
// coalescing figure and a lane colour describe the registers the GPU build uses.
//
// Two maps, both constexpr and usable on host and device:
//  - 2-D blocks (R, C): a factorised map. A thread's registers form a grid of NR row registers x
//    NC column registers; which rows it holds depends on R alone and which columns on C alone, so
//    broadcasting (R, 1) or (1, C) into (R, C) never moves data. Its tile is the matrix cores'
//    accumulator, so dot needs no conversion:
//      sm_90 (mma.sync m16n8): lanes 8 x 4, consecutive lanes step along columns, 8 contiguous
//        columns per lane (the 2-column pairs of four n-tiles, staged in mma order by dot);
//        every wave along the rows (waves R x 1), as FlashAttention-2 splits its warps, so a wave
//        holds whole rows and row reductions stay inside it.
//      gfx942, gfx90a (MFMA 32x32, used transposed): lanes 32 x 2, consecutive lanes step along
//        rows, 4 contiguous columns per lane; waves in a 2-D grid (1: 1x1, 2: 2x1, 4: 2x2,
//        8: 4x2, 16: 4x4).
//  - 1-D blocks (N): a flat map over every thread of the program (thread = wave * wave size +
//    lane), each holding up to 4 contiguous elements (the widest vector access), repeated over
//    registers when N is larger than one pass of the threads.
// When a block is smaller than one tile along a dimension (or a 1-D block smaller than the
// program's threads), the extra lanes wrap around and hold copies: that is the only replication
// (replication() counts it), and holder() names the first (wave, lane, register) of an element,
// the copy the GPU lowering stores from.
#pragma once
#include "bv/config.hpp"
#include "bv/target.hpp"

namespace bv::layout {

struct coord {
  int row = 0, col = 0;
  BV_HD constexpr bool operator==(const coord&) const = default;
};

// A register of a thread: (wave, lane, register index).
struct slot {
  int wave = 0, lane = 0, reg = 0;
  BV_HD constexpr bool operator==(const slot&) const = default;
};

// Every map is written once, over a parameter type P: at run time (the interpreter, the viewer)
// P holds the parameters as fields; in the GPU lowering P holds them as static constexpr members
// of a type named by template arguments (static_* below), CuTe's static integers, so that each
// formula sees literal constants and folds exactly as if written out in place.

// ---- per-target parameters ----------------------------------------------------------------------

// One wave's 2-D tile: spt[d] contiguous elements per lane and tpw[d] lanes along dimension d
// (tpw0 * tpw1 is the wave size); consecutive lanes step along columns or along rows.
struct tile_params {
  int spt0 = 1, spt1 = 1, tpw0 = 1, tpw1 = 1;
  bool lanes_cols_first = true;
};
BV_HD constexpr tile_params tile_of(target t) {
  return is_amd(t) ? tile_params{1, 4, 32, 2, false} : tile_params{1, 8, 8, 4, true};
}

// The waves of a program arranged as waves_m x waves_n over a 2-D block (programs have 1, 2, 4, 8
// or 16 waves; for other counts the grid covers the largest such count below).
BV_HD constexpr int waves_m(target t, int waves) {
  if (!is_amd(t)) return waves < 1 ? 1 : waves;
  return waves <= 1 ? 1 : (waves <= 4 ? 2 : 4);
}
BV_HD constexpr int waves_n(target t, int waves) {
  const int n = waves / waves_m(t, waves);
  return n < 1 ? 1 : n;
}

// ---- one dimension of a 2-D block ------------------------------------------------------------

// Extent n split as spt elements per lane, tpw lanes per wave and wpc waves; the tile
// (spt * tpw * wpc) repeats over registers when n is larger.
struct dim_params {
  int n = 1, spt = 1, tpw = 1, wpc = 1;
};
template <int N, int SPT, int TPW, int WPC>
struct static_dim_params {
  static constexpr int n = N, spt = SPT, tpw = TPW, wpc = WPC;
};

template <class P>
struct basic_dim : P {
  BV_HD constexpr int tile() const { return this->spt * this->tpw * this->wpc; }
  BV_HD constexpr int reps() const {
    return tile() >= this->n ? 1 : (this->n + tile() - 1) / tile();
  }
  BV_HD constexpr int regs() const { return this->spt * reps(); }
  // Copies of each coordinate: the lanes that wrap around a tile larger than n.
  BV_HD constexpr int replication() const { return tile() > this->n ? tile() / this->n : 1; }
  // Unwrapped coordinate of register i for lane coordinate l and wave coordinate w along this
  // dimension; it is >= n for a copy (n smaller than a tile).
  BV_HD constexpr int raw(int l, int w, int i) const {
    return (i / this->spt) * tile() + (w * this->tpw + l) * this->spt + i % this->spt;
  }
  BV_HD constexpr int at(int l, int w, int i) const { return raw(l, w, i) % this->n; }
  // The smallest (w, l, i) holding coordinate x: raw() is a mixed-radix number with w the most
  // significant digit, so the first copy is the one whose raw coordinate is x itself.
  BV_HD constexpr void first(int x, int& w, int& l, int& i) const {
    const int q = (x % tile()) / this->spt;
    i = (x / tile()) * this->spt + x % this->spt;
    l = q % this->tpw;
    w = q / this->tpw;
  }
};
using dim_map = basic_dim<dim_params>;

// ---- the 2-D factorised map ------------------------------------------------------------------

template <class Tile, class RowP, class ColP>
struct basic_map2d {
  Tile tp{};
  basic_dim<RowP> rows{};
  basic_dim<ColP> cols{};

  BV_HD constexpr int wave_size() const { return tp.tpw0 * tp.tpw1; }
  BV_HD constexpr int WM() const { return rows.wpc; }
  BV_HD constexpr int WN() const { return cols.wpc; }
  BV_HD constexpr int waves() const { return WM() * WN(); }
  BV_HD constexpr int NR() const { return rows.regs(); }
  BV_HD constexpr int NC() const { return cols.regs(); }
  BV_HD constexpr int regs() const { return NR() * NC(); }
  BV_HD constexpr int size() const { return rows.n * cols.n; }
  BV_HD constexpr int replication() const { return rows.replication() * cols.replication(); }

  BV_HD constexpr int lane_row(int lane) const {
    return tp.lanes_cols_first ? lane / tp.tpw1 : lane % tp.tpw0;
  }
  BV_HD constexpr int lane_col(int lane) const {
    return tp.lanes_cols_first ? lane % tp.tpw1 : lane / tp.tpw0;
  }
  BV_HD constexpr int wave_row(int wave) const { return wave / WN(); }
  BV_HD constexpr int wave_col(int wave) const { return wave % WN(); }
  BV_HD constexpr int lane_of(int lr, int lc) const {
    return tp.lanes_cols_first ? lr * tp.tpw1 + lc : lc * tp.tpw0 + lr;
  }

  // The element that row register ri and column register ci of (wave, lane) hold.
  BV_HD constexpr coord element(int wave, int lane, int ri, int ci) const {
    return {rows.at(lane_row(lane), wave_row(wave), ri),
            cols.at(lane_col(lane), wave_col(wave), ci)};
  }
  // Registers numbered ri * NC + ci, the order the GPU block stores them in.
  BV_HD constexpr coord element(int wave, int lane, int reg) const {
    return element(wave, lane, reg / NC(), reg % NC());
  }
  BV_HD constexpr int flat(int wave, int lane, int reg) const {
    const coord c = element(wave, lane, reg);
    return c.row * cols.n + c.col;
  }
  // Whether register (ri, ci) of (wave, lane) is the first copy of its element.
  BV_HD constexpr bool owner(int wave, int lane, int ri, int ci) const {
    return rows.raw(lane_row(lane), wave_row(wave), ri) < rows.n &&
           cols.raw(lane_col(lane), wave_col(wave), ci) < cols.n;
  }
  // The first (wave, lane, register) holding c, in (wave, lane, register) order.
  BV_HD constexpr slot holder(coord c) const {
    int wr = 0, lr = 0, ir = 0, wc = 0, lc = 0, ic = 0;
    rows.first(c.row, wr, lr, ir);
    cols.first(c.col, wc, lc, ic);
    return {wr * WN() + wc, lane_of(lr, lc), ir * NC() + ic};
  }
};
using map2d = basic_map2d<tile_params, dim_params, dim_params>;

BV_HD constexpr map2d map2d_for(target t, int rows, int cols, int waves) {
  const tile_params p = tile_of(t);
  return {
      p, {{rows, p.spt0, p.tpw0, waves_m(t, waves)}}, {{cols, p.spt1, p.tpw1, waves_n(t, waves)}}};
}

// ---- the 1-D flat map --------------------------------------------------------------------------

struct flat_params {
  int n = 1, waves = 1, wave_size = 64;
};
template <int N, int W, int WS>
struct static_flat_params {
  static constexpr int n = N, waves = W, wave_size = WS;
};

// Thread t (= wave * wave_size + lane) holds elements ((i / v) * threads + t) * v + i % v: v
// contiguous elements (4, or fewer when N is smaller than 4 per thread) per pass of the threads.
template <class P>
struct basic_map1d : P {
  BV_HD constexpr int threads() const { return this->waves * this->wave_size; }
  BV_HD constexpr int v() const {
    return this->n / threads() >= 4 ? 4 : (this->n / threads() >= 2 ? 2 : 1);
  }
  BV_HD constexpr int reps() const {
    return this->n <= v() * threads() ? 1 : (this->n + v() * threads() - 1) / (v() * threads());
  }
  BV_HD constexpr int regs() const { return v() * reps(); }
  BV_HD constexpr int size() const { return this->n; }
  BV_HD constexpr int replication() const {
    return v() * threads() > this->n ? v() * threads() / this->n : 1;
  }
  // Unwrapped element of register i of thread t; >= n for a copy (n smaller than the threads).
  BV_HD constexpr int raw(int thread, int i) const {
    return ((i / v()) * threads() + thread) * v() + i % v();
  }
  BV_HD constexpr int element(int thread, int i) const { return raw(thread, i) % this->n; }
  BV_HD constexpr int element(int wave, int lane, int reg) const {
    return element(wave * this->wave_size + lane, reg);
  }
  BV_HD constexpr bool owner(int thread, int i) const { return raw(thread, i) < this->n; }
  // The first (wave, lane, register) holding element x: raw() is mixed-radix with the thread
  // above the position within a vector, so the first copy has raw coordinate x.
  BV_HD constexpr slot holder(int x) const {
    const int pass = v() * threads();
    const int t = (x % pass) / v();
    return {t / this->wave_size, t % this->wave_size, (x / pass) * v() + x % v()};
  }
};
using map1d = basic_map1d<flat_params>;

BV_HD constexpr map1d map1d_for(target t, int n, int waves) {
  return {{n, waves < 1 ? 1 : waves, wave_size_of(t)}};
}

// ---- either map, by the block's rank -----------------------------------------------------------

// What the interpreter and the viewer use: a block of rank 1 (N) takes the flat map, a block of
// rank 2 (R, C) the factorised one, even when R is 1. Elements are numbered row * cols + col.
struct block_map {
  int rank = 1;
  map1d m1{};
  map2d m2{};

  BV_HD constexpr int rows() const { return rank == 1 ? 1 : m2.rows.n; }
  BV_HD constexpr int cols() const { return rank == 1 ? m1.n : m2.cols.n; }
  BV_HD constexpr int size() const { return rows() * cols(); }
  BV_HD constexpr int waves() const { return rank == 1 ? m1.waves : m2.waves(); }
  BV_HD constexpr int wave_size() const { return rank == 1 ? m1.wave_size : m2.wave_size(); }
  BV_HD constexpr int regs() const { return rank == 1 ? m1.regs() : m2.regs(); }
  // (lane, register) slots of the whole program, copies included.
  BV_HD constexpr int slot_count() const { return waves() * wave_size() * regs(); }
  BV_HD constexpr int replication() const {
    return rank == 1 ? m1.replication() : m2.replication();
  }
  BV_HD constexpr int flat(int wave, int lane, int reg) const {
    return rank == 1 ? m1.element(wave, lane, reg) : m2.flat(wave, lane, reg);
  }
  BV_HD constexpr slot holder(int element) const {
    return rank == 1 ? m1.holder(element) : m2.holder({element / m2.cols.n, element % m2.cols.n});
  }
};

BV_HD constexpr block_map map_for(target t, int rank, int rows, int cols, int waves) {
  block_map b{};
  b.rank = rank == 1 ? 1 : 2;
  if (b.rank == 1)
    b.m1 = map1d_for(t, rows * cols, waves);
  else
    b.m2 = map2d_for(t, rows, cols, waves);
  return b;
}

// ---- the maps with every parameter static, for the GPU lowering ---------------------------------

template <target T>
struct static_tile {
  static constexpr int spt0 = tile_of(T).spt0, spt1 = tile_of(T).spt1;
  static constexpr int tpw0 = tile_of(T).tpw0, tpw1 = tile_of(T).tpw1;
  static constexpr bool lanes_cols_first = tile_of(T).lanes_cols_first;
};

// One dimension as a type: rows::at(l, w, i) and friends without an object.
template <class P>
struct static_dim {
  BV_HD static constexpr int tile() { return basic_dim<P>{}.tile(); }
  BV_HD static constexpr int reps() { return basic_dim<P>{}.reps(); }
  BV_HD static constexpr int regs() { return basic_dim<P>{}.regs(); }
  BV_HD static constexpr int raw(int l, int w, int i) { return basic_dim<P>{}.raw(l, w, i); }
  BV_HD static constexpr int at(int l, int w, int i) { return basic_dim<P>{}.at(l, w, i); }
};

template <target T, int R, int C, int W>
struct static_map2d {
  using tile_type = static_tile<T>;
  static constexpr int WM = waves_m(T, W), WN = waves_n(T, W);
  using row_params = static_dim_params<R, tile_type::spt0, tile_type::tpw0, WM>;
  using col_params = static_dim_params<C, tile_type::spt1, tile_type::tpw1, WN>;
  using map_type = basic_map2d<tile_type, row_params, col_params>;
  using rows = static_dim<row_params>;
  using cols = static_dim<col_params>;
  static constexpr int NR = rows::regs(), NC = cols::regs();
  static constexpr int regs = NR * NC;

  BV_HD static constexpr map_type map() { return {}; }
  BV_HD static constexpr int lane_row(int lane) { return map().lane_row(lane); }
  BV_HD static constexpr int lane_col(int lane) { return map().lane_col(lane); }
  BV_HD static constexpr int wave_row(int wave) { return map().wave_row(wave); }
  BV_HD static constexpr int wave_col(int wave) { return map().wave_col(wave); }
  BV_HD static constexpr coord element(int wave, int lane, int ri, int ci) {
    return map().element(wave, lane, ri, ci);
  }
};

template <target T, int N, int W>
struct static_map1d {
  using map_type = basic_map1d<static_flat_params<N, W, wave_size_of(T)>>;
  BV_HD static constexpr map_type map() { return {}; }
  static constexpr int threads = map_type{}.threads();
  static constexpr int v = map_type{}.v();
  static constexpr int reps = map_type{}.reps();
  static constexpr int regs = map_type{}.regs();
  BV_HD static constexpr int raw(int thread, int i) { return map().raw(thread, i); }
  BV_HD static constexpr int element(int thread, int i) { return map().element(thread, i); }
};

}  // namespace bv::layout
