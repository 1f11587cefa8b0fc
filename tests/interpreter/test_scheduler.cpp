// The scheduler: every schedule runs every program exactly once; the shuffled one is a function
// of its seed; programs that wait on each other through a lock still finish; a lock that is never
// released is a reported deadlock, not a hang.
#include <doctest/doctest.h>
#include <sched.h>

#include <bv/testing.hpp>
#include <set>
#include <thread>
#include <vector>

#include "bv/bv.hpp"

namespace {

// Each program counts itself and appends its id to a log, in the order programs got there.
template <int W>
BV_KERNEL void count_kernel(bv::program<W> p, bv::ptr<int32_t> counts, bv::ptr<int32_t> next,
                            bv::ptr<int32_t> log) {
  const int pid = (p.id(2) * p.num_programs(1) + p.id(1)) * p.num_programs(0) + p.id(0);
  bv::atomic_add(counts + pid, 1);
  const int slot = bv::atomic_add(next, 1);
  bv::store(log + slot, pid);
}

// Triton's LayerNorm-backward pattern: programs of one group add their partial block into a
// shared buffer under a spin lock taken with atomic_cas and released with atomic_xchg. The read-
// modify-write inside is plain loads and stores: only the lock makes it correct.
constexpr int kCols = 64;
template <int W>
BV_KERNEL void locked_accumulate(bv::program<W> p, bv::ptr<int32_t> locks, bv::ptr<int32_t> acc,
                                 int groups) {
  const int pid = p.id(0);
  const int g = pid % groups;
  auto cols = bv::arange<kCols>(p);
  auto lock = locks + g;
  while (bv::atomic_cas(lock, 0, 1) == 1) {
  }
  auto dst = acc + g * kCols + cols;
  bv::store(dst, bv::load(dst) + (pid + 1) * (cols + 1));
  bv::atomic_xchg(lock, 0);
}

// The same without the release: every program after the first waits forever.
template <int W>
BV_KERNEL void never_released(bv::program<W> p, bv::ptr<int32_t> lock, bv::ptr<int32_t> out) {
  while (bv::atomic_cas(lock, 0, 1) == 1) {
  }
  bv::store(out + p.id(0), 1);
}

struct order_run {
  std::vector<int> order;
  bool every_once = true;
};

order_run run_counts(bv::schedule s, uint64_t seed, bv::grid g) {
  bv::testing::schedule_scope scope(s, seed);
  const int n = static_cast<int>(g.count());
  bv::tensor<int32_t> counts("counts", {n}), next("next", {1}), log("log", {n});
  const auto r = bv::launch<count_kernel<4>>(g, counts, next, log);
  order_run out;
  CHECK(r.ok());
  CHECK(r.programs == n);
  CHECK(next(0) == n);
  for (int i = 0; i < n; ++i) out.every_once = out.every_once && counts(i) == 1;
  for (int i = 0; i < n; ++i) out.order.push_back(log(i));
  return out;
}

}  // namespace

TEST_CASE("every schedule runs every program exactly once") {
  for (auto s : bv::testing::all_schedules())
    for (bv::grid g : {bv::grid(1), bv::grid(37), bv::grid(1000), bv::grid(7, 5, 3)}) {
      INFO("schedule " << std::string(bv::schedule_name(s)));
      CAPTURE(g.count());
      const auto r = run_counts(s, 11, g);
      CHECK(r.every_once);
      std::set<int> seen(r.order.begin(), r.order.end());
      CHECK(seen.size() == static_cast<size_t>(g.count()));
    }
}

TEST_CASE("the sequential schedule runs programs in order of their ids") {
  const auto r = run_counts(bv::schedule::sequential, 0, bv::grid(100));
  for (int i = 0; i < 100; ++i) CHECK(r.order[static_cast<size_t>(i)] == i);
}

TEST_CASE("the shuffled schedule is reproducible per seed and differs across seeds") {
  const uint64_t seed = bv::testing::fresh_seed() % 1000000;
  INFO("seed " << seed);
  const auto a = run_counts(bv::schedule::shuffled, seed, bv::grid(200));
  const auto b = run_counts(bv::schedule::shuffled, seed, bv::grid(200));
  const auto c = run_counts(bv::schedule::shuffled, seed + 1, bv::grid(200));
  CHECK(a.every_once);
  CHECK(a.order == b.order);
  CHECK(a.order != c.order);
  std::vector<int> ids(200);
  for (int i = 0; i < 200; ++i) ids[static_cast<size_t>(i)] = i;
  CHECK(a.order != ids);  // 1 in 200! that a shuffle is the identity
}

TEST_CASE("a lock-protected accumulation is exact under every schedule") {
  const uint64_t seed = bv::testing::fresh_seed() % 1000000;
  INFO("seed " << seed);
  for (auto s : bv::testing::all_schedules())
    for (int groups : {1, 3}) {
      INFO("schedule " << std::string(bv::schedule_name(s)));
      CAPTURE(groups);
      bv::testing::schedule_scope scope(s, seed);
      const int n = 200;
      bv::tensor<int32_t> locks("locks", {groups}), acc("acc", {groups, kCols});
      const auto r = bv::launch<locked_accumulate<4>>(bv::grid(n), locks, acc, groups);
      CHECK_FALSE(r.deadlocked);
      CHECK(r.programs == n);
      std::string all;
      for (const auto& d : r.diagnostics) all += d.text();
      INFO(all);
      CHECK(r.ok());
      for (int g = 0; g < groups; ++g) {
        CHECK(locks(g) == 0);
        int64_t pid_sum = 0;
        for (int pid = g; pid < n; pid += groups) pid_sum += pid + 1;
        for (int c = 0; c < kCols; ++c) {
          CAPTURE(g);
          CAPTURE(c);
          REQUIRE(acc(g, c) == pid_sum * (c + 1));
        }
      }
    }
}

TEST_CASE("a lock never released is a deadlock diagnostic, never a hang") {
  for (auto s : bv::testing::all_schedules()) {
    INFO("schedule " << std::string(bv::schedule_name(s)));
    bv::testing::schedule_scope scope(s, 5);
    bv::tensor<int32_t> lock("lock", {1}), out("out", {64});
    const auto r = bv::launch<never_released<4>>(bv::grid(64), lock, out);
    CHECK(r.deadlocked);
    CHECK_FALSE(r.ok());
    CHECK(r.programs < 64);
    int found = 0;
    std::string all;
    for (const auto& d : r.diagnostics) all += d.text();
    INFO(all);
    for (const auto& d : r.diagnostics)
      if (d.kind == "deadlock") {
        ++found;
        CHECK(d.sev == bv::severity::error);
        CHECK(d.kernel.find("never_released") != std::string::npos);
        CHECK(d.file.find("test_scheduler.cpp") != std::string::npos);
        CHECK(d.text().find("atomic_xchg") != std::string::npos);  // the hint names the fix
      }
    CHECK(found == 1);
    // Exactly one program got the lock and finished.
    int done = 0;
    for (int i = 0; i < 64; ++i) done += out(i) == 1;
    CHECK(done == 1);
  }
}

TEST_CASE("the default thread count follows the CPU affinity mask, not the machine's cores") {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
  CHECK(bv::usable_cores() == CPU_COUNT(&mine));
  // A thread pinned to one of those CPUs (as `taskset -c N` pins a process) sees one core.
  int first = 0;
  while (!CPU_ISSET(first, &mine)) ++first;
  int seen = 0;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0) seen = bv::usable_cores();
  });
  t.join();
  CHECK(seen == 1);
}
