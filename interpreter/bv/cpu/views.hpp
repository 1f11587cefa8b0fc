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
// Views live on the running program's fiber, which stays on one thread, and never across a
// yield: a short thread-local list holds them. When it is full a load copies, as before.
#pragma once
#include <cstddef>

namespace bv::detail {

struct view_entry {
  const char* lo = nullptr;  // the memory read, [lo, hi)
  const char* hi = nullptr;
  const void* block = nullptr;
  void (*settle)(const void* block) = nullptr;  // copies the lanes in; drops the entry
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
  v.e[v.n++] = {p, p + bytes, block, settle};
  return true;
}
inline void view_drop(const void* block) {
  view_list& v = t_views;
  for (int i = 0; i < v.n; ++i)
    if (v.e[i].block == block) {
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
inline void settle_all_views() {
  view_list& v = t_views;
  while (v.n) v.e[0].settle(v.e[0].block);
}

}  // namespace bv::detail
