// Layouts: functions from (wave, lane, register) to the element of a block that a lane holds.
// The interpreter uses them to say which wavefront and lane touched which address; the GPU backend
// uses the same functions to place block values in registers. Triton's BlockedLayout and
// SliceLayout, written as small constexpr structs that compose.
#pragma once
#include "bv/config.hpp"
#include "bv/shape.hpp"

namespace bv::layout {

struct coord {
  int row = 0, col = 0;
  BV_HD constexpr bool operator==(const coord&) const = default;
};

// Row-major blocked layout over (rows, cols): each lane holds spt[0] x spt[1] contiguous
// elements, lanes of a wave tile tpw[0] x tpw[1] such patches, waves tile wpc[0] x wpc[1]; the
// tile repeats over registers when the block is larger than one tile. When the block is smaller
// than a tile along a dimension, lanes wrap around and hold the same element: that replication
// is the only one a blocked layout has (see replication()).
struct blocked {
  int shape[2] = {1, 1};
  int spt[2] = {1, 1};
  int tpw[2] = {1, 64};
  int wpc[2] = {1, 1};

  BV_HD constexpr int wave_size() const { return tpw[0] * tpw[1]; }
  BV_HD constexpr int waves() const { return wpc[0] * wpc[1]; }
  BV_HD constexpr int tile(int d) const { return spt[d] * tpw[d] * wpc[d]; }
  BV_HD constexpr int reps(int d) const {
    return tile(d) >= shape[d] ? 1 : (shape[d] + tile(d) - 1) / tile(d);
  }
  BV_HD constexpr int regs() const { return reps(0) * reps(1) * spt[0] * spt[1]; }
  // How many (wave, lane, register) triples hold each element.
  BV_HD constexpr int replication() const {
    return waves() * wave_size() * regs() / (shape[0] * shape[1]);
  }

  BV_HD constexpr coord element(int wave, int lane, int reg) const {
    const int l1 = lane % tpw[1], l0 = lane / tpw[1];
    const int w1 = wave % wpc[1], w0 = wave / wpc[1];
    const int e1 = reg % spt[1];
    const int e0 = (reg / spt[1]) % spt[0];
    const int r1 = (reg / (spt[0] * spt[1])) % reps(1);
    const int r0 = reg / (spt[0] * spt[1] * reps(1));
    const int c0 = r0 * tile(0) + (w0 * tpw[0] + l0) * spt[0] + e0;
    const int c1 = r1 * tile(1) + (w1 * tpw[1] + l1) * spt[1] + e1;
    return {c0 % shape[0], c1 % shape[1]};
  }
  BV_HD constexpr int flat(int wave, int lane, int reg) const {
    const coord c = element(wave, lane, reg);
    return c.row * shape[1] + c.col;
  }
};

// The layout Triton would pick for a block of this shape: vectors of up to 16 bytes per lane
// along the contiguous dimension, lanes along columns first, waves along rows first.
BV_HD constexpr blocked default_blocked(int rows, int cols, int elem_bytes, int waves,
                                        int wave_size = default_wave_size) {
  blocked b{};
  b.shape[0] = rows;
  b.shape[1] = cols;
  int vec = 16 / (elem_bytes > 0 ? elem_bytes : 1);
  if (vec < 1) vec = 1;
  b.spt[1] = vec < cols ? vec : cols;
  b.spt[0] = 1;
  int t1 = cols / b.spt[1];
  if (t1 < 1) t1 = 1;
  b.tpw[1] = t1 < wave_size ? t1 : wave_size;
  b.tpw[0] = wave_size / b.tpw[1];
  int w0 = rows / b.tpw[0];
  if (w0 < 1) w0 = 1;
  b.wpc[0] = w0 < waves ? w0 : waves;
  b.wpc[1] = waves / b.wpc[0];
  return b;
}

template <class S, int ElemBytes, int Waves, int WaveSize = default_wave_size>
inline constexpr blocked blocked_for = default_blocked(S::rows, S::cols, ElemBytes, Waves, WaveSize);

// A reduction's result: the parent layout with dimension `dim` removed. Lanes that differed only
// along `dim` now hold the same element (documented replication); registers run over the kept
// dimension only.
struct slice {
  blocked parent{};
  int dim = 1;  // the reduced dimension

  BV_HD constexpr int keep() const { return 1 - dim; }
  BV_HD constexpr int size() const { return parent.shape[keep()]; }
  BV_HD constexpr int regs() const { return parent.reps(keep()) * parent.spt[keep()]; }
  BV_HD constexpr int waves() const { return parent.waves(); }
  BV_HD constexpr int wave_size() const { return parent.wave_size(); }
  BV_HD constexpr int element(int wave, int lane, int reg) const {
    const int k = keep();
    const int e = reg % parent.spt[k];
    const int r = reg / parent.spt[k];
    const int lk = k == 1 ? lane % parent.tpw[1] : lane / parent.tpw[1];
    const int wk = k == 1 ? wave % parent.wpc[1] : wave / parent.wpc[1];
    const int c = r * parent.tile(k) + (wk * parent.tpw[k] + lk) * parent.spt[k] + e;
    return c % parent.shape[k];
  }
  BV_HD constexpr int replication() const {
    return waves() * wave_size() * regs() / size();
  }
};

}  // namespace bv::layout
