// Dropout: the kept/zeroed pattern matches the reference hash element for element, the same seed
// gives the same mask on every schedule, another seed gives another mask, the keep rate is close
// to 1 - p, and the backward reuses the forward's mask.
#include <bv/testing.hpp>

#include "bv/kernels/dropout.hpp"
#include "bv/kernels/ref/dropout.hpp"

using namespace bv;
using namespace bv::testing;

namespace {
template <class T>
std::vector<float> values_of(const tensor<T>& t) {
  std::vector<float> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<float>(t.flat(i)));
  return v;
}
}  // namespace

TEST_CASE_TEMPLATE("dropout: reference mask on every schedule", T, float, half, bfloat16) {
  const uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const int n = ragged(rng, 3000, 9000);
  const int dseed = static_cast<int>(rng() & 0x7fffffff);
  const float p = 0.3f;
  CAPTURE(seed);
  CAPTURE(n);
  CAPTURE(dseed);
  auto x = tensor<T>::randn("x", {n}, seed);
  const auto ref = kernels::ref::dropout(x, p, dseed);
  std::vector<float> first;
  for (auto s : all_schedules()) {
    CAPTURE(schedule_name(s));
    schedule_scope scope(s, seed);
    auto out = poisoned<T>("out", {n});
    CHECK(kernels::dropout(x, out, p, dseed).ok());
    BV_CHECK_CLOSE(out, ref, tolerance<T>());
    // Zeros exactly where the reference drops: the mask itself, not just its statistics.
    int64_t mismatched = 0;
    for (int64_t i = 0; i < n; ++i)
      mismatched += (static_cast<float>(out(i)) == 0.0f) != (ref[static_cast<size_t>(i)] == 0.0);
    CHECK(mismatched == 0);
    if (first.empty())
      first = values_of(out);
    else
      CHECK(values_of(out) == first);  // bit-identical across schedules
  }
}

TEST_CASE("dropout: keep rate, seeds differ, backward reuses the mask") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  const int n = 50001;
  const float p = 0.25f;
  auto x = tensor<float>::full("x", {n}, 1.0f);
  auto a = poisoned<float>("a", {n});
  auto b = poisoned<float>("b", {n});
  const int s1 = static_cast<int>(seed & 0xffffff), s2 = s1 + 1;
  CHECK(kernels::dropout(x, a, p, s1).ok());
  CHECK(kernels::dropout(x, b, p, s2).ok());
  int64_t kept = 0, differ = 0;
  for (int64_t i = 0; i < n; ++i) {
    kept += a(i) != 0.0f;
    differ += (a(i) != 0.0f) != (b(i) != 0.0f);
  }
  // 1 - p = 0.75 of 50001, binomial sd ~ 97: 6 sd either way.
  CHECK(std::abs(static_cast<double>(kept) - 0.75 * n) < 600);
  // Independent masks disagree on 2 p (1 - p) = 37.5% of elements.
  CHECK(std::abs(static_cast<double>(differ) - 0.375 * n) < 700);

  auto dy = tensor<float>::randn("dy", {n}, seed);
  auto dx = poisoned<float>("dx", {n});
  CHECK(kernels::dropout_bwd(dy, dx, p, s1).ok());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float expect = a(i) != 0.0f ? dy(i) / (1.0f - p) : 0.0f;
    wrong += std::abs(dx(i) - expect) > 1e-6f * std::abs(expect) + 1e-30f;
  }
  CHECK(wrong == 0);
}
