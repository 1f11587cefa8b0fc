// What the GPU bench programs (bench_gpu.cu, bench_gpu_lib.cu, matmul_dev.cu, the *_family.cu
// timings) share: the median of timed launches, a launch's spread, and a spot check of a square
// f16 matmul against double-precision dot products.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "bv/bv.hpp"

namespace bench {

// Median of `reps` device-timed launches of f after `warm` untimed ones.
template <class F>
double median_ms(F&& f, int reps = 20, int warm = 3) {
  for (int i = 0; i < warm; ++i) f();
  bv::gpu::synchronize();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(bv::gpu::time_ms(f));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// A launch's spread: the median, fastest and slowest of 50 single launches between events after
// 5 untimed ones, and the mean of 20 launches back to back (the kernel's own time, with no gap
// between launches), in ms.
struct timing {
  double median, lo, hi, batch;
};
inline timing time_it(const std::function<void()>& f) {
  for (int i = 0; i < 5; ++i) f();
  bv::gpu::synchronize();
  std::vector<double> t;
  for (int i = 0; i < 50; ++i) t.push_back(bv::gpu::time_ms(f));
  std::sort(t.begin(), t.end());
  const double batch = bv::gpu::time_ms([&] {
                         for (int i = 0; i < 20; ++i) f();
                       }) /
                       20;
  return {t[t.size() / 2], t.front(), t.back(), batch};
}

// Relative L2 error of `samples` random entries of c = a @ b (all M x M, row-major, on the host).
template <class O>
double matmul_spot_err(const std::vector<bv::half>& a, const std::vector<bv::half>& b,
                       const std::vector<O>& c, int M, int samples, unsigned seed) {
  double num = 0, den = 0;
  std::mt19937 rng(seed);
  for (int t = 0; t < samples; ++t) {
    const int i = rng() % M, j = rng() % M;
    double r = 0;
    for (int k = 0; k < M; ++k)
      r += double(float(a[size_t(i) * M + k])) * double(float(b[size_t(k) * M + j]));
    const double e = float(c[size_t(i) * M + j]) - r;
    num += e * e;
    den += r * r;
  }
  return std::sqrt(num / den);
}

}  // namespace bench
