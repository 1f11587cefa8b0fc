// The states of a block value and their transitions (interpreter/bv/cpu/block_state.hpp). Each
// transition has several steps (write pending lanes out, copy a view's lanes in, let the fused
// blocks that read this one compute theirs, leave the thread's lists, end the form's claim); each
// test here fails when one step is left out: a write through to memory, a fused value that sees
// its operand's new lanes, a list entry left behind, a stale form.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>
#include <vector>

#include "bv/bv.hpp"

namespace {

constexpr int B = 256;
using fblock = bv::block<float, B>;
using iblock = bv::block<int32_t, B>;
using bblock = bv::block<bool, B>;
using bv::detail::value_state;

std::vector<float> random_floats(std::mt19937_64& rng, int n) {
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}
fblock owned_from(const std::vector<float>& v) {
  fblock b;
  for (int i = 0; i < B; ++i) b[i] = v[static_cast<size_t>(i)];
  return b;
}
// Neither list keeps an entry for a block that ended (I2, I3 of block_state.hpp).
void require_lists_empty() {
  REQUIRE(bv::detail::t_views.n == 0);
  REQUIRE(bv::detail::t_fused.n == 0);
}

TEST_CASE("a write to a view makes it owned and leaves the memory it read alone") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  const auto mem = random_floats(rng, B);
  auto buffer = mem;
  {
    fblock v;
    REQUIRE(v.view_of(buffer.data()));
    CHECK(v.state() == value_state::view);
    CHECK(v.read() == buffer.data());
    const int lane = static_cast<int>(rng() % B);
    v[lane] = 1e6f;  // a write: the lanes are copied in first, then written
    CHECK(v.state() == value_state::owned);
    CHECK(buffer == mem);
    for (int i = 0; i < B; ++i) CHECK(v[i] == (i == lane ? 1e6f : mem[static_cast<size_t>(i)]));
    CHECK(bv::detail::t_views.n == 0);  // the view left the list when it became owned
  }
  require_lists_empty();
}

TEST_CASE("a copy of a view reads the same memory; each settles on its own") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  const auto mem = random_floats(rng, B);
  auto buffer = mem;
  {
    fblock v;
    REQUIRE(v.view_of(buffer.data()));
    fblock c = v;
    CHECK(c.state() == value_state::view);
    CHECK(bv::detail::t_views.n == 2);
    // The program is about to write the memory: the views take their own copies.
    bv::detail::settle_views(buffer.data(), buffer.data() + B);
    for (auto& x : buffer) x = -x;
    CHECK(v.state() == value_state::owned);
    CHECK(c.state() == value_state::owned);
    for (int i = 0; i < B; ++i) {
      CHECK(v.read()[i] == mem[static_cast<size_t>(i)]);
      CHECK(c.read()[i] == mem[static_cast<size_t>(i)]);
    }
  }
  require_lists_empty();
}

TEST_CASE("a fused block read after its operand changes has the operand's old values") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  const auto xa = random_floats(rng, B), xb = random_floats(rng, B);
  std::vector<float> want(B);
  for (int i = 0; i < B; ++i) want[i] = xa[i] * xb[i] + 1.5f;
  for (int how = 0; how < 4; ++how) {
    CAPTURE(how);
    {
      fblock a = owned_from(xa), b = owned_from(xb);
      auto f = a * b + 1.5f;
      CHECK(f.state() == value_state::fused);
      CHECK(bv::detail::t_fused.n == 1);
      switch (how) {
        case 0:
          a[static_cast<int>(rng() % B)] = 1e9f;  // a write of one lane
          break;
        case 1:
          a += 7.0f;  // an update in place
          break;
        case 2:
          a = b;  // an assignment
          break;
        case 3:
          a.vals().setZero();  // the writable array
          break;
      }
      CHECK(f.state() == value_state::owned);  // it computed its lanes before a changed
      CHECK(bv::detail::t_fused.n == 0);
      for (int i = 0; i < B; ++i) CHECK(f.read()[i] == want[static_cast<size_t>(i)]);
    }
    require_lists_empty();
  }
}

TEST_CASE("a fused block whose operand ends computes its lanes first; one that ends leaves") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  const auto xa = random_floats(rng, B);
  {
    auto f = [&] {
      fblock a = owned_from(xa);
      return a * 2.0f - 0.5f;  // a ends here; f outlives it
    }();
    for (int i = 0; i < B; ++i) CHECK(f.read()[i] == xa[static_cast<size_t>(i)] * 2.0f - 0.5f);
  }
  require_lists_empty();
  {
    fblock a = owned_from(xa);
    {
      auto g = a * a;  // never read: it leaves the list when it ends
      CHECK(bv::detail::t_fused.n == 1);
    }
    CHECK(bv::detail::t_fused.n == 0);
    a[0] = 3.0f;  // nothing reads a any more
    CHECK(a.read()[0] == 3.0f);
  }
  require_lists_empty();
}

TEST_CASE("assigning a fused block computes its lanes into the target; the source stays fused") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  const auto xa = random_floats(rng, B), xb = random_floats(rng, B);
  {
    fblock a = owned_from(xa), b = owned_from(xb), t = owned_from(xb);
    auto f = a - b;
    t = f;
    CHECK(t.state() == value_state::owned);
    CHECK(f.state() == value_state::fused);
    for (int i = 0; i < B; ++i) CHECK(t.read()[i] == xa[static_cast<size_t>(i)] - xb[i]);
    b[0] = 0.0f;  // f computes its lanes, with b's old value
    CHECK(f.read()[0] == xa[0] - xb[0]);
  }
  require_lists_empty();
}

TEST_CASE("an affine block writes its lanes when read; a write ends its form") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  for (int trial = 0; trial < 8; ++trial) {
    const int a0 = static_cast<int>(rng() % 100000) - 50000, ac = static_cast<int>(rng() % 9) - 4;
    CAPTURE(a0);
    CAPTURE(ac);
    auto k = iblock::lazy({true, a0, 0, ac});
    CHECK(k.state() == value_state::affine);
    iblock c = k;  // a copy of a form writes nothing either
    CHECK(c.state() == value_state::affine);
    for (int i = 0; i < B; ++i) CHECK(k.read()[i] == a0 + ac * i);
    CHECK(k.state() == value_state::owned);
    CHECK(k.aff.known);  // read, not written: the form still describes the lanes
    const int lane = static_cast<int>(rng() % B);
    k[lane] = 42;
    CHECK_FALSE(k.aff.known);
    for (int i = 0; i < B; ++i) CHECK(c[i] == a0 + ac * i);  // the copy has its own lanes
  }
}

TEST_CASE("a uniform mask writes its lanes when read; a write ends its one value") {
  for (const bool one : {false, true}) {
    auto m = bblock::uniform(one);
    CHECK(m.state() == value_state::uniform);
    CHECK(m.known_uniform() == (one ? 1 : 0));
    for (int i = 0; i < B; ++i) CHECK(m.read()[i] == one);
    CHECK(m.known_uniform() == (one ? 1 : 0));
    m[B / 2] = !one;
    CHECK(m.state() == value_state::owned);
    CHECK(m.known_uniform() == -1);
  }
}

// The watch a check sets on a view runs once, at the view's end (or before a switch for a steady
// view, or on demand), with the memory as loaded.
int g_watch_runs = 0;
float g_watch_first = 0.0f;
void counting_watch(const bv::detail::view_entry& e) {
  ++g_watch_runs;
  g_watch_first = *reinterpret_cast<const float*>(e.lo);
}
bool never(const void*) { return false; }

TEST_CASE("a view's watch runs once, before its memory can change") {
  std::mt19937_64 rng(bv::testing::fresh_seed());
  auto buffer = random_floats(rng, B);
  const float first = buffer[0];
  g_watch_runs = 0;
  {
    fblock v;
    REQUIRE(v.view_of(buffer.data()));
    bv::detail::view_watch_set(&v, &counting_watch, &never);
    bv::detail::settle_views(buffer.data(), buffer.data() + 1);  // a store is about to write
    buffer[0] = first + 1.0f;
    CHECK(g_watch_runs == 1);
    CHECK(g_watch_first == first);
  }
  CHECK(g_watch_runs == 1);
  {
    fblock v;
    REQUIRE(v.view_of(buffer.data()));
    bv::detail::view_watch_set(&v, &counting_watch, &never);
    bv::detail::run_view_watches();
    CHECK(v.state() == value_state::view);  // asked, not settled
  }
  CHECK(g_watch_runs == 2);
  require_lists_empty();
}

// Inside a launch, on ragged rows: a loaded block that the program then writes (v += 1, one
// lane set) leaves x as it was, and a fused value made before its operand changed keeps the old
// operand's values. Rows of out: v + 1 with lane 0 = -1 (where loaded whole), 2x + y.
template <int W>
BV_KERNEL void write_after_load(bv::program<W> p, bv::ptr<float> x, bv::ptr<const float> y,
                                bv::ptr<float> out, int n) {
  auto offs = p.id(0) * B + bv::arange<B>(p);
  auto mask = offs < n;
  auto v = bv::load(x + offs, mask, 0.0f);
  auto w = bv::load(y + offs, mask, 0.0f);
  auto f = v * 2.0f + w;
  v += 1.0f;
  v[0] = -1.0f;
  bv::store(out + offs, v, mask);
  bv::store(out + n + offs, f, mask);
}

TEST_CASE("in a launch: writes to loaded blocks stay off memory, fused values keep old operands") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (auto s : bv::testing::all_schedules())
    for (int trial = 0; trial < 2; ++trial) {
      const int n = bv::testing::ragged(rng, 1, 7 * B);
      CAPTURE(n);
      bv::testing::schedule_scope scope(s, seed + trial);
      auto x = bv::tensor<float>::randn("x", {n}, seed + trial);
      auto y = bv::tensor<float>::randn("y", {n}, seed + trial + 50);
      auto out = bv::testing::poisoned<float>("out", {2, n});
      const auto x0 = x.values();
      REQUIRE(bv::launch<write_after_load<4>>(bv::grid((n + B - 1) / B), x, y, out, n).ok());
      CHECK(x.values() == x0);
      std::vector<double> want(static_cast<size_t>(2 * n));
      for (int i = 0; i < n; ++i) {
        want[static_cast<size_t>(i)] = i % B == 0 ? -1.0 : x0[static_cast<size_t>(i)] + 1.0;
        want[static_cast<size_t>(n + i)] = 2.0 * x0[static_cast<size_t>(i)] + y(i);
      }
      BV_CHECK_CLOSE(out, want, 1e-6);
    }
}

}  // namespace
