// dot(a, b) and dot(a, b, acc) on the GPU (tl.dot): both operands go to LDS (A row-major, B
// transposed so that both are read along K), then
//  - NVIDIA, f16/bf16, sm_80+: mma.sync m16n8k16 tensor-core instructions, accumulating straight
//    into the output block's registers: the 2-D layout *is* the mma accumulator layout;
//  - AMD CDNA, f16/bf16/f32: MFMA 32x32 (x8 for 16-bit, x2 for f32), used transposed so that each
//    lane holds 4 contiguous columns; again the 2-D layout is the accumulator layout;
//  - anything else (small tiles, other dtypes, older GPUs): a portable LDS-tiled loop in which
//    each thread computes its own registers.
#pragma once
#include "bv/gpu/block.hpp"
#include "bv/gpu/memory.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
inline constexpr int lds_pad = 8;  // elements of padding per LDS row: fewer bank conflicts

template <class T, int M, int K, int W>
BV_DI void stage_rows(T* s, const basic_block<T, shape<M, K>, W>& a) {  // s[row][k]
  using B = basic_block<T, shape<M, K>, W>;
  constexpr int ld = K + lds_pad, V = gpu::tile2d::spt1 <= B::NC ? gpu::tile2d::spt1 : B::NC;
#pragma unroll
  for (int ri = 0; ri < B::NR; ++ri) {
    const int row = gpu::row_of<M, K, W>(ri);
#pragma unroll
    for (int cg = 0; cg < B::NC; cg += V) {
      const int col = gpu::col_of<M, K, W>(cg);
      if constexpr (V > 1 && K >= gpu::layout2d<M, K, W>::cols::tile() && (V * sizeof(T)) % 4 == 0)
        vstore<V>(s + row * ld + col, a.v + ri * B::NC + cg);
      else
#pragma unroll
        for (int j = 0; j < V; ++j)
          s[row * ld + gpu::col_of<M, K, W>(cg + j)] = a.v[ri * B::NC + cg + j];
    }
  }
}
template <class T, int K, int N, int W>
BV_DI void stage_cols(T* s, const basic_block<T, shape<K, N>, W>& b) {  // s[col][k]
  using B = basic_block<T, shape<K, N>, W>;
  constexpr int ld = K + lds_pad;
#pragma unroll
  for (int ri = 0; ri < B::NR; ++ri) {
    const int k = gpu::row_of<K, N, W>(ri);
#pragma unroll
    for (int ci = 0; ci < B::NC; ++ci) s[gpu::col_of<K, N, W>(ci) * ld + k] = b.v[ri * B::NC + ci];
  }
}

template <class A, class B, class C, int M, int N, int K, int W>
constexpr bool use_tensor_cores() {
  using L = gpu::layout2d<M, N, W>;
#if BV_NVIDIA
  return gpu::prim::has_mma && is_16bit_float<A> && std::is_same_v<A, B> &&
         std::is_same_v<C, float> && K % 16 == 0 && L::NR % 2 == 0 && N >= L::cols::tile() &&
         M >= L::rows::tile();
#else
  return ((is_16bit_float<A> && K % 8 == 0) || (std::is_same_v<A, float> && K % 2 == 0)) &&
         std::is_same_v<A, B> && std::is_same_v<C, float> && M >= L::rows::tile() &&
         N >= L::cols::tile() && (L::NC / 4) % 4 == 0;
#endif
}

template <class A, class B, class C, int M, int K, int N, int W>
BV_DI void dot_acc(const basic_block<A, shape<M, K>, W>& a, const basic_block<B, shape<K, N>, W>& b,
                   basic_block<C, shape<M, N>, W>& acc) {
  using O = basic_block<C, shape<M, N>, W>;
  using L = gpu::layout2d<M, N, W>;
  constexpr int lda = K + lds_pad, ldb = K + lds_pad;
  A* As = gpu::prim::lds<A, M * lda, 3>();
  B* Bs = gpu::prim::lds<B, N * ldb, 4>();
  gpu::prim::barrier();
  stage_rows(As, a);
  stage_cols(Bs, b);
  gpu::prim::barrier();
  const int lane = gpu::prim::lane_id(), wave = gpu::prim::wave_id();
  if constexpr (use_tensor_cores<A, B, C, M, N, K, W>()) {
#if BV_NVIDIA
    const int g = lane / 4, t = lane % 4;
    const int col0 = L::wave_col(wave) * 8 + g;
#pragma unroll 2
    for (int kk = 0; kk < K; kk += 16) {
      uint32_t af[O::NR / 2][4], bf[O::NC / 2][2];
#pragma unroll
      for (int p = 0; p < O::NR / 2; ++p) {
        const A* r0 = As + gpu::row_of<M, N, W>(2 * p) * lda + kk + 2 * t;
        const A* r1 = As + gpu::row_of<M, N, W>(2 * p + 1) * lda + kk + 2 * t;
        af[p][0] = *reinterpret_cast<const uint32_t*>(r0);
        af[p][1] = *reinterpret_cast<const uint32_t*>(r1);
        af[p][2] = *reinterpret_cast<const uint32_t*>(r0 + 8);
        af[p][3] = *reinterpret_cast<const uint32_t*>(r1 + 8);
      }
#pragma unroll
      for (int q = 0; q < O::NC / 2; ++q) {
        const B* c = Bs + (q * L::cols::tile() + col0) * ldb + kk + 2 * t;
        bf[q][0] = *reinterpret_cast<const uint32_t*>(c);
        bf[q][1] = *reinterpret_cast<const uint32_t*>(c + 8);
      }
#pragma unroll
      for (int p = 0; p < O::NR / 2; ++p)
#pragma unroll
        for (int q = 0; q < O::NC / 2; ++q) {
          float c4[4] = {acc.v[(2 * p) * O::NC + 2 * q], acc.v[(2 * p) * O::NC + 2 * q + 1],
                         acc.v[(2 * p + 1) * O::NC + 2 * q],
                         acc.v[(2 * p + 1) * O::NC + 2 * q + 1]};
          gpu::prim::mma_16x8x16<A>(c4, af[p], bf[q]);
          acc.v[(2 * p) * O::NC + 2 * q] = c4[0];
          acc.v[(2 * p) * O::NC + 2 * q + 1] = c4[1];
          acc.v[(2 * p + 1) * O::NC + 2 * q] = c4[2];
          acc.v[(2 * p + 1) * O::NC + 2 * q + 1] = c4[3];
        }
    }
#else
    constexpr int KPL = std::is_same_v<A, float> ? 1 : 4;  // k values per lane per step
    const int hi = lane / 32, l32 = lane % 32;
    const int colbase = L::wave_col(wave) * 8 + 4 * ((l32 / 4) % 2) + l32 % 4;
#pragma unroll
    for (int r0 = 0; r0 < O::NR; ++r0)
#pragma unroll
      for (int s = 0; s < O::NC / 16; ++s) {
        gpu::prim::f32x16 c;
#pragma unroll
        for (int i = 0; i < 16; ++i) c[i] = acc.v[r0 * O::NC + s * 16 + i];
        // A' row label l32 = 8q' + 4h' + e' is column (4s + q') * tile1 + w1 * 8 + 4h' + e'.
        const int bcol = (4 * s + l32 / 8) * L::cols::tile() + colbase;
        const int arow = gpu::row_of<M, N, W>(r0);
#pragma unroll 2
        for (int kk = 0; kk < K; kk += 2 * KPL) {
          const int k = kk + KPL * hi;
          if constexpr (std::is_same_v<A, float>) {
            gpu::prim::mfma_32x32x2_f32(c, Bs[bcol * ldb + k], As[arow * lda + k]);
          } else if constexpr (std::is_same_v<A, half>) {
            gpu::prim::f16x4 x, y;
            __builtin_memcpy(&x, Bs + bcol * ldb + k, 8);
            __builtin_memcpy(&y, As + arow * lda + k, 8);
            gpu::prim::mfma_32x32x8_f16(c, x, y);
          } else {
            gpu::prim::i16x4 x, y;
            __builtin_memcpy(&x, Bs + bcol * ldb + k, 8);
            __builtin_memcpy(&y, As + arow * lda + k, 8);
            gpu::prim::mfma_32x32x8_bf16(c, x, y);
          }
        }
#pragma unroll
        for (int i = 0; i < 16; ++i) acc.v[r0 * O::NC + s * 16 + i] = c[i];
      }
#endif
  } else {
    // Portable: each thread computes its own registers from LDS.
    using CC = compute_t<C>;
#pragma unroll
    for (int ri = 0; ri < O::NR; ++ri) {
      const A* ar = As + gpu::row_of<M, N, W>(ri) * lda;
#pragma unroll
      for (int ci = 0; ci < O::NC; ++ci) {
        const B* bc = Bs + gpu::col_of<M, N, W>(ci) * ldb;
        CC s = cvt<CC>(acc.v[ri * O::NC + ci]);
        for (int k = 0; k < K; ++k) s += cvt<CC>(ar[k]) * cvt<CC>(bc[k]);
        acc.v[ri * O::NC + ci] = cvt<C>(s);
      }
    }
  }
}
}  // namespace detail

template <class A, int M, int K, class B, int K2, int N, class C, int W>
BV_DI basic_block<C, shape<M, N>, W> dot(const basic_block<A, shape<M, K>, W>& a,
                                         const basic_block<B, shape<K2, N>, W>& b,
                                         const basic_block<C, shape<M, N>, W>& acc) {
  static_assert(K == K2,
                "dot(a, b, acc) needs a's columns to equal b's rows: a is MxK and b must be KxN.");
  static_assert(M >= 16 && N >= 16 && K >= 16,
                "dot needs every dimension to be at least 16, as tl.dot does (the matrix cores "
                "work on 16x16 tiles); pad the block and mask the extra rows.");
  static_assert(!std::is_same_v<A, bool> && !std::is_same_v<B, bool>,
                "dot multiplies numbers, not bool blocks.");
  basic_block<C, shape<M, N>, W> out = acc;
  if constexpr (std::is_same_v<A, B>) {
    detail::dot_acc(a, b, out);
  } else {
    using P = promote_t<A, B>;
    detail::dot_acc(a.to(dtype<P>{}), b.to(dtype<P>{}), out);
  }
  return out;
}

template <class A, int M, int K, class B, int K2, int N, int W>
BV_DI auto dot(const basic_block<A, shape<M, K>, W>& a, const basic_block<B, shape<K2, N>, W>& b) {
  using R = compute_t<promote_t<A, B>>;
  basic_block<R, shape<M, N>, W> acc;
  detail::generate(acc, [](auto, int, int) { return R(0); });
  return dot(a, b, acc);
}

}  // namespace gpu_lang
}  // namespace bv
