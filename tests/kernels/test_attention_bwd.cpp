// Flash attention backward (dq, dk, dv) against the double reference: causal and not, head dim
// 64 and 128, f32 and 16-bit, ragged sequence lengths, every schedule.
#include <bv/testing.hpp>

#include "bv/kernels/attention.hpp"
#include "bv/kernels/ref/attention.hpp"

using namespace bv;
using namespace bv::testing;

namespace {
// bwd(q, k, v, o, lse, dout, dq, dk, dv, causal): the launcher under test (the declared
// configurations by default).
template <class T, class F>
void check_bwd(int b, int h, int s, int d, bool causal, uint64_t seed, F&& bwd) {
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
    auto dq = poisoned<T>("dq", {b, h, s, d});
    auto dk = poisoned<T>("dk", {b, h, s, d});
    auto dv = poisoned<T>("dv", {b, h, s, d});
    for (auto& r : bwd(q, k, v, o, lse, dout, dq, dk, dv, causal)) CHECK(r.ok());
    BV_CHECK_CLOSE(dq, ref.dq, tolerance<T>());
    BV_CHECK_CLOSE(dk, ref.dk, tolerance<T>());
    BV_CHECK_CLOSE(dv, ref.dv, tolerance<T>());
  }
}
template <class T>
void check_bwd(int b, int h, int s, int d, bool causal, uint64_t seed) {
  check_bwd<T>(b, h, s, d, causal, seed, [](auto&... a) { return kernels::attention_bwd(a...); });
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

// f32 in each target's rows: at D = 128 gfx942's dK/dV takes two passes over the query blocks
// (variant 4), gfx90a's one, sm_90's 32x32 tiles; sequences past several blocks of each.
TEST_CASE("attention backward f32 at head dimension 128 in every target's configuration") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (target t : all_targets) {
    CAPTURE(target_name(t));
    target_scope scope(t);
    check_bwd<float>(1, 1, ragged(rng, 130, 200), 128, true, seed);
    check_bwd<float>(1, 1, ragged(rng, 20, 150), 128, false, seed + 1);
  }
}

// dK/dV in two passes (variant 4) in 16-bit, on the tile overload.
TEST_CASE("attention backward f16 on the tiles given, dK/dV in two passes over the queries") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto bwd = [](auto&... a) { return kernels::attention_bwd<64, 64, 4, 0, 4>(a...); };
  check_bwd<half>(1, 1, ragged(rng, 20, 150), 64, true, seed, bwd);
  check_bwd<half>(1, 1, ragged(rng, 130, 200), 128, false, seed + 1, bwd);
}

// The launcher's tile overload, dK/dV as k q^T with q and dout through rings of 2 slots (the GPU's;
// the interpreter computes the same values), dQ on the same tile.
TEST_CASE("attention backward f16 on the tiles given, dK/dV as k q^T through block pointers") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto bwd = [](auto&... a) { return kernels::attention_bwd<64, 64, 4, 0, 1, 2>(a...); };
  check_bwd<half>(1, 1, ragged(rng, 20, 150), 64, true, seed, bwd);
  check_bwd<half>(1, 1, ragged(rng, 20, 150), 128, false, seed + 1, bwd);
}

// dK/dV and dQ as for_range loops with k and v (dK/dV) and q and dout (dQ) held through the loop
// (the variants that keep them in ring slots on sm_90a), on sm_90's dQ tile and rings of 2 slots,
// on sequences with skipped and masked blocks alike.
TEST_CASE("attention backward f16 with the loop-invariant tiles held in ring slots") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const auto bwd = [](const auto& q, auto&... a) {
    using kernels::detail::attention_bwd_at;
    return q.size(3) == 64
               ? attention_bwd_at<64, 64, 64, 4, 0, 2, 2, 128, 128, 8, 0, 3, 2>(q, a...)
               : attention_bwd_at<128, 64, 64, 4, 0, 2, 2, 128, 64, 8, 0, 3, 2>(q, a...);
  };
  check_bwd<half>(1, 1, ragged(rng, 20, 150), 64, true, seed, bwd);
  check_bwd<half>(1, 2, ragged(rng, 260, 330), 64, true, seed + 1, bwd);
  check_bwd<half>(1, 1, ragged(rng, 260, 330), 64, false, seed + 2, bwd);
  check_bwd<half>(1, 1, ragged(rng, 20, 150), 128, true, seed + 3, bwd);
}

// Sequences long enough that, in every target's tiles (dQ's 128x64 on sm_90 among them), some
// blocks of scores lie wholly below the diagonal and inside s, so they skip the mask, beside the
// diagonal's and the ragged last block's, which take it.
TEST_CASE("attention backward f16: blocks that skip the mask beside blocks that take it") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  for (target t : all_targets) {
    CAPTURE(target_name(t));
    target_scope scope(t);
    check_bwd<half>(1, 1, ragged(rng, 260, 330), 64, true, seed);
    check_bwd<half>(1, 1, ragged(rng, 260, 330), 128, true, seed + 1);
    check_bwd<half>(1, 1, ragged(rng, 260, 330), 64, false, seed + 2);
  }
}
