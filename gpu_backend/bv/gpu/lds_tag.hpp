// The tags of the lowering's LDS buffers, in one place. prim::lds<T, N, Tag>() (wave.hpp) is one
// buffer of the kernel for each (T, N, Tag): two ops with one tag share a buffer wherever their
// element type and size agree as well. That is safe for an op that waits at a barrier before it
// writes its buffer and reads it before the next op that uses LDS begins: what every tag below
// but double_images holds to (its ops are each other's only neighbours in time, so the barrier
// each begins with keeps them apart). An op that leaves out that first barrier, relying on no
// other op writing its buffer between two of its own uses, takes a tag no other op has.
// (The emulator's tests take their own tags from 90 up.)
#pragma once

namespace bv::gpu::lds_tag {
enum : int {
  program_fold = 1,  // reduce.hpp: the waves' partial results of a fold over a whole block
  axis_fold = 2,     // reduce.hpp: the waves' partial results of a fold along an axis
  dot_a = 3,         // dot.hpp dot_lds (AMD): a's image, a K slice of it
  dot_b = 4,         // dot.hpp dot_lds (AMD): b's image
  scratch_a = 5,     // block.hpp through_lds (a layout conversion); dot.hpp dot_simt's a (NVIDIA)
  scratch_b = 6,     // block.hpp transpose; dot.hpp dot_simt's b (NVIDIA)
  broadcast = 7,     // memory.hpp from_thread0: one value from thread 0 to the program
  atomic_old = 8,    // memory.hpp: a block atomic's old values, from their owners to every copy
  wg_trans_b = 11,   // dot.hpp wg_dot_trans_a (NVIDIA): b in wgmma's image
  wg_trans_x = 13,   // dot.hpp wg_dot_trans_a (NVIDIA): x, whose transpose is a
  // dot.hpp dot_lds_double (AMD): two images taken in turn, with one barrier a dot, after the
  // stores: no other op may write them.
  double_images = 20,
};
}  // namespace bv::gpu::lds_tag
