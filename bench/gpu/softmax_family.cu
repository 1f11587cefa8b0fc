// Softmax at the Triton peer's shape (8192 x 8192 f32), one program a row (softmax_kernel), at 4, 8
// and 16 warps, and with registers left for more programs an SM: the choices for softmax_configs'
// row of 8192 columns. Every output is checked
// against a float64 softmax on the host (every 61st row), poisoned with NaN first. Timed with
// events: the median of 50 single launches and the mean of 20 back-to-back launches. Last, the
// library's launcher, to show which of them it launches.
// Build: nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr -diag-suppress 20012
//        -Igpu_backend -Ilang -Ikernels bench/gpu/softmax_family.cu -o softmax_family
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "bench_common.hpp"
#include "bv/kernels/softmax.hpp"

using namespace bv;
using bench::time_it;
using bench::timing;
constexpr int R = 8192, C = 8192;

// Worst |got - ref| / (|ref| + 1e-3) over every 61st row, and the non-finite outputs there.
void check_and_report(int w, const device_tensor<float>& y, const std::vector<float>& x,
                      const timing& t) {
  std::vector<float> yh(size_t(R) * C);
  y.copy_to_host(yh.data());
  double err = 0;
  long bad = 0;
  std::vector<double> e(C);
  for (int i = 0; i < R; i += 61) {
    double m = -INFINITY, s = 0;
    for (int j = 0; j < C; ++j) m = std::max(m, double(x[size_t(i) * C + j]));
    for (int j = 0; j < C; ++j) s += e[j] = std::exp(double(x[size_t(i) * C + j]) - m);
    for (int j = 0; j < C; ++j) {
      const double got = yh[size_t(i) * C + j], ref = e[j] / s;
      if (!std::isfinite(got)) ++bad;
      err = std::max(err, std::abs(got - ref) / (std::abs(ref) + 1e-3));
    }
  }
  const double bytes = 2.0 * 4 * R * C;
  printf(
      "FAMILY softmax warps %2d  median %.4f ms [%.4f, %.4f]  %.2f TB/s  "
      "batch-of-20 mean %.4f ms %.2f TB/s  max err %.2e  non-finite %ld\n",
      w, t.median, t.lo, t.hi, bytes / (t.median * 1e-3) / 1e12, t.batch,
      bytes / (t.batch * 1e-3) / 1e12, err, bad);
  fflush(stdout);
}

// softmax_kernel for rows of exactly BLOCK columns: no mask (Triton's EVEN heuristics), so no
// compare per element and no lane-by-lane path beside each vector access.
template <int BLOCK, int W>
BV_KERNEL void softmax_even(program<W> p, ptr<const float> x, ptr<float> out, int x_stride,
                            int out_stride, int) {
  const int row = p.id(0);
  auto cols = arange<BLOCK>(p);
  auto v = load(x + row * x_stride + cols);
  auto e = exp(v - max(v));
  store(out + row * out_stride + cols, e / sum(e));
}

// Kernel K (softmax_kernel's arguments) on W warps, one program a row; MP > 0: with registers
// left for MP programs an SM (bv/launch_tuning.hpp).
template <auto K, int W, int MP>
void time_rows(const device_tensor<float>& x, const std::vector<float>& xh) {
  auto y = device_tensor<float>::full("y", {R, C}, NAN);
  auto go = [&] { launch<K>(gpu_tuning<0, MP>{}, grid(R), x, y, C, C, C); };
  go();
  gpu::synchronize();
  check_and_report(W, y, xh, time_it(go));
}
template <int W, int MP = 0>
void per_row(const device_tensor<float>& x, const std::vector<float>& xh) {
  if (MP) printf("FAMILY softmax next: %d programs an SM\n", MP);
  time_rows<kernels::softmax_kernel<float, C, W>, W, MP>(x, xh);
}
template <int W>
void even(const device_tensor<float>& x, const std::vector<float>& xh) {
  printf("FAMILY softmax without a mask (rows of exactly %d):\n", C);
  time_rows<softmax_even<C, W>, W, 0>(x, xh);
}

// The library's launcher (kernels::softmax), which picks its row of softmax_configs for sm_90.
void library(const device_tensor<float>& x, const std::vector<float>& xh) {
  auto y = device_tensor<float>::full("y", {R, C}, NAN);
  launch_result r;
  auto go = [&] { r = kernels::softmax(x, y); };
  go();
  gpu::synchronize();
  printf("FAMILY softmax library launch: %s, %d threads a program\n", r.kernel.c_str(),
         r.threads_per_program);
  check_and_report(r.threads_per_program / 32, y, xh, time_it(go));
}

int main() {
  std::vector<float> xh(size_t(R) * C);
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (auto& v : xh) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = float((s >> 40) * 0x1p-24) * 6.0f - 3.0f;
  }
  auto x = device_tensor<float>::from_host("x", {R, C}, xh.data());
  for (int round = 0; round < 2; ++round) {
    per_row<4>(x, xh);
    per_row<8>(x, xh);
    per_row<16>(x, xh);
    per_row<8, 3>(x, xh);
    per_row<8, 4>(x, xh);
    per_row<8, 6>(x, xh);
    per_row<4, 8>(x, xh);
    per_row<16, 2>(x, xh);
    library(x, xh);
    if (std::getenv("BV_DEV_EVEN")) {
      even<8>(x, xh);
      library(x, xh);
      even<8>(x, xh);
    }
  }
  return 0;
}
