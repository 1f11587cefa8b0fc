// libblockvec_gpu: the CPU-callable entry points of bv/gpu/host_api.hpp, compiled by nvcc (or
// hipcc) together with the kernels and their launchers from kernels/.
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"
#include "host_common.hpp"

namespace bv::gpu {
using namespace host;

bool built() { return true; }

bool available() {
  if (const char* e = std::getenv("BV_INTERPRET"); e && *e && std::strcmp(e, "0") != 0)
    return false;
  return device_count() > 0;
}

std::string describe() {
  const int n = device_count();
  if (n == 0) return "no GPU device found (the GPU tests and --backend gpu are skipped)";
  hipDeviceProp_t p;
  check(hipGetDeviceProperties(&p, 0), "hipGetDeviceProperties");
#if BV_NVIDIA
  const std::string arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
#else
  const std::string arch = p.gcnArchName;
#endif
  return std::string(p.name) + ", " + arch + ", " + std::to_string(p.multiProcessorCount) +
         " multiprocessors, " + std::to_string(p.totalGlobalMem >> 20) + " MiB" +
         (n > 1 ? " (" + std::to_string(n) + " devices)" : "");
}

double add(dtype_id t, const void* x, const void* y, void* out, int64_t n) {
  require();
  return by_dtype(t, [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {n}, x), dy = up<T>("y", {n}, y);
    auto dout = output<T>("out", {n});
    const double ms = timed([&] { bv::kernels::add(dx, dy, dout); });
    dout.copy_to_host(static_cast<T*>(out));
    return ms;
  });
}

double copy(dtype_id t, const void* x, void* out, int64_t n) {
  require();
  return by_dtype(t, [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {n}, x);
    auto dout = output<T>("out", {n});
    const double ms = timed([&] { bv::kernels::copy(dx, dout); });
    dout.copy_to_host(static_cast<T*>(out));
    return ms;
  });
}

double softmax(dtype_id t, const void* x, void* out, int rows, int cols) {
  require();
  return by_dtype(t, [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {rows, cols}, x);
    auto dout = output<T>("out", {rows, cols});
    const double ms = timed([&] { bv::kernels::softmax(dx, dout); });
    dout.copy_to_host(static_cast<T*>(out));
    return ms;
  });
}

double matmul(dtype_id t, dtype_id out, const void* a, const void* b, void* c, int M, int N,
              int K) {
  require();
  return by_dtype(t, [&](auto z) {
    using T = decltype(z);
    auto da = up<T>("a", {M, K}, a), db = up<T>("b", {K, N}, b);
    auto run = [&](auto o) {
      using O = decltype(o);
      auto dc = output<O>("c", {M, N});
      const double ms = timed([&] { bv::kernels::matmul(da, db, dc); });
      dc.copy_to_host(static_cast<O*>(c));
      return ms;
    };
    if (out == dtype_id::f32) return run(float{});
    return run(T{});
  });
}

// Device benchmarks (bv/gpu/host_bench.hpp) at the Triton peers' shapes
// (bench/gpu/triton_peer.py): add 2^28 f32, softmax 8192 x 8192 f32, matmul f16 8192^3.
namespace {
using namespace benchreg;
const registrar bench_add{"add", [](int warm, int reps) {
  const int64_t n = int64_t(1) << 28;
  auto x = random<float>("x", {n}, 1), y = random<float>("y", {n}, 2);
  auto out = device_tensor<float>::empty("out", {n});
  bench_figure f{.dtype = "f32", .shape = "2^28"};
  f.bytes = 3.0 * 4 * n;
  return median_of(f, warm, reps, [&] { bv::kernels::add(x, y, out); });
}};
const registrar bench_copy{"copy", [](int warm, int reps) {
  const int64_t n = int64_t(1) << 28;
  auto x = random<float>("x", {n}, 3);
  auto out = device_tensor<float>::empty("out", {n});
  bench_figure f{.dtype = "f32", .shape = "2^28"};
  f.bytes = 2.0 * 4 * n;
  return median_of(f, warm, reps, [&] { bv::kernels::copy(x, out); });
}};
const registrar bench_softmax{"softmax", [](int warm, int reps) {
  const int R = 8192, C = 8192;
  auto x = random<float>("x", {R, C}, 4, -3.0f, 3.0f);
  auto out = device_tensor<float>::empty("out", {R, C});
  bench_figure f{.dtype = "f32", .shape = dims({R, C})};
  f.bytes = 2.0 * 4 * R * C;
  return median_of(f, warm, reps, [&] { bv::kernels::softmax(x, out); });
}};
template <class T, class O>
bench_figure matmul_bench(int warm, int reps, int n, const char* note) {
  auto a = random<T>("a", {n, n}, 5), b = random<T>("b", {n, n}, 6);
  auto c = device_tensor<O>::empty("c", {n, n});
  bench_figure f{.dtype = dtype_name<T>(), .shape = dims({n, n, n}), .note = note};
  f.bytes = 2.0 * sizeof(T) * n * n + double(sizeof(O)) * n * n;
  f.flops = 2.0 * n * double(n) * n;
  return median_of(f, warm, reps, [&] { bv::kernels::matmul(a, b, c); });
}
const registrar bench_matmul{"matmul", [](int w, int r) {
  return matmul_bench<float, float>(w, r, 4096, "f32 out, CUDA-core FMA path");
}};
const registrar bench_matmul_f16{"matmul_f16", [](int w, int r) {
  return matmul_bench<half, half>(w, r, 8192, "f16 out (the peer's), wgmma on sm_90a");
}};
const registrar bench_matmul_bf16{"matmul_f16@bf16", [](int w, int r) {
  return matmul_bench<bfloat16, bfloat16>(w, r, 8192, "bf16 in and out, wgmma on sm_90a");
}};
}  // namespace

}  // namespace bv::gpu
