// The f32 matmul (kernels/bv/kernels/matmul.hpp; dot on CUDA cores, gpu_backend/bv/gpu/dot.hpp's
// dot_simt) at several tile shapes: every element of ragged products against a double-precision
// host product (outputs poisoned with NaN first), then timings at 4096^3 and at the f32 products
// of a TinyLlama-1.1B decoder block with 1024 tokens (median of 10 after 3 warm-up launches, CUDA
// events), after block-pointer misuse checks. A development tool for choosing the f32 row of
// matmul_configs (-DBV_DEV_SWEEP2 / -DBV_DEV_SWEEP3: other tile lists); the figures that count come
// from `blockvec bench --backend gpu matmul`.
//   nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -Igpu_backend -Ilang -Ikernels \
//        -Itests/lang bench/gpu/matmul_f32_dev.cu -o matmul_f32_dev
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "bench_common.hpp"
#include "bv/bv.hpp"
#include "bv/kernels/matmul.hpp"
#include "matmul_checks.hpp"

using namespace bv;

namespace {
template <class F>
double time_at(int M, int N, int K, F&& run) {
  auto ha = bench::host_random<float>(size_t(M) * K, 4),
       hb = bench::host_random<float>(size_t(K) * N, 5);
  auto a = device_tensor<float>::from_host("a", {M, K}, ha.data());
  auto b = device_tensor<float>::from_host("b", {K, N}, hb.data());
  auto c = device_tensor<float>::empty("c", {M, N});
  return bench::median_ms([&] { run(a, b, c); }, 10, 3);
}

int failures = 0;
// Tiles BM x BN x BK on W warps; S > 0: block-pointer rings of S slots (block_ptr.hpp), MP > 0:
// registers left for MP programs an SM.
template <int BM, int BN, int BK, int W, int S = 0, int MP = 0>
void variant() {
  auto run = [](const device_tensor<float>& a, const device_tensor<float>& b,
                device_tensor<float>& c) { bv::kernels::matmul<BM, BN, BK, 8, W, S, MP>(a, b, c); };
  const int sizes[][3] = {{64, 64, 32}, {129, 200, 70}, {300, 257, 1000}, {64, 96, 40}, {1, 33, 5}};
  double worst = 0;
  for (auto& s : sizes)
    worst = std::max(worst, bench::matmul_check<float, float>(s[0], s[1], s[2], 7 + s[0], run));
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
  failures += !bench::misuse_check<float, 68>("f32", 1e-4);
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
