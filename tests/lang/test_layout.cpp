// The layout maps (wave, lane, register) -> element of every target: every element is held,
// copies exist only where the map documents them (a block smaller than one tile), holder() names
// the first copy, the interpreter attributes elements to waves with the same map, the GPU
// lowering's compile-time view agrees with the run-time map, and hand-derived values from the
// targets' tile parameters hold.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "bv/cpu/lane_map.hpp"
#include "bv/layout.hpp"

namespace {

using bv::target;
using bv::layout::block_map;
using bv::layout::coord;
using bv::layout::slot;

struct shape2 {
  int rank, rows, cols;
};

// A superset of the blocks the library launches (1-D blocks of 256 to 8192 elements; tiles such
// as 64x64, 128x64, 64x32, 32x128, 16xN, 1xN, Nx1): every power-of-two 1-D block up to 16384
// elements and every power-of-two 2-D block up to 16384 elements.
std::vector<shape2> all_shapes() {
  std::vector<shape2> out;
  for (int n = 1; n <= 16384; n *= 2) out.push_back({1, 1, n});
  for (int r = 1; r <= 16384; r *= 2)
    for (int c = 1; r * c <= 16384; c *= 2) out.push_back({2, r, c});
  return out;
}
constexpr int all_waves[] = {1, 2, 4, 8, 16};

// The documented copies of each element, from the targets' tile parameters written out here
// (not read from the map): per dimension of a 2-D block, tile / extent when the tile (elements per
// lane x lanes x waves along it) is larger; for a 1-D block, the threads' pass over it (up to 4
// per thread) / N when larger.
int documented_replication(target t, const shape2& s, int waves) {
  const bool amd = t != target::sm_90;
  const int ws = amd ? 64 : 32;
  if (s.rank == 1) {
    const int threads = waves * ws;
    const int v = s.cols >= 4 * threads ? 4 : (s.cols >= 2 * threads ? 2 : 1);
    return v * threads > s.cols ? v * threads / s.cols : 1;
  }
  const int wm = amd ? (waves == 1 ? 1 : (waves <= 4 ? 2 : 4)) : waves;
  const int wn = waves / wm;
  const int tile0 = (amd ? 32 : 8) * wm, tile1 = (amd ? 4 * 2 : 8 * 4) * wn;
  const int r0 = tile0 > s.rows ? tile0 / s.rows : 1;
  const int r1 = tile1 > s.cols ? tile1 / s.cols : 1;
  return r0 * r1;
}

}  // namespace

TEST_CASE("every target's maps hold each element, copies only as documented, first copy named") {
  int maps = 0;
  for (target t : bv::all_targets)
    for (int waves : all_waves)
      for (const shape2& s : all_shapes()) {
        CAPTURE(bv::target_name(t));
        CAPTURE(waves);
        CAPTURE(s.rank);
        CAPTURE(s.rows);
        CAPTURE(s.cols);
        const block_map L = bv::layout::map_for(t, s.rank, s.rows, s.cols, waves);
        const int n = s.rows * s.cols;
        REQUIRE(L.size() == n);
        REQUIRE(L.waves() == waves);
        REQUIRE(L.wave_size() == bv::wave_size_of(t));
        std::vector<int> count(static_cast<size_t>(n), 0);
        std::vector<slot> first(static_cast<size_t>(n), slot{-1, -1, -1});
        int outside = 0;
        // Walked in (wave, lane, register) order, so the first slot seen is the first copy.
        for (int w = 0; w < L.waves(); ++w)
          for (int l = 0; l < L.wave_size(); ++l)
            for (int r = 0; r < L.regs(); ++r) {
              const int e = L.flat(w, l, r);
              if (e < 0 || e >= n) {
                ++outside;
                continue;
              }
              if (count[static_cast<size_t>(e)]++ == 0) first[static_cast<size_t>(e)] = {w, l, r};
            }
        REQUIRE(outside == 0);
        const int repl = documented_replication(t, s, waves);
        CHECK(L.replication() == repl);
        CHECK(L.slot_count() == n * repl);
        int wrong_count = 0, wrong_holder = 0;
        for (int e = 0; e < n; ++e) {
          wrong_count += count[static_cast<size_t>(e)] != repl;
          const slot h = L.holder(e);
          wrong_holder +=
              !(h == first[static_cast<size_t>(e)]) || L.flat(h.wave, h.lane, h.reg) != e;
        }
        CHECK(wrong_count == 0);
        CHECK(wrong_holder == 0);
        ++maps;
      }
  CHECK(maps == 3 * 5 * static_cast<int>(all_shapes().size()));
}

TEST_CASE("the interpreter attributes elements to the waves of the running target's map") {
  const target saved = bv::config().tgt;
  for (target t : bv::all_targets) {
    bv::set_target(t);
    for (int waves : all_waves)
      for (const shape2& s : all_shapes()) {
        if (s.rows * s.cols > 4096) continue;  // the walk above covers the large ones
        CAPTURE(bv::target_name(t));
        CAPTURE(waves);
        CAPTURE(s.rank);
        CAPTURE(s.rows);
        CAPTURE(s.cols);
        bv::detail::access a;
        a.rank = s.rank;
        a.rows = s.rows;
        a.cols = s.cols;
        a.lanes = s.rows * s.cols;
        a.waves = waves;
        const block_map L = bv::detail::lane_map(a);
        const block_map M = bv::layout::map_for(t, s.rank, s.rows, s.cols, waves);
        REQUIRE(L.rank == M.rank);
        REQUIRE(L.regs() == M.regs());
        // The first wave to hold each element, by walking the map (independent of holder()).
        std::vector<int> owner(static_cast<size_t>(a.lanes), -1);
        for (int w = 0; w < M.waves(); ++w)
          for (int l = 0; l < M.wave_size(); ++l)
            for (int r = 0; r < M.regs(); ++r) {
              int& o = owner[static_cast<size_t>(M.flat(w, l, r))];
              if (o < 0) o = w;
            }
        std::vector<int> lanes(static_cast<size_t>(a.lanes));
        for (int e = 0; e < a.lanes; ++e) lanes[static_cast<size_t>(e)] = e;
        CHECK(bv::detail::waves_of_lanes(a, lanes) == owner);
      }
  }
  bv::set_target(saved);
}

TEST_CASE("hand-derived values from the targets' tile parameters") {
  using bv::layout::map1d_for;
  using bv::layout::map2d_for;
  // AMD, 64x64 under 4 waves: waves 2x2; lanes 32 along rows (lane % 32 is the row) x 2 along
  // columns, 4 contiguous columns each; a wave's columns tile is 8 wide, the program's 16, so the
  // 16 column registers are 4 runs of 4 at column offsets 0, 16, 32, 48.
  for (target t : {target::gfx942, target::gfx90a}) {
    const auto m = map2d_for(t, 64, 64, 4);
    CHECK(m.WM() == 2);
    CHECK(m.WN() == 2);
    CHECK(m.NR() == 1);
    CHECK(m.NC() == 16);
    // Lane 33 of wave 0: row 1, columns 4..7 then 20..23.
    for (int c = 0; c < 4; ++c) {
      CHECK(m.element(0, 33, c) == coord{1, 4 + c});
      CHECK(m.element(0, 33, 4 + c) == coord{1, 20 + c});
    }
    CHECK(m.element(1, 0, 0) == coord{0, 8});      // wave 1: the second column tile
    CHECK(m.element(2, 0, 0) == coord{32, 0});     // wave 2: the second row half
    CHECK(m.element(3, 63, 15) == coord{63, 63});  // the last register of the last lane
    CHECK(m.holder({1, 5}) == slot{0, 33, 1});
    // 16x32 under 4 waves: the rows tile is 64, so 4 copies of each row; columns exact x 2.
    const auto s = map2d_for(t, 16, 32, 4);
    CHECK(s.replication() == 4);
    CHECK(s.element(0, 16, 0) == coord{0, 0});  // lane 16 wraps to row 0
    CHECK(s.holder({0, 0}) == slot{0, 0, 0});
    // 1-D 256 under 4 waves: one element per thread, element 232 in wave 3, lane 40.
    CHECK(map1d_for(t, 256, 4).holder(232) == slot{3, 40, 0});
    CHECK(map1d_for(t, 4096, 8).v() == 4);  // 8 per thread: 4 contiguous, twice
    CHECK(map1d_for(t, 4096, 8).element(0, 1, 5) == 2048 + 4 + 1);
  }
  // NVIDIA, 64x64 under 4 warps: every warp along the rows (4x1); lanes 8 along rows x 4 along
  // columns (lane / 4 is the row), 8 contiguous columns each; tiles 32x32, twice each way.
  {
    const auto m = map2d_for(target::sm_90, 64, 64, 4);
    CHECK(m.WM() == 4);
    CHECK(m.WN() == 1);
    CHECK(m.NR() == 2);
    CHECK(m.NC() == 16);
    CHECK(m.element(1, 5, 0) == coord{9, 8});
    CHECK(m.element(1, 5, 7) == coord{9, 15});
    CHECK(m.element(1, 5, 16 + 8) == coord{41, 40});
    CHECK(m.holder({41, 40}) == slot{1, 5, 24});
    // 1-D 1024 under 4 warps: 128 threads, 8 per thread as 4 contiguous twice.
    const auto f = map1d_for(target::sm_90, 1024, 4);
    CHECK(f.holder(600) == slot{0, 22, 4});
    CHECK(f.element(3, 31, 7) == 512 + 4 * 127 + 3);
    // 1-D 256 under 4 warps: 2 contiguous per thread, element 232 in thread 116 (warp 3, lane 20).
    CHECK(map1d_for(target::sm_90, 256, 4).holder(232) == slot{3, 20, 0});
  }
}

namespace {
// The GPU lowering's compile-time view (static_map2d / static_map1d) against the run-time map.
template <target T, int R, int C, int W>
constexpr bool static_2d_agrees() {
  using S = bv::layout::static_map2d<T, R, C, W>;
  constexpr auto m = bv::layout::map2d_for(T, R, C, W);
  if (S::NR != m.NR() || S::NC != m.NC() || S::WM != m.WM() || S::WN != m.WN()) return false;
  for (int w = 0; w < W; ++w)
    for (int l = 0; l < bv::wave_size_of(T); ++l)
      for (int ri = 0; ri < S::NR; ++ri)
        for (int ci = 0; ci < S::NC; ++ci) {
          if (!(S::element(w, l, ri, ci) == m.element(w, l, ri, ci))) return false;
          if (S::rows::at(S::lane_row(l), S::wave_row(w), ri) != m.element(w, l, ri, ci).row)
            return false;
          if (S::cols::at(S::lane_col(l), S::wave_col(w), ci) != m.element(w, l, ri, ci).col)
            return false;
        }
  return true;
}
template <target T, int N, int W>
constexpr bool static_1d_agrees() {
  using S = bv::layout::static_map1d<T, N, W>;
  constexpr auto m = bv::layout::map1d_for(T, N, W);
  if (S::v != m.v() || S::regs != m.regs() || S::threads != m.threads()) return false;
  for (int t = 0; t < S::threads; ++t)
    for (int i = 0; i < S::regs; ++i)
      if (S::element(t, i) != m.element(t, i)) return false;
  return true;
}
}  // namespace

TEST_CASE("the GPU lowering's compile-time maps equal the run-time maps") {
  CHECK(static_2d_agrees<target::gfx942, 64, 64, 4>());
  CHECK(static_2d_agrees<target::gfx942, 128, 64, 8>());
  CHECK(static_2d_agrees<target::gfx942, 16, 128, 16>());
  CHECK(static_2d_agrees<target::gfx942, 1, 256, 2>());
  CHECK(static_2d_agrees<target::gfx90a, 32, 128, 4>());
  CHECK(static_2d_agrees<target::sm_90, 64, 32, 4>());
  CHECK(static_2d_agrees<target::sm_90, 128, 64, 8>());
  CHECK(static_2d_agrees<target::sm_90, 256, 1, 4>());
  CHECK(static_1d_agrees<target::gfx942, 256, 4>());
  CHECK(static_1d_agrees<target::gfx942, 8192, 16>());
  CHECK(static_1d_agrees<target::sm_90, 1024, 4>());
  CHECK(static_1d_agrees<target::sm_90, 64, 2>());
  // Usable at compile time.
  static_assert(bv::layout::map2d_for(target::gfx942, 64, 64, 4).element(0, 33, 0) == coord{1, 4});
  static_assert(bv::layout::static_map2d<target::sm_90, 64, 64, 4>::NR == 2);
  static_assert(bv::layout::static_map1d<target::gfx942, 256, 4>::v == 1);
}
