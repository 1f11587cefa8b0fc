// Block pointers on the interpreter (make_block_ptr / advance / load and store with
// boundary_check): a tiled copy through them matches the input on ragged shapes with the checked
// edges zero-padded and not written, and a load that leaves the tensor without a check is
// reported as out of bounds, as any pointer-block load.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>

#include "bv/bv.hpp"

namespace {

// out[tile] = in[tile] + 1 for the R x C tiles of a rows x cols matrix, walking the columns with
// advance; row-major with the given strides.
template <int R, int C, int W = 4>
BV_KERNEL void tile_copy_kernel(bv::program<W> p, bv::ptr<const float> in, bv::ptr<float> out,
                                int rows, int cols, int sin, int sout) {
  auto src = bv::make_block_ptr<R, C>(p, in, {rows, cols}, {sin, 1}, {p.id(0) * R, 0});
  auto dst = bv::make_block_ptr<R, C>(p, out, {rows, cols}, {sout, 1}, {p.id(0) * R, 0});
  for (int c = 0; c < cols; c += C) {
    auto x = bv::load(src, bv::boundary_check(0, 1));
    bv::store(dst, x + 1.0f, bv::boundary_check(0, 1));
    src = bv::advance(src, {0, C});
    dst = bv::advance(dst, {0, C});
  }
}

// Reads one tile at (row0, col0) with no boundary check and stores it densely.
template <int R, int C, int W = 4>
BV_KERNEL void unchecked_kernel(bv::program<W> p, bv::ptr<const float> in, bv::ptr<float> out,
                                int rows, int cols, int row0, int col0) {
  auto src = bv::make_block_ptr<R, C>(p, in, {rows, cols}, {cols, 1}, {row0, col0});
  auto dst = bv::make_block_ptr<R, C>(p, out, {R, C}, {C, 1}, {0, 0});
  bv::store(dst, bv::load(src));
}

}  // namespace

TEST_CASE("block pointers: a tiled copy with boundary checks on ragged shapes") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int rows = bv::testing::ragged(rng, 17, 150), cols = bv::testing::ragged(rng, 17, 150);
  CAPTURE(rows);
  CAPTURE(cols);
  const int sout = cols + 3;  // a padded output: its extra columns must stay untouched
  const auto in = bv::tensor<float>::randn("in", {rows, cols}, seed + 1);
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s, seed);
    bv::tensor<float> out("out", {rows, sout});
    for (int64_t i = 0; i < out.numel(); ++i) out.flat(i) = -7.0f;
    const auto r = bv::launch<tile_copy_kernel<16, 32>>(bv::grid(bv::cdiv(rows, 16)), in, out, rows,
                                                         cols, cols, sout);
    CHECK(r.ok());
    for (const auto& d : r.diagnostics) CHECK_MESSAGE(d.sev != bv::severity::error, d.text());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < sout; ++j) {
        const float want = j < cols ? in.flat(int64_t(i) * cols + j) + 1.0f : -7.0f;
        REQUIRE(out.flat(int64_t(i) * sout + j) == want);
      }
  }
}

TEST_CASE("block pointers: an unchecked load outside the tensor is reported") {
  const auto in = bv::tensor<float>::randn("in", {20, 20}, 5);
  auto out = bv::tensor<float>::empty("out", {16, 16});
  const auto r = bv::launch<unchecked_kernel<16, 16>>(bv::grid(1), in, out, 20, 20, 10, 0);
  bool oob = false;
  for (const auto& d : r.diagnostics) oob = oob || d.kind == "out-of-bounds";
  CHECK(oob);
}
