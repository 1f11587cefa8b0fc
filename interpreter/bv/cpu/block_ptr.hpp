// Block pointers on the interpreter (Triton's tl.make_block_ptr, tl.advance, and tl.load /
// tl.store of a block pointer with boundary_check): a base pointer, the tensor's 2-D shape and
// strides, and the offsets of an R x C tile. A load or store is the ordinary pointer-block load or
// store of base + rows * stride0 + cols * stride1, masked by the checked dimensions, so it is
// checked like any other (out-of-bounds lanes of unchecked dimensions are reported).
//
// The GPU backend lowers the same source to an asynchronous, pipelined copy into LDS
// (gpu_backend/bv/gpu/block_ptr.hpp); here nothing is pipelined and the values are the same.
#pragma once
#include <climits>
#include <source_location>

#include "bv/block_ptr_args.hpp"
#include "bv/cpu/memory.hpp"
#include "bv/cpu/program.hpp"
#include "bv/cpu/ptr.hpp"

namespace bv {

template <class T, int R, int C, int W>
struct block_ptr {
  ptr<T> base;
  int shape0 = 0, shape1 = 0, stride0 = 0, stride1 = 0, off0 = 0, off1 = 0;
  using element_type = T;
  using shape_type = shape<R, C>;
  static constexpr int waves = W;
};

// make_block_ptr<R, C>(p, base, {rows, cols}, {row_stride, col_stride}, {row_off, col_off}):
// an R x C tile of the rows x cols tensor at base, starting at the given offsets.
template <int R, int C, class T, int W>
block_ptr<T, R, C, W> make_block_ptr(const program<W>&, ptr<T> base, index2 shape, index2 strides,
                                     index2 offsets) {
  static_assert(rules::block_ptr_tile<R, C>());
  return {base, shape.d0, shape.d1, strides.d0, strides.d1, offsets.d0, offsets.d1};
}

// Dynamic LDS bytes a GPU launch gives block pointers of these tiles with `stages` ring slots each
// (launchers pass it in gpu_tuning, bv/launch_tuning.hpp): none here, where nothing is pipelined.
template <class T, int R, int C, int W>
constexpr int block_ptr_lds_bytes(int /*stages*/) {
  return 0;
}

namespace detail {
// The tile's pointer block. Offsets are i32, as on the GPU: when every lane's offset fits, the
// block is made from its affine form (no index blocks built; loads and stores copy row by row);
// otherwise from i32 index arithmetic, which wraps as the GPU does and which the overflow check
// reports.
template <class T, int R, int C, int W>
auto block_ptr_lanes(const block_ptr<T, R, C, W>& bp) {
  const affine f = fit_affine<int32_t, R, C>(affine{
      true, int64_t(bp.off0) * bp.stride0 + int64_t(bp.off1) * bp.stride1, bp.stride0, bp.stride1});
  using P = ptr_block<T, shape<R, C>, W>;
  if (f.known) return P(bp.base.p, bp.base.alloc, f);
  const program<W> p{};
  auto r = bp.off0 + arange<R>(p);
  auto c = bp.off1 + arange<C>(p);
  return P(bp.base + (r.col() * bp.stride0 + c.row() * bp.stride1));
}
// Whether every lane is inside the checked dimensions (the common case: no mask at all).
template <class T, int R, int C, int W>
bool block_ptr_inside(const block_ptr<T, R, C, W>& bp, boundary_check bc) {
  return (!bc.dim0 || (bp.off0 >= 0 && int64_t(bp.off0) + R <= bp.shape0)) &&
         (!bc.dim1 || (bp.off1 >= 0 && int64_t(bp.off1) + C <= bp.shape1));
}
// In-range lanes of the checked dimensions (an unchecked dimension is always in range).
template <class T, int R, int C, int W>
basic_block<bool, shape<R, C>, W> block_ptr_mask(const block_ptr<T, R, C, W>& bp,
                                                 boundary_check bc) {
  auto in = [](bool checked, int64_t i, int n) { return !checked || (i >= 0 && i < n); };
  bool col_ok[C];
  for (int c = 0; c < C; ++c) col_ok[c] = in(bc.dim1, int64_t(bp.off1) + c, bp.shape1);
  basic_block<bool, shape<R, C>, W> m;
  bool* mv = m.data();
  for (int r = 0; r < R; ++r) {
    const bool row_ok = in(bc.dim0, int64_t(bp.off0) + r, bp.shape0);
    for (int c = 0; c < C; ++c) mv[r * C + c] = row_ok && col_ok[c];
  }
  return m;
}
}  // namespace detail

// load(bp): the tile, unchecked (every lane must be inside the tensor); load(bp, boundary_check(0,
// 1)): lanes outside the checked dimensions read as zero.
template <class T, int R, int C, int W>
auto load(const block_ptr<T, R, C, W>& bp,
          std::source_location loc = std::source_location::current()) {
  return load(detail::block_ptr_lanes(bp), loc);
}
template <class T, int R, int C, int W>
auto load(const block_ptr<T, R, C, W>& bp, boundary_check bc,
          std::source_location loc = std::source_location::current()) {
  if (detail::block_ptr_inside(bp, bc)) return load(detail::block_ptr_lanes(bp), loc);
  return load(detail::block_ptr_lanes(bp), detail::block_ptr_mask(bp, bc), 0, loc);
}

// store(bp, value) and store(bp, value, boundary_check(...)): lanes outside the checked
// dimensions are not written.
template <class T, int R, int C, int W, class V>
requires(Block<V> ||
         Scalar<V>) void store(const block_ptr<T, R, C, W>& bp, const V& value,
                               std::source_location loc = std::source_location::current()) {
  store(detail::block_ptr_lanes(bp), value, loc);
}
template <class T, int R, int C, int W, class V>
requires(Block<V> ||
         Scalar<V>) void store(const block_ptr<T, R, C, W>& bp, const V& value, boundary_check bc,
                               std::source_location loc = std::source_location::current()) {
  if (detail::block_ptr_inside(bp, bc))
    store(detail::block_ptr_lanes(bp), value, loc);
  else
    store(detail::block_ptr_lanes(bp), value, detail::block_ptr_mask(bp, bc), loc);
}

}  // namespace bv
