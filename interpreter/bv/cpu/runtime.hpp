// What kernels on the CPU talk to: the running program, the tensors it may touch, the stream of
// memory events that checks observe, and the diagnostics they raise.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "bv/diagnostic.hpp"
#include "bv/target.hpp"

namespace bv {

enum class schedule { sequential, shuffled, parallel };

// Every check the interpreter knows, as a bit. `all` is every one; the default leaves out the
// opt-in ones: nan, and coalescing, whose findings are performance notes (options::notes).
namespace checks {
enum : uint32_t {
  bounds = 1u << 0,      // out-of-bounds and misaligned accesses
  uninit = 1u << 1,      // reads of memory never written
  race = 1u << 2,        // two programs of one launch on one element
  contiguity = 1u << 3,  // non-contiguous tensors, violated multiple_of / max_contiguous
  overflow = 1u << 4,    // int32 overflow in index arithmetic
  nan = 1u << 5,         // first op that produced NaN/Inf (opt-in)
  masked = 1u << 6,      // use of masked-off lanes of a load without `other`
  deadlock = 1u << 7,    // every program waiting; device_assert failures
  coalescing = 1u << 8,  // uncoalesced wavefront accesses, low lane utilisation (notes)
  all = (1u << 9) - 1,
  none = 0,
  defaults = all & ~nan & ~coalescing,
};
}
// "bounds" -> checks::bounds; nullptr-terminated table of names for parsing and help text.
struct check_name {
  const char* name;
  uint32_t bit;
  const char* what;
};
extern const check_name check_names[];
// Parses "all", "none" or a comma-separated list; on a bad name returns false and sets `error`.
bool parse_checks(const std::string& text, uint32_t& out, std::string& error);
bool parse_schedule(const std::string& text, schedule& out, std::string& error);
const char* schedule_name(schedule s);

struct options {
  schedule sched = schedule::sequential;
  int threads = 0;  // 0: all cores this process may run on (usable_cores())
  uint64_t seed = 0;
  uint32_t enabled = checks::defaults;
  // The GPU the interpreter stands in for (BV_TARGET, `--target`): the configuration each kernel
  // launches, and the wave size and layout maps that attribute elements to waves and lanes.
  target tgt = default_target;
  int wave_size = wave_size_of(default_target);  // always wave_size_of(tgt)
  // Each program's fiber stack (BV_STACK, KiB). Its blocks live there: a 128 x 256 tile's f32
  // accumulator is 128 KiB, and a matmul program holds a few such blocks at once. Only the pages
  // a program touches are ever backed by memory, so a large default costs address space only.
  std::size_t stack_bytes = std::size_t{8} << 20;
  int max_reports_per_kind = 8;
  std::string break_cond;    // BV_BREAK: a condition string, optionally "@FILE:LINE"
  bool interactive = false;  // breakpoints prompt on stdin (a terminal)
  bool progress = false;     // programs done of total, on stderr
  bool quiet = false;        // do not print diagnostics at the end of each launch
  // BV_NOTES=1 / `--notes`: performance notes (uncoalesced accesses, low lane utilisation, strided
  // tensor arguments) are reported, each once per kernel and source line; off, they are dropped
  // and a correct kernel reports nothing. set_notes(true) also turns the coalescing check on.
  bool notes = false;
  // BV_TRACE / `blockvec run --trace FILE`: every launch of the process is recorded in this SQLite
  // trace (docs/trace-format.md); the file is replaced by the first traced launch. Empty: off.
  std::string trace_path;
};
// The process-wide options, read from BV_SCHEDULE, BV_THREADS, BV_SEED, BV_CHECK, BV_NOTES,
// BV_BREAK, BV_STACK, BV_TARGET, BV_WAVE_SIZE and BV_TRACE the first time they are needed. Bad
// values are reported once on stderr and the default kept.
options& config();
// Makes t the target of every later launch (and its wave size); `blockvec --target` calls it.
void set_target(target t);
// Turns performance notes on or off for every later launch (`blockvec --notes` calls it); on also
// enables the coalescing check, whose findings are notes.
void set_notes(bool on);

// The cores this process may run on: its CPU affinity mask (what `taskset` or a container's cpuset
// leaves it), not every core of the machine; at least 1. The parallel schedule's default thread
// count.
int usable_cores();

// Diagnostics of every launch since the last clear, and their error count. A user's program can
// end with `return bv::exit_status();` so CI fails when a check fired; BV_EXIT_ON_ERROR=1 does the
// same at exit for programs that cannot be edited.
const std::vector<diagnostic>& diagnostics();
void clear_diagnostics();
int error_count();
int exit_status();

namespace detail {

// One allocation as the kernel sees it: a buffer of numel elements, described as the tensor the
// host made (name, dtype, shape, strides). Checks hang their shadow state off `shadow`.
struct shadow_state;
struct alloc_info {
  std::string name;
  const char* dtype = "?";
  int elem_bytes = 0;
  std::vector<int64_t> shape, strides;
  int64_t view_offset = 0;  // first element of the view within the buffer
  void* buffer = nullptr;   // the buffer's first element
  int64_t numel = 0;        // elements in the buffer
  int64_t id = 0;
  bool contiguous = true;
  std::shared_ptr<shadow_state> shadow;  // shared by every view of one buffer
  tensor_desc describe() const;
};

enum class access_kind : uint8_t { load, store, atomic };

// One memory operation of one program over a block of lanes: the event every check observes.
// An access's per-lane element offsets. A pointer block that knows its offsets' affine form has
// not written them out; they are written the first time an observer asks (most checks never do
// on a contiguous access), through `fill`.
class lane_offsets {
 public:
  lane_offsets() = default;
  lane_offsets(const int64_t* p) : p_(p) {}  // NOLINT: offsets already written out
  lane_offsets(const void* src, const int64_t* (*fill)(const void*), int64_t first)
      : src_(src), fill_(fill), first_(first) {}
  const int64_t* get() const {
    if (!p_ && fill_) p_ = fill_(src_);
    return p_;
  }
  operator const int64_t*() const { return get(); }  // NOLINT
  int64_t operator[](int i) const { return get()[i]; }
  // Lane 0's offset, without writing the others out.
  int64_t first() const { return p_ || !fill_ ? get()[0] : first_; }

 private:
  mutable const int64_t* p_ = nullptr;
  const void* src_ = nullptr;
  const int64_t* (*fill_)(const void*) = nullptr;
  int64_t first_ = 0;
};

struct access {
  access_kind kind = access_kind::load;
  const alloc_info* alloc = nullptr;
  int64_t base = 0;            // element index of the pointer's base within the buffer
  lane_offsets off;            // per-lane element offsets from the base
  const bool* mask = nullptr;  // per-lane mask; null when the op had none
  bool all_active = true;      // no lane is masked off (mask null, or every entry set)
  bool has_other = false;
  int lanes = 1;  // elements in the block (1 for a scalar access)
  int rows = 1, cols = 1, waves = 1;
  int rank = 2;  // the block's: 1-D blocks (N) and 2-D ones (R, C) have different GPU layouts
  const std::source_location* loc = nullptr;
  const char* op = "load";
  // Stores and atomics: per-lane class of the value written (value_class below), or null when
  // every value is an ordinary finite number (or no value check is on).
  const uint8_t* value_class = nullptr;
  // The base address is not aligned to the element size: no lane is performed.
  bool misaligned = false;
  // Each row of lanes is contiguous and row r starts at off[0] + r * row_stride (a 2-D tile of
  // unit column stride), from the pointer block's affine form; false: unknown, look at `off`.
  bool rows_contiguous = false;
  int64_t row_stride = 0;
  // Each column of lanes is contiguous and column c starts at off[0] + c * col_stride (a tile of
  // unit row stride, such as a tile of a transposed view).
  bool cols_contiguous = false;
  int64_t col_stride = 0;
  // The offsets are off[0] + i for every lane i: one contiguous run.
  bool contiguous() const { return rows_contiguous && (rows == 1 || row_stride == cols); }
};

// What a value check found in one lane of a block (checks/values.hpp classifies): a value derived
// from never-written memory or from a masked-off lane loaded without `other` (both carry a tagged
// NaN payload for floats), or a NaN/Inf of the kernel's own making.
enum value_class : uint8_t { vc_ok = 0, vc_uninit = 1, vc_masked = 2, vc_nonfinite = 3 };

// A value-level event that is not a memory access: a reduction or a math function whose result
// the value checks look at (uninit, masked, nan).
struct value_event {
  const char* op = "sum";
  const uint8_t* value_class = nullptr;  // per element of the result
  int lanes = 0;
  const std::source_location* loc = nullptr;
  bool inputs_finite = false;  // every input was finite: a NaN/Inf here was produced by `op`
};

struct launch_state;
struct program_state {
  std::array<int, 3> pid{0, 0, 0};
  std::array<int, 3> grid{1, 1, 1};
  int64_t linear = 0;
  launch_state* launch = nullptr;
  const std::source_location* last_loc = nullptr;
  void* fiber = nullptr;  // scheduler-owned
  enum class status : uint8_t { pending, running, waiting, stopped, done } state = status::pending;
  bool stepping = false;
  uint64_t waited_epoch = 0;
  std::vector<std::pair<std::string, std::string>> watched;  // name -> rendered value
  // Block pointers: how many this program has made (each gets the next number; block_ptr.hpp),
  // and the dynamic LDS their rings would take on the target's GPU (bv/rings.hpp; ring-lds).
  int block_ptrs_made = 0;
  int ring_lds_taken = 0;
  // The streams (along()) of the running for_range loops: each one's block pointer number, which
  // the bodies may not load (stream-load), and, for a moving stream, where its tiles lie and the
  // step its loop is at (the race check's stream-store: a store over a later step's tile).
  struct stream_span {
    int id = 0;                    // the block pointer's number (0 once stream-load was said)
    bool moving = false;           // a moving stream over a tensor: the fields below are set
    const void* buffer = nullptr;  // the tensor's buffer (views of one buffer share it)
    int64_t base = 0;              // element index of the block pointer's base in the buffer
    int64_t shape0 = 0, shape1 = 0, stride0 = 0, stride1 = 0;
    int64_t off0 = 0, off1 = 0, by0 = 0, by1 = 0;  // step 0's tile, and the step
    int rows = 0, cols = 0;
    int step = 0, steps = 0;  // the step the loop is at, of how many
    bool reported = false;    // stream-store said once a loop
    const std::source_location* along = nullptr;
  };
  static constexpr int k_max_streamed = 8;
  std::array<stream_span, k_max_streamed> streams{};
  int n_streams = 0;
  // The checks' state of this program: each check keeps a struct of its own here, in a slot it
  // reserves (program_scratch in check.hpp); all zero when the program starts.
  static constexpr std::size_t k_check_scratch = 256;
  alignas(16) std::array<unsigned char, k_check_scratch> check_scratch{};
};

// The program running on this OS thread (set by the scheduler whenever it resumes a fiber).
program_state* current();
// Non-zero when any check, trace or debugger hook wants to see memory events.
extern std::atomic<uint32_t> hooks;
// Reports an access to the checks. `in_bounds` says whether the caller's fast test found every
// active lane inside the buffer. Returns null if every active lane may be performed, otherwise a
// per-lane array (valid until the next call on this thread) of the lanes to perform.
const bool* on_access(const access& a, bool in_bounds);
// Called after a store or atomic changed memory: wakes programs that wait for progress.
void note_progress();
// Whether a store may write memory before the checks see the access: the running program's
// schedule does not preempt at accesses and no debugger may stop there (memory.hpp, fused stores).
bool stores_write_first();
// The launch's progress count (bumped by every store and atomic), 0 outside a launch.
uint64_t progress_epoch();
// The calling program waits (a failed compare-and-swap in a spin loop): yield to the others until
// memory moves on from `seen`, the progress count read before the failed operation (read after
// it, a write by another thread in between would be missed and the wait never end).
void wait_for_progress(const std::source_location& loc, uint64_t seen);
// An op the debugger can step to that is not a memory access (a reduction, a dot; called when
// hooks are on): its name, and its result for `p @LINE` (render(value) on demand).
void on_op(const std::source_location& loc, const char* op,
           std::string (*render)(const void*) = nullptr, const void* value = nullptr);
void report(diagnostic d);
void record_kernel_name(const std::source_location& loc);
// Which value-level checks (uninit, masked, nan, overflow bits) the running launch wants: block
// arithmetic, loads, reductions and math functions test it before doing any checking work.
extern std::atomic<uint32_t> value_checks;
// A reduction or math function produced values the checks look at (see value_event).
void on_value(const value_event& e);
// i32 block arithmetic wrapped in `lanes` lanes; the first one computed a `op` b.
void note_i32_overflow(char op, int64_t a, int64_t b, int lanes);
// A program took (atomic_cas that swapped) or released (atomic_xchg) a lock at addr.
void on_lock(const void* addr, bool acquire);
// Striped locks that make atomics atomic across the parallel schedule's threads.
void atomic_lock(const void* addr);
void atomic_unlock(const void* addr);

}  // namespace detail
}  // namespace bv
