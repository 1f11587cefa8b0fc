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
  const auto r =
      launch<dot_form<T, BM, BK, BN, W, Form>>(grid(cdiv(M, BM), cdiv(N, BN)), a, b, c, M, N, K);
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
