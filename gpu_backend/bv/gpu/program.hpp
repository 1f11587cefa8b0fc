// The program handle on the GPU: a workgroup of W waves; ids come from the grid.
#pragma once
#include "bv/gpu/block.hpp"

namespace bv {
inline namespace gpu_lang {

template <int W = default_waves>
struct program {
  static_assert(rules::program_waves<W>());
  static constexpr int waves = W;
  static constexpr int threads = W * gpu::prim::wave_size;
  // Set by a launch with a gpu_tuning (runtime.hpp): how many stages a block pointer's LDS
  // ring gets (0: none), and the bytes of dynamic LDS block pointers have taken so far (their
  // rings are carved from it in creation order; block_ptr.hpp). Both are constants of the
  // inlined kernel, so ring addresses fold to immediates.
  int stages = 0;
  mutable int lds_taken = 0;
  mutable int lds_meta_taken = 0;  // bytes of ring bookkeeping taken from the end

  BV_DI int id(int axis) const {
    return gpu::prim::program_id(axis < 0 ? 0 : (axis > 2 ? 2 : axis));
  }
  BV_DI int num_programs(int axis) const {
    return gpu::prim::num_programs(axis < 0 ? 0 : (axis > 2 ? 2 : axis));
  }
};

// arange<N>(p, start): start, start + 1, ..., start + N - 1 as an i32 block.
template <int N, int W>
BV_DI basic_block<int32_t, shape<N>, W> arange(const program<W>&, int32_t start = 0) {
  basic_block<int32_t, shape<N>, W> b;
#pragma unroll
  for (int i = 0; i < b.NF; ++i) b.f[i] = start + gpu::flat_of<N, W>(i);
#pragma unroll
  for (int i = 0; i < b.NRow; ++i) b.r[i] = start + gpu::col_of<1, N, W>(i);
#pragma unroll
  for (int i = 0; i < b.NCol; ++i) b.c[i] = start + gpu::row_of<N, 1, W>(i);
  return b;
}

template <class T, int... D, int W, class V>
BV_DI basic_block<T, shape<D...>, W> full(const program<W>&, V value) {
  basic_block<T, shape<D...>, W> b;
  const T x = cvt<T>(value);
  detail::generate(b, [&](auto, int, int) { return x; });
  return b;
}
template <class T, int... D, int W>
BV_DI basic_block<T, shape<D...>, W> zeros(const program<W>& p) {
  return full<T, D...>(p, 0);
}
template <class T, class S, int W>
BV_DI basic_block<T, S, W> zeros_like(const basic_block<T, S, W>&) {
  basic_block<T, S, W> b;
  detail::generate(b, [&](auto, int, int) { return cvt<T>(0); });
  return b;
}
template <class T, class S, int W, class V>
BV_DI basic_block<T, S, W> full_like(const basic_block<T, S, W>&, V value) {
  basic_block<T, S, W> b;
  const T x = cvt<T>(value);
  detail::generate(b, [&](auto, int, int) { return x; });
  return b;
}

}  // namespace gpu_lang
}  // namespace bv
