// What loads tell the nan check (interpreter/src/checks/nan.cpp): whether the running program
// read NaN or Inf from memory, so that it is not blamed for NaNs it merely passes on to a store.
// A copied load is tested at once. A view's lanes (views.hpp) are tested later, through a watch
// on the view: when the view ends or settles (the memory still as loaded) or when a store of NaN
// asks, not at the load, where the test would meet the lanes in memory first and stall on them;
// by then the kernel's arithmetic has brought them into the cache.
#pragma once
#include "bv/cpu/views.hpp"

namespace bv::detail {

// Notes on the running program that it read NaN/Inf from memory.
void nan_note_read();
// The nan check's watch on a view (nan.cpp).
void nan_view_watch(const view_entry& e);
// The view of `block` is to be tested with `reads_nonfinite` (its lanes at the view's memory)
// before it ends.
inline void nan_watch_view(const void* block, view_test reads_nonfinite) {
  view_watch_set(block, &nan_view_watch, reads_nonfinite);
}

}  // namespace bv::detail
