// Flash attention over q, k, v of shape [B, H, S, D] (contiguous), D = 64 or 128, causal or not.
// Forward (FlashAttention-2 as in Triton's tutorial): one program per (BM query rows, batch*head)
// streams the keys in BN blocks with an online softmax (running row max m and sum l, the
// accumulator rescaled by exp(m_old - m_new)), and saves lse = m + log(l) per row.
// Backward: a preprocess computes delta = rowsum(dO * O); one kernel per key block accumulates
// dK and dV over the query blocks (from q k^T, or from k q^T as Triton's tutorial does: two
// variants), another per query block accumulates dQ over the key blocks (no atomics: each program
// owns its output tile), both recomputing P = exp(S - lse).
// Scores and softmax are fp32; P is cast to the input dtype before the P @ V product, as Triton
// does for the matrix cores.
#pragma once
#include <cmath>
#include <type_traits>

#include "bv/bv.hpp"
#include "bv/dot_staging.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

// exp(x) = exp2(x log2 e) and ln(x) = log2(x) ln 2: the kernels keep scores in log2 units, so that
// each exponential is one exp2 after one multiply-add.
inline constexpr float attention_log2e = 1.44269504088896341f;
inline constexpr float attention_ln2 = 0.693147180559945309f;

// Which scores the kernels keep, forward and backward alike: a block of keys start_n .. start_n +
// BN against query rows from start_m holds scores to mask only where it runs past the last key
// or (causal) reaches past its first query row; within it, a key is kept before s and (causal)
// up to its query row. Other blocks skip the mask (on sm_90 the backward's ALU was its busiest
// pipe, and the mask's compares and selects were its work at every step).
template <bool CAUSAL, int BN>
BV_INLINE bool attention_keys_masked(int start_n, int start_m, int s) {
  return start_n + BN > s || (CAUSAL && start_n + BN > start_m + 1);
}
template <bool CAUSAL, class KR, class QR>
BV_INLINE auto attention_keys_kept(const KR& keys, const QR& queries, int s) {
  return (keys < s) & ((keys <= queries) | !CAUSAL);
}

// One key block's step of the online softmax, shared by the forward's variants: the scores qk of
// keys start_n + rn, masked past s and, causal, past each query row rm; the row maxima m_i and
// sums l_i updated; returns the probabilities p and the factor (rescale) by which the running
// output shrinks. qk comes unscaled: the scale goes into the row max (qk_scale > 0 keeps the max
// where it is) and into exp2's argument, qk * qk_scale - m_new, one multiply-add per score (the
// GPU compilers contract it) where scaling the block first took a multiply and a subtract.
template <bool CAUSAL, int BN, class QK, class RM, class RN, class R>
BV_INLINE auto attention_softmax_step(QK qk, int start_n, int start_m, int s, const RM& rm,
                                      const RN& rn, float qk_scale, R& m_i, R& l_i) {
  if (attention_keys_masked<CAUSAL, BN>(start_n, start_m, s)) {
    auto cols = start_n + rn;
    qk = where(attention_keys_kept<CAUSAL>(cols.row(), rm.col(), s), qk, -INFINITY);
  }
  // Every row has a finite score in the first block (key 0), so m_new is finite from there on
  // and exp2(m_i - m_new) is exp2(-inf) = 0 only on the first step.
  auto m_new = maximum(m_i, max<1>(qk) * qk_scale);
  auto alpha = exp2(m_i - m_new);
  auto pm = exp2(qk * qk_scale - m_new.col());
  l_i = l_i * alpha + sum<1>(pm);
  m_i = m_new;
  struct {
    decltype(pm) p;
    decltype(alpha) rescale;
  } out{pm, alpha};
  return out;
}

// The backward's probabilities p of one block of scores, queries by keys, with the forward's
// keys zeroed, and queries past s too: they need no mask for the gradients (their q and dout rows
// load as zeros), but their block is masked all the same, so p is the reference's. EveryBlock
// masks every block (the same p): the branch costs SGPRs that two AMD kernels lack.
template <bool CAUSAL, int BM, int BN, bool EveryBlock = false, class P, class QR, class KR>
BV_INLINE P attention_bwd_mask(P pm, int start_m, int start_n, int s, const QR& queries,
                               const KR& keys) {
  if (EveryBlock || start_m + BM > s || attention_keys_masked<CAUSAL, BN>(start_n, start_m, s))
    pm = where(attention_keys_kept<CAUSAL>(keys, queries, s) & (queries < s), pm, 0.0f);
  return pm;
}

// The same p from q and k in halves of D (the halves kernels): q k^T as the halves' two products,
// and every block masked (skipping the mask spills SGPRs in gfx90a's 16-bit causal dQ).
template <bool CAUSAL, int BM, int BN, class Q, class K, class L, class QR, class KR>
BV_INLINE auto attention_bwd_halves_p(const Q& q_lo, const Q& q_hi, const K& k_lo, const K& k_hi,
                                      const L& l2, float scale2, int start_m, int start_n, int s,
                                      const QR& queries, const KR& keys) {
  const auto qk = dot(q_hi, trans(k_hi), dot(q_lo, trans(k_lo)));
  return attention_bwd_mask<CAUSAL, BM, BN, true>(exp2(qk * scale2 - l2.col()), start_m, start_n, s,
                                                  queries, keys);
}

// Variant 1 (sm_90's rows) loads each step's v beside its k, so that v's latency hides behind
// q k^T and the softmax: 2 to 5% on an H200 (docs/PERFORMANCE.md). On AMD the v block then stays
// live across the softmax and costs a wave a SIMD (gfx942, D = 64: 126 VGPRs to 130, 4 waves to
// 3), so AMD's rows load v where variant 0 does, right before p v (and at D = 128 some take the
// halves of D, variant 4: attention_fwd_configs).
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4, int Variant = 0>
BV_KERNEL void attention_fwd_kernel(program<W> p, ptr<const T> q, ptr<const T> k, ptr<const T> v,
                                    ptr<T> o, ptr<float> lse, int s, float scale) {
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  // Scores in log2 units, as in Triton's tutorial: exp(x * scale) = exp2(x * scale * log2(e)),
  // the two factors folded into one multiply; m_i is in the same units.
  const float qk_scale = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto qb = load(q + base + rm.col() * D + rd.row(), rm.col() < s, 0.0f);
  auto m_i = full<float, BM>(p, -INFINITY);
  auto l_i = zeros<float, BM>(p);
  auto acc = zeros<float, BM, D>(p);
  // Causal: keys past this block's last query row are all masked; stop there.
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  for (int start_n = 0; start_n < end; start_n += BN) {
    auto cols = start_n + rn;
    auto kv_mask = cols.col() < s;
    auto kb = load(k + base + cols.col() * D + rd.row(), kv_mask, 0.0f);
    const auto load_v = [&] { return load(v + base + cols.col() * D + rd.row(), kv_mask, 0.0f); };
    auto v_early = [&] {
      if constexpr (Variant == 1)
        return load_v();
      else
        return 0;
    }();
    const auto sm = attention_softmax_step<CAUSAL, BN>(dot(qb, trans(kb)), start_n, start_m, s, rm,
                                                       rn, qk_scale, m_i, l_i);
    if constexpr (Variant == 1)
      acc = dot(sm.p.to(dtype<T>{}), v_early, acc * sm.rescale.col());
    else
      acc = dot(sm.p.to(dtype<T>{}), load_v(), acc * sm.rescale.col());
  }
  store(o + base + rm.col() * D + rd.row(), acc / l_i.col(), rm.col() < s);
  // lse in natural-log units: (m_i + log2(l_i)) * ln(2).
  store(lse + bh * s + rm, (m_i + log2(l_i)) * attention_ln2, rm < s);
}

// The forward with k and v through block pointers (variant 2): keys past s read as zeros
// (boundary_check(0)). On sm_90a, launched with stages, each is a ring whose next key blocks are
// in flight while this one is worked on, read in place by wgmma (q and p from registers), where
// the pointer loads of variants 0 and 1 make each step wait for its k. On AMD a block-pointer load
// of a block is a masked load with more registers than a pointer load (gfx942 at D = 64: 126 VGPRs
// to 141, 4 waves a SIMD to 3); variant 3's streams do better there (below).
// QTile (variant 3): q through a block pointer too, o in an accumulator() for dots of T, and the
// key loop a for_range over k's and v's tiles as streams (on sm_90a a TMA pipeline with the next
// key block's copies in flight during this one's work: gpu_backend/bv/gpu/tile_loop.hpp). On
// sm_90a, launched with stages, q's tile (a held stream) stays in its ring slot through the loop:
// wgmma reads q k^T from q's and k's slots and p v from p's registers and v's slot, into o kept
// in the tensor cores' order (gpu_backend/bv/gpu/accumulator.hpp), so k's and v's images keep
// their columns in natural order and go by the TMA or 16-byte copies (variant 2's, with q in
// registers, permute column pairs: 4-byte copies). Elsewhere q's block pointer is a masked load
// and o a block of zeros. On AMD the 16-bit streams load 16-byte runs in a map of their own with
// no copies (gpu/wide_tile.hpp), the next step's during this one's dots, and the dots stage them
// into LDS from those registers: gfx942's 8-wave rows take it, whose 64-key k and v blocks variant
// 0 loaded twice (the waves' 4 x 2 grid covers 128 rows).
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4, bool QTile = false>
BV_KERNEL void attention_fwd_bp_kernel(program<W> p, ptr<const T> q, ptr<const T> k, ptr<const T> v,
                                       ptr<T> o, ptr<float> lse, int s, float scale) {
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  const float qk_scale = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto k_bp = make_block_ptr<BN, D>(p, k + base, {s, D}, {D, 1}, {0, 0});
  auto v_bp = make_block_ptr<BN, D>(p, v + base, {s, D}, {D, 1}, {0, 0});
  auto m_i = full<float, BM>(p, -INFINITY);
  auto l_i = zeros<float, BM>(p);
  auto acc = [&] {
    if constexpr (QTile)
      return accumulator<float, BM, D>(p, dtype<T>{});
    else
      return zeros<float, BM, D>(p);
  }();
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  if constexpr (QTile) {
    // k and v as tile streams: on sm_90a the loop's own TMA pipeline (gpu/tile_loop.hpp); q a
    // held stream (along {0, 0}), its tile loaded once and read in place at every step with
    // nothing checked. The step is written in the body, not a helper lambda's call: the GPU's
    // loop calls its body in two places (the TMA's and the rings'), and nvcc left such a helper a
    // call, which ends the wgmma groups in flight (ptxas serialises them, C7510) and spilled its
    // arguments.
    struct carried {
      decltype(acc) o;
      decltype(m_i) m, l;
    };
    const auto q_bp =
        make_block_ptr<BM, D>(p, q + base, {s, D}, {D, 1}, {start_m, 0}, max_slots<1>);
    const carried c =
        for_range(p, 0, end, BN, carried{acc, m_i, l_i}, along(q_bp, {0, 0}, boundary_check(0)),
                  along(k_bp, {BN, 0}, boundary_check(0)), along(v_bp, {BN, 0}, boundary_check(0)),
                  [&](int start_n, const auto& qb, const auto& kb, const auto& vb, carried c) {
                    // The scores as a block at once (on sm_90a the dot could stay in flight until
                    // read, pending.hpp; read first inside the step's mask test, it would be waited
                    // for on one path only, and ptxas would serialise every wgmma: C7515).
                    const decltype(zeros<float, BM, BN>(p)) qk = dot(qb, trans(kb));
                    const auto sm = attention_softmax_step<CAUSAL, BN>(qk, start_n, start_m, s, rm,
                                                                       rn, qk_scale, c.m, c.l);
                    c.o = dot(sm.p.to(dtype<T>{}), vb, c.o * sm.rescale.col());
                    return c;
                  });
    acc = c.o;
    m_i = c.m;
    l_i = c.l;
  } else {
    const auto qb = load(q + base + rm.col() * D + rd.row(), rm.col() < s, 0.0f);
    for (int start_n = 0; start_n < end; start_n += BN) {
      const auto sm =
          attention_softmax_step<CAUSAL, BN>(dot(qb, trans(load(k_bp, boundary_check(0)))), start_n,
                                             start_m, s, rm, rn, qk_scale, m_i, l_i);
      acc = dot(sm.p.to(dtype<T>{}), load(v_bp, boundary_check(0)), acc * sm.rescale.col());
      k_bp = advance(k_bp, {BN, 0});
      v_bp = advance(v_bp, {BN, 0});
    }
  }
  store(o + base + rm.col() * D + rd.row(), acc / l_i.col(), rm.col() < s);
  store(lse + bh * s + rm, (m_i + log2(l_i)) * attention_ln2, rm < s);
}

// Variant 5: variant 3 with q k^T a key block ahead (FlashAttention-3's order within a
// warpgroup). Step i issues the scores of key block i + 1, then runs the softmax of block i's,
// carried from the step before, and p v: on sm_90a a dot of two ring tiles whose second is a
// stream's view is left in flight until its result is first read (gpu/pending.hpp), so the tensor
// cores compute the next scores while this step's softmax runs. k's stream runs a block ahead of
// v's, block 0's scores come before the loop, and the last step's (a block past the loop's keys,
// zeros past the tensor's end) go unused.
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_fwd_ahead_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                          ptr<const T> v, ptr<T> o, ptr<float> lse, int s,
                                          float scale) {
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  const float qk_scale = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto k_bp = make_block_ptr<BN, D>(p, k + base, {s, D}, {D, 1}, {0, 0});
  auto v_bp = make_block_ptr<BN, D>(p, v + base, {s, D}, {D, 1}, {0, 0});
  auto qb = load(make_block_ptr<BM, D>(p, q + base, {s, D}, {D, 1}, {start_m, 0}, max_slots<1>),
                 boundary_check(0));
  auto o_zero = accumulator<float, BM, D>(p, dtype<T>{});
  auto qk_zero = zeros<float, BM, BN>(p);
  auto m_i = full<float, BM>(p, -INFINITY);
  auto l_i = zeros<float, BM>(p);
  struct carried {
    decltype(o_zero) o;
    decltype(m_i) m, l;
    decltype(qk_zero) qk;  // this step's scores, unscaled
  };
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  const carried first{o_zero, m_i, l_i, dot(qb, trans(load(k_bp, boundary_check(0))))};
  const carried c =
      for_range(p, 0, end, BN, first, along(advance(k_bp, {BN, 0}), {BN, 0}, boundary_check(0)),
                along(v_bp, {BN, 0}, boundary_check(0)),
                [&](int start_n, const auto& k_next, const auto& vb, carried c) {
                  auto qk_next = dot(qb, trans(k_next));
                  const auto sm = attention_softmax_step<CAUSAL, BN>(c.qk, start_n, start_m, s, rm,
                                                                     rn, qk_scale, c.m, c.l);
                  c.o = dot(sm.p.to(dtype<T>{}), vb, c.o * sm.rescale.col());
                  c.qk = qk_next;
                  return c;
                });
  store(o + base + rm.col() * D + rd.row(), c.o / c.l.col(), rm.col() < s);
  store(lse + bh * s + rm, (c.m + log2(c.l)) * attention_ln2, rm < s);
}

// One key block's step of variant 4 from its scores qk: the softmax, and p v into the halves'
// outputs c.o0 and c.o1 (c: the loop's carried struct).
template <bool CAUSAL, int BN, class T, class QK, class RM, class RN, class V, class C>
BV_INLINE void attention_halves_step(const QK& qk, int start_n, int start_m, int s, const RM& rm,
                                     const RN& rn, float qk_scale, const V& vb0, const V& vb1,
                                     C& c) {
  const auto sm =
      attention_softmax_step<CAUSAL, BN>(qk, start_n, start_m, s, rm, rn, qk_scale, c.m, c.l);
  const auto pt = sm.p.to(dtype<T>{});
  c.o0 = dot(pt, vb0, c.o0 * sm.rescale.col());
  c.o1 = dot(pt, vb1, c.o1 * sm.rescale.col());
}

// Variant 4: variant 3 over the two 64-column halves of the head dimension (sm_90's D = 128 row,
// on 128x128 tiles: see attention_fwd_configs). q, k and v are two block pointers each, q k^T is
// the sum of the halves' products and o is two accumulators. On sm_90a every tile is then one
// wgmma reads in place, as at D = 64: q's [BM, 64] halves as A tiles, k's and v's [BN, 64] halves
// in images the TMA writes (fmt_wm; at BN = 128 on 8 waves a half is an A tile by its shape, and
// its stream takes fmt_wm from its step along the keys: gpu/tile_loop.hpp). A whole [BN,
// 128] tile of k or v would be a wgmma B tile, an image neither q k^T (k K-major) nor p v (p in
// registers) reads. The key loop streams the four halves. k's and v's block pointers are made
// before q's, so that they are the ones that get tensor maps (a program has four; q's halves,
// loaded once, go by cp.async). Ahead (variant 6): q k^T a key block ahead, as variant 5. On AMD
// (gfx90a's 16-bit row and both targets' f32 rows at D = 128, 64x64 tiles on 4 waves) the streams
// load into registers and every product's operands are a K slice's size: 17408 bytes of LDS in f32
// and 17920 in 16-bit, where variants 0 and 1 took 34304 and 35328 (one wave a SIMD).
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4, bool Ahead = false>
BV_KERNEL void attention_fwd_halves_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                           ptr<const T> v, ptr<T> o, ptr<float> lse, int s,
                                           float scale) {
  static_assert(D % 2 == 0, "attention_fwd_halves_kernel splits the head dimension in two halves.");
  constexpr int H = D / 2;
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  const float qk_scale = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rh = arange<H>(p);
  auto k0 = make_block_ptr<BN, H>(p, k + base, {s, D}, {D, 1}, {0, 0});
  auto k1 = make_block_ptr<BN, H>(p, k + base, {s, D}, {D, 1}, {0, H});
  auto v0 = make_block_ptr<BN, H>(p, v + base, {s, D}, {D, 1}, {0, 0});
  auto v1 = make_block_ptr<BN, H>(p, v + base, {s, D}, {D, 1}, {0, H});
  const auto q0_bp = make_block_ptr<BM, H>(p, q + base, {s, D}, {D, 1}, {start_m, 0}, max_slots<1>);
  const auto q1_bp = make_block_ptr<BM, H>(p, q + base, {s, D}, {D, 1}, {start_m, H}, max_slots<1>);
  auto o_zero = accumulator<float, BM, H>(p, dtype<T>{});
  auto m_i = full<float, BM>(p, -INFINITY);
  auto l_i = zeros<float, BM>(p);
  using scores = decltype(zeros<float, BM, BN>(p));
  struct carried {
    decltype(o_zero) o0, o1;
    decltype(m_i) m, l;
  };
  struct carried_ahead : carried {
    scores qk;  // this step's scores, unscaled
  };
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  const auto keys = [](const auto& bp) { return along(bp, {BN, 0}, boundary_check(0)); };
  // The step's dots are written in the loops' bodies, and its softmax and p v are a function
  // inlined on the GPU, not helper lambdas: the GPU's loop calls its body in two places, and a
  // lambda called there may stay a call, which ends the wgmma groups in flight (ptxas serialises
  // every one, C7510). So is the choice below two statements, not a lambda called in place.
  std::conditional_t<Ahead, carried_ahead, carried> c;
  if constexpr (Ahead) {
    const auto q0 = load(q0_bp, boundary_check(0));
    const auto q1 = load(q1_bp, boundary_check(0));
    const auto kf0 = load(k0, boundary_check(0));
    const auto kf1 = load(k1, boundary_check(0));
    const carried_ahead first{{o_zero, o_zero, m_i, l_i}, dot(q1, trans(kf1), dot(q0, trans(kf0)))};
    const auto ahead = [&](const auto& bp) { return keys(advance(bp, {BN, 0})); };
    c = for_range(p, 0, end, BN, first, ahead(k0), ahead(k1), keys(v0), keys(v1),
                  [&](int start_n, const auto& kn0, const auto& kn1, const auto& vb0,
                      const auto& vb1, carried_ahead c) {
                    auto qk_next = dot(q1, trans(kn1), dot(q0, trans(kn0)));
                    attention_halves_step<CAUSAL, BN, T>(c.qk, start_n, start_m, s, rm, rn,
                                                         qk_scale, vb0, vb1, c);
                    c.qk = qk_next;
                    return c;
                  });
  } else {
    // q's halves as held streams (along {0, 0}): loaded once, read in place with nothing checked.
    const auto held = [](const auto& bp) { return along(bp, {0, 0}, boundary_check(0)); };
    c = for_range(p, 0, end, BN, carried{o_zero, o_zero, m_i, l_i}, held(q0_bp), held(q1_bp),
                  keys(k0), keys(k1), keys(v0), keys(v1),
                  [&](int start_n, const auto& q0, const auto& q1, const auto& kb0, const auto& kb1,
                      const auto& vb0, const auto& vb1, carried c) {
                    // A block at once, as variant 3's.
                    const scores qk = dot(q1, trans(kb1), dot(q0, trans(kb0)));
                    attention_halves_step<CAUSAL, BN, T>(qk, start_n, start_m, s, rm, rn, qk_scale,
                                                         vb0, vb1, c);
                    return c;
                  });
  }
  const auto out = o + base + rm.col() * D + rh.row();
  store(out, c.o0 / c.l.col(), rm.col() < s);
  store(out + H, c.o1 / c.l.col(), rm.col() < s);
  store(lse + bh * s + rm, (c.m + log2(c.l)) * attention_ln2, rm < s);
}

template <class T, int D, int BM, int W = 4>
BV_KERNEL void attention_bwd_preprocess_kernel(program<W> p, ptr<const T> o, ptr<const T> dout,
                                               ptr<float> delta, int s) {
  const int bh = p.id(1);
  auto rm = p.id(0) * BM + arange<BM>(p);
  auto rd = arange<D>(p);
  auto offs = bh * s * D + rm.col() * D + rd.row();
  auto ob = load(o + offs, rm.col() < s, 0.0f).to(f32);
  auto dob = load(dout + offs, rm.col() < s, 0.0f).to(f32);
  store(delta + bh * s + rm, sum<1>(ob * dob), rm < s);
}

template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dkdv_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                         ptr<const T> v, ptr<const T> dout, ptr<const float> lse,
                                         ptr<const float> delta, ptr<T> dk, ptr<T> dv, int s,
                                         float scale) {
  const int start_n = p.id(0) * BN, bh = p.id(1);
  const int base = bh * s * D;
  // P = exp(qk * scale - lse) as exp2(qk * scale2 - lse * log2 e): one multiply-add a score.
  const float scale2 = scale * attention_log2e;
  auto rn = start_n + arange<BN>(p);
  auto rd = arange<D>(p);
  auto kv_offs = base + rn.col() * D + rd.row();
  auto kb = load(k + kv_offs, rn.col() < s, 0.0f);
  auto vb = load(v + kv_offs, rn.col() < s, 0.0f);
  auto dk_acc = zeros<float, BN, D>(p);
  auto dv_acc = zeros<float, BN, D>(p);
  // Causal: query blocks wholly above this key block see none of it.
  const int first_m = CAUSAL ? (start_n / BM) * BM : 0;
  for (int start_m = first_m; start_m < s; start_m += BM) {
    auto rm = start_m + arange<BM>(p);
    auto q_offs = base + rm.col() * D + rd.row();
    auto qb = load(q + q_offs, rm.col() < s, 0.0f);
    auto dob = load(dout + q_offs, rm.col() < s, 0.0f);
    auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
    auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
    auto qk = dot(qb, trans(kb));
    // Every block: skipping the mask spills SGPRs on gfx942 (f32, D = 128, causal).
    auto pm = attention_bwd_mask<CAUSAL, BM, BN, true>(exp2(qk * scale2 - l2.col()), start_m,
                                                       start_n, s, rm.col(), rn.row());
    dv_acc = dot(trans(pm.to(dtype<T>{})), dob, dv_acc);
    auto dp = dot(dob, trans(vb));
    auto ds = pm * (dp - dl.col());
    dk_acc = dot(trans(ds.to(dtype<T>{})), qb, dk_acc);
  }
  store(dk + kv_offs, dk_acc * scale, rn.col() < s);
  store(dv + kv_offs, dv_acc, rn.col() < s);
}

// The same dK and dV with k, v, q and dout in halves of D (variant 3), as dQ's variant 2: q k^T and
// dout v^T as two products of D / 2 each, dK and dV as their column halves. On AMD every
// product's operands are then the size of a slice of q k^T's (bv/dot_staging.hpp) and share two
// LDS images: at D = 128 in 16-bit, 17408 bytes where q and dout whole as ds^T q's and p^T dout's
// b took 34816, more than half a CU's 64 KiB (one workgroup a CU, one wave a SIMD).
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dkdv_halves_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                                ptr<const T> v, ptr<const T> dout,
                                                ptr<const float> lse, ptr<const float> delta,
                                                ptr<T> dk, ptr<T> dv, int s, float scale) {
  static_assert(D % 2 == 0, "attention_bwd_dkdv_halves_kernel splits D in two: D must be even.");
  constexpr int H = D / 2;
  const int start_n = p.id(0) * BN, bh = p.id(1);
  const int base = bh * s * D;
  const float scale2 = scale * attention_log2e;
  auto rn = start_n + arange<BN>(p);
  auto rh = arange<H>(p);
  auto kv_offs = base + rn.col() * D + rh.row();  // the low half; + H the high one
  auto k_lo = load(k + kv_offs, rn.col() < s, 0.0f);
  auto k_hi = load(k + (kv_offs + H), rn.col() < s, 0.0f);
  auto v_lo = load(v + kv_offs, rn.col() < s, 0.0f);
  auto v_hi = load(v + (kv_offs + H), rn.col() < s, 0.0f);
  auto dk_lo = zeros<float, BN, H>(p);
  auto dk_hi = zeros<float, BN, H>(p);
  auto dv_lo = zeros<float, BN, H>(p);
  auto dv_hi = zeros<float, BN, H>(p);
  // Causal: query blocks wholly above this key block see none of it.
  const int first_m = CAUSAL ? (start_n / BM) * BM : 0;
  for (int start_m = first_m; start_m < s; start_m += BM) {
    auto rm = start_m + arange<BM>(p);
    auto q_offs = base + rm.col() * D + rh.row();
    auto q_lo = load(q + q_offs, rm.col() < s, 0.0f);
    auto q_hi = load(q + (q_offs + H), rm.col() < s, 0.0f);
    auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
    auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
    auto pm = attention_bwd_halves_p<CAUSAL, BM, BN>(q_lo, q_hi, k_lo, k_hi, l2, scale2, start_m,
                                                     start_n, s, rm.col(), rn.row());
    auto do_lo = load(dout + q_offs, rm.col() < s, 0.0f);
    auto do_hi = load(dout + (q_offs + H), rm.col() < s, 0.0f);
    const auto pt = trans(pm.to(dtype<T>{}));
    dv_lo = dot(pt, do_lo, dv_lo);
    dv_hi = dot(pt, do_hi, dv_hi);
    auto dp = dot(do_hi, trans(v_hi), dot(do_lo, trans(v_lo)));
    const auto dst = trans((pm * (dp - dl.col())).to(dtype<T>{}));
    dk_lo = dot(dst, q_lo, dk_lo);
    dk_hi = dot(dst, q_hi, dk_hi);
  }
  store(dk + kv_offs, dk_lo * scale, rn.col() < s);
  store(dk + (kv_offs + H), dk_hi * scale, rn.col() < s);
  store(dv + kv_offs, dv_lo, rn.col() < s);
  store(dv + (kv_offs + H), dv_hi, rn.col() < s);
}

// dK and dV at once hold k, v, dK and dV through the query loop; at D = 128 in f32 (and on gfx90a
// in 16-bit) that is more registers than 2 waves a SIMD leave on AMD, in every tile
// (docs/PERFORMANCE.md). Variant 4 takes variant 3's halves in two passes over the query blocks:
// dV's (q k^T and p^T dout, v not yet loaded), then dK's (q k^T and dout v^T again, and ds^T q), so
// that each pass holds one gradient's halves: a quarter more products and q and dout read twice,
// for half the accumulators alive at once.
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dkdv_twopass_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                                 ptr<const T> v, ptr<const T> dout,
                                                 ptr<const float> lse, ptr<const float> delta,
                                                 ptr<T> dk, ptr<T> dv, int s, float scale) {
  static_assert(D % 2 == 0, "attention_bwd_dkdv_twopass_kernel splits D in two: D must be even.");
  constexpr int H = D / 2;
  const int start_n = p.id(0) * BN, bh = p.id(1);
  const int base = bh * s * D;
  const float scale2 = scale * attention_log2e;
  auto rn = start_n + arange<BN>(p);
  auto rh = arange<H>(p);
  auto kv_offs = base + rn.col() * D + rh.row();  // the low half; + H the high one
  auto k_lo = load(k + kv_offs, rn.col() < s, 0.0f);
  auto k_hi = load(k + (kv_offs + H), rn.col() < s, 0.0f);
  // Causal: query blocks wholly above this key block see none of it.
  const int first_m = CAUSAL ? (start_n / BM) * BM : 0;
  {
    auto dv_lo = zeros<float, BN, H>(p);
    auto dv_hi = zeros<float, BN, H>(p);
    for (int start_m = first_m; start_m < s; start_m += BM) {
      auto rm = start_m + arange<BM>(p);
      auto q_offs = base + rm.col() * D + rh.row();
      auto q_lo = load(q + q_offs, rm.col() < s, 0.0f);
      auto q_hi = load(q + (q_offs + H), rm.col() < s, 0.0f);
      auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
      auto pm = attention_bwd_halves_p<CAUSAL, BM, BN>(q_lo, q_hi, k_lo, k_hi, l2, scale2, start_m,
                                                       start_n, s, rm.col(), rn.row());
      const auto pt = trans(pm.to(dtype<T>{}));
      dv_lo = dot(pt, load(dout + q_offs, rm.col() < s, 0.0f), dv_lo);
      dv_hi = dot(pt, load(dout + (q_offs + H), rm.col() < s, 0.0f), dv_hi);
    }
    store(dv + kv_offs, dv_lo, rn.col() < s);
    store(dv + (kv_offs + H), dv_hi, rn.col() < s);
  }
  auto v_lo = load(v + kv_offs, rn.col() < s, 0.0f);
  auto v_hi = load(v + (kv_offs + H), rn.col() < s, 0.0f);
  auto dk_lo = zeros<float, BN, H>(p);
  auto dk_hi = zeros<float, BN, H>(p);
  for (int start_m = first_m; start_m < s; start_m += BM) {
    auto rm = start_m + arange<BM>(p);
    auto q_offs = base + rm.col() * D + rh.row();
    auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
    auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
    // dout v^T before q k^T, so that v's halves are the only operands live beside k's (as dQ's
    // halves kernel orders them).
    auto do_lo = load(dout + q_offs, rm.col() < s, 0.0f);
    auto do_hi = load(dout + (q_offs + H), rm.col() < s, 0.0f);
    auto dp = dot(do_hi, trans(v_hi), dot(do_lo, trans(v_lo)));
    auto q_lo = load(q + q_offs, rm.col() < s, 0.0f);
    auto q_hi = load(q + (q_offs + H), rm.col() < s, 0.0f);
    auto pm = attention_bwd_halves_p<CAUSAL, BM, BN>(q_lo, q_hi, k_lo, k_hi, l2, scale2, start_m,
                                                     start_n, s, rm.col(), rn.row());
    const auto dst = trans((pm * (dp - dl.col())).to(dtype<T>{}));
    dk_lo = dot(dst, q_lo, dk_lo);
    dk_hi = dot(dst, q_hi, dk_hi);
  }
  store(dk + kv_offs, dk_lo * scale, rn.col() < s);
  store(dk + (kv_offs + H), dk_hi * scale, rn.col() < s);
}

// The same dK and dV in Triton's tutorial's order (variant 1 of attention_bwd_configs' rows):
// k q^T rather than q k^T, so that p^T and ds^T come out of the products as the a operands of
// the next dots (no trans() of a computed block), and the loop-invariant k and v are the a
// operands of k q^T and v dout^T. q and dout come through block pointers: on sm_90a, launched
// with stages, rings whose next tiles are in flight while this step computes, read in place by
// wgmma (with pointer loads the step waited on them: 43% of a warp's cycles). Faster on sm_90; on
// gfx942 its 64x64 tile at D = 64 spills SGPRs where q k^T's does not, so AMD keeps variant 0.
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dkdv_kt_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                            ptr<const T> v, ptr<const T> dout, ptr<const float> lse,
                                            ptr<const float> delta, ptr<T> dk, ptr<T> dv, int s,
                                            float scale) {
  const int start_n = p.id(0) * BN, bh = p.id(1);
  const int base = bh * s * D;
  // P = exp(qk * scale - lse) as exp2(qk * scale2 - lse * log2 e): one multiply-add a score.
  const float scale2 = scale * attention_log2e;
  auto rn = start_n + arange<BN>(p);
  auto rd = arange<D>(p);
  auto kv_offs = base + rn.col() * D + rd.row();
  auto kb = load(k + kv_offs, rn.col() < s, 0.0f);
  auto vb = load(v + kv_offs, rn.col() < s, 0.0f);
  auto dk_acc = zeros<float, BN, D>(p);
  auto dv_acc = zeros<float, BN, D>(p);
  // Causal: query blocks wholly above this key block see none of it.
  const int first_m = CAUSAL ? (start_n / BM) * BM : 0;
  auto q_bp = make_block_ptr<BM, D>(p, q + base, {s, D}, {D, 1}, {first_m, 0});
  auto do_bp = make_block_ptr<BM, D>(p, dout + base, {s, D}, {D, 1}, {first_m, 0});
  for (int start_m = first_m; start_m < s; start_m += BM) {
    auto rm = start_m + arange<BM>(p);
    auto qb = load(q_bp, boundary_check(0));
    auto dob = load(do_bp, boundary_check(0));
    auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
    auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
    auto qkt = dot(kb, trans(qb));  // [BN, BM]: keys down, queries across
    auto pt = attention_bwd_mask<CAUSAL, BM, BN>(exp2(qkt * scale2 - l2.row()), start_m, start_n, s,
                                                 rm.row(), rn.col());
    dv_acc = dot(pt.to(dtype<T>{}), dob, dv_acc);
    auto dpt = dot(vb, trans(dob));
    auto dst = pt * (dpt - dl.row());
    dk_acc = dot(dst.to(dtype<T>{}), qb, dk_acc);
    q_bp = advance(q_bp, {BM, 0});
    do_bp = advance(do_bp, {BM, 0});
  }
  store(dk + kv_offs, dk_acc * scale, rn.col() < s);
  store(dv + kv_offs, dv_acc, rn.col() < s);
}

// Variant 2 of dK/dV: variant 1 as a for_range over tile streams, k and v held (along {0, 0}).
// On sm_90a, launched with stages, k's and v's tiles stay in their ring slots through the loop and
// are wgmma's A operands there (k q^T, v dout^T from two slots), where variant 1 held them in
// registers (k and v 16 each a thread at 64x64 on 4 warps, and a copy of each as wgmma's A
// fragments: the kernel took 248 registers, 2 programs an SM); q and dout are streams the loop's
// TMA pipeline keeps in flight; dK and dV are accumulators in the tensor cores' order, which
// p^T dout and ds^T q update from registers and a slot with no conversion. Elsewhere the same
// loop loads the tiles through the block pointers.
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dkdv_held_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                              ptr<const T> v, ptr<const T> dout,
                                              ptr<const float> lse, ptr<const float> delta,
                                              ptr<T> dk, ptr<T> dv, int s, float scale) {
  const int start_n = p.id(0) * BN, bh = p.id(1);
  const int base = bh * s * D;
  const float scale2 = scale * attention_log2e;
  auto rn = start_n + arange<BN>(p);
  auto rd = arange<D>(p);
  auto zero = accumulator<float, BN, D>(p, dtype<T>{});
  struct carried {
    decltype(zero) dk, dv;
  };
  // Causal: query blocks wholly above this key block see none of it.
  const int first_m = CAUSAL ? (start_n / BM) * BM : 0;
  const auto k_bp = make_block_ptr<BN, D>(p, k + base, {s, D}, {D, 1}, {start_n, 0}, max_slots<1>);
  const auto v_bp = make_block_ptr<BN, D>(p, v + base, {s, D}, {D, 1}, {start_n, 0}, max_slots<1>);
  const auto q_bp = make_block_ptr<BM, D>(p, q + base, {s, D}, {D, 1}, {first_m, 0});
  const auto do_bp = make_block_ptr<BM, D>(p, dout + base, {s, D}, {D, 1}, {first_m, 0});
  // The step is written in the body, not a helper's call (attention_fwd_bp_kernel says why).
  const carried c = for_range(
      p, first_m, s, BM, carried{zero, zero}, along(k_bp, {0, 0}, boundary_check(0)),
      along(v_bp, {0, 0}, boundary_check(0)), along(q_bp, {BM, 0}, boundary_check(0)),
      along(do_bp, {BM, 0}, boundary_check(0)),
      [&](int start_m, const auto& kb, const auto& vb, const auto& qb, const auto& dob, carried c)
          BV_INLINE_LAMBDA {
            auto rm = start_m + arange<BM>(p);
            auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
            auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
            const decltype(zeros<float, BN, BM>(p)) qkt = dot(kb, trans(qb));
            auto pt = attention_bwd_mask<CAUSAL, BM, BN>(exp2(qkt * scale2 - l2.row()), start_m,
                                                         start_n, s, rm.row(), rn.col());
            c.dv = dot(pt.to(dtype<T>{}), dob, c.dv);
            const decltype(zeros<float, BN, BM>(p)) dpt = dot(vb, trans(dob));
            auto dst = pt * (dpt - dl.row());
            c.dk = dot(dst.to(dtype<T>{}), qb, c.dk);
            return c;
          });
  auto kv_offs = base + rn.col() * D + rd.row();
  store(dk + kv_offs, c.dk * scale, rn.col() < s);
  store(dv + kv_offs, c.dv, rn.col() < s);
}

template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dq_kernel(program<W> p, ptr<const T> q, ptr<const T> k, ptr<const T> v,
                                       ptr<const T> dout, ptr<const float> lse,
                                       ptr<const float> delta, ptr<T> dq, int s, float scale) {
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  // P = exp(qk * scale - lse) as exp2(qk * scale2 - lse * log2 e): one multiply-add a score.
  const float scale2 = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto q_offs = base + rm.col() * D + rd.row();
  auto qb = load(q + q_offs, rm.col() < s, 0.0f);
  auto dob = load(dout + q_offs, rm.col() < s, 0.0f);
  auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
  auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
  auto dq_acc = zeros<float, BM, D>(p);
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  for (int start_n = 0; start_n < end; start_n += BN) {
    auto cols = start_n + rn;
    auto kv_offs = base + cols.col() * D + rd.row();
    auto kb = load(k + kv_offs, cols.col() < s, 0.0f);
    auto vb = load(v + kv_offs, cols.col() < s, 0.0f);
    auto qk = dot(qb, trans(kb));
    auto pm = attention_bwd_mask<CAUSAL, BM, BN>(exp2(qk * scale2 - l2.col()), start_m, start_n, s,
                                                 rm.col(), cols.row());
    auto dp = dot(dob, trans(vb));
    auto ds = pm * (dp - dl.col());
    dq_acc = dot(ds.to(dtype<T>{}), kb, dq_acc);
  }
  store(dq + q_offs, dq_acc * scale, rm.col() < s);
}

// The same dQ with q, dout, k and v in halves of D (variant 2): q k^T and dout v^T as two products
// of D / 2 each, dQ as two of its column halves, ds k_lo and ds k_hi. On AMD every product's
// operands are then the size of a slice of q k^T's (bv/dot_staging.hpp), so they share two LDS
// images: at D = 128 in 16-bit, 17408 bytes where the whole k as ds k's b took 34816, more than
// half a CU's 64 KiB (one workgroup a CU, one wave a SIMD, though the registers allow two). A step
// takes dout v^T before q k^T, so that v's halves are dead before k's load: k's then live from
// q k^T to ds k, v's only through dout v^T (the other order kept both, and gfx942's f32 kernel
// spilled 8 VGPRs at two waves a SIMD; now 225 VGPRs, no spill).
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dq_halves_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                              ptr<const T> v, ptr<const T> dout,
                                              ptr<const float> lse, ptr<const float> delta,
                                              ptr<T> dq, int s, float scale) {
  static_assert(D % 2 == 0, "attention_bwd_dq_halves_kernel splits D in two: D must be even.");
  constexpr int H = D / 2;
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  const float scale2 = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rh = arange<H>(p);
  auto q_offs = base + rm.col() * D + rh.row();  // the low half; + H the high one
  auto q_lo = load(q + q_offs, rm.col() < s, 0.0f);
  auto q_hi = load(q + (q_offs + H), rm.col() < s, 0.0f);
  auto do_lo = load(dout + q_offs, rm.col() < s, 0.0f);
  auto do_hi = load(dout + (q_offs + H), rm.col() < s, 0.0f);
  auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
  auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
  auto dq_lo = zeros<float, BM, H>(p);
  auto dq_hi = zeros<float, BM, H>(p);
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  for (int start_n = 0; start_n < end; start_n += BN) {
    auto cols = start_n + rn;
    auto kv_offs = base + cols.col() * D + rh.row();
    auto v_lo = load(v + kv_offs, cols.col() < s, 0.0f);
    auto v_hi = load(v + (kv_offs + H), cols.col() < s, 0.0f);
    auto dp = dot(do_hi, trans(v_hi), dot(do_lo, trans(v_lo)));
    auto k_lo = load(k + kv_offs, cols.col() < s, 0.0f);
    auto k_hi = load(k + (kv_offs + H), cols.col() < s, 0.0f);
    auto pm = attention_bwd_halves_p<CAUSAL, BM, BN>(q_lo, q_hi, k_lo, k_hi, l2, scale2, start_m,
                                                     start_n, s, rm.col(), cols.row());
    auto ds = (pm * (dp - dl.col())).to(dtype<T>{});
    dq_lo = dot(ds, k_lo, dq_lo);
    dq_hi = dot(ds, k_hi, dq_hi);
  }
  store(dq + q_offs, dq_lo * scale, rm.col() < s);
  store(dq + (q_offs + H), dq_hi * scale, rm.col() < s);
}

// The same dQ with k and v through block pointers (variant 1 of attention_bwd_dq_configs' rows):
// on sm_90a, launched with stages, rings whose next tiles are in flight while this step computes,
// read in place by wgmma, k's one slot as trans(k) for q k^T and as k for ds k (with pointer loads
// the step waited on k and v: 33% of a warp's cycles). AMD's block-pointer loads are masked loads
// that take more registers than these pointer loads, so AMD keeps variant 0.
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dq_bp_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                          ptr<const T> v, ptr<const T> dout, ptr<const float> lse,
                                          ptr<const float> delta, ptr<T> dq, int s, float scale) {
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  const float scale2 = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto q_offs = base + rm.col() * D + rd.row();
  auto qb = load(q + q_offs, rm.col() < s, 0.0f);
  auto dob = load(dout + q_offs, rm.col() < s, 0.0f);
  auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
  auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
  auto dq_acc = zeros<float, BM, D>(p);
  auto k_bp = make_block_ptr<BN, D>(p, k + base, {s, D}, {D, 1}, {0, 0});
  auto v_bp = make_block_ptr<BN, D>(p, v + base, {s, D}, {D, 1}, {0, 0});
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  for (int start_n = 0; start_n < end; start_n += BN) {
    auto cols = start_n + rn;
    auto kb = load(k_bp, boundary_check(0));
    auto vb = load(v_bp, boundary_check(0));
    auto qk = dot(qb, trans(kb));
    auto pm = attention_bwd_mask<CAUSAL, BM, BN>(exp2(qk * scale2 - l2.col()), start_m, start_n, s,
                                                 rm.col(), cols.row());
    auto dp = dot(dob, trans(vb));
    auto ds = pm * (dp - dl.col());
    dq_acc = dot(ds.to(dtype<T>{}), kb, dq_acc);
    k_bp = advance(k_bp, {BN, 0});
    v_bp = advance(v_bp, {BN, 0});
  }
  store(dq + q_offs, dq_acc * scale, rm.col() < s);
}

// Variant 3 of dQ: variant 1 as a for_range over tile streams, q and dout held (along {0, 0}),
// as dK/dV's variant 2 holds k and v: on sm_90a wgmma reads q k^T and dout v^T from two slots,
// and dQ is an accumulator in the tensor cores' order that ds k updates from registers and k's
// slot.
template <class T, int D, int BM, int BN, bool CAUSAL, int W = 4>
BV_KERNEL void attention_bwd_dq_held_kernel(program<W> p, ptr<const T> q, ptr<const T> k,
                                            ptr<const T> v, ptr<const T> dout, ptr<const float> lse,
                                            ptr<const float> delta, ptr<T> dq, int s, float scale) {
  const int start_m = p.id(0) * BM, bh = p.id(1);
  const int base = bh * s * D;
  const float scale2 = scale * attention_log2e;
  auto rm = start_m + arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto l2 = load(lse + bh * s + rm, rm < s, 0.0f) * attention_log2e;
  auto dl = load(delta + bh * s + rm, rm < s, 0.0f);
  const auto q_bp = make_block_ptr<BM, D>(p, q + base, {s, D}, {D, 1}, {start_m, 0}, max_slots<1>);
  const auto do_bp =
      make_block_ptr<BM, D>(p, dout + base, {s, D}, {D, 1}, {start_m, 0}, max_slots<1>);
  const auto k_bp = make_block_ptr<BN, D>(p, k + base, {s, D}, {D, 1}, {0, 0});
  const auto v_bp = make_block_ptr<BN, D>(p, v + base, {s, D}, {D, 1}, {0, 0});
  const int end = CAUSAL ? (start_m + BM < s ? start_m + BM : s) : s;
  // dQ carried in a struct, as dK/dV's variant 2 carries dK and dV: nothing in flight between
  // steps, so that the body's products overlap the next step's copies as theirs do.
  struct carried {
    decltype(accumulator<float, BM, D>(p, dtype<T>{})) dq;
  };
  const carried c = for_range(
      p, 0, end, BN, carried{accumulator<float, BM, D>(p, dtype<T>{})},
      along(q_bp, {0, 0}, boundary_check(0)), along(do_bp, {0, 0}, boundary_check(0)),
      along(k_bp, {BN, 0}, boundary_check(0)), along(v_bp, {BN, 0}, boundary_check(0)),
      [&](int start_n, const auto& qb, const auto& dob, const auto& kb, const auto& vb, carried c)
          BV_INLINE_LAMBDA {
            auto cols = start_n + rn;
            const decltype(zeros<float, BM, BN>(p)) qk = dot(qb, trans(kb));
            auto pm = attention_bwd_mask<CAUSAL, BM, BN>(exp2(qk * scale2 - l2.col()), start_m,
                                                         start_n, s, rm.col(), cols.row());
            const decltype(zeros<float, BM, BN>(p)) dp = dot(dob, trans(vb));
            auto ds = pm * (dp - dl.col());
            c.dq = dot(ds.to(dtype<T>{}), kb, c.dq);
            return c;
          });
  store(dq + (base + rm.col() * D + rd.row()), c.dq * scale, rm.col() < s);
}

// The kernel each variant of a table's row names, and the block pointers it makes (the rings a
// launch can give slots to, with their tiles): chosen here once for every launcher, the library's
// below, the emulator's recipes and coverage.cu's AMD instantiations. Each primary template is a
// table's variant 0 (and the forward's 1); a specialization names another kernel.
//
// rings<T, R, C, W, N[, MaxSlots]>: N block pointers of R x C tiles of T on W waves, each with a
// ring of at most MaxSlots slots (make_block_ptr's max_slots<MaxSlots>: a held tile's one).
template <class T, int R, int C, int W, int N, int MaxSlots = unlimited_slots>
struct rings {
  static constexpr int bytes(int stages) {
    return N * block_ptr_lds_bytes<const T, R, C, W, MaxSlots>(stages);
  }
};
template <class T, int R, int C, int W, int N>
using held_rings = rings<T, R, C, W, N, 1>;
template <auto Kernel, class... Rings>
struct kernel_choice {
  static constexpr auto kernel = Kernel;
  static constexpr bool block_ptrs = sizeof...(Rings) > 0;
  // The dynamic LDS its rings take at `stages` slots each (what the launch passes; 0: no rings).
  static constexpr int lds_bytes(int stages) {
    return stages ? (0 + ... + Rings::bytes(stages)) : 0;
  }
};
template <class T, int D, int BM, int BN, bool CAUSAL, int W, int Variant>
struct attention_fwd_variant
    : kernel_choice<attention_fwd_kernel<T, D, BM, BN, CAUSAL, W, Variant>> {
  static_assert(
      Variant == 0 || Variant == 1,
      "attention_fwd's kernel is variant 0 (pointer loads), 1 (v loaded beside k), 2 "
      "(k and v through block pointers), 3 (q, k and v through block pointers, o in "
      "an accumulator), 4 (3 by halves of the head dimension), 5 (3 with q k^T a key block "
      "ahead) or 6 (4 with q k^T a key block ahead).");
};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // k's and v's block pointers
struct attention_fwd_variant<T, D, BM, BN, CAUSAL, W, 2>
    : kernel_choice<attention_fwd_bp_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BN, D, W, 2>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // q's too, o an accumulator
struct attention_fwd_variant<T, D, BM, BN, CAUSAL, W, 3>
    : kernel_choice<attention_fwd_bp_kernel<T, D, BM, BN, CAUSAL, W, true>, rings<T, BN, D, W, 2>,
                    held_rings<T, BM, D, W, 1>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // variant 3 by halves of D
struct attention_fwd_variant<T, D, BM, BN, CAUSAL, W, 4>
    : kernel_choice<attention_fwd_halves_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BN, D / 2, W, 4>,
                    held_rings<T, BM, D / 2, W, 2>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // 3 with q k^T a block ahead
struct attention_fwd_variant<T, D, BM, BN, CAUSAL, W, 5>
    : kernel_choice<attention_fwd_ahead_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BN, D, W, 2>,
                    held_rings<T, BM, D, W, 1>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // 4 with q k^T a block ahead
struct attention_fwd_variant<T, D, BM, BN, CAUSAL, W, 6>
    : kernel_choice<attention_fwd_halves_kernel<T, D, BM, BN, CAUSAL, W, true>,
                    rings<T, BN, D / 2, W, 4>, held_rings<T, BM, D / 2, W, 2>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W, int Variant>
struct attention_bwd_dkdv_variant
    : kernel_choice<attention_bwd_dkdv_kernel<T, D, BM, BN, CAUSAL, W>> {
  static_assert(Variant == 0,
                "attention_bwd's dK/dV kernel is variant 0 (q k^T), 1 (k q^T, q and dout through "
                "block pointers), 2 (1 with k and v held in ring slots), 3 (halves of D) or 4 "
                "(halves of D, dV's pass then dK's).");
};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // q's and dout's block pointers
struct attention_bwd_dkdv_variant<T, D, BM, BN, CAUSAL, W, 1>
    : kernel_choice<attention_bwd_dkdv_kt_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BM, D, W, 2>> {
};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // 1 with k and v held in slots
struct attention_bwd_dkdv_variant<T, D, BM, BN, CAUSAL, W, 2>
    : kernel_choice<attention_bwd_dkdv_held_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BM, D, W, 2>,
                    held_rings<T, BN, D, W, 2>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // halves of D
struct attention_bwd_dkdv_variant<T, D, BM, BN, CAUSAL, W, 3>
    : kernel_choice<attention_bwd_dkdv_halves_kernel<T, D, BM, BN, CAUSAL, W>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // halves of D, dV's pass then dK's
struct attention_bwd_dkdv_variant<T, D, BM, BN, CAUSAL, W, 4>
    : kernel_choice<attention_bwd_dkdv_twopass_kernel<T, D, BM, BN, CAUSAL, W>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W, int Variant>
struct attention_bwd_dq_variant : kernel_choice<attention_bwd_dq_kernel<T, D, BM, BN, CAUSAL, W>> {
  static_assert(Variant == 0,
                "attention_bwd's dQ kernel is variant 0 (pointer loads), 1 (k and v through block "
                "pointers), 2 (halves of D) or 3 (1 with q and dout held in ring slots).");
};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // k's and v's block pointers
struct attention_bwd_dq_variant<T, D, BM, BN, CAUSAL, W, 1>
    : kernel_choice<attention_bwd_dq_bp_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BN, D, W, 2>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // halves of D
struct attention_bwd_dq_variant<T, D, BM, BN, CAUSAL, W, 2>
    : kernel_choice<attention_bwd_dq_halves_kernel<T, D, BM, BN, CAUSAL, W>> {};
template <class T, int D, int BM, int BN, bool CAUSAL, int W>  // 1 with q and dout held in slots
struct attention_bwd_dq_variant<T, D, BM, BN, CAUSAL, W, 3>
    : kernel_choice<attention_bwd_dq_held_kernel<T, D, BM, BN, CAUSAL, W>, rings<T, BN, D, W, 2>,
                    held_rings<T, BM, D, W, 2>> {};

// Launch configurations (bv/launch_config.hpp), by the element size of q, k and v (a table each)
// and, within a table, by head dimension D. An f32 tile takes twice the LDS of a 16-bit one, so
// not every tile sized for 16-bit inputs fits an AMD workgroup's 64 KiB in f32 (sm_90's 64x64 at
// D = 128: 125440 bytes, attention_fwd_lds_bytes).
//
// sm_90's 16-bit rows launch variant 3 at D = 64 (k and v in rings of 2 slots, q held in one, k and
// v by the TMA in images that need no permuting, o in an accumulator: 1.234 to 1.238 ms at
// 4x16x4096x64 f16 on an H200 against 1.311 to 1.319 for variant 1, v loaded beside k, and 0.733 to
// 0.738 against 0.747 to 0.750 causal; variant 2's rings lose 4 to 6% there; variant 5, q k^T a
// block ahead, 0.906 against 0.867 ms, its registers capped for 2 programs an SM spilling, 1.29
// with one) and variant 4 at D = 128 on 128x128 tiles (the halves of D streamed, 128 keys a step:
// each k and v half is then a wgmma A tile by its shape, streamed in the fmt_wm image both dots
// read, with that image's tensor map from the kernel's earlier programs' format hints: 1.290
// to 1.293 ms against 1.940 to 1.952 for variant 6 on 128x64 tiles, q k^T a block ahead, which was
// the row before, and 0.815 to 0.823 causal against 1.105 to 1.106; variant 6 on 128x128 spills;
// H200, 2026-12-03). Variant 3 on 128x128 at D = 64 lost to the 128x64 row (0.878 to 0.890 ms
// against 0.835 to 0.840). At D = 64 variant 3 runs on Triton's own Hopper tile, 64 query rows x 64
// keys on one warpgroup with registers for 4 programs an SM, since the softmax's row folds run in
// pairs (gpu/reduce.hpp): 0.7362 to 0.7394 ms against 0.7372 to 0.7399 for 128x64 on 8 warps with
// 2, and 0.4366 to 0.4402 causal against 0.4604 to 0.4665 (H200, 2026-12-05). 16-bit, D = 64,
// gfx942 (and sm_90 before the row above): BM = 128 query rows x BN = 64 keys a step, 8 waves,
// registers capped for 2 programs per SM (on gfx942 per CU, 4 waves a SIMD, which its 27136 bytes
// of LDS allow too: 108 to 123 VGPRs in variant 3, whose streams read k and v from global memory
// once where variant 0's blocks read them twice: docs/PERFORMANCE.md). Measured at 4x16x4096x64 f16
// on an H100 (docs/PERFORMANCE.md): 128x64 with 8 warps 4.59 ms against 5.91 for 64x64 with 4,
// and 1.55-1.58 ms with 2 programs per SM against 2.40 with 1 (the loop is latency-bound). D = 128
// on sm_90, variant 0: 128 query rows x 128 keys on 8 warps, one program an SM, 2.48 ms at
// 4x16x4096x128 on an H200 (1.36 causal) against 2.57 (1.47) for 128x64 with registers for 2
// programs, which spills there, 2.96 (1.68) for 128x64 with one, and 3.10 for 64x64 on 4
// (bench/gpu/attention_fwd_dev.cu --tiles; q k^T by wgmma in two groups of 64 k). AMD at D = 128
// (no AMD GPU to time on): the D = 64 tiles, whose products take the MFMA path (a wave's part of
// q k^T and p v at least 32x32).
// gfx942: 128x64 on 8 waves, variant 3 as at D = 64 (144 to 159 VGPRs, 44544 bytes of LDS with q
// k^T staged in two slices of 64 k's: 2 waves a SIMD); the 32x32 tile before, on 4 waves,
// multiplied on the vector ALUs (a wave's part 16x16, and half its waves copies). gfx90a: 64x64 on
// 4 waves, since hipcc's causal 128x64 forward keeps 104 SGPRs live across its key loop and spills
// 4 to 6 of them to VGPR lanes on 8 waves, at D = 64 as at D = 128 (D = 64 on gfx90a: 87 SGPRs, 126
// VGPRs, no spills); at D = 128 in halves of D (variant 4: 17920 bytes and 190 to 218 VGPRs, 2
// waves a SIMD, where variant 0 took 35328 bytes and 178 VGPRs, one wave a SIMD). Every AMD row
// runs with no spills under clang-19 (gfx942) and hipcc (gfx90a).
template <int Bytes>
struct attention_fwd_configs {
  static_assert(Bytes == 2 || Bytes == 4,
                "attention_fwd_configs has tables for 16-bit (2-byte) and f32 (4-byte) inputs.");
};
template <>
struct attention_fwd_configs<2> {
  static constexpr const char* key = "head dimension";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        D up to        kernel         waves        BM          BN          ring slots    programs an SM or CU (GPU)
      {.targets = only(target::gfx90a), .up_to = 64,                  .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::gfx90a), .up_to = 128, .variant = 4,  .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::sm_90), .up_to = 64,   .variant = 3,  .waves = 4,  .bm = 64,  .bn = 64,  .stages = 2, .min_programs = 4},
      {.targets = only(target::gfx942), .up_to = 64,  .variant = 3,  .waves = 8,  .bm = 128, .bn = 64,                .min_programs = 2},
      {.targets = only(target::sm_90), .up_to = 128,  .variant = 4,  .waves = 8,  .bm = 128, .bn = 128, .stages = 2, .min_programs = 1},
      {.targets = only(target::gfx942), .up_to = 128, .variant = 3,  .waves = 8,  .bm = 128, .bn = 64},
  };
  // clang-format on
};
// f32: sm_90 launches the tiles measured for variant 0 in f16 above (128x64 with registers for 2
// programs an SM at D = 64, 128x128 with one at D = 128; its 227 KiB of shared memory hold f32
// tiles): the 16-bit rows' block-pointer variants and the tiles chosen for them need rings, which
// f32 tiles do not get. AMD: 4 waves on 64x64 (the MFMA path; 17408 bytes of LDS at D = 64, K
// staged in slices of 32); at D = 128 in halves of D (variant 4: 17408 bytes, 2 waves a SIMD,
// gfx942 with registers for 2 programs a CU, 216 to 219 VGPRs, gfx90a 246), where v loaded beside
// k (variant 1) took 34304 bytes and one wave a SIMD.
template <>
struct attention_fwd_configs<4> {
  static constexpr const char* key = "head dimension";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        D up to        waves        BM          BN         programs an SM or CU (GPU)
      {.targets = only(target::sm_90), .up_to = 64,   .waves = 8,  .bm = 128, .bn = 64,  .min_programs = 2},
      {.targets = only(target::sm_90), .up_to = 128,  .waves = 8,  .bm = 128, .bn = 128, .min_programs = 1},
      {.targets = amd_targets,         .up_to = 64,                  .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::gfx942), .up_to = 128, .variant = 4,  .waves = 4,  .bm = 64,  .bn = 64,  .min_programs = 2},
      {.targets = amd_targets,         .up_to = 128,  .variant = 4,  .waves = 4,  .bm = 64,  .bn = 64},
  };
  // clang-format on
};

// Bytes of LDS attention_fwd_kernel<T, D, BM, BN, ., W> takes in the AMD lowering
// (gpu_backend/bv/gpu/, one lowering for gfx942 and gfx90a): its buffers in the order the kernel
// first uses them, each placed at a 16-byte boundary as the device packs them. dot stages its
// operands a slice of K at a time (bv/dot_staging.hpp), as rows padded by P elements (trans(k)
// straight from k's rows; P = dot_lds_pad): [BM, KQ + P] and [BN, KQ + P] for q k^T with KQ of
// D's k's a slice, [BM, KP + P] and [D, KP + P] for p v with KP of BN's; a buffer is one per
// operand, element type and size, so p's and v's images reuse q's and k's where their sizes agree
// (as when BN == D). max and sum across the waves along a row share one fp32 [waves along BN, BM]
// buffer. Variants 4 and 6 (attention_fwd_halves_kernel) multiply halves of D: the same buffers
// for D / 2. The emulator measures the same figure (tests/emulator/test_attention_lds.cpp checks
// that they agree for every declared row).
constexpr int64_t attention_fwd_lds_bytes(int bytes, int d, int bm, int bn, int waves,
                                          int variant = 0) {
  using ::bv::layout::dot_k_slice, ::bv::layout::dot_lds_pad;
  if (variant == 4 || variant == 6) d /= 2;
  constexpr target amd = target::gfx942;  // (gfx90a's maps are gfx942's)
  // A wave's span along rows and along columns (layout.hpp's AMD tile).
  constexpr int rows = ::bv::layout::tile_of(amd).spt0 * ::bv::layout::tile_of(amd).tpw0,
                cols = ::bv::layout::tile_of(amd).spt1 * ::bv::layout::tile_of(amd).tpw1;
  const int kq = dot_k_slice(bytes, d, cols, cols);   // q's rows, trans(k) from k's rows
  const int kp = dot_k_slice(bytes, bn, cols, rows);  // p's rows, v's columns
  const int pad = dot_lds_pad(bytes);
  const int64_t qk_a = int64_t{bytes} * bm * (kq + pad), qk_b = int64_t{bytes} * bn * (kq + pad);
  const int64_t pv_a = int64_t{bytes} * bm * (kp + pad), pv_b = int64_t{bytes} * d * (kp + pad);
  const int64_t sizes[] = {qk_a, qk_b, int64_t{4} * ::bv::layout::waves_n(amd, waves) * bm,
                           pv_a == qk_a ? 0 : pv_a, pv_b == qk_b ? 0 : pv_b};
  int64_t end = 0;
  for (int64_t b : sizes)
    if (b > 0) end = (end + 15) / 16 * 16 + b;
  return end;
}

namespace detail {
// Whether the row attention_fwd_configs<Bytes> declares for head dimension D on target t fits
// the target's LDS (true where t is not AMD: an sm_90 SM has 227 KiB and the tiles are measured).
template <int Bytes, int D>
constexpr bool attention_fwd_fits_lds(target t) {
  using Decl = attention_fwd_configs<Bytes>;
  const int i = find_config<Decl>(t, D);
  if (i < 0) return false;
  const launch_config& c = Decl::table[i];
  return !is_amd(t) ||
         attention_fwd_lds_bytes(Bytes, D, c.bm, c.bn, c.waves, c.variant) <= lds_bytes_of(t);
}
template <int Bytes>
constexpr bool attention_fwd_all_fit() {
  for (target t : all_targets)
    if (!attention_fwd_fits_lds<Bytes, 64>(t) || !attention_fwd_fits_lds<Bytes, 128>(t))
      return false;
  return true;
}
}  // namespace detail
static_assert(detail::attention_fwd_all_fit<2>() && detail::attention_fwd_all_fit<4>(),
              "Every target must have an attention forward configuration for head dimensions 64 "
              "and 128, and each AMD one must fit a workgroup's 64 KiB of LDS "
              "(attention_fwd_lds_bytes): shrink BM or BN for the element size that fails.");

// Backward (the preprocess and dK/dV; dQ has a table of its own below), by element size as the
// forward: BM query rows a step by BN keys a program. 64x64 with 4 waves (f32 on sm_90 at D = 128:
// 32x32; the 16-bit sm_90 rows below), where on AMD the products take the MFMA path at both head
// dimensions (a wave's part at least 32x32; the 32x32 tile that AMD had at D = 128 multiplied on
// the vector ALUs, half its waves copies). At D = 128 dK/dV's q k^T
// form (variant 0) takes 34816 bytes of LDS in 16-bit and 33792 in f32 with K staged in slices
// (bv/dot_staging.hpp), one wave a SIMD (gfx942 in 16-bit runs variant 3, below), and every AMD row
// runs with no spills under clang-19 (gfx942) and hipcc (gfx90a). On sm_90, 16-bit, dK/dV runs in
// its k q^T form (variant 1) with q and dout in rings of 2 slots, 64x64 on 4 warps at D = 64 and
// 64x128 on 8 at D = 128: causal backwards at 4x16x4096xD f16 on an H200 (with dQ's rows) took 2.44
// ms at D = 64 against 2.57 for q k^T with pointer loads, and 4.03 at D = 128 against 5.72 for q
// k^T on the 128x64 tile that row had before (bench/gpu/attention_bwd_dev.cu, which checks every
// gradient against the launcher's). At D = 64 it holds k and v in ring slots (variant 2): with dQ's
// variant 3, a causal backward at 4x16x4096x64 f16 on an H100 took 1.51 ms against 2.30 for
// variants 1 and 1 (1.82 with dK/dV's 2 alone), 2.63 against 4.11 without the mask; registers left
// for 3 programs an SM (168 a thread, 0.3 KiB of spill stores, 12 warps an SM against 8), with dQ's
// row below, 1.36 ms. At D = 128 k's 128-column tile is no wgmma A operand in a slot, and variant 2
// took 6.39 ms against 3.57, so that row keeps variant 1. On gfx942 the k q^T form's 64x64 tile
// spills SGPRs (48) where q k^T's does not, so AMD keeps variant 0. At D = 128 in 16-bit, gfx942
// launches it in halves of D (variant 3) with registers for 2 programs a CU (min_programs: 2 waves
// a SIMD at 4 waves a program): 226 to 241 VGPRs and 17408 bytes of LDS, where variant 0 took 288
// to 304 and 34816 (1 wave a SIMD), the same 16 MFMAs a step and no spills. hipcc's gfx90a spills 6
// to 21 VGPRs so, and gfx942's f32 21 and 82. gfx942's f32 row at D = 128 takes the halves in two
// passes (variant 4, registers for 2 programs a CU): 228 VGPRs and 16896 bytes of LDS where
// variant 0 took 348 (128 of them AGPRs) and 33792, 2 waves a SIMD for 1, no spills, for a quarter
// more products (40 MFMA instructions in the kernel against 32). On gfx90a the two passes fit the
// VGPRs but hipcc spills 4 to 37 SGPRs, so gfx90a's rows at D = 128 keep variant 0 on one wave a
// SIMD.
template <int Bytes>
struct attention_bwd_configs {
  static_assert(Bytes == 2 || Bytes == 4,
                "attention_bwd_configs has tables for 16-bit (2-byte) and f32 (4-byte) inputs.");
};
template <>
struct attention_bwd_configs<2> {
  static constexpr const char* key = "head dimension";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        D up to      dK/dV kernel   waves        BM          BN          ring slots   programs an SM or CU
      {.targets = only(target::sm_90), .up_to = 64,  .variant = 2,  .waves = 4,  .bm = 64,  .bn = 64,  .stages = 2, .min_programs = 3},
      {                                .up_to = 64,                 .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::sm_90), .up_to = 128, .variant = 1,  .waves = 8,  .bm = 64,  .bn = 128, .stages = 2},
      {.targets = only(target::gfx942), .up_to = 128, .variant = 3, .waves = 4,  .bm = 64,  .bn = 64,                .min_programs = 2},
      {.targets = amd_targets,         .up_to = 128,                .waves = 4,  .bm = 64,  .bn = 64},
  };
  // clang-format on
};
template <>
struct attention_bwd_configs<4> {
  static constexpr const char* key = "head dimension";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                         D up to      dK/dV kernel   waves        BM          BN          programs an SM or CU
      {.targets = only(target::sm_90),  .up_to = 64,                 .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::sm_90),  .up_to = 128,                .waves = 4,  .bm = 32,  .bn = 32},
      {.targets = amd_targets,          .up_to = 64,                 .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::gfx942), .up_to = 128, .variant = 4,  .waves = 4,  .bm = 64,  .bn = 64,  .min_programs = 2},
      {.targets = amd_targets,          .up_to = 128,                .waves = 4,  .bm = 64,  .bn = 64},
  };
  // clang-format on
};

// dQ's tiles (BM query rows a program, BN keys a step), by element size and head dimension as
// above: the dQ kernel walks keys where dK/dV walks queries, and is fastest on other tiles. 16-bit
// on sm_90: 128x64 on 8 warps at both D. At D = 64 128x128 on 8 warps came first (a causal
// backward at 4x16x4096x64 f16 on an H200, 2.57 ms against 2.69 with dQ on 64x64;
// bench/gpu/attention_bwd_dev.cu), then 128x64 with q and dout held (below). At D = 128 128x64
// (128x128 6.24 ms against 5.72, 64x64 6.84). Both with k and v in rings of 2 slots (variant 1:
// 2.33 ms against 2.43 at D = 64, 3.66 against 4.00 at D = 128; 3 slots 2.33 and 3.82). At
// D = 64 q and dout are held in ring slots too (variant 3: above), on 128x64 with registers left
// for 2 programs an SM (128 a thread, 0.1 KiB of spill stores, 16 warps an SM): 1.36 ms against
// 1.39 on 64x64 for 3 programs an SM and 1.47 on 128x128 for 1, with dK/dV's row above; at
// D = 128 variant 3 took 5.10 ms against 3.57.
// AMD at D = 128: dK/dV's tile in halves of D (variant 2), whose LDS (17408 bytes on gfx942 and
// gfx90a, against 34816) leaves the registers to set the waves a SIMD: 2 instead of 1. In f32 too
// (16896 bytes against 33792), with registers for 2 programs a CU: 225 VGPRs on gfx942 and 251 to
// 255 on gfx90a, against 268 and 290 for variant 0, no spills. Elsewhere dQ takes dK/dV's tile and
// pointer loads.
template <int Bytes>
struct attention_bwd_dq_configs : attention_bwd_configs<Bytes> {};
template <>
struct attention_bwd_dq_configs<2> {
  static constexpr const char* key = "head dimension";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        D up to      dQ kernel      waves        BM          BN          ring slots   programs an SM or CU
      {.targets = only(target::sm_90), .up_to = 64,  .variant = 3,  .waves = 8,  .bm = 128, .bn = 64,  .stages = 2, .min_programs = 2},
      {                                .up_to = 64,                 .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::sm_90), .up_to = 128, .variant = 1,  .waves = 8,  .bm = 128, .bn = 64,  .stages = 2},
      {.targets = amd_targets,         .up_to = 128, .variant = 2,  .waves = 4,  .bm = 64,  .bn = 64},
  };
  // clang-format on
};

template <>
struct attention_bwd_dq_configs<4> {
  static constexpr const char* key = "head dimension";
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                        D up to      dQ kernel      waves        BM          BN          programs an SM or CU
      {.targets = only(target::sm_90), .up_to = 64,                 .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = only(target::sm_90), .up_to = 128,                .waves = 4,  .bm = 32,  .bn = 32},
      {.targets = amd_targets,         .up_to = 64,                 .waves = 4,  .bm = 64,  .bn = 64},
      {.targets = amd_targets,         .up_to = 128, .variant = 2,  .waves = 4,  .bm = 64,  .bn = 64,  .min_programs = 2},
  };
  // clang-format on
};

namespace detail {
template <class T>
void check_attention_shapes(const tensor<T>& q, const char* what) {
  if (q.dim() != 4 || !q.is_contiguous())
    throw std::invalid_argument(std::string(what) + ": q, k, v must be contiguous [B, H, S, D]");
  if (q.size(3) != 64 && q.size(3) != 128)
    throw std::invalid_argument(std::string(what) + ": head dim must be 64 or 128");
}

// The forward at head dimension D (q's) on the tiles given, in the kernel of Variant
// (attention_fwd_variant), its block pointers with rings of Stages slots (a held tile's: one):
// only these instantiate it.
template <int D, int BM, int BN, int W, int MinPrograms, int Variant = 0, int Stages = 0, class T>
launch_result attention_fwd_at(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                               tensor<T>& o, tensor<float>& lse, bool causal) {
  const int bh = i32(q.size(0) * q.size(1)), s = i32(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const auto go = [&](auto c) {
    using K = attention_fwd_variant<T, D, BM, BN, decltype(c)::value, W, Variant>;
    static_assert(K::block_ptrs || Stages == 0,
                  "Only attention_fwd's variants 2 to 6 have block pointers to give ring slots "
                  "to.");
    return launch_tuned<K::kernel, Stages, MinPrograms>(K::lds_bytes(Stages), grid(cdiv(s, BM), bh),
                                                        q, k, v, o, lse, s, scale);
  };
  return causal ? go(std::true_type{}) : go(std::false_type{});
}
}  // namespace detail

// o = softmax(q k^T / sqrt(D) [+ causal mask]) v; lse [B*H, S] fp32 for the backward, in the
// configuration declared for the launch's target and head dimension.
template <class T>
launch_result attention_fwd(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                            tensor<T>& o, tensor<float>& lse, bool causal) {
  detail::check_attention_shapes(q, "attention_fwd");
  const auto run = [&](auto d) {
    constexpr int D = decltype(d)::value;
    return with_config_for<attention_fwd_configs<sizeof(T)>, D>("attention_fwd", [&](auto cfg) {
      constexpr launch_config t = decltype(cfg)::value;
      return detail::attention_fwd_at<D, t.bm, t.bn, t.waves, t.min_programs, t.variant, t.stages>(
          q, k, v, o, lse, causal);
    });
  };
  return q.size(3) == 64 ? run(std::integral_constant<int, 64>{})
                         : run(std::integral_constant<int, 128>{});
}
// The same on the tiles given here: BM query rows and BN keys a step on W waves; on a GPU,
// MinPrograms > 0 leaves registers for that many programs an SM or CU (bv/launch_tuning.hpp);
// Variant 1 loads v beside k, Variant 2 reads k and v through block pointers, Variant 3 q, k and v,
// Variant 4 their halves along D, Variants 5 and 6 are 3 and 4 with q k^T a key block ahead, with
// rings of Stages slots where the GPU has them (Stages > 0 only for Variants 2 to 6; q held in
// one slot from Variant 3 on). It
// instantiates the kernel for both head dimensions, so the tiles must fit the target at D = 128.
template <int BM, int BN, int W = 4, int MinPrograms = 0, int Variant = 0, int Stages = 0, class T>
launch_result attention_fwd(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                            tensor<T>& o, tensor<float>& lse, bool causal) {
  detail::check_attention_shapes(q, "attention_fwd");
  return q.size(3) == 64 ? detail::attention_fwd_at<64, BM, BN, W, MinPrograms, Variant, Stages>(
                               q, k, v, o, lse, causal)
                         : detail::attention_fwd_at<128, BM, BN, W, MinPrograms, Variant, Stages>(
                               q, k, v, o, lse, causal);
}

namespace detail {

// The backward at head dimension D on the tiles given: dK/dV programs own BN keys and step over
// BM query rows on W waves, in the kernel of Variant (attention_bwd_dkdv_variant: q k^T, k q^T,
// k q^T with k and v held, q k^T in halves of D, the halves in two passes); dQ programs own QBM
// query rows and step over QBN keys on QW waves (dK/dV's tile unless given), in the kernel of
// QVariant (attention_bwd_dq_variant). Only these instantiate it.
template <int D, int BM, int BN, int W, int MinPrograms, int Variant = 0, int Stages = 0,
          int QBM = BM, int QBN = BN, int QW = W, int QMinPrograms = MinPrograms, int QVariant = 0,
          int QStages = 0, class T>
std::vector<launch_result> attention_bwd_at(const tensor<T>& q, const tensor<T>& k,
                                            const tensor<T>& v, const tensor<T>& o,
                                            const tensor<float>& lse, const tensor<T>& dout,
                                            tensor<T>& dq, tensor<T>& dk, tensor<T>& dv,
                                            bool causal) {
  const int bh = i32(q.size(0) * q.size(1)), s = i32(q.size(2));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  auto delta = tensor<float>::empty("delta", {bh, s});
  std::vector<launch_result> out;
  out.push_back(launch<attention_bwd_preprocess_kernel<T, D, BM, W>>(grid(cdiv(s, BM), bh), o, dout,
                                                                     delta, s));
  const auto go = [&](auto c) {
    constexpr bool C = decltype(c)::value;
    using KV = attention_bwd_dkdv_variant<T, D, BM, BN, C, W, Variant>;
    using Q = attention_bwd_dq_variant<T, D, QBM, QBN, C, QW, QVariant>;
    static_assert((KV::block_ptrs || Stages == 0) && (Q::block_ptrs || QStages == 0),
                  "Ring slots go only to a variant with block pointers (dK/dV's 1 and 2, dQ's 1 "
                  "and 3).");
    out.push_back(launch_tuned<KV::kernel, Stages, MinPrograms>(
        KV::lds_bytes(Stages), grid(cdiv(s, BN), bh), q, k, v, dout, lse, delta, dk, dv, s, scale));
    out.push_back(launch_tuned<Q::kernel, QStages, QMinPrograms>(
        Q::lds_bytes(QStages), grid(cdiv(s, QBM), bh), q, k, v, dout, lse, delta, dq, s, scale));
  };
  causal ? go(std::true_type{}) : go(std::false_type{});
  return out;
}
}  // namespace detail

// dq, dk, dv from dout and the forward's o and lse. Three launches: the preprocess and dK/dV in
// attention_bwd_configs' row, dQ in attention_bwd_dq_configs'.
template <class T>
std::vector<launch_result> attention_bwd(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                                         const tensor<T>& o, const tensor<float>& lse,
                                         const tensor<T>& dout, tensor<T>& dq, tensor<T>& dk,
                                         tensor<T>& dv, bool causal) {
  detail::check_attention_shapes(q, "attention_bwd");
  const auto run = [&](auto d) {
    constexpr int D = decltype(d)::value;
    return with_config_for<attention_bwd_configs<sizeof(T)>, D>("attention_bwd", [&](auto cfg) {
      constexpr launch_config t = decltype(cfg)::value;
      return with_config_for<attention_bwd_dq_configs<sizeof(T)>,
                             D>("attention_bwd (dQ)", [&](auto qcfg) {
        constexpr launch_config u = decltype(qcfg)::value;
        return detail::attention_bwd_at<D, t.bm, t.bn, t.waves, t.min_programs, t.variant, t.stages,
                                        u.bm, u.bn, u.waves, u.min_programs, u.variant, u.stages>(
            q, k, v, o, lse, dout, dq, dk, dv, causal);
      });
    });
  };
  return q.size(3) == 64 ? run(std::integral_constant<int, 64>{})
                         : run(std::integral_constant<int, 128>{});
}
// The same on the tiles given here (BM query rows, BN keys, W waves; MinPrograms as for
// attention_fwd; Variant: dK/dV's kernel, 0 for q k^T, 1 for k q^T, whose q and dout go through
// rings of Stages slots where the GPU has them, 2 for 1 with k and v held in a slot each, 3 for
// q k^T in halves of D, 4 for 3 in two passes, dV's then dK's), both kernels on one tile (dQ's
// variant 0), for both head dimensions.
template <int BM, int BN, int W = 4, int MinPrograms = 0, int Variant = 0, int Stages = 0, class T>
std::vector<launch_result> attention_bwd(const tensor<T>& q, const tensor<T>& k, const tensor<T>& v,
                                         const tensor<T>& o, const tensor<float>& lse,
                                         const tensor<T>& dout, tensor<T>& dq, tensor<T>& dk,
                                         tensor<T>& dv, bool causal) {
  detail::check_attention_shapes(q, "attention_bwd");
  return q.size(3) == 64 ? detail::attention_bwd_at<64, BM, BN, W, MinPrograms, Variant, Stages>(
                               q, k, v, o, lse, dout, dq, dk, dv, causal)
                         : detail::attention_bwd_at<128, BM, BN, W, MinPrograms, Variant, Stages>(
                               q, k, v, o, lse, dout, dq, dk, dv, causal);
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_ATTENTION_INSTANCES_OF(X, T)                                                           \
  X(launch_result attention_fwd(const tensor<T>&, const tensor<T>&, const tensor<T>&, tensor<T>&, \
                                tensor<float>&, bool))                                            \
  X(std::vector<launch_result> attention_bwd(                                                     \
      const tensor<T>&, const tensor<T>&, const tensor<T>&, const tensor<T>&,                     \
      const tensor<float>&, const tensor<T>&, tensor<T>&, tensor<T>&, tensor<T>&, bool))
#define BV_ATTENTION_INSTANCES(X)     \
  BV_ATTENTION_INSTANCES_OF(X, float) \
  BV_ATTENTION_INSTANCES_OF(X, half)  \
  BV_ATTENTION_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_ATTENTION_INSTANCES)

}  // namespace bv::kernels
