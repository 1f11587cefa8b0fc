// Softmax against the double reference: rows that fit one block (each block width the launcher
// picks) and rows longer than 4096 (the looped two-pass kernel), on fresh ragged sizes.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>

#include "bv/kernels/ref/softmax.hpp"
#include "bv/kernels/softmax.hpp"

namespace {

template <class T>
void check_softmax(int rows, int cols, uint64_t seed) {
  CAPTURE(rows);
  CAPTURE(cols);
  // A wide spread, so that a missing max subtraction would overflow exp.
  const auto x = bv::tensor<T>::randn("x", {rows, cols}, seed, 30.0);
  const auto ref = bv::kernels::ref::softmax(x);
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s, seed);
    auto out = bv::testing::poisoned<T>("out", {rows, cols});
    const auto r = bv::kernels::softmax(x, out);
    CHECK(r.ok());
    CHECK(r.programs == rows);
    BV_CHECK_CLOSE(out, ref, bv::testing::tolerance<T>());
  }
}

}  // namespace

TEST_CASE("softmax f32, rows that fit one block") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_softmax<float>(bv::testing::ragged(rng, 1, 40), 1, seed);
  check_softmax<float>(bv::testing::ragged(rng, 1, 40), bv::testing::ragged(rng, 2, 63), seed);
  check_softmax<float>(bv::testing::ragged(rng, 1, 40), bv::testing::ragged(rng, 65, 255), seed);
  check_softmax<float>(bv::testing::ragged(rng, 1, 20), bv::testing::ragged(rng, 257, 1023), seed);
  check_softmax<float>(bv::testing::ragged(rng, 1, 8), bv::testing::ragged(rng, 1025, 4095), seed);
  check_softmax<float>(3, 4096, seed);
}

TEST_CASE("softmax f32, rows longer than 4096 take the looped kernel") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_softmax<float>(bv::testing::ragged(rng, 1, 5), bv::testing::ragged(rng, 4097, 12000), seed);
  check_softmax<float>(2, 8192, seed);
}

TEST_CASE("softmax f16 computes in f32 and rounds on store") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_softmax<bv::half>(bv::testing::ragged(rng, 1, 30), bv::testing::ragged(rng, 65, 1000),
                          seed);
  check_softmax<bv::half>(2, bv::testing::ragged(rng, 4097, 6000), seed);
}

TEST_CASE("softmax rows sum to one and keep the order of their inputs") {
  // Properties that hold whatever the reference says.
  const auto x = bv::tensor<float>::randn("x", {4, 300}, 5, 10.0);
  auto out = bv::testing::poisoned<float>("out", {4, 300});
  CHECK(bv::kernels::softmax(x, out).ok());
  for (int i = 0; i < 4; ++i) {
    double s = 0;
    for (int j = 0; j < 300; ++j) {
      s += out(i, j);
      if (j) CHECK((x(i, j) > x(i, j - 1)) == (out(i, j) > out(i, j - 1)));
    }
    CHECK(s == doctest::Approx(1.0).epsilon(1e-5));
  }
}
