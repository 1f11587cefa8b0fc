// The arguments of block pointers (Triton's tl.make_block_ptr / tl.advance / tl.load with
// boundary_check), shared by both backends: make_block_ptr<R, C>(p, base, {rows, cols},
// {row_stride, col_stride}, {row_offset, col_offset}); advance(bp, {d_rows, d_cols});
// load(bp, boundary_check(0, 1)).
#pragma once
#include "bv/config.hpp"

namespace bv {

// Two ints: a block pointer's tensor shape, strides, offsets or an advance.
struct index2 {
  int d0 = 0, d1 = 0;
};

// Which dimensions a block-pointer load or store checks against the tensor's shape (Triton's
// boundary_check=(0, 1)); elements outside are read as zero (padding_option="zero") and not
// written. boundary_check(0) checks the rows only, boundary_check(1) the columns only.
struct boundary_check {
  bool dim0 = false, dim1 = false;
  BV_HD constexpr boundary_check() = default;
  BV_HD constexpr explicit boundary_check(int a) { set(a); }
  BV_HD constexpr boundary_check(int a, int b) {
    set(a);
    set(b);
  }

 private:
  BV_HD constexpr void set(int d) {
    if (d == 0) dim0 = true;
    if (d == 1) dim1 = true;
  }
};

// advance(bp, {d_rows, d_cols}): the same block pointer moved by that many rows and columns. One
// definition for every backend's block_ptr (whatever else a backend keeps in it, such as the GPU's
// LDS ring, moves with it).
template <class BP>
requires requires(BP b) {
  b.off0 += 1;
  b.off1 += 1;
  typename BP::element_type;
}
BV_HD constexpr BP advance(const BP& bp, index2 by) {
  BP out = bp;
  out.off0 += by.d0;
  out.off1 += by.d1;
  return out;
}

}  // namespace bv
