// Fused SiLU*mul and GELU(tanh)*mul over [M, 2N], forward and backward, against the double
// reference (exact tanh), on ragged shapes and every schedule. Large gate values exercise the
// overflow-safe tanh: without its clamp, e^2z overflows and the GELU is NaN.
#include <bv/testing.hpp>

#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/ref/act_mul.hpp"

using namespace bv;
using namespace bv::testing;

namespace {

template <class T, kernels::gate_act A>
void check_act_mul(int m, int n, uint64_t seed, double scale) {
  constexpr bool gelu = A == kernels::gate_act::gelu_tanh;
  CAPTURE(gelu);
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(seed);
  auto x = tensor<T>::randn("x", {m, 2 * n}, seed, scale);
  auto dy = tensor<T>::randn("dy", {m, n}, seed + 1);
  const auto ref_y = kernels::ref::act_mul_fwd(x, gelu);
  const auto ref_dx = kernels::ref::act_mul_bwd(dy, x, gelu);
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto y = poisoned<T>("y", {m, n});
    auto dx = poisoned<T>("dx", {m, 2 * n});
    CHECK(kernels::act_mul_fwd<A>(x, y).ok());
    CHECK(kernels::act_mul_bwd<A>(dy, x, dx).ok());
    BV_CHECK_CLOSE(y, ref_y, tolerance<T>());
    BV_CHECK_CLOSE(dx, ref_dx, tolerance<T>());
  }
}

}  // namespace

TEST_CASE("silu*mul and gelu*mul f32: ragged, more than one column block") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_act_mul<float, kernels::gate_act::silu>(ragged(rng, 3, 20), ragged(rng, 1100, 2500), seed,
                                                2.0);
  check_act_mul<float, kernels::gate_act::gelu_tanh>(ragged(rng, 3, 20), ragged(rng, 20, 1000),
                                                     seed + 1, 2.0);
}

TEST_CASE("gelu*mul: gates far past the tanh clamp stay finite") {
  const uint64_t seed = fresh_seed();
  check_act_mul<float, kernels::gate_act::gelu_tanh>(9, 300, seed, 40.0);
  check_act_mul<float, kernels::gate_act::silu>(9, 300, seed, 40.0);
}

TEST_CASE("silu*mul and gelu*mul f16 and bf16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_act_mul<half, kernels::gate_act::silu>(ragged(rng, 3, 20), ragged(rng, 20, 1500), seed,
                                               1.0);
  check_act_mul<bfloat16, kernels::gate_act::gelu_tanh>(ragged(rng, 3, 20), ragged(rng, 20, 1500),
                                                        seed + 1, 1.0);
}
