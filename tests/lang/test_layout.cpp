// The layout map (wave, lane, register) -> element: every element has an owner, and elements are
// held more than once only where the layout documents it (a block smaller than one tile, and the
// reduced dimension of a slice).
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "bv/layout.hpp"

namespace {

using bv::layout::blocked;
using bv::layout::slice;

struct shape2 {
  int rows, cols;
};

// Every 1-D shape (as 1xN) and every 2-D shape with powers of two from 1 to 4096 elements.
std::vector<shape2> all_shapes() {
  std::vector<shape2> out;
  for (int n = 1; n <= 4096; n *= 2) out.push_back({1, n});
  for (int r = 2; r <= 4096; r *= 2)
    for (int c = 1; r * c <= 4096; c *= 2) out.push_back({r, c});
  return out;
}

// How many (wave, lane, register) triples hold each element.
std::vector<int> owners(const blocked& b) {
  std::vector<int> n(static_cast<size_t>(b.shape[0] * b.shape[1]), 0);
  for (int w = 0; w < b.waves(); ++w)
    for (int l = 0; l < b.wave_size(); ++l)
      for (int r = 0; r < b.regs(); ++r) {
        const auto c = b.element(w, l, r);
        REQUIRE(c.row >= 0);
        REQUIRE(c.row < b.shape[0]);
        REQUIRE(c.col >= 0);
        REQUIRE(c.col < b.shape[1]);
        REQUIRE(b.flat(w, l, r) == c.row * b.shape[1] + c.col);
        ++n[static_cast<size_t>(b.flat(w, l, r))];
      }
  return n;
}

}  // namespace

TEST_CASE("blocked layouts own every element, replicated only below one tile") {
  int checked = 0;
  for (int wave_size : {64, 32})
    for (int waves : {1, 2, 4, 8})
      for (int elem : {2, 4, 8})
        for (const auto s : all_shapes()) {
          const blocked b = bv::layout::default_blocked(s.rows, s.cols, elem, waves, wave_size);
          CAPTURE(wave_size);
          CAPTURE(waves);
          CAPTURE(elem);
          CAPTURE(s.rows);
          CAPTURE(s.cols);
          REQUIRE(b.wave_size() == wave_size);
          REQUIRE(b.waves() == waves);
          // A lane holds at most 16 bytes contiguously, as one vector load.
          CHECK(b.spt[1] * elem <= 16);
          const auto n = owners(b);
          const int size = s.rows * s.cols;
          // The documented formula: lanes x registers spread evenly over the elements.
          const int repl = waves * wave_size * b.regs() / size;
          CHECK(b.replication() == repl);
          for (int i = 0; i < size; ++i) {
            CAPTURE(i);
            REQUIRE(n[static_cast<size_t>(i)] == repl);
          }
          if (size >= b.tile(0) * b.tile(1)) CHECK(repl == 1);
          ++checked;
        }
  CHECK(checked == 2 * 4 * 3 * 91);
}

TEST_CASE("a lane's registers run along the contiguous dimension first") {
  // Vector loads need a lane's first spt[1] registers to be adjacent columns of one row.
  const blocked b = bv::layout::default_blocked(64, 128, 4, 4);
  REQUIRE(b.spt[1] == 4);
  for (int w = 0; w < b.waves(); ++w)
    for (int l = 0; l < b.wave_size(); ++l) {
      const auto c0 = b.element(w, l, 0);
      for (int e = 1; e < b.spt[1]; ++e) {
        const auto c = b.element(w, l, e);
        CHECK(c.row == c0.row);
        CHECK(c.col == c0.col + e);
      }
    }
  // Neighbouring lanes hold neighbouring vectors: a wave reads contiguous memory.
  CHECK(b.element(0, 1, 0).col == b.element(0, 0, 0).col + b.spt[1]);
}

TEST_CASE("slice layouts own every kept index, replicated along the reduced dimension") {
  int checked = 0;
  for (int wave_size : {64, 32})
    for (int waves : {1, 2, 4, 8})
      for (int elem : {2, 4, 8})
        for (const auto s : all_shapes())
          for (int dim : {0, 1}) {
            const blocked p = bv::layout::default_blocked(s.rows, s.cols, elem, waves, wave_size);
            const slice sl{p, dim};
            CAPTURE(wave_size);
            CAPTURE(waves);
            CAPTURE(elem);
            CAPTURE(s.rows);
            CAPTURE(s.cols);
            CAPTURE(dim);
            const int k = 1 - dim;
            REQUIRE(sl.size() == p.shape[k]);
            std::vector<int> n(static_cast<size_t>(sl.size()), 0);
            for (int w = 0; w < sl.waves(); ++w)
              for (int l = 0; l < sl.wave_size(); ++l) {
                // The indices a lane holds after the reduction are those of the rows (columns)
                // it held before it: the reduction needs no data movement across that dimension.
                std::vector<int> before(static_cast<size_t>(sl.size()), 0);
                for (int r = 0; r < p.regs(); ++r) {
                  const auto c = p.element(w, l, r);
                  before[static_cast<size_t>(k == 0 ? c.row : c.col)] = 1;
                }
                for (int r = 0; r < sl.regs(); ++r) {
                  const int e = sl.element(w, l, r);
                  REQUIRE(e >= 0);
                  REQUIRE(e < sl.size());
                  CHECK(before[static_cast<size_t>(e)] == 1);
                  ++n[static_cast<size_t>(e)];
                }
              }
            const int repl = waves * wave_size * sl.regs() / sl.size();
            CHECK(sl.replication() == repl);
            // Documented: the parent's replication times the lanes and waves that spanned the
            // reduced dimension.
            CHECK(repl == p.replication() * p.shape[dim] / (p.reps(dim) * p.spt[dim]));
            for (int i = 0; i < sl.size(); ++i) {
              CAPTURE(i);
              REQUIRE(n[static_cast<size_t>(i)] == repl);
            }
            ++checked;
          }
  CHECK(checked == 2 * 4 * 3 * 91 * 2);
}

TEST_CASE("layouts are constexpr, so both backends can place blocks at compile time") {
  constexpr blocked b = bv::layout::blocked_for<bv::shape<32, 64>, 4, 4>;
  static_assert(b.waves() == 4 && b.wave_size() == 64);
  static_assert(b.replication() == 1);
  static_assert(b.element(0, 0, 0) == bv::layout::coord{0, 0});
  constexpr blocked b32 = bv::layout::blocked_for<bv::shape<1024>, 4, 8, 32>;
  static_assert(b32.wave_size() == 32 && b32.waves() == 8 && b32.replication() == 1);
  constexpr slice s{b, 1};
  static_assert(s.size() == 32);
  CHECK(b.regs() * b.waves() * b.wave_size() == 32 * 64);
}
