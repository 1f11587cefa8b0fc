// The device bench's registry (GPU-compiled translation units only): each host_api*.cu registers
// the benchmarks of the kernels it instantiates, so no kernel is compiled twice; src/bench.cu
// answers bv::gpu::bench_names() and bv::gpu::bench() from it (bv/gpu/host_bench.hpp).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bv/bv.hpp"
#include "bv/gpu/host_bench.hpp"

// Uniform values in [lo, hi) from a counter hash of (seed, index): inputs made on the device, so
// the bench moves no gigabytes over PCIe, and never zeros. At global scope: nvcc 13's generated
// launch stub did not find the kernel template inside bv::gpu::benchreg.
template <class T>
__global__ void bv_bench_fill_uniform(T* p, int64_t n, uint64_t seed, float lo, float hi) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t z = static_cast<uint64_t>(i) + seed * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
    if constexpr (std::is_integral_v<T>)
      p[i] = static_cast<int32_t>(lo + (hi - lo) * u);
    else
      p[i] = T(lo + (hi - lo) * u);
  }
}
namespace bv::gpu::benchreg {

using runner = std::function<bench_figure(int warmup, int reps)>;
struct entry {
  std::string name;
  runner run;
};
std::vector<entry>& entries();  // src/bench.cu
int& pause_ms();                // src/bench.cu: bench()'s pause_ms, for median_of

struct registrar {
  registrar(std::string name, runner r) { entries().push_back({std::move(name), std::move(r)}); }
};

template <class T>
void fill(device_tensor<T>& t, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  const int64_t n = t.numel();
  const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 132 * 32));
  bv_bench_fill_uniform<T><<<blocks, 256>>>(t.data(), n, seed, lo, hi);
  check(hipGetLastError(), "launch of bv_bench_fill_uniform");
}
template <class T>
device_tensor<T> random(const char* name, std::vector<int64_t> shape, uint64_t seed,
                        float lo = -1.0f, float hi = 1.0f) {
  auto t = device_tensor<T>::empty(name, std::move(shape));
  fill(t, seed, lo, hi);
  return t;
}

// `warmup` untimed runs, then the median (and range) of `reps` runs, each between two events;
// then, after pause_ms() of an idle device and `warmup` runs again, the mean of `reps` runs issued
// back to back between two events (bench_figure::batch_ms), as the peers' gpu_timing.batch_time.
// With reps 1 only the single launch runs (0 for batch_ms): one launch a kernel, for a profiler.
template <class F>
bench_figure median_of(bench_figure f, int warmup, int reps, F&& launch) {
  const auto warm = [&] {
    for (int i = 0; i < warmup; ++i) launch();
    synchronize();
  };
  warm();
  std::vector<double> t;
  t.reserve(reps);
  for (int i = 0; i < reps; ++i) t.push_back(time_ms(launch));
  synchronize();
  if (reps > 1) {
    if (pause_ms() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms()));
    warm();
    f.batch_ms = time_ms([&] {
                   for (int i = 0; i < reps; ++i) launch();
                 }) /
                 reps;
  }
  check(hipGetLastError(), "bench launches");
  std::sort(t.begin(), t.end());
  f.ms = t[t.size() / 2];
  f.min_ms = t.front();
  f.max_ms = t.back();
  f.reps = reps;
  return f;
}

template <class T>
const char* dtype_name() {
  if constexpr (std::is_same_v<T, half>)
    return "f16";
  else if constexpr (std::is_same_v<T, bfloat16>)
    return "bf16";
  else
    return "f32";
}

inline std::string dims(std::initializer_list<int64_t> d) {
  std::string s;
  for (auto v : d) s += (s.empty() ? "" : "x") + std::to_string(v);
  return s;
}

}  // namespace bv::gpu::benchreg
