// The program handle a kernel receives: which program it is, how many there are, and (at compile
// time) how many wavefronts it spans. Block constructors take it, so every block knows its waves.
#pragma once
#include <source_location>
#include <type_traits>

#include "bv/cpu/block.hpp"
#include "bv/cpu/runtime.hpp"

namespace bv {

template <int W = default_waves>
struct program {
  static_assert(rules::program_waves<W>());
  static constexpr int waves = W;
  detail::program_state* s = nullptr;

  int id(int axis) const { return s->pid[axis_checked(axis)]; }
  int num_programs(int axis) const { return s->grid[axis_checked(axis)]; }

 private:
  static int axis_checked(int axis) { return axis < 0 ? 0 : (axis > 2 ? 2 : axis); }
};

// arange<N>(p): 0, 1, ..., N-1 as an i32 block (tl.arange(0, N)); arange<N>(p, start) starts there.
template <int N, int W>
basic_block<int32_t, shape<N>, W> arange(const program<W>&, int32_t start = 0) {
  // Lazy: the lanes are written only if something reads them one by one (affine.hpp).
  return basic_block<int32_t, shape<N>, W>::lazy({true, start, 0, 1});
}

// full<T, D...>(p, value), zeros<T, D...>(p): blocks of one value (tl.full, tl.zeros).
template <class T, int... D, int W, class V>
basic_block<T, shape<D...>, W> full(const program<W>&, V value) {
  using B = basic_block<T, shape<D...>, W>;
  if constexpr (is_int<T>)
    return B::lazy(detail::affine_const(static_cast<T>(value)));
  else if constexpr (std::is_same_v<T, bool>)
    return B::uniform(static_cast<bool>(value));
  else
    return B::from(B::array::Constant(static_cast<T>(value)));
}
template <class T, int... D, int W>
basic_block<T, shape<D...>, W> zeros(const program<W>& p) {
  return full<T, D...>(p, 0);
}
// accumulator<T, M, N>(p): an M x N block of zeros for dot to accumulate into
// (acc = dot(a, b, acc)); accumulator<T, M, N>(p, dtype<E>{}): the same for dots of E operands.
// Here it is zeros(); a GPU may keep it in its matrix instructions' own register order until
// something other than dot reads it (gpu_backend/bv/gpu/accumulator.hpp).
template <class T, int... D, int W, class E = void>
basic_block<T, shape<D...>, W> accumulator(const program<W>& p, dtype<E> = {}) {
  static_assert(sizeof...(D) == 2,
                "accumulator<T, M, N>(p) is dot's M x N accumulator: give it two dimensions.");
  return zeros<T, D...>(p);
}
// for_range(p, lo, hi, step, init, body): the loop acc = init; for (k = lo; k < hi; k += step)
// acc = body(k, acc), whose result is acc; body is [&](int k, auto acc) { ...; return acc; }.
// What it adds to a plain for is for the GPU: an accumulator() carried through it may keep one
// step's matrix instructions running into the next (Triton's tl.range pipelines its loop the same
// way); here it is that loop. step must be positive when the loop runs (a loop-step error).
namespace detail {
void bad_loop_step(program_state& s, int lo, int hi, int step, const std::source_location& loc);
}
// (Stages first, as the tile-stream loop's: an explicit for_range<S> must not name a program's
// waves. A loop without streams has nothing to stage; S is only checked.)
template <int Stages = 0, int W, class Acc, class Body>
Acc for_range(const program<W>& p, int lo, int hi, int step, Acc acc, Body&& body,
              std::source_location loc = std::source_location::current()) {
  static_assert(rules::loop_stages<Stages>());
  static_assert(rules::for_range_body<std::invoke_result_t<Body&, int, const Acc&>, Acc>());
  if (lo < hi && step <= 0) {
    detail::bad_loop_step(*p.s, lo, hi, step, loc);
    return acc;
  }
  for (int k = lo; k < hi; k += step) acc = body(k, static_cast<const Acc&>(acc));
  return acc;
}
template <class T, class S, int W>
basic_block<T, S, W> zeros_like(const basic_block<T, S, W>&) {
  return basic_block<T, S, W>::from(basic_block<T, S, W>::array::Zero());
}
template <class T, class S, int W, class V>
basic_block<T, S, W> full_like(const basic_block<T, S, W>&, V value) {
  return basic_block<T, S, W>::from(basic_block<T, S, W>::array::Constant(static_cast<T>(value)));
}

}  // namespace bv
