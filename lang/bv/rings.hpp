// Which block pointers get an LDS ring on a GPU target, and the dynamic LDS a ring takes: one
// definition for the NVIDIA lowering, which lays the rings out (gpu_backend/bv/gpu/block_ptr.hpp),
// and for the interpreter, which checks that a launch gives its kernel's rings the LDS they need
// (the ring-lds diagnostic) before a GPU would trap on it.
//
// A ring is `count` tile images of R x C 16-bit elements, an 8-byte mbarrier per slot, a 16-byte
// bookkeeping record per wave and 8 bytes for the ring's format hint, rounded up to 128 bytes.
// Only a block pointer over a read-only tensor (ptr<const T>) gets one: a ring's copies of the
// tiles ahead would not see the program's own stores, and an output tile needs no slots.
#pragma once
#include "bv/config.hpp"
#include "bv/layout.hpp"
#include "bv/target.hpp"

namespace bv::rings {

// The target whose block pointers stream through LDS rings (cp.async and the TMA). AMD stages the
// next tiles through registers instead.
inline constexpr target ring_target = target::sm_90;
BV_HD constexpr bool has_rings(target t) { return t == ring_target; }

// Slots a ring holds at most, whatever the launch's stages.
inline constexpr int max_stages = 4;
// Bytes of a ring's per-wave bookkeeping record (the lowering's ring_state).
inline constexpr int state_bytes = 16;

// Whether an R x C tile of 16-bit floats on W waves gets a ring on target t: rows a multiple of
// 32, 32 columns or a multiple of 64, and the waves all along the rows.
BV_HD constexpr bool ring_tile(target t, bool float16, int R, int C, int W) {
  return has_rings(t) && float16 && R % 32 == 0 && (C == 32 || C % 64 == 0) &&
         layout::waves_n(t, W) == 1;
}

// The slots of a ring made under a launch's `stages` (below 2: no rings, nothing is pipelined),
// at most max_slots (make_block_ptr's max_slots<N>).
BV_HD constexpr int slot_count(int stages, int max_slots) {
  if (stages < 2) return 0;
  const int s = stages < max_stages ? stages : max_stages;
  return s < max_slots ? s : max_slots;
}

// A ring's bytes: its slots, an mbarrier per slot, the waves' records and the format hint.
BV_HD constexpr int ring_bytes(int tile_bytes, int count, int waves) {
  const int b = count * tile_bytes + 8 * count + state_bytes * waves + 8;
  return (b + 127) / 128 * 128;
}

// The dynamic LDS the ring of one block pointer takes on target t (0: it has none): an R x C tile
// of 16-bit floats or not, on W waves, under a launch's `stages`, capped at max_slots.
BV_HD constexpr int lds_bytes(target t, bool float16, int R, int C, int W, int stages,
                              int max_slots) {
  const int count = slot_count(stages, max_slots);
  return ring_tile(t, float16, R, C, W) && count > 0 ? ring_bytes(R * C * 2, count, W) : 0;
}

}  // namespace bv::rings
