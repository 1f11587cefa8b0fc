// Cross-entropy forward (loss, lse) and backward over rows of logits against the double
// reference: ragged vocabularies, a 32000-word vocabulary (the online log-sum-exp over chunks),
// ignored rows (target -100), every schedule, f32/f16/bf16.
#include <bv/testing.hpp>

#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/ref/cross_entropy.hpp"

using namespace bv;
using namespace bv::testing;

namespace {

template <class T>
void check_ce(int m, int v, uint64_t seed, double scale) {
  CAPTURE(m);
  CAPTURE(v);
  CAPTURE(seed);
  auto x = tensor<T>::randn("logits", {m, v}, seed, scale);
  auto target = tensor<int32_t>("target", {m});
  std::mt19937_64 rng(seed);
  for (int i = 0; i < m; ++i) target(i) = i % 7 == 3 ? -100 : static_cast<int32_t>(rng() % v);
  auto dloss = tensor<float>::randn("dloss", {m}, seed + 1);
  const auto ref = kernels::ref::cross_entropy_fwd(x, target);
  const auto ref_dx = kernels::ref::cross_entropy_bwd(x, target, dloss);
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto loss = poisoned<float>("loss", {m});
    auto lse = poisoned<float>("lse", {m});
    auto dx = poisoned<T>("dx", {m, v});
    CHECK(kernels::cross_entropy_fwd(x, target, loss, lse).ok());
    CHECK(kernels::cross_entropy_bwd(x, target, lse, dloss, dx).ok());
    // lse and loss are fp32 reductions of T inputs: f32 accuracy whatever T is.
    BV_CHECK_CLOSE(lse, ref.lse, 1e-5);
    BV_CHECK_CLOSE(loss, ref.loss, 1e-5);
    BV_CHECK_CLOSE(dx, ref_dx, tolerance<T>());
  }
}

}  // namespace

TEST_CASE("cross-entropy f32: ragged vocabularies across chunk edges") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_ce<float>(ragged(rng, 3, 20), ragged(rng, 10, 2000), seed, 3.0);
  check_ce<float>(ragged(rng, 3, 20), ragged(rng, 2100, 7000), seed + 1, 3.0);
}

TEST_CASE("cross-entropy: vocabulary of 32000") {
  const uint64_t seed = fresh_seed();
  check_ce<float>(9, 32000, seed, 4.0);
  check_ce<bfloat16>(5, 32000, seed + 1, 4.0);
}

TEST_CASE("cross-entropy f16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_ce<half>(ragged(rng, 3, 20), ragged(rng, 100, 5000), seed, 2.0);
}
