// libblockvec_gpu, fifth part: host entry points of the split-K matmul, RoPE, and attention
// forward in bf16, plus their device benchmarks and the LayerNorm forward variants of
// src/layernorm_variants.hpp. Its own translation unit so that it compiles in parallel with the
// others.
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/attention.hpp"
#include "bv/kernels/matmul_fused.hpp"
#include "bv/kernels/rope.hpp"
#include "host_common.hpp"
#include "layernorm_variants.hpp"

namespace bv::gpu {
using namespace host;
namespace {

template <class F>
void with_head_dim(int D, const char* what, F&& f) {
  if (D == 64)
    f(std::integral_constant<int, 64>{});
  else if (D == 128)
    f(std::integral_constant<int, 128>{});
  else
    throw std::invalid_argument(std::string("blockvec GPU: ") + what + ": head dim 64 or 128");
}
}  // namespace

namespace detail {
// Called by attention_fwd (src/host_api_lib.cu) for inputs other than f16.
double attention_fwd_ext(dtype_id t, const void* q, const void* k, const void* v, void* o,
                         float* lse, int B, int H, int S, int D, bool causal) {
  require();
  if (t != dtype_id::bf16)
    throw std::invalid_argument("blockvec GPU: attention_fwd: f16 or bf16 inputs");
  if (D != 64 && D != 128)
    throw std::invalid_argument("blockvec GPU: attention_fwd: head dim 64 or 128");
  using T = bfloat16;
  const std::vector<int64_t> shape{B, H, S, D};
  auto dq = up<T>("q", shape, q), dk = up<T>("k", shape, k), dv = up<T>("v", shape, v);
  auto dout = output<T>("o", shape);
  auto dl = output<float>("lse", {int64_t(B) * H, S});
  const double ms = timed([&] { bv::kernels::attention_fwd(dq, dk, dv, dout, dl, causal); });
  dout.copy_to_host(static_cast<T*>(o));
  dl.copy_to_host(lse);
  return ms;
}
}  // namespace detail

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

double rope_split(dtype_id t, const void* src, void* dst, const float* cos, const float* sin, int S,
                  int H, int D, int src_stride, int col0, float sign) {
  return any_float(t, [&](auto z) {
    using T = decltype(z);
    auto ds = up<T>("src", {S, src_stride}, src);
    auto dd = output<T>("dst", {H, S, D});
    const bv::kernels::rope_tables tables(device_tensor<float>::from_host("cos", {S, D / 2}, cos),
                                          device_tensor<float>::from_host("sin", {S, D / 2}, sin));
    double ms = 0;
    with_head_dim(D, "rope_split", [&](auto d) {
      constexpr int DD = decltype(d)::value;
      ms = timed([&] { bv::kernels::rope_split<DD>(ds, col0, dd, tables, sign); });
    });
    dd.copy_to_host(static_cast<T*>(dst));
    return ms;
  });
}

double rope_merge(dtype_id t, const void* src, void* dst, const float* cos, const float* sin, int S,
                  int H, int D, int dst_stride, int col0, float sign) {
  return any_float(t, [&](auto z) {
    using T = decltype(z);
    auto ds = up<T>("src", {H, S, D}, src);
    auto dd = up<T>("dst", {S, dst_stride}, dst);
    const bv::kernels::rope_tables tables(device_tensor<float>::from_host("cos", {S, D / 2}, cos),
                                          device_tensor<float>::from_host("sin", {S, D / 2}, sin));
    double ms = 0;
    with_head_dim(D, "rope_merge", [&](auto d) {
      constexpr int DD = decltype(d)::value;
      ms = timed([&] { bv::kernels::rope_merge<DD>(ds, dd, col0, tables, sign); });
    });
    dd.copy_to_host(static_cast<T*>(dst));
    return ms;
  });
}

// ---------------------------------------------------------------------------------------------
// Device benchmarks of this unit's kernels.
namespace {
using namespace benchreg;

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

const registrar bench_rope{
    "rope_split@f16", [](int warm, int reps) {
      // q of a fused QKV projection [4096, 3 * 32 * 128] into [32, 4096, 128], rotated.
      const int S = 4096, H = 32, D = 128, stride = 3 * H * D;
      auto src = random<half>("src", {S, stride}, 3);
      auto dst = device_tensor<half>::empty("dst", {H, S, D});
      const bv::kernels::rope_tables tables(random<float>("cos", {S, D / 2}, 4),
                                            random<float>("sin", {S, D / 2}, 5));
      bench_figure f{.dtype = "f16", .shape = dims({S, H, D}), .note = "q columns of a QKV matrix"};
      f.bytes = 2.0 * 2 * S * H * D + 2.0 * 4 * S * (D / 2);
      return median_of(f, warm, reps,
                       [&] { bv::kernels::rope_split<D>(src, 0, dst, tables, 1.0f); });
    }};

template <class T, int D>
bench_figure attention_bench(int warm, int reps, bool causal) {
  const int B = 4, H = 16, S = 4096;
  auto q = random<T>("q", {B, H, S, D}, 6), k = random<T>("k", {B, H, S, D}, 7),
       v = random<T>("v", {B, H, S, D}, 8);
  auto o = device_tensor<T>::empty("o", {B, H, S, D});
  auto lse = device_tensor<float>::empty("lse", {B * H, S});
  bench_figure f{.dtype = dtype_name<T>(),
                 .shape = dims({B, H, S, D}),
                 .note = causal ? "causal" : "non-causal"};
  f.bytes = 4.0 * sizeof(T) * B * H * S * D;
  f.flops = 4.0 * B * H * double(S) * S * D * (causal ? 0.5 : 1.0);
  return median_of(f, warm, reps, [&] { bv::kernels::attention_fwd(q, k, v, o, lse, causal); });
}
const registrar bench_attn_bf16{
    "attention@bf16", [](int w, int r) { return attention_bench<bfloat16, 64>(w, r, false); }};

// LayerNorm forward f16 8192 x 8192 (bench/gpu/layernorm_peer.py's shape), variants.
template <auto K>
bench_figure ln_bench(int warm, int reps, const char* note) {
  const int R = 8192, C = 8192;
  auto x = random<half>("x", {R, C}, 9, -2.0f, 2.0f);
  auto w = random<half>("w", {C}, 10), b = random<half>("b", {C}, 11);
  auto y = device_tensor<half>::empty("y", {R, C});
  auto mean = device_tensor<float>::empty("mean", {R}),
       rstd = device_tensor<float>::empty("rstd", {R});
  bench_figure f{.dtype = "f16", .shape = dims({R, C}), .note = note};
  f.bytes = 2.0 * 2 * R * C + 2.0 * 2 * C + 4.0 * 2 * R;
  return median_of(f, warm, reps,
                   [&] { launch<K>(grid(R), x, w, b, y, mean, rstd, C, C, C, 1e-5f); });
}
const registrar ln_v0{"layernorm@two_pass_w16", [](int w, int r) {
                        return ln_bench<lnvar::ln_two_pass<half, 8192, 16, false>>(
                            w, r, "as kernels/ (before)");
                      }};
const registrar ln_v1{"layernorm@hoist_w16", [](int w, int r) {
                        return ln_bench<lnvar::ln_two_pass<half, 8192, 16, true>>(
                            w, r, "w, b loaded first");
                      }};
const registrar ln_v2{"layernorm@fused_w16", [](int w, int r) {
                        return ln_bench<lnvar::ln_fused<half, 8192, 16, false>>(w, r,
                                                                                "sum2, one trip");
                      }};
const registrar ln_v3{"layernorm@fused_hoist_w16", [](int w, int r) {
                        return ln_bench<lnvar::ln_fused<half, 8192, 16, true>>(w, r,
                                                                               "sum2 + w, b first");
                      }};
const registrar ln_v4{"layernorm@fused_w8", [](int w, int r) {
                        return ln_bench<lnvar::ln_fused<half, 8192, 8, false>>(w, r,
                                                                               "sum2, 8 warps");
                      }};
}  // namespace

}  // namespace bv::gpu
