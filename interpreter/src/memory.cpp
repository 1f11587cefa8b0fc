// The memory-event path: every access of every program comes here when a check, the debugger or
// the shuffled schedule needs to see it, or when the fast path found a lane outside its buffer.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "bv/cpu/check.hpp"
#include "bv/cpu/lane_map.hpp"
#include "bv/cpu/runtime.hpp"

namespace bv::detail {

void maybe_preempt();
void debugger_on_access(const access& a);
bool debugger_wants_hooks();

std::atomic<uint32_t> hooks{0};
std::atomic<uint32_t> value_checks{0};

std::vector<observer_factory>& observer_registry() {
  static std::vector<observer_factory> r;
  return r;
}
bool register_observer(observer_factory f) {
  observer_registry().push_back(f);
  return true;
}

std::size_t reserve_program_scratch(std::size_t bytes, std::size_t align) {
  static std::mutex mu;
  static std::size_t used = 0;
  std::lock_guard lk(mu);
  const std::size_t at = (used + align - 1) / align * align;
  if (align > 16 || at + bytes > program_state::k_check_scratch) {
    std::fprintf(stderr,
                 "blockvec: the checks' per-program state does not fit in %zu bytes (a check asks "
                 "for %zu more, aligned to %zu); raise program_state::k_check_scratch\n",
                 program_state::k_check_scratch, bytes, align);
    std::abort();
  }
  used = at + bytes;
  return at;
}

void set_hooks_for(launch_state& L) {
  if (!L.observers.empty() || L.sched == schedule::shuffled || debugger_wants_hooks())
    hooks.fetch_add(1);
  else
    L.enabled |= 1u << 31;  // marks "no hook taken" for clear_hooks_for
  // Value-level checks work inside block operations; they need the hooks (their reports go
  // through the observers), so they are on only with them.
  uint32_t vc = 0;
  for (auto& o : L.observers) vc |= o->bit();
  value_checks.store(L.enabled & vc &
                     (checks::uninit | checks::masked | checks::nan | checks::overflow));
}
void clear_hooks_for(launch_state& L) {
  value_checks.store(0);
  if (!(L.enabled & (1u << 31))) hooks.fetch_sub(1);
}

void on_value(const value_event& e) {
  program_state* s = current();
  if (!s) return;
  for (auto& o : s->launch->observers) o->on_value(e, *s);
}

int64_t next_alloc_id() {
  static std::atomic<int64_t> id{0};
  return ++id;
}
namespace {
std::mutex g_shadow_kinds_mu;
shadow_kind g_shadow_kinds[shadow_state::k_slots];
int g_shadow_kinds_n = 0;
}  // namespace
std::shared_ptr<shadow_state> make_shadow(int64_t numel, bool initialised) {
  auto sh = std::make_shared<shadow_state>(numel, initialised);
  shadow_kind kinds[shadow_state::k_slots];
  int n = 0;
  {
    std::lock_guard lk(g_shadow_kinds_mu);
    n = g_shadow_kinds_n;
    std::copy(g_shadow_kinds, g_shadow_kinds + n, kinds);
  }
  for (int i = 0; i < n; ++i)
    if (kinds[i].made)
      if (void* p = kinds[i].made(*sh)) sh->slot[i].store(p, std::memory_order_release);
  return sh;
}
#if defined(__SANITIZE_THREAD__)
extern "C" void AnnotateBenignRaceSized(const char* file, int line, const volatile void* mem,
                                        unsigned long size, const char* description);
#endif
// Kernels' own races on a tensor (two programs of a launch storing one element, the race corpus'
// buggy kernels) are the race check's to find, under every schedule; under the parallel schedule
// they are also unsynchronised accesses of the interpreter's threads to the buffer, which
// ThreadSanitizer would report as the interpreter's. Only the buffer is exempted: the
// interpreter's own state (shadow memory, scheduler, diagnostics) stays checked. (TSan keeps the
// exemption after the buffer is freed; a later allocation at that address is exempt too.)
void note_device_buffer(const void* p, size_t bytes) {
#if defined(__SANITIZE_THREAD__)
  if (bytes) AnnotateBenignRaceSized(__FILE__, __LINE__, p, bytes, "blockvec device memory");
#else
  (void)p, (void)bytes;
#endif
}

void mark_initialised(const alloc_info& a) {
  if (a.shadow) a.shadow->host_wrote();
}

int reserve_shadow_slot(shadow_kind k) {
  std::lock_guard lk(g_shadow_kinds_mu);
  if (g_shadow_kinds_n == shadow_state::k_slots) {
    std::fprintf(stderr,
                 "blockvec: more than %d checks keep per-buffer state; raise "
                 "shadow_state::k_slots\n",
                 shadow_state::k_slots);
    std::abort();
  }
  g_shadow_kinds[g_shadow_kinds_n] = k;
  return g_shadow_kinds_n++;
}
// Slots are reserved before any is filled (a slot's kind is set before its first use), and
// never change after.
const shadow_kind& shadow_kind_of(int slot) { return g_shadow_kinds[slot]; }

shadow_state::~shadow_state() {
  for (int i = 0; i < k_slots; ++i)
    if (void* p = slot[i].load(std::memory_order_acquire)) shadow_kind_of(i).destroy(p);
}
void shadow_state::host_wrote() {
  std::lock_guard lk(mu);
  host_written.store(true, std::memory_order_release);
  for (int i = 0; i < k_slots; ++i)
    if (void* p = slot[i].load(std::memory_order_relaxed)) shadow_kind_of(i).host_wrote(p);
}

namespace {
std::mutex g_atomic_locks[256];
}
void atomic_lock(const void* addr) {
  g_atomic_locks[(reinterpret_cast<uintptr_t>(addr) >> 3) & 255].lock();
}
void atomic_unlock(const void* addr) {
  g_atomic_locks[(reinterpret_cast<uintptr_t>(addr) >> 3) & 255].unlock();
}

// Which wavefront holds each element of a block: the target's layout map, the one the GPU
// lowering places the block with.
std::vector<int> waves_of_lanes(const access& a, const std::vector<int>& lanes) {
  const layout::block_map L = lane_map(a);
  std::vector<int> out;
  out.reserve(lanes.size());
  for (int e : lanes) out.push_back(e >= 0 && e < L.size() ? L.holder(e).wave : 0);
  return out;
}

namespace {
void report_out_of_bounds(const access& a, const std::vector<int>& bad, int active) {
  const bool write = a.kind != access_kind::load;
  diagnostic d;
  d.kind = "out-of-bounds";
  const int size = a.alloc ? a.alloc->elem_bytes : 0;
  d.headline = std::string("Invalid ") + (a.kind == access_kind::atomic ? "atomic " : "") +
               (write ? "write" : "read") + " of size " + std::to_string(size) + " by " +
               std::to_string(bad.size()) + " of " + std::to_string(active) + " active lane" +
               (active == 1 ? "" : "s") + " (" + a.op + ")";
  d.lanes = bad;
  d.waves = waves_of_lanes(a, bad);
  int64_t past = 0, before = 0;
  for (int e : bad) {
    const int64_t o = a.base + a.off[e];
    d.offsets.push_back(o);
    if (o < 0) before = std::max(before, -o);
    if (a.alloc && o >= a.alloc->numel) past = std::max(past, o - a.alloc->numel + 1);
  }
  if (a.alloc) {
    d.has_tensor = true;
    d.tensor = a.alloc->describe();
  }
  if (past && !before)
    d.hint = "the access runs past the end by up to " + std::to_string(past) +
             " element(s): does the mask compare the offsets with the tensor's length "
             "(offs < n), and is n the right length?";
  else if (before)
    d.hint = "offsets before the start of the tensor (by up to " + std::to_string(before) +
             " elements): check subtractions and int32 overflow in the index arithmetic";
  if (!a.mask)
    d.hint += std::string(d.hint.empty() ? "" : "; ") + "this " + a.op +
              " has no mask: add one for the ragged last block";
  complete(d, a.loc);
  report(std::move(d));
}
}  // namespace

const bool* on_access(const access& a, bool in_bounds) {
  thread_local std::vector<uint8_t> perform;
  program_state* s = current();
  if (s) s->last_loc = a.loc;
  if (a.loc) record_kernel_name(*a.loc);
  const bool* result = nullptr;
  if (a.misaligned) {
    // Every lane shares the base's misalignment: perform none, report once.
    perform.assign(static_cast<size_t>(a.lanes), 0);
    if (config().enabled & checks::bounds) {
      diagnostic d;
      d.kind = "misaligned";
      int active = 0;
      for (int i = 0; i < a.lanes; ++i)
        if (!a.mask || a.mask[i]) d.lanes.push_back(i), ++active;
      const int size = a.alloc ? a.alloc->elem_bytes : 0;
      d.headline = std::string("Misaligned ") + (a.kind == access_kind::load ? "read" : "write") +
                   " of size " + std::to_string(size) + " by " + std::to_string(active) +
                   " active lane" + (active == 1 ? "" : "s") + " (" + a.op + ")";
      d.waves = waves_of_lanes(a, d.lanes);
      if (a.alloc) {
        d.has_tensor = true;
        d.tensor = a.alloc->describe();
        d.detail = "buffer address " +
                   std::to_string(reinterpret_cast<uintptr_t>(a.alloc->buffer)) +
                   " is not a multiple of " + std::to_string(size);
      }
      d.hint =
          "the data pointer is not aligned to its element size (a reinterpret_cast of a "
          "byte buffer, or a view at an odd byte offset): GPUs fault or return wrong data";
      complete(d, a.loc);
      report(std::move(d));
    }
    result = reinterpret_cast<const bool*>(perform.data());
  } else if (!in_bounds) {
    perform.assign(static_cast<size_t>(a.lanes), 0);
    std::vector<int> bad;
    int active = 0;
    for (int i = 0; i < a.lanes; ++i) {
      if (a.mask && !a.mask[i]) continue;
      ++active;
      const int64_t o = a.base + a.off[i];
      if (a.alloc && o >= 0 && o < a.alloc->numel)
        perform[static_cast<size_t>(i)] = 1;
      else
        bad.push_back(i);
    }
    if (!bad.empty()) {
      if (!a.alloc) {
        diagnostic d;
        d.kind = "null-pointer";
        d.headline = std::string("a ") + a.op + " through a pointer that is not bound to a tensor";
        d.hint = "pass a bv::tensor (or a pointer made from one) for this kernel argument";
        complete(d, a.loc);
        report(std::move(d));
      } else if (config().enabled & checks::bounds) {
        report_out_of_bounds(a, bad, active);
      }
    }
    result = reinterpret_cast<const bool*>(perform.data());
  }
  if (s) {
    launch_state& L = *s->launch;
    for (auto& o : L.observers) o->on_access(a, result, *s);
    debugger_on_access(a);
    if (L.sched == schedule::shuffled) maybe_preempt();
  }
  return result;
}

bool debugger_may_stop();
bool stores_write_first() {
  program_state* s = current();
  return s && s->launch && s->launch->sched != schedule::shuffled && !debugger_may_stop();
}

bool tensor_ready(const alloc_info& a, const std::source_location& loc) {
  if (a.contiguous) return true;
  diagnostic d;
  d.kind = "non-contiguous";
  d.headline = "tensor '" + a.name + "' is not contiguous";
  d.has_pid = false;
  d.has_tensor = true;
  d.tensor = a.describe();
  d.file = loc.file_name();
  d.line = static_cast<int>(loc.line());
  d.kernel = "check_tensors_ready";
  d.hint = "kernels index with row-major strides; pass a contiguous copy (.contiguous())";
  report(std::move(d));
  return false;
}

void hint_violated(const char* hint, int value, int lane, int64_t got,
                   const std::source_location& loc) {
  diagnostic d;
  d.kind = "hint-violated";
  d.headline = std::string(hint) + "(" + std::to_string(value) + ") does not hold: lane " +
               std::to_string(lane) + " has " + std::to_string(got);
  d.lanes = {lane};
  d.hint =
      "the GPU compiler trusts this hint to vectorise loads; a false hint gives wrong results "
      "there. Remove the hint or fix the offsets";
  complete(d, &loc);
  report(std::move(d));
}

}  // namespace bv::detail
