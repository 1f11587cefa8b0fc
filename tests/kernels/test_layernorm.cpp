// LayerNorm forward and backward (lock and two-stage dw/db reductions) against the double
// reference, on ragged shapes and every schedule: the lock's atomic_cas spin must survive the
// sequential and shuffled schedules too.
#include <algorithm>
#include <cmath>
#include <utility>

#include <bv/testing.hpp>

#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/ref/layernorm.hpp"

using namespace bv;
using namespace bv::testing;

namespace {

// The forward into poisoned outputs against the reference, y and mean within their tolerances and
// rstd within 1e-5; returns mean and rstd for the backward.
template <class T, class Ref>
std::pair<tensor<float>, tensor<float>> check_forward(const tensor<T>& x, const tensor<T>& w,
                                                      const tensor<T>& b, const Ref& ref,
                                                      double y_tol, double mean_tol) {
  const int64_t m = x.size(0), n = x.size(1);
  auto y = poisoned<T>("y", {m, n});
  auto mean = poisoned<float>("mean", {m});
  auto rstd = poisoned<float>("rstd", {m});
  CHECK(kernels::layernorm_fwd(x, w, b, y, mean, rstd).ok());
  BV_CHECK_CLOSE(y, ref.y, y_tol);
  BV_CHECK_CLOSE(mean, ref.mean, mean_tol);
  BV_CHECK_CLOSE(rstd, ref.rstd, 1e-5);
  return {std::move(mean), std::move(rstd)};
}

template <class T>
void check_layernorm(int m, int n, uint64_t seed) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(seed);
  auto x = tensor<T>::randn("x", {m, n}, seed, 2.0);
  auto w = tensor<T>::randn("w", {n}, seed + 1);
  auto b = tensor<T>::randn("b", {n}, seed + 2);
  auto dy = tensor<T>::randn("dy", {m, n}, seed + 3);
  const auto ref = kernels::ref::layernorm_fwd(x, w, b);
  const auto g = kernels::ref::layernorm_bwd(dy, x, w);
  // A row's mean cancels: on random rows it is about rms(x) / sqrt(n), while a float sum errs in
  // proportion to the values summed. So its error is measured against the rows' scale, not its
  // own (at n = 3000 a correct kernel's mean was off by 1.3e-5 of its own size).
  double xx = 0, mm = 0;
  for (int64_t i = 0; i < x.numel(); ++i) xx += std::pow(double(float(x.flat(i))), 2);
  for (double v : ref.mean) mm += v * v;
  const double mean_tol =
      1e-5 * std::max(1.0, std::sqrt(xx / x.numel()) / std::sqrt(std::max(mm / m, 1e-300)));
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto [mean, rstd] = check_forward(x, w, b, ref, tolerance<T>(), mean_tol);

    for (auto how : {kernels::reduction::lock, kernels::reduction::two_stage}) {
      CAPTURE(how == kernels::reduction::lock ? "lock" : "two-stage");
      auto dx = poisoned<T>("dx", {m, n});
      auto dw = poisoned<T>("dw", {n});
      auto db = poisoned<T>("db", {n});
      for (auto& r : kernels::layernorm_bwd(dy, x, w, mean, rstd, dx, dw, db, how)) CHECK(r.ok());
      BV_CHECK_CLOSE(dx, g.dx, tolerance<T>());
      BV_CHECK_CLOSE(dw, g.dw, tolerance<T>());
      BV_CHECK_CLOSE(db, g.db, tolerance<T>());
    }
  }
}

}  // namespace

TEST_CASE("layernorm f32: ragged shapes, more rows than lock groups") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_layernorm<float>(ragged(rng, 3, 30), ragged(rng, 20, 250), seed);
  check_layernorm<float>(ragged(rng, 150, 200), ragged(rng, 300, 1500), seed + 10);
}

TEST_CASE("layernorm f16 and bf16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_layernorm<half>(ragged(rng, 70, 100), ragged(rng, 100, 1000), seed);
  check_layernorm<bfloat16>(ragged(rng, 5, 40), ragged(rng, 100, 1000), seed + 20);
}

TEST_CASE("layernorm: a row wider than 1024 takes the 4096 block") {
  check_layernorm<float>(40, 3000, fresh_seed());
}

TEST_CASE("layernorm: rows far from zero with a small spread keep their precision") {
  // What the shifted sums (d = x - x[row, 0]) are for: y formed as x - mean would carry the mean's
  // f32 rounding (half an ulp of 1000, 3e-5) against a spread of 0.01, 3e-3 of every xhat.
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const int m = ragged(rng, 3, 12), n = ragged(rng, 1000, 3000);
  auto x = tensor<float>::randn("x", {m, n}, seed, 0.01);
  for (int64_t i = 0; i < x.numel(); ++i) x.flat(i) += 1000.0f;
  auto w = tensor<float>::randn("w", {n}, seed + 1);
  auto b = tensor<float>::randn("b", {n}, seed + 2);
  check_forward(x, w, b, kernels::ref::layernorm_fwd(x, w, b), 1e-5, 1e-7);
}
