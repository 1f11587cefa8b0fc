// dot through the AMD lowering with K staged in LDS a slice at a time (bv/dot_staging.hpp: 128
// bytes of a row, 64 16-bit k's or 32 f32): every operand form (a @ b, a @ x^T, x^T @ b,
// x^T @ y^T, each staged straight from the block it views), the MFMA path and the vector-ALU one,
// slices that are whole register tiles and slices that only a wave's span fills (8 waves: a tile of
// 128 rows), B images with their rows permuted against bank conflicts (b_swizzle) and without,
// against a double reference on ragged M, N and K with the output poisoned. Each case's
// LDS is the two slice images the tile's shape gives, written out here, so a dot that stopped
// slicing (or sliced where it should not) fails on its bytes even when its values are right.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bv/bv.hpp"

namespace {
using namespace bv;

// c [M, N] (f32) = 0.5 + a @ b for a [M, K] and b [K, N] in memory; Form picks how the kernel
// hands them to dot: 0 a @ b, 1 a @ trans(x) with x = b^T loaded [BN, BK], 2 trans(x) @ b with
// x = a^T loaded [BK, BM], 3 trans(x) @ trans(y).
template <class T, int BM, int BK, int BN, int W, int Form>
BV_KERNEL void dot_form(program<W> p, ptr<const T> a, ptr<const T> b, ptr<float> c, int M, int N,
                        int K) {
  auto rm = p.id(0) * BM + arange<BM>(p);
  auto rn = p.id(1) * BN + arange<BN>(p);
  auto rk = arange<BK>(p);
  auto acc = full<float, BM, BN>(p, 0.5f);
  if constexpr (Form == 0 || Form == 1) {
    auto ta = load(a + rm.col() * K + rk.row(), (rm < M).col() & (rk < K).row(), 0.0f);
    if constexpr (Form == 0) {
      auto tb = load(b + rk.col() * N + rn.row(), (rk < K).col() & (rn < N).row(), 0.0f);
      acc = dot(ta, tb, acc);
    } else {
      auto x = load(b + rn.col() + rk.row() * N, (rn < N).col() & (rk < K).row(), 0.0f);
      acc = dot(ta, trans(x), acc);
    }
  } else {
    auto x = load(a + rk.col() + rm.row() * K, (rk < K).col() & (rm < M).row(), 0.0f);
    if constexpr (Form == 2) {
      auto tb = load(b + rk.col() * N + rn.row(), (rk < K).col() & (rn < N).row(), 0.0f);
      acc = dot(trans(x), tb, acc);
    } else {
      auto y = load(b + rn.col() + rk.row() * N, (rn < N).col() & (rk < K).row(), 0.0f);
      acc = dot(trans(x), trans(y), acc);
    }
  }
  store(c + rm.col() * N + rn.row(), acc, (rm < M).col() & (rn < N).row());
}

// The same product with the operands as tiles of a for_range over block pointers along K (the
// AMD loop's streams: wide_map where it fits the tile and gains on the block layout, staged into
// the dot's images from those registers): Form 4 a @ b, 5 a @ trans(x) with x the tile of bt = b^T
// [N, K], 6 trans(x) @ b with x the tile of at = a^T [K, M], 7 trans(x) @ trans(y), and 8 a @ b
// with b read as a block (.to(): the tile's get(), a load of its own) rather than staged from its
// registers.
template <class T, int BM, int BK, int BN, int W, int Form>
BV_KERNEL void dot_stream_form(program<W> p, ptr<const T> a, ptr<const T> at, ptr<const T> b,
                               ptr<const T> bt, ptr<float> c, int M, int N, int K) {
  const int m0 = p.id(0) * BM, n0 = p.id(1) * BN;
  auto rm = m0 + arange<BM>(p);
  auto rn = n0 + arange<BN>(p);
  const auto a_bp = make_block_ptr<BM, BK>(p, a, {M, K}, {K, 1}, {m0, 0});
  const auto at_bp = make_block_ptr<BK, BM>(p, at, {K, M}, {M, 1}, {0, m0});
  const auto b_bp = make_block_ptr<BK, BN>(p, b, {K, N}, {N, 1}, {0, n0});
  const auto bt_bp = make_block_ptr<BN, BK>(p, bt, {N, K}, {K, 1}, {n0, 0});
  const auto body = [&](int, const auto& x, const auto& y, auto acc) {
    if constexpr (Form == 4)
      return dot(x, y, acc);
    else if constexpr (Form == 5)
      return dot(x, trans(y), acc);
    else if constexpr (Form == 6)
      return dot(trans(x), y, acc);
    else if constexpr (Form == 7)
      return dot(trans(x), trans(y), acc);
    else
      return dot(x, y.to(dtype<T>{}), acc);
  };
  const auto acc0 = full<float, BM, BN>(p, 0.5f);
  const auto loop = [&](const auto& first, const auto& second) {
    return for_range(p, 0, K, BK, acc0, first, second, body);
  };
  const auto xs = along(a_bp, {0, BK}, boundary_check(0, 1));
  const auto xts = along(at_bp, {BK, 0}, boundary_check(0, 1));
  const auto ys = along(b_bp, {BK, 0}, boundary_check(0, 1));
  const auto yts = along(bt_bp, {0, BK}, boundary_check(0, 1));
  decltype(acc0) acc = [&] {
    if constexpr (Form == 4 || Form == 8)
      return loop(xs, ys);
    else if constexpr (Form == 5)
      return loop(xs, yts);
    else if constexpr (Form == 6)
      return loop(xts, ys);
    else
      return loop(xts, yts);
  }();
  store(c + rm.col() * N + rn.row(), acc, (rm < M).col() & (rn < N).row());
}

template <class T>
std::vector<double> as_double(const tensor<T>& t) {
  std::vector<double> v;
  for (const T& x : t.values()) v.push_back(static_cast<double>(static_cast<float>(x)));
  return v;
}

// One tile shape in every form; ks: the k's a slice holds (BK where the dot does not slice).
template <class T, int BM, int BK, int BN, int W, int Form>
void check(int M, int N, int K, int ks, uint64_t seed) {
  CAPTURE(sizeof(T));
  CAPTURE(BM);
  CAPTURE(BK);
  CAPTURE(BN);
  CAPTURE(W);
  CAPTURE(Form);
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  auto a = tensor<T>::randn("a", {M, K}, seed);
  auto b = tensor<T>::randn("b", {K, N}, seed + 1);
  auto c = tensor<float>::empty("c", {M, N});
  c.fill_bytes(0xff);
  const auto run = [&] {
    if constexpr (Form < 4) {
      return launch<dot_form<T, BM, BK, BN, W, Form>>(grid(cdiv(M, BM), cdiv(N, BN)), a, b, c, M, N,
                                                      K);
    } else {
      const auto ah = a.values(), bh = b.values();
      std::vector<T> ath(ah.size()), bth(bh.size());
      for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k)
          ath[static_cast<size_t>(k) * M + i] = ah[static_cast<size_t>(i) * K + k];
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j)
          bth[static_cast<size_t>(j) * K + k] = bh[static_cast<size_t>(k) * N + j];
      auto at = tensor<T>::from_host("at", {K, M}, ath.data());
      auto bt = tensor<T>::from_host("bt", {N, K}, bth.data());
      return launch<dot_stream_form<T, BM, BK, BN, W, Form>>(grid(cdiv(M, BM), cdiv(N, BN)), a, at,
                                                             b, bt, c, M, N, K);
    }
  };
  const auto r = run();
  CHECK(r.ok());
  CHECK(r.diagnostics.empty());
  // Rows padded by one lane's MFMA read: 4 16-bit elements, 1 f32.
  const int64_t image = int64_t{ks + (sizeof(T) == 2 ? 4 : 1)} * static_cast<int64_t>(sizeof(T));
  CHECK(static_cast<int64_t>(emu::last_lds_bytes()) == (BM + BN) * image);
  const auto av = as_double(a), bv_ = as_double(b), cv = as_double(c);
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.5;
      for (int k = 0; k < K; ++k) ref += av[i * K + k] * bv_[k * N + j];
      const double err = std::fabs(cv[i * N + j] - ref) / (1 + std::fabs(ref));
      worst = std::isnan(err) ? INFINITY : std::fmax(worst, err);
    }
  CHECK(worst < 1e-4);
}

template <class T, int BM, int BK, int BN, int W>
void every_form(int M, int N, int K, int ks, std::mt19937& rng) {
  check<T, BM, BK, BN, W, 0>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 1>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 2>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 3>(M, N, K, ks, rng());
}
template <class T, int BM, int BK, int BN, int W>
void every_stream_form(int M, int N, int K, int ks, std::mt19937& rng) {
  check<T, BM, BK, BN, W, 4>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 5>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 6>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 7>(M, N, K, ks, rng());
  check<T, BM, BK, BN, W, 8>(M, N, K, ks, rng());
}
}  // namespace

TEST_CASE("emulator: dot with K staged in slices, every operand form, MFMA and vector ALUs") {
  setenv("BV_EMU_QUIET", "1", 0);
  emu::set_target(target::gfx942);
  std::mt19937 rng(21);
  // MFMA, 4 waves: two slices of 64 k's, K ragged in the second; k's tile along rows (64) and
  // along columns (16) both whole in a slice.
  every_form<half, 64, 128, 64, 4>(70, 61, 101, 64, rng);
  // MFMA, 8 waves: a tile of 128 rows, so a slice of 64 rows of a K x N operand is half of one
  // (each register's slice depends on its wave).
  every_form<half, 128, 128, 64, 8>(130, 64, 128, 64, rng);
  // bf16, four slices, K ending inside the third.
  every_form<bfloat16, 64, 256, 64, 4>(64, 40, 150, 64, rng);
  // f32 MFMA: slices of 32.
  every_form<float, 64, 64, 64, 4>(33, 64, 50, 32, rng);
  // The vector-ALU product (a wave's part 16x16), sliced as the MFMA one.
  every_form<half, 32, 128, 32, 4>(32, 20, 77, 64, rng);
  every_form<float, 32, 128, 16, 4>(40, 16, 128, 32, rng);
  // K no longer than a slice: staged whole.
  every_form<half, 64, 64, 64, 4>(50, 64, 64, 64, rng);
  // Operands with copies, which only their first copy stages: 16 rows on lanes that cover 32 (a
  // wave's own lanes wrap); on 16 waves 16 columns on 32 and 64 rows on 128 (whole waves are
  // copies).
  every_form<half, 16, 64, 16, 4>(21, 13, 50, 64, rng);
  every_form<float, 64, 32, 16, 16>(70, 9, 29, 32, rng);
  // MFMA on 16 waves: a column tile of 32, whose B image rows b_swizzle permutes in four groups
  // (f32) or two (16-bit).
  every_form<half, 128, 64, 128, 16>(100, 127, 64, 64, rng);
  every_form<float, 128, 32, 128, 16>(128, 70, 31, 32, rng);
}

TEST_CASE("emulator: dot of for_range's streamed tiles, every operand form, sliced and whole") {
  setenv("BV_EMU_QUIET", "1", 0);
  emu::set_target(target::gfx942);
  std::mt19937 rng(22);
  // Two slices of 64 k's a step, three steps, the last ragged; rows and columns ragged.
  every_stream_form<half, 64, 128, 64, 4>(70, 61, 301, 64, rng);
  // 8 waves: the matmul's 16-bit shape, tiles of 64 k's (one slice), 16-byte runs whole (K a
  // multiple of 8) and not (K odd: element by element).
  every_stream_form<half, 128, 64, 128, 8>(130, 200, 192, 64, rng);
  every_stream_form<bfloat16, 128, 64, 128, 8>(128, 128, 141, 64, rng);
  // f32: 4 elements a run, slices of 32; 64 x 64 tiles have no copies in the block layout and
  // stream as blocks.
  every_stream_form<float, 64, 64, 64, 4>(33, 64, 150, 32, rng);
  // The f32 matmul's tiles: a 32-row tile, which the block layout of 4 waves holds twice, takes
  // the wide map (b, and a^T), the 64 x 32 ones stay blocks.
  every_stream_form<float, 64, 32, 64, 4>(70, 61, 97, 32, rng);
  // Tiles too small for the wide map (16 rows on 32 lanes; 16 columns where a pass of the waves
  // covers 32): streamed as their blocks, alone and beside a wide one.
  every_stream_form<half, 16, 64, 16, 4>(21, 13, 130, 64, rng);
  every_stream_form<half, 64, 64, 16, 4>(64, 30, 100, 64, rng);
}
