// Flash attention backward (dq, dk, dv) against the double reference: causal and not, head dim
// 64 and 128, f32 and 16-bit, ragged sequence lengths, every schedule.
#include <bv/testing.hpp>

#include "bv/kernels/attention.hpp"
#include "bv/kernels/ref/attention.hpp"

using namespace bv;
using namespace bv::testing;

namespace {
template <class T>
void check_bwd(int b, int h, int s, int d, bool causal, uint64_t seed) {
  CAPTURE(s);
  CAPTURE(d);
  CAPTURE(causal);
  CAPTURE(seed);
  auto q = tensor<T>::randn("q", {b, h, s, d}, seed);
  auto k = tensor<T>::randn("k", {b, h, s, d}, seed + 1);
  auto v = tensor<T>::randn("v", {b, h, s, d}, seed + 2);
  auto dout = tensor<T>::randn("dout", {b, h, s, d}, seed + 3);
  const auto ref = kernels::ref::attention_bwd(q, k, v, dout, causal);
  for (auto sch : all_schedules()) {
    CAPTURE(schedule_name(sch));
    schedule_scope scope(sch, seed);
    auto o = tensor<T>::empty("o", {b, h, s, d});
    auto lse = tensor<float>::empty("lse", {b * h, s});
    CHECK(kernels::attention_fwd(q, k, v, o, lse, causal).ok());
    auto dq = tensor<T>::empty("dq", {b, h, s, d});
    auto dk = tensor<T>::empty("dk", {b, h, s, d});
    auto dv = tensor<T>::empty("dv", {b, h, s, d});
    poison(dq);
    poison(dk);
    poison(dv);
    for (auto& r : kernels::attention_bwd(q, k, v, o, lse, dout, dq, dk, dv, causal)) CHECK(r.ok());
    BV_CHECK_CLOSE(dq, ref.dq, tolerance<T>());
    BV_CHECK_CLOSE(dk, ref.dk, tolerance<T>());
    BV_CHECK_CLOSE(dv, ref.dv, tolerance<T>());
  }
}
}  // namespace

TEST_CASE("attention backward f32: d 64 and 128, causal and not") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (bool causal : {false, true}) {
    check_bwd<float>(1, 2, ragged(rng, 20, 150), 64, causal, seed);
    check_bwd<float>(1, 1, ragged(rng, 20, 100), 128, causal, seed + 1);
  }
}

TEST_CASE("attention backward bf16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_bwd<bfloat16>(1, 2, ragged(rng, 20, 150), 64, true, seed);
  check_bwd<bfloat16>(1, 1, ragged(rng, 20, 100), 128, false, seed + 1);
}

// Each target's rows, the 16-bit dK/dV kernels in both forms (sm_90 launches the k q^T one) and
// the dQ tiles of its own table among them.
TEST_CASE("attention backward f16 in every target's configuration") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (target t : all_targets) {
    CAPTURE(target_name(t));
    target_scope scope(t);
    check_bwd<half>(1, 1, ragged(rng, 20, 150), 64, true, seed);
    check_bwd<half>(1, 1, ragged(rng, 20, 150), 128, false, seed + 1);
  }
}
