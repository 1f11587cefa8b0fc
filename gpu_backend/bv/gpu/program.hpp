// The program handle on the GPU: a workgroup of W waves; ids come from the grid.
#pragma once
#include "bv/gpu/block.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
inline constexpr int tmap_rings = 4;  // tensor maps a program may take (block_ptr.hpp)
// The rings of a program whose tiles the TMA copies (block_ptr.hpp), for tma_drain: a copy in
// flight into LDS must land before the program ends (the next program on the SM may be given that
// LDS), and unlike cp.async no instruction waits for all of a thread's TMA copies. A local of the
// launch's entry that make_block_ptr fills in: with the kernel inlined, registers.
struct tma_ring_list {
  uint32_t meta[tmap_rings] = {};  // the ring's mbarriers (LDS addresses), then its counts
  int stages[tmap_rings] = {};     // 0: no ring by the TMA at this index
};
}  // namespace detail

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
  // Global memory for the tensor maps of this launch's rings (sm_90a, block_ptr.hpp): room for
  // tmap_rings maps a program for the first tmap_programs programs (nullptr: none), and the
  // number of maps this program has taken so far.
  unsigned char* tmaps = nullptr;
  int tmap_programs = 0;
  mutable int tmaps_taken = 0;
  static constexpr int tmap_rings = detail::tmap_rings;
  detail::tma_ring_list* tma_list = nullptr;  // where make_block_ptr records them
  // The formats earlier programs' first dots copied the first tiles of this kernel's rings again
  // in, by ring in creation order (block_ptr.hpp's first_fmt and fmt_hint): global memory of the
  // kernel's, for its first tmap_rings rings (nullptr: none); the rings this program made so far.
  int* fmt_hints = nullptr;
  mutable int rings_taken = 0;

  BV_DI int id(int axis) const {
    return gpu::prim::program_id(axis < 0 ? 0 : (axis > 2 ? 2 : axis));
  }
  BV_DI int num_programs(int axis) const {
    return gpu::prim::num_programs(axis < 0 ? 0 : (axis > 2 ? 2 : axis));
  }
};

namespace detail {
// At the end of a program (thread 0): waits for the last tile of every slot of its TMA rings.
BV_DI void tma_drain(const tma_ring_list& l) {
#if BV_NVIDIA
  if constexpr (gpu::prim::has_tma) {
    if (gpu::prim::thread_id() != 0) return;
#pragma unroll
    for (int i = 0; i < tmap_rings; ++i) {
      const int S = l.stages[i];
      if (S == 0) continue;
      int count;  // wave 0's count of tiles issued (block_ptr.hpp's ring_state, first field)
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(count) : "r"(l.meta[i] + 8 * S) : "memory");
#pragma unroll 1
      for (int t = count > S ? count - S : 0; t < count; ++t)
        gpu::prim::mbar_wait(l.meta[i] + 8 * (t % S), (t / S) & 1);
    }
  }
#else
  (void)l;
#endif
}
}  // namespace detail

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
