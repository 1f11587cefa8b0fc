// The AMD emulator's runtime, host side: run a kernel body on every lane of every workgroup of a
// grid. A workgroup is W waves of 64 lanes, each lane a fiber whose registers are its stack
// locals; workgroups run one after the other on the calling thread. What the run found (the
// checks only a lane-level run can make) and counted comes back in a launch_report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "bv/diagnostic.hpp"
#include "bv/target.hpp"

namespace bv::emu {

// A launch the emulator cannot run (a bad grid, a target it does not emulate), or a primitive
// called outside a launch. A kernel that breaks a rule of the hardware is reported as a
// diagnostic instead (launch_report::diagnostics).
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A tensor of the launch: accesses inside it count as global memory traffic.
struct global_range {
  const void* p = nullptr;
  std::size_t bytes = 0;
};

struct launch_desc {
  const char* kernel = "kernel";
  int grid[3] = {1, 1, 1};  // workgroups along x, y, z
  int waves = 4;            // per workgroup
  target tgt = target::gfx942;
  std::vector<global_range> globals;
  // The kernel's translation unit reports its memory accesses (bv/emu/launch.hpp sets it).
  bool instrumented = false;
};

// What a launch did, counted as the device would execute it. A "wave instruction" is one memory
// access instruction (or wave operation) executed by a wave: the lanes' accesses from the same
// instruction since the wave's last meeting (barrier or wave operation), grouped by the
// instruction's address and how often each lane executed it.
struct counters {
  int64_t mfma = 0;      // MFMA instructions (one per wave)
  int64_t barriers = 0;  // workgroup barriers met (one per barrier a workgroup's waves meet at)
  int64_t bpermutes = 0;
  int64_t global_read_bytes = 0, global_write_bytes = 0;  // inside the launch's tensors
  int64_t lds_read_bytes = 0, lds_write_bytes = 0;
  int64_t lds_instructions = 0;  // wave instructions that access LDS
  // Per LDS wave instruction, served in phases of 128 bytes (32 banks of 4 bytes): a phase takes
  // 128 / max(4, access width) consecutive lanes (32 for b32, 16 for b64, 8 for b128); the
  // phase's extra cycles are the most distinct 4-byte words any one bank serves, minus 1 (lanes
  // reading the same word share it). Summed over phases and instructions.
  int64_t lds_bank_conflicts = 0;
  // Memory instructions (global and LDS) and wave operations, and the lanes active in them.
  int64_t wave_instructions = 0, active_lanes = 0;
  double active_lane_fraction() const {
    return wave_instructions ? static_cast<double>(active_lanes) / (64.0 * wave_instructions) : 0;
  }
  // Sums over launches: every counter is a count, so two launches' are their sum.
  counters& operator+=(const counters& o) {
    mfma += o.mfma;
    barriers += o.barriers;
    bpermutes += o.bpermutes;
    global_read_bytes += o.global_read_bytes;
    global_write_bytes += o.global_write_bytes;
    lds_read_bytes += o.lds_read_bytes;
    lds_write_bytes += o.lds_write_bytes;
    lds_instructions += o.lds_instructions;
    lds_bank_conflicts += o.lds_bank_conflicts;
    wave_instructions += o.wave_instructions;
    active_lanes += o.active_lanes;
    return *this;
  }
};

struct launch_report {
  counters counts;
  std::vector<diagnostic> diagnostics;
  int errors = 0, warnings = 0;
  bool deadlocked = false;  // some workgroup was ended at a meeting that could never complete
  // Whether the memory checks and counters ran (the kernel's translation unit was built with the
  // emulator's access instrumentation: not under ASan or TSan builds).
  bool memory_checked = false;
};

// body(ctx) on every lane (its own fiber) of every workgroup. Checks report into the result;
// a workgroup that cannot go on (a meeting some lanes never reach, LDS the emulator cannot hold)
// is reported and ended, and the launch goes on with the next one. What a lane throws is
// rethrown. Bytes of each lane's stack: BV_EMU_STACK (KiB), or 128 KiB.
launch_report run(const launch_desc& d, void (*body)(void*), void* ctx);

// The target launches emulate (gfx942 unless set): it picks the kernels' launch configurations
// and bounds the LDS; both AMD targets run the same lowering.
target current_target();
void set_target(target t);

// Bytes of static LDS the last launch's kernel took (the sum of its prim::lds buffers, as the
// device packs them), and the last launch's report.
std::size_t last_lds_bytes();
const launch_report& last_report();

// The counters of every launch this thread makes between record_launches(true) and
// record_launches(false) (each call clears them), in order: for launches made where their
// bv::emu::result is not at hand, such as a kernel library's emulated build (its entries return
// the launches' bv::launch_result alone).
struct launch_counts {
  counters counts;
  bool memory_checked = false;
};
void record_launches(bool on);
const std::vector<launch_counts>& recorded_launches();

}  // namespace bv::emu
