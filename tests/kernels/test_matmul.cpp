// Tiled matmul against the double reference: f32 and f16 inputs, f32 and f16 outputs, ragged
// M, N, K, grouped program ordering over many tiles, and a transposed (strided) B.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>

#include "bv/kernels/matmul.hpp"
#include "bv/kernels/ref/matmul.hpp"

namespace {

struct dims {
  int m, n, k;
};

dims ragged_dims(std::mt19937_64& rng, int lo, int hi) {
  return {bv::testing::ragged(rng, lo, hi), bv::testing::ragged(rng, lo, hi),
          bv::testing::ragged(rng, lo, hi)};
}

// Launches, on every schedule, the given matmul into a poisoned output and compares.
template <class O, class T, class Run>
void check_matmul(const bv::tensor<T>& a, const bv::tensor<T>& b, uint64_t seed, double tol,
                  Run run) {
  const int m = static_cast<int>(a.size(0)), n = static_cast<int>(b.size(1));
  const auto ref = bv::kernels::ref::matmul(a, b);
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s, seed);
    auto c = bv::testing::poisoned<O>("c", {m, n});
    const auto r = run(a, b, c);
    for (const auto& d : r.diagnostics) CHECK_MESSAGE(d.kind != "out-of-bounds", d.text());
    // A transposed B is reported as non-contiguous, by design; nothing else may fire.
    int other_errors = 0;
    for (const auto& d : r.diagnostics)
      other_errors += d.sev == bv::severity::error && d.kind != "non-contiguous";
    CHECK(other_errors == 0);
    BV_CHECK_CLOSE(c, ref, tol);
  }
}

const auto default_tiles = [](const auto& a, const auto& b, auto& c) {
  return bv::kernels::matmul(a, b, c);
};

}  // namespace

TEST_CASE("matmul f32 on ragged sizes, in every target's configuration") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const dims d : {ragged_dims(rng, 1, 60), ragged_dims(rng, 65, 200)}) {
    CAPTURE(d.m);
    CAPTURE(d.n);
    CAPTURE(d.k);
    const auto a = bv::tensor<float>::randn("a", {d.m, d.k}, seed + 1);
    const auto b = bv::tensor<float>::randn("b", {d.k, d.n}, seed + 2);
    // The tiles differ by target (sm_90: 128x64x32 on 4 warps; AMD: 64x64x32).
    for (bv::target t : bv::all_targets) {
      CAPTURE(bv::target_name(t));
      bv::testing::target_scope scope(t);
      check_matmul<float>(a, b, seed, bv::testing::tolerance<float>(), default_tiles);
    }
  }
}

TEST_CASE("matmul f16 inputs with f32 and f16 outputs") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const dims d = ragged_dims(rng, 33, 160);
  CAPTURE(d.m);
  CAPTURE(d.n);
  CAPTURE(d.k);
  const auto a = bv::tensor<bv::half>::randn("a", {d.m, d.k}, seed + 1);
  const auto b = bv::tensor<bv::half>::randn("b", {d.k, d.n}, seed + 2);
  // The reference reads the same f16 inputs, so an f32 output only differs by accumulation.
  check_matmul<float>(a, b, seed, bv::testing::tolerance<float>(), default_tiles);
  check_matmul<bv::half>(a, b, seed, bv::testing::tolerance<bv::half>(), default_tiles);
}

TEST_CASE("matmul's grouped ordering covers every tile") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Small tiles give a grid of tens of tiles per side; a row count of tiles that GROUP_M does not
  // divide leaves a short last group, where a wrong group size would skip or repeat tiles.
  const int tm = 4 * bv::testing::ragged(rng, 3, 9, 4) + 1;
  const int m = 16 * tm - bv::testing::ragged(rng, 1, 15, 16);
  const int n = bv::testing::ragged(rng, 100, 300);
  const int k = bv::testing::ragged(rng, 17, 70);
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  const auto a = bv::tensor<float>::randn("a", {m, k}, seed + 1);
  const auto b = bv::tensor<float>::randn("b", {k, n}, seed + 2);
  check_matmul<float>(a, b, seed, bv::testing::tolerance<float>(),
                      [](const auto& x, const auto& y, auto& c) {
                        return bv::kernels::matmul<16, 16, 16, 4>(x, y, c);
                      });
}

TEST_CASE("matmul with a transposed, non-contiguous B") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const dims d = ragged_dims(rng, 20, 150);
  CAPTURE(d.m);
  CAPTURE(d.n);
  CAPTURE(d.k);
  const auto a = bv::tensor<float>::randn("a", {d.m, d.k}, seed + 1);
  const auto bt = bv::tensor<float>::randn("bt", {d.n, d.k}, seed + 2);
  const auto b = bt.transposed();  // K x N with strides (1, K)
  REQUIRE_FALSE(b.is_contiguous());
  REQUIRE(b.stride(0) == 1);
  check_matmul<float>(a, b, seed, bv::testing::tolerance<float>(), default_tiles);
}

TEST_CASE("the matmul reference multiplies") {
  bv::tensor<float> a("a", {2, 3}), b("b", {3, 2});
  const float av[] = {1, 2, 3, 4, 5, 6}, bv_[] = {7, 8, 9, 10, 11, 12};
  for (int i = 0; i < 6; ++i) a.flat(i) = av[i], b.flat(i) = bv_[i];
  const auto c = bv::kernels::ref::matmul(a, b);
  CHECK(c == std::vector<double>{58, 64, 139, 154});
  const auto ct = bv::kernels::ref::matmul(b.transposed(), a.transposed());  // (ab)^T
  CHECK(ct == std::vector<double>{58, 139, 64, 154});
}
