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
// too. A steady view stays in the list while other programs run on the thread.
//
// A check may want to look at a view's lanes as they were loaded (the nan check tests them for
// NaN/Inf read from memory) without paying for it at the load. It sets a watch on the view
// (view_watch_set): the watch is called once, with the view's entry, when the view ends or
// settles (the memory still as loaded), before its program may switch out (a steady view's watch
// runs then, so that what it finds is noted on the program that loaded it), or when the check
// asks for every watch now (run_view_watches). What a watch does is the check's business.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bv::detail {

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

struct view_entry;
// A check's watch on a view (see above), and the test of the lanes at lo it was set with.
using view_watch = void (*)(const view_entry& e);
using view_test = bool (*)(const void* lo);
struct view_entry {
  const char* lo = nullptr;  // the memory read, [lo, hi)
  const char* hi = nullptr;
  bool steady = false;  // lo..hi lies in a read-only buffer of the launch
  const void* block = nullptr;
  void (*settle)(const void* block) = nullptr;  // copies the lanes in; drops the entry
  view_watch watch = nullptr;                   // set until it has run
  view_test test = nullptr;
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
// A watch on the view of `block`, run once (see above).
inline void view_watch_set(const void* block, view_watch watch, view_test test) {
  view_list& v = t_views;
  for (int i = v.n - 1; i >= 0; --i)
    if (v.e[i].block == block) {
      v.e[i].watch = watch;
      v.e[i].test = test;
      return;
    }
}
inline void run_watch(view_entry& e) {
  if (!e.watch) return;
  const view_watch w = e.watch;
  e.watch = nullptr;
  w(e);
}
// Every watch now, on views that stay (a check asks what its watches would find).
inline void run_view_watches() {
  view_list& v = t_views;
  for (int i = 0; i < v.n; ++i) run_watch(v.e[i]);
}
inline void view_drop(const void* block) {
  view_list& v = t_views;
  for (int i = 0; i < v.n; ++i)
    if (v.e[i].block == block) {
      run_watch(v.e[i]);
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
// steady ones stay, and run their watch now, while their program runs.
inline void settle_all_views() {
  view_list& v = t_views;
  for (int i = 0; i < v.n;) {
    if (v.e[i].steady) {
      run_watch(v.e[i]);
      ++i;
    } else {
      v.e[i].settle(v.e[i].block);  // removes entry i
    }
  }
}

}  // namespace bv::detail
