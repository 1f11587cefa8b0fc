// The arguments of block pointers (Triton's tl.make_block_ptr / tl.advance / tl.load with
// boundary_check), shared by both backends: make_block_ptr<R, C>(p, base, {rows, cols},
// {row_stride, col_stride}, {row_offset, col_offset}); advance(bp, {d_rows, d_cols});
// load(bp, boundary_check(0, 1)).
#pragma once
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

#include "bv/config.hpp"
#include "bv/math.hpp"
#include "bv/rules.hpp"

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

// make_block_ptr's optional last argument, max_slots<N>: on the GPU, the block pointer's LDS ring
// takes at most N of the slots the launch's stages give each ring. A tile held through a loop
// (along {0, 0}) is read from one slot for the whole loop, so max_slots<1> leaves the LDS its
// other slots would take to the moving streams, whose rings can then be deeper at the same LDS.
// Values are the same at any count; the interpreter, which has no rings, only checks N.
template <int N>
struct max_slots_t {
  static_assert(rules::max_slots<N>());
  static constexpr int value = N;
};
template <int N>
inline constexpr max_slots_t<N> max_slots{};
// make_block_ptr without max_slots: no cap below the launch's stages.
inline constexpr int unlimited_slots = 1 << 20;

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

// How many steps for_range(p, lo, hi, step, ...) runs: k = lo, lo + step, ... below hi (none
// where lo >= hi or step <= 0).
BV_HD constexpr int for_range_steps(int lo, int hi, int step) {
  return lo < hi && step > 0 ? static_cast<int>(cdiv(static_cast<int64_t>(hi) - lo, step)) : 0;
}

// along(bp, {d_rows, d_cols}, boundary_check(...)): the tiles a for_range streams from a block
// pointer. Step i of for_range(p, lo, hi, step, init, along(bp, by, bc), ..., body) hands its body
// load(advance(bp, {i * by.d0, i * by.d1}), bc), as Triton's tl.range pipelines a loop's loads of
// block pointers: on the GPU the loop issues each tile's copy stages - 1 steps ahead and refills a
// slot as soon as every wave is past the step that read it, with no bookkeeping in the step
// (gpu_backend/bv/gpu/tile_loop.hpp; on AMD the next step's tiles are loaded during this step's
// dot). The stream owns the block pointer's tiles while the loop runs: the body reads them only
// through its arguments, not by loading bp itself, and does not store over memory that a later
// step's tile covers (a pipelined loop may have read that tile already).
// A stream along {0, 0} holds one tile through the loop (the attention forward's q): it is loaded
// once, at the first step, and every step gets that tile; on the GPU it stays in its ring's slot
// with nothing checked at the steps, as the moving streams' tiles do.
// The interpreter reports a stream's loads (out of bounds, uncoalesced, ...) at its along().
// for_range<Stages>(...) is Triton's tl.range(..., num_stages=Stages) where the loop itself holds
// the tiles between global memory and the dot: on AMD, 2 or more stage each dot of two of the
// loop's streamed 16-bit tiles through two LDS images in turn, so that a step has one barrier, not
// two (dot.hpp); 0 and 1, one image. NVIDIA pipelines the loop through the block pointers' rings,
// whose depth is the launch's stages. Values are the same at any Stages.
template <class BP>
requires requires { typename BP::element_type; }
struct tile_stream {
  BP bp;
  index2 by;
  boundary_check bc;
  BV_HD constexpr bool held() const { return by.d0 == 0 && by.d1 == 0; }
#if !BV_GPU
  std::source_location loc;
#endif
};
#if BV_GPU
template <class BP>
requires requires { typename BP::element_type; }
BV_HD constexpr tile_stream<BP> along(const BP& bp, index2 by, boundary_check bc = {}) {
  return {bp, by, bc};
}
#else
template <class BP>
requires requires { typename BP::element_type; }
constexpr tile_stream<BP> along(const BP& bp, index2 by, boundary_check bc = {},
                                std::source_location loc = std::source_location::current()) {
  return {bp, by, bc, loc};
}
#endif
template <class X>
inline constexpr bool is_tile_stream = false;
template <class BP>
inline constexpr bool is_tile_stream<tile_stream<BP>> = true;
template <class X>
concept TileStream = is_tile_stream<std::remove_cvref_t<X>>;

// for_range(p, lo, hi, step, init, args...): args are along(...)... then the body. A parameter
// pack cannot come before the last parameter, so each backend's for_range takes them all, checks
// them here and calls its loop with std::get. (Not detail: the GPU's inline namespace has a detail
// of its own, which would hide this one.)
namespace stream_args {
template <class... X, size_t... I>
constexpr bool streams_first(std::index_sequence<I...>) {
  return (TileStream<std::tuple_element_t<I, std::tuple<X...>>> && ...);
}
template <class... X>
BV_HD constexpr void check() {
  static_assert(streams_first<X...>(std::make_index_sequence<sizeof...(X) - 1>{}),
                "for_range(p, lo, hi, step, init, along(...)..., body): every argument between "
                "init and the body must be a tile stream, along(block_ptr, {d_rows, d_cols}, "
                "boundary_check(...)).");
}
}  // namespace stream_args

}  // namespace bv
