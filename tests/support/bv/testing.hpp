// doctest helpers for kernel tests: poison outputs, compare tensors with references computed in
// double precision, run under every schedule. Installed with the package for users' own kernels.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bv/bv.hpp"

namespace bv::testing {

// Fill a tensor with a value no kernel would write (NaN, or a loud integer), so an element the
// kernel forgot fails the comparison. Marks the memory as written: the kernel overwrites it.
template <class T>
void poison(tensor<T>& t) {
  if constexpr (is_float<T>)
    t.fill(static_cast<T>(std::numeric_limits<float>::quiet_NaN()));
  else if constexpr (std::is_same_v<T, bool>)
    t.fill(true);
  else
    t.fill(static_cast<T>(-0x2a2a2a2a));
}

// A new tensor of this shape, poisoned: an output for a kernel to fill.
template <class T>
tensor<T> poisoned(const std::string& name, std::vector<int64_t> shape) {
  auto t = tensor<T>::empty(name, std::move(shape));
  poison(t);
  return t;
}

// The relative L2 tolerance a dtype can meet (f32 1e-5, f16/bf16 1e-2).
template <class T>
constexpr double tolerance() {
  return is_16bit_float<T> ? 1e-2 : (std::is_same_v<T, float> ? 1e-5 : 0.0);
}

struct comparison {
  double max_abs = 0, rel_l2 = 0;
  int64_t worst = -1;     // flat index of the largest error
  int64_t nonfinite = 0;  // elements that are NaN/Inf in the result but not the reference
  int64_t count = 0;
  double got_worst = 0, ref_worst = 0;
  bool ok(double tol) const { return nonfinite == 0 && rel_l2 <= tol; }
  std::string describe() const {
    std::ostringstream os;
    os << "rel L2 error " << rel_l2 << ", max abs error " << max_abs << " at flat index " << worst
       << " (got " << got_worst << ", expected " << ref_worst << "), " << nonfinite
       << " non-finite of " << count;
    return os.str();
  }
};

// Compare a tensor (row-major over its view) with a reference of the same number of elements.
template <class T, class R>
comparison compare(const tensor<T>& got, const R& ref) {
  comparison c;
  c.count = got.numel();
  double num = 0, den = 0;
  for (int64_t i = 0; i < c.count; ++i) {
    const double g = static_cast<double>(static_cast<float>(got.flat(i)));
    const double r = static_cast<double>(ref[static_cast<size_t>(i)]);
    if (!std::isfinite(g) && std::isfinite(r)) {
      ++c.nonfinite;
      if (c.worst < 0) c.worst = i, c.got_worst = g, c.ref_worst = r;
      continue;
    }
    if (!std::isfinite(r)) continue;
    const double e = std::abs(g - r);
    num += e * e;
    den += r * r;
    if (e > c.max_abs || c.worst < 0) c.max_abs = e, c.worst = i, c.got_worst = g, c.ref_worst = r;
  }
  c.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return c;
}

// Sets the schedule (and seed) for one scope, restoring the previous options after.
struct schedule_scope {
  options saved;
  explicit schedule_scope(schedule s, uint64_t seed = 7, int threads = 2) : saved(config()) {
    config().sched = s;
    config().seed = seed;
    config().threads = threads;
    config().quiet = true;
  }
  ~schedule_scope() { config() = saved; }
};

// Runs one scope under target t (its layouts and launch configurations), restoring the previous
// target after.
struct target_scope {
  target saved = config().tgt;
  explicit target_scope(target t) { set_target(t); }
  ~target_scope() { set_target(saved); }
};

inline const std::vector<schedule>& all_schedules() {
  static const std::vector<schedule> s{schedule::sequential, schedule::shuffled,
                                       schedule::parallel};
  return s;
}

// A fresh seed per test run (BV_TEST_SEED pins it); printed by the test on failure.
inline uint64_t fresh_seed() {
  if (const char* s = std::getenv("BV_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  static std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// A random size in [lo, hi] that is deliberately not a multiple of `avoid` (ragged edges).
inline int ragged(std::mt19937_64& rng, int lo, int hi, int avoid = 16) {
  std::uniform_int_distribution<int> d(lo, hi);
  for (;;) {
    const int n = d(rng);
    if (avoid <= 1 || n % avoid != 0) return n;
  }
}

}  // namespace bv::testing

// CHECK that a tensor matches a reference within a relative L2 tolerance, naming the worst
// element when it does not.
#define BV_CHECK_CLOSE(got, ref, tol)                                \
  do {                                                               \
    const auto bv_cmp_ = ::bv::testing::compare((got), (ref));       \
    INFO("tensor '" << (got).name() << "': " << bv_cmp_.describe()); \
    CHECK(bv_cmp_.ok(tol));                                          \
  } while (0)
