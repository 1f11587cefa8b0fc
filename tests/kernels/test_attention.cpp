// Flash attention forward against the double reference: causal and not, head dim 64 and 128,
// f32/f16/bf16, ragged sequence lengths, every schedule.
#include <bv/testing.hpp>

#include "bv/kernels/attention.hpp"
#include "bv/kernels/ref/attention.hpp"

using namespace bv;
using namespace bv::testing;

namespace {
// fwd(q, k, v, o, lse, causal): the launcher under test (the declared configuration by default).
template <class T, class F>
void check_fwd(int b, int h, int s, int d, bool causal, uint64_t seed, F&& fwd) {
  CAPTURE(b);
  CAPTURE(h);
  CAPTURE(s);
  CAPTURE(d);
  CAPTURE(causal);
  CAPTURE(seed);
  auto q = tensor<T>::randn("q", {b, h, s, d}, seed);
  auto k = tensor<T>::randn("k", {b, h, s, d}, seed + 1);
  auto v = tensor<T>::randn("v", {b, h, s, d}, seed + 2);
  const auto ref = kernels::ref::attention_fwd(q, k, v, causal);
  for (auto sch : all_schedules()) {
    CAPTURE(schedule_name(sch));
    schedule_scope scope(sch, seed);
    auto o = poisoned<T>("o", {b, h, s, d});
    auto lse = poisoned<float>("lse", {b * h, s});
    CHECK(fwd(q, k, v, o, lse, causal).ok());
    BV_CHECK_CLOSE(o, ref.o, tolerance<T>());
    BV_CHECK_CLOSE(lse, ref.lse, 1e-5);
  }
}
template <class T>
void check_fwd(int b, int h, int s, int d, bool causal, uint64_t seed) {
  check_fwd<T>(b, h, s, d, causal, seed, [](auto&... a) { return kernels::attention_fwd(a...); });
}
}  // namespace

TEST_CASE("attention forward f32: d 64 and 128, causal and not") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (bool causal : {false, true}) {
    check_fwd<float>(2, 2, ragged(rng, 20, 150), 64, causal, seed);
    check_fwd<float>(1, 2, ragged(rng, 20, 100), 128, causal, seed + 1);
  }
}

TEST_CASE("attention forward f16 and bf16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_fwd<half>(1, 2, ragged(rng, 20, 150), 64, true, seed);
  check_fwd<half>(1, 1, ragged(rng, 20, 100), 128, false, seed + 1);
  check_fwd<bfloat16>(1, 2, ragged(rng, 20, 150), 64, false, seed + 2);
  check_fwd<bfloat16>(1, 1, ragged(rng, 20, 100), 128, true, seed + 3);
}

// Each target's rows: sm_90's 16-bit ones read q, k and v through block pointers (D = 64) or k
// and v (D = 128), AMD's take the pointer loads.
TEST_CASE("attention forward f16 in every target's configuration") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (target t : all_targets) {
    CAPTURE(target_name(t));
    target_scope scope(t);
    for (bool causal : {false, true}) {
      check_fwd<half>(1, 2, ragged(rng, 20, 150), 64, causal, seed);
      check_fwd<half>(1, 1, ragged(rng, 20, 150), 128, causal, seed + 1);
    }
  }
}

// The launcher's tile overload, in the variants that read k and v (2), or q, k and v with o in an
// accumulator (3, and 4 by halves of the head dimension; 5 and 6: 3 and 4 with q k^T a key block
// ahead), through block pointers with rings of 2 slots (the rings are the GPU's; the interpreter
// computes the same values). Key counts ragged, and whole blocks, where the block a step ahead of
// the last lies wholly past the keys.
TEST_CASE("attention forward f16 on the tiles given, through block pointers") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto fwd2 = [](auto&... a) { return kernels::attention_fwd<64, 64, 4, 0, 2, 2>(a...); };
  const auto fwd3 = [](auto&... a) { return kernels::attention_fwd<64, 64, 4, 0, 3, 2>(a...); };
  const auto fwd4 = [](auto&... a) { return kernels::attention_fwd<64, 32, 4, 0, 4, 2>(a...); };
  const auto fwd5 = [](auto&... a) { return kernels::attention_fwd<64, 32, 4, 0, 5, 2>(a...); };
  const auto fwd6 = [](auto&... a) { return kernels::attention_fwd<64, 32, 4, 0, 6, 2>(a...); };
  for (bool causal : {false, true}) {
    check_fwd<half>(1, 2, ragged(rng, 20, 150), 64, causal, seed, fwd2);
    check_fwd<half>(1, 1, ragged(rng, 20, 150), 128, causal, seed + 1, fwd2);
    check_fwd<half>(1, 2, ragged(rng, 20, 150), 64, causal, seed + 2, fwd3);
    check_fwd<half>(1, 1, ragged(rng, 20, 150), 128, causal, seed + 3, fwd3);
    check_fwd<half>(1, 2, ragged(rng, 20, 150), 64, causal, seed + 4, fwd4);
    check_fwd<half>(1, 1, ragged(rng, 20, 150), 128, causal, seed + 5, fwd4);
    for (int s : {ragged(rng, 20, 150), 96}) {
      check_fwd<half>(1, 2, s, 64, causal, seed + 6, fwd5);
      check_fwd<half>(1, 1, s, 128, causal, seed + 7, fwd5);
      check_fwd<half>(1, 2, s, 64, causal, seed + 8, fwd6);
      check_fwd<half>(1, 1, s, 128, causal, seed + 9, fwd6);
    }
  }
}
