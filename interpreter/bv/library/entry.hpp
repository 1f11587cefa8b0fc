// A kernel entry: what the blockvec command and the viewer need to run a kernel on random inputs
// and check it. Built-in kernels and a user's library (bv/kernel_library.hpp) declare the same
// thing, usually through bv::library::kernel, which takes the parts a kernel author writes anyway:
// an input maker, the launch, a reference and which outputs to compare.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bv/library/compare.hpp"

namespace bv::library {

using sizes = std::vector<int64_t>;

// The type-erased entry, what a host keeps.
struct entry {
  std::string name;
  std::string description;
  std::string size_help;  // "N", "ROWS,COLS": one word per number of a size
  sizes default_size;     // for `run`, `demo` and the viewer
  sizes bench_size;       // for `bench`; empty: the default
  // "" when a size is accepted, otherwise why not ("COLS above 8192 does not fit one block").
  // Empty function: every size with as many numbers as size_help has words.
  std::function<std::string(const sizes&)> accepts;
  // Make inputs of `size` from `seed`, launch on the interpreter, compare with the reference.
  std::function<outcome(const sizes& size, uint64_t seed)> run;
  // The reference (or another native implementation) alone, on inputs of `size` made outside the
  // timed part; its seconds. blockvec bench divides the interpreter's times by it.
  std::function<double(const sizes& size, uint64_t seed)> native;
};

// Numbers a size of this entry has: one per word of size_help ("ROWS,COLS" -> 2).
inline int size_rank(const std::string& size_help) {
  int n = 1;
  for (char c : size_help) n += c == ',';
  return n;
}

// Why `size` cannot run on `e`, or "" when it can: its number count, then the entry's own rule.
inline std::string refusal(const entry& e, const sizes& size) {
  if (static_cast<int>(size.size()) != size_rank(e.size_help))
    return "takes --size " + e.size_help + " (" + std::to_string(size_rank(e.size_help)) +
           " number(s)), got " + std::to_string(size.size());
  for (int64_t v : size)
    if (v < 1) return "a size below 1";
  return e.accepts ? e.accepts(size) : std::string();
}

// How many timed launches (and reference runs) a measurement takes over the same inputs, after
// one untimed run; 0 outside `blockvec bench`: one launch, no warm-up. Each shared object keeps
// its own (hidden): the host sets it for its built-in kernels, a library's run sets it from what
// the host passes through the ABI.
__attribute__((visibility("hidden"))) inline int& timed_samples() {
  static int n = 0;
  return n;
}

// A launch's results, from a kernel that launches once or several times.
struct launches : std::vector<launch_result> {
  launches() = default;
  launches(launch_result r) { push_back(std::move(r)); }  // NOLINT: either form converts
  launches(std::vector<launch_result> rs) : std::vector<launch_result>(std::move(rs)) {}  // NOLINT
  double seconds() const {
    double s = 0;
    for (const auto& r : *this) s += r.seconds;
    return s;
  }
};

// f() once outside the bench; under it, one untimed run and the fastest of timed_samples().
// Launches over the same inputs again: a kernel that accumulates into its outputs clears them.
template <class F>
launches launch_warm(F&& f) {
  if (timed_samples() == 0) return f();
  (void)f();
  launches best = f();
  for (int i = 1; i < timed_samples(); ++i) {
    launches r = f();
    if (r.seconds() < best.seconds()) best = std::move(r);
  }
  return best;
}

// Seconds f() takes: one untimed run first (pages touched, caches warm as the interpreter's
// inputs are), then the fastest of max(1, timed_samples()).
template <class F>
double time_it(F&& f) {
  f();
  double best = 1e30;
  for (int i = 0; i < std::max(1, timed_samples()); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// A kernel as its author declares it. In: the inputs and outputs of one run (a struct of tensors);
// Ref: what the reference makes (a std::vector<double>, or a struct of them). The reference sees
// the In the launch ran on, after it: a kernel that updates a tensor in place keeps a copy of
// the original in In for its reference.
//   bv::library::kernel<in, std::vector<double>>{
//       .name = "shift_add", .description = "...", .size_help = "N", .default_size = {1000},
//       .make = [](const sizes& s, uint64_t seed) { return in{randn x, output out}; },
//       .launch = [](in& a) { return bv::launch<...>(...); },
//       .reference = [](const in& a) { return ref::shift_add(a.x); },
//       .compare = [](checker& c, const in& a, const std::vector<double>& r) {
//         c.expect(a.out, r, 1e-6); }}
template <class In, class Ref>
struct kernel {
  // The members with a default may be left out of a designated initializer without a
  // -Wmissing-field-initializers warning; those without one are required.
  std::string name;
  std::string description = {};
  std::string size_help = "N";
  sizes default_size;
  sizes bench_size = {};                                  // empty: the default size
  std::function<std::string(const sizes&)> accepts = {};  // "" or why not; empty: any size
  std::function<In(const sizes& size, uint64_t seed)> make;
  std::function<launches(In&)> launch;
  std::function<Ref(const In&)> reference;
  std::function<void(checker&, const In&, const Ref&)> compare;
  std::string note = {};  // shown with each run, e.g. "f16 inputs"
  // blockvec bench's native column when the reference is not the implementation to compare with
  // (a faster one, with Eigen, say): given inputs `make` made, it prepares what is not to be
  // timed (scratch buffers, statistics a backward takes) and returns the work that is, which
  // writes the outputs. Empty: the reference, timed.
  std::function<std::function<void()>(In&)> native = {};

  entry to_entry() const {
    if (name.empty() || default_size.empty() || !make || !launch || !reference || !compare)
      throw std::invalid_argument("kernel entry '" + name +
                                  "' needs a name, default_size, make, launch, reference and "
                                  "compare");
    entry e{name, description, size_help, default_size, bench_size, accepts, {}, {}};
    const kernel k = *this;
    e.run = [k](const sizes& size, uint64_t seed) {
      In in = k.make(size, seed);
      launches ls = launch_warm([&] { return k.launch(in); });
      const Ref ref = k.reference(in);
      checker c;
      k.compare(c, in, ref);
      if (!c.any())
        throw std::logic_error("kernel entry '" + k.name + "' compared no output (call expect)");
      outcome o = c.result();
      o.launches = std::move(ls);
      o.note = c.note().empty() ? k.note : c.note();
      return o;
    };
    if (k.native) {
      e.native = [k](const sizes& size, uint64_t seed) {
        In in = k.make(size, seed);
        const std::function<void()> work = k.native(in);
        return time_it(work);
      };
      return e;
    }
    e.native = [k](const sizes& size, uint64_t seed) {
      const In in = k.make(size, seed);
      return time_it([&] {
        const Ref r = k.reference(in);
        asm volatile("" : : "g"(&r) : "memory");  // the result is used: not optimised away
      });
    };
    return e;
  }
};

// The entries this shared object registers (a library's kernels; in the blockvec command, its
// built-in ones are in its own registry). Hidden: a library's and its host's never mix.
__attribute__((visibility("hidden"))) inline std::vector<entry>& registered() {
  static std::vector<entry> r;
  return r;
}

// Why a registration of this shared object failed (an entry missing a required part), or empty.
__attribute__((visibility("hidden"))) inline std::string& registration_error() {
  static std::string e;
  return e;
}

// One registration per kernel, at namespace scope in its file:
//   static bv::library::registration reg{bv::library::kernel<in, ref_t>{...}};
// It runs while the program starts or the library loads, where an exception would end the
// process: a malformed entry is said on stderr and kept in registration_error() instead, which a
// host loading the library reports as the reason it cannot.
struct registration {
  explicit registration(entry e) { registered().push_back(std::move(e)); }
  template <class In, class Ref>
  explicit registration(const kernel<In, Ref>& k) {
    try {
      registered().push_back(k.to_entry());
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "blockvec kernel library: %s\n", ex.what());
      if (registration_error().empty()) registration_error() = ex.what();
    }
  }
};

}  // namespace bv::library
