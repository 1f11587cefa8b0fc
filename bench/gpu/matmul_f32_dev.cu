// The f32 matmul (kernels/bv/kernels/matmul.hpp; dot on CUDA cores, gpu_backend/bv/gpu/dot.hpp's
// dot_simt) at several tile shapes: every element of ragged products against a double-precision
// host product (outputs poisoned with NaN first), then timings at 4096^3 and at the f32 products
// of a TinyLlama-1.1B decoder block with 1024 tokens (median of 10 after 3 warm-up launches, CUDA
// events), after block-pointer misuse checks. A development tool for choosing the f32 row of
// matmul_configs (-DBV_DEV_SWEEP2 / -DBV_DEV_SWEEP3: other tile lists); the figures that count come
// from `blockvec bench --backend gpu matmul`.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        bench/gpu/matmul_f32_dev.cu -o matmul_f32_dev
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/matmul.hpp"

using namespace bv;

namespace {
std::vector<float> host_random(size_t n, uint64_t seed) {
  std::vector<float> h(n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (auto& x : h) x = d(rng);
  return h;
}

// Every element of c (M x N) against the double product; the worst |err| / (|ref| + 1).
template <class F>
double check(int M, int N, int K, uint64_t seed, F&& run) {
  auto ha = host_random(size_t(M) * K, seed), hb = host_random(size_t(K) * N, seed + 1);
  auto a = device_tensor<float>::from_host("a", {M, K}, ha.data());
  auto b = device_tensor<float>::from_host("b", {K, N}, hb.data());
  auto c = device_tensor<float>::empty("c", {M, N});
  c.fill_bytes(0xff);
  run(a, b, c);
  gpu::synchronize();
  std::vector<float> hc(size_t(M) * N);
  c.copy_to_host(hc.data());
  std::vector<double> ref(size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double x = ha[size_t(i) * K + k];
      for (int j = 0; j < N; ++j) ref[size_t(i) * N + j] += x * hb[size_t(k) * N + j];
    }
  double worst = 0;
  for (size_t i = 0; i < hc.size(); ++i) {
    const double v = hc[i];
    const double e = std::isfinite(v) ? std::abs(v - ref[i]) / (std::abs(ref[i]) + 1.0) : 1e30;
    worst = std::max(worst, e);
  }
  return worst;
}

template <class F>
double time_at(int M, int N, int K, F&& run) {
  auto ha = host_random(size_t(M) * K, 4), hb = host_random(size_t(K) * N, 5);
  auto a = device_tensor<float>::from_host("a", {M, K}, ha.data());
  auto b = device_tensor<float>::from_host("b", {K, N}, hb.data());
  auto c = device_tensor<float>::empty("c", {M, N});
  return bench::median_ms([&] { run(a, b, c); }, 10, 3);
}

// Block-pointer misuse that must stay correct with f32 rings: a view kept across more loads than
// the ring has slots (copied again when used), a copy of a block pointer loaded after the original
// moved on, a loop-invariant view (b) used every step, a column offset of 1 (no 16-byte chunks),
// a view materialised by an elementwise op. out = sum of the A tiles used @ B.
template <int W>
BV_KERNEL void misuse_kernel(program<W> p, ptr<const float> a, ptr<const float> b, ptr<float> out,
                             int n, int col0) {
  auto bq = make_block_ptr<64, 64>(p, b, {64, 64}, {64, 1}, {0, 0});
  auto bp = make_block_ptr<64, 64>(p, a, {n, 65}, {68, 1}, {0, col0});
  auto tb = load(bq, boundary_check(0, 1));
  auto first = load(bp, boundary_check(0, 1));
  auto copy = bp;
  auto acc = zeros<float, 64, 64>(p);
  for (int i = 1; i < 6; ++i) {
    bp = advance(bp, {64, 0});
    acc = dot(load(bp, boundary_check(0, 1)), tb, acc);
  }
  acc = dot(first, tb, acc);                             // stale: copied again
  acc = dot(load(copy, boundary_check(0, 1)), tb, acc);  // tile 0 again, through a stale copy
  acc = dot(first * 1.0f, tb, acc);                      // materialised
  auto r = arange<64>(p);
  store(out + (r.col() * 64 + r.row()), acc);
}
int failures = 0;
void misuse_check() {
  const int n = 6 * 64 - 5;
  for (int col0 : {0, 1}) {
    auto ha = host_random(size_t(n) * 68, 11 + col0), hb = host_random(64 * 64, 12);
    auto a = device_tensor<float>::from_host("a", {n, 68}, ha.data());
    auto b = device_tensor<float>::from_host("b", {64, 64}, hb.data());
    auto out = device_tensor<float>::empty("out", {64, 64});
    out.fill_bytes(0xff);
    const int lds = 2 * block_ptr_lds_bytes<const float, 64, 64, 4>(3);
    launch<misuse_kernel<4>>(gpu_tuning<3>{lds}, grid(1), a, b, out, n, col0);
    gpu::synchronize();
    std::vector<float> ho(64 * 64);
    out.copy_to_host(ho.data());
    double worst = 0;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j) {
        double ref = 0;
        for (int k = 0; k < 64; ++k) {
          double asum = 0;
          for (int t : {1, 2, 3, 4, 5, 0, 0, 0}) {
            const int row = 64 * t + i, col = col0 + k;
            if (row < n && col < 65) asum += ha[size_t(row) * 68 + col];
          }
          ref += asum * hb[k * 64 + j];
        }
        const double v = ho[i * 64 + j];
        worst =
            std::max(worst, std::isfinite(v) ? std::abs(v - ref) / (std::abs(ref) + 1.0) : 1e30);
      }
    std::printf("f32 block-pointer misuse check (column offset %d): %s (worst %.1e)\n", col0,
                worst < 1e-4 ? "ok" : "FAILED", worst);
    failures += !(worst < 1e-4);
  }
}
// Tiles BM x BN x BK on W warps; S > 0: block-pointer rings of S slots (block_ptr.hpp), MP > 0:
// registers left for MP programs an SM.
template <int BM, int BN, int BK, int W, int S = 0, int MP = 0>
void variant() {
  auto run = [](const device_tensor<float>& a, const device_tensor<float>& b,
                device_tensor<float>& c) { bv::kernels::matmul<BM, BN, BK, 8, W, S, MP>(a, b, c); };
  const int sizes[][3] = {{64, 64, 32}, {129, 200, 70}, {300, 257, 1000}, {64, 96, 40}, {1, 33, 5}};
  double worst = 0;
  for (auto& s : sizes) worst = std::max(worst, check(s[0], s[1], s[2], 7 + s[0], run));
  const bool ok = worst < 1e-4;
  failures += !ok;
  std::printf("%3dx%3dx%2d w%-2d s%d mp%d check %s (worst %.1e)", BM, BN, BK, W, S, MP,
              ok ? "ok" : "FAILED", worst);
  const int shapes[][3] = {
      {4096, 4096, 4096}, {1024, 2048, 2048}, {1024, 5632, 2048}, {1024, 2048, 5632}};
  for (auto& s : shapes) {
    const double ms = time_at(s[0], s[1], s[2], run);
    std::printf("  %dx%dx%d %.3f ms %.1f TFLOP/s", s[0], s[1], s[2], ms,
                2.0 * s[0] * s[1] * s[2] / (ms * 1e9));
  }
  std::printf("\n");
  std::fflush(stdout);
}
}  // namespace

int main() {
  misuse_check();
#if defined(BV_DEV_SWEEP2)
  variant<64, 64, 32, 4>();
  variant<128, 64, 32, 4>();
  variant<128, 64, 32, 2>();
  variant<128, 64, 16, 4>();
  variant<128, 64, 64, 4>();
  variant<256, 64, 32, 8>();
  variant<256, 64, 16, 8>();
  variant<128, 128, 32, 4>();
  variant<64, 64, 32, 1>();
  variant<128, 32, 32, 4>();
  variant<256, 32, 32, 8>();
#elif defined(BV_DEV_SWEEP3)
  variant<128, 64, 32, 4>();
  variant<256, 64, 16, 4>();
  variant<256, 64, 32, 4>();
  variant<256, 32, 32, 4>();
  variant<128, 64, 16, 2>();
  variant<256, 64, 16, 8>();
  variant<128, 32, 32, 2>();
  variant<128, 64, 32, 4, 0, 4>();
#else
  variant<64, 64, 32, 4>();
  variant<64, 64, 16, 4>();
  variant<128, 64, 32, 4>();
  variant<64, 128, 32, 4>();
  variant<128, 128, 32, 8>();
  variant<128, 128, 16, 8>();
  variant<128, 128, 16, 4>();
  variant<64, 64, 32, 2>();
#endif
  std::printf("%s\n", failures ? "CHECK FAILURES" : "all checks ok");
  return failures ? 1 : 0;
}
