// How the AMD lowering stages a dot's operands in LDS (gpu_backend/bv/gpu/dot.hpp), as a rule the
// kernels' LDS models (attention_fwd_lds_bytes) compute with too, so that a model and the lowering
// cannot disagree: both operands go through LDS read along K, a as [M][KS + pad] and b as
// [N][KS + pad], K in slices of KS k's, one slice at a time between two barriers.
#pragma once
#include "bv/config.hpp"

namespace bv::layout {

// Elements of padding per LDS row: one lane's read of an MFMA operand (4 16-bit k's, 8 bytes; one
// f32, 4 bytes). A slice's row is 128 bytes, 32 banks of 4, so row r starts at bank 2r (16-bit) or
// r (f32) and the lanes of one read phase (16 lanes of 8 bytes, 32 of 4), which read the same k's
// of consecutive rows, fall in distinct banks. (8 elements put 16-bit rows 4 banks apart, two lanes
// a bank, and f32 rows 8 apart, eight.)
BV_HD constexpr int dot_lds_pad(int bytes) { return bytes == 2 ? 4 : 1; }

// The k's a slice holds: 128 bytes of a row (64 16-bit k's, 32 f32), or all of K where K is no
// longer or not a whole number of slices, or a slice would not hold whole spans of both operands
// along K (a_span, b_span: the k's one wave's lanes cover in a register of each). A slice's
// images take KS / K of the LDS of the whole operands (q k^T at head dimension 128: half), for
// two barriers more a slice, and a kernel's dots of the same element type reuse them where their
// sizes agree (a buffer is one per operand, element type and size). A dot into a 16-bit
// accumulator is staged whole (its sums are rounded once, after all of K).
BV_HD constexpr int dot_k_slice(int bytes, int k, int a_span, int b_span) {
  const int ks = 128 / bytes;
  return k > ks && k % ks == 0 && ks % a_span == 0 && ks % b_span == 0 ? ks : k;
}

}  // namespace bv::layout
