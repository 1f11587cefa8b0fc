// GPU bench of the kernels in kernels/ on the shapes of bench/gpu/triton_peer.py:
// add and copy 2^28 f32 against the device-to-device copy ceiling, softmax 8192x8192 f32, f16
// matmul 8192^3 (f16 output). Median of 20 timed runs after warm-up, device events around each.
// Prints a table and one JSON line (for docs/PERFORMANCE.md and the comparison with the peer).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "bench_common.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace {
using namespace bv;

using bench::median_ms;

// matmul_kernel with the next K step's tiles loaded before this step's dot (the software
// pipelining Triton's compiler does, written in the kernel).
template <class T, class O, int BM, int BN, int BK, int GROUP_M, int W>
BV_KERNEL void matmul_pf_kernel(program<W> p, ptr<const T> a, ptr<const T> b, ptr<O> c, int M,
                                int N, int K, int sam, int sak, int sbk, int sbn, int scm,
                                int scn) {
  const auto t = bv::kernels::grouped_tile(p.id(0), M, N, BM, BN, GROUP_M);
  auto rm = t.m * BM + arange<BM>(p);
  auto rn = t.n * BN + arange<BN>(p);
  auto rk = arange<BK>(p);
  auto pa = a + (rm.col() * sam + rk.row() * sak);
  auto pb = b + (rk.col() * sbk + rn.row() * sbn);
  auto acc = zeros<float, BM, BN>(p);
  auto ta = load(pa, (rm.col() < M) & (rk.row() < K), 0.0f);
  auto tb = load(pb, (rk.col() < K) & (rn.row() < N), 0.0f);
  for (int k = 0; k < K; k += BK) {
    pa += BK * sak;
    pb += BK * sbk;
    auto na = load(pa, (rm.col() < M) & (rk.row() < K - k - BK), 0.0f);
    auto nb = load(pb, (rk.col() < K - k - BK) & (rn.row() < N), 0.0f);
    acc = dot(ta, tb, acc);
    ta = na;
    tb = nb;
  }
  store(c + (rm.col() * scm + rn.row() * scn), acc, (rm.col() < M) & (rn.row() < N));
}
template <int BM, int BN, int BK, int W, int MinP = 0, class T, class O>
launch_result matmul_pf(const device_tensor<T>& a, const device_tensor<T>& b,
                        device_tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  return launch<matmul_pf_kernel<T, O, BM, BN, BK, 8, W>>(
      gpu_tuning<0, MinP, unit_args<7, 9, 11>>{}, grid(cdiv(M, BM) * cdiv(N, BN)), a, b, c, M, N, K,
      K, 1, N, 1, N, 1);
}
// The launcher's kernel (no block-pointer rings) with registers left for MinP programs per SM.
template <int BM, int BN, int BK, int W, int MinP, class T, class O>
launch_result matmul_occ(const device_tensor<T>& a, const device_tensor<T>& b,
                         device_tensor<O>& c) {
  return bv::kernels::matmul<BM, BN, BK, 8, W, 0, MinP>(a, b, c);
}

template <class T>
device_tensor<T> random_tensor(const char* name, std::vector<int64_t> shape, uint64_t seed) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<T> h(static_cast<size_t>(n));
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (auto& x : h) x = T(d(rng));
  return device_tensor<T>::from_host(name, std::move(shape), h.data());
}
}  // namespace

int main(int argc, char** argv) {
  try {
    if (gpu::device_count() == 0) {
      std::printf("SKIPPED: no GPU device\n");
      return 77;
    }
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    hipDeviceProp_t prop;
    gpu::check(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
    std::printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount);

    // copy ceiling: 1 GiB device-to-device memcpy, bytes read + written
    const int64_t cb = quick ? (1 << 26) : (int64_t(1) << 30);
    auto src = device_tensor<uint8_t>::empty("src", {cb}),
         dst = device_tensor<uint8_t>::empty("dst", {cb});
    src.fill_bytes(1);
    const double t_ceiling = median_ms([&] {
      gpu::check(hipMemcpyAsync(dst.data(), src.data(), cb, hipMemcpyDeviceToDevice, 0), "memcpy");
    });
    const double ceiling = 2.0 * cb / (t_ceiling * 1e-3) / 1e12;

    const int64_t n = quick ? (1 << 22) : (int64_t(1) << 28);
    auto x = random_tensor<float>("x", {n}, 1), y = random_tensor<float>("y", {n}, 2);
    auto o = device_tensor<float>::empty("out", {n});
    const double t_add = median_ms([&] { bv::kernels::add(x, y, o); });
    {
      std::vector<float> hx(16), hy(16), ho(16);
      gpu::check(hipMemcpy(hx.data(), x.data() + n - 16, 64, hipMemcpyDeviceToHost), "check");
      gpu::check(hipMemcpy(hy.data(), y.data() + n - 16, 64, hipMemcpyDeviceToHost), "check");
      gpu::check(hipMemcpy(ho.data(), o.data() + n - 16, 64, hipMemcpyDeviceToHost), "check");
      for (int i = 0; i < 16; ++i)
        if (ho[i] != hx[i] + hy[i]) {
          std::printf("add result wrong at %d\n", i);
          return 1;
        }
    }
    const double t_copy = median_ms([&] { bv::kernels::copy(x, o); });
    const double add_tbps = 3.0 * n * 4 / (t_add * 1e-3) / 1e12;
    const double copy_tbps = 2.0 * n * 4 / (t_copy * 1e-3) / 1e12;

    const int R = quick ? 1024 : 8192, C = 8192;
    auto sx = random_tensor<float>("sx", {R, C}, 3);
    auto so = device_tensor<float>::empty("so", {R, C});
    const double t_softmax = median_ms([&] { bv::kernels::softmax(sx, so); });
    {
      std::vector<float> row(C);
      gpu::check(
          hipMemcpy(row.data(), so.data() + int64_t(R - 1) * C, C * 4, hipMemcpyDeviceToHost),
          "check");
      double s = 0;
      for (float v : row) s += v;
      if (std::abs(s - 1.0) > 1e-3) {
        std::printf("softmax row sum %g\n", s);
        return 1;
      }
    }
    const double softmax_tbps = 2.0 * R * C * 4 / (t_softmax * 1e-3) / 1e12;

    const int M = quick ? 2048 : 8192;
    auto a = random_tensor<half>("a", {M, M}, 4), b = random_tensor<half>("b", {M, M}, 5);
    auto c = device_tensor<half>::empty("c", {M, M});
    const double t_mm = median_ms([&] { bv::kernels::matmul(a, b, c); }, quick ? 5 : 10, 2);
    {
      // spot-check a few entries against a double-precision dot product
      std::vector<half> ha(size_t(M) * M), hb(size_t(M) * M), hc(size_t(M) * M);
      a.copy_to_host(ha.data());
      b.copy_to_host(hb.data());
      c.copy_to_host(hc.data());
      const double err = bench::matmul_spot_err(ha, hb, hc, M, 64, 9);
      std::printf("matmul spot-check rel err %.2e\n", err);
      if (!(err < 1e-2)) return 1;
    }
    const double tflops = 2.0 * M * M * double(M) / (t_mm * 1e-3) / 1e12;
    // other tile shapes of the same kernel source, for the record; each spot-checked first
    std::vector<half> ha(size_t(M) * M), hb(size_t(M) * M), hc(size_t(M) * M);
    a.copy_to_host(ha.data());
    b.copy_to_host(hb.data());
    // BV_ONLY=text: run only the variants whose name contains text (for a profiler).
    const char* only = std::getenv("BV_ONLY");
    auto variant = [&](const char* name, auto run) {
      if (only && !std::strstr(name, only)) return;
      c.fill_bytes(0xff);
      run();
      gpu::synchronize();
      c.copy_to_host(hc.data());
      const double err = bench::matmul_spot_err(ha, hb, hc, M, 32, 17);
      const double t = median_ms(run, quick ? 5 : 10, 2);
      std::printf("matmul variant %s: %.4f ms, %.1f TFLOP/s (rel err %.1e%s)\n", name, t,
                  2.0 * M * M * double(M) / (t * 1e-3) / 1e12, err,
                  err < 1e-2 ? "" : " WRONG");
    };
    variant("128x128x32 W4", [&] { bv::kernels::matmul<128, 128, 32, 8, 4, 3>(a, b, c); });
    variant("128x128x32 W8", [&] { bv::kernels::matmul<128, 128, 32, 8, 8, 3>(a, b, c); });
    variant("256x128x32 W8", [&] { bv::kernels::matmul<256, 128, 32, 8, 8, 3>(a, b, c); });
    variant("128x128x64 W4", [&] { bv::kernels::matmul<128, 128, 64, 8, 4, 3>(a, b, c); });
    variant("256x128x64 W8", [&] { bv::kernels::matmul<256, 128, 64, 8, 8, 3>(a, b, c); });
    variant("128x256x32 W8", [&] { bv::kernels::matmul<128, 256, 32, 8, 8, 3>(a, b, c); });
    variant("256x64x32 W4", [&] { bv::kernels::matmul<256, 64, 32, 8, 4, 3>(a, b, c); });
    variant("prefetch 128x128x32 W4", [&] { matmul_pf<128, 128, 32, 4>(a, b, c); });
    variant("prefetch 256x128x32 W8", [&] { matmul_pf<256, 128, 32, 8>(a, b, c); });
    variant("prefetch 128x128x32 W8", [&] { matmul_pf<128, 128, 32, 8>(a, b, c); });
    variant("128x128x32 W8 2/SM", [&] { matmul_occ<128, 128, 32, 8, 2>(a, b, c); });
    variant("128x128x64 W8 2/SM", [&] { matmul_occ<128, 128, 64, 8, 2>(a, b, c); });
    variant("prefetch 128x128x32 W8 2/SM", [&] { matmul_pf<128, 128, 32, 8, 2>(a, b, c); });
    variant("128x64x64 W4 2/SM", [&] { matmul_occ<128, 64, 64, 4, 2>(a, b, c); });

    std::printf("\n| kernel | shape | ms (median) | figure |\n|---|---|---|---|\n");
    std::printf("| d2d memcpy ceiling | %lld B | %.4f | %.2f TB/s |\n", (long long)cb, t_ceiling,
                ceiling);
    std::printf("| add f32 | %lld | %.4f | %.2f TB/s (%.0f%% of ceiling) |\n", (long long)n, t_add,
                add_tbps, 100 * add_tbps / ceiling);
    std::printf("| copy f32 | %lld | %.4f | %.2f TB/s (%.0f%% of ceiling) |\n", (long long)n,
                t_copy, copy_tbps, 100 * copy_tbps / ceiling);
    std::printf("| softmax f32 | %dx%d | %.4f | %.2f TB/s |\n", R, C, t_softmax, softmax_tbps);
    std::printf("| matmul f16 | %d^3 | %.4f | %.1f TFLOP/s |\n", M, t_mm, tflops);
    std::printf(
        "BENCH_JSON {\"device\":\"%s\",\"ceiling_TBps\":%.4f,\"add_s\":%.6e,\"add_TBps\":%.4f,"
        "\"copy_s\":%.6e,\"copy_TBps\":%.4f,\"softmax_s\":%.6e,\"softmax_TBps\":%.4f,"
        "\"matmul_s\":%.6e,\"matmul_TFLOPs\":%.2f}\n",
        prop.name, ceiling, t_add * 1e-3, add_tbps, t_copy * 1e-3, copy_tbps, t_softmax * 1e-3,
        softmax_tbps, t_mm * 1e-3, tflops);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
