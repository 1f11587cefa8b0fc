// libblockvec_gpu: host entry points of the library's products beside the plain matmul
// (host_api.cu): matmul_bias_gelu, conv2d and the split-K matmul, and their device benchmarks. One
// of the library's translation units, which compile in parallel.
#include <stdexcept>
#include <string>

#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/conv2d.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "host_common.hpp"

namespace bv::gpu {
using namespace host;

double matmul_bias_gelu(dtype_id t, const void* a, const void* b, const void* bias, void* c, int M,
                        int N, int K) {
  return f32_f16(t, "matmul_bias_gelu", [&](auto z) {
    using T = decltype(z);
    auto da = up<T>("a", {M, K}, a), db = up<T>("b", {K, N}, b), dbias = up<T>("bias", {N}, bias);
    auto dc = output<T>("c", {M, N});
    const double ms = timed(
        [&] { bv::kernels::matmul_bias_act<bv::kernels::epilogue::gelu_tanh>(da, db, dbias, dc); });
    dc.copy_to_host(static_cast<T*>(c));
    return ms;
  });
}

double conv2d(dtype_id t, const void* x, const void* w, const void* bias, void* out, int n, int c,
              int h, int wd, int oc, int kh, int kw, int sh, int sw, int ph, int pw) {
  const int oh = (h + 2 * ph - kh) / sh + 1, ow = (wd + 2 * pw - kw) / sw + 1;
  if (oh <= 0 || ow <= 0) throw std::invalid_argument("blockvec GPU: conv2d: empty output");
  return f32_f16(t, "conv2d", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {n, c, h, wd}, x), dw = up<T>("w", {oc, c, kh, kw}, w);
    auto db = up<T>("bias", {oc}, bias);
    auto dout = output<T>("out", {n, oc, oh, ow});
    const double ms = timed([&] { bv::kernels::conv2d(dx, dw, db, dout, {sh, sw, ph, pw}); });
    dout.copy_to_host(static_cast<T*>(out));
    return ms;
  });
}

double matmul_splitk(dtype_id t, const void* a, const void* b, float* c, int M, int N, int K,
                     int splits) {
  if (splits < 1) throw std::invalid_argument("blockvec GPU: matmul_splitk: splits must be >= 1");
  return any_float(t, [&](auto z) {
    using T = decltype(z);
    auto da = up<T>("a", {M, K}, a), db = up<T>("b", {K, N}, b);
    auto dc = output<float>("c", {M, N});
    const double ms = timed([&] { bv::kernels::matmul_splitk(da, db, dc, splits); });
    dc.copy_to_host(c);
    return ms;
  });
}

// Device benchmarks (bv/gpu/host_bench.hpp).
namespace {
using namespace benchreg;
const registrar bench_mbg{
    "matmul_bias_gelu", [](int warm, int reps) {
      const int n = 4096;
      auto a = random<half>("a", {n, n}, 1), b = random<half>("b", {n, n}, 2);
      auto bias = random<half>("bias", {n}, 3);
      auto c = device_tensor<half>::empty("c", {n, n});
      bench_figure f{.dtype = "f16", .shape = dims({n, n, n}), .note = "64x64x32 tiles, 4 warps"};
      f.bytes = 2.0 * 3 * n * double(n);
      f.flops = 2.0 * n * double(n) * n;
      return median_of(f, warm, reps, [&] {
        bv::kernels::matmul_bias_act<bv::kernels::epilogue::gelu_tanh>(a, b, bias, c);
      });
    }};
const registrar bench_conv{
    "conv2d", [](int warm, int reps) {
      // A ResNet-style layer: 32 x 64 x 56 x 56, 64 filters 3x3, stride 1, pad 1.
      const int n = 32, c = 64, h = 56, wd = 56, oc = 64, k = 3;
      auto x = random<half>("x", {n, c, h, wd}, 4),
           w = random<half>("w", {oc, c, k, k}, 5, -0.2f, 0.2f);
      auto bias = random<half>("bias", {oc}, 6);
      auto out = device_tensor<half>::empty("out", {n, oc, h, wd});
      bench_figure f{
          .dtype = "f16", .shape = dims({n, c, h, wd, oc, k}), .note = "stride 1, pad 1"};
      f.bytes = 2.0 * (double(n) * c * h * wd + double(oc) * c * k * k + double(n) * oc * h * wd);
      f.flops = 2.0 * n * oc * double(h) * wd * c * k * k;
      return median_of(f, warm, reps, [&] { bv::kernels::conv2d(x, w, bias, out, {1, 1, 1, 1}); });
    }};
const registrar bench_splitk{
    "matmul_splitk", [](int warm, int reps) {
      // A skinny, deep product (what split-K is for): 1024 x 1024 x 16384, f16 inputs, 8 slices.
      const int M = 1024, N = 1024, K = 16384, splits = 8;
      auto a = random<half>("a", {M, K}, 1), b = random<half>("b", {K, N}, 2);
      auto c = device_tensor<float>::empty("c", {M, N});
      bench_figure f{.dtype = "f16",
                     .shape = dims({M, N, K}),
                     .note = "fp32 out, 8 K slices, atomic adds (zero launch included)"};
      f.bytes = 2.0 * (double(M) * K + double(K) * N) + 4.0 * M * N;
      f.flops = 2.0 * M * N * K;
      return median_of(f, warm, reps, [&] { bv::kernels::matmul_splitk(a, b, c, splits); });
    }};
}  // namespace

}  // namespace bv::gpu
