// The scan under every value check (bv/cpu/values.hpp, src/finite_scan.cpp): whether a run of
// f32, f16 or bf16 values holds NaN or Inf, against std::isfinite on each value, on both the
// AVX2 and the baseline loops, at every length up to a few vectors and at every position.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "bv/bv.hpp"
#include "bv/cpu/values.hpp"

namespace {

template <class T>
bool reference(const std::vector<T>& v) {
  for (const T& x : v)
    if (!std::isfinite(static_cast<float>(x))) return false;
  return true;
}

// Values near every edge of the finite range: the largest finite one, the smallest normal and
// subnormal ones, zeros, both signs.
template <class T>
std::vector<T> edge_values() {
  const float big = static_cast<float>(std::numeric_limits<T>::max());
  const float tiny = static_cast<float>(std::numeric_limits<T>::min());
  const float sub = static_cast<float>(std::numeric_limits<T>::denorm_min());
  std::vector<T> out;
  for (float f : {big, -big, tiny, -tiny, sub, -sub, 0.0f, -0.0f, 1.0f, -3.5f})
    out.push_back(static_cast<T>(f));
  return out;
}

template <class T>
std::vector<T> bad_values() {
  const float inf = std::numeric_limits<float>::infinity();
  return {static_cast<T>(inf),
          static_cast<T>(-inf),
          static_cast<T>(std::numeric_limits<float>::quiet_NaN()),
          static_cast<T>(-std::numeric_limits<float>::quiet_NaN()),
          bv::detail::uninit_value<T>(),
          bv::detail::masked_value<T>()};
}

template <class T>
void sweep(bool avx2) {
  const bool was = bv::detail::use_avx2_finite_scan(avx2);
  std::mt19937 rng(std::random_device{}());
  const auto edges = edge_values<T>();
  const auto bads = bad_values<T>();
  std::uniform_int_distribution<size_t> pick_edge(0, edges.size() - 1),
      pick_bad(0, bads.size() - 1);
  for (int n : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 1023, 1024}) {
    std::vector<T> v(static_cast<size_t>(n));
    for (auto& x : v) x = edges[pick_edge(rng)];
    CAPTURE(n);
    CHECK(bv::detail::all_finite(v.data(), n) == reference(v));
    CHECK(bv::detail::all_finite(v.data(), n));
    // One non-finite value at each position (a sample of them on long runs).
    for (int at = 0; at<n; at += n> 100 ? 37 : 1) {
      auto w = v;
      w[static_cast<size_t>(at)] = bads[pick_bad(rng)];
      CAPTURE(at);
      REQUIRE(!reference(w));
      CHECK(!bv::detail::all_finite(w.data(), n));
    }
    if (n > 0) {  // the last lane, which a vector loop leaves to its tail
      auto w = v;
      w.back() = bads[pick_bad(rng)];
      CHECK(!bv::detail::all_finite(w.data(), n));
    }
  }
  bv::detail::use_avx2_finite_scan(was);
}

}  // namespace

TEST_CASE("finite scan: f32, f16 and bf16 runs of every length, on both loops") {
  for (bool avx2 : {true, false}) {
    CAPTURE(avx2);
    sweep<float>(avx2);
    sweep<bv::half>(avx2);
    sweep<bv::bfloat16>(avx2);
  }
}
