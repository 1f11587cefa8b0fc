// Loads that read memory in place (interpreter/bv/cpu/views.hpp). A loaded block must keep the
// values memory held at the load, whatever the program, or another program after a lock, writes
// there afterwards; and the in-place path must be taken where it applies, or it buys nothing.
#include <doctest/doctest.h>

#include <bv/testing.hpp>
#include <random>
#include <vector>

#include "bv/bv.hpp"

namespace {

constexpr int B = 256;  // 1 KB of f32 per block: read in place when whole

// Loads x, overwrites x with 2x + 1, then stores what it loaded (and a copy of it, and a block
// assigned from it) to out, and what x holds now to again.
template <int W>
BV_KERNEL void snapshot(bv::program<W> p, bv::ptr<float> x, bv::ptr<float> out,
                        bv::ptr<float> copied, bv::ptr<float> again, bv::ptr<int32_t> in_place,
                        int n) {
  auto offs = p.id(0) * B + bv::arange<B>(p);
  auto mask = offs < n;
  auto v = bv::load(x + offs, mask);
  auto c = v;  // a copy of a view reads the same memory until it is written
  bv::block<float, B> a;
  a = v;
  if (p.id(0) * B + B <= n) bv::store(in_place + p.id(0), v.is_view() && c.is_view() ? 1 : 0);
  bv::store(x + offs, v * 2 + 1, mask);
  bv::store(out + offs, v, mask);
  bv::store(copied + offs, c + a, mask);
  bv::store(again + offs, bv::load(x + offs, mask), mask);
}

// One program shifts x right by one inside the buffer its loaded block reads.
template <int W>
BV_KERNEL void shift_in_place(bv::program<W> p, bv::ptr<float> x, bv::ptr<float> out) {
  auto i = bv::arange<1024>(p);
  auto v = bv::load(x + i);
  bv::store(x + 1 + i, v, i < 1023);
  bv::store(out + i, v);
}

// Readers take a lock, load the shared block, release the lock and only then store what they
// loaded; writers fill the block with their id under the lock. A reader's row must be one
// writer's id (or the initial -1) in every lane: the values of its load, not a mix of later ones.
template <int W>
BV_KERNEL void readers_writers(bv::program<W> p, bv::ptr<int32_t> lock, bv::ptr<float> shared,
                               bv::ptr<float> seen) {
  const int pid = p.id(0);
  auto cols = bv::arange<1024>(p);
  while (bv::atomic_cas(lock, 0, 1) == 1) {
  }
  if (pid % 2 == 0) {
    auto v = bv::load(shared + cols);
    bv::atomic_xchg(lock, 0);
    bv::store(seen + pid * 1024 + cols, v);
  } else {
    bv::store(shared + cols, bv::full<float, 1024>(p, pid));
    bv::atomic_xchg(lock, 0);
  }
}

// More blocks alive at once than the thread's list of views holds: the rest are copies.
template <int W>
BV_KERNEL void many_alive(bv::program<W> p, bv::ptr<const float> x, bv::ptr<float> out) {
  auto i = bv::arange<B>(p);
  auto b0 = bv::load(x + i), b1 = bv::load(x + B + i), b2 = bv::load(x + 2 * B + i);
  auto b3 = bv::load(x + 3 * B + i), b4 = bv::load(x + 4 * B + i), b5 = bv::load(x + 5 * B + i);
  auto b6 = bv::load(x + 6 * B + i), b7 = bv::load(x + 7 * B + i), b8 = bv::load(x + 8 * B + i);
  auto b9 = bv::load(x + 9 * B + i);
  bv::store(out + i, b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9);
}

// A view of a read-only buffer (w, bound to ptr<const float> only) stays a view across an atomic;
// one of a buffer the kernel may write (x) settles there. flags[pid] = 2 * w's + x's is_view().
template <int W>
BV_KERNEL void steady_views(bv::program<W> p, bv::ptr<const float> w, bv::ptr<float> x,
                            bv::ptr<int32_t> counter, bv::ptr<int32_t> flags, bv::ptr<float> out) {
  auto i = bv::arange<1024>(p);
  auto wv = bv::load(w + i);
  auto xv = bv::load(x + i);
  bv::atomic_add(counter, 1);
  bv::store(flags + p.id(0), (wv.is_view() ? 2 : 0) + (xv.is_view() ? 1 : 0));
  bv::store(out + p.id(0) * 1024 + i, wv + xv);
}

// Program 0 loads through a ptr<const float>, says so and waits; program 1 waits for that, writes
// the same buffer through a ptr<float> (the same tensor passed twice) and lets program 0 go. The
// buffer is not read-only, so program 0's block keeps the values it loaded.
template <int W>
BV_KERNEL void aliased_const(bv::program<W> p, bv::ptr<const float> seen_as_const,
                             bv::ptr<float> written, bv::ptr<int32_t> flags, bv::ptr<float> out) {
  auto i = bv::arange<1024>(p);
  auto loaded = flags + 0, go = flags + 1;
  if (p.id(0) == 0) {
    auto v = bv::load(seen_as_const + i);
    bv::atomic_xchg(loaded, 1);
    while (bv::atomic_cas(go, 1, 1) != 1) {
    }
    bv::store(out + i, v);
  } else {
    while (bv::atomic_cas(loaded, 1, 1) != 1) {
    }
    bv::store(written + i, bv::full<float, 1024>(p, 5.0f));
    bv::atomic_xchg(go, 1);
  }
}

}  // namespace

TEST_CASE("a view of a read-only buffer stays a view across atomics; others settle") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  for (auto s : bv::testing::all_schedules()) {
    bv::testing::schedule_scope scope(s, seed);
    const int programs = 6;
    auto w = bv::tensor<float>::randn("w", {1024}, seed);
    auto x = bv::tensor<float>::randn("x", {1024}, seed + 1);
    auto counter = bv::tensor<int32_t>::zeros("counter", {1});
    auto flags = bv::tensor<int32_t>::zeros("flags", {programs});
    auto out = bv::testing::poisoned<float>("out", {programs, 1024});
    REQUIRE(bv::launch<steady_views<4>>(bv::grid(programs), w, x, counter, flags, out).ok());
    for (int pid = 0; pid < programs; ++pid) CHECK(flags(pid) == 2);
    int bad = 0;
    for (int pid = 0; pid < programs; ++pid)
      for (int c = 0; c < 1024; ++c) bad += out(pid, c) != w(c) + x(c);
    CHECK(bad == 0);
  }
}

TEST_CASE("a buffer passed both as ptr<const T> and ptr<T> is not read-only") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  for (auto s : bv::testing::all_schedules()) {
    CAPTURE(static_cast<int>(s));
    bv::testing::schedule_scope scope(s, seed);
    bv::config().enabled = 0;  // program 1's write is a race with program 0's read, on purpose
    auto x = bv::tensor<float>::randn("x", {1024}, seed);
    const std::vector<float> x0(x.data(), x.data() + 1024);
    auto flags = bv::tensor<int32_t>::zeros("flags", {2});
    auto out = bv::testing::poisoned<float>("out", {1024});
    const auto r = bv::launch<aliased_const<4>>(bv::grid(2), x, x, flags, out);
    for (const auto& d : r.diagnostics) MESSAGE(d.kind << ": " << d.headline << " " << d.detail);
    CHECK(!r.deadlocked);
    REQUIRE(r.ok());
    int bad = 0;
    for (int c = 0; c < 1024; ++c) bad += out(c) != x0[static_cast<size_t>(c)];
    CHECK(bad == 0);
    CHECK(x(0) == 5.0f);
  }
}

TEST_CASE("a loaded block keeps the values of its load when the program writes that memory") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (auto s : bv::testing::all_schedules())
    for (int trial = 0; trial < 3; ++trial) {
      const int n = bv::testing::ragged(rng, B + 1, 20 * B);
      CAPTURE(n);
      bv::testing::schedule_scope scope(s, seed + trial);
      auto x = bv::tensor<float>::randn("x", {n}, seed + trial);
      const std::vector<float> x0(x.data(), x.data() + n);
      auto out = bv::testing::poisoned<float>("out", {n});
      auto copied = bv::testing::poisoned<float>("copied", {n});
      auto again = bv::testing::poisoned<float>("again", {n});
      const int programs = (n + B - 1) / B;
      auto in_place = bv::tensor<int32_t>::zeros("in_place", {programs});
      const auto r =
          bv::launch<snapshot<4>>(bv::grid(programs), x, out, copied, again, in_place, n);
      REQUIRE(r.ok());
      int bad = 0;
      for (int i = 0; i < n; ++i) {
        const float want = 2 * x0[static_cast<size_t>(i)] + 1;
        bad += out(i) != x0[static_cast<size_t>(i)] ||
               copied(i) != 2 * x0[static_cast<size_t>(i)] || x(i) != want || again(i) != want;
      }
      CHECK(bad == 0);
      // Whole interior blocks took the in-place path (the last, partial one is masked).
      int whole = 0;
      for (int pgm = 0; pgm < n / B; ++pgm) whole += in_place(pgm);
      CHECK(whole == n / B);
    }
}

TEST_CASE("a store that overlaps the block being stored writes the values loaded") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  auto x = bv::tensor<float>::randn("x", {1024}, seed);
  const std::vector<float> x0(x.data(), x.data() + 1024);
  auto out = bv::testing::poisoned<float>("out", {1024});
  REQUIRE(bv::launch<shift_in_place<4>>(bv::grid(1), x, out).ok());
  int bad = x(0) != x0[0];
  for (int i = 0; i < 1024; ++i) bad += out(i) != x0[static_cast<size_t>(i)];
  for (int i = 1; i < 1024; ++i) bad += x(i) != x0[static_cast<size_t>(i - 1)];
  CHECK(bad == 0);
}

TEST_CASE("a block loaded under a lock keeps its values after the lock is released") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  for (auto s : bv::testing::all_schedules())
    for (int trial = 0; trial < 4; ++trial) {
      bv::testing::schedule_scope scope(s, seed + trial);
      const int programs = 64;
      auto lock = bv::tensor<int32_t>::zeros("lock", {1});
      auto shared = bv::tensor<float>::full("shared", {1024}, -1.0f);
      auto seen = bv::tensor<float>::full("seen", {programs, 1024}, -2.0f);
      REQUIRE(bv::launch<readers_writers<4>>(bv::grid(programs), lock, shared, seen).ok());
      int mixed = 0, unwritten = 0;
      for (int pid = 0; pid < programs; pid += 2) {
        const float first = seen(pid, 0);
        unwritten += first == -2.0f;
        for (int c = 1; c < 1024; ++c) mixed += seen(pid, c) != first;
      }
      CHECK(unwritten == 0);
      CHECK(mixed == 0);
    }
}

TEST_CASE("more loaded blocks alive than views held: the others are copies, values the same") {
  const uint64_t seed = bv::testing::fresh_seed();
  INFO("seed " << seed);
  auto x = bv::tensor<float>::randn("x", {10 * B}, seed);
  auto out = bv::testing::poisoned<float>("out", {B});
  REQUIRE(bv::launch<many_alive<4>>(bv::grid(1), x, out).ok());
  double worst = 0;
  for (int i = 0; i < B; ++i) {
    double want = 0;
    for (int k = 0; k < 10; ++k) want += x(k * B + i);
    worst = std::max(worst, std::abs(out(i) - want));
  }
  CHECK(worst < 1e-4);
}
