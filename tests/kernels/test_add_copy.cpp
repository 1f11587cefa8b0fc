// Vector add and copy against their double references, on fresh ragged sizes, every schedule.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>

#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/ref/add.hpp"
#include "bv/kernels/ref/copy.hpp"

namespace {

// Sizes below one block, just past it, and large ragged ones.
std::vector<int> sizes(std::mt19937_64& rng) {
  return {1, bv::testing::ragged(rng, 2, 1023), bv::testing::ragged(rng, 1025, 3000),
          bv::testing::ragged(rng, 20000, 100000)};
}

template <class T>
void check_add(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int n : sizes(rng)) {
    CAPTURE(n);
    const auto x = bv::tensor<T>::randn("x", {n}, seed + 1);
    const auto y = bv::tensor<T>::randn("y", {n}, seed + 2);
    const auto ref = bv::kernels::ref::add(x, y);
    for (auto s : bv::testing::all_schedules()) {
      INFO("schedule " << std::string(bv::schedule_name(s)));
      bv::testing::schedule_scope scope(s, seed);
      auto out = bv::testing::poisoned<T>("out", {n});
      const auto r = bv::kernels::add(x, y, out);
      CHECK(r.ok());
      // One program per block of the size add declares for the interpreter's target.
      const int block = bv::config_for<bv::kernels::add_configs>(bv::config().tgt, n).block;
      CHECK(r.programs == bv::cdiv(n, block));
      BV_CHECK_CLOSE(out, ref, bv::testing::tolerance<T>());
    }
  }
}

template <class T>
void check_copy(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int n : sizes(rng)) {
    CAPTURE(n);
    const auto x = bv::tensor<T>::randn("x", {n}, seed + 3);
    const auto ref = bv::kernels::ref::copy(x);
    for (auto s : bv::testing::all_schedules()) {
      INFO("schedule " << std::string(bv::schedule_name(s)));
      bv::testing::schedule_scope scope(s, seed);
      auto out = bv::testing::poisoned<T>("out", {n});
      CHECK(bv::kernels::copy(x, out).ok());
      // A copy is exact.
      for (int64_t i = 0; i < n; ++i) REQUIRE(static_cast<double>(out(i)) == ref[i]);
    }
  }
}

}  // namespace

TEST_CASE("add f32") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  check_add<float>(seed);
}

TEST_CASE("add f16") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  check_add<bv::half>(seed);
}

TEST_CASE("copy f32 and i32") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  check_copy<float>(seed);
  check_copy<int32_t>(seed);
}

TEST_CASE("the add reference is independent of the kernel") {
  // Guards against a reference that reads the output: known values, known sums.
  bv::tensor<float> x("x", {3}), y("y", {3});
  x(0) = 1, x(1) = 2.5f, x(2) = -4;
  y(0) = 0.5f, y(1) = -2.5f, y(2) = 1e-3f;
  const auto r = bv::kernels::ref::add(x, y);
  CHECK(r[0] == 1.5);
  CHECK(r[1] == 0.0);
  CHECK(r[2] == doctest::Approx(-4 + 1e-3));
}
