// The emulator's state while a launch runs, shared by the scheduler (workgroup.cpp), the memory
// checks and counters (access.cpp) and the source locations of reports (where.cpp). Internal to
// emulator/src.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "bv/diagnostic.hpp"
#include "bv/emu/device.hpp"
#include "bv/emu/runtime.hpp"
#include "fiber.hpp"  // interpreter/src: lanes run on the interpreter's fibers

namespace bv::emu::detail {

constexpr int wave_size = 64;

enum class wait : uint8_t { none, bpermute, mfma, barrier };

// Where a lane is in the kernel's source: the innermost frame outside the library's own headers.
struct source_where {
  std::string file, function;
  int line = 0;
};

// One memory access a lane made since the last scheduler pass, for the per-wave counters.
struct access_rec {
  uintptr_t pc;    // the accessing instruction
  uintptr_t addr;  // LDS: the device byte offset; global: the host address
  uint32_t size;   // bytes
  uint8_t lds;     // 1: LDS, 0: global
  uint8_t write;   // 1: store
};

struct lane {
  bv::detail::fiber_slot* fiber = nullptr;
  unsigned tid = 0;
  bool done = false;
  wait at = wait::none;
  uintptr_t wait_pc = 0;  // the kernel's call site of the meeting it waits at
  // Asked by the scheduler to say where it waits (want_where), it fills `where` and waits on.
  bool want_where = false;
  source_where where;
  // The operands of the wave operation it waits at, and its result.
  int perm_addr = 0, perm_value = 0, perm_out = 0;
  mfma_op op = mfma_op::f32_32x32x8f16;
  alignas(16) unsigned char a[8] = {}, b[8] = {};
  float c[16] = {}, d[16] = {};
  std::vector<access_rec> log;  // accesses since the last scheduler pass
};

// One static LDS buffer of the kernel: where the device would put it (offset, packed as the
// compiler packs them) and where the emulator keeps it (host offset in its arena, followed by a
// red zone that catches overruns).
struct lds_buffer {
  std::size_t dev_offset = 0, host_offset = 0, bytes = 0;
};

// A diagnostic being collected: reports of the same check at the same instruction merge into one
// (its lanes from the first workgroup and wave that hit it; the others counted).
struct pending_diag {
  diagnostic d;
  int64_t count = 1;
  unsigned wg[3] = {0, 0, 0};
  int wave = -1;
};

// What every workgroup of a launch shares.
struct launch_state {
  launch_desc desc;
  // hsa_kernel_dispatch_packet_t: u16 workgroup_size_{x,y,z} at byte 4, u32 grid_size_{x,y,z}
  // (work-items) at byte 12; the rest is not read.
  alignas(64) unsigned char packet[64] = {};
  std::mutex mu;
  std::map<const void*, int> lds_index;  // prim::lds's key -> buffers[i]
  std::vector<lds_buffer> buffers;
  std::size_t lds_dev_used = 0, lds_host_used = 0, lds_capacity = 0;
  // The host arena: a guard, the buffers and their red zones, a guard. Accesses anywhere in it
  // outside a buffer are out of bounds.
  std::unique_ptr<unsigned char[]> arena;
  std::size_t arena_bytes = 0;
  unsigned char* lds_base = nullptr;  // arena + front guard: host offset 0
  // Per byte of the arena past the front guard: written in this workgroup.
  std::vector<uint8_t> written;
  // Per 2-byte half-word: the last writer wave and its barrier epoch; the waves that read it in
  // the epoch `read_epoch`.
  struct word_state {
    uint32_t write_epoch = 0, read_epoch = 0;
    uint16_t readers = 0;
    int8_t writer = -1;
  };
  std::vector<word_state> words;
  uint32_t epoch = 1;  // increases at every barrier of every workgroup
  // Global memory: the launch's tensors; lo/hi bound them all.
  uintptr_t global_lo = 0, global_hi = 0;
  std::vector<global_range> globals;
  // A write that met another wave's access in its epoch: a race only if it changed the word
  // (replicated layouts have several waves store the same value), known once the lane has run.
  struct pending_write {
    std::size_t word;  // host half-word index
    uint16_t old;      // the half-word before the write
    uintptr_t pc;
    int tid, other;
    bool after_write;  // the other wave wrote the word (else it read it)
    std::size_t dev, size;
  };
  std::vector<pending_write> pending;
  std::unordered_map<uintptr_t, source_where> where_cache;  // per instruction, for pending ones
  counters counts;
  std::vector<pending_diag> diags;
  std::unordered_map<std::string, int> diag_index;  // kind + instruction -> diags[i]
  int64_t dropped = 0;                              // reports past the cap
  bool deadlocked = false;                          // a workgroup was ended at a meeting
};

struct workgroup {
  launch_state* launch = nullptr;
  unsigned id[3] = {0, 0, 0};
  std::vector<lane> lanes;
  void (*body)(void*) = nullptr;
  void* ctx = nullptr;
  std::exception_ptr failure;
  bool ended = false;  // a check ended it (an LDS allocation the arena cannot hold)
};

// Thrown on a lane to end its workgroup after a report; caught by the lane's entry.
struct end_workgroup {};

extern thread_local workgroup* t_wg;
extern thread_local lane* t_lane;

// ---- access.cpp
// ---------------------------------------------------------------------------------- Prepare the
// LDS arena and checks for a launch, and reset them for a workgroup.
void lds_launch_init(launch_state& L);
void lds_workgroup_reset(launch_state& L);
void lds_barrier(launch_state& L);
// The host address of prim::lds's buffer `key` of `bytes` in the calling lane's workgroup.
void* lds_buffer_for(const void* key, std::size_t bytes);
// Fold the lanes' access logs into the counters (per wave instruction: active lanes, bank
// conflicts) and clear them.
void flush_logs(workgroup& wg);
// Record a report; `instr` merges repeats (the same check at the same instruction).
void report(launch_state& L, const workgroup& wg, int wave, std::vector<int> lanes,
            const std::string& kind, severity sev, uintptr_t instr, const std::string& headline,
            const source_where& at, const std::string& detail, const std::string& hint);
std::string lane_list(const std::vector<int>& ls);

// ---- where.cpp
// ----------------------------------------------------------------------------------- The calling
// lane's place in the kernel's source (call on the lane's own stack).
source_where where_here();

}  // namespace bv::emu::detail
