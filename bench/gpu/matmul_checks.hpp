// What the matmul development tools (matmul_dev.cu, matmul_f32_dev.cu) check: a product against a
// double-precision one, every element, and block-pointer misuse that must stay correct: a view kept
// across more loads than its ring has slots (copied again when used), a copy of a block pointer
// loaded after the original moved on, a loop-invariant view (b) used every step, odd column offsets
// (no aligned pairs or chunks), a view materialised by an elementwise op. out = sum of the A tiles
// used @ B, checked against a double-precision sum.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "conformance/cases.hpp"

namespace bench {

template <class T>
std::vector<T> host_random(size_t n, uint64_t seed) {
  std::vector<T> h(n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (auto& x : h) x = T(d(rng));
  return h;
}

// Every element of c = a @ b (M x N, run(a, b, c) on fresh random M x K and K x N inputs, c
// poisoned first) against the double product; the worst |err| / (|ref| + 1).
template <class T, class O, class F>
double matmul_check(int M, int N, int K, uint64_t seed, F&& run) {
  using namespace bv;
  auto ha = host_random<T>(size_t(M) * K, seed), hb = host_random<T>(size_t(K) * N, seed + 1);
  auto a = device_tensor<T>::from_host("a", {M, K}, ha.data());
  auto b = device_tensor<T>::from_host("b", {K, N}, hb.data());
  auto c = device_tensor<O>::empty("c", {M, N});
  c.fill_bytes(0xff);
  run(a, b, c);
  gpu::synchronize();
  std::vector<O> hc(size_t(M) * N);
  c.copy_to_host(hc.data());
  std::vector<double> ref(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double x = float(ha[size_t(i) * K + k]);
      for (int j = 0; j < N; ++j) ref[size_t(i) * N + j] += x * float(hb[size_t(k) * N + j]);
    }
  double worst = 0;
  for (size_t i = 0; i < hc.size(); ++i) {
    const double v = float(hc[i]);
    const double e = std::isfinite(v) ? std::abs(v - ref[i]) / (std::abs(ref[i]) + 1.0) : 1e30;
    worst = std::max(worst, e);
  }
  return worst;
}

// The 16-bit matmul tools' ragged shapes ({M, N, K}), each with f16 and f32 outputs: the worst
// matmul_check over them (every element against the double product).
template <class F>
double worst_f16_checks(
    F&& run, std::initializer_list<std::array<int, 3>> sizes = {
                 {128, 128, 64}, {256, 256, 256}, {129, 200, 70}, {300, 257, 1000}, {64, 96, 40}}) {
  double worst = 0;
  for (auto& s : sizes) {
    worst = std::max(worst, matmul_check<bv::half, bv::half>(s[0], s[1], s[2], 7 + s[0], run));
    worst = std::max(worst, matmul_check<bv::half, float>(s[0], s[1], s[2], 9 + s[1], run));
  }
  return worst;
}

// time_f16_8192's operands: made at the first call in the process (their host generation takes
// seconds) and kept to its end, shared by every variant and result type.
struct f16_8192_operands {
  std::vector<bv::half> ha = host_random<bv::half>(size_t(8192) * 8192, 4),
                        hb = host_random<bv::half>(size_t(8192) * 8192, 5);
  bv::device_tensor<bv::half> a =
      bv::device_tensor<bv::half>::from_host("a", {8192, 8192}, ha.data());
  bv::device_tensor<bv::half> b =
      bv::device_tensor<bv::half>::from_host("b", {8192, 8192}, hb.data());
};
inline f16_8192_operands& f16_8192() {
  static auto* big = new f16_8192_operands;
  return *big;
}
// The 8192^2 result of element type O, one per process and type.
template <class O>
bv::device_tensor<O>& f16_8192_out() {
  static auto* out = new bv::device_tensor<O>(bv::device_tensor<O>::empty("c", {8192, 8192}));
  return *out;
}

// The f16 product at 8192^3 that the matmul development tools time: run(a, b, c) on the
// process's operands, c poisoned first (NaN: an element left unwritten fails the spot check), the
// median of 10 launches after 3, then 32 x 17 entries of c against double-precision dot products.
// Prints one line after the variant's ragged checks (ok, worst) and returns the time in ms. O: c's
// element type (f16, or f32 for an f32 result).
template <class O = bv::half, class F>
double time_f16_8192(const char* name, bool ok, double worst, F&& run) {
  using namespace bv;
  const int M = 8192;
  f16_8192_operands* big = &f16_8192();
  auto &a = big->a, &b = big->b;
  auto& c = f16_8192_out<O>();
  c.fill_bytes(0xff);
  const double t = median_ms([&] { run(a, b, c); }, 10, 3);
  std::vector<O> hc(size_t(M) * M);
  c.copy_to_host(hc.data());
  const double err = matmul_spot_err(big->ha, big->hb, hc, M, 32, 17);
  std::printf("%-34s check %s (worst %.1e)  8192^3 %.4f ms  %.1f TFLOP/s  spot err %.1e\n", name,
              ok ? "ok" : "FAILED", worst, t, 2.0 * M * M * double(M) / (t * 1e-3) / 1e12, err);
  return t;
}

// Runs the conformance suite's ring_reuse kernel (tests/lang/conformance/cases.hpp) on T at column
// offsets 0 and 1 with rings of 3 slots and prints one line each; returns whether both stayed
// within tol of the double-precision result.
template <class T, int LD>
bool misuse_check(const char* what, double tol) {
  using namespace bv;
  const int n = 6 * 64 - 5;
  bool ok = true;
  for (int col0 : {0, 1}) {
    auto ha = host_random<T>(size_t(n) * LD, 11 + col0), hb = host_random<T>(64 * 64, 12);
    auto a = device_tensor<T>::from_host("a", {n, LD}, ha.data());
    auto b = device_tensor<T>::from_host("b", {64, 64}, hb.data());
    auto out = device_tensor<float>::empty("out", {64, 64});
    out.fill_bytes(0xff);
    const int lds = 2 * block_ptr_lds_bytes<const T, 64, 64, 4>(3);
    launch<conformance::ring_reuse<T, 64, 4>>(gpu_tuning<3>{lds}, grid(1), a, b, out, n, LD, col0);
    gpu::synchronize();
    std::vector<float> ho(64 * 64);
    out.copy_to_host(ho.data());
    const auto ref = conformance::ring_reuse_reference(ha, n, LD, col0, hb, 64);
    double worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      const double v = ho[i];
      const double e = std::isfinite(v) ? std::abs(v - ref[i]) / (std::abs(ref[i]) + 1.0) : 1e30;
      worst = std::max(worst, e);
    }
    std::printf("%s block-pointer misuse check (column offset %d): %s (worst %.1e)\n", what, col0,
                worst < tol ? "ok" : "FAILED", worst);
    ok = ok && worst < tol;
  }
  return ok;
}

}  // namespace bench
