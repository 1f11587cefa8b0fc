// What a launch reports, the same on every backend: the kernel (its name with template
// arguments), the programs run, the launch configuration (waves per program, threads, target),
// the time, and what the checks found. On the GPU the checks' fields stay empty (a failed launch
// throws instead); ok() means the same everywhere: the kernel ran to its end and no check
// reported an error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bv/diagnostic.hpp"
#include "bv/target.hpp"

namespace bv {

struct launch_result {
  std::string kernel;
  int64_t programs = 0;
  int waves = 0;                // per program
  int threads_per_program = 0;  // waves times the target's wave size
  target tgt = default_target;  // the target whose configuration and layout the launch used
  double seconds = 0;           // on the GPU: filled by launches made with timing on
  int errors = 0, warnings = 0;
  int notes = 0;  // performance notes reported (with notes on)
  bool deadlocked = false;
  bool quit = false;  // the user quit at a breakpoint
  std::vector<diagnostic> diagnostics;
  bool ok() const { return errors == 0 && !deadlocked && !quit; }
};

}  // namespace bv
