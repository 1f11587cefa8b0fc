// The emulator's scheduler: a workgroup's lanes run on fibers, one OS thread per workgroup. A lane
// runs until it reaches a wave operation (ds_bpermute, MFMA), the barrier, or its end; when every
// lane is stopped, each wave whose lanes all wait at the same wave operation performs it on all
// their operands at once (lockstep, as the hardware does), and when every lane still running
// waits at the barrier, the barrier opens. Anything else is a kernel that would hang or compute
// garbage on the device, and is reported.
#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bv/emu/device.hpp"
#include "bv/emu/mfma.hpp"
#include "bv/emu/runtime.hpp"
#include "fiber.hpp"

namespace bv::emu {
namespace {

constexpr int wave_size = 64;

enum class wait : uint8_t { none, bpermute, mfma, barrier };

const char* wait_name(wait w) {
  switch (w) {
    case wait::bpermute:
      return "a shuffle (ds_bpermute)";
    case wait::mfma:
      return "an MFMA";
    case wait::barrier:
      return "the barrier";
    default:
      return "nothing";
  }
}

struct lane {
  detail::fiber_slot* fiber = nullptr;
  unsigned tid = 0;
  bool done = false;
  wait at = wait::none;
  // The operands of the wave operation it waits at, and its result.
  int perm_addr = 0, perm_value = 0, perm_out = 0;
  mfma_op op = mfma_op::f32_32x32x8f16;
  alignas(16) unsigned char a[8] = {}, b[8] = {};
  float c[16] = {}, d[16] = {};
};

// What every workgroup of a launch shares: the dispatch packet and the static LDS map.
struct launch_state {
  launch_desc desc;
  // hsa_kernel_dispatch_packet_t: u16 workgroup_size_{x,y,z} at byte 4, u32 grid_size_{x,y,z}
  // (work-items) at byte 12; the rest is not read.
  alignas(64) unsigned char packet[64] = {};
  std::mutex lds_mu;
  std::map<const void*, std::size_t> lds_offsets;
  std::size_t lds_used = 0, lds_capacity = 0;
};

struct workgroup {
  launch_state* launch = nullptr;
  unsigned id[3] = {0, 0, 0};
  std::vector<lane> lanes;
  unsigned char* lds = nullptr;
  void (*body)(void*) = nullptr;
  void* ctx = nullptr;
  std::exception_ptr failure;
};

thread_local workgroup* t_wg = nullptr;
thread_local lane* t_lane = nullptr;

std::atomic<int> g_target{static_cast<int>(target::gfx942)};
std::atomic<std::size_t> g_last_lds{0};

lane& current() {
  if (!t_lane)
    throw error(
        "blockvec emulator: a device primitive was called outside an emulated launch (call "
        "kernels through bv::launch in a translation unit compiled with BV_AMD_EMU=1)");
  return *t_lane;
}

std::string where(const workgroup& wg) {
  return std::string("kernel ") + wg.launch->desc.kernel + ", workgroup (" +
         std::to_string(wg.id[0]) + "," + std::to_string(wg.id[1]) + "," +
         std::to_string(wg.id[2]) + ")";
}

// Stop this lane until the scheduler has done what it waits at.
void wait_at(lane& l, wait w) {
  l.at = w;
  detail::fiber_yield(l.fiber);
}

void lane_main(void* p) {
  lane& l = *static_cast<lane*>(p);
  try {
    t_wg->body(t_wg->ctx);
  } catch (const boost::context::detail::forced_unwind&) {
    throw;
  } catch (...) {
    if (!t_wg->failure) t_wg->failure = std::current_exception();
  }
  l.done = true;
}

// Lanes [lo, hi) of a wave as "lanes 3-17" for messages.
std::string lane_list(const std::vector<int>& ls) {
  std::string s;
  for (size_t i = 0; i < ls.size();) {
    size_t j = i;
    while (j + 1 < ls.size() && ls[j + 1] == ls[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(ls[i]);
    if (j > i) s += "-" + std::to_string(ls[j]);
    i = j + 1;
  }
  return s;
}

void run_mfma(lane* w) {
  const mfma_op op = w[0].op;
  float c[wave_size][16], d[wave_size][16];
  for (int l = 0; l < wave_size; ++l) std::memcpy(c[l], w[l].c, sizeof c[l]);
  if (op == mfma_op::f32_32x32x8f16) {
    _Float16 a[wave_size][4], b[wave_size][4];
    for (int l = 0; l < wave_size; ++l) {
      std::memcpy(a[l], w[l].a, 8);
      std::memcpy(b[l], w[l].b, 8);
    }
    mfma::f32_32x32x8f16(a, b, c, d);
  } else if (op == mfma_op::f32_32x32x8bf16_1k) {
    uint16_t a[wave_size][4], b[wave_size][4];
    for (int l = 0; l < wave_size; ++l) {
      std::memcpy(a[l], w[l].a, 8);
      std::memcpy(b[l], w[l].b, 8);
    }
    mfma::f32_32x32x8bf16_1k(a, b, c, d);
  } else {
    float a[wave_size], b[wave_size];
    for (int l = 0; l < wave_size; ++l) {
      std::memcpy(&a[l], w[l].a, 4);
      std::memcpy(&b[l], w[l].b, 4);
    }
    mfma::f32_32x32x2f32(a, b, c, d);
  }
  for (int l = 0; l < wave_size; ++l) std::memcpy(w[l].d, d[l], sizeof d[l]);
}

// Performs the wave operation wave `wi` waits at, if all its running lanes wait at the same one.
// Returns whether it did; throws if the wave's lanes disagree in a way that cannot resolve.
bool step_wave(workgroup& wg, int wi) {
  lane* w = wg.lanes.data() + wi * wave_size;
  wait kind = wait::none;
  std::vector<int> done, other;
  for (int l = 0; l < wave_size; ++l) {
    if (w[l].done) {
      done.push_back(l);
      continue;
    }
    if (kind == wait::none) kind = w[l].at;
  }
  if (kind != wait::bpermute && kind != wait::mfma) return false;
  for (int l = 0; l < wave_size; ++l)
    if (!w[l].done && (w[l].at != kind || (kind == wait::mfma && w[l].op != w[0].op)))
      other.push_back(l);
  if (!other.empty()) {
    // Lanes at a barrier may still be waiting for the rest of the workgroup; the scheduler
    // reports the wave only if nothing else can move.
    return false;
  }
  if (!done.empty())
    throw error("blockvec emulator: " + where(wg) + ", wave " + std::to_string(wi) + ": lanes " +
                lane_list(done) + " ended while the others reached " + wait_name(kind) +
                "; a wave operation needs every lane of the wave");
  if (kind == wait::bpermute) {
    int v[wave_size];
    for (int l = 0; l < wave_size; ++l) v[l] = w[l].perm_value;
    // ds_bpermute_b32: lane l reads lane (addr / 4) mod 64 of its own wave.
    for (int l = 0; l < wave_size; ++l) w[l].perm_out = v[(w[l].perm_addr >> 2) & (wave_size - 1)];
  } else {
    run_mfma(w);
  }
  for (int l = 0; l < wave_size; ++l) w[l].at = wait::none;
  return true;
}

[[noreturn]] void report_stuck(const workgroup& wg) {
  std::string msg = "blockvec emulator: " + where(wg) + " cannot go on:";
  const int waves = static_cast<int>(wg.lanes.size()) / wave_size;
  for (int wi = 0; wi < waves; ++wi) {
    std::map<std::string, std::vector<int>> by;
    for (int l = 0; l < wave_size; ++l) {
      const lane& x = wg.lanes[wi * wave_size + l];
      by[x.done ? std::string("ended") : std::string("at ") + wait_name(x.at)].push_back(l);
    }
    msg += " wave " + std::to_string(wi) + ":";
    for (auto& [what, ls] : by) msg += " lanes " + lane_list(ls) + " " + what + ";";
  }
  msg +=
      " (every lane of a wave must reach the same wave operation, and every running lane of the "
      "workgroup the barrier)";
  throw error(msg);
}

void discard_all(workgroup& wg) {
  for (auto& l : wg.lanes)
    if (l.fiber && !l.done) {
      detail::fiber_discard(l.fiber);
      l.fiber = nullptr;
    }
}

void run_workgroup(workgroup& wg, std::size_t stack_bytes) {
  t_wg = &wg;
  const int n = static_cast<int>(wg.lanes.size());
  for (int i = 0; i < n; ++i) {
    lane& l = wg.lanes[i];
    l = lane{};
    l.tid = static_cast<unsigned>(i);
    l.fiber = detail::fiber_create(stack_bytes, lane_main, &l);
  }
  struct guard {
    workgroup& wg;
    ~guard() {
      discard_all(wg);
      t_lane = nullptr;
      t_wg = nullptr;
    }
  } g{wg};
  for (;;) {
    for (auto& l : wg.lanes) {
      if (l.done || l.at != wait::none) continue;
      t_lane = &l;
      if (detail::fiber_resume(l.fiber)) l.fiber = nullptr;  // finished (the fiber is parked)
      t_lane = nullptr;
      if (wg.failure) std::rethrow_exception(wg.failure);
    }
    bool moved = false;
    for (int wi = 0; wi < n / wave_size; ++wi) moved = step_wave(wg, wi) || moved;
    if (moved) continue;
    bool any_running = false, all_at_barrier = true;
    for (auto& l : wg.lanes)
      if (!l.done) {
        any_running = true;
        all_at_barrier = all_at_barrier && l.at == wait::barrier;
      }
    if (!any_running) return;
    if (!all_at_barrier) report_stuck(wg);
    for (auto& l : wg.lanes) l.at = wait::none;
  }
}

std::size_t stack_bytes_from_env() {
  if (const char* s = std::getenv("BV_EMU_STACK")) {
    char* end = nullptr;
    const long kib = std::strtol(s, &end, 10);
    if (end == s || *end != '\0' || kib < 16 || kib > 65536)
      throw error(std::string("blockvec emulator: BV_EMU_STACK must be a number of KiB from 16 to "
                              "65536, not '") +
                  s + "'");
    return static_cast<std::size_t>(kib) * 1024;
  }
  return 128 * 1024;
}

}  // namespace

// ---- The lane's side (bv/emu/device.hpp). ------------------------------------------------------
unsigned workitem_id() { return current().tid; }
unsigned workgroup_id(int axis) {
  current();
  return t_wg->id[axis < 0 ? 0 : (axis > 2 ? 2 : axis)];
}
const void* dispatch_packet() {
  current();
  return t_wg->launch->packet;
}
int bpermute(int byte_addr, int value) {
  lane& l = current();
  l.perm_addr = byte_addr;
  l.perm_value = value;
  wait_at(l, wait::bpermute);
  return l.perm_out;
}
void barrier() { wait_at(current(), wait::barrier); }
void* lds_static(const void* key, std::size_t bytes) {
  current();
  launch_state& L = *t_wg->launch;
  std::size_t off;
  {
    std::lock_guard lk(L.lds_mu);
    auto it = L.lds_offsets.find(key);
    if (it == L.lds_offsets.end()) {
      off = (L.lds_used + 15) / 16 * 16;
      if (off + bytes > L.lds_capacity)
        throw error("blockvec emulator: " + where(*t_wg) + " needs " + std::to_string(off + bytes) +
                    " bytes of static LDS, more than the " + std::to_string(L.lds_capacity) +
                    " a workgroup has on " + target_name(L.desc.tgt));
      L.lds_used = off + bytes;
      L.lds_offsets.emplace(key, off);
    } else {
      off = it->second;
    }
  }
  return t_wg->lds + off;
}
void wave_mfma(mfma_op op, const void* a, const void* b, const float* c, float* d, int cbsz,
               int abid, int blgp) {
  lane& l = current();
  if (cbsz != 0 || abid != 0 || blgp != 0)
    throw error("blockvec emulator: " + where(*t_wg) +
                ": MFMA with CBSZ/ABID/BLGP other than 0 is not emulated");
  const std::size_t in = op == mfma_op::f32_32x32x2f32 ? 4 : 8;
  l.op = op;
  std::memcpy(l.a, a, in);
  std::memcpy(l.b, b, in);
  std::memcpy(l.c, c, sizeof l.c);
  wait_at(l, wait::mfma);
  std::memcpy(d, l.d, sizeof l.d);
}

// ---- The host's side (bv/emu/runtime.hpp). -----------------------------------------------------
void run(const launch_desc& d, void (*body)(void*), void* ctx) {
  if (t_lane) throw error("blockvec emulator: a launch from inside a kernel is not supported");
  if (d.waves < 1 || d.waves > 16)
    throw error(std::string("blockvec emulator: ") + d.kernel +
                ": a workgroup has 1 to 16 waves, not " + std::to_string(d.waves));
  for (int a = 0; a < 3; ++a)
    if (d.grid[a] < 0)
      throw error(std::string("blockvec emulator: ") + d.kernel + ": negative grid dimension");
  if (!is_amd(d.tgt))
    throw error(std::string("blockvec emulator: ") + d.kernel +
                ": the emulator runs the AMD targets (gfx942, gfx90a), not " + target_name(d.tgt));
  const std::size_t stack = stack_bytes_from_env();
  auto L = std::make_unique<launch_state>();
  L->desc = d;
  L->lds_capacity = static_cast<std::size_t>(lds_bytes_of(d.tgt));
  const uint16_t wg_size[3] = {static_cast<uint16_t>(d.waves * wave_size), 1, 1};
  const uint32_t grid_size[3] = {static_cast<uint32_t>(d.grid[0]) * wg_size[0],
                                 static_cast<uint32_t>(d.grid[1]),
                                 static_cast<uint32_t>(d.grid[2])};
  std::memcpy(L->packet + 4, wg_size, sizeof wg_size);
  std::memcpy(L->packet + 12, grid_size, sizeof grid_size);
  // LDS starts as NaN bytes (0xff: NaN as f32, f16 and bf16, -1 as an integer) in every
  // workgroup, so a read before a write shows.
  std::unique_ptr<unsigned char[]> lds(new unsigned char[L->lds_capacity]);
  workgroup wg;
  wg.launch = L.get();
  wg.lanes.resize(static_cast<std::size_t>(d.waves) * wave_size);
  wg.lds = lds.get();
  wg.body = body;
  wg.ctx = ctx;
  for (int z = 0; z < d.grid[2]; ++z)
    for (int y = 0; y < d.grid[1]; ++y)
      for (int x = 0; x < d.grid[0]; ++x) {
        std::memset(lds.get(), 0xff, L->lds_capacity);
        wg.id[0] = static_cast<unsigned>(x);
        wg.id[1] = static_cast<unsigned>(y);
        wg.id[2] = static_cast<unsigned>(z);
        run_workgroup(wg, stack);
      }
  g_last_lds = L->lds_used;
}

target current_target() { return static_cast<target>(g_target.load()); }
void set_target(target t) {
  if (!is_amd(t))
    throw error(std::string("blockvec emulator: emulates gfx942 and gfx90a, not ") +
                target_name(t));
  g_target = static_cast<int>(t);
}
std::size_t last_lds_bytes() { return g_last_lds; }

}  // namespace bv::emu
