// The AMD emulator's runtime, host side: run a kernel body on every lane of every workgroup of a
// grid. A workgroup is W waves of 64 lanes, each lane a fiber whose registers are its stack
// locals; workgroups run one after the other on the calling thread.
#pragma once
#include <cstddef>
#include <stdexcept>

#include "bv/target.hpp"

namespace bv::emu {

// A launch the emulator cannot run, or a kernel that breaks a rule of the hardware it emulates
// (a wave collective not reached by every lane of the wave, a deadlock at a barrier, LDS beyond
// the target's capacity). The message names the kernel, the workgroup and the lanes.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct launch_desc {
  const char* kernel = "kernel";
  int grid[3] = {1, 1, 1};  // workgroups along x, y, z
  int waves = 4;            // per workgroup
  target tgt = target::gfx942;
};

// body(ctx) on every lane (its own fiber) of every workgroup; throws emu::error when the kernel
// breaks a rule, rethrows what a lane threw. Bytes of each lane's stack: BV_EMU_STACK (KiB), or
// 128 KiB.
void run(const launch_desc& d, void (*body)(void*), void* ctx);

// The target launches emulate (gfx942 unless set): it picks the kernels' launch configurations
// and bounds the LDS; both AMD targets run the same lowering.
target current_target();
void set_target(target t);

// Bytes of static LDS the last launch's kernel took (the sum of its prim::lds buffers).
std::size_t last_lds_bytes();

}  // namespace bv::emu
