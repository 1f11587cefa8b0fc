// Correct kernels written the obvious way report nothing by default: textbook exercises on the
// default program<> with blocks far smaller than its lanes, and a kernel that reads a transposed
// view on purpose (it takes the strides). With notes on, each performance note is said once per
// kernel, source line and tensor, however many launches and programs hit it.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "bv/bv.hpp"
#include "bv/testing.hpp"

using namespace bv;

namespace {

// out[i, j] = x[i] * y[j], one 16x16 tile per program.
template <int B>
BV_KERNEL void outer(program<> p, ptr<const float> x, ptr<const float> y, ptr<float> out, int m,
                     int n) {
  auto r = p.id(0) * B + arange<B>(p);
  auto c = p.id(1) * B + arange<B>(p);
  auto xv = load(x + r, r < m, 0.0f);
  auto yv = load(y + c, c < n, 0.0f);
  store(out + r.col() * n + c.row(), xv.col() * yv.row(), (r.col() < m) & (c.row() < n));
}

// The sum of a long row, 32 elements at a time.
template <int B>
BV_KERNEL void long_sum(program<> p, ptr<const float> x, ptr<float> out, int n) {
  auto acc = zeros<float, B>(p);
  for (int k = 0; k < n; k += B) {
    auto i = k + arange<B>(p);
    acc += load(x + p.id(0) * n + i, i < n, 0.0f);
  }
  store(out + p.id(0), sum(acc));
}

// Row softmax with a 64-wide block.
template <int B>
BV_KERNEL void row_softmax(program<> p, ptr<const float> x, ptr<float> out, int n) {
  auto c = arange<B>(p);
  auto v = load(x + p.id(0) * n + c, c < n, -INFINITY);
  auto e = exp(v - max(v));
  store(out + p.id(0) * n + c, e / sum(e), c < n);
}

// out = a^T, reading a transposed view through its strides: correct, and strided on purpose.
template <int B>
BV_KERNEL void strided_copy(program<> p, ptr<const float> a, ptr<float> out, int rows, int cols,
                            int s0, int s1) {
  auto r = p.id(0) * B + arange<B>(p);
  auto c = arange<B>(p);
  auto m = (r.col() < rows) & (c.row() < cols);
  store(out + r.col() * cols + c.row(), load(a + r.col() * s0 + c.row() * s1, m, 0.0f), m);
}

// Runs every exercise on fresh ragged inputs, checking each result against a double reference.
void exercises(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(17, 70);
  const int m = d(rng), n = d(rng);
  const uint64_t seed = rng();
  {
    auto x = tensor<float>::randn("x", {m}, seed), y = tensor<float>::randn("y", {n}, seed + 1);
    auto out = tensor<float>::full("out", {m, n}, NAN);
    CHECK(launch<outer<16>>(grid(cdiv(m, 16), cdiv(n, 16)), x, y, out, m, n).ok());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) CHECK(out(i, j) == doctest::Approx(double(x(i)) * y(j)));
  }
  {
    auto x = tensor<float>::randn("x", {m, n * 5}, seed + 2);
    auto out = tensor<float>::full("out", {m}, NAN);
    CHECK(launch<long_sum<32>>(grid(m), x, out, n * 5).ok());
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int j = 0; j < n * 5; ++j) s += x(i, j);
      CHECK(out(i) == doctest::Approx(s).epsilon(1e-4));
    }
  }
  {
    auto x = tensor<float>::randn("x", {m, n}, seed + 3);
    auto out = tensor<float>::full("out", {m, n}, NAN);
    CHECK(launch<row_softmax<128>>(grid(m), x, out, n).ok());
    for (int i = 0; i < m; ++i) {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < n; ++j) mx = std::max(mx, double(x(i, j)));
      for (int j = 0; j < n; ++j) s += std::exp(double(x(i, j)) - mx);
      for (int j = 0; j < n; ++j)
        CHECK(out(i, j) == doctest::Approx(std::exp(double(x(i, j)) - mx) / s).epsilon(1e-5));
    }
  }
  {
    auto a = tensor<float>::randn("a", {n, m}, seed + 4);
    const auto at = a.transposed();  // m x n, strides (1, m)
    auto out = tensor<float>::full("out", {m, n}, NAN);
    CHECK(launch<strided_copy<128>>(grid(cdiv(m, 128)), at, out, m, n,
                                    static_cast<int>(at.stride(0)), static_cast<int>(at.stride(1)))
              .ok());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) CHECK(out(i, j) == a(j, i));
  }
}

struct notes_scope {
  options saved = config();
  explicit notes_scope(bool on) {
    config().enabled = checks::defaults;
    config().notes = false;
    if (on) set_notes(true);
  }
  ~notes_scope() { config() = saved; }
};

}  // namespace

TEST_CASE("correct textbook kernels report nothing by default") {
  const uint64_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  testing::schedule_scope quiet(schedule::sequential);
  notes_scope scope(false);
  clear_diagnostics();
  exercises(rng);
  for (const auto& d : diagnostics()) FAIL_CHECK("unexpected: " << d.text());
  clear_diagnostics();
}

TEST_CASE("with notes on, each note is said once per kernel, line and tensor") {
  const uint64_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  testing::schedule_scope quiet(schedule::sequential);
  notes_scope scope(true);
  clear_diagnostics();
  std::mt19937_64 again = rng;
  exercises(rng);
  const size_t first = diagnostics().size();
  exercises(again);  // the same kernels, sizes and lines again: nothing new to say
  CHECK(diagnostics().size() == first);
  std::map<std::string, int> seen;
  for (const auto& d : diagnostics()) {
    CHECK_MESSAGE(d.sev == severity::note, d.text());
    ++seen[d.kernel + " " + d.kind + " " + std::to_string(d.line) + " " +
           (d.has_tensor ? d.tensor.name : "")];
  }
  for (const auto& [key, n] : seen) CHECK_MESSAGE(n == 1, key << " said " << n << " times");
  // The tiny blocks leave most lanes idle, and the transposed view is strided.
  auto has = [&](const char* kind) {
    for (const auto& d : diagnostics())
      if (d.kind == kind) return true;
    return false;
  };
  CHECK(has("low-utilisation"));
  CHECK(has("non-contiguous"));
  clear_diagnostics();
  // Cleared, a note may be said again.
  exercises(rng);
  CHECK(!diagnostics().empty());
  clear_diagnostics();
}
