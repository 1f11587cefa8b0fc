// The fused blocks of the running thread that have not computed their lanes yet, and the blocks
// each one reads (fused.hpp says what a fused block is).
//
// A fused block refers to its operands instead of copying them, so an operand must not change
// or end while a fused block still needs it: before a float block is written, assigned or
// destroyed, the fused blocks that read it compute their lanes (settle). Operands live on the
// program's fiber, which stays on one thread, so a short thread-local list is enough; when it is
// full, a new fused block computes its lanes at once, as an unfused operation would.
#pragma once

namespace bv::detail {

struct fused_entry {
  static constexpr int k_leaves = 8;
  const void* node = nullptr;
  void (*settle)(const void* node) = nullptr;  // computes the lanes; drops the entry
  int n = 0;
  const void* leaves[k_leaves] = {};
};
struct fused_list {
  static constexpr int k_max = 16;
  int n = 0;
  fused_entry e[k_max];
};
inline thread_local constinit fused_list t_fused{};

// Registers `node` as reading the n blocks at leaves; false when the list is full or the node
// reads too many blocks (it computes its lanes at once then).
inline bool fused_add(const void* node, void (*settle)(const void*), const void* const* leaves,
                      int n) {
  fused_list& f = t_fused;
  if (f.n == fused_list::k_max || n > fused_entry::k_leaves) return false;
  fused_entry& e = f.e[f.n++];
  e.node = node;
  e.settle = settle;
  e.n = n;
  for (int i = 0; i < n; ++i) e.leaves[i] = leaves[i];
  return true;
}
inline void fused_drop(const void* node) {
  fused_list& f = t_fused;
  for (int i = f.n - 1; i >= 0; --i)
    if (f.e[i].node == node) {
      f.e[i] = f.e[--f.n];
      return;
    }
}
// Before `block` changes or ends: the fused blocks reading it compute their lanes.
inline void settle_fused_readers(const void* block) {
  fused_list& f = t_fused;
  for (int i = 0; i < f.n;) {
    const fused_entry& e = f.e[i];
    bool reads = false;
    for (int k = 0; k < e.n; ++k) reads |= e.leaves[k] == block;
    if (reads) {
      e.settle(e.node);  // drops the entry; settling may drop others, so look again from the top
      i = 0;
    } else {
      ++i;
    }
  }
}

}  // namespace bv::detail
