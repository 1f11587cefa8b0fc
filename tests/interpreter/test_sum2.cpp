// sum2(x, y): the two whole-block sums the GPU backend carries through one reduction, against a
// double reference on ragged rows (masked lanes add nothing), for 1-D and 2-D blocks, f32 and
// f16 inputs, a fused second operand (x * x) and values far from zero (LayerNorm's shifted sums).
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <cmath>
#include <random>
#include <type_traits>
#include <vector>

#include "bv/bv.hpp"

namespace {

// Row r of x (n valid elements) reduced to {sum(d), sum(d * d)} with d = x - shift, masked lanes 0.
template <class T, int BLOCK>
BV_KERNEL void sum2_rows(bv::program<4> p, bv::ptr<const T> x, bv::ptr<float> out, int n,
                         float shift) {
  const int row = p.id(0);
  auto cols = bv::arange<BLOCK>(p);
  auto mask = cols < n;
  auto d = bv::where(mask, bv::load(x + row * n + cols, mask, 0.0f).to(bv::f32) - shift, 0.0f);
  const auto s = bv::sum2(d, d * d);
  static_assert(std::is_same_v<decltype(s.first), float>, "sum2 of f32 blocks gives f32 sums");
  bv::store(out + 2 * row, s.first);
  bv::store(out + 2 * row + 1, s.second);
}

// A 2-D tile [R, C] of x (rows x cols valid) and the same tile scaled by -3, in their own dtype.
template <class T, int R, int C>
BV_KERNEL void sum2_tile(bv::program<4> p, bv::ptr<const T> x, bv::ptr<float> out, int rows,
                         int cols) {
  auto r = bv::arange<R>(p);
  auto c = bv::arange<C>(p);
  auto mask = (r.col() < rows) & (c.row() < cols);
  auto v = bv::load(x + (r.col() * cols + c.row()), mask, 0.0f);
  const auto s = bv::sum2(v, v.to(bv::f32) * -3.0f);
  bv::store(out, s.first);
  bv::store(out + 1, s.second);
}

template <class T>
std::vector<double> host_values(const bv::tensor<T>& x) {
  std::vector<double> v(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) v[i] = static_cast<double>(static_cast<float>(x.flat(i)));
  return v;
}

// f32 sums of n terms: within n * eps of the sum of the terms' magnitudes.
void check_sum(double got, double ref, double magnitude, int n) {
  CHECK(std::abs(got - ref) <= 2.0 * n * 1.2e-7 * magnitude + 1e-30);
}

template <class T, int BLOCK>
void check_rows(int m, int n, float offset, uint64_t seed) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(offset);
  auto x = bv::tensor<T>::empty("x", {m, n});
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd(offset, 1.0f);
  for (int64_t i = 0; i < x.numel(); ++i) x.flat(i) = static_cast<T>(nd(rng));
  const std::vector<double> hx = host_values(x);
  const float shift = offset;
  for (auto s : bv::testing::all_schedules()) {
    CAPTURE(bv::schedule_name(s));
    bv::testing::schedule_scope scope(s, seed);
    auto out = bv::testing::poisoned<float>("out", {m, 2});
    REQUIRE(bv::launch<sum2_rows<T, BLOCK>>(bv::grid(m), x, out, n, shift).ok());
    for (int r = 0; r < m; ++r) {
      double s1 = 0, s2 = 0, a1 = 0, a2 = 0;
      for (int j = 0; j < n; ++j) {
        const double d = static_cast<double>(static_cast<float>(hx[r * n + j] - shift));
        s1 += d;
        s2 += d * d;
        a1 += std::abs(d);
        a2 += d * d;
      }
      CAPTURE(r);
      check_sum(out(r, 0), s1, a1, n);
      check_sum(out(r, 1), s2, a2, n);
    }
  }
}

}  // namespace

TEST_CASE("sum2: two row sums against double, ragged rows, every schedule") {
  uint64_t seed = 1;
  for (int n : {1, 7, 63, 64}) check_rows<float, 64>(3, n, 0.0f, seed++);
  for (int n : {1, 255, 700, 1000}) check_rows<float, 1024>(4, n, 0.0f, seed++);
  // LayerNorm's case: values far from zero, shifted by their mean before the sums.
  for (int n : {3, 999}) check_rows<float, 1024>(2, n, 1000.0f, seed++);
  for (int n : {5, 130}) check_rows<bv::half, 256>(3, n, 0.5f, seed++);
}

TEST_CASE("sum2: 2-D tiles, f16 with f32, ragged edges") {
  for (auto [rows, cols] :
       {std::pair{1, 1}, std::pair{9, 31}, std::pair{16, 32}, std::pair{3, 17}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto x = bv::tensor<bv::half>::randn("x", {rows, cols}, 40 + rows);
    auto out = bv::testing::poisoned<float>("out", {2});
    REQUIRE(bv::launch<sum2_tile<bv::half, 16, 32>>(bv::grid(1), x, out, rows, cols).ok());
    const std::vector<double> hx = host_values(x);
    double s = 0, a = 0;
    for (double v : hx) s += v, a += std::abs(v);
    check_sum(out(0), s, a, rows * cols);
    check_sum(out(1), -3.0 * s, 3.0 * a, rows * cols);
  }
}
