// RMSNorm forward/backward and fused residual add + RMSNorm against the double reference, on
// ragged shapes, every schedule, f32/f16/bf16.
#include <bv/testing.hpp>

#include "bv/kernels/ref/rmsnorm.hpp"
#include "bv/kernels/rmsnorm.hpp"

using namespace bv;
using namespace bv::testing;

namespace {

template <class T>
void check_rmsnorm(int m, int n, uint64_t seed) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(seed);
  auto x = tensor<T>::randn("x", {m, n}, seed);
  auto w = tensor<T>::randn("w", {n}, seed + 1);
  auto res = tensor<T>::randn("res", {m, n}, seed + 2);
  auto dy = tensor<T>::randn("dy", {m, n}, seed + 3);
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto y = poisoned<T>("y", {m, n});
    auto rstd = poisoned<float>("rstd", {m});
    CHECK(kernels::rmsnorm_fwd(x, w, y, rstd).ok());
    const auto ref = kernels::ref::rmsnorm_fwd(x, w);
    BV_CHECK_CLOSE(y, ref.y, tolerance<T>());
    BV_CHECK_CLOSE(rstd, ref.rstd, 1e-5);

    auto h = poisoned<T>("h", {m, n});
    auto y2 = poisoned<T>("y2", {m, n});
    auto rstd2 = poisoned<float>("rstd2", {m});
    CHECK(kernels::add_rmsnorm_fwd(x, res, w, h, y2, rstd2).ok());
    const auto ref2 = kernels::ref::add_rmsnorm_fwd(x, res, w);
    BV_CHECK_CLOSE(h, ref2.h, tolerance<T>());
    BV_CHECK_CLOSE(y2, ref2.y, tolerance<T>());

    auto dx = poisoned<T>("dx", {m, n});
    auto dw = poisoned<T>("dw", {n});
    for (auto& r : kernels::rmsnorm_bwd(dy, x, w, rstd, dx, dw)) CHECK(r.ok());
    const auto g = kernels::ref::rmsnorm_bwd(dy, x, w);
    BV_CHECK_CLOSE(dx, g.dx, tolerance<T>());
    BV_CHECK_CLOSE(dw, g.dw, tolerance<T>());
  }
}

}  // namespace

TEST_CASE("rmsnorm f32: ragged rows and widths") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_rmsnorm<float>(ragged(rng, 3, 40), ragged(rng, 20, 250), seed);
  check_rmsnorm<float>(ragged(rng, 70, 90), ragged(rng, 300, 2000), seed + 10);
}

TEST_CASE("rmsnorm f16 and bf16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_rmsnorm<half>(ragged(rng, 5, 40), ragged(rng, 100, 1500), seed);
  check_rmsnorm<bfloat16>(ragged(rng, 5, 40), ragged(rng, 100, 1500), seed + 20);
}

TEST_CASE("rmsnorm: a row wider than 1024 takes the 8192 block") {
  const uint64_t seed = fresh_seed();
  check_rmsnorm<float>(7, 5000, seed);
}
