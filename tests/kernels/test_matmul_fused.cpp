// The fused-epilogue matmul (bias + none/ReLU/SiLU/GELU) and the split-K matmul (atomic
// accumulation) against the double reference, on ragged shapes and every schedule.
#include <bv/testing.hpp>

#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/ref/matmul_fused.hpp"

using namespace bv;
using namespace bv::testing;

namespace {
template <kernels::epilogue E, class T>
void check_epilogue(int m, int n, int k, uint64_t seed) {
  CAPTURE(static_cast<int>(E));
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(seed);
  auto a = tensor<T>::randn("a", {m, k}, seed, 0.2);
  auto b = tensor<T>::randn("b", {k, n}, seed + 1, 0.2);
  auto bias = tensor<T>::randn("bias", {n}, seed + 2);
  const auto ref = kernels::ref::matmul_bias_act(a, b, bias, static_cast<int>(E));
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto c = poisoned<T>("c", {m, n});
    CHECK(kernels::matmul_bias_act<E>(a, b, bias, c).ok());
    BV_CHECK_CLOSE(c, ref, tolerance<T>());
  }
}
}  // namespace

TEST_CASE("matmul + bias + activation, f32, every epilogue") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const int m = ragged(rng, 30, 150), n = ragged(rng, 30, 150), k = ragged(rng, 20, 100);
  check_epilogue<kernels::epilogue::none, float>(m, n, k, seed);
  check_epilogue<kernels::epilogue::relu, float>(m, n, k, seed + 1);
  check_epilogue<kernels::epilogue::silu, float>(m, n, k, seed + 2);
  check_epilogue<kernels::epilogue::gelu_tanh, float>(m, n, k, seed + 3);
}

TEST_CASE("matmul + bias + GELU, f16 and bf16") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  check_epilogue<kernels::epilogue::gelu_tanh, half>(ragged(rng, 30, 100), ragged(rng, 30, 100),
                                                     ragged(rng, 20, 100), seed);
  check_epilogue<kernels::epilogue::silu, bfloat16>(ragged(rng, 30, 100), ragged(rng, 30, 100),
                                                    ragged(rng, 20, 100), seed + 1);
}

TEST_CASE("split-K matmul: atomics from every K slice add up") {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const int m = ragged(rng, 20, 70), n = ragged(rng, 20, 70), k = ragged(rng, 150, 400);
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(seed);
  auto a = tensor<float>::randn("a", {m, k}, seed);
  auto b = tensor<float>::randn("b", {k, n}, seed + 1);
  auto ah = tensor<half>::randn("ah", {m, k}, seed + 2);
  auto bh = tensor<half>::randn("bh", {k, n}, seed + 3);
  const auto ref = kernels::ref::matmul_splitk(a, b);
  const auto ref_h = kernels::ref::matmul_splitk(ah, bh);
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    for (int splits : {1, 5}) {
      CAPTURE(splits);
      auto c = poisoned<float>("c", {m, n});
      for (auto& r : kernels::matmul_splitk(a, b, c, splits)) CHECK(r.ok());
      BV_CHECK_CLOSE(c, ref, 1e-5);
    }
    auto ch = poisoned<float>("ch", {m, n});
    for (auto& r : kernels::matmul_splitk(ah, bh, ch, 3)) CHECK(r.ok());
    // f16 inputs, fp32 accumulation and output: the products are exact in fp32.
    BV_CHECK_CLOSE(ch, ref_h, 1e-5);
  }
}
