// Turning a kernel's output and its reference into a CLI outcome.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "registry.hpp"

namespace bv::cli {

// One output against its reference, the comparison kernel libraries use too.
using bv::library::compare_with;

// Set while `blockvec bench` runs: how many timed runs each measurement takes over the same
// tensors, after one untimed run, keeping the fastest (0 outside the bench: one run, untimed
// warm-up skipped for the interpreter). Both sides take the same number: the native side through
// time_it, the interpreter's run entries through launch_warm, so neither gets the better minimum.
// A few runs over the same tensors steady the sub-millisecond kernels, whose single runs on a
// shared machine spread by a third. Every launcher here may run again over its own outputs:
// those that accumulate (split-K, the LayerNorm backward's lock) clear their buffers first.
// The same knob as a kernel library's (bv::library::timed_samples), so a library's entries,
// loaded with --lib, take as many runs as the built-in ones.
inline int& bench_samples() { return bv::library::timed_samples(); }

// Seconds taken by f(), run once untimed first: the interpreter's outputs are poisoned (so
// their pages are touched) before it is timed, and the native side gets the same warm memory,
// not a first touch of freshly allocated outputs (page faults were up to half of native add).
template <class F>
double time_it(F&& f) {
  f();
  double best = 1e30;
  for (int i = 0; i < std::max(1, bench_samples()); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

inline double seconds_of(const launch_result& r) { return r.seconds; }
inline double seconds_of(const std::vector<launch_result>& rs) {
  double s = 0;
  for (const auto& r : rs) s += r.seconds;
  return s;
}

// The kernel's launch(es): once outside the bench; under it, one untimed run and then the
// fastest of bench_samples() runs.
template <class F>
auto launch_warm(F&& launch) {
  if (bench_samples() == 0) return launch();
  (void)launch();
  auto best = launch();
  for (int i = 1; i < bench_samples(); ++i) {
    auto r = launch();
    if (seconds_of(r) < seconds_of(best)) best = std::move(r);
  }
  return best;
}

// Poison an output so elements the kernel did not write fail the comparison.
template <class T>
void poison(tensor<T>& t) {
  t.fill(static_cast<T>(std::numeric_limits<float>::quiet_NaN()));
}

}  // namespace bv::cli
