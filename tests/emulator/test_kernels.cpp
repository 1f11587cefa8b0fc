// The library's add, softmax and matmul kernels through the GPU backend's AMD lowering, run by
// the emulator on fresh random ragged inputs with poisoned outputs, against double-precision
// references, with no emulator diagnostic. Small enough to build on its own: the mutation tests
// (CMakeLists.txt) build it with a bug put into the emulator or the lowering.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace {
// The configurations the kernels declare for the AMD targets (their launch_configs tables): add
// 2048 elements and 4 waves a program; softmax by row length 256/2, 1024/4, 4096/8, 8192/16
// waves, longer rows the looped kernel over 4096 with 8; matmul 64x64x32 tiles, GROUP_M 8,
// 4 waves (the MFMA path).
template <class T>
bv::launch_result add(const bv::tensor<T>& x, const bv::tensor<T>& y, bv::tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return bv::launch<bv::kernels::add_kernel<T, 2048, 4>>(bv::grid(bv::cdiv(n, 2048)), x, y, out, n);
}
template <class T, int BLOCK, int W>
bv::launch_result softmax_one_pass(const bv::tensor<T>& x, bv::tensor<T>& out, int rows, int cols) {
  return bv::launch<bv::kernels::softmax_kernel<T, BLOCK, W>>(bv::grid(rows), x, out, cols, cols,
                                                              cols);
}
template <class T>
bv::launch_result softmax(const bv::tensor<T>& x, bv::tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  if (cols <= 256) return softmax_one_pass<T, 256, 2>(x, out, rows, cols);
  if (cols <= 1024) return softmax_one_pass<T, 1024, 4>(x, out, rows, cols);
  if (cols <= 4096) return softmax_one_pass<T, 4096, 8>(x, out, rows, cols);
  if (cols <= 8192) return softmax_one_pass<T, 8192, 16>(x, out, rows, cols);
  return bv::launch<bv::kernels::softmax_looped_kernel<T, 4096, 8>>(bv::grid(rows), x, out, cols,
                                                                    cols, cols);
}
template <class T, class O>
bv::launch_result matmul(const bv::tensor<T>& a, const bv::tensor<T>& b, bv::tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  return bv::launch<bv::kernels::matmul_kernel<T, O, 64, 64, 32, 8, 4>>(
      bv::grid(bv::cdiv(M, 64) * bv::cdiv(N, 64)), a, b, c, M, N, K, K, 1, N, 1, N, 1);
}

template <class T>
std::vector<double> as_double(const bv::tensor<T>& t) {
  std::vector<double> v;
  for (const T& x : t.values()) v.push_back(static_cast<double>(static_cast<float>(x)));
  return v;
}
}  // namespace
TEST_CASE("emulator: add, f32, ragged sizes, poisoned output") {
  std::mt19937 rng(7);
  for (int n : {1, 63, 64, 2047, 2048, 2049, 5000, 12345}) {
    CAPTURE(n);
    auto x = bv::tensor<float>::randn("x", {n}, rng());
    auto y = bv::tensor<float>::randn("y", {n}, rng());
    auto out = bv::tensor<float>::empty("out", {n});
    out.fill_bytes(0xff);
    const auto r = add(x, y, out);
    CHECK(r.ok());
    CHECK(r.programs == bv::cdiv(n, 2048));
    const auto xv = x.values(), yv = y.values(), ov = out.values();
    int bad = 0;
    for (int i = 0; i < n; ++i)
      bad += !(std::fabs(static_cast<double>(ov[i]) -
                         (static_cast<double>(xv[i]) + static_cast<double>(yv[i]))) <= 1e-6);
    CHECK(bad == 0);
  }
}

TEST_CASE("emulator: softmax, f32, one-pass and looped configurations, ragged rows") {
  std::mt19937 rng(8);
  // Row lengths reaching every row of softmax_configs: 256 (2 waves), 1024 (4), 4096 (8), 8192
  // (16) and the looped kernel past 8192.
  for (int cols : {1, 37, 256, 700, 1024, 3001, 8192, 9000}) {
    const int rows = cols > 4096 ? 2 : 5;
    CAPTURE(cols);
    auto x = bv::tensor<float>::randn("x", {rows, cols}, rng(), 3.0);
    auto out = bv::tensor<float>::empty("out", {rows, cols});
    out.fill_bytes(0xff);
    CHECK(softmax(x, out).ok());
    const auto xv = as_double(x), ov = as_double(out);
    double worst = 0;
    for (int r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < cols; ++c) m = std::fmax(m, xv[r * cols + c]);
      for (int c = 0; c < cols; ++c) s += std::exp(xv[r * cols + c] - m);
      for (int c = 0; c < cols; ++c) {
        const double ref = std::exp(xv[r * cols + c] - m) / s;
        const double err = std::fabs(ov[r * cols + c] - ref);
        worst = std::isnan(err) ? INFINITY : std::fmax(worst, err);
      }
    }
    CHECK(worst < 1e-6);
  }
}

// Inputs drawn in T, so that the reference sees the values the kernel multiplies.
template <class T>
void check_matmul(int M, int N, int K, uint64_t seed, double tol) {
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  auto a = bv::tensor<T>::randn("a", {M, K}, seed);
  auto b = bv::tensor<T>::randn("b", {K, N}, seed + 1);
  auto c = bv::tensor<float>::empty("c", {M, N});
  c.fill_bytes(0xff);
  CHECK(matmul(a, b, c).ok());
  const auto av = as_double(a), bv_ = as_double(b), cv = as_double(c);
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += av[i * K + k] * bv_[k * N + j];
      const double err = std::fabs(cv[i * N + j] - ref) / (1 + std::fabs(ref));
      worst = std::isnan(err) ? INFINITY : std::fmax(worst, err);
    }
  CHECK(worst < tol);
}

TEST_CASE("emulator: matmul through MFMA (f16, bf16, f32), ragged M, N, K") {
  std::mt19937 rng(9);
  const int shapes[][3] = {{64, 64, 32}, {100, 77, 45}, {1, 130, 33}, {129, 5, 96}, {70, 70, 8}};
  for (const auto& s : shapes) {
    check_matmul<bv::half>(s[0], s[1], s[2], rng(), 1e-4);
    check_matmul<bv::bfloat16>(s[0], s[1], s[2], rng(), 1e-4);
    check_matmul<float>(s[0], s[1], s[2], rng(), 1e-4);
  }
}
