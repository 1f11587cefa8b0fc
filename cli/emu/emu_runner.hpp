// The blockvec command's side of --backend amd-emu: library kernels run through their AMD
// lowering in the emulator (the runners in cli/emu/run_*.cpp, emulated translation units in their
// own library). Values cross as plain numbers and shapes, never as either backend's tensor types,
// since the command's own translation units are the interpreter's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bv/launch_result.hpp"
#include "bv/target.hpp"

namespace bv::cli::amd_emu {

// One tensor's shape and values: `values` for floating-point tensors (f16 and bf16 values exact in
// f32), `ints` for int32 ones.
struct array {
  std::vector<int64_t> shape;
  std::vector<float> values;
  std::vector<int32_t> ints;
};

// The emulator's counters, summed over a run's launches.
struct counts {
  int64_t mfma = 0, barriers = 0;
  int64_t global_read_bytes = 0, global_write_bytes = 0;
  int64_t lds_read_bytes = 0, lds_write_bytes = 0;
  int64_t lds_bank_conflicts = 0;
  int64_t wave_instructions = 0, active_lanes = 0;
  bool memory_checked = false;  // the memory checks and counters ran in every launch
  int64_t launches = 0;
  double active_lane_fraction() const {
    return wave_instructions ? static_cast<double>(active_lanes) / (64.0 * wave_instructions) : 0;
  }
  // One launch's counters (an emu::counters, whose names these are: this header stays free of the
  // emulator's types) and whether its memory checks ran.
  template <class C>
  void add(const C& e, bool checked) {
    mfma += e.mfma;
    barriers += e.barriers;
    global_read_bytes += e.global_read_bytes;
    global_write_bytes += e.global_write_bytes;
    lds_read_bytes += e.lds_read_bytes;
    lds_write_bytes += e.lds_write_bytes;
    lds_bank_conflicts += e.lds_bank_conflicts;
    wave_instructions += e.wave_instructions;
    active_lanes += e.active_lanes;
    memory_checked = launches++ == 0 ? checked : memory_checked && checked;
  }
};

struct run_result {
  std::vector<array> outputs;           // in the order the runner documents
  std::vector<launch_result> launches;  // with the emulator's diagnostics
  counts totals;
  double seconds = 0;  // wall time of the runner: its launches, and its tensor copies (small)
};

// Whether kernel `name` (a `blockvec list` name) has an emulated runner.
bool has(const std::string& name);
// The kernels that have one.
std::vector<std::string> names();
// Runs `name` on `inputs` (and the integer `params` some runners take: strides, seeds) for AMD
// target t (gfx942 or gfx90a); outputs start as NaN bytes, so an element the kernel does not
// write fails its comparison. Throws std::invalid_argument on unknown names or inputs that do not
// fit the runner.
run_result run(const std::string& name, target t, const std::vector<array>& inputs,
               const std::vector<int64_t>& params = {});

// A kernel library's emulated build (NAME.amd-emu.so) runs in this program's emulator: its run
// goes between these two, on one thread. begin: the emulator's target set to t (gfx942 or gfx90a),
// its printing off, its launches' counters recorded. end: the previous target back, and the
// counters of the last `launches` launches summed (a run under `bench` launches more often than
// it reports; repeated launches over the same inputs count the same).
void begin_library_run(target t);
counts end_library_run(size_t launches);

}  // namespace bv::cli::amd_emu
