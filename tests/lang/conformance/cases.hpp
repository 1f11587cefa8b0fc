// The conformance suite: small kernels written once, run by every backend on the same inputs and
// compared with the same double-precision references. The CPU runs them in test_conformance.cpp;
// a GPU build runs them from conformance_gpu.cu. A backend is a struct B with
//   B::tensor<T>                                the backend's tensor type
//   B::make<T>(name, shape, values)             a tensor holding values (row-major)
//   B::read<T>(t)                               its values back on the host
//   B::launch<K>(grid, args...)                 a launch; returns bv::launch_result
//   B::launch<K>(gpu_tuning, grid, args...)     the same with a GPU's tuning (launch_tuning.hpp)
// Every output is poisoned first (NaN, or a sentinel integer), so an element a kernel does not
// write fails its comparison.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "bv/bv.hpp"

namespace conformance {

using namespace bv;

// ---- kernels ---------------------------------------------------------------------------------

// out = x + y where in range; sums[pid] = the block's sum of x with masked-off lanes read as 0.
template <int BLOCK, int W>
BV_KERNEL void masked_add(program<W> p, ptr<const float> x, ptr<const float> y, ptr<float> out,
                          ptr<float> sums, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  auto xv = load(x + offs, mask, 0.0f);
  store(out + offs, xv + load(y + offs, mask, 0.0f), mask);
  store(sums + p.id(0), sum(xv));
}

// out[i, j] = x[i] * y[j] above the diagonal, -x[i] * y[j] on and below it (a 2-D block made by
// broadcasting a column and a row).
template <int BR, int BC, int W>
BV_KERNEL void outer_where(program<W> p, ptr<const float> x, ptr<const float> y, ptr<float> out,
                           int m, int n) {
  auto r = p.id(0) * BR + arange<BR>(p);
  auto c = p.id(1) * BC + arange<BC>(p);
  auto xv = load(x + r, r < m, 0.0f);
  auto yv = load(y + c, c < n, 0.0f);
  auto v = xv.col() * yv.row();
  auto mask = (r < m).col() & (c < n).row();
  store(out + r.col() * n + c.row(), where(r.col() < c.row(), v, -v), mask);
}

// Per row of x [m, n] (n <= BLOCK): its maximum, the index of its maximum and its minimum.
template <int BLOCK, int W>
BV_KERNEL void row_stats(program<W> p, ptr<const float> x, ptr<float> mx, ptr<int32_t> amx,
                         ptr<float> mn, int n) {
  const int row = p.id(0);
  auto c = arange<BLOCK>(p);
  auto mask = c < n;
  auto v = load(x + row * n + c, mask, -INFINITY);
  store(mx + row, max(v));
  store(amx + row, argmax(v));
  store(mn + row, min(where(mask, v, INFINITY)));
}

// A BR x BC tile of x [m, n]: its column sums (axis 0) into colsum [tiles_m, n] and its row sums
// (axis 1) into rowsum [m, tiles_n].
template <int BR, int BC, int W>
BV_KERNEL void tile_sums(program<W> p, ptr<const float> x, ptr<float> colsum, ptr<float> rowsum,
                         int m, int n) {
  auto r = p.id(0) * BR + arange<BR>(p);
  auto c = p.id(1) * BC + arange<BC>(p);
  auto mask = (r < m).col() & (c < n).row();
  auto v = load(x + r.col() * n + c.row(), mask, 0.0f);
  store(colsum + p.id(0) * n + c, sum<0>(v), c < n);
  store(rowsum + r * p.num_programs(1) + p.id(1), sum<1>(v), r < m);
}

// c [M, N] (f32) = a [M, K] @ b [K, N] (f16), a BM x BN tile per program, K in steps of BK.
template <int BM, int BN, int BK, int W>
BV_KERNEL void matmul_f16(program<W> p, ptr<const half> a, ptr<const half> b, ptr<float> c, int M,
                          int N, int K) {
  auto rm = p.id(0) * BM + arange<BM>(p);
  auto rn = p.id(1) * BN + arange<BN>(p);
  auto rk = arange<BK>(p);
  auto acc = zeros<float, BM, BN>(p);
  for (int k = 0; k < K; k += BK) {
    auto ta = load(a + rm.col() * K + (k + rk).row(), (rm < M).col() & (k + rk < K).row(), 0.0f);
    auto tb = load(b + (k + rk).col() * N + rn.row(), (k + rk < K).col() & (rn < N).row(), 0.0f);
    acc = dot(ta, tb, acc);
  }
  store(c + rm.col() * N + rn.row(), acc, (rm < M).col() & (rn < N).row());
}

// c [M, N] (f32) = 0.5 + a [M, K] @ b, one program, b [K, N] or (BT) the transpose of b [N, K]:
// the tile shapes and wave counts each GPU lowering of dot picks its paths by (mma.sync and
// wgmma on NVIDIA, MFMA on AMD), with ragged M, N and K masked on load.
template <int BM, int BK, int BN, int W, bool BT>
BV_KERNEL void dot_tile(program<W> p, ptr<const half> a, ptr<const half> b, ptr<float> c, int M,
                        int N, int K) {
  auto rm = arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rk = arange<BK>(p);
  auto ta = load(a + rm.col() * K + rk.row(), (rm < M).col() & (rk < K).row(), 0.0f);
  auto acc = full<float, BM, BN>(p, 0.5f);
  if constexpr (BT) {
    auto tx = load(b + rn.col() * K + rk.row(), (rn < N).col() & (rk < K).row(), 0.0f);
    acc = dot(ta, trans(tx), acc);
  } else {
    auto tb = load(b + rk.col() * N + rn.row(), (rk < K).col() & (rn < N).row(), 0.0f);
    acc = dot(ta, tb, acc);
  }
  store(c + rm.col() * N + rn.row(), acc, (rm < M).col() & (rn < N).row());
}

// c [M, N] (f32) = 0.5 + x^T @ b, one program, x [K, M] and b [K, N]: dot with a transposed a
// (the attention backward's dot(trans(p), dout)), ragged M, N and K masked on load.
template <int BM, int BK, int BN, int W>
BV_KERNEL void dot_tile_at(program<W> p, ptr<const half> x, ptr<const half> b, ptr<float> c, int M,
                           int N, int K) {
  auto rm = arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rk = arange<BK>(p);
  auto tx = load(x + rk.col() * M + rm.row(), (rk < K).col() & (rm < M).row(), 0.0f);
  auto tb = load(b + rk.col() * N + rn.row(), (rk < K).col() & (rn < N).row(), 0.0f);
  auto acc = full<float, BM, BN>(p, 0.5f);
  acc = dot(trans(tx), tb, acc);
  store(c + rm.col() * N + rn.row(), acc, (rm < M).col() & (rn < N).row());
}

// o [M, D] (f32) = sum over key blocks j of (q @ k_j^T) @ v_j with the scores cast to f16 between
// the two products, attention's chain of dots without the softmax; keys past n masked on load.
template <int BM, int D, int BN, int W>
BV_KERNEL void dot_chain(program<W> p, ptr<const half> q, ptr<const half> k, ptr<const half> v,
                         ptr<float> o, int m, int n) {
  auto rm = arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto qb = load(q + rm.col() * D + rd.row(), rm.col() < m, 0.0f);
  auto acc = zeros<float, BM, D>(p);
  for (int j = 0; j < n; j += BN) {
    auto cols = j + rn;
    auto kb = load(k + cols.col() * D + rd.row(), cols.col() < n, 0.0f);
    auto sc = dot(qb, trans(kb));
    auto vb = load(v + cols.col() * D + rd.row(), cols.col() < n, 0.0f);
    acc = dot(sc.to(dtype<half>{}), vb, acc);
  }
  store(o + rm.col() * D + rd.row(), acc, rm.col() < m);
}

// dot_chain with k and v through block pointers (rings on an NVIDIA GPU launched with stages:
// on sm_90a wgmma reads q from registers and k's and v's tiles in place from their slots), plus
// q @ k_0^T @ v_0 twice more: once from the first step's views, kept across every later load of
// their rings (stale by then), once through trans(k_0).to(f16) (a materialised tile). At D = 64,
// kt [D, BN] (f32) = trans(k_0) stored as a view (at D = 128 its transpose buffer would take an
// AMD workgroup past 64 KiB of LDS).
template <int BM, int D, int BN, int W>
BV_KERNEL void ring_chain(program<W> p, ptr<const half> q, ptr<const half> k, ptr<const half> v,
                          ptr<float> o, ptr<float> kt, int m, int n) {
  auto rm = arange<BM>(p);
  auto rn = arange<BN>(p);
  auto rd = arange<D>(p);
  auto qb = load(q + rm.col() * D + rd.row(), rm.col() < m, 0.0f);
  auto k_bp = make_block_ptr<BN, D>(p, k, {n, D}, {D, 1}, {0, 0});
  auto v_bp = make_block_ptr<BN, D>(p, v, {n, D}, {D, 1}, {0, 0});
  auto k0 = load(k_bp, boundary_check(0));
  auto v0 = load(v_bp, boundary_check(0));
  auto acc = zeros<float, BM, D>(p);
  for (int j = 0; j < n; j += BN) {
    auto sc = dot(qb, trans(load(k_bp, boundary_check(0))));
    acc = dot(sc.to(dtype<half>{}), load(v_bp, boundary_check(0)), acc);
    k_bp = advance(k_bp, {BN, 0});
    v_bp = advance(v_bp, {BN, 0});
  }
  acc = dot(dot(qb, trans(k0)).to(dtype<half>{}), v0, acc);
  acc = dot(dot(qb, trans(k0).to(dtype<half>{})).to(dtype<half>{}), v0, acc);
  store(o + rm.col() * D + rd.row(), acc, rm.col() < m);
  if constexpr (D == 64) store(kt + rd.col() * BN + rn.row(), trans(k0));
}

// ring_chain with q through a block pointer too (its view loaded once, kept through the loop) and
// the output an accumulator for dots of f16 operands, rescaled by a per-row factor before each
// key block's dot (the attention forward's acc * alpha.col(), variant 3). On sm_90a, launched with
// stages: q k^T by wgmma from q's and k's slots (k's rows in mma order), p v from p's registers
// and v's slot into the accumulator in the tensor cores' order; views loaded before the loop
// (k0, v0: the rings' first loads, copied only at their first use) are read after it. Stream: the
// loop is a for_range over k and v as tile streams (gpu/tile_loop.hpp: on sm_90a the loop's own
// TMA pipeline where n is a multiple of BN), carrying the accumulator (1: its groups may stay in
// flight) or a struct that holds it (2: the loop's other schedule; 3: with q a held stream too,
// along {0, 0}, its tile loaded once by the loop, while the view loaded before it is read after).
template <int BM, int D, int BN, int W, int Stream = 0>
BV_KERNEL void ring_chain_acc(program<W> p, ptr<const half> q, ptr<const half> k, ptr<const half> v,
                              ptr<float> o, int m, int n) {
  auto rm = arange<BM>(p);
  auto rd = arange<D>(p);
  auto q_bp = make_block_ptr<BM, D>(p, q, {m, D}, {D, 1}, {0, 0});
  auto k_bp = make_block_ptr<BN, D>(p, k, {n, D}, {D, 1}, {0, 0});
  auto v_bp = make_block_ptr<BN, D>(p, v, {n, D}, {D, 1}, {0, 0});
  auto qb = load(q_bp, boundary_check(0));
  auto k0 = load(k_bp, boundary_check(0));
  auto v0 = load(v_bp, boundary_check(0));
  auto alpha = where(rm % 3 == 0, 0.5f, 1.0f);
  auto acc = accumulator<float, BM, D>(p, dtype<half>{});
  auto key_block = [&](const auto& kb, const auto& vb, const auto& acc) {
    return dot(dot(qb, trans(kb)).to(dtype<half>{}), vb, acc * alpha.col());
  };
  const auto kv = [&](const auto& bp) { return along(bp, {BN, 0}, boundary_check(0)); };
  if constexpr (Stream == 1) {
    acc = for_range(p, 0, n, BN, acc, kv(k_bp), kv(v_bp),
                    [&](int, const auto& kb, const auto& vb, const auto& acc) {
                      return key_block(kb, vb, acc);
                    });
  } else if constexpr (Stream == 2) {
    struct carried {
      decltype(acc) a;
    };
    acc = for_range(p, 0, n, BN, carried{acc}, kv(k_bp), kv(v_bp),
                    [&](int, const auto& kb, const auto& vb, carried c) {
                      return carried{key_block(kb, vb, c.a)};
                    })
              .a;
  } else if constexpr (Stream == 3) {
    struct carried {
      decltype(acc) a;
    };
    acc = for_range(
              p, 0, n, BN, carried{acc}, along(q_bp, {0, 0}, boundary_check(0)), kv(k_bp), kv(v_bp),
              [&](int, const auto& qh, const auto& kb, const auto& vb, carried c) {
                return carried{dot(dot(qh, trans(kb)).to(dtype<half>{}), vb, c.a * alpha.col())};
              })
              .a;
  } else {
    for (int j = 0; j < n; j += BN) {
      acc = key_block(load(k_bp, boundary_check(0)), load(v_bp, boundary_check(0)), acc);
      k_bp = advance(k_bp, {BN, 0});
      v_bp = advance(v_bp, {BN, 0});
    }
  }
  acc = dot(dot(qb, trans(k0)).to(dtype<half>{}), v0, acc);
  store(o + rm.col() * D + rd.row(), acc / alpha.col(), rm.col() < m);
}

// ring_chain_acc's loop by halves of D (the attention forward's variant 4): q, k and v as two
// [., D / 2] block pointers each, q k^T the sum of the halves' products, o two accumulators, and
// the key loop a for_range over four tile streams carrying a struct of both. On sm_90a, launched
// with stages: four fmt_wm streams by the TMA (keys a multiple of BN), q's halves as wgmma A
// tiles (made last: a program's first four rings get the tensor maps). Held: q's halves are held
// streams of the loop (along {0, 0}), as in the attention forward, not views loaded before it,
// each in a ring of one slot (max_slots<1>). KvSlots caps the moving k and v streams' rings below
// the launch's stages: 2 slots of 3 still pipeline, 1 loads each tile when the step needs it.
template <int BM, int D, int BN, int W, bool Held = false, int KvSlots = unlimited_slots>
BV_KERNEL void ring_chain_halves(program<W> p, ptr<const half> q, ptr<const half> k,
                                 ptr<const half> v, ptr<float> o, int m, int n) {
  constexpr int H = D / 2;
  auto rm = arange<BM>(p);
  auto rh = arange<H>(p);
  constexpr auto kv_slots = max_slots<KvSlots>;
  auto k0 = make_block_ptr<BN, H>(p, k, {n, D}, {D, 1}, {0, 0}, kv_slots);
  auto k1 = make_block_ptr<BN, H>(p, k, {n, D}, {D, 1}, {0, H}, kv_slots);
  auto v0 = make_block_ptr<BN, H>(p, v, {n, D}, {D, 1}, {0, 0}, kv_slots);
  auto v1 = make_block_ptr<BN, H>(p, v, {n, D}, {D, 1}, {0, H}, kv_slots);
  constexpr auto q_slots = max_slots<(Held ? 1 : unlimited_slots)>;
  const auto q0_bp = make_block_ptr<BM, H>(p, q, {m, D}, {D, 1}, {0, 0}, q_slots);
  const auto q1_bp = make_block_ptr<BM, H>(p, q, {m, D}, {D, 1}, {0, H}, q_slots);
  auto alpha = where(rm % 3 == 0, 0.5f, 1.0f);
  auto zero = accumulator<float, BM, H>(p, dtype<half>{});
  struct halves {
    decltype(zero) lo, hi;
  };
  const auto kv = [&](const auto& bp) { return along(bp, {BN, 0}, boundary_check(0)); };
  // (The step written in each body, not a helper lambda: as in the attention forward, the GPU's
  // loop calls its body in two places, and a helper called there may stay a call.)
  halves acc;
  if constexpr (Held) {
    const auto held = [](const auto& bp) { return along(bp, {0, 0}, boundary_check(0)); };
    acc = for_range(
        p, 0, n, BN, halves{zero, zero}, held(q0_bp), held(q1_bp), kv(k0), kv(k1), kv(v0), kv(v1),
        [&](int, const auto& qa, const auto& qb, const auto& ka, const auto& kb, const auto& va,
            const auto& vb, halves c) {
          const auto sc = dot(qb, trans(kb), dot(qa, trans(ka))).to(dtype<half>{});
          return halves{dot(sc, va, c.lo * alpha.col()), dot(sc, vb, c.hi * alpha.col())};
        });
  } else {
    const auto q0 = load(q0_bp, boundary_check(0));
    const auto q1 = load(q1_bp, boundary_check(0));
    acc = for_range(
        p, 0, n, BN, halves{zero, zero}, kv(k0), kv(k1), kv(v0), kv(v1),
        [&](int, const auto& ka, const auto& kb, const auto& va, const auto& vb, halves c) {
          const auto sc = dot(q1, trans(kb), dot(q0, trans(ka))).to(dtype<half>{});
          return halves{dot(sc, va, c.lo * alpha.col()), dot(sc, vb, c.hi * alpha.col())};
        });
  }
  store(o + rm.col() * D + rh.row(), acc.lo, rm.col() < m);
  store(o + rm.col() * D + H + rh.row(), acc.hi, rm.col() < m);
}

// ring_chain_halves with the scores a key block ahead (the attention forward's variant 6): the k
// streams run a block ahead of v's, block 0's scores come before the loop, and each step computes
// the next block's scores before it uses the ones it carries. On sm_90a those scores' groups stay
// in flight until the step's end (gpu/pending.hpp); the last step's k block lies past the keys
// (zeros), and where the keys end at a multiple of 32 its fmt_wm tiles still go by the TMA.
template <int BM, int D, int BN, int W>
BV_KERNEL void ring_chain_ahead(program<W> p, ptr<const half> q, ptr<const half> k,
                                ptr<const half> v, ptr<float> o, int m, int n) {
  constexpr int H = D / 2;
  auto rm = arange<BM>(p);
  auto rh = arange<H>(p);
  auto k0 = make_block_ptr<BN, H>(p, k, {n, D}, {D, 1}, {0, 0});
  auto k1 = make_block_ptr<BN, H>(p, k, {n, D}, {D, 1}, {0, H});
  auto v0 = make_block_ptr<BN, H>(p, v, {n, D}, {D, 1}, {0, 0});
  auto v1 = make_block_ptr<BN, H>(p, v, {n, D}, {D, 1}, {0, H});
  auto q0 = load(make_block_ptr<BM, H>(p, q, {m, D}, {D, 1}, {0, 0}), boundary_check(0));
  auto q1 = load(make_block_ptr<BM, H>(p, q, {m, D}, {D, 1}, {0, H}), boundary_check(0));
  auto alpha = where(rm % 3 == 0, 0.5f, 1.0f);
  auto zero = accumulator<float, BM, H>(p, dtype<half>{});
  auto s_zero = zeros<float, BM, BN>(p);
  struct carried {
    decltype(zero) lo, hi;
    decltype(s_zero) s;  // this step's scores
  };
  const auto kv = [&](const auto& bp) { return along(bp, {BN, 0}, boundary_check(0)); };
  const auto ka = load(k0, boundary_check(0));
  const auto kb = load(k1, boundary_check(0));
  const carried first{zero, zero, dot(q1, trans(kb), dot(q0, trans(ka)))};
  const carried acc = for_range(
      p, 0, n, BN, first, kv(advance(k0, {BN, 0})), kv(advance(k1, {BN, 0})), kv(v0), kv(v1),
      [&](int, const auto& kna, const auto& knb, const auto& va, const auto& vb, carried c) {
        auto s_next = dot(q1, trans(knb), dot(q0, trans(kna)));
        const auto sc = c.s.to(dtype<half>{});
        c.lo = dot(sc, va, c.lo * alpha.col());
        c.hi = dot(sc, vb, c.hi * alpha.col());
        c.s = s_next;
        return c;
      });
  store(o + rm.col() * D + rh.row(), acc.lo, rm.col() < m);
  store(o + rm.col() * D + H + rh.row(), acc.hi, rm.col() < m);
}

// One ring's first tile in two roles, in an order that depends on the program: even programs read
// x's tile first as the transposed b of dot(y, trans(x)), odd ones first as the a of dot(x, w).
// out [n, 64] (f32) = y_t x_t^T + 2 x_t w_t for each program's 64 rows t of x, y and w. On an
// NVIDIA GPU launched with stages, a ring's first load copies in the format earlier programs'
// first dots asked for (a hint per ring, kept across launches): here the hint is wrong for every
// other program, and each dot must still read its operand in the format it needs.
template <int W>
BV_KERNEL void ring_roles(program<W> p, ptr<const half> x, ptr<const half> y, ptr<const half> w,
                          ptr<float> out, int n) {
  const int r0 = p.id(0) * 64;
  auto r = arange<64>(p);
  auto x_bp = make_block_ptr<64, 64>(p, x, {n, 64}, {64, 1}, {r0, 0});
  auto y_bp = make_block_ptr<64, 64>(p, y, {n, 64}, {64, 1}, {r0, 0});
  auto w_bp = make_block_ptr<64, 64>(p, w, {n, 64}, {64, 1}, {r0, 0});
  auto xt = load(x_bp, boundary_check(0));
  auto yt = load(y_bp, boundary_check(0));
  auto wt = load(w_bp, boundary_check(0));
  auto rows = (r0 + r).col();
  if (p.id(0) % 2 == 0) {
    auto c1 = dot(yt, trans(xt));
    auto c2 = dot(xt, wt);
    store(out + rows * 64 + r.row(), c1 + 2.0f * c2, rows < n);
  } else {
    auto c2 = dot(xt, wt);
    auto c1 = dot(yt, trans(xt));
    store(out + rows * 64 + r.row(), c1 + 2.0f * c2, rows < n);
  }
}

// counts[v % 8] += 1 for every v of x: atomics from every program onto 8 counters.
template <int BLOCK, int W>
BV_KERNEL void histogram(program<W> p, ptr<const int32_t> x, ptr<int32_t> counts, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  auto v = load(x + offs, mask, 0);
  atomic_add(counts + v % 8, 1, mask);
}

// out = x shifted by one column ([m, n] -> [m, n], out[i, j] = x[i, j + 1], 0 past the end), a
// BR-row strip per program walked across the columns with a block pointer and advance().
template <int BR, int BC, int W>
BV_KERNEL void shift_cols(program<W> p, ptr<const float> x, ptr<float> out, int m, int n) {
  auto src = make_block_ptr<BR, BC>(p, x, {m, n}, {n, 1}, {p.id(0) * BR, 1});
  auto dst = make_block_ptr<BR, BC>(p, out, {m, n}, {n, 1}, {p.id(0) * BR, 0});
  for (int j = 0; j < n; j += BC) {
    store(dst, load(src, boundary_check(0, 1)), boundary_check(0, 1));
    src = advance(src, {0, BC});
    dst = advance(dst, {0, BC});
  }
}

// out [64, BN] (f32) = (the sum over row blocks t = 1 .. 5, 0, 0, 0 of rows 64 t .. 64 t + 63 of
// a, columns col0 .. col0 + 63, zero outside a's [n, 65]) @ b [64, BN]: one block-pointer tile
// stream used every way that must never read a stale tile (16-bit T here; the matmul development
// tools in bench/gpu run it on f32 too). On an NVIDIA GPU, 16-bit tiles launched with stages
// give each block pointer an LDS ring that its loads prefetch into along their step; here a view
// is kept across later loads of its ring, a load goes through a stale copy of the block pointer,
// a view is materialised, and the last row block crosses the tensor's edge. col0 = 1 and an lda
// that is not a multiple of 8 take the rings' unaligned copies.
template <class T, int BN, int W>
BV_KERNEL void ring_reuse(program<W> p, ptr<const T> a, ptr<const T> b, ptr<float> out, int n,
                          int lda, int col0) {
  auto bq = make_block_ptr<64, BN>(p, b, {64, BN}, {BN, 1}, {0, 0});
  auto bp = make_block_ptr<64, 64>(p, a, {n, 65}, {lda, 1}, {0, col0});
  auto tb = load(bq, boundary_check(0, 1));
  auto first = load(bp, boundary_check(0, 1));
  auto copy = bp;
  auto acc = zeros<float, 64, BN>(p);
  for (int i = 1; i < 6; ++i) {
    bp = advance(bp, {64, 0});
    acc = dot(load(bp, boundary_check(0, 1)), tb, acc);
  }
  acc = dot(first, tb, acc);                             // kept across five loads of its ring
  acc = dot(load(copy, boundary_check(0, 1)), tb, acc);  // row block 0 again, through a stale copy
  acc = dot((first * 1.0f).to(dtype<T>{}), tb, acc);     // materialised
  auto r = arange<64>(p);
  auto c = arange<BN>(p);
  store(out + (r.col() * BN + c.row()), acc);
}

// A tiled c = a @ b + a[:, :BK] @ (b[:BK, :] / 2) into an accumulator (accumulator.hpp on a GPU:
// kept in the tensor cores' order while only dot updates it), read afterwards every way a kernel
// may: stored as f32 and as f16, added twice into c2 (zeroed) by atomics, reduced along each axis
// (rows [grid n, M]: the row sums of |c|; cols [grid m, N]: twice the column maxima over the rows
// inside the tensor), through where, maximum, abs and operators, and (but for Range) named in a
// print_if that never fires. The loop's dots read both operands from block-pointer rings when the
// launch gives stages; the last one takes b from registers (the other paths of dot). Range: the
// loop is a for_range (on sm_90a each step's wgmma then runs on into the next step), whose steps
// also reload the tile they read through two more copies of a's block pointer when Reload (ring
// misses that refill slots while a group may be in flight), adding a @ b three more times.
template <int BM, int BN, int BK, int W, bool Range = false, bool Reload = false>
BV_KERNEL void acc_dot(program<W> p, ptr<const half> a, ptr<const half> b, ptr<float> c,
                       ptr<half> c16, ptr<float> c2, ptr<float> rows, ptr<float> cols, int M, int N,
                       int K) {
  const int m0 = p.id(0) * BM, n0 = p.id(1) * BN;
  auto a_bp = make_block_ptr<BM, BK>(p, a, {M, K}, {K, 1}, {m0, 0});
  auto b_bp = make_block_ptr<BK, BN>(p, b, {K, N}, {N, 1}, {0, n0});
  auto a0 = a_bp;
  auto b0 = b_bp;
  auto step = [&](auto acc) {
    acc = dot(load(a_bp, boundary_check(0, 1)), load(b_bp, boundary_check(0, 1)), acc);
    if constexpr (Reload) {
      auto a1 = a_bp, a2 = a_bp;
      auto x1 = load(a1, boundary_check(0, 1));
      auto x2 = load(a2, boundary_check(0, 1));
      acc = dot(x1, load(b_bp, boundary_check(0, 1)), acc);
      acc = dot(x2, load(b_bp, boundary_check(0, 1)), acc);
      acc = dot(x1, load(b_bp, boundary_check(0, 1)), acc);
    }
    a_bp = advance(a_bp, {0, BK});
    b_bp = advance(b_bp, {BK, 0});
    return acc;
  };
  auto acc = accumulator<float, BM, BN>(p);
  if constexpr (Range) {
    acc = for_range(p, 0, K, BK, acc, [&](int, auto acc) { return step(acc); });
  } else {
    for (int k = 0; k < K; k += BK) acc = step(acc);
  }
  acc = dot(load(a0, boundary_check(0, 1)), (load(b0, boundary_check(0, 1)) * 0.5f).to(f16), acc);
  auto rm = m0 + arange<BM>(p);
  auto rn = n0 + arange<BN>(p);
  auto in = (rm.col() < M) & (rn.row() < N);
  store(c + (rm.col() * N + rn.row()), acc, in);
  store(c16 + (rm.col() * N + rn.row()), acc, in);
  atomic_add(c2 + (rm.col() * N + rn.row()), acc, in);
  atomic_add(c2 + (rm.col() * N + rn.row()), acc, in);
  // A printf in a kernel makes ptxas wait for every wgmma where it is issued (C7510): the
  // for_range forms leave it out, so that their groups stay in flight on sm_90a.
  if constexpr (!Range) print_if(p, "=1000", "acc", acc);
  store(rows + (p.id(1) * M + rm), sum<1>(maximum(acc, -acc) * 0.5f + abs(acc) * 0.5f), rm < M);
  store(cols + (p.id(0) * N + rn), max<0>(where(rm.col() < M, acc, -1e30f) * 2.0f), rn < N);
}

// c = a @ b (times 1.5 for V 1) + a[:, :BK] @ b[:BK, :] by a for_range over tile streams
// (along): on sm_90a, where the tensors allow, its own TMA pipeline with the tiles pinned in their
// slots (tile_loop.hpp), else each step's loads through the rings. V: 0, the tiles straight into
// an accumulator(); 1, also read as blocks (a scaled, b as a register operand's other side); 2, a
// zeros() accumulator (the pinned B tile is not in its format); 3, one stream, b loaded in the
// body from its own block pointer. The last dot loads both tiles again, through copies of the
// streamed block pointers, after the loop moved their rings on.
template <int BM, int BN, int BK, int W, int V>
BV_KERNEL void acc_stream(program<W> p, ptr<const half> a, ptr<const half> b, ptr<float> c, int M,
                          int N, int K) {
  const int m0 = p.id(0) * BM, n0 = p.id(1) * BN;
  auto a_bp = make_block_ptr<BM, BK>(p, a, {M, K}, {K, 1}, {m0, 0});
  auto b_bp = make_block_ptr<BK, BN>(p, b, {K, N}, {N, 1}, {0, n0});
  const auto a0 = a_bp;
  const auto b0 = b_bp;
  const boundary_check bc(0, 1);
  auto init = [&] {
    if constexpr (V == 2)
      return zeros<float, BM, BN>(p);
    else
      return accumulator<float, BM, BN>(p);
  };
  auto acc = init();
  if constexpr (V == 3) {
    auto b_k = make_block_ptr<BK, BN>(p, b, {K, N}, {N, 1}, {0, n0});
    acc = for_range(p, 0, K, BK, acc, along(a_bp, {0, BK}, bc), [&](int, const auto& x, auto acc) {
      acc = dot(x, load(b_k, bc), acc);
      b_k = advance(b_k, {BK, 0});
      return acc;
    });
  } else {
    acc = for_range(p, 0, K, BK, acc, along(a_bp, {0, BK}, bc), along(b_bp, {BK, 0}, bc),
                    [&](int, const auto& x, const auto& y, auto acc) {
                      acc = dot(x, y, acc);
                      if constexpr (V == 1) acc = dot((x * 0.5f).to(f16), y, acc);
                      return acc;
                    });
  }
  acc = dot(load(a0, bc), load(b0, bc), acc);
  auto rm = m0 + arange<BM>(p);
  auto rn = n0 + arange<BN>(p);
  store(c + (rm.col() * N + rn.row()), acc, (rm.col() < M) & (rn.row() < N));
}

// c = a[:, :k_stop] @ b[:k_stop, :] by a k loop that stops before the tensor's end: each ring's
// prefetch of the next tile is still in flight when the program ends, and must land before the
// program's LDS is another's (on sm_90a the TMA copies these tiles). More programs than an H200
// holds at once, so later programs take over the LDS of earlier ones.
template <int BM, int BN, int BK, int W>
BV_KERNEL void ring_stop(program<W> p, ptr<const half> a, ptr<const half> b, ptr<float> c, int M,
                         int N, int K, int k_stop) {
  const int m0 = p.id(0) * BM, n0 = p.id(1) * BN;
  auto a_bp = make_block_ptr<BM, BK>(p, a, {M, K}, {K, 1}, {m0, 0});
  auto b_bp = make_block_ptr<BK, BN>(p, b, {K, N}, {N, 1}, {0, n0});
  auto acc = accumulator<float, BM, BN>(p);
  for (int k = 0; k < k_stop; k += BK) {
    acc = dot(load(a_bp, boundary_check(0, 1)), load(b_bp, boundary_check(0, 1)), acc);
    a_bp = advance(a_bp, {0, BK});
    b_bp = advance(b_bp, {BK, 0});
  }
  auto rm = m0 + arange<BM>(p);
  auto rn = n0 + arange<BN>(p);
  store(c + (rm.col() * N + rn.row()), acc, (rm.col() < M) & (rn.row() < N));
}

// y (f16) = sigmoid(x) * exp(-|x|) + sqrt(|x|), computed in f32 and cast on store.
template <int BLOCK, int W>
BV_KERNEL void math_cast(program<W> p, ptr<const float> x, ptr<half> y, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  auto v = load(x + offs, mask, 0.0f);
  store(y + offs, (sigmoid(v) * exp(-abs(v)) + sqrt(abs(v))).to(f16), mask);
}

// The attention forward's online softmax without its products, over rows of x [m, n] in column
// blocks: each row's maximum mx and sum l of exp(x - mx) carried through the loop as 1-D blocks
// of row reductions (on the GPU lazy blocks, block.hpp, wherever a row lies in one wave), then
// read every way a 1-D block is read: out = exp(x - mx) / l (.col()), stats = mx, l and the row's
// value at its first maximum (a store, and argmax<1>'s columns as a load's offsets), tot = the
// program's sum of mx + l over its rows (a reduction of the 1-D block), d = mx[i] - mx[j] over its
// rows (.col() against .row()).
template <int BR, int BC, int W>
BV_KERNEL void row_online(program<W> p, ptr<const float> x, ptr<float> out, ptr<float> stats,
                          ptr<float> tot, ptr<float> d, int m, int n) {
  auto r = p.id(0) * BR + arange<BR>(p);
  auto c = arange<BC>(p);
  auto rmask = r < m;
  auto m_i = full<float, BR>(p, -INFINITY);
  auto l_i = zeros<float, BR>(p);
  auto at = zeros<int32_t, BR>(p);
  for (int start = 0; start < n; start += BC) {
    auto cols = start + c;
    auto xv = load(x + r.col() * n + cols.row(), rmask.col() & (cols.row() < n), -INFINITY);
    auto bm = max<1>(xv);
    auto m_new = maximum(m_i, bm);
    at = where(bm > m_i, start + argmax<1>(xv), at);
    l_i = l_i * exp(m_i - m_new) + sum<1>(exp(xv - m_new.col()));
    m_i = m_new;
  }
  for (int start = 0; start < n; start += BC) {
    auto cols = start + c;
    auto mask = rmask.col() & (cols.row() < n);
    auto xv = load(x + r.col() * n + cols.row(), mask, 0.0f);
    store(out + r.col() * n + cols.row(), exp(xv - m_i.col()) / l_i.col(), mask);
  }
  store(stats + r * 3, m_i, rmask);
  store(stats + r * 3 + 1, l_i, rmask);
  store(stats + r * 3 + 2, load(x + r * n + at, rmask, 0.0f), rmask);
  store(tot + p.id(0), sum(where(rmask, m_i + l_i, 0.0f)));
  auto rr = arange<BR>(p);
  store(d + (p.id(0) * BR + rr.col()) * BR + rr.row(), m_i.col() - m_i.row(),
        rmask.col() & rmask.row());
}

// ---- cases -----------------------------------------------------------------------------------

// The backend of a translation unit whose bv::tensor and bv::launch are its language's own (the
// interpreter's, test_conformance*.cpp; the emulator's, tests/emulator): inputs in zeroed tensors
// (written before any read, as the interpreter's uninitialised-read check wants them).
struct tensor_backend {
  template <class T>
  using tensor = bv::tensor<T>;
  template <class T>
  static bv::tensor<T> make(const char* name, std::vector<int64_t> shape, const std::vector<T>& v) {
    auto t = bv::tensor<T>::zeros(name, std::move(shape));
    std::copy(v.begin(), v.end(), t.data());
    return t;
  }
  template <class T>
  static std::vector<T> read(const bv::tensor<T>& t) {
    return t.values();
  }
  // (grid, args...) or (gpu_tuning, grid, args...), as bv::launch takes them.
  template <auto K, class... A>
  static bv::launch_result launch(A&&... args) {
    return bv::launch<K>(std::forward<A>(args)...);
  }
};

struct outcome {
  bool ok = true;
  std::string what;  // the first mismatch
  void fail(const std::string& s) {
    if (ok) what = s;
    ok = false;
  }
};

inline std::vector<float> randn(int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> d(0.0, 1.0);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& e : v) e = static_cast<float>(d(rng));
  return v;
}
inline float nanf() { return std::numeric_limits<float>::quiet_NaN(); }
inline std::vector<half> halves(const std::vector<float>& x) {
  std::vector<half> h(x.size());
  for (size_t i = 0; i < x.size(); ++i) h[i] = half(x[i]);
  return h;
}

// |got - want| <= tol * max(1, |want|), NaN never close.
template <class G>
void expect_near(outcome& o, const char* what, const std::vector<G>& got,
                 const std::vector<double>& want, double tol) {
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<double>(static_cast<float>(got[i]));
    if (!(std::abs(g - want[i]) <= tol * std::max(1.0, std::abs(want[i])))) {
      o.fail(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(g) +
             ", reference " + std::to_string(want[i]));
      return;
    }
  }
}
template <class I>
void expect_equal(outcome& o, const char* what, const std::vector<I>& got,
                  const std::vector<int64_t>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (static_cast<int64_t>(got[i]) != want[i]) {
      o.fail(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
             ", reference " + std::to_string(want[i]));
      return;
    }
}
inline void expect_launch(outcome& o, const launch_result& r) {
  if (!r.ok()) o.fail("launch of " + r.kernel + " reported an error");
}

template <class B>
outcome run_masked_add(int n, uint64_t seed) {
  constexpr int BLOCK = 256;
  std::mt19937_64 rng(seed);
  const auto x = randn(n, rng), y = randn(n, rng);
  const int progs = static_cast<int>(cdiv(n, BLOCK));
  auto tx = B::template make<float>("x", {n}, x), ty = B::template make<float>("y", {n}, y);
  auto to = B::template make<float>("out", {n}, std::vector<float>(n, nanf()));
  auto ts = B::template make<float>("sums", {progs}, std::vector<float>(progs, nanf()));
  outcome o;
  expect_launch(o, B::template launch<masked_add<BLOCK, 4>>(grid(progs), tx, ty, to, ts, n));
  std::vector<double> out(n), sums(progs, 0.0);
  for (int i = 0; i < n; ++i) {
    out[i] = double(x[i]) + double(y[i]);
    sums[i / BLOCK] += x[i];
  }
  expect_near(o, "out", B::read(to), out, 1e-6);
  expect_near(o, "sums", B::read(ts), sums, 1e-5);
  return o;
}

template <class B>
outcome run_outer_where(int m, int n, uint64_t seed) {
  constexpr int BR = 16, BC = 32;
  std::mt19937_64 rng(seed);
  const auto x = randn(m, rng), y = randn(n, rng);
  auto tx = B::template make<float>("x", {m}, x), ty = B::template make<float>("y", {n}, y);
  auto to = B::template make<float>("out", {m, n}, std::vector<float>(int64_t(m) * n, nanf()));
  outcome o;
  expect_launch(o, B::template launch<outer_where<BR, BC, 4>>(grid(cdiv(m, BR), cdiv(n, BC)), tx,
                                                              ty, to, m, n));
  std::vector<double> want(int64_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const double v = double(x[i]) * y[j];
      want[int64_t(i) * n + j] = i < j ? v : -v;
    }
  expect_near(o, "out", B::read(to), want, 1e-6);
  return o;
}

template <class B>
outcome run_row_stats(int m, int n, uint64_t seed) {
  constexpr int BLOCK = 64;
  std::mt19937_64 rng(seed);
  const auto x = randn(int64_t(m) * n, rng);
  auto tx = B::template make<float>("x", {m, n}, x);
  auto tmx = B::template make<float>("max", {m}, std::vector<float>(m, nanf()));
  auto tamx = B::template make<int32_t>("argmax", {m}, std::vector<int32_t>(m, -7));
  auto tmn = B::template make<float>("min", {m}, std::vector<float>(m, nanf()));
  outcome o;
  expect_launch(o, B::template launch<row_stats<BLOCK, 4>>(grid(m), tx, tmx, tamx, tmn, n));
  std::vector<double> mx(m), mn(m);
  std::vector<int64_t> amx(m);
  for (int i = 0; i < m; ++i) {
    int best = 0;
    double lo = x[int64_t(i) * n];
    for (int j = 0; j < n; ++j) {
      const double v = x[int64_t(i) * n + j];
      if (v > x[int64_t(i) * n + best]) best = j;
      lo = std::min(lo, v);
    }
    mx[i] = x[int64_t(i) * n + best];
    amx[i] = best;
    mn[i] = lo;
  }
  expect_near(o, "max", B::read(tmx), mx, 0.0);
  expect_equal(o, "argmax", B::read(tamx), amx);
  expect_near(o, "min", B::read(tmn), mn, 0.0);
  return o;
}

template <class B>
outcome run_tile_sums(int m, int n, uint64_t seed) {
  constexpr int BR = 16, BC = 32;
  std::mt19937_64 rng(seed);
  const auto x = randn(int64_t(m) * n, rng);
  const int tm = static_cast<int>(cdiv(m, BR)), tn = static_cast<int>(cdiv(n, BC));
  auto tx = B::template make<float>("x", {m, n}, x);
  auto tc = B::template make<float>("colsum", {tm, n}, std::vector<float>(int64_t(tm) * n, nanf()));
  auto tr = B::template make<float>("rowsum", {m, tn}, std::vector<float>(int64_t(m) * tn, nanf()));
  outcome o;
  expect_launch(o, B::template launch<tile_sums<BR, BC, 4>>(grid(tm, tn), tx, tc, tr, m, n));
  std::vector<double> cs(int64_t(tm) * n, 0.0), rs(int64_t(m) * tn, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const double v = x[int64_t(i) * n + j];
      cs[int64_t(i / BR) * n + j] += v;
      rs[int64_t(i) * tn + j / BC] += v;
    }
  expect_near(o, "colsum", B::read(tc), cs, 1e-5);
  expect_near(o, "rowsum", B::read(tr), rs, 1e-5);
  return o;
}

template <class B>
outcome run_matmul_f16(int M, int N, int K, uint64_t seed) {
  constexpr int BM = 64, BN = 64, BK = 32;
  std::mt19937_64 rng(seed);
  const auto af = randn(int64_t(M) * K, rng), bf = randn(int64_t(K) * N, rng);
  const auto a = halves(af), b = halves(bf);
  auto ta = B::template make<half>("a", {M, K}, a), tb = B::template make<half>("b", {K, N}, b);
  auto tc = B::template make<float>("c", {M, N}, std::vector<float>(int64_t(M) * N, nanf()));
  outcome o;
  expect_launch(o, B::template launch<matmul_f16<BM, BN, BK, 4>>(grid(cdiv(M, BM), cdiv(N, BN)), ta,
                                                                 tb, tc, M, N, K));
  std::vector<double> want(int64_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double av = static_cast<float>(a[int64_t(i) * K + k]);
      for (int j = 0; j < N; ++j)
        want[int64_t(i) * N + j] += av * static_cast<float>(b[int64_t(k) * N + j]);
    }
  // f16 inputs are exact in f32; the f32 accumulation differs from double by rounding only.
  expect_near(o, "c", B::read(tc), want, 1e-4 * std::sqrt(double(K)));
  return o;
}

template <int BM, int BK, int BN, int W, bool BT, class B>
outcome run_dot_tile(int M, int N, int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto af = randn(int64_t(M) * K, rng), bf = randn(int64_t(K) * N, rng);
  const auto a = halves(af), b = halves(bf);
  auto ta = B::template make<half>("a", {M, K}, a);
  auto tb = BT ? B::template make<half>("b", {N, K}, b) : B::template make<half>("b", {K, N}, b);
  auto tc = B::template make<float>("c", {M, N}, std::vector<float>(int64_t(M) * N, nanf()));
  outcome o;
  expect_launch(o, B::template launch<dot_tile<BM, BK, BN, W, BT>>(grid(1), ta, tb, tc, M, N, K));
  std::vector<double> want(int64_t(M) * N, 0.5);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double av = static_cast<float>(a[int64_t(i) * K + k]);
      for (int j = 0; j < N; ++j)
        want[int64_t(i) * N + j] +=
            av * static_cast<float>(BT ? b[int64_t(j) * K + k] : b[int64_t(k) * N + j]);
    }
  expect_near(o, "c", B::read(tc), want, 1e-4 * std::sqrt(double(K)));
  return o;
}

template <int BM, int BK, int BN, int W, class B>
outcome run_dot_tile_at(int M, int N, int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto xf = randn(int64_t(K) * M, rng), bf = randn(int64_t(K) * N, rng);
  const auto x = halves(xf), b = halves(bf);
  auto tx = B::template make<half>("x", {K, M}, x);
  auto tb = B::template make<half>("b", {K, N}, b);
  auto tc = B::template make<float>("c", {M, N}, std::vector<float>(int64_t(M) * N, nanf()));
  outcome o;
  expect_launch(o, B::template launch<dot_tile_at<BM, BK, BN, W>>(grid(1), tx, tb, tc, M, N, K));
  std::vector<double> want(int64_t(M) * N, 0.5);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < M; ++i) {
      const double xv = static_cast<float>(x[int64_t(k) * M + i]);
      for (int j = 0; j < N; ++j)
        want[int64_t(i) * N + j] += xv * static_cast<float>(b[int64_t(k) * N + j]);
    }
  expect_near(o, "c", B::read(tc), want, 1e-4 * std::sqrt(double(K)));
  return o;
}

// q [m, D], k and v [n, D] of small integers, so that every score is exact in f16 and every sum
// exact in f32.
struct chain_data {
  std::vector<half> q, k, v;
};
inline chain_data small_chain(int m, int n, int D, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-2, 2);
  auto ints = [&](int64_t count) {
    std::vector<half> x(static_cast<size_t>(count));
    for (auto& e : x) e = half(float(d(rng)));
    return x;
  };
  chain_data x;
  x.q = ints(int64_t(m) * D);
  x.k = ints(int64_t(n) * D);
  x.v = ints(int64_t(n) * D);
  return x;
}
// small_chain's q, k and v as B's tensors, and their output o [m, D] poisoned with NaN.
template <class B>
auto chain_tensors(const chain_data& x, int m, int n, int D) {
  return std::tuple{
      B::template make<half>("q", {m, D}, x.q), B::template make<half>("k", {n, D}, x.k),
      B::template make<half>("v", {n, D}, x.v),
      B::template make<float>("o", {m, D}, std::vector<float>(int64_t(m) * D, nanf()))};
}
inline double as_double(const std::vector<half>& x, int64_t i) {
  return double(static_cast<float>(x[i]));
}
// The sum over keys j of w_j (q k_j^T) v_j in double, w_j = 1 + extra for the first `first` keys
// and 1 for the others.
inline std::vector<double> chain_reference(const chain_data& x, int m, int n, int D, int first = 0,
                                           double extra = 0.0) {
  std::vector<double> want(int64_t(m) * D, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sc = 0.0;
      for (int c = 0; c < D; ++c)
        sc += as_double(x.q, int64_t(i) * D + c) * as_double(x.k, int64_t(j) * D + c);
      const double w = j < first ? 1.0 + extra : 1.0;
      for (int c = 0; c < D; ++c)
        want[int64_t(i) * D + c] += w * sc * as_double(x.v, int64_t(j) * D + c);
    }
  return want;
}

template <int BM, int D, int BN, int W, class B>
outcome run_dot_chain(int m, int n, uint64_t seed) {
  const chain_data x = small_chain(m, n, D, seed);
  auto [tq, tk, tv, to] = chain_tensors<B>(x, m, n, D);
  outcome o;
  expect_launch(o, B::template launch<dot_chain<BM, D, BN, W>>(grid(1), tq, tk, tv, to, m, n));
  expect_near(o, "o", B::read(to), chain_reference(x, m, n, D), 0.0);
  return o;
}

// ring_chain on rings of Stages slots (0: none), on small_chain's inputs.
template <int BM, int D, int BN, int W, int Stages, class B>
outcome run_ring_chain(int m, int n, uint64_t seed) {
  const chain_data x = small_chain(m, n, D, seed);
  auto [tq, tk, tv, to] = chain_tensors<B>(x, m, n, D);
  auto tkt = B::template make<float>("kt", {D, BN}, std::vector<float>(D * BN, nanf()));
  const int lds = Stages ? 2 * block_ptr_lds_bytes<const half, BN, D, W>(Stages) : 0;
  outcome o;
  expect_launch(o, B::template launch<ring_chain<BM, D, BN, W>>(gpu_tuning<Stages>{lds}, grid(1),
                                                                tq, tk, tv, to, tkt, m, n));
  // Key block 0 counts twice more.
  expect_near(o, "o", B::read(to), chain_reference(x, m, n, D, BN, 2.0), 0.0);
  std::vector<double> kt(D * BN, 0.0);
  for (int c = 0; c < D; ++c)
    for (int j = 0; j < BN && j < n; ++j) kt[c * BN + j] = as_double(x.k, int64_t(j) * D + c);
  if (D == 64) expect_near(o, "kt", B::read(tkt), kt, 0.0);
  return o;
}

// The output of ring_chain_acc's key loop in double: before each block of BN keys, every row i's
// sum scaled by alpha_i (0.5 for i % 3 == 0, else 1); with `again`, key block 0 added once more
// and the result divided by alpha.
inline std::vector<double> chain_acc_reference(const chain_data& x, int m, int n, int D, int BN,
                                               bool again) {
  std::vector<double> want(int64_t(m) * D, 0.0);
  for (int i = 0; i < m; ++i) {
    const double alpha = i % 3 == 0 ? 0.5 : 1.0;
    double* wi = want.data() + int64_t(i) * D;
    auto add_keys = [&](int j0, int j1) {
      for (int j = j0; j < j1 && j < n; ++j) {
        double sc = 0.0;
        for (int c = 0; c < D; ++c)
          sc += as_double(x.q, int64_t(i) * D + c) * as_double(x.k, int64_t(j) * D + c);
        for (int c = 0; c < D; ++c) wi[c] += sc * as_double(x.v, int64_t(j) * D + c);
      }
    };
    for (int j = 0; j < n; j += BN) {
      for (int c = 0; c < D; ++c) wi[c] *= alpha;
      add_keys(j, j + BN);
    }
    if (!again) continue;
    add_keys(0, BN);  // key block 0 once more, through the first loads' views
    for (int c = 0; c < D; ++c) wi[c] /= alpha;
  }
  return want;
}

// ring_chain_acc on rings of Stages slots (0: none), on small_chain's inputs: every product and
// sum is exact (the factors are powers of two), so the double reference is matched exactly.
template <int BM, int D, int BN, int W, int Stages, class B, int Stream = 0>
outcome run_ring_chain_acc(int m, int n, uint64_t seed) {
  const chain_data x = small_chain(m, n, D, seed);
  auto [tq, tk, tv, to] = chain_tensors<B>(x, m, n, D);
  const int lds = Stages ? block_ptr_lds_bytes<const half, BM, D, W>(Stages) +
                               2 * block_ptr_lds_bytes<const half, BN, D, W>(Stages)
                         : 0;
  outcome o;
  expect_launch(o, B::template launch<ring_chain_acc<BM, D, BN, W, Stream>>(
                       gpu_tuning<Stages>{lds}, grid(1), tq, tk, tv, to, m, n));
  expect_near(o, "o", B::read(to), chain_acc_reference(x, m, n, D, BN, true), 0.0);
  return o;
}

// ring_chain_halves on rings of Stages slots, the same way (without the extra key block).
template <int BM, int D, int BN, int W, int Stages, class B, bool Held = false,
          int KvSlots = unlimited_slots>
outcome run_ring_chain_halves(int m, int n, uint64_t seed) {
  const chain_data x = small_chain(m, n, D, seed);
  auto [tq, tk, tv, to] = chain_tensors<B>(x, m, n, D);
  constexpr int q_slots = Held ? 1 : unlimited_slots;
  const int lds = Stages ? 2 * block_ptr_lds_bytes<const half, BM, D / 2, W, q_slots>(Stages) +
                               4 * block_ptr_lds_bytes<const half, BN, D / 2, W, KvSlots>(Stages)
                         : 0;
  outcome o;
  expect_launch(o, B::template launch<ring_chain_halves<BM, D, BN, W, Held, KvSlots>>(
                       gpu_tuning<Stages>{lds}, grid(1), tq, tk, tv, to, m, n));
  expect_near(o, "o", B::read(to), chain_acc_reference(x, m, n, D, BN, false), 0.0);
  return o;
}

// ring_chain_ahead on rings of Stages slots, the same way.
template <int BM, int D, int BN, int W, int Stages, class B>
outcome run_ring_chain_ahead(int m, int n, uint64_t seed) {
  const chain_data x = small_chain(m, n, D, seed);
  auto [tq, tk, tv, to] = chain_tensors<B>(x, m, n, D);
  const int lds = Stages ? 2 * block_ptr_lds_bytes<const half, BM, D / 2, W>(Stages) +
                               4 * block_ptr_lds_bytes<const half, BN, D / 2, W>(Stages)
                         : 0;
  outcome o;
  expect_launch(o, B::template launch<ring_chain_ahead<BM, D, BN, W>>(
                       gpu_tuning<Stages>{lds}, grid(1), tq, tk, tv, to, m, n));
  expect_near(o, "o", B::read(to), chain_acc_reference(x, m, n, D, BN, false), 0.0);
  return o;
}

// ring_roles on rings of Stages slots over n rows of small_chain's integers (q as y, k as x, v as
// w): every product and sum is exact.
template <int Stages, class B>
outcome run_ring_roles(int n, uint64_t seed) {
  const chain_data d = small_chain(n, n, 64, seed);
  auto [ty, tx, tw, to] = chain_tensors<B>(d, n, n, 64);
  const int lds = Stages ? 3 * block_ptr_lds_bytes<const half, 64, 64, 4>(Stages) : 0;
  outcome o;
  expect_launch(o, B::template launch<ring_roles<4>>(gpu_tuning<Stages>{lds}, grid(cdiv(n, 64)), tx,
                                                     ty, tw, to, n));
  std::vector<double> want(int64_t(n) * 64, 0.0);
  for (int i = 0; i < n; ++i) {
    const int r0 = i / 64 * 64;
    for (int j = 0; j < 64; ++j) {
      double c1 = 0.0, c2 = 0.0;
      for (int c = 0; c < 64; ++c) {
        if (r0 + j < n)
          c1 += as_double(d.q, int64_t(i) * 64 + c) * as_double(d.k, int64_t(r0 + j) * 64 + c);
        if (r0 + c < n)
          c2 += as_double(d.k, int64_t(i) * 64 + c) * as_double(d.v, int64_t(r0 + c) * 64 + j);
      }
      want[int64_t(i) * 64 + j] = c1 + 2.0 * c2;
    }
  }
  expect_near(o, "out", B::read(to), want, 0.0);
  return o;
}

template <class B>
outcome run_histogram(int n, uint64_t seed) {
  constexpr int BLOCK = 256;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> d(0, 1000);
  std::vector<int32_t> x(n);
  for (auto& e : x) e = d(rng);
  auto tx = B::template make<int32_t>("x", {n}, x);
  auto tc = B::template make<int32_t>("counts", {8}, std::vector<int32_t>(8, 0));
  outcome o;
  expect_launch(o, B::template launch<histogram<BLOCK, 4>>(grid(cdiv(n, BLOCK)), tx, tc, n));
  std::vector<int64_t> want(8, 0);
  for (int v : x) ++want[v % 8];
  expect_equal(o, "counts", B::read(tc), want);
  return o;
}

template <class B>
outcome run_shift_cols(int m, int n, uint64_t seed) {
  constexpr int BR = 16, BC = 32;
  std::mt19937_64 rng(seed);
  const auto x = randn(int64_t(m) * n, rng);
  auto tx = B::template make<float>("x", {m, n}, x);
  auto to = B::template make<float>("out", {m, n}, std::vector<float>(int64_t(m) * n, nanf()));
  outcome o;
  expect_launch(o, B::template launch<shift_cols<BR, BC, 4>>(grid(cdiv(m, BR)), tx, to, m, n));
  std::vector<double> want(int64_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      want[int64_t(i) * n + j] = j + 1 < n ? x[int64_t(i) * n + j + 1] : 0.0;
  expect_near(o, "out", B::read(to), want, 0.0);
  return o;
}

// ring_reuse's result in double precision, for a [n, lda] and b [64, bn] as the kernel reads them.
template <class T>
std::vector<double> ring_reuse_reference(const std::vector<T>& a, int n, int lda, int col0,
                                         const std::vector<T>& b, int bn) {
  std::vector<double> want(size_t(64) * bn, 0.0);
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < 64; ++k) {
      double as = 0;
      for (int t : {1, 2, 3, 4, 5, 0, 0, 0}) {
        const int row = 64 * t + i, col = col0 + k;
        if (row < n && col < 65) as += static_cast<float>(a[int64_t(row) * lda + col]);
      }
      for (int j = 0; j < bn; ++j) want[i * bn + j] += as * static_cast<float>(b[k * bn + j]);
    }
  return want;
}

// ring_reuse at BN = 64 (on sm_90a: a from its ring, b staged, mma.sync) or 128 (a and b both
// read in place by wgmma), launched with rings of 3 slots.
template <int BN, class B>
outcome run_ring_reuse(int lda, int col0, uint64_t seed) {
  constexpr int n = 6 * 64 - 5;
  std::mt19937_64 rng(seed);
  const auto a = halves(randn(int64_t(n) * lda, rng)), b = halves(randn(64 * BN, rng));
  auto ta = B::template make<half>("a", {n, lda}, a), tb = B::template make<half>("b", {64, BN}, b);
  auto to = B::template make<float>("out", {64, BN}, std::vector<float>(64 * BN, nanf()));
  const int lds =
      block_ptr_lds_bytes<const half, 64, 64, 4>(3) + block_ptr_lds_bytes<const half, 64, BN, 4>(3);
  outcome o;
  expect_launch(o, B::template launch<ring_reuse<half, BN, 4>>(gpu_tuning<3>{lds}, grid(1), ta, tb,
                                                               to, n, lda, col0));
  expect_near(o, "out", B::read(to), ring_reuse_reference(a, n, lda, col0, b, BN),
              1e-4 * std::sqrt(8.0 * 64));
  return o;
}

// acc_dot on M x N x K, tiles BM x BN x BK on W waves, rings of Stages slots (0: none).
template <int BM, int BN, int BK, int W, int Stages, class B, bool Range = false,
          bool Reload = false>
outcome run_acc_dot(int M, int N, int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto a = halves(randn(int64_t(M) * K, rng)), b = halves(randn(int64_t(K) * N, rng));
  const int gm = static_cast<int>(cdiv(M, BM)), gn = static_cast<int>(cdiv(N, BN));
  auto ta = B::template make<half>("a", {M, K}, a), tb = B::template make<half>("b", {K, N}, b);
  auto tc = B::template make<float>("c", {M, N}, std::vector<float>(int64_t(M) * N, nanf()));
  auto tc16 =
      B::template make<half>("c16", {M, N}, std::vector<half>(int64_t(M) * N, half(nanf())));
  auto tc2 = B::template make<float>("c2", {M, N}, std::vector<float>(int64_t(M) * N, 0.0f));
  auto tr = B::template make<float>("rows", {gn, M}, std::vector<float>(int64_t(gn) * M, nanf()));
  auto tcl = B::template make<float>("cols", {gm, N}, std::vector<float>(int64_t(gm) * N, nanf()));
  const int lds = Stages ? block_ptr_lds_bytes<const half, BM, BK, W>(Stages) +
                               block_ptr_lds_bytes<const half, BK, BN, W>(Stages)
                         : 0;
  outcome o;
  expect_launch(
      o, B::template launch<acc_dot<BM, BN, BK, W, Range, Reload>>(
             gpu_tuning<Stages>{lds}, grid(gm, gn), ta, tb, tc, tc16, tc2, tr, tcl, M, N, K));
  auto f = [](const std::vector<half>& x, int64_t i) { return double(static_cast<float>(x[i])); };
  std::vector<double> want(int64_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double av = f(a, int64_t(i) * K + k);
      // Each step adds a @ b once (four times with Reload); the last dot a[:, :BK] @ (b[:BK, :] /
      // 2).
      const double w = (Reload ? 4.0 : 1.0) + (k < BK ? 0.5 : 0.0);
      for (int j = 0; j < N; ++j) want[int64_t(i) * N + j] += w * av * f(b, int64_t(k) * N + j);
    }
  std::vector<double> rows(int64_t(gn) * M, 0.0), cols(int64_t(gm) * N, -1e300);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const double v = want[int64_t(i) * N + j];
      rows[int64_t(j / BN) * M + i] += std::abs(v);
      double& cm = cols[int64_t(i / BM) * N + j];
      cm = std::max(cm, 2.0 * v);
    }
  const double tol = 1e-4 * std::sqrt(double(K));
  expect_near(o, "c", B::read(tc), want, tol);
  expect_near(o, "c16", B::read(tc16), want, 2e-3);  // f16 keeps 11 significant bits
  std::vector<double> twice(want);
  for (auto& e : twice) e *= 2.0;
  expect_near(o, "c2", B::read(tc2), twice, tol);
  expect_near(o, "rows", B::read(tr), rows, tol * std::sqrt(double(BN)));
  expect_near(o, "cols", B::read(tcl), cols, tol);
  return o;
}

template <int BM, int BN, int BK, int W, int Stages, int V, class B>
outcome run_acc_stream(int M, int N, int K, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto a = halves(randn(int64_t(M) * K, rng)), b = halves(randn(int64_t(K) * N, rng));
  auto ta = B::template make<half>("a", {M, K}, a), tb = B::template make<half>("b", {K, N}, b);
  auto tc = B::template make<float>("c", {M, N}, std::vector<float>(int64_t(M) * N, nanf()));
  const int lds = Stages ? block_ptr_lds_bytes<const half, BM, BK, W>(Stages) +
                               block_ptr_lds_bytes<const half, BK, BN, W>(Stages) * (V == 3 ? 2 : 1)
                         : 0;
  outcome o;
  expect_launch(o,
                B::template launch<acc_stream<BM, BN, BK, W, V>>(
                    gpu_tuning<Stages>{lds}, grid(cdiv(M, BM), cdiv(N, BN)), ta, tb, tc, M, N, K));
  std::vector<double> want(int64_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double av = static_cast<float>(a[int64_t(i) * K + k]);
      const double w = (V == 1 ? 1.5 : 1.0) + (k < BK ? 1.0 : 0.0);
      for (int j = 0; j < N; ++j)
        want[int64_t(i) * N + j] += w * av * static_cast<float>(b[int64_t(k) * N + j]);
    }
  expect_near(o, "c", B::read(tc), want, 1e-4 * std::sqrt(double(K)));
  return o;
}

// ring_stop on 64 x 128 x 64 tiles of 4 waves with rings of 2 slots.
template <class B>
outcome run_ring_stop(int M, int N, int K, int k_stop, uint64_t seed) {
  constexpr int BM = 64, BN = 128, BK = 64, W = 4;
  std::mt19937_64 rng(seed);
  const auto a = halves(randn(int64_t(M) * K, rng)), b = halves(randn(int64_t(K) * N, rng));
  auto ta = B::template make<half>("a", {M, K}, a), tb = B::template make<half>("b", {K, N}, b);
  auto tc = B::template make<float>("c", {M, N}, std::vector<float>(int64_t(M) * N, nanf()));
  const int lds =
      block_ptr_lds_bytes<const half, BM, BK, W>(2) + block_ptr_lds_bytes<const half, BK, BN, W>(2);
  outcome o;
  expect_launch(
      o, B::template launch<ring_stop<BM, BN, BK, W>>(
             gpu_tuning<2>{lds}, grid(cdiv(M, BM), cdiv(N, BN)), ta, tb, tc, M, N, K, k_stop));
  std::vector<double> want(int64_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < k_stop; ++k) {
      const double av = static_cast<float>(a[int64_t(i) * K + k]);
      for (int j = 0; j < N; ++j)
        want[int64_t(i) * N + j] += av * static_cast<float>(b[int64_t(k) * N + j]);
    }
  expect_near(o, "c", B::read(tc), want, 1e-4 * std::sqrt(double(k_stop)));
  return o;
}

template <class B>
outcome run_math_cast(int n, uint64_t seed) {
  constexpr int BLOCK = 256;
  std::mt19937_64 rng(seed);
  const auto x = randn(n, rng);
  auto tx = B::template make<float>("x", {n}, x);
  auto ty = B::template make<half>("y", {n}, std::vector<half>(n, half(nanf())));
  outcome o;
  expect_launch(o, B::template launch<math_cast<BLOCK, 4>>(grid(cdiv(n, BLOCK)), tx, ty, n));
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    const double v = x[i];
    want[i] = 1.0 / (1.0 + std::exp(-v)) * std::exp(-std::abs(v)) + std::sqrt(std::abs(v));
  }
  expect_near(o, "y", B::read(ty), want, 1e-3);  // f16 keeps 11 significant bits
  return o;
}

template <int BR, int W, class B>
outcome run_row_online(int m, int n, uint64_t seed) {
  constexpr int BC = 32;
  std::mt19937_64 rng(seed);
  const auto x = randn(int64_t(m) * n, rng);
  const int progs = static_cast<int>(cdiv(m, BR));
  auto tx = B::template make<float>("x", {m, n}, x);
  auto to = B::template make<float>("out", {m, n}, std::vector<float>(int64_t(m) * n, nanf()));
  auto ts = B::template make<float>("stats", {m, 3}, std::vector<float>(int64_t(m) * 3, nanf()));
  auto tt = B::template make<float>("tot", {progs}, std::vector<float>(progs, nanf()));
  auto td = B::template make<float>("d", {progs * BR, BR},
                                    std::vector<float>(int64_t(progs) * BR * BR, nanf()));
  outcome o;
  expect_launch(o,
                B::template launch<row_online<BR, BC, W>>(grid(progs), tx, to, ts, tt, td, m, n));
  std::vector<double> out(int64_t(m) * n), stats(int64_t(m) * 3), tot(progs, 0.0), mx(m);
  for (int i = 0; i < m; ++i) {
    const float* row = x.data() + int64_t(i) * n;
    int am = 0;
    for (int j = 1; j < n; ++j)
      if (row[j] > row[am]) am = j;
    double l = 0;
    for (int j = 0; j < n; ++j) l += std::exp(double(row[j]) - row[am]);
    for (int j = 0; j < n; ++j) out[int64_t(i) * n + j] = std::exp(double(row[j]) - row[am]) / l;
    mx[i] = row[am];
    stats[i * 3] = row[am];
    stats[i * 3 + 1] = l;
    stats[i * 3 + 2] = row[am];
    tot[i / BR] += row[am] + l;
  }
  expect_near(o, "out", B::read(to), out, 1e-5);
  expect_near(o, "stats", B::read(ts), stats, 1e-5);
  expect_near(o, "tot", B::read(tt), tot, 1e-5);
  // d where both rows exist (the rest stays poisoned).
  std::vector<float> dgot;
  std::vector<double> dwant;
  const auto dall = B::read(td);
  for (int i = 0; i < m; ++i)
    for (int j = (i / BR) * BR; j < m && j < (i / BR + 1) * BR; ++j) {
      dgot.push_back(dall[int64_t(i) * BR + j % BR]);
      dwant.push_back(mx[i] - mx[j]);
    }
  expect_near(o, "d", dgot, dwant, 1e-6);
  return o;
}

// The element-wise, reduction, atomic and dot cases at one set of ragged sizes: f(name, outcome).
template <class B, class F>
void run_ops(uint64_t seed, F&& f) {
  f("masked_add 1000", run_masked_add<B>(1000, seed));
  f("masked_add 1", run_masked_add<B>(1, seed + 1));
  f("outer_where 37x70", run_outer_where<B>(37, 70, seed + 2));
  f("row_stats 9x50", run_row_stats<B>(9, 50, seed + 3));
  f("tile_sums 35x77", run_tile_sums<B>(35, 77, seed + 4));
  f("matmul_f16 70x90x45", run_matmul_f16<B>(70, 90, 45, seed + 5));
  f("histogram 3001", run_histogram<B>(3001, seed + 6));
  f("shift_cols 33x100", run_shift_cols<B>(33, 100, seed + 7));
  f("math_cast 777", run_math_cast<B>(777, seed + 8));
  // Row reductions carried through a loop and read every way, on 1, 2 and 4 waves (rows within
  // one wave on every NVIDIA count and on AMD's 1 and 2).
  f("row_online 77x100 64-row w1", run_row_online<64, 1, B>(77, 100, seed + 52));
  f("row_online 77x100 64-row w2", run_row_online<64, 2, B>(77, 100, seed + 53));
  f("row_online 64x33 32-row w4", run_row_online<32, 4, B>(64, 33, seed + 54));
  f("row_online 5x1 32-row w4", run_row_online<32, 4, B>(5, 1, seed + 55));
  // dot's tile shapes: M x K x N tiles on W waves, b as it is and transposed, ragged inside.
  f("dot 128x64x64 w8", run_dot_tile<128, 64, 64, 8, false, B>(120, 61, 59, seed + 9));
  f("dot 128x64x64 w8 trans", run_dot_tile<128, 64, 64, 8, true, B>(127, 50, 64, seed + 10));
  f("dot 64x64x64 w4", run_dot_tile<64, 64, 64, 4, false, B>(64, 64, 57, seed + 11));
  f("dot 64x64x64 w4 trans", run_dot_tile<64, 64, 64, 4, true, B>(33, 64, 64, seed + 12));
  f("dot 64x128x64 w4 trans", run_dot_tile<64, 128, 64, 4, true, B>(64, 47, 100, seed + 13));
  f("dot 64x64x128 w4", run_dot_tile<64, 64, 128, 4, false, B>(50, 128, 64, seed + 14));
  f("dot 128x64x128 w8", run_dot_tile<128, 64, 128, 8, false, B>(128, 99, 64, seed + 15));
  f("dot 32x32x32 w4", run_dot_tile<32, 32, 32, 4, false, B>(31, 29, 32, seed + 16));
  // dot(trans(x), b): a transposed a, in the shapes wgmma takes from registers and one it does not.
  f("dot trans(a) 64x64x64 w4", run_dot_tile_at<64, 64, 64, 4, B>(64, 61, 50, seed + 40));
  f("dot trans(a) 128x64x64 w8", run_dot_tile_at<128, 64, 64, 8, B>(119, 64, 64, seed + 41));
  f("dot trans(a) 64x128x64 w4", run_dot_tile_at<64, 128, 64, 4, B>(57, 64, 128, seed + 42));
  f("dot trans(a) 64x64x128 w4", run_dot_tile_at<64, 64, 128, 4, B>(64, 100, 33, seed + 43));
  f("dot trans(a) 32x32x32 w4", run_dot_tile_at<32, 32, 32, 4, B>(30, 32, 17, seed + 44));
  f("dot chain 128x64 w8", run_dot_chain<128, 64, 64, 8, B>(128, 150, seed + 17));
  f("dot chain 64x128 w4", run_dot_chain<64, 128, 64, 4, B>(61, 190, seed + 18));
}

// The block-pointer ring and accumulator cases at one set of ragged sizes: f(name, outcome).
template <class B, class F>
void run_rings(uint64_t seed, F&& f) {
  f("ring_reuse 64x64 lda 72", run_ring_reuse<64, B>(72, 0, seed + 19));
  f("ring_reuse 64x128 lda 72", run_ring_reuse<128, B>(72, 0, seed + 20));
  f("ring_reuse 64x128 lda 66 col 1", run_ring_reuse<128, B>(66, 1, seed + 21));
  f("ring_reuse 64x128 lda 72 col 3", run_ring_reuse<128, B>(72, 3, seed + 31));
  // accumulator: both operands in rings (wgmma on sm_90a; row strides that take the rings'
  // 16-byte copies, then ones that do not), a mixed pair (BK 32: mma.sync with b's ring), 8 waves,
  // and no rings (every dot through the layout's order).
  f("acc_dot 128x128x64 w4 s2 16B", run_acc_dot<128, 128, 64, 4, 2, B>(200, 256, 136, seed + 26));
  f("acc_dot 128x128x64 w4 s2", run_acc_dot<128, 128, 64, 4, 2, B>(200, 250, 150, seed + 22));
  f("acc_dot 64x128x32 w4 s3", run_acc_dot<64, 128, 32, 4, 3, B>(130, 129, 95, seed + 23));
  f("acc_dot 128x256x64 w8 s2", run_acc_dot<128, 256, 64, 8, 2, B>(129, 300, 200, seed + 24));
  f("acc_dot 128x128x64 w4 s0", run_acc_dot<128, 128, 64, 4, 0, B>(150, 140, 70, seed + 25));
  // The same loop as a for_range: 3 slots (each step's wgmma in flight while the next step's
  // tiles are issued), 2 (no prefetch then), 8 waves, a mixed pair, no rings; and the reloads
  // (a slot a group in flight reads, refilled only once it is done).
  f("acc_dot range 128x128x64 w4 s3",
    run_acc_dot<128, 128, 64, 4, 3, B, true>(200, 250, 330, seed + 33));
  f("acc_dot range 128x128x64 w4 s2",
    run_acc_dot<128, 128, 64, 4, 2, B, true>(129, 256, 150, seed + 34));
  f("acc_dot range 128x256x64 w8 s3",
    run_acc_dot<128, 256, 64, 8, 3, B, true>(140, 300, 200, seed + 35));
  f("acc_dot range 64x128x32 w4 s3",
    run_acc_dot<64, 128, 32, 4, 3, B, true>(70, 129, 95, seed + 36));
  f("acc_dot range 128x128x64 w4 s0",
    run_acc_dot<128, 128, 64, 4, 0, B, true>(90, 140, 70, seed + 37));
  f("acc_dot range reload 128x128x64 w4 s2",
    run_acc_dot<128, 128, 64, 4, 2, B, true, true>(130, 200, 260, seed + 38));
  f("acc_dot range reload 128x128x64 w4 s3",
    run_acc_dot<128, 128, 64, 4, 3, B, true, true>(128, 128, 192, seed + 39));
  // for_range over tile streams: the TMA pipeline (3 and 2 slots, 4 and 8 waves; rows of the last
  // programs' a tiles past M take the rings), the pinned tiles read as blocks and into a zeros()
  // accumulator, one stream beside a ring loaded in the body; then where the pipeline does not
  // apply: rows of a not 16-byte multiples (K % 8), mma.sync's tile shapes, no rings.
  f("acc_stream 128x128x64 w4 s3",
    run_acc_stream<128, 128, 64, 4, 3, 0, B>(200, 256, 328, seed + 59));
  f("acc_stream 128x128x64 w4 s2",
    run_acc_stream<128, 128, 64, 4, 2, 0, B>(129, 248, 136, seed + 60));
  f("acc_stream 128x256x64 w8 s3",
    run_acc_stream<128, 256, 64, 8, 3, 0, B>(140, 304, 200, seed + 61));
  f("acc_stream 256x128x64 w8 s3",
    run_acc_stream<256, 128, 64, 8, 3, 0, B>(300, 136, 256, seed + 62));
  f("acc_stream get 128x128x64 w4 s3",
    run_acc_stream<128, 128, 64, 4, 3, 1, B>(130, 200, 264, seed + 63));
  f("acc_stream zeros 128x128x64 w4 s3",
    run_acc_stream<128, 128, 64, 4, 3, 2, B>(128, 136, 192, seed + 64));
  f("acc_stream one 128x128x64 w4 s3",
    run_acc_stream<128, 128, 64, 4, 3, 3, B>(150, 256, 200, seed + 65));
  f("acc_stream 128x128x64 w4 s3 K 70",
    run_acc_stream<128, 128, 64, 4, 3, 0, B>(128, 128, 70, seed + 66));
  f("acc_stream 64x128x32 w4 s3", run_acc_stream<64, 128, 32, 4, 3, 0, B>(70, 129, 95, seed + 67));
  f("acc_stream 128x128x64 w4 s0",
    run_acc_stream<128, 128, 64, 4, 0, 0, B>(90, 140, 70, seed + 68));
  // q from registers, k and v from rings (wgmma reads their slots on sm_90a): attention's tiles at
  // D = 64 and 128, 4 waves with 3 stages, and no rings.
  f("ring_chain 128x64x64 w8 s2", run_ring_chain<128, 64, 64, 8, 2, B>(100, 333, seed + 27));
  f("ring_chain 64x128x64 w4 s2", run_ring_chain<64, 128, 64, 4, 2, B>(64, 150, seed + 28));
  f("ring_chain 64x64x64 w4 s3", run_ring_chain<64, 64, 64, 4, 3, B>(61, 190, seed + 29));
  f("ring_chain 128x64x64 w8 s0", run_ring_chain<128, 64, 64, 8, 0, B>(77, 100, seed + 30));
  f("ring_chain_acc 128x64x64 w8 s2",
    run_ring_chain_acc<128, 64, 64, 8, 2, B>(100, 333, seed + 45));
  f("ring_chain_acc 128x64x64 w8 s3",
    run_ring_chain_acc<128, 64, 64, 8, 3, B>(128, 190, seed + 46));
  f("ring_chain_acc 64x64x64 w4 s2", run_ring_chain_acc<64, 64, 64, 4, 2, B>(61, 150, seed + 47));
  // k and v as wgmma A tiles (64 columns, 4 waves) and B tiles (128 columns) in the format of
  // neither, their first copies in the format their shape suggests (the rings' first dots ask for
  // another), then again: started from the first launch's format hints.
  f("ring_chain_acc 64x64x64 w4 s2 again",
    run_ring_chain_acc<64, 64, 64, 4, 2, B>(64, 201, seed + 56));
  f("ring_chain_acc 64x128x64 w4 s2", run_ring_chain_acc<64, 128, 64, 4, 2, B>(64, 201, seed + 57));
  f("ring_chain_acc 64x128x64 w4 s2 again",
    run_ring_chain_acc<64, 128, 64, 4, 2, B>(50, 130, seed + 58));
  f("ring_chain_acc 128x64x64 w8 s0", run_ring_chain_acc<128, 64, 64, 8, 0, B>(77, 100, seed + 48));
  // k and v as tile streams: the TMA pipeline (keys a multiple of 64; the accumulator carried, and
  // a struct holding it), ragged keys (through the rings), and 64 x 64 tiles on 4 waves (wgmma A
  // tiles, streamed in the A format: q k^T reads them into registers).
  f("ring_chain_acc stream 128x64x64 w8 s2",
    run_ring_chain_acc<128, 64, 64, 8, 2, B, 1>(100, 256, seed + 69));
  f("ring_chain_acc stream struct 128x64x64 w8 s2",
    run_ring_chain_acc<128, 64, 64, 8, 2, B, 2>(128, 192, seed + 70));
  f("ring_chain_acc stream struct 128x64x64 w8 s3",
    run_ring_chain_acc<128, 64, 64, 8, 3, B, 2>(90, 190, seed + 71));
  f("ring_chain_acc stream 64x64x64 w4 s2",
    run_ring_chain_acc<64, 64, 64, 4, 2, B, 1>(64, 128, seed + 72));
  // q a held stream besides k's and v's (its tile loaded once by the loop): the TMA pipeline,
  // ragged keys (through the rings), and 4 waves.
  f("ring_chain_acc held 128x64x64 w8 s2",
    run_ring_chain_acc<128, 64, 64, 8, 2, B, 3>(100, 256, seed + 87));
  f("ring_chain_acc held 128x64x64 w8 s2 ragged",
    run_ring_chain_acc<128, 64, 64, 8, 2, B, 3>(128, 150, seed + 88));
  f("ring_chain_acc held 64x64x64 w4 s3",
    run_ring_chain_acc<64, 64, 64, 4, 3, B, 3>(61, 192, seed + 89));
  // Four streams (the halves of D = 128), carrying a struct of two accumulators: the TMA pipeline,
  // ragged keys (through the rings), three slots, and no rings.
  f("ring_chain_halves 128x128x64 w8 s2",
    run_ring_chain_halves<128, 128, 64, 8, 2, B>(100, 256, seed + 73));
  f("ring_chain_halves 128x128x64 w8 s2 ragged",
    run_ring_chain_halves<128, 128, 64, 8, 2, B>(128, 150, seed + 74));
  f("ring_chain_halves 128x128x64 w8 s3",
    run_ring_chain_halves<128, 128, 64, 8, 3, B>(77, 320, seed + 75));
  f("ring_chain_halves 128x128x64 w8 s0",
    run_ring_chain_halves<128, 128, 64, 8, 0, B>(61, 130, seed + 76));
  // ... and six, q's halves held streams too (their tiles by cp.async into rings of one slot: the
  // four tensor maps are k's and v's).
  f("ring_chain_halves held 128x128x64 w8 s2",
    run_ring_chain_halves<128, 128, 64, 8, 2, B, true>(100, 256, seed + 90));
  f("ring_chain_halves held 128x128x64 w8 s2 ragged",
    run_ring_chain_halves<128, 128, 64, 8, 2, B, true>(128, 150, seed + 91));
  f("ring_chain_halves held 128x128x64 w8 s3",
    run_ring_chain_halves<128, 128, 64, 8, 3, B, true>(77, 320, seed + 93));
  f("ring_chain_halves held 128x128x64 w8 s0",
    run_ring_chain_halves<128, 128, 64, 8, 0, B, true>(61, 130, seed + 92));
  // ... with k's and v's rings capped below the stages: 2 slots of 3 (ragged keys), and 1 slot,
  // the tiles then loaded in the step that uses them (the interpreter notes it: stream-slots).
  f("ring_chain_halves held 128x128x64 w8 s3 kv2",
    run_ring_chain_halves<128, 128, 64, 8, 3, B, true, 2>(90, 330, seed + 94));
  f("ring_chain_halves held 128x128x64 w8 s3 kv1",
    run_ring_chain_halves<128, 128, 64, 8, 3, B, true, 1>(77, 256, seed + 95));
  f("ring_chain_ahead 128x128x64 w8 s2",
    run_ring_chain_ahead<128, 128, 64, 8, 2, B>(128, 256, seed + 77));
  f("ring_chain_ahead 128x128x64 w8 s2 ragged",
    run_ring_chain_ahead<128, 128, 64, 8, 2, B>(100, 150, seed + 78));
  f("ring_chain_ahead 128x128x64 w8 s3",
    run_ring_chain_ahead<128, 128, 64, 8, 3, B>(77, 320, seed + 79));
  f("ring_chain_ahead 128x128x64 w8 s0",
    run_ring_chain_ahead<128, 128, 64, 8, 0, B>(61, 130, seed + 80));
  // 128 keys a step on 8 waves: each k and v tile is a wgmma A tile by its shape, read as wgmma's B
  // by both dots. The first launch streams them through the rings (their first dots copy them
  // again in fmt_wm); the second starts from its format hints, so their rings' tensor maps are
  // fmt_wm's and the loop runs the TMA pipeline. Not on AMD, whose block-pointer loads are masked
  // loads: these steps' dots stage more than a workgroup's 64 KiB of LDS there.
#if !defined(BV_NVIDIA) || BV_NVIDIA
  f("ring_chain_halves 128x128x128 w8 s2",
    run_ring_chain_halves<128, 128, 128, 8, 2, B>(128, 384, seed + 81));
  f("ring_chain_halves 128x128x128 w8 s2 again",
    run_ring_chain_halves<128, 128, 128, 8, 2, B>(100, 512, seed + 82));
  f("ring_chain_ahead 128x128x128 w8 s2",
    run_ring_chain_ahead<128, 128, 128, 8, 2, B>(128, 256, seed + 83));
  f("ring_chain_ahead 128x128x128 w8 s2 again",
    run_ring_chain_ahead<128, 128, 128, 8, 2, B>(90, 384, seed + 84));
  f("ring_chain_acc stream 128x64x128 w8 s2",
    run_ring_chain_acc<128, 64, 128, 8, 2, B, 1>(128, 256, seed + 85));
  f("ring_chain_acc stream 128x64x128 w8 s2 again",
    run_ring_chain_acc<128, 64, 128, 8, 2, B, 1>(77, 384, seed + 86));
#endif
  // A ring's first tile in two roles, the first one alternating between programs; launched twice
  // (the second launch starts from the first one's format hints), and without rings.
  f("ring_roles 64x64 w4 s2", run_ring_roles<2, B>(64 * 13 - 19, seed + 49));
  f("ring_roles 64x64 w4 s2 again", run_ring_roles<2, B>(64 * 16, seed + 50));
  f("ring_roles 64x64 w4 s0", run_ring_roles<0, B>(64 * 3 - 5, seed + 51));
  f("ring_stop 1277x1912, k 128 of 200", run_ring_stop<B>(1277, 1912, 200, 128, seed + 32));
}

// Every case (the interpreter's tests run the two parts from two files, which compile in
// parallel).
template <class B, class F>
void run_all(uint64_t seed, F&& f) {
  run_ops<B>(seed, f);
  run_rings<B>(seed, f);
}

}  // namespace conformance
