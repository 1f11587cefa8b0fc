// Loaded blocks that read memory in place. A whole, unmasked, contiguous load does not copy its
// lanes: the block keeps a pointer to them (a "view"), and arithmetic, reductions and stores read
// memory directly (add's two loads were two 4 KB copies per program before its one add pass).
//
// What a load returns must not change afterwards, so a view is settled (its lanes copied into
// the block) before anything could write the memory it reads:
// - a store by the same program into the same buffer settles the views of that buffer first;
// - an atomic is a point where other programs' writes become visible: it settles every view;
// - a program that yields (a spin on a lock, the shuffled schedule's preemption) settles every
//   view first, since other programs run before it resumes.
// Other programs on other threads write a buffer this program reads only in a racy kernel, which
// the race check reports; there the read may see the other program's write, as on a GPU.
//
// Views live on the running program's fiber, which stays on one thread: a short thread-local
// list holds them. When it is full a load copies, as before.
//
// A view of a buffer no program of the launch can write (every tensor argument over it is bound
// to a ptr<const T>: a read-only buffer) is steady: it never settles, across atomics and yields
// too, and its NaN/Inf test waits on its program until a store of NaN asks whether the program
// read any (most programs store none, and never run it); a test that runs is remembered for the
// launch (the w of a row norm, loaded by every program, is tested at most once). A steady view
// stays in the list while other programs run on the thread; its test moves to its program before
// the program yields, so that a NaN it holds is noted on the program that loaded it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bv::detail {

// The nan check must know whether a program read NaN or Inf from memory (it then does not blame
// the program for NaNs it stores). A view's values are tested when the view ends (dropped or
// settled, the memory still as loaded) or when a store of NaN asks, not at the load: by then
// the kernel's arithmetic has brought them into the cache, where the test at the load met them
// first, in memory, and stalled on them.
// Notes on the running program that it read NaN/Inf from memory (src/scheduler.cpp).
void note_nonfinite_read();
// The test of a steady view's lanes at lo, kept on the running program until a store of NaN asks
// (or run now when it has no room); and running the kept ones (src/scheduler.cpp).
void defer_steady_scan(const char* lo, bool (*test)(const void*));
void run_steady_scans();

// The read-only buffers of the running launch (set by the scheduler on each of its threads).
struct read_only_set {
  static constexpr int k_max = 16;
  uint64_t serial = 0;  // the launch's
  int n = 0;
  const char* lo[k_max] = {};
  const char* hi[k_max] = {};
};
inline thread_local constinit const read_only_set* t_read_only = nullptr;
inline bool read_only(const char* lo, const char* hi) {
  const read_only_set* r = t_read_only;
  if (!r) return false;
  for (int i = 0; i < r->n; ++i)
    if (lo >= r->lo[i] && hi <= r->hi[i]) return true;
  return false;
}

struct view_entry {
  const char* lo = nullptr;  // the memory read, [lo, hi)
  const char* hi = nullptr;
  bool steady = false;  // lo..hi lies in a read-only buffer of the launch
  const void* block = nullptr;
  void (*settle)(const void* block) = nullptr;  // copies the lanes in; drops the entry
  // Set while the values are still to be tested for NaN/Inf read from memory (see above).
  bool (*reads_nonfinite)(const void* lo) = nullptr;
};
struct view_list {
  static constexpr int k_max = 8;
  int n = 0;
  view_entry e[k_max];
};
inline thread_local constinit view_list t_views{};

// Registers `block` as reading [lo, lo + bytes); false when the list is full (copy instead).
inline bool view_add(const void* block, const void* lo, std::size_t bytes,
                     void (*settle)(const void*)) {
  view_list& v = t_views;
  if (v.n == view_list::k_max) return false;
  const char* p = static_cast<const char*>(lo);
  v.e[v.n++] = {p, p + bytes, read_only(p, p + bytes), block, settle};
  return true;
}
// The view of `block` is to be tested for NaN/Inf read from memory before it ends.
inline void view_defer_scan(const void* block, bool (*reads_nonfinite)(const void*)) {
  view_list& v = t_views;
  for (int i = v.n - 1; i >= 0; --i)
    if (v.e[i].block == block) {
      v.e[i].reads_nonfinite = reads_nonfinite;
      return;
    }
}
// The launch's answers for steady views: a few slots, by address.
struct scan_memo {
  uint64_t serial = 0;
  const char* lo = nullptr;
  bool (*test)(const void*) = nullptr;
  bool nonfinite = false;
};
inline thread_local constinit scan_memo t_scan_memo[8]{};
// Whether the lanes at lo of a read-only buffer hold NaN/Inf, remembered for the launch.
inline bool steady_nonfinite(const char* lo, bool (*test)(const void*)) {
  if (!t_read_only) return test(lo);
  scan_memo& m = t_scan_memo[(reinterpret_cast<uintptr_t>(lo) >> 12) & 7];
  if (m.serial == t_read_only->serial && m.lo == lo && m.test == test) return m.nonfinite;
  const bool nonfinite = test(lo);
  m = {t_read_only->serial, lo, test, nonfinite};
  return nonfinite;
}
inline void scan_view(view_entry& e) {
  if (!e.reads_nonfinite) return;
  if (e.steady && t_read_only)
    defer_steady_scan(e.lo, e.reads_nonfinite);  // the memory stays as it is for the launch
  else if (e.reads_nonfinite(e.lo))
    note_nonfinite_read();
  e.reads_nonfinite = nullptr;
}
// Every deferred test now (a store of NaN asks whether the program read any).
inline void scan_deferred_views() {
  view_list& v = t_views;
  for (int i = 0; i < v.n; ++i) scan_view(v.e[i]);
  run_steady_scans();
}
inline void view_drop(const void* block) {
  view_list& v = t_views;
  for (int i = 0; i < v.n; ++i)
    if (v.e[i].block == block) {
      scan_view(v.e[i]);
      v.e[i] = v.e[--v.n];
      return;
    }
}
// Before [lo, hi) is written: the views reading any of it take their own copy.
inline void settle_views(const void* lo, const void* hi) {
  view_list& v = t_views;
  for (int i = 0; i < v.n;) {
    const view_entry e = v.e[i];
    if (e.lo < static_cast<const char*>(hi) && static_cast<const char*>(lo) < e.hi)
      e.settle(e.block);  // removes entry i
    else
      ++i;
  }
}
// Before an atomic or a yield: every view that other programs' writes could reach settles;
// steady ones take their deferred test now, while their program runs.
inline void settle_all_views() {
  view_list& v = t_views;
  for (int i = 0; i < v.n;) {
    if (v.e[i].steady) {
      scan_view(v.e[i]);
      ++i;
    } else {
      v.e[i].settle(v.e[i].block);  // removes entry i
    }
  }
}

}  // namespace bv::detail
