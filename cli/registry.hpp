// The kernels the blockvec command knows. Each kernel registers one entry (cli/kernels/NAME.cpp):
// how to make random inputs of a size, run the kernel, and compare with its reference; and, for
// `blockvec bench`, a native C++ implementation of the same computation.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bv/bv.hpp"
#include "bv/library/entry.hpp"
#include "emu/emu_runner.hpp"

namespace bv::cli {

// A run's comparison with the reference and its launches: the same type a kernel library's
// entries return (bv/library/compare.hpp), so built-in kernels and a user's print alike.
using outcome = bv::library::outcome;

struct gpu_outcome {
  outcome gpu;
  outcome cpu;  // when the interpreter ran too
  bool cpu_ran = false;
  double gpu_ms = 0;        // device time of the kernel
  double max_abs_diff = 0;  // GPU against interpreter, element by element
  double diff_tolerance = 0;
  bool agree = true;
};

// --backend amd-emu: the emulator's run and the interpreter's on the same inputs.
struct emu_outcome {
  outcome emu;  // its launches carry the emulator's diagnostics
  outcome cpu;
  double max_abs_diff = 0;  // emulator against interpreter, element by element
  double diff_tolerance = 0;
  bool agree = true;
  amd_emu::counts counts;
  double emu_seconds = 0;  // the emulated run's wall time
};

struct kernel_entry {
  std::string name;
  std::string description;
  std::string size_help;              // "N" or "ROWS,COLS" ...
  std::vector<int64_t> default_size;  // for `run` and `demo`
  std::vector<int64_t> bench_size;    // for `bench`
  // "" when a size is accepted, otherwise why not (empty: any size of size_help's arity).
  std::function<std::string(const std::vector<int64_t>& size)> accepts;
  // Make inputs of `size` from `seed`, run on the interpreter, compare with the reference.
  std::function<outcome(const std::vector<int64_t>& size, uint64_t seed)> run;
  // One run of a single-threaded native C++/Eigen implementation of the same computation on
  // inputs of `size`; returns its seconds (inputs made outside the timed part).
  std::function<double(const std::vector<int64_t>& size, uint64_t seed)> native;
  // The same kernel on the GPU backend (empty when the kernel has no GPU entry yet): make the
  // same inputs as `run`, run them on the GPU (and, with `cpu`, on the interpreter too), compare
  // each with the reference and with each other.
  std::function<gpu_outcome(const std::vector<int64_t>& size, uint64_t seed, bool cpu)> run_gpu;
  // The kernel's AMD lowering in the emulator for target t (empty when it has no emulated
  // runner): the same inputs as `run`, on the emulator and on the interpreter, each compared with
  // the reference and with each other.
  std::function<emu_outcome(const std::vector<int64_t>& size, uint64_t seed, target t)> run_amd_emu;
};

std::vector<kernel_entry>& registry();
const kernel_entry* find_kernel(const std::string& name);

// A kernel library's entry (bv/library/entry.hpp) as one of the command's: no GPU or emulator
// runner.
kernel_entry from_library(bv::library::entry e);

// One registration per kernel file: a kernel_entry, or a bv::library::kernel declared the way a
// user's library declares its kernels.
struct registrar {
  explicit registrar(kernel_entry e) { registry().push_back(std::move(e)); }
  template <class In, class Ref>
  explicit registrar(const bv::library::kernel<In, Ref>& k)
      : registrar(from_library(k.to_entry())) {}
  // A built-in library-style kernel with its --backend amd-emu runner.
  template <class In, class Ref, class AmdEmu>
  registrar(const bv::library::kernel<In, Ref>& k, AmdEmu amd_emu) {
    kernel_entry e = from_library(k.to_entry());
    e.run_amd_emu = std::move(amd_emu);
    registry().push_back(std::move(e));
  }
};

// `--lib PATH`: loads a kernel library's entries next to the built-in ones. False, with a message
// naming the file and what to do, when it is not a kernel library or a name is taken.
bool load_library(const std::string& path, std::string& error);

// Sum of the seconds of a run's launches.
inline double seconds(const outcome& o) {
  double s = 0;
  for (auto& l : o.launches) s += l.seconds;
  return s;
}

}  // namespace bv::cli
