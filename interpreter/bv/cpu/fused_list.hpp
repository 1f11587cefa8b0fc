// The fused blocks of the running thread that have not computed their lanes yet, and the blocks
// each one reads (fused.hpp says what a fused block is).
//
// A fused block refers to its operands instead of copying them, so an operand must not change
// or end while a fused block still needs it: before a float block is written, assigned or
// destroyed, the fused blocks that read it compute their lanes (settle). Operands live on the
// program's fiber, which stays on one thread, so a short thread-local list is enough; when it is
// full, a new fused block computes its lanes at once, as an unfused operation would. Each operand
// counts the entries that read it (its `readers`), so a block nobody reads changes and ends
// without looking at the list.
#pragma once
#include <cstdint>

namespace bv::detail {

struct fused_entry {
  static constexpr int k_leaves = 8;
  const void* node = nullptr;
  void (*settle)(const void* node) = nullptr;  // computes the lanes; drops the entry
  int n = 0;
  uint8_t* leaves[k_leaves] = {};  // each operand's count of readers, which also names it
};
struct fused_list {
  static constexpr int k_max = 16;
  int n = 0;
  fused_entry e[k_max];
};
inline thread_local constinit fused_list t_fused{};

// Registers `node` as reading the n blocks whose reader counts are at leaves; false when the
// list is full or the node reads too many blocks (it computes its lanes at once then).
inline bool fused_add(const void* node, void (*settle)(const void*), uint8_t* const* leaves,
                      int n) {
  fused_list& f = t_fused;
  if (f.n == fused_list::k_max || n > fused_entry::k_leaves) return false;
  fused_entry& e = f.e[f.n++];
  e.node = node;
  e.settle = settle;
  e.n = n;
  for (int i = 0; i < n; ++i) {
    e.leaves[i] = leaves[i];
    ++*leaves[i];
  }
  return true;
}
inline void fused_drop(const void* node) {
  fused_list& f = t_fused;
  for (int i = f.n - 1; i >= 0; --i)
    if (f.e[i].node == node) {
      for (int k = 0; k < f.e[i].n; ++k) --*f.e[i].leaves[k];
      f.e[i] = f.e[--f.n];
      return;
    }
}
// Before a block with readers changes or ends: the fused blocks reading it (readers, its count)
// compute their lanes, each dropping its entry.
inline void settle_fused_readers(const uint8_t* readers) {
  fused_list& f = t_fused;
  while (*readers) {
    int i = 0;
    for (; i < f.n; ++i) {
      bool reads = false;
      for (int k = 0; k < f.e[i].n; ++k) reads |= f.e[i].leaves[k] == readers;
      if (reads) break;
    }
    if (i == f.n) return;  // not reached: every count has its entries
    f.e[i].settle(f.e[i].node);
  }
}

}  // namespace bv::detail
