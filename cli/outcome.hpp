// Turning a kernel's output and its reference into a CLI outcome.
#pragma once
#include <limits>

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

// The measurements themselves are the library's (bv/library/entry.hpp), which every entry's run
// and native go through: time_it (one untimed run, then the fastest of bench_samples()) and
// launch_warm (once outside the bench; under it, an untimed launch and the fastest of
// bench_samples()).
using bv::library::launch_warm;
using bv::library::time_it;

// Poison an output so elements the kernel did not write fail the comparison.
template <class T>
void poison(tensor<T>& t) {
  t.fill(static_cast<T>(std::numeric_limits<float>::quiet_NaN()));
}

}  // namespace bv::cli
