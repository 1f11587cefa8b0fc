// Turning a kernel's output and its reference into a CLI outcome.
#pragma once
#include <chrono>
#include <cmath>

#include "registry.hpp"

namespace bv::cli {

template <class T, class R>
outcome compare_with(const tensor<T>& got, const R& ref, double tol,
                     std::vector<launch_result> launches) {
  outcome o;
  double num = 0, den = 0;
  bool finite = true;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = static_cast<double>(static_cast<float>(got.flat(i)));
    const double r = static_cast<double>(ref[static_cast<size_t>(i)]);
    if (!std::isfinite(g) && std::isfinite(r)) finite = false;
    if (!std::isfinite(g) || !std::isfinite(r)) continue;
    const double e = std::abs(g - r);
    o.max_abs_err = std::max(o.max_abs_err, e);
    num += e * e;
    den += r * r;
  }
  o.rel_err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!finite) o.rel_err = std::numeric_limits<double>::infinity();
  o.tolerance = tol;
  o.match = finite && o.rel_err <= tol;
  o.launches = std::move(launches);
  return o;
}

// Seconds taken by f(), run once untimed first: the interpreter's outputs are poisoned (so
// their pages are touched) before it is timed, and the native side gets the same warm memory,
// not a first touch of freshly allocated outputs (page faults were up to half of native add).
template <class F>
double time_it(F&& f) {
  f();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Set while `blockvec bench` runs: each run entry launches its kernel twice over the same tensors
// and keeps the second launch, so the interpreter is timed warm as time_it times the native side
// (both on memory and page tables the computation has touched). Every launcher here may run
// twice: those that accumulate (split-K, the LayerNorm backward's lock) clear their buffers first.
inline bool& bench_warm() {
  static bool warm = false;
  return warm;
}
template <class F>
auto launch_warm(F&& launch) {
  if (bench_warm()) (void)launch();
  return launch();
}

// Poison an output so elements the kernel did not write fail the comparison.
template <class T>
void poison(tensor<T>& t) {
  t.fill(static_cast<T>(std::numeric_limits<float>::quiet_NaN()));
}

}  // namespace bv::cli
