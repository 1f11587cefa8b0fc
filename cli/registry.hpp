// The kernels the blockvec command knows. Every built-in kernel registers the way a user's kernel
// library does (bv/kernel_library.hpp): one bv::library::kernel per kernel in cli/kernels/NAME.cpp,
// its input maker, launch, reference and comparison; the parts only the command has (the GPU run,
// the AMD emulator's run) come with that one registration and take the inputs its `make` made.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
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

// A kernel as the command keeps it: a library entry (name, sizes, run, native), built-in or loaded
// with --lib, and the backends only built-in kernels have.
struct kernel_entry : bv::library::entry {
  // --backend gpu|both (empty: no GPU entry): the entry's inputs on the GPU (and, with `cpu`, on
  // the interpreter too), each compared with the reference and with each other.
  std::function<gpu_outcome(const bv::library::sizes& size, uint64_t seed, bool cpu)> run_gpu;
  // --backend amd-emu for target t (empty: no emulated runner): the entry's inputs in the
  // emulator and on the interpreter, each compared with the reference and with each other.
  std::function<emu_outcome(const bv::library::sizes& size, uint64_t seed, target t)> run_amd_emu;
};

std::vector<kernel_entry>& registry();
const kernel_entry* find_kernel(const std::string& name);

// A kernel library's entry as one of the command's: no GPU or emulator runner.
kernel_entry from_library(bv::library::entry e);

// What a built-in kernel has beyond its library entry, each part on the inputs the entry's `make`
// made (size and seed as for `run`), so the backends and the interpreter see the same tensors.
template <class In, class Ref>
struct backends {
  // The GPU run (gpu/host_api.hpp; its no-GPU stubs in a CPU build), finished by finish_gpu
  // (gpu_compare.hpp). It computes its own reference: a GPU entry may run another dtype than
  // the interpreter's entry (attention's runs f16), whose reference differs.
  std::function<gpu_outcome(In& in, bool cpu)> gpu = {};
  // The emulated AMD lowering through emu_compare (cli/emu/emu_compare.hpp); `ref` is the
  // entry's reference on these inputs.
  std::function<emu_outcome(In& in, const Ref& ref, target t)> amd_emu = {};
};

// One registration per kernel, at namespace scope in its file:
//   registrar reg{bv::library::kernel<io, ref_t>{...}, {.gpu = ..., .amd_emu = ...}};
struct registrar {
  template <class In, class Ref>
  explicit registrar(const bv::library::kernel<In, Ref>& k,
                     std::type_identity_t<backends<In, Ref>> b = {}) {
    kernel_entry e = from_library(k.to_entry());
    if (b.gpu)
      e.run_gpu = [make = k.make, gpu = std::move(b.gpu)](const bv::library::sizes& s,
                                                          uint64_t seed, bool cpu) {
        In in = make(s, seed);
        return gpu(in, cpu);
      };
    if (b.amd_emu)
      e.run_amd_emu = [make = k.make, reference = k.reference, emu = std::move(b.amd_emu)](
                          const bv::library::sizes& s, uint64_t seed, target t) {
        In in = make(s, seed);
        const Ref ref = reference(in);
        return emu(in, ref, t);
      };
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
