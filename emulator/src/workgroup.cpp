// The emulator's scheduler: a workgroup's lanes run on fibers, one OS thread per workgroup. A lane
// runs until it reaches a wave operation (ds_bpermute, MFMA), the barrier, or its end; when every
// lane is stopped, each wave whose lanes all wait at the same wave operation performs it on all
// their operands at once (lockstep, as the hardware does), and when every lane waits at the same
// barrier, the barrier opens. A workgroup that can go on neither way would hang or compute
// garbage on the device: it is reported (which lanes wait where, at which source lines) and
// ended, and the launch goes on with the next workgroup.
#include <atomic>
#include <boost/context/fiber.hpp>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bv/emu/device.hpp"
#include "bv/emu/mfma.hpp"
#include "bv/emu/runtime.hpp"
#include "state.hpp"

namespace bv::emu {
namespace detail {
thread_local workgroup* t_wg = nullptr;
thread_local lane* t_lane = nullptr;
}  // namespace detail

namespace {
using namespace detail;

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

std::atomic<int> g_target{static_cast<int>(target::gfx942)};
thread_local std::size_t t_last_lds = 0;
thread_local launch_report t_last_report;
thread_local bool t_recording = false;
thread_local std::vector<launch_counts> t_recorded;

lane& current() {
  if (!t_lane)
    throw error(
        "blockvec emulator: a device primitive was called outside an emulated launch (call "
        "kernels through bv::launch in a translation unit compiled with BV_AMD_EMU=1)");
  return *t_lane;
}

// Stop this lane until the scheduler has done what it waits at. `pc` is the kernel's call site.
void wait_at(lane& l, wait w, uintptr_t pc) {
  l.at = w;
  l.wait_pc = pc;
  for (;;) {
    bv::detail::fiber_yield(l.fiber);
    if (!l.want_where) return;
    // The scheduler asks where this lane waits, for a report: found on the lane's own stack.
    l.where = where_here();
    l.want_where = false;
  }
}

void lane_main(void* p) {
  lane& l = *static_cast<lane*>(p);
  try {
    t_wg->body(t_wg->ctx);
  } catch (const boost::context::detail::forced_unwind&) {
    throw;
  } catch (const end_workgroup&) {
    t_wg->ended = true;
  } catch (...) {
    if (!t_wg->failure) t_wg->failure = std::current_exception();
  }
  l.done = true;
}

// Where a waiting lane is in the source (it is resumed only to look at its own stack).
const source_where& where_of(lane& l) {
  if (!l.done && l.at != wait::none && l.where.file.empty()) {
    l.want_where = true;
    t_lane = &l;
    bv::detail::fiber_resume(l.fiber);
    t_lane = nullptr;
    l.want_where = false;
  }
  return l.where;
}

std::string at_text(const source_where& w) {
  return w.file.empty() ? std::string() : " (" + w.file + ":" + std::to_string(w.line) + ")";
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

// Performs the wave operation wave `wi` waits at, if every lane of it waits at the same one.
bool step_wave(workgroup& wg, int wi) {
  lane* w = wg.lanes.data() + wi * wave_size;
  const wait kind = w[0].at;
  if (kind != wait::bpermute && kind != wait::mfma) return false;
  for (int l = 0; l < wave_size; ++l)
    if (w[l].done || w[l].at != kind || w[l].wait_pc != w[0].wait_pc ||
        (kind == wait::mfma && w[l].op != w[0].op))
      return false;
  counters& n = wg.launch->counts;
  if (kind == wait::bpermute) {
    int v[wave_size];
    for (int l = 0; l < wave_size; ++l) v[l] = w[l].perm_value;
#ifndef BV_EMU_MUTATION_SHUFFLE
    // ds_bpermute_b32: lane l reads lane (addr / 4) mod 64 of its own wave.
    for (int l = 0; l < wave_size; ++l) w[l].perm_out = v[(w[l].perm_addr >> 2) & (wave_size - 1)];
#else
    // Test hook: the mutation tests (tests/emulator/CMakeLists.txt) read one lane too far, a
    // wrong shuffle distance the runtime and softmax tests must catch.
    for (int l = 0; l < wave_size; ++l)
      w[l].perm_out = v[((w[l].perm_addr >> 2) + 1) & (wave_size - 1)];
#endif
    ++n.bpermutes;
  } else {
    run_mfma(w);
    ++n.mfma;
  }
  ++n.wave_instructions;
  n.active_lanes += wave_size;
  for (int l = 0; l < wave_size; ++l) w[l].at = wait::none;
  return true;
}

// The lanes of [begin, end) grouped by what they do: ended, or waiting at a meeting (kind, call
// site and MFMA form).
struct lane_group {
  bool done;
  wait at;
  uintptr_t pc;
  mfma_op op;
  std::vector<int> tids;
};
std::vector<lane_group> group_lanes(workgroup& wg, int begin, int end) {
  std::vector<lane_group> gs;
  for (int t = begin; t < end; ++t) {
    const lane& l = wg.lanes[t];
    lane_group* g = nullptr;
    for (auto& x : gs)
      if (x.done == l.done &&
          (l.done || (x.at == l.at && x.pc == l.wait_pc && (l.at != wait::mfma || x.op == l.op))))
        g = &x;
    if (!g) {
      gs.push_back({l.done, l.at, l.wait_pc, l.op, {}});
      g = &gs.back();
    }
    g->tids.push_back(t);
  }
  return gs;
}

std::string describe(workgroup& wg, const lane_group& g) {
  if (g.done) return "lanes " + lane_list(g.tids) + " ended";
  return "lanes " + lane_list(g.tids) + " wait at " + wait_name(g.at) +
         at_text(where_of(wg.lanes[g.tids[0]]));
}

// Nothing can move: report why and end the workgroup. A wave whose lanes are split between a
// wave operation and anything else is a divergent wave operation; otherwise every running lane
// waits at a barrier, and the workgroup's lanes are split between barriers or ended.
void report_stuck(workgroup& wg) {
  launch_state& L = *wg.launch;
  const int waves = static_cast<int>(wg.lanes.size()) / wave_size;
  bool any = false;
  for (int wi = 0; wi < waves; ++wi) {
    auto gs = group_lanes(wg, wi * wave_size, (wi + 1) * wave_size);
    if (gs.size() < 2) continue;
    for (const auto& g : gs) {
      if (g.done || (g.at != wait::bpermute && g.at != wait::mfma)) continue;
      std::string others;
      for (const auto& o : gs)
        if (&o != &g) others += (others.empty() ? "" : "; ") + describe(wg, o);
      report(L, wg, wi, g.tids, "wave-divergence", severity::error, g.pc,
             std::string(g.at == wait::mfma ? "An MFMA" : "A shuffle (ds_bpermute)") +
                 " reached by " + std::to_string(g.tids.size()) + " of 64 lanes of wave " +
                 std::to_string(wi),
             where_of(wg.lanes[g.tids[0]]), "In the same wave: " + others + ".",
             "a wave operation needs every lane of the wave at the same instruction; keep it out "
             "of lane-dependent branches and early returns");
      any = true;
    }
  }
  if (!any) {
    auto gs = group_lanes(wg, 0, static_cast<int>(wg.lanes.size()));
    const lane_group* first = nullptr;
    for (const auto& g : gs)
      if (!g.done && (!first || g.tids.size() > first->tids.size())) first = &g;
    std::string others;
    for (const auto& o : gs)
      if (&o != first) others += (others.empty() ? "" : "; ") + describe(wg, o);
    std::vector<int> tids = first->tids;
    report(L, wg, tids[0] / wave_size, tids, "barrier-divergence", severity::error, first->pc,
           "A barrier reached by " + std::to_string(tids.size()) + " of " +
               std::to_string(wg.lanes.size()) + " lanes of the workgroup",
           where_of(wg.lanes[tids[0]]),
           "The rest of the workgroup: " + others + ". The workgroup was ended there.",
           "every lane of the workgroup must reach the same barrier; keep barriers out of "
           "lane- or wave-dependent branches and early returns");
  }
  L.deadlocked = true;
}

void discard_all(workgroup& wg) {
  for (auto& l : wg.lanes)
    if (l.fiber && !l.done) {
      bv::detail::fiber_discard(l.fiber);
      l.fiber = nullptr;
    }
}

// Called from the overflow guard's signal handler (the interpreter's fibers) on the overflowing
// thread: async-signal-safe code only.
void report_lane_overflow(std::size_t stack_bytes) {
  bv::detail::signal_text t;
  t << "\nblockvec emulator: ";
  if (t_wg && t_lane) {
    t << "lane " << t_lane->tid << " of workgroup (" << t_wg->id[0] << "," << t_wg->id[1] << ","
      << t_wg->id[2] << ")";
    if (t_wg->launch) t << " of " << t_wg->launch->desc.kernel;
  } else {
    t << "a lane";
  }
  t << " overflowed its stack of " << (stack_bytes >> 10)
    << " KiB.\n  A lane's registers and blocks live on its fiber stack,";
  t.larger_stack("BV_EMU_STACK", stack_bytes >> 10, 65536).write_stderr();  // BV_EMU_STACK's bound
}
// Lanes' fibers: a workgroup's worth parked per thread (each workgroup would otherwise build and
// tear down up to 1024 fibers); an overflow names the lane and BV_EMU_STACK.
constexpr bv::detail::fiber_use lane_fibers{.park = 1024, .overflow = report_lane_overflow};

void run_workgroup(workgroup& wg, std::size_t stack_bytes) {
  bv::detail::fiber_guard_overflow();
  t_wg = &wg;
  const int n = static_cast<int>(wg.lanes.size());
  for (int i = 0; i < n; ++i) {
    lane& l = wg.lanes[i];
    l.fiber = nullptr;
    l.done = false;
    l.at = wait::none;
    l.want_where = false;
    l.where = {};
    l.log.clear();
    l.tid = static_cast<unsigned>(i);
    l.fiber = bv::detail::fiber_create(stack_bytes, lane_main, &l, lane_fibers);
  }
  wg.ended = false;
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
      if (bv::detail::fiber_resume(l.fiber)) l.fiber = nullptr;  // finished (the fiber is parked)
      t_lane = nullptr;
      if (wg.failure) std::rethrow_exception(wg.failure);
      if (wg.ended) return;
    }
    flush_logs(wg);
    bool moved = false;
    for (int wi = 0; wi < n / wave_size; ++wi) moved = step_wave(wg, wi) || moved;
    if (moved) continue;
    bool any_running = false, any_done = false, one_barrier = true;
    uintptr_t pc = 0;
    for (auto& l : wg.lanes) {
      if (l.done) {
        any_done = true;
        continue;
      }
      if (!any_running) pc = l.wait_pc;
      any_running = true;
      one_barrier = one_barrier && l.at == wait::barrier && l.wait_pc == pc;
    }
    if (!any_running) return;
    if (!one_barrier || any_done) {
      report_stuck(wg);
      return;
    }
    lds_barrier(*wg.launch);
    ++wg.launch->counts.barriers;
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
  wait_at(l, wait::bpermute, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
  return l.perm_out;
}
void barrier() {
  wait_at(current(), wait::barrier, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
}
void* lds_static(const void* key, std::size_t bytes) {
  current();
  return lds_buffer_for(key, bytes);
}
void wave_mfma(mfma_op op, const void* a, const void* b, const float* c, float* d, int cbsz,
               int abid, int blgp) {
  lane& l = current();
  if (cbsz != 0 || abid != 0 || blgp != 0)
    throw error(std::string("blockvec emulator: ") + t_wg->launch->desc.kernel +
                ": MFMA with CBSZ/ABID/BLGP other than 0 is not emulated");
  const std::size_t in = op == mfma_op::f32_32x32x2f32 ? 4 : 8;
  l.op = op;
  std::memcpy(l.a, a, in);
  std::memcpy(l.b, b, in);
  std::memcpy(l.c, c, sizeof l.c);
  wait_at(l, wait::mfma, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
  std::memcpy(d, l.d, sizeof l.d);
}

// ---- The host's side (bv/emu/runtime.hpp). -----------------------------------------------------
launch_report run(const launch_desc& d, void (*body)(void*), void* ctx) {
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
  const uint16_t wg_size[3] = {static_cast<uint16_t>(d.waves * wave_size), 1, 1};
  const uint32_t grid_size[3] = {static_cast<uint32_t>(d.grid[0]) * wg_size[0],
                                 static_cast<uint32_t>(d.grid[1]),
                                 static_cast<uint32_t>(d.grid[2])};
  std::memcpy(L->packet + 4, wg_size, sizeof wg_size);
  std::memcpy(L->packet + 12, grid_size, sizeof grid_size);
  lds_launch_init(*L);
  workgroup wg;
  wg.launch = L.get();
  wg.lanes.resize(static_cast<std::size_t>(d.waves) * wave_size);
  wg.body = body;
  wg.ctx = ctx;
  for (int z = 0; z < d.grid[2]; ++z)
    for (int y = 0; y < d.grid[1]; ++y)
      for (int x = 0; x < d.grid[0]; ++x) {
        lds_workgroup_reset(*L);
        wg.id[0] = static_cast<unsigned>(x);
        wg.id[1] = static_cast<unsigned>(y);
        wg.id[2] = static_cast<unsigned>(z);
        run_workgroup(wg, stack);
      }
  launch_report r;
  r.counts = L->counts;
  r.deadlocked = L->deadlocked;
  r.memory_checked = d.instrumented;
  for (auto& p : L->diags) {
    diagnostic& dg = p.d;
    if (p.count > 1)
      dg.detail += (dg.detail.empty() ? "" : " ") + std::string("(") + std::to_string(p.count) +
                   " reports of this check at this instruction in the launch; the lanes are the "
                   "first workgroup's and wave's)";
    (dg.sev == severity::error ? r.errors : r.warnings) += 1;
    r.diagnostics.push_back(std::move(dg));
  }
  if (L->dropped > 0) {
    diagnostic dg;
    dg.kind = "too-many-reports";
    dg.sev = severity::warning;
    dg.headline = std::to_string(L->dropped) + " more reports at other instructions were dropped";
    dg.kernel = d.kernel;
    dg.has_pid = false;
    ++r.warnings;
    r.diagnostics.push_back(std::move(dg));
  }
  t_last_lds = L->lds_dev_used;
  t_last_report = r;
  if (t_recording) t_recorded.push_back({r.counts, r.memory_checked});
  return r;
}

target current_target() { return static_cast<target>(g_target.load()); }
void set_target(target t) {
  if (!is_amd(t))
    throw error(std::string("blockvec emulator: emulates gfx942 and gfx90a, not ") +
                target_name(t));
  g_target = static_cast<int>(t);
}
std::size_t last_lds_bytes() { return t_last_lds; }
const launch_report& last_report() { return t_last_report; }
void record_launches(bool on) {
  t_recording = on;
  t_recorded.clear();
}
const std::vector<launch_counts>& recorded_launches() { return t_recorded; }

}  // namespace bv::emu
