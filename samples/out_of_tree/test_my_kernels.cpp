// Tests for our own kernels, the way blockvec tests its library: fresh random ragged sizes,
// outputs poisoned first, every schedule, compared with a double-precision reference.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>
#include <vector>

#include "my_kernels.hpp"

TEST_CASE("axpy matches a double loop") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int n = bv::testing::ragged(rng, 1000, 50000, 256);
  const float alpha = 1.5f;
  const auto x = bv::tensor<float>::randn("x", {n}, seed + 1);
  const auto y = bv::tensor<float>::randn("y", {n}, seed + 2);
  std::vector<double> ref(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ref[static_cast<size_t>(i)] = double(alpha) * x(i) + y(i);
  for (auto s : bv::testing::all_schedules()) {
    bv::testing::schedule_scope scope(s, seed);
    auto out = bv::tensor<float>::empty("out", {n});
    bv::testing::poison(out);
    const auto r =
        bv::launch<my::axpy_kernel<256>>(bv::grid(bv::cdiv(n, 256)), alpha, x, y, out, n);
    CHECK(r.ok());
    BV_CHECK_CLOSE(out, ref, bv::testing::tolerance<float>());
  }
}

TEST_CASE("row_sum matches a double loop") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const int rows = bv::testing::ragged(rng, 1, 100), cols = bv::testing::ragged(rng, 1, 700);
  CAPTURE(rows);
  CAPTURE(cols);
  const auto x = bv::tensor<float>::randn("x", {rows, cols}, seed + 3);
  std::vector<double> ref(static_cast<size_t>(rows), 0.0);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) ref[static_cast<size_t>(i)] += x(i, j);
  for (auto s : bv::testing::all_schedules()) {
    bv::testing::schedule_scope scope(s, seed);
    auto out = bv::tensor<float>::empty("out", {rows});
    bv::testing::poison(out);
    const auto r = bv::launch<my::row_sum_kernel<16, 128>>(bv::grid(bv::cdiv(rows, 16)), x, out,
                                                           rows, cols, cols);
    CHECK(r.ok());
    BV_CHECK_CLOSE(out, ref, bv::testing::tolerance<float>());
  }
}
