// dot(a, b) and dot(a, b, acc) on the GPU (tl.dot):
//  - NVIDIA, f16/bf16, sm_80+: mma.sync m16n8k16 tensor-core instructions, accumulating straight
//    into the output block's registers: the 2-D layout *is* the mma accumulator layout, and since
//    every wave holds whole rows (layout.hpp: WN = 1), a's registers already are mma's A
//    fragments: a never goes through LDS (a loop-invariant a, like attention's q tile, costs
//    nothing per call). b is staged once in LDS in mma order (4-byte stores, swizzled 16-byte
//    chunks) and read as fragments with ldmatrix (.trans for a [k][n] b; plain for trans(x), the
//    [n][k] x itself: tl.trans is a lazy view, so dot(q, trans(k)) stages k once and never
//    transposes it). K and N must be multiples of 32 (one lane's 8 columns x 4 lanes). On sm_90a,
//    where the tile fits (wg_rs_dot), b is staged in wgmma's layout instead and read once per
//    warpgroup by wgmma with a's registers as its A operand;
//  - AMD CDNA, f16/bf16/f32: both operands to LDS (A row-major, B transposed so that both are read
//    along K), then MFMA 32x32 (x8 for 16-bit, x2 for f32), used transposed so that each lane holds
//    4 contiguous columns; again the 2-D layout is the accumulator layout;
//  - anything else (f32, small tiles, other dtypes, older GPUs): both operands through LDS, each
//    thread computing its own registers; on NVIDIA a register-blocked outer product (dot_simt).
#pragma once
#include "bv/dot_staging.hpp"
#include "bv/gpu/block.hpp"
#include "bv/gpu/memory.hpp"

namespace bv {
inline namespace gpu_lang {

namespace detail {
// Elements of padding per row of an operand's LDS image: on AMD the rule the kernels' LDS models
// use too (bv/dot_staging.hpp); on NVIDIA 16 bytes, which keeps ldmatrix's rows 16-byte aligned.
template <class T>
inline constexpr int lds_pad = BV_NVIDIA ? 16 / int{sizeof(T)} : layout::dot_lds_pad(sizeof(T));

// Slice S of KS k's (dot_lds, layout::dot_k_slice) of a dimension of extent K laid out as D. Each
// register's k's along it fall in one slice, a wave's span (spt x tpw, a whole number of which KS
// is) being contiguous. Where KS is a whole number of D's tiles too, a slice is the contiguous run
// [lo, hi) of a thread's registers along it (a tile's registers are spt contiguous ones), known at
// compile time; otherwise every register is tested (in() holds for the same registers across a
// wave: a uniform branch).
template <class D, int K, int KS, int S>
struct k_regs {
  static constexpr int spt = D::regs() / D::reps();
  static constexpr bool exact = KS == K || KS % D::tile() == 0;
  static constexpr int lo = KS == K || !exact ? 0 : S * (KS / D::tile()) * spt;
  static constexpr int hi = KS == K || !exact ? D::regs() : lo + (KS / D::tile()) * spt;
  BV_DI static bool in(int k) {
#ifdef BV_EMU_MUTATION_K_SLICE
    // (Test hook: the emulator's mutation tests, tests/emulator/CMakeLists.txt, stage every
    // register in every slice; the slices test must catch the rows of other slices.)
    return true;
#else
    return exact || (k >= S * KS && k < (S + 1) * KS);
#endif
  }
};

// Where an operand's row r goes in its LDS image: row(r). no_swizzle keeps rows in order.
struct no_swizzle {
  BV_DI static constexpr int row(int r) { return r; }
};
// The B image of an MFMA product (dot_lds_slice), [N][KS + pad]. One LDS read phase of its
// fragments (16 lanes of 8 bytes for 16-bit, 32 of 4 for f32) takes, all at the same k, 8
// consecutive rows from each of Q groups TileN rows apart (TileN: the output layout's column tile;
// Q = 2 or 4). Where a row's pitch in 4-byte words is 2 modulo 4 (16-bit) or odd (f32), as the
// pad makes it for 128- and 64-byte rows, row r starts on bank pitch x r modulo 32, so a group's
// 8 rows take 16 or 8 banks, rows 8 apart take the others, and groups whose offsets agree modulo
// P rows (16 or 32) land on the same banks: every read of b was 2-way conflicted on the 16-bit
// matmul's tiles (128x256x64 and 256x256x32). The rows of R colliding groups are moved by XOR
// (8 x the group's index among them) onto disjoint banks: a permutation within each TileN rows,
// which adds a multiple of 4 TileN to a row unchanged (a lane's fragment rows for its column
// registers stay one stride apart, as without it).
template <class T, int TileN, int KS, int N>
struct b_swizzle {
  static constexpr int Q = sizeof(T) == 2 ? 2 : 4, P = sizeof(T) == 2 ? 16 : 32;
  static constexpr int span = TileN > P ? TileN : P;  // rows between colliding groups
  static constexpr int R = Q * TileN / span;          // colliding groups in a phase
  // A row's pitch in bytes, and whether its banks cycle as above.
  static constexpr int pitch = (KS + lds_pad<T>)*int{sizeof(T)};
  static constexpr bool banks_cycle = sizeof(T) == 2 ? pitch % 16 == 8 : pitch % 8 == 4;
  static constexpr bool on = R > 1 && N % (8 * R) == 0 && banks_cycle;
  static_assert(!on || (8 * R <= TileN && (4 * TileN) % (span * R) == 0),
                "b_swizzle must permute rows within each column tile and commute with a lane's "
                "step of 4 column tiles.");
  BV_DI static constexpr int row(int r) { return on ? r ^ (r / span % R * 8) : r; }
  // row(lane + reg) for a lane part below TileN, a multiple of 4, and a register part whose
  // remainder by TileN is below 4 (a column of the AMD layout: col_lane_part, cols::raw(0, 0, ci)):
  // the XOR then depends on the register part alone, and touches the lane part's bits alone, so
  // a row is one of R lane values plus a constant (as many address registers as R, not one a
  // column register: hipcc kept 58 more VGPRs on gfx90a's 16-bit matmul computing them apart).
  BV_DI static constexpr int row(int lane, int reg) {
    return on ? reg + (lane ^ (reg / span % R * 8)) : lane + reg;
  }
};
// An operand's LDS image without padding, for dot_lds_double: rows of KS 16-bit k's (64 or 128
// bytes), the 8-byte chunks of row r permuted by XOR with key(r). One read phase of MFMA
// fragments (16 lanes of 8 bytes, the same k's of 16 rows: two runs of 8 consecutive rows G
// apart, or 16 consecutive rows where G is 8) must land on 32 distinct banks. A row starts on
// bank 0 every rpc = 128 / pitch rows, so rows rpc apart take the same banks unless their chunks
// differ: key numbers a row's group of rpc within its run of 8 (8 / rpc values) and its run (a
// bit), KS / 4 values in all, one for each chunk of the row. (Padded rows, dot_lds's, spread the
// rows over the banks instead, but take pad / KS more LDS: 73728 bytes for two 256x256x32 images,
// more than a workgroup has.)
template <class T, int KS, int G>
struct xor_image {
  static_assert(sizeof(T) == 2 && (KS == 32 || KS == 64) && G % 8 == 0,
                "internal: xor_image holds 16-bit rows of 32 or 64 k's, runs a multiple of 8 rows "
                "apart.");
  static constexpr int ld = KS, E = 4;  // E: elements of an 8-byte chunk
  static constexpr int rpc = 128 / (KS * 2), runs = 8 / rpc, key_span = G;
  BV_DI static constexpr int key(int r) { return (r / rpc) % runs + runs * ((r / G) % 2); }
  BV_DI static constexpr int at(int r, int k) { return r * ld + ((k / E) ^ key(r)) * E + k % E; }
};
template <class X>
inline constexpr bool is_xor_image = false;
template <class T, int KS, int G>
inline constexpr bool is_xor_image<xor_image<T, KS, G>> = true;

// Elements a stage_rows store takes: a lane's run of contiguous columns (the tile's spt1, or NC
// where fewer), halved until the rows' pitch keeps every store aligned to its width.
constexpr int store_run(int nc, int ld) {
  int v = gpu::tile2d::spt1 <= nc ? gpu::tile2d::spt1 : nc;
  while (v > 1 && ld % v != 0) v /= 2;
  return v;
}
template <class T, int M, int K, int W, int KS = K, int S = 0,
          class Swz = no_swizzle>  // s[Swz::row(row)][k - S KS]
BV_DI void stage_rows(T* s, const basic_block<T, shape<M, K>, W>& a) {
  using B = basic_block<T, shape<M, K>, W>;
  using R = k_regs<typename gpu::layout2d<M, K, W>::cols, K, KS, S>;
  constexpr int ld = KS + lds_pad<T>, V = store_run(B::NC, ld);
#pragma unroll
  for (int ri = 0; ri < B::NR; ++ri) {
    if (!gpu::owns_row<M, K, W>(ri)) continue;  // a copy's row: its owner stores it
    const int row = gpu::row_of<M, K, W>(ri);
#pragma unroll
    for (int cg = R::lo; cg < R::hi; cg += V) {
      if (!R::in(gpu::col_of<M, K, W>(cg))) continue;
      const int col = gpu::col_of<M, K, W>(cg) - S * KS;
      if constexpr (V > 1 && K >= gpu::layout2d<M, K, W>::cols::tile() && (V * sizeof(T)) % 4 == 0)
        vstore<V>(s + Swz::row(row) * ld + col, a.v + ri * B::NC + cg);
      else
#pragma unroll
        for (int j = 0; j < V; ++j)
          if (gpu::owns_col<M, K, W>(cg + j))
            s[Swz::row(row) * ld + gpu::col_of<M, K, W>(cg + j) - S * KS] =
                a.v[ri * B::NC + cg + j];
    }
  }
}
template <class T, int K, int N, int W, int KS = K, int S = 0,
          class Swz = no_swizzle>  // s[Swz::row(col)][k - S KS]
BV_DI void stage_cols(T* s, const basic_block<T, shape<K, N>, W>& b) {
  using B = basic_block<T, shape<K, N>, W>;
  using R = k_regs<typename gpu::layout2d<K, N, W>::rows, K, KS, S>;
  constexpr int ld = KS + lds_pad<T>;
#pragma unroll
  for (int ri = R::lo; ri < R::hi; ++ri) {
    if (!R::in(gpu::row_of<K, N, W>(ri)) || !gpu::owns_row<K, N, W>(ri)) continue;
    const int k = gpu::row_of<K, N, W>(ri) - S * KS;
#pragma unroll
    for (int ci = 0; ci < B::NC; ++ci) {
      if (!gpu::owns_col<K, N, W>(ci)) continue;
      using Cols = typename gpu::layout2d<K, N, W>::cols;
      if constexpr (N % Cols::tile() == 0 && gpu::tile2d::spt1 == 4 &&
                    !std::is_same_v<Swz, no_swizzle>)
        s[Swz::row(gpu::col_lane_part<K, N, W>(), Cols::raw(0, 0, ci)) * ld + k] =
            b.v[ri * B::NC + ci];
      else
        s[Swz::row(gpu::col_of<K, N, W>(ci)) * ld + k] = b.v[ri * B::NC + ci];
    }
  }
}

template <class A, class B, class C, int M, int N, int K, int W>
constexpr bool use_tensor_cores() {
  using L = gpu::layout2d<M, N, W>;
#if BV_NVIDIA
  return gpu::prim::has_mma && is_16bit_float<A> && std::is_same_v<A, B> &&
         std::is_same_v<C, float> && K % 32 == 0 && N % 32 == 0 && L::WN == 1;
#else
  return ((is_16bit_float<A> && K % 8 == 0) || (std::is_same_v<A, float> && K % 2 == 0)) &&
         std::is_same_v<A, B> && std::is_same_v<C, float> && M >= L::rows::tile() &&
         N >= L::cols::tile() && (L::NC / 4) % 4 == 0;
#endif
}

#if BV_NVIDIA
// The tensor-core order of a dimension inside each group of 32 (layout.hpp gives lane column t
// the logical indices 8t .. 8t + 7): mma.sync wants lane t at 2t, 2t + 1 of every 8. Bit 0 stays,
// the register pair (bits 1-2) goes to bits 3-4 and the lane (bits 3-4) to bits 1-2. Applied to
// n it makes register pair q of the accumulator n-tile q; applied to k it makes a's registers
// 4 ks .. 4 ks + 3 the A fragment of k-step ks, as they already lie.
BV_HD constexpr int mma_order(int x) {
  return (x & ~31) | (x & 1) | (((x >> 3) & 3) << 1) | (((x >> 1) & 3) << 3);
}
// LDS image of an operand tile in that order: [row][col], C columns (no padding), the 16-byte
// chunks of a row XOR-swizzled by the row so that ldmatrix (8 consecutive rows, one chunk) and
// the staging stores (8 rows in mma order, one chunk) both hit 8 different bank groups.
template <int C>
BV_DI int swz(int row, int col) {
  constexpr int chunks = C / 8 < 8 ? C / 8 : 8;
  return row * C + (((col >> 3) ^ ((row ^ (row >> 2)) & (chunks - 1))) << 3) + (col & 7);
}
// Stage x (R x C) at img(mma_order(row), mma_order(col)) (an image's element offset, its 16-byte
// chunks whole): each thread's 8 contiguous columns are the pairs of 4 matrices in mma order, one
// stmatrix (sm_90) or 4 pairs (4-byte stores) otherwise.
template <class T, int R, int C, int W, class Img>
BV_DI void stage_mma_as(T* s, const basic_block<T, shape<R, C>, W>& x, Img img) {
  using X = basic_block<T, shape<R, C>, W>;
  using L = gpu::layout2d<R, C, W>;
  if constexpr (gpu::prim::has_stmatrix && R >= L::rows::tile()) {
    // One stmatrix per 8 columns of a row register: lane 4g + t holds the pairs of 4 matrices
    // (chunks 4G .. 4G + 3 in mma order) of its row; lane l addresses row l % 8 of the wave's 8
    // rows (those of lanes 4 (l % 8) + t) in chunk l / 8.
    const int lane = gpu::prim::lane_id();
#pragma unroll
    for (int ri = 0; ri < X::NR; ++ri) {
      const int row = mma_order(L::rows::at(lane & 7, L::wave_row(gpu::prim::wave_id()), ri));
#pragma unroll
      for (int ci = 0; ci < X::NC; ci += 8) {
        uint32_t r[4];
        __builtin_memcpy(r, x.v + ri * X::NC + ci, 16);
        const int G = ci / 8;  // 32-column group
        gpu::prim::stmatrix_x4(s + img(row, G * 32 + (lane >> 3) * 8), r);
      }
    }
  } else {
#pragma unroll
    for (int ri = 0; ri < X::NR; ++ri) {
      const int row = mma_order(gpu::row_of<R, C, W>(ri));
#pragma unroll
      for (int ci = 0; ci < X::NC; ci += 2) {
        const int col = mma_order(gpu::col_of<R, C, W>(ci));
        vstore<2>(s + img(row, col), x.v + ri * X::NC + ci);
      }
    }
  }
}
// stage_mma_as into swz's image: mma.sync's b operand.
template <class T, int R, int C, int W>
BV_DI void stage_mma(T* s, const basic_block<T, shape<R, C>, W>& x) {
  stage_mma_as(s, x, [](int r, int c) { return swz<C>(r, c); });
}

// Tiles whose images are wgmma's operands (sm_90a): an A (fmt_a) image of an R x 64 tile of a
// program of 4 or 8 waves whose waves hold an even number of its rows (R / (8 W)), a B (fmt_b)
// image of a tile of 128k columns. Their images are wgmma's canonical 128-byte-swizzled layouts,
// 1024-byte atoms of 8 rows of 128 bytes whose 16-byte chunk c of row r sits at c ^ (r % 8):
//  - fmt_a (K-major): row r of the tile at row wg_row(r) of the image, so that the rows wgmma
//    gives warp w4 of warpgroup wg (16 w4 + g and + 8 of each 64-row block) are the rows the
//    2-D layout gives that wave (layout.hpp: register ri of wave w holds row 8 W ri + 8 w + g);
//  - fmt_b (N-major): columns in mma_order (as the mma.sync image: the accumulator's columns),
//    64-column blocks of R rows each, one after the other.
template <int R, int C, int W>
constexpr bool wg_a_tile() {
  constexpr int NR = R / (8 * W);
  return gpu::prim::has_wgmma && C == 64 && (W == 4 || W == 8) && R % (16 * W) == 0 &&
         (NR & (NR - 1)) == 0;
}
template <int R, int C, int W>
constexpr bool wg_b_tile() {
  return gpu::prim::has_wgmma && R % 16 == 0 && C % 128 == 0 && R <= 256;
}
template <int R, int W>
BV_HD constexpr int wg_row(int r) {
  constexpr int NR = R / (8 * W);
  const int ri = r / (8 * W), w = (r / 8) % W, g = r % 8;
  return 64 * ((w / 4) * (NR / 2) + (ri >> 1)) + 16 * (w % 4) + 8 * (ri & 1) + g;
}
// Where the NVIDIA tensor-core product gets its A fragments (16 x 16 of a, k-step ks, row pair
// p: the rows of row registers 2p and 2p + 1, an odd last row paired with itself):
//  - a_regs: a block in registers: its registers 4 ks .. 4 ks + 3 already are the fragment;
//  - a_image: an LDS image of a in natural order ([row][k], 16-byte chunks swizzled by swz), as
//    block-pointer loads leave an A operand (block_ptr.hpp's fmt_a): one ldmatrix per fragment.
//    Its k is natural, so b must then be read at natural k rows (a block-pointer fmt_b image),
//    not from stage_mma's image (k in mma_order, as a_regs' registers lie).
template <class A, int M, int K, int W>
struct a_regs {
  static constexpr bool copies_registers = true;  // fragments are copies of a's registers
  const basic_block<A, shape<M, K>, W>& a;
  using AB = basic_block<A, shape<M, K>, W>;
  static_assert(AB::NC == K / 4, "internal: dot expects whole rows per wave");
  BV_DI void frag(int p, int ks, uint32_t (&af)[4]) const {
    const int r0 = 2 * p, r1 = 2 * p + 1 < AB::NR ? 2 * p + 1 : 2 * p;
    __builtin_memcpy(&af[0], a.v + r0 * AB::NC + 4 * ks, 4);
    __builtin_memcpy(&af[1], a.v + r1 * AB::NC + 4 * ks, 4);
    __builtin_memcpy(&af[2], a.v + r0 * AB::NC + 4 * ks + 2, 4);
    __builtin_memcpy(&af[3], a.v + r1 * AB::NC + 4 * ks + 2, 4);
  }
};
// The matrix of an ldmatrix x4 that reads A fragment p of row pair p: matrix mi = lane / 8 is
// (row register r = 2p + (mi & 1), an odd last one paired with itself; k half kh = mi >> 1), and
// lane l addresses row r8 = l % 8 of it.
template <int NR>
struct frag_lane {
  int r8, r, kh;
  BV_DI explicit frag_lane(int p) {
    const int lane = gpu::prim::lane_id(), mi = lane >> 3;
    r8 = lane & 7;
    r = 2 * p + (mi & 1) < NR ? 2 * p + (mi & 1) : 2 * p;
    kh = mi >> 1;
  }
};
template <class A, int M, int K, int W>
struct a_image {
  static constexpr bool copies_registers = false;  // fragments are fresh ldmatrix results
  const A* img;
  using L = gpu::layout2d<M, K, W>;
  BV_DI void frag(int p, int ks, uint32_t (&af)[4]) const {
    // Lane l addresses the row that mma row g = l % 8 of its matrix's register is.
    const frag_lane<L::NR> f(p);
    const int row = L::rows::at(f.r8, L::wave_row(gpu::prim::wave_id()), f.r);
    if constexpr (wg_a_tile<M, K, W>()) {  // the wgmma image (block_ptr.hpp's img_index)
      const int P = wg_row<M, W>(row), c = 2 * ks + f.kh;
      gpu::prim::ldmatrix_x4(af, img + P * 64 + (((c ^ P) & 7) << 3));
    } else {
      gpu::prim::ldmatrix_x4(af, img + swz<K>(row, 16 * ks + 8 * f.kh));
    }
  }
};

//  - a_trans_image: a = x^T for the K x M block x, from an LDS image of x's rows as stage_rows
//    leaves them ([k][m], rows M + lds_pad apart): ldmatrix .trans reads mma's A fragments of a
//    out of x's rows, with k in natural order (b's image must then have natural k rows too).
template <class A, int M, int K, int W>
struct a_trans_image {
  static constexpr bool copies_registers = false;
  const A* img;
  using L = gpu::layout2d<M, K, W>;
  BV_DI void frag(int p, int ks, uint32_t (&af)[4]) const {
    // Lane l addresses k row l % 8 of its matrix, whose 8 contiguous m are the register's 8
    // rows (g).
    const frag_lane<L::NR> f(p);
    const int m0 = L::rows::at(0, L::wave_row(gpu::prim::wave_id()), f.r);
    constexpr int ld = M + lds_pad<A>;
    gpu::prim::ldmatrix_x4_trans(af, img + (16 * ks + 8 * f.kh + f.r8) * ld + m0);
  }
};

// The NVIDIA tensor-core product acc += a @ b: A fragments from asrc, b read from the LDS image
// Bs in the stage_mma format, of the K x N block itself (BT false) or of the N x K block whose
// transpose it is (BT true); BWG: Bs is instead a K x N block-pointer image in wgmma's layout
// (wg_b_tile), read by mma.sync when a is not in wgmma's (a mixed pair of tile shapes).
template <bool BT, class A, class C, int M, int K, int N, int W, bool BWG = false, class ASrc,
          class Acc>
BV_DI void mma_core(const ASrc& asrc, const A* Bs, Acc& acc) {
  using O = basic_block<C, shape<M, N>, W>;
  static_assert(Acc::NR == O::NR && Acc::NC == O::NC, "internal: an accumulator of M x N");
  static_assert(O::NC == N / 4, "internal: dot expects whole rows per wave");
  constexpr int bcols = BT ? K : N;
  const int lane = gpu::prim::lane_id();
  const int mi = lane >> 3, r8 = lane & 7;  // ldmatrix: this lane's matrix and row
  const int m1 = mi & 1, m2 = mi >> 1;
  // ldmatrix addresses without per-load arithmetic: the swizzled chunk of (k-step ks, n-tile
  // pair j) is kk ^ lanex, kk a constant ((2 ks) ^ (2 j & cm) for BT, j ^ (4 ks & cm) otherwise,
  // both even) and lanex this lane's part; so each load is p[kk & cm] plus an immediate.
  constexpr int cm = (bcols / 8 < 8 ? bcols / 8 : 8) - 1;
  const int sl = r8 ^ (r8 >> 2);
  const int lanex = BT ? (m1 ^ ((sl ^ (2 * m2)) & cm)) : (m2 ^ ((sl ^ (2 * m1)) & cm));
  const A* lane_row = Bs + (BT ? 8 * m2 + r8 : 8 * m1 + r8) * bcols;
  const A* pv[cm + 1];
#pragma unroll
  for (int v = 0; v <= cm; ++v) pv[v] = lane_row + ((v ^ lanex) << 3);
  // BWG: the row k = 16 ks + 8 m1 + r8 of 64-column block (j + m2) / 8 holds chunk j + m2 at
  // ((j + m2) ^ k) % 8 = (j % 8) ^ m2 ^ r8 (j even): again a per-lane XOR of a constant.
  static_assert(!BWG || (!BT && N % 64 == 0), "internal: wgmma B images are K x 64k");
  const A* pw[8];
#pragma unroll
  for (int v = 0; v < 8; ++v) pw[v] = Bs + (8 * m1 + r8) * 64 + ((v ^ m2 ^ r8) << 3);
  constexpr int NP = (O::NR + 1) / 2;  // row pairs (an odd last row is paired with itself)
#pragma unroll
  for (int ks = 0; ks < K / 16; ++ks) {
    uint32_t af[NP][4];
#pragma unroll
    for (int p = 0; p < NP; ++p) asrc.frag(p, ks, af[p]);
#pragma unroll
    for (int j = 0; j < N / 8; j += 2) {
      // Matrices: n-tiles j, j + 1 (mi >> 1) x k halves (mi & 1).
      uint32_t bf[4];
      if constexpr (BWG) {
        gpu::prim::ldmatrix_x4_trans(bf, pw[j & 7] + 16 * ks * 64 + (j >> 3) * K * 64);
      } else if constexpr (BT) {  // = Bs + swz<bcols>((j + m2) * 8 + r8, ks * 16 + m1 * 8)
        const int kk = (2 * ks) ^ ((2 * j) & cm);
        gpu::prim::ldmatrix_x4(bf, pv[kk & cm] + 8 * j * bcols + ((kk & ~cm) << 3));
      } else {  // = Bs + swz<bcols>(ks * 16 + m1 * 8 + r8, (j + m2) * 8)
        const int kk = j ^ ((4 * ks) & cm);
        gpu::prim::ldmatrix_x4_trans(bf, pv[kk & cm] + 16 * ks * bcols + ((kk & ~cm) << 3));
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const uint32_t b2[2] = {bf[2 * h], bf[2 * h + 1]};
        const int q = j + h;
#pragma unroll
        for (int p = 0; p < NP; ++p) {
          const int r0 = 2 * p;
          const bool pair = 2 * p + 1 < O::NR;
          const int r1 = pair ? 2 * p + 1 : 2 * p;
          float c4[4] = {acc.v[r0 * O::NC + 2 * q], acc.v[r0 * O::NC + 2 * q + 1],
                         pair ? acc.v[r1 * O::NC + 2 * q] : 0.f,
                         pair ? acc.v[r1 * O::NC + 2 * q + 1] : 0.f};
          gpu::prim::mma_16x8x16<A>(c4, af[p], b2);
          acc.v[r0 * O::NC + 2 * q] = c4[0];
          acc.v[r0 * O::NC + 2 * q + 1] = c4[1];
          if (pair) {
            acc.v[r1 * O::NC + 2 * q] = c4[2];
            acc.v[r1 * O::NC + 2 * q + 1] = c4[3];
          }
        }
      }
    }
  }
}

// wgmma's accumulators of P row pairs (64-row blocks of a warpgroup) and NH chunks of NW columns
// of acc, the 2-D layout's registers: register i of pair p and chunk nh is register pair
// NW / 8 nh + i / 4 (mma n-tile) of row register 2 p + bit 1 of i, element bit 0 of i (mma_core's
// pairing). Pin: each register pinned (wave.hpp's pin) as it is loaded and before it is stored,
// so that nothing defines or reads it between wgmma's fence and its wait.
template <int NW, int P, int NH, bool Pin = false>
struct wg_acc {
  float d[P][NH][NW / 2];
  template <int NC>
  BV_HD static constexpr int at(int p, int nh, int i) {
    return (2 * p + ((i >> 1) & 1)) * NC + 2 * ((NW / 8) * nh + (i >> 2)) + (i & 1);
  }
  // f(accumulator register, the block's register) for every register, in one order.
  template <int NC, class F>
  BV_DI void each(F f) {
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
      for (int nh = 0; nh < NH; ++nh)
#pragma unroll
        for (int i = 0; i < NW / 2; ++i) f(d[p][nh][i], at<NC>(p, nh, i));
  }
  // From and to the registers of acc: a basic_block, or an acc_block (accumulator.hpp), whose
  // registers are the same, only their columns in another order.
  template <class Acc>
  BV_DI void load(const Acc& acc) {
    each<Acc::NC>([&](float& r, int j) {
      r = acc.v[j];
      if constexpr (Pin) gpu::prim::pin(r);
    });
  }
  template <class Acc>
  BV_DI void store(Acc& acc) {
    each<Acc::NC>([&](float& r, int j) {
      if constexpr (Pin) gpu::prim::pin(r);
      acc.v[j] = r;
    });
  }
};

// Where wgmma reads b in LDS: K x N N-major (BT false: 64-column blocks of n, K rows each, the
// leading byte offset between blocks; a k-step is 16 rows, 2048 bytes), or as the N x K block
// whose transpose b is, K-major (BT true: rows n of 128 bytes of k, 8-row atoms 1024 bytes apart;
// a k-step is 32 bytes along a row, 64 k a block of N rows). wg_b_desc is the descriptor of the
// image at bs, wg_b_off the offset of k-step ks and chunk nh of NW columns of n.
template <bool BT, int K>
BV_DI gpu::prim::wgmma_desc wg_b_desc(uint32_t bs) {
  return gpu::prim::wgmma_desc(bs, BT ? 16 : K * 128, 1024);
}
template <bool BT, int K, int N, int NW>
BV_HD constexpr uint32_t wg_b_off(int ks, int nh) {
  if constexpr (BT)
    return (ks / 4) * N * 128 + (ks % 4) * 32 + nh * NW * 128;
  else
    return ks * 2048 + nh * (NW / 64) * K * 128;
}
// The wgmma product acc += a @ b (sm_90a) from two LDS images in wgmma's layouts: a's
// (block_ptr.hpp's wg_a_tile image), b's N-major (BT false; wg_b_tile) or K-major (BT true: the
// image of the N x K block whose transpose b is, rows in mma_order: block_ptr.hpp's fmt_wm).
// Warpgroup wg takes the 64-row blocks wg * NB .. wg * NB + NB - 1 of a's image (its waves' rows),
// the whole of b, K / 16 steps of one wgmma per 64-row block and 128 (or, for N = 64, 64) columns;
// the accumulator registers are the 2-D layout's (register pair q of row register 2 b + h is mma
// n-tile q of half h of block b: the same pairing as mma_core's). Keep: what is left in flight,
// for a caller that waits before anything else reads acc: wg_sync nothing, wg_keep_last the group
// (the ones before it waited for: accumulator.hpp's for_range), wg_keep_all every group (a chain of
// dots into one pending result: pending.hpp). fence: a proxy fence first, for images written by the
// generic proxy (cp.async, LDS stores); images the TMA wrote need none.
inline constexpr int wg_sync = 0, wg_keep_last = 1, wg_keep_all = 2;
template <class A, int M, int K, int N, int W, int Keep = wg_sync, bool BT = false, class Acc>
BV_DI void wgmma_core(const A* As, const A* Bs, Acc& acc, bool fence = true) {
  using O = basic_block<float, shape<M, N>, W>;
  static_assert(Acc::NR == O::NR && Acc::NC == O::NC, "internal: an accumulator of M x N");
  constexpr int NR = O::NR, NC = O::NC, NB = NR / 2;
  constexpr int NW = N % 128 == 0 ? 128 : 64, NH = N / NW;  // wgmma width, chunks of n
  static_assert(NC == N / 4 && NR % 2 == 0 && N % 64 == 0 && K % 16 == 0,
                "internal: wgmma tiles (block_ptr.hpp's wg_a_tile / wg_b_tile)");
  const int wg = gpu::prim::wave_id() / 4;
  const gpu::prim::wgmma_desc da(gpu::prim::lds_addr(As) + 8192u * (wg * NB), 16, 1024);
  const gpu::prim::wgmma_desc db = wg_b_desc<BT, K>(gpu::prim::lds_addr(Bs));
  wg_acc<NW, NB, NH> d;  // NB row blocks, NH chunks of NW columns
  d.load(acc);
  if (fence) gpu::prim::fence_proxy_async();
  gpu::prim::wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < K / 16; ++ks)
#pragma unroll
    for (int b = 0; b < NB; ++b)
#pragma unroll
      for (int nh = 0; nh < NH; ++nh)
        gpu::prim::wgmma_ss_64xNx16<A, NW, BT ? 0 : 1>(d.d[b][nh], da + (8192u * b + 32u * ks),
                                                       db + wg_b_off<BT, K, N, NW>(ks, nh));
  gpu::prim::wgmma_commit();
  if constexpr (Keep == wg_keep_last)
    gpu::prim::wgmma_wait1();
  else if constexpr (Keep == wg_sync)
    gpu::prim::wgmma_wait0();
  d.store(acc);
}

// wgmma with a in registers (sm_90a): a's registers are the A fragments of its warps' rows as
// for mma.sync (a_regs), one wgmma per row pair and k-step covers a warpgroup's 4 warps, and b is
// read from LDS by the warpgroup once, where mma.sync had every warp read all of it. b is staged
// as the block x it is ([k][n], BT false, read N-major) or whose transpose it is ([n][k], BT true,
// read K-major), both as stage_wg lays x out. Needs whole warpgroups, an even number of row
// registers (row pairs), and rows of 64k elements in the image. K up to 64 in one synchronous
// group: at K = 128 (the attention forward's q k^T at D = 128) the 32 fragment registers a row
// pair holds through one group cost more than mma.sync's interleaved loads, so K past 64 goes in
// groups of 64 (docs/PERFORMANCE.md).
template <bool BT, int M, int K, int N, int W>
constexpr bool wg_rs_dot() {
  constexpr int xcols = BT ? K : N;
  return gpu::prim::has_wgmma && W % 4 == 0 && M % (16 * W) == 0 && N % 64 == 0 &&
         xcols % 64 == 0 && K % 16 == 0 && N <= 256 && (K <= 64 || K % 64 == 0);
}
// x (R x C) into LDS as wgmma's 128-byte-swizzled image with rows and columns in mma_order:
// 64-column blocks of R rows of 128 bytes each, one after the other; row r' of a block holds its
// 16-byte chunk c at c ^ (r' % 8). Whether x is read N-major (x = b) or K-major (x = b's
// transpose), mma_order on its rows and columns makes k the order of a's registers and n the
// accumulator's, as stage_mma's image does for mma.sync (both staged by stage_mma_as).
template <int R, int C>
BV_HD constexpr int wg_img(int r, int c) {  // r, c: image row and column (after mma_order)
  return (c >> 6) * (R * 64) + r * 64 + ((((c >> 3) ^ r) & 7) << 3) + (c & 7);
}
template <class T, int R, int C, int W>
BV_DI void stage_wg(T* s, const basic_block<T, shape<R, C>, W>& x) {
  static_assert(C % 64 == 0, "internal: wgmma images have rows of 64k elements");
  stage_mma_as(s, x, [](int r, int c) { return wg_img<R, C>(r, c); });
}
// acc += a @ b by wgmma from a's registers and stage_wg's image Bs of b (BT false: b's K x N
// block, N-major) or of the N x K block whose transpose b is (BT true, K-major).
template <bool BT, class A, int M, int K, int N, int W, class ASrc, class Acc>
BV_DI void wgmma_rs_core(const ASrc& asrc, const A* Bs, Acc& acc) {
  using O = basic_block<float, shape<M, N>, W>;
  static_assert(Acc::NR == O::NR && Acc::NC == O::NC, "internal: an accumulator of M x N");
  constexpr int NC = O::NC, NP = O::NR / 2;
  constexpr int NW = N % 128 == 0 ? 128 : 64, NH = N / NW;  // wgmma width, chunks of n
  static_assert(NC == N / 4 && O::NR % 2 == 0, "internal: wgmma rows come in pairs");
  const gpu::prim::wgmma_desc db = wg_b_desc<BT, K>(gpu::prim::lds_addr(Bs));
  // Every register wgmma reads (a's fragments, the accumulators) is defined before wgmma.fence
  // (the accumulators pinned, a's fragments made by own_reg's volatile asm): otherwise the
  // compiler may compute a's values (a conversion, a product) between the fence and the wgmma
  // that reads them, which the instruction does not wait for. own_reg also gives a's fragments
  // registers of this call's own: given copies of a's registers, live across a loop (a
  // loop-invariant q), ptxas 13.0 merged them with a's and let a later wgmma's A fragments
  // overwrite them (the attention forward then read the previous step's p as q; the conformance
  // suite's dot chain catches it).
  // K past 64 goes in synchronous groups of 64 (KC): a group's A fragments stay live until its
  // wait, and 64 k's are 16 registers a row pair.
  constexpr int KC = K < 64 ? K : 64;
  wg_acc<NW, NP, NH, true> d;
  d.load(acc);
#pragma unroll
  for (int k0 = 0; k0 < K / 16; k0 += KC / 16) {
    uint32_t af[KC / 16][NP][4];
#pragma unroll
    for (int ks = 0; ks < KC / 16; ++ks)
#pragma unroll
      for (int p = 0; p < NP; ++p) {
        asrc.frag(p, k0 + ks, af[ks][p]);
        if constexpr (ASrc::copies_registers)
#pragma unroll
          for (int j = 0; j < 4; ++j) af[ks][p][j] = gpu::prim::own_reg(af[ks][p][j]);
      }
    gpu::prim::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < KC / 16; ++ks)
#pragma unroll
      for (int p = 0; p < NP; ++p)
#pragma unroll
        for (int nh = 0; nh < NH; ++nh)
          gpu::prim::wgmma_rs_64xNx16<A, NW, BT ? 0 : 1>(d.d[p][nh], af[ks][p],
                                                         db + wg_b_off<BT, K, N, NW>(k0 + ks, nh));
    gpu::prim::wgmma_commit();
    gpu::prim::wgmma_wait0();
  }
  d.store(acc);
}

// acc += a @ b with a in registers and b a block in registers (BT false) or the N x K block whose
// transpose it is (BT true): b is staged once in LDS, between two barriers, in mma order (for
// mma.sync) or as stage_wg's image (for wgmma, where wg_rs_dot allows).
template <bool BT, class A, class C, int M, int K, int N, int W, class BB>
BV_DI void mma_dot(const basic_block<A, shape<M, K>, W>& a, const BB& b,
                   basic_block<C, shape<M, N>, W>& acc) {
  constexpr int bcols = BT ? K : N, brows = BT ? N : K;
  if constexpr (wg_rs_dot<BT, M, K, N, W>() && std::is_same_v<C, float>) {
    A *Bs = gpu::prim::lds < A, brows * bcols, BT ? 12 : 11, 1024 > ();
    gpu::prim::barrier();
    stage_wg(Bs, b);
    gpu::prim::fence_proxy_async();  // the stores, visible to wgmma's reads
    gpu::prim::barrier();
    wgmma_rs_core<BT, A, M, K, N, W>(a_regs<A, M, K, W>{a}, Bs, acc);
  } else {
    A *Bs = gpu::prim::lds < A, brows * bcols, BT ? 10 : 9 > ();
    gpu::prim::barrier();
    stage_mma(Bs, b);
    gpu::prim::barrier();
    mma_core<BT, A, C, M, K, N, W>(a_regs<A, M, K, W>{a}, Bs, acc);
  }
}
// acc += x^T @ b for a transposed a (the K x M block x) where wgmma takes a in registers (sm_90a,
// wg_rs_dot's shapes): x's rows are staged as they lie (16-byte stores) beside b's image, both
// between one pair of barriers, and wgmma's A fragments are read from x's image by ldmatrix
// .trans (a_trans_image), where transposing x first took a layout conversion through LDS of its
// own (2-byte stores and loads and two more barriers). k is natural in those fragments, so b's
// image has natural rows (stage_wg's columns, the accumulator's order, unchanged).
template <class A, int M, int K, int N, int W>
constexpr bool wg_trans_a_dot() {
  // (wg_rs_dot's M % (16 W) == 0 gives each wave an even number of row registers: row pairs.)
  return wg_rs_dot<false, M, K, N, W>() && is_16bit_float<A> && gpu::layout2d<M, K, W>::WN == 1;
}
template <class A, int M, int K, int N, int W>
BV_DI void wg_dot_trans_a(const basic_block<A, shape<K, M>, W>& x,
                          const basic_block<A, shape<K, N>, W>& b,
                          basic_block<float, shape<M, N>, W>& acc) {
  A* Xs = gpu::prim::lds<A, K*(M + lds_pad<A>), gpu::lds_tag::wg_trans_x>();
  A* Bs = gpu::prim::lds<A, K * N, gpu::lds_tag::wg_trans_b, 1024>();
  gpu::prim::barrier();
  stage_rows(Xs, x);
  stage_mma_as(Bs, b, [](int r, int c) { return wg_img<K, N>(mma_order(r), c); });
  gpu::prim::fence_proxy_async();  // b's stores, visible to wgmma's reads
  gpu::prim::barrier();
  wgmma_rs_core<false, A, M, K, N, W>(a_trans_image<A, M, K, W>{Xs}, Bs, acc);
}
#endif

// How dot_lds places an operand in LDS. Both images are read along K: A as [M][K] (rows(a) itself,
// or cols(x) of the K x M block x whose transpose a is) and B as [N][K] (cols(b) itself, or
// rows(x) of the N x K block x whose transpose b is). So a trans() operand is staged straight from
// the block it views, with no transpose through LDS of its own.
template <class X, bool Rows>
struct staged {
  const X& x;
  static constexpr int K = Rows ? X::shape_type::cols : X::shape_type::rows;
  // A wave's span of x's layout along K (layout::dot_k_slice slices K in whole ones).
  static constexpr int k_span =
      Rows ? gpu::tile2d::spt1 * gpu::tile2d::tpw1 : gpu::tile2d::spt0 * gpu::tile2d::tpw0;
  // Slice S of KS k's (every k by default) into s, as [row][k - S KS] or [col][k - S KS].
  template <int KS = K, int S = 0, class Swz = no_swizzle, class T>
  BV_DI void stage(T* s) const {
    if constexpr (Rows)
      stage_rows<T, X::shape_type::rows, K, X::waves, KS, S, Swz>(s, x);
    else
      stage_cols<T, K, X::shape_type::cols, X::waves, KS, S, Swz>(s, x);
  }
};
template <class X>
BV_DI staged<X, true> rows(const X& x) {
  return {x};
}
template <class X>
BV_DI staged<X, false> cols(const X& x) {
  return {x};
}

// What dot_lds runs once both operands are in LDS and before the products: nothing, or the AMD
// stream loop's loads of the next step's tiles (tile_loop.hpp), whose latency the products hide.
struct no_hook {
  BV_DI void operator()() const {}
};

// How dot_lds lays out its B image: the MFMA path's swizzle, or k's in order (the portable
// product's reads keep them so).
template <class A, class B, class C, int M, int K, int N, int W>
using b_image_swizzle =
    std::conditional_t<use_tensor_cores<A, B, C, M, N, K, W>(),
                       b_swizzle<B, gpu::layout2d<M, N, W>::cols::tile(), K, N>, no_swizzle>;

// acc += the product of the K x (operand) images in LDS (As [M][K + pad], Bs [N][K + pad], its
// rows where b_image_swizzle places them; or, for the MFMA product, the xor_images IA and IB).
template <class A, class B, class C, int M, int K, int N, int W, class IA = void, class IB = void>
BV_DI void dot_lds_slice(const A* As, const B* Bs, basic_block<C, shape<M, N>, W>& acc) {
  using O = basic_block<C, shape<M, N>, W>;
  using L = gpu::layout2d<M, N, W>;
  constexpr int lda = K + lds_pad<A>, ldb = K + lds_pad<B>;
  const int lane = gpu::prim::lane_id(), wave = gpu::prim::wave_id();
  if constexpr (use_tensor_cores<A, B, C, M, N, K, W>()) {
#if !BV_NVIDIA
    // A thread's registers are NR x NS accumulators of 32x32, NS side by side along the columns.
    // Each k step reads every row fragment of As and every column fragment of Bs once and feeds
    // each to all the products that take it: NR + NS LDS reads for NR x NS MFMAs. (Each product
    // reading its own pair, 2 NR NS reads, put gfx942's 16-bit matmul at LDS's peak, 128 bytes a
    // clock a CU, with its MFMAs at theirs.)
    constexpr int KPL = std::is_same_v<A, float> ? 1 : 4;  // k values per lane per step
    constexpr int NS = O::NC / 16;
    using frag = std::conditional_t<
        std::is_same_v<A, float>, float,
        std::conditional_t<std::is_same_v<A, half>, gpu::prim::f16x4, gpu::prim::i16x4>>;
    const int hi = lane / 32, l32 = lane % 32;
    const int colbase = L::wave_col(wave) * 8 + 4 * ((l32 / 4) % 2) + l32 % 4;
    // Column register group s reads B image row brow + 4 s tile1 (b_swizzle keeps that stride).
    constexpr bool xor_images = is_xor_image<IA>;  // (dot_lds_double checks their shapes)
    const int b_lane_row = (l32 / 8) * L::cols::tile() + colbase;
    const int brow =
        xor_images ? b_lane_row : b_image_swizzle<A, B, C, M, K, N, W>::row(b_lane_row);
    // (xor_images: a row register's offset is a multiple of 16 rows, which no key tells apart.)
    const int arow = gpu::row_of<M, N, W>(0);
    gpu::prim::f32x16 c[O::NR][NS];
#pragma unroll
    for (int r0 = 0; r0 < O::NR; ++r0)
#pragma unroll
      for (int s = 0; s < NS; ++s)
#pragma unroll
        for (int i = 0; i < 16; ++i) c[r0][s][i] = acc.v[r0 * O::NC + s * 16 + i];
#pragma unroll 2
    for (int kk = 0; kk < K; kk += 2 * KPL) {
      const int k = kk + KPL * hi;
      frag x[NS], y[O::NR];
      // A' row label l32 = 8q' + 4h' + e' is column (4s + q') * tile1 + w1 * 8 + 4h' + e'.
      if constexpr (xor_images) {
#pragma unroll
        for (int s = 0; s < NS; ++s)
          __builtin_memcpy(&x[s], Bs + IB::at(brow, k) + 4 * s * L::cols::tile() * K, sizeof(frag));
#pragma unroll
        for (int r0 = 0; r0 < O::NR; ++r0)
          __builtin_memcpy(&y[r0], As + IA::at(arow, k) + r0 * L::rows::tile() * K, sizeof(frag));
      } else {
#pragma unroll
        for (int s = 0; s < NS; ++s)
          __builtin_memcpy(&x[s], Bs + (brow + 4 * s * L::cols::tile()) * ldb + k, sizeof(frag));
#pragma unroll
        for (int r0 = 0; r0 < O::NR; ++r0)
          __builtin_memcpy(&y[r0], As + gpu::row_of<M, N, W>(r0) * lda + k, sizeof(frag));
      }
#pragma unroll
      for (int r0 = 0; r0 < O::NR; ++r0)
#pragma unroll
        for (int s = 0; s < NS; ++s) {
          if constexpr (std::is_same_v<A, float>)
            gpu::prim::mfma_32x32x2_f32(c[r0][s], x[s], y[r0]);
          else if constexpr (std::is_same_v<A, half>)
            gpu::prim::mfma_32x32x8_f16(c[r0][s], x[s], y[r0]);
          else
            gpu::prim::mfma_32x32x8_bf16(c[r0][s], x[s], y[r0]);
        }
    }
#pragma unroll
    for (int r0 = 0; r0 < O::NR; ++r0)
#pragma unroll
      for (int s = 0; s < NS; ++s)
#pragma unroll
        for (int i = 0; i < 16; ++i) acc.v[r0 * O::NC + s * 16 + i] = c[r0][s][i];
#endif
  } else {
    // Portable: each thread computes its own registers from LDS (AMD; NVIDIA has dot_simt).
    using CC = compute_t<C>;
    // K outermost, each register still summed in k order (the same results): with a register's
    // whole k loop innermost, the compiler read a row's K values of a once for all the columns
    // and held them (K = 128 in attention: 128 registers a row, and the backward spilled).
    CC s[O::NR * O::NC];
#pragma unroll
    for (int i = 0; i < O::NR * O::NC; ++i) s[i] = cvt<CC>(acc.v[i]);
#pragma unroll 4
    for (int k = 0; k < K; ++k) {
#pragma unroll
      for (int ri = 0; ri < O::NR; ++ri) {
        const CC a = cvt<CC>(As[gpu::row_of<M, N, W>(ri) * lda + k]);
#pragma unroll
        for (int ci = 0; ci < O::NC; ++ci)
          s[ri * O::NC + ci] += a * cvt<CC>(Bs[gpu::col_of<M, N, W>(ci) * ldb + k]);
      }
    }
#pragma unroll
    for (int i = 0; i < O::NR * O::NC; ++i) acc.v[i] = cvt<C>(s[i]);
  }
}

// Slices S.. of dot_lds (a function per slice, not a lambda: the stream loop's hook must inline).
template <class A, class B, class C, int M, int K, int N, int W, int KS, int S, class SA, class SB,
          class Staged>
BV_DI void dot_lds_slices(const SA& sa, const SB& sb, basic_block<C, shape<M, N>, W>& acc,
                          Staged& staged, A* As, B* Bs) {
#ifdef BV_EMU_MUTATION_SLICE_BARRIER
  // (Test hook: the mutation tests leave out the barrier before a later slice's stores; the
  // slices test must catch them overwriting the slice other waves still read.)
  if constexpr (S == 0)
#endif
    gpu::prim::barrier();
  sa.template stage<KS, S>(As);
  sb.template stage<KS, S, b_image_swizzle<A, B, C, M, KS, N, W>>(Bs);
  gpu::prim::barrier();
  if constexpr (S == K / KS - 1) staged();
  dot_lds_slice<A, B, C, M, KS, N, W>(As, Bs, acc);
  if constexpr (S + 1 < K / KS)
    dot_lds_slices<A, B, C, M, K, N, W, KS, S + 1>(sa, sb, acc, staged, As, Bs);
}

// acc += a @ b with both operands staged in LDS by sa and sb: the AMD product (MFMA where
// use_tensor_cores allows, else the portable loop); NVIDIA uses mma_dot or dot_simt instead. K
// goes through LDS in slices (layout::dot_k_slice); staged runs once the last slice is in LDS (the
// blocks' registers are free then).
template <class A, class B, class C, int M, int K, int N, int W, class SA, class SB,
          class Staged = no_hook>
BV_DI void dot_lds(const SA& sa, const SB& sb, basic_block<C, shape<M, N>, W>& acc,
                   Staged staged = {}) {
  // (A 16-bit accumulator is staged whole: the portable product rounds its sums once, after K.)
  constexpr int KS = std::is_same_v<compute_t<C>, C>
                         ? layout::dot_k_slice(sizeof(A), K, SA::k_span, SB::k_span)
                         : K;
  constexpr int lda = KS + lds_pad<A>, ldb = KS + lds_pad<B>;
  A* As = gpu::prim::lds<A, M * lda, gpu::lds_tag::dot_a>();
  B* Bs = gpu::prim::lds<B, N * ldb, gpu::lds_tag::dot_b>();
  dot_lds_slices<A, B, C, M, K, N, W, KS, 0>(sa, sb, acc, staged, As, Bs);
}

// b's image keys its rows in runs of the accumulator's column tile (at least 8 rows).
template <int M, int N, int W>
inline constexpr int b_image_run = gpu::layout2d<M, N, W>::cols::tile() > 8
                                       ? gpu::layout2d<M, N, W>::cols::tile()
                                       : 8;
// The products dot_lds_double stages, A 16-bit: K steps of 32 or 64 k's, and an accumulator
// layout whose row registers (rows::tile() apart for a, 4 cols::tile() for b) leave the images'
// keys unchanged, multiples of 16 rows and of two runs of b's rows.
template <class A, int M, int K, int N, int W>
constexpr bool double_image_shape() {
  using L = gpu::layout2d<M, N, W>;
  return sizeof(A) == 2 && (K == 32 || K == 64) && M % 16 == 0 && L::rows::tile() % 16 == 0 &&
         (4 * L::cols::tile()) % (2 * b_image_run<M, N, W>) == 0;
}
// acc += a @ b through two LDS images of both operands taken in turn (n: the dots the loop has
// staged before this one), for a loop's streamed tiles (for_range<2>): a dot stages its operands
// into image n % 2, waits at one barrier for every wave's stores, and reads them, where dot_lds
// waits at a second barrier first for every wave to be done reading the last dot's image. That
// one is not needed: the image written now was last read by dot n - 2, and every wave read it
// before it arrived at dot n - 1's barrier, which this wave is past. The first dot of a loop waits
// (image 0 may be one the loop before last read). Both images are in one buffer of 2 (M + N) K
// elements: 64 KiB for the 16-bit matmul's 256x256x32 tiles, padded rows would take 72.
template <class A, class C, int M, int K, int N, int W, class SA, class SB, class Staged>
BV_DI void dot_lds_double(const SA& sa, const SB& sb, basic_block<C, shape<M, N>, W>& acc,
                          Staged staged, int n) {
  using IA = xor_image<A, K, 8>;
  using IB = xor_image<A, K, b_image_run<M, N, W>>;
  static_assert(double_image_shape<A, M, K, N, W>(),
                "internal: dot_lds_double takes the shapes double_image_shape names");
  // (A tag of its own: no other op may write the images, or one barrier would not cover its reads.)
  A* images = gpu::prim::lds<A, 2 * (M + N) * K, gpu::lds_tag::double_images>();
#ifdef BV_EMU_MUTATION_ONE_IMAGE
  // (Test hook: the mutation tests stage every dot into one image behind one barrier; the
  // emulator must catch a wave overwriting the image another wave still reads.)
  n = 1;
#endif
  A* As = images + (n % 2) * (M + N) * K;
  A* Bs = As + M * K;
  if (n == 0) gpu::prim::barrier();
  sa.template stage<K, 0, IA>(As);
  sb.template stage<K, 0, IB>(Bs);
  gpu::prim::barrier();
  staged();
  dot_lds_slice<A, A, C, M, K, N, W, IA, IB>(As, Bs, acc);
}

#if BV_NVIDIA
// x (R x C) into LDS as [R][ld], V contiguous columns a store.
template <int V, class T, int R, int C, int W>
BV_DI void stage_padded(T* s, int ld, const basic_block<T, shape<R, C>, W>& x) {
  using X = basic_block<T, shape<R, C>, W>;
#pragma unroll
  for (int ri = 0; ri < X::NR; ++ri) {
    T* row = s + gpu::row_of<R, C, W>(ri) * ld;
#pragma unroll
    for (int ci = 0; ci < X::NC; ci += V)
      vstore<V>(row + gpu::col_of<R, C, W>(ci), x.v + ri * X::NC + ci);
  }
}
// acc += a @ b on NVIDIA's CUDA cores (f32, and the shapes mma.sync does not take): a register-
// blocked outer product, as SIMT GEMMs do. Both operands are staged in their own order, a as
// [M][K] and b as [K][N], rows padded by 4 elements: a thread's 8 contiguous columns (the layout's
// lanes) go by two 16-byte stores, and the 8 rows of a wave's lanes, 4 + K elements apart, fall in
// 8 different groups of 4 banks. Per 4 k a thread reads its NR rows of a as 4-element vectors (8
// rows a wave, one wavefront) and, per k, its columns of b 4 at a time (every lane reads the same
// b row: 4 vectors a wave, broadcast), and each value read feeds NC or NR FMAs. Each register is
// still summed in k order (the same results as any order-keeping loop).
template <class A, class B, class C, int M, int K, int N, int W>
BV_DI void dot_simt(const basic_block<A, shape<M, K>, W>& a,
                    const basic_block<B, shape<K, N>, W>& b, basic_block<C, shape<M, N>, W>& acc) {
  using O = basic_block<C, shape<M, N>, W>;
  using CC = compute_t<C>;
  // Runs of 4 contiguous columns in a thread's registers (the layout's lanes hold 8; a multiple
  // of 4 keeps a wrapped copy's run contiguous too), 4-element aligned in LDS.
  constexpr bool runs = gpu::tile2d::spt1 % 4 == 0;
  constexpr int VK = runs && K % 4 == 0 && basic_block<A, shape<M, K>, W>::NC % 4 == 0 ? 4 : 1;
  constexpr int VN =
      runs && N % 4 == 0 && basic_block<B, shape<K, N>, W>::NC % 4 == 0 && O::NC % 4 == 0 ? 4 : 1;
  constexpr int lda = K + 4, ldb = N + 4;
  A* As = gpu::prim::lds<A, M * lda, gpu::lds_tag::scratch_a>();
  B* Bs = gpu::prim::lds<B, K * ldb, gpu::lds_tag::scratch_b>();
  gpu::prim::barrier();
  stage_padded<VK>(As, lda, a);
  stage_padded<VN>(Bs, ldb, b);
  gpu::prim::barrier();
  CC s[O::NR * O::NC];
#pragma unroll
  for (int i = 0; i < O::NR * O::NC; ++i) s[i] = cvt<CC>(acc.v[i]);
#pragma unroll 2
  for (int k0 = 0; k0 < K; k0 += VK) {
    A av[O::NR][VK];
#pragma unroll
    for (int ri = 0; ri < O::NR; ++ri) vload<VK>(av[ri], As + gpu::row_of<M, N, W>(ri) * lda + k0);
#pragma unroll
    for (int kk = 0; kk < VK; ++kk) {
#pragma unroll
      for (int ci = 0; ci < O::NC; ci += VN) {
        B bv[VN];
        vload<VN>(bv, Bs + (k0 + kk) * ldb + gpu::col_of<M, N, W>(ci));
#pragma unroll
        for (int j = 0; j < VN; ++j) {
          const CC bb = cvt<CC>(bv[j]);
#pragma unroll
          for (int ri = 0; ri < O::NR; ++ri) s[ri * O::NC + ci + j] += cvt<CC>(av[ri][kk]) * bb;
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < O::NR * O::NC; ++i) acc.v[i] = cvt<C>(s[i]);
}
#endif

template <class A, class B, class C, int M, int K, int N, int W>
BV_DI void dot_acc(const basic_block<A, shape<M, K>, W>& a, const basic_block<B, shape<K, N>, W>& b,
                   basic_block<C, shape<M, N>, W>& acc) {
#if BV_NVIDIA
  if constexpr (use_tensor_cores<A, B, C, M, N, K, W>()) {
    mma_dot<false>(a, b, acc);
  } else {
    dot_simt<A, B, C, M, K, N, W>(a, b, acc);
  }
#else
  dot_lds<A, B, C, M, K, N, W>(rows(a), cols(b), acc);
#endif
}
// acc + a @ b through dot_lds, for a trans() operand (AMD and the emulator).
template <class A, class B, class C, int M, int K, int N, int W, class SA, class SB>
BV_DI basic_block<C, shape<M, N>, W> dot_staged(const SA& sa, const SB& sb,
                                                const basic_block<C, shape<M, N>, W>& acc) {
  static_assert(rules::dot<A, M, K, B, K, N, true>());
  basic_block<C, shape<M, N>, W> out = acc;
  dot_lds<A, B, C, M, K, N, W>(sa, sb, out);
  return out;
}
}  // namespace detail

// trans(x) (tl.trans): rows become columns. A lazy view: dot reads a transposed operand straight
// from x's own staging (no transpose at all on NVIDIA); anywhere else it converts to the
// transposed block (a layout conversion through LDS), implicitly or with .get().
template <class T, int R, int C, int W>
struct trans_view {
  basic_block<T, shape<R, C>, W> src;  // the block whose transpose this is
  using value_type = T;
  using shape_type = shape<C, R>;
  static constexpr int waves = W;
  BV_DI basic_block<T, shape<C, R>, W> get() const { return detail::transpose(src); }
  BV_DI operator basic_block<T, shape<C, R>, W>() const { return get(); }
  template <class U>
  BV_DI trans_view<U, R, C, W> to(dtype<U> d) const {
    return {src.to(d)};
  }
};
template <class T, int R, int C, int W>
BV_DI trans_view<T, R, C, W> trans(const basic_block<T, shape<R, C>, W>& x) {
  return {x};
}
template <class T, int R, int C, int W>
BV_DI basic_block<T, shape<R, C>, W> trans(const trans_view<T, R, C, W>& x) {
  return x.src;
}

namespace detail {
template <class A, int M, int K, int N, int W>
BV_DI void check_dot_shapes() {
  static_assert(rules::dot_min16<M, N, K>());
  static_assert(rules::dot_numbers<A, A>());
}
}  // namespace detail

// dot(a, trans(x), acc): a @ x^T.
template <class A, int M, int K, class B, int N, int K2, class C, int W>
BV_DI basic_block<C, shape<M, N>, W> dot(const basic_block<A, shape<M, K>, W>& a,
                                         const trans_view<B, N, K2, W>& bt,
                                         const basic_block<C, shape<M, N>, W>& acc) {
  static_assert(K == K2,
                "dot(a, trans(x), acc) needs a's columns to equal x's columns: a is MxK and x "
                "must be NxK.");
  detail::check_dot_shapes<B, M, K, N, W>();
#if BV_NVIDIA
  if constexpr (std::is_same_v<A, B> && detail::use_tensor_cores<A, B, C, M, N, K, W>()) {
    basic_block<C, shape<M, N>, W> out = acc;
    detail::mma_dot<true>(a, bt.src, out);
    return out;
  } else
#else
  if constexpr (std::is_same_v<A, B>)
    return detail::dot_staged<A, B, C, M, K, N, W>(detail::rows(a), detail::rows(bt.src), acc);
  else
#endif
    return dot(a, bt.get(), acc);
}
template <class A, int K, int M, class B, int K2, int N, class C, int W>
BV_DI basic_block<C, shape<M, N>, W> dot(const trans_view<A, K, M, W>& at,
                                         const basic_block<B, shape<K2, N>, W>& b,
                                         const basic_block<C, shape<M, N>, W>& acc) {
#if BV_NVIDIA
  if constexpr (std::is_same_v<A, B> && K == K2 && std::is_same_v<C, float> &&
                detail::wg_trans_a_dot<A, M, K, N, W>()) {
    detail::check_dot_shapes<A, M, K, N, W>();
    basic_block<C, shape<M, N>, W> out = acc;
    detail::wg_dot_trans_a<A, M, K, N, W>(at.src, b, out);
    return out;
  } else
#else
  if constexpr (std::is_same_v<A, B> && K == K2)
    return detail::dot_staged<A, B, C, M, K, N, W>(detail::cols(at.src), detail::cols(b), acc);
  else
#endif
    return dot(at.get(), b, acc);
}
template <class A, int K, int M, class B, int N, int K2, class C, int W>
BV_DI basic_block<C, shape<M, N>, W> dot(const trans_view<A, K, M, W>& at,
                                         const trans_view<B, N, K2, W>& bt,
                                         const basic_block<C, shape<M, N>, W>& acc) {
#if !BV_NVIDIA
  if constexpr (std::is_same_v<A, B> && K == K2)
    return detail::dot_staged<A, B, C, M, K, N, W>(detail::cols(at.src), detail::rows(bt.src), acc);
  else
#endif
    return dot(at.get(), bt, acc);
}

template <class A, int M, int K, class B, int K2, int N, class C, int W>
BV_DI basic_block<C, shape<M, N>, W> dot(const basic_block<A, shape<M, K>, W>& a,
                                         const basic_block<B, shape<K2, N>, W>& b,
                                         const basic_block<C, shape<M, N>, W>& acc) {
  static_assert(rules::dot<A, M, K, B, K2, N, true>());
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
template <class A, int M, int K, class B, int N, int K2, int W>
BV_DI auto dot(const basic_block<A, shape<M, K>, W>& a, const trans_view<B, N, K2, W>& bt) {
  using R = compute_t<promote_t<A, B>>;
  basic_block<R, shape<M, N>, W> acc;
  detail::generate(acc, [](auto, int, int) { return R(0); });
  return dot(a, bt, acc);
}
template <class A, int K, int M, class B, int K2, int N, int W>
BV_DI auto dot(const trans_view<A, K, M, W>& at, const basic_block<B, shape<K2, N>, W>& b) {
  using R = compute_t<promote_t<A, B>>;
  basic_block<R, shape<M, N>, W> acc;
  detail::generate(acc, [](auto, int, int) { return R(0); });
  return dot(at, b, acc);
}
template <class A, int K, int M, class B, int N, int K2, int W>
BV_DI auto dot(const trans_view<A, K, M, W>& at, const trans_view<B, N, K2, W>& bt) {
#if !BV_NVIDIA
  using R = compute_t<promote_t<A, B>>;
  basic_block<R, shape<M, N>, W> acc;
  detail::generate(acc, [](auto, int, int) { return R(0); });
  return dot(at, bt, acc);
#else
  return dot(at.get(), bt);
#endif
}

}  // namespace gpu_lang
}  // namespace bv
