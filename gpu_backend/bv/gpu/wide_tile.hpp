// A streamed tile on AMD as global memory serves it best: 16 bytes a lane (global_load_dwordx4),
// each element once, in a map of its own, rather than in the block layout (4 contiguous columns a
// lane, 8 bytes of a 16-bit tile; and the waves' 2-D grid made a tile with fewer rows than its pass
// hold copies: the 16-bit matmul's 64 x 256 b tile was loaded twice over). A for_range over tile
// streams (tile_loop.hpp) loads its tiles so where the map fits them; a dot stages them into its
// LDS images straight from these registers (the matmul's and the attention loops' tiles have no
// other reader), and anything else reads the tile again from global memory as a block (get():
// correct, and a cost only a body that uses a streamed tile outside dot pays). A 4-byte tile's
// block loads are 16 bytes a lane already, so it takes the map only where the block layout holds
// copies of it (a tile with fewer rows than the waves' pass covers: the f32 matmul's 32 x 64 b tile
// on 4 waves was loaded twice); elsewhere it keeps the block (on the map, gfx942's f32 attention in
// halves of D, at its SGPR limit, spilled for no fewer bytes).
//
// The map, a function of (wave, lane, run g, element e) as the block layout's is of (wave, lane,
// register): 32 lanes down the rows and 2 across, V contiguous columns a lane (16 bytes: 8 16-bit
// elements, 4 f32), the waves WR down x WC across with WR as large as the rows allow (no copies:
// every element has one lane), repeated over runs across the columns, then down the rows:
//   row = (g / CG) * 32 WR + (wave / WC) * 32 + lane % 32
//   col = (g % CG) * 2 V WC + (wave % WC) * 2 V + (lane / 32) * V + e
// 32 lanes down the rows keep dot's B image stores ([N][K], a lane's V columns to V image rows)
// free of bank conflicts: a store's 64 lanes write 32 consecutive k's in two rows V apart, 16 banks
// each in 16-bit (in f32 each row's 32 lanes are a phase of their own, on 32 banks). (8 lanes along
// each 128-byte row would have put all 64 lanes of a store on 2 banks.) An A image store writes a
// lane's run, in pieces as wide as the image's padded rows keep aligned.
#pragma once
#include "bv/gpu/block_ptr.hpp"

namespace bv {
inline namespace gpu_lang {
namespace detail {
#if !BV_NVIDIA

template <class T, int R, int C, int W>
struct wide_map {
  static constexpr int V = 16 / int{sizeof(T)};  // a lane's contiguous columns
  static constexpr int lanes0 = 32, lanes1 = gpu::prim::wave_size / lanes0;
  static constexpr int WR = [] {
    int wr = 1;
    while (wr * 2 <= W && R % (lanes0 * wr * 2) == 0) wr *= 2;
    return wr;
  }();
  static constexpr int WC = W / WR;
  static constexpr int span1 = lanes1 * V * WC;  // columns a run of every wave covers
  static constexpr int RG = R / (lanes0 * WR), CG = C / span1;
  static constexpr int G = RG * CG;  // a lane's runs
  // Tiles it takes: whole runs of every lane, no copies (W a power of two, as every launch's).
  static constexpr bool fits = (sizeof(T) == 2 || sizeof(T) == 4) && (W & (W - 1)) == 0 &&
                               R % (lanes0 * WR) == 0 && C % span1 == 0 && RG >= 1 && CG >= 1;
  BV_DI static int row(int g) {
    return (g / CG) * lanes0 * WR + (gpu::prim::wave_id() / WC) * lanes0 +
           gpu::prim::lane_id() % lanes0;
  }
  BV_DI static int col(int g) {
    return (g % CG) * span1 + (gpu::prim::wave_id() % WC) * lanes1 * V +
           (gpu::prim::lane_id() / lanes0) * V;
  }
};

// A tile of block pointer BP loaded in wide_map's order: the values, and where it came from (for
// get(), which loads the block itself; unused, the compiler drops them).
template <class BP>
struct wide_tile {
  using T = std::remove_const_t<typename BP::element_type>;
  static constexpr int R = BP::shape_type::rows, C = BP::shape_type::cols, W = BP::waves;
  using map = wide_map<T, R, C, W>;
  using block_type = basic_block<T, shape<R, C>, W>;
  using value_type = T;
  using shape_type = shape<R, C>;
  static constexpr int waves = W;
  T v[map::fits ? map::G * map::V : 1];
  BP bp;
  boundary_check bc;
  BV_DI block_type get() const { return load(bp, bc); }
};

template <class X>
inline constexpr bool is_wide_tile = false;
template <class BP>
inline constexpr bool is_wide_tile<wide_tile<BP>> = true;

// Whether a stream of BP loads wide_tiles (AMD): the map fits the tile and gains on the block
// layout, with wider runs (16-bit) or without the block's copies.
template <class BP>
constexpr bool wide_stream() {
  using T = std::remove_const_t<typename BP::element_type>;
  constexpr int R = BP::shape_type::rows, C = BP::shape_type::cols, W = BP::waves;
  using M = wide_map<T, R, C, W>;
  constexpr bool gains =
      gpu::tile2d::spt1 < M::V || gpu::layout2d<R, C, W>::map().replication() > 1;
  return M::fits && gains;
}

// load(bp, bc) in wide_map's order: each run one vector access where it lies whole inside the
// tensor with unit column stride and a 16-byte aligned address, else element by element under the
// mask (zeros outside the tensor, as load(bp, bc)).
template <class BP>
BV_DI wide_tile<BP> wide_load(const BP& bp, boundary_check bc) {
  using WT = wide_tile<BP>;
  using M = typename WT::map;
  using T = typename WT::T;
  constexpr int V = M::V;
  WT out;
  out.bp = bp;
  out.bc = bc;
  int shape0 = bp.shape0, shape1 = bp.shape1;
#if defined(__HIP_DEVICE_COMPILE__)
  // As tile_mask's bounds: kept at the load, not hoisted out of the loop as lane masks in SGPRs.
  asm volatile("" : "+v"(shape0), "+v"(shape1));
#endif
#pragma unroll
  for (int g = 0; g < M::G; ++g) {
    const int r = bp.off0 + M::row(g), c = bp.off1 + M::col(g);
    const bool in0 = !bc.dim0 || static_cast<unsigned>(r) < static_cast<unsigned>(shape0);
    int off[V];
    bool m[V];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      off[e] = r * bp.stride0 + (c + e) * bp.stride1;
      m[e] = in0 && (!bc.dim1 || static_cast<unsigned>(c + e) < static_cast<unsigned>(shape1));
    }
    // Both paths make the run's 16 bytes as four words, which the run's registers take after the
    // join: with the elements joined instead (load_run), hipcc (gfx90a) repacked the loaded words
    // inside the vector path, waiting for each load right after it. (Words, not an array through
    // memcpy: hipcc kept such an array in scratch.)
    const T* base = static_cast<const T*>(bp.base);
    using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
    constexpr int per = 4 / int{sizeof(T)};  // elements a word
    uint32_t w[4];
    if (vector_ok<V, true>(base, off, m)) {
      const raw_vec<16> raw = *reinterpret_cast<const raw_vec<16>*>(base + off[0]);
      w[0] = raw.x;
      w[1] = raw.y;
      w[2] = raw.z;
      w[3] = raw.w;
    } else {
      lane_base(base);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        w[j] = 0;
#pragma unroll
        for (int h = 0; h < per; ++h) {
          const int e = j * per + h;
          const T x = m[e] ? base[off[e]] : T{};
          w[j] |= uint32_t{__builtin_bit_cast(U, x)} << (32 / per * h);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < V; ++j)
      out.v[g * V + j] =
          __builtin_bit_cast(T, static_cast<U>(w[j / per] >> (32 / per * (j % per))));
  }
  return out;
}

// The widest store of a lane's run into rows ld elements apart that keeps every store aligned.
template <class T>
constexpr int wide_store_run(int v, int ld) {
  while (v > 1 && (ld % v != 0 || (v * int{sizeof(T)}) % 4 != 0)) v /= 2;
  return v;
}

// Whether a row swizzle (dot.hpp's no_swizzle, b_swizzle) moves rows by multiples of 8 that a run
// of 8 aligned rows shares, so that the run stays consecutive.
template <class Swz>
constexpr bool keeps_runs() {
  if constexpr (std::is_same_v<Swz, no_swizzle>)
    return true;
  else
    return Swz::span % 8 == 0;
}

// dot_lds's staging of a wide_tile (dot.hpp's staged, for a block): Rows, as [row][k] with k the
// tile's columns (an A operand, or the N x K tile whose transpose is b); else as [col][k] with k
// its rows (a B operand, or the K x M tile whose transpose is a). A slice S of KS k's stages the
// runs whose k's fall in it (a run of V columns lies in one slice: KS is a multiple of V).
template <class WT, bool Rows>
struct staged_wide {
  const WT& x;
  using M = typename WT::map;
  static constexpr int K = Rows ? WT::C : WT::R;
  static constexpr int k_span = Rows ? M::V : 1;
  template <int KS = K, int S = 0, class Swz = no_swizzle, class T>
  BV_DI void stage(T* s) const {
    static_assert(std::is_same_v<T, typename WT::T>, "internal: staged as its own type");
    static_assert(KS % k_span == 0, "internal: a slice holds whole runs");
    constexpr int V = M::V, ld = KS + lds_pad<T>;
    if constexpr (is_xor_image<Swz>) {
      // (dot_lds_double's images: one slice, a run's 8-byte chunks each where the XOR puts it.)
      static_assert(KS == K && V % Swz::E == 0, "internal: an xor_image holds whole chunks");
#pragma unroll
      for (int g = 0; g < M::G; ++g) {
        const int r = M::row(g), c = M::col(g);
#pragma unroll
        for (int e = 0; e < V; e += (Rows ? Swz::E : 1)) {
          if constexpr (Rows)
            vstore<Swz::E>(s + Swz::at(r, c + e), x.v + g * V + e);
          else
            s[Swz::at(c + e, r)] = x.v[g * V + e];
        }
      }
    } else {
#pragma unroll
      for (int g = 0; g < M::G; ++g) {
        const int r = M::row(g), c = M::col(g);
        if constexpr (Rows) {
          if (KS != K && c / KS != S) continue;
          constexpr int Vs = wide_store_run<T>(V, ld);
          T* dst = s + Swz::row(r) * ld + (c - S * KS);
#pragma unroll
          for (int e = 0; e < V; e += Vs) vstore<Vs>(dst + e, x.v + g * V + e);
        } else {
          if (KS != K && r / KS != S) continue;
          static_assert(V <= 8 && keeps_runs<Swz>(),
                        "internal: a run's V image rows must stay consecutive under the swizzle.");
          T* dst = s + Swz::row(c) * ld + (r - S * KS);
#pragma unroll
          for (int e = 0; e < V; ++e) dst[e * ld] = x.v[g * V + e];
        }
      }
    }
  }
};
template <class BP>
BV_DI staged_wide<wide_tile<BP>, true> rows(const wide_tile<BP>& x) {
  return {x};
}
template <class BP>
BV_DI staged_wide<wide_tile<BP>, false> cols(const wide_tile<BP>& x) {
  return {x};
}

#endif
}  // namespace detail
}  // namespace gpu_lang
}  // namespace bv
