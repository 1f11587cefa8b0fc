// Fused f32 arithmetic (interpreter/bv/cpu/fused.hpp). A fused block must hold the values its
// operators computed when it was made, whatever happens to its operands afterwards (changed,
// assigned, ended, written in memory under a view, another program running in between), and the
// fusion must really happen where it applies, or it buys nothing.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "bv/bv.hpp"

namespace {

constexpr int B = 256;

// Every fused consumer on ragged rows: stores, sums, op-assignments, and ops that are not fused
// (where, exp, a comparison, an f16 conversion) taking a fused operand.
template <int W>
BV_KERNEL void consumers(bv::program<W> p, bv::ptr<const float> x, bv::ptr<const float> y,
                         bv::ptr<float> out, bv::ptr<float> sums, bv::ptr<bv::half> low, int n) {
  const int pid = p.id(0);
  auto offs = pid * B + bv::arange<B>(p);
  auto mask = offs < n;
  auto a = bv::load(x + offs, mask, 0.0f);
  auto b = bv::load(y + offs, mask, 0.0f);
  bv::store(out + 0 * n + offs, a * 2.5f + b, mask);
  bv::store(out + 1 * n + offs, (a - b) * (a + b) / 3.0f, mask);
  auto acc = bv::zeros<float, B>(p);
  acc += a * b;
  acc -= b;
  acc *= 0.5f;
  acc /= 2.0f;
  acc += acc * 2.0f;  // reads what it updates
  bv::store(out + 2 * n + offs, acc, mask);
  bv::store(out + 3 * n + offs, bv::where(a * b > 0.0f, bv::exp(a * 0.25f), 1.0f - b), mask);
  bv::store(sums + pid, bv::sum(a * b));
  bv::store(low + offs, (a * b - 1.0f).to(bv::f16), mask);
  bv::block<float, B> named = 1.0f - a / 4.0f;  // a fused value converted to a block
  bv::store(out + 4 * n + offs, named * (a * b).to(bv::f32), mask);
  auto lanes = bv::arange<B>(p);
  bv::store(out + 5 * n + offs, bv::where(lanes < B, a * 3.0f, 0.0f), mask);  // known set
  bv::store(out + 6 * n + offs, bv::where(lanes < 0, a * 3.0f, b), mask);     // known clear
  bv::store(out + 7 * n + offs, bv::load(x + offs, mask, 0.0f).to(bv::f32) * 2.0f, mask);
}

TEST_CASE("fused arithmetic gives what the operators give, in every consumer") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (auto s : bv::testing::all_schedules())
    for (int trial = 0; trial < 2; ++trial) {
      const int n = bv::testing::ragged(rng, 1, 9 * B);
      CAPTURE(n);
      bv::testing::schedule_scope scope(s, seed + trial);
      auto x = bv::tensor<float>::randn("x", {n}, seed + trial);
      auto y = bv::tensor<float>::randn("y", {n}, seed + trial + 100);
      const int programs = (n + B - 1) / B;
      auto out = bv::testing::poisoned<float>("out", {8, n});
      auto sums = bv::testing::poisoned<float>("sums", {programs});
      auto low = bv::testing::poisoned<bv::half>("low", {n});
      REQUIRE(bv::launch<consumers<4>>(bv::grid(programs), x, y, out, sums, low, n).ok());
      std::vector<double> r0(static_cast<size_t>(8 * n)), rs(static_cast<size_t>(programs), 0.0),
          rl(static_cast<size_t>(n)), rs_abs(static_cast<size_t>(programs), 0.0);
      for (int i = 0; i < n; ++i) {
        const double a = x(i), b = y(i);
        const double acc = (a * b - b) * 0.5 / 2.0;
        r0[static_cast<size_t>(i)] = a * 2.5 + b;
        r0[static_cast<size_t>(n + i)] = (a - b) * (a + b) / 3.0;
        r0[static_cast<size_t>(2 * n + i)] = acc * 3.0;
        r0[static_cast<size_t>(3 * n + i)] = a * b > 0 ? std::exp(a * 0.25) : 1.0 - b;
        r0[static_cast<size_t>(4 * n + i)] = (1.0 - a / 4.0) * a * b;
        r0[static_cast<size_t>(5 * n + i)] = 3 * a;
        r0[static_cast<size_t>(6 * n + i)] = b;
        r0[static_cast<size_t>(7 * n + i)] = 2 * a;
        rs[static_cast<size_t>(i / B)] += a * b;
        rs_abs[static_cast<size_t>(i / B)] += std::abs(a * b);
        rl[static_cast<size_t>(i)] = a * b - 1.0;
      }
      BV_CHECK_CLOSE(out, r0, 1e-6);
      // f32 sums of up to 256 products: within a few ulps of the sum of magnitudes (a sum that
      // cancels to near zero has no meaningful relative error).
      for (int p = 0; p < programs; ++p)
        CHECK(std::abs(sums(p) - rs[static_cast<size_t>(p)]) <=
              4e-6 * rs_abs[static_cast<size_t>(p)] + 1e-7);
      BV_CHECK_CLOSE(low, rl, 2e-3);
    }
}

// Fused values whose operands change or end before the value is used. Rows of out, in order:
// 2x, 3x, y + 1, 4y, 2y, x - 1, 2y + 1, 3y, the sum of x * k over k = 0..17.
template <int W>
BV_KERNEL void operands_change(bv::program<W> p, bv::ptr<float> x, bv::ptr<const float> y,
                               bv::ptr<float> out, bv::ptr<int32_t> counter) {
  auto i = p.id(0) * B + bv::arange<B>(p);
  const int row = p.num_programs(0) * B;
  auto a = bv::load(x + i);
  const auto b0 = bv::load(y + i);
  auto g1 = a * 2.0f;
  a = b0;                            // assigned
  auto g2 = bv::load(x + i) * 3.0f;  // the operand is a temporary, gone after this line
  auto g3 = [&] {
    auto t = bv::load(y + i);
    return t + 1.0f;  // the operand ends with the lambda
  }();
  auto b = b0;
  auto g4 = b * 4.0f;
  b += 1.0f;            // updated in place
  auto g5 = g4 * 0.5f;  // a named fused value as an operand
  auto v = bv::load(x + i);
  auto g6 = v - 1.0f;
  bv::atomic_add(counter, 1);   // other programs run here in the shuffled schedule
  bv::store(x + i, v * 10.0f);  // the memory under a loaded operand is written
  auto m = bv::load(y + i);
  auto g7 = m * 2.0f;
  m = m * 3.0f;                    // g7 computes its lanes here...
  auto g8 = std::move(g7) + 1.0f;  // ...so its expression is not reused
  bv::block<float, B> acc = bv::load(y + i);
  acc += acc * 2.0f;
  // More fused values alive than the thread's list holds: the rest compute at once.
  auto f0 = a * 0.0f, f1 = v * 1.0f, f2 = v * 2.0f, f3 = v * 3.0f, f4 = v * 4.0f, f5 = v * 5.0f;
  auto f6 = v * 6.0f, f7 = v * 7.0f, f8 = v * 8.0f, f9 = v * 9.0f, f10 = v * 10.0f;
  auto f11 = v * 11.0f, f12 = v * 12.0f, f13 = v * 13.0f, f14 = v * 14.0f, f15 = v * 15.0f;
  auto f16 = v * 16.0f, f17 = v * 17.0f;
  v = b0;  // every one of them reads v (f0 reads a)
  bv::block<float, B> all = f0;
  all += f1, all += f2, all += f3, all += f4, all += f5, all += f6, all += f7, all += f8;
  all += f9, all += f10, all += f11, all += f12, all += f13, all += f14, all += f15;
  all += f16, all += f17;
  bv::store(out + 0 * row + i, g1);
  bv::store(out + 1 * row + i, g2);
  bv::store(out + 2 * row + i, g3);
  bv::store(out + 3 * row + i, g4);
  bv::store(out + 4 * row + i, g5);
  bv::store(out + 5 * row + i, g6);
  bv::store(out + 6 * row + i, g8);
  bv::store(out + 7 * row + i, acc);
  bv::store(out + 8 * row + i, all);
}

TEST_CASE("a fused value keeps its values when its operands change or end") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  for (auto s : bv::testing::all_schedules()) {
    bv::testing::schedule_scope scope(s, seed);
    const int programs = 7, n = programs * B;
    auto x = bv::tensor<float>::randn("x", {n}, seed);
    auto y = bv::tensor<float>::randn("y", {n}, seed + 1);
    const std::vector<float> x0(x.data(), x.data() + n);
    auto out = bv::testing::poisoned<float>("out", {9, n});
    auto counter = bv::tensor<int32_t>::zeros("counter", {1});
    REQUIRE(bv::launch<operands_change<4>>(bv::grid(programs), x, y, out, counter).ok());
    std::vector<double> ref(static_cast<size_t>(9 * n));
    for (int i = 0; i < n; ++i) {
      const double a = x0[static_cast<size_t>(i)], b = y(i);
      const double want[9] = {
          2 * a, 3 * a, b + 1, 4 * b, 2 * b, a - 1, 2 * b + 1, 3 * b, a * (17 * 18 / 2)};
      for (int r = 0; r < 9; ++r) ref[static_cast<size_t>(r * n + i)] = want[r];
    }
    BV_CHECK_CLOSE(out, ref, 1e-6);
  }
}

// Whether the fused paths are taken: flags[0] a product is fused, [1] still pending after a
// store computed it into memory and [2] after a sum, [3] computed once read as an operand.
template <int W>
BV_KERNEL void fusion_taken(bv::program<W> p, bv::ptr<const float> x, bv::ptr<float> out,
                            bv::ptr<int32_t> flags) {
  auto i = bv::arange<B>(p);
  auto a = bv::load(x + i);
  auto g = a * a;
  bv::store(flags + 0, g.pending() ? 1 : 0);
  bv::store(out + i, g);
  bv::store(flags + 1, g.pending() ? 1 : 0);
  bv::store(out + B, bv::sum(g));
  bv::store(flags + 2, g.pending() ? 1 : 0);
  bv::store(out + B + 1 + i, g + 1.0f);
  bv::store(flags + 3, g.pending() ? 0 : 1);
}

TEST_CASE("stores and sums compute a fused value without writing its lanes") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  // With checks off, and with every check on (a whole, in-bounds store is computed into memory
  // and what was written is classified there).
  for (const uint32_t enabled : {0u, uint32_t(bv::checks::all)}) {
    CAPTURE(enabled);
    bv::testing::schedule_scope scope(bv::schedule::sequential, seed);
    bv::config().enabled = enabled;
    auto x = bv::tensor<float>::randn("x", {B}, seed);
    auto out = bv::testing::poisoned<float>("out", {2 * B + 1});
    auto flags = bv::tensor<int32_t>::zeros("flags", {4});
    REQUIRE(bv::launch<fusion_taken<4>>(bv::grid(1), x, out, flags).ok());
    for (int k = 0; k < 4; ++k) CHECK(flags(k) == 1);
    std::vector<double> ref(static_cast<size_t>(2 * B + 1));
    double s = 0;
    for (int i = 0; i < B; ++i) {
      const double a2 = double(x(i)) * x(i);
      ref[static_cast<size_t>(i)] = a2;
      ref[static_cast<size_t>(B + 1 + i)] = a2 + 1;
      s += a2;
    }
    ref[B] = s;
    BV_CHECK_CLOSE(out, ref, 1e-6);
  }
}

}  // namespace
