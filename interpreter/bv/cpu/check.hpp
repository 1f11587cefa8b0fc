// Checks are small plugins over one stream of memory events (Oclgrind's design): each sees every
// access of every program of a launch, keeps its own shadow state, and reports diagnostics.
// Traces are written by an observer of the same stream.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "bv/cpu/launch.hpp"
#include "bv/cpu/runtime.hpp"
#include "bv/cpu/views.hpp"

namespace bv::detail {

struct launch_state;

// Thrown from the debugger's prompt when the user quits; the scheduler ends the launch.
struct quit_request {};

// Per-buffer shadow memory, shared by every view of a tensor's buffer. It holds what the buffer
// is (its element count, whether the host wrote every element) and, in a slot per check, the
// check's own per-buffer state (buffer_shadow<T> below): the uninit check's written elements, the
// race check's last accessors. A check that never sees a buffer adds nothing to it.
struct shadow_state {
  static constexpr int k_slots = 4;
  int64_t numel = 0;
  std::mutex mu;  // guards making a slot and host_wrote()
  // Every element was written by the host: made from data, zeros or full, or mark_initialised().
  std::atomic<bool> host_written{false};
  std::atomic<void*> slot[k_slots] = {};
  shadow_state(int64_t n, bool initialised) : numel(n), host_written(initialised) {}
  shadow_state(const shadow_state&) = delete;
  shadow_state& operator=(const shadow_state&) = delete;
  ~shadow_state();
  // The host wrote every element (mark_initialised): each slot's owner hears of it.
  void host_wrote();
};

// A kind of per-buffer state: how a slot of it is ended and told of a host write, and the state
// a buffer starts with when it is made (null: made at the check's first access, buffer_shadow).
// A check whose state every launch over the buffer would make at once makes it with the buffer,
// so that its cost falls where the buffer's own does, not inside the first launch.
struct shadow_kind {
  void (*destroy)(void*);
  void (*host_wrote)(void*);
  void* (*made)(shadow_state&) = nullptr;
};
// Reserves a slot of every shadow_state for one kind (once per kind, on first use).
int reserve_shadow_slot(shadow_kind k);
const shadow_kind& shadow_kind_of(int slot);

// T's hook for a new buffer (T::made), or null when T makes its state at first access only.
template <class T>
constexpr void* (*made_hook())(shadow_state&) {
  if constexpr (requires(shadow_state& sh) { T::made(sh); })
    return [](shadow_state& sh) -> void* { return T::made(sh); };
  else
    return nullptr;
}
template <class T>
int shadow_slot_of() {
  static const int slot =
      reserve_shadow_slot({[](void* p) { delete static_cast<T*>(p); },
                           [](void* p) { static_cast<T*>(p)->host_wrote(); }, made_hook<T>()});
  return slot;
}
// A check's state for one buffer, or null before the check's first buffer_shadow<T> on it.
template <class T>
T* find_buffer_shadow(shadow_state& sh) {
  return static_cast<T*>(sh.slot[shadow_slot_of<T>()].load(std::memory_order_acquire));
}
// A check's state for one buffer, made on first use as T(sh). T has a host_wrote() that makes
// its state agree with a buffer whose every element the host has just written.
template <class T>
T& buffer_shadow(shadow_state& sh) {
  std::atomic<void*>& s = sh.slot[shadow_slot_of<T>()];
  if (void* p = s.load(std::memory_order_acquire)) return *static_cast<T*>(p);
  std::lock_guard lk(sh.mu);
  void* p = s.load(std::memory_order_relaxed);
  if (!p) {
    p = new T(sh);
    s.store(p, std::memory_order_release);
  }
  return *static_cast<T*>(p);
}

// What a debug aid did, for observers that record it (traces): print_if's text, a stop at a
// breakpoint or a step (name: why it stopped), or a watched value (name, rendered value).
struct debug_event {
  enum class kind : uint8_t { print, stop, watch } what = kind::print;
  const std::source_location* loc = nullptr;
  std::string_view name, text;
};

struct observer {
  virtual ~observer() = default;
  // The checks bit that enables this observer (0: always on while registered).
  virtual uint32_t bit() const = 0;
  virtual void begin(launch_state&) {}
  // `perform` is null when every active lane is performed, else the lanes that are.
  virtual void on_access(const access&, const bool* /*perform*/, program_state&) {}
  virtual void on_program_end(program_state&) {}
  // A reduction or math function's result that a value check may care about.
  virtual void on_value(const value_event&, program_state&) {}
  // Called on the program's thread, whether or not memory hooks are on.
  virtual void on_debug(const program_state&, const debug_event&) {}
  virtual void end(launch_state&) {}
};

// A check's state per program: a struct of the check's own (its locks held, the first error
// noted but not reported yet, ...), in a slot of program_state::check_scratch that the check
// reserves the first time it asks. The struct must be trivially copyable and start as all zero
// bytes, which is how every program of a launch starts.
std::size_t reserve_program_scratch(std::size_t bytes, std::size_t align);
template <class T>
T& program_scratch(program_state& s) {
  static_assert(std::is_trivially_copyable_v<T>,
                "A check's per-program state is kept as bytes: make it trivially copyable.");
  static_assert(sizeof(T) <= program_state::k_check_scratch,
                "A check's per-program state must fit in program_state::k_check_scratch.");
  static const std::size_t offset = reserve_program_scratch(sizeof(T), alignof(T));
  return *std::launder(reinterpret_cast<T*>(s.check_scratch.data() + offset));
}
template <class T>
const T& program_scratch(const program_state& s) {
  return program_scratch<T>(const_cast<program_state&>(s));
}

using observer_factory = std::unique_ptr<observer> (*)();
// Registers an observer made afresh for every launch. Called from static initialisers.
bool register_observer(observer_factory f);

// The trace writer (interpreter/src/trace/): run_launch adds it only while config().trace_path is
// set, so untraced runs keep the fast path. Null when the file cannot be written (said on stderr).
std::unique_ptr<observer> make_trace_observer();

// A debugger front end other than the terminal prompt (the viewer's live mode). Called on the
// program's thread wherever it stops (breakpoint_if, BV_BREAK, a step); `a` is the memory access
// it stopped at, or null. The program waits until it returns; the result says how it goes on.
// step_line: step over the rest of the stop's source line (the prompt's `n`).
enum class stop_action { resume, step, quit, step_line };
using stop_handler = std::function<stop_action(program_state&, const std::source_location*,
                                               const char* why, const access* a)>;
// An empty handler restores the prompt.
void set_stop_handler(stop_handler h);

// Links the checks of interpreter/src/checks/ into the registry (run_launch calls it once), so a
// static library cannot drop their registrars.
void register_builtin_checks();
// Records a diagnostic in a launch from outside its programs (observers' begin/end), with the
// same per-kind cap as report().
void report_in(launch_state& L, diagnostic d);

struct launch_state {
  launch_desc* desc = nullptr;
  uint64_t serial = 0;      // unique per launch in this process (shadow state keyed by launch)
  read_only_set read_only;  // buffers no argument lets a program write (views.hpp)
  std::atomic<bool> kernel_named{false};  // `kernel` is final: accesses skip record_kernel_name
  std::atomic<bool> ring_lds_said{false};  // ring-lds is said once a launch
  std::string kernel;
  std::mutex mu;  // guards kernel, diags, counts
  std::vector<program_state> programs;
  std::vector<int64_t> order;
  // Counters the parallel schedule's threads write, each on its own cache line: sharing a line
  // with what every access reads (kernel_named, aborted) made the threads wait on each other.
  // The programs (positions in `order`) each thread starts: thread t owns the t-th contiguous
  // share and claims from it first, then from the others' once its own is used up. A thread thus
  // runs the same programs launch after launch (the memory they touch stays in its core's caches,
  // where programs dealt out in turn moved half of every tensor between the cores at each
  // launch), and the program after the one it runs is the one it runs next (which the loads
  // prefetch for).
  struct alignas(64) share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  std::unique_ptr<share[]> shares;
  int n_shares = 0;
  bool all_claimed() const {
    for (int i = 0; i < n_shares; ++i)
      if (shares[i].next.load(std::memory_order_relaxed) < shares[i].end) return false;
    return true;
  }
  alignas(64) std::atomic<int64_t> done{0};
  // Every store moves memory on: each thread counts its stores in a slot of its own (one shared
  // counter bumped per store bounced between the cores), and the epoch is their sum. Programs
  // that wait retry when it changed; when it stands still while all wait, that is a deadlock.
  struct alignas(64) epoch_slot {
    std::atomic<uint64_t> v{0};
    // The epoch at which the slot's thread found nothing to run (0: it is running something;
    // k_gone: it has left). A deadlock is every thread stalled at the epoch that still holds.
    std::atomic<uint64_t> stalled_at{0};
  };
  static constexpr uint64_t k_gone = ~uint64_t(0);
  bool all_stalled_at(uint64_t e) const {
    for (int i = 0; i < n_epochs; ++i) {
      const uint64_t s = epochs[i].stalled_at.load();
      if (s != e && s != k_gone) return false;
    }
    return true;
  }
  std::unique_ptr<epoch_slot[]> epochs;
  int n_epochs = 0;
  alignas(64) std::atomic<int> epoch_slots_taken{0};
  uint64_t epoch() const {
    uint64_t e = 1;
    for (int i = 0; i < n_epochs; ++i) e += epochs[i].v.load();
    return e;
  }
  alignas(64) std::atomic<bool> aborted{false}, deadlocked{false}, quit{false};
  std::atomic<int> active_threads{0}, stalled_threads{0};
  std::vector<diagnostic> diags;
  std::map<std::string, int> per_kind;
  int suppressed = 0;
  std::vector<std::unique_ptr<observer>> observers;
  uint32_t enabled = 0;
  schedule sched = schedule::sequential;
  std::mt19937_64 rng;  // the shuffled schedule's (one thread)
};

launch_state* current_launch();
// Fills kernel, file, line and program id from the current program where the caller left them.
void complete(diagnostic& d, const std::source_location* loc);

}  // namespace bv::detail
