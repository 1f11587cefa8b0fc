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
#include <tuple>

#include "bv/block_ptr_args.hpp"
#include "bv/cpu/memory.hpp"
#include "bv/cpu/program.hpp"
#include "bv/cpu/ptr.hpp"
#include "bv/rings.hpp"

namespace bv {

template <class T, int R, int C, int W>
struct block_ptr {
  ptr<T> base;
  int shape0 = 0, shape1 = 0, stride0 = 0, stride1 = 0, off0 = 0, off1 = 0;
  // Which of its program's make_block_ptr calls made it (1, 2, ...; copies and advances keep it):
  // on a GPU, the LDS ring its loads go through.
  int id = 0;
  int slot_cap = unlimited_slots;  // make_block_ptr's max_slots<N>: its GPU ring's cap
  using element_type = T;
  using shape_type = shape<R, C>;
  static constexpr int waves = W;
};

namespace detail {
// Counts the LDS ring a read-only block pointer of an R x C tile would take on the target's GPU
// under the running launch's stages, and reports ring-lds where the launch's dynamic LDS does not
// hold the program's rings (src/rings.cpp).
void claim_ring(program_state& s, bool float16, int R, int C, int W, int max_slots,
                const std::source_location& loc);
}  // namespace detail

// make_block_ptr<R, C>(p, base, {rows, cols}, {row_stride, col_stride}, {row_off, col_off}):
// an R x C tile of the rows x cols tensor at base, starting at the given offsets. max_slots<N>
// caps its GPU ring (bv/block_ptr_args.hpp); nothing here is pipelined, so values do not change,
// but the ring's LDS is counted against the launch's (ring-lds).
template <int R, int C, class T, int W, int N = unlimited_slots>
block_ptr<T, R, C, W> make_block_ptr(
    const program<W>& p, ptr<T> base, index2 shape, index2 strides, index2 offsets,
    max_slots_t<N> = {}, const std::source_location& loc = std::source_location::current()) {
  static_assert(rules::block_ptr_tile<R, C>());
  if constexpr (std::is_const_v<T>)
    if (p.s != nullptr)
      detail::claim_ring(*p.s, is_16bit_float<std::remove_const_t<T>>, R, C, W, N, loc);
  return {base,       shape.d0,   shape.d1,   strides.d0,
          strides.d1, offsets.d0, offsets.d1, p.s != nullptr ? ++p.s->block_ptrs_made : 0,
          N};
}

// Dynamic LDS bytes a GPU launch gives block pointers of these tiles with `stages` ring slots each,
// at most MaxSlots (launchers pass it in gpu_tuning, bv/launch_tuning.hpp): the figure of the
// target whose block pointers have rings (bv/rings.hpp), so that the interpreter, running that
// target, holds the rings its kernel makes to the LDS the launcher gave them (ring-lds). Nothing
// here is pipelined; values do not depend on it.
template <class T, int R, int C, int W, int MaxSlots = unlimited_slots>
constexpr int block_ptr_lds_bytes(int stages) {
  return rings::lds_bytes(rings::ring_target, is_16bit_float<std::remove_const_t<T>>, R, C, W,
                          stages, MaxSlots);
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

namespace detail {
template <class T, int R, int C, int W>
auto load_bp(const block_ptr<T, R, C, W>& bp, boundary_check bc, const std::source_location& loc) {
  if (block_ptr_inside(bp, bc)) return load(block_ptr_lanes(bp), loc);
  return load(block_ptr_lanes(bp), block_ptr_mask(bp, bc), 0, loc);
}
// A load of a block pointer that a running for_range streams (stream-load, an error: on a GPU the
// loop's pipeline owns its ring).
void streamed_load(program_state& s, const std::source_location& loc);
inline void check_not_streamed(int id, const std::source_location& loc) {
  if (id == 0) return;
  program_state* s = current();
  if (s == nullptr) return;
  for (int i = 0; i < s->n_streams; ++i)
    if (s->streams[i].id == id) {
      s->streams[i].id = 0;  // said once a loop
      return streamed_load(*s, loc);
    }
}
// A moving stream whose block pointer has max_slots<1> (stream-slots, a note): on a GPU its ring
// cannot hold the next step's tile while this step's runs, so each step waits for its own copy.
void unpipelined_stream(program_state& s, const std::source_location& loc);
// A for_range's streams, marked in program_state::streams while its loop runs, with the step the
// loop is at.
class streaming_scope {
 public:
  template <class... BP>
  streaming_scope(program_state* s, int steps, const tile_stream<BP>&... ts) : s_(s) {
    if (s_ == nullptr) return;
    n_ = s_->n_streams;
    (add(ts, steps), ...);
  }
  ~streaming_scope() {
    if (s_ != nullptr) s_->n_streams = n_;
  }
  streaming_scope(const streaming_scope&) = delete;
  streaming_scope& operator=(const streaming_scope&) = delete;
  void at_step(int i) {
    if (s_ == nullptr) return;
    for (int j = n_; j < s_->n_streams; ++j) s_->streams[j].step = i;
  }

 private:
  template <class T, int R, int C, int W>
  void add(const tile_stream<block_ptr<T, R, C, W>>& ts, int steps) {
    if (s_->n_streams >= program_state::k_max_streamed) return;
    const block_ptr<T, R, C, W>& b = ts.bp;
    program_state::stream_span& sp = s_->streams[s_->n_streams++];
    sp = {};
    sp.id = b.id;
    sp.moving = !ts.held() && b.base.alloc != nullptr;
    if (!sp.moving) return;
    sp.buffer = b.base.alloc->buffer;
    sp.base = static_cast<int64_t>(b.base.p - static_cast<const T*>(b.base.alloc->buffer));
    sp.shape0 = b.shape0, sp.shape1 = b.shape1, sp.stride0 = b.stride0, sp.stride1 = b.stride1;
    sp.off0 = b.off0, sp.off1 = b.off1, sp.by0 = ts.by.d0, sp.by1 = ts.by.d1;
    sp.rows = R, sp.cols = C, sp.steps = steps;
    sp.along = &ts.loc;
  }
  program_state* s_;
  int n_ = 0;
};
}  // namespace detail

// load(bp): the tile, unchecked (every lane must be inside the tensor); load(bp, boundary_check(0,
// 1)): lanes outside the checked dimensions read as zero.
template <class T, int R, int C, int W>
auto load(const block_ptr<T, R, C, W>& bp,
          std::source_location loc = std::source_location::current()) {
  detail::check_not_streamed(bp.id, loc);
  return detail::load_bp(bp, boundary_check{}, loc);
}
template <class T, int R, int C, int W>
auto load(const block_ptr<T, R, C, W>& bp, boundary_check bc,
          std::source_location loc = std::source_location::current()) {
  detail::check_not_streamed(bp.id, loc);
  return detail::load_bp(bp, bc, loc);
}

// for_range(p, lo, hi, step, init, along(bp, by, bc)..., body): the loop acc = init; for step i
// at k = lo + i * step, acc = body(k, load(advance(bp, {i * by.d0, i * by.d1}), bc)..., acc), one
// tile per stream (lang's tile_stream; the GPU runs the same loop as a TMA pipeline, tile_loop.hpp
// there). The tiles' loads are checked as any other and reported at their stream's along(). The
// body may not load a streamed block pointer itself (stream-load), nor store over a later step's
// tile (stream-store, checks/stream_store.cpp). A stream along {0, 0} is loaded at the first step
// only (lang's tile_stream::held).
namespace detail {
template <class T, int R, int C, int W>
auto stream_tile(const tile_stream<block_ptr<T, R, C, W>>& s, int i) {
  return load_bp(advance(s.bp, {i * s.by.d0, i * s.by.d1}), s.bc, s.loc);
}
template <class Acc, class Body, size_t... I, class... BP>
Acc stream_loop(program_state* st, int lo, int hi, int step, Acc acc, Body& body,
                std::index_sequence<I...>, const tile_stream<BP>&... s) {
  static_assert(rules::for_range_body<
                std::invoke_result_t<Body&, int, const decltype(stream_tile(s, 0))&..., const Acc&>,
                Acc>());
  // A step that never reaches hi: reported at the first stream's along() (a defaulted
  // source_location cannot follow the arguments' pack), which is the loop's line unless the
  // stream was made elsewhere.
  if (lo < hi && step <= 0) {
    const std::source_location locs[] = {s.loc...};
    bad_loop_step(*st, lo, hi, step, locs[0]);
    return acc;
  }
  if (st != nullptr)
    ((!s.held() && s.bp.slot_cap < 2 ? unpipelined_stream(*st, s.loc) : void()), ...);
  streaming_scope scope(st, for_range_steps(lo, hi, step), s...);
  using tiles = std::tuple<decltype(stream_tile(s, 0))...>;
  tiles first{};  // step 0's tiles: the held streams' for every step
  int i = 0;
  for (int k = lo; k < hi; k += step, ++i) {
    scope.at_step(i);
    // The tiles in the order the streams are written, as a kernel's own loop would load them.
    const tiles t{(i > 0 && s.held() ? std::get<I>(first) : stream_tile(s, i))...};
    if (i == 0) first = t;
    acc = std::apply([&](const auto&... x) { return body(k, x..., static_cast<const Acc&>(acc)); },
                     t);
  }
  return acc;
}
// for_range's arguments after init as a tuple: the streams, then the body.
template <class Acc, class Args, size_t... I>
Acc stream_loop_of(program_state* st, int lo, int hi, int step, Acc acc, const Args& args,
                   std::index_sequence<I...>) {
  return stream_loop(st, lo, hi, step, acc, std::get<sizeof...(I)>(args),
                     std::index_sequence<I...>{}, std::get<I>(args)...);
}
}  // namespace detail
// for_range<Stages>: Stages only says how a GPU pipelines the loop (lang's block_ptr_args.hpp);
// every step's values are the same at any Stages.
template <int Stages = 0, int W, class Acc, class S0, class... Rest>
requires(TileStream<S0> && sizeof...(Rest) >= 1) Acc
    for_range(const program<W>& p, int lo, int hi, int step, Acc acc, S0&& s0, Rest&&... rest) {
  static_assert(rules::loop_stages<Stages>());
  stream_args::check<S0, Rest...>();
  return detail::stream_loop_of(p.s, lo, hi, step, acc, std::forward_as_tuple(s0, rest...),
                                std::make_index_sequence<sizeof...(Rest)>{});
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
