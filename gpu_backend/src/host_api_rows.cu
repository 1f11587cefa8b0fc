// libblockvec_gpu: the CPU-callable entry points (bv/gpu/host_api.hpp) of the library's row
// kernels: the norms' forwards, the gated activations, dropout, cross-entropy and RoPE, compiled
// by nvcc (or hipcc) with their launchers from kernels/, and their device benchmarks. One of the
// library's translation units, which compile in parallel.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "bench_registry.hpp"
#include "bv/gpu/host_api.hpp"
#include "bv/kernels/act_mul.hpp"
#include "bv/kernels/cross_entropy.hpp"
#include "bv/kernels/dropout.hpp"
#include "bv/kernels/layernorm.hpp"
#include "bv/kernels/rmsnorm.hpp"
#include "bv/kernels/rope.hpp"
#include "host_common.hpp"

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

double rmsnorm_fwd(dtype_id t, const void* x, const void* w, void* y, float* rstd, int rows,
                   int cols, float eps) {
  return f32_f16(t, "rmsnorm_fwd", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {rows, cols}, x), dw = up<T>("w", {cols}, w);
    auto dy = output<T>("y", {rows, cols});
    auto dr = output<float>("rstd", {rows});
    const double ms = timed([&] { bv::kernels::rmsnorm_fwd(dx, dw, dy, dr, eps); });
    dy.copy_to_host(static_cast<T*>(y));
    dr.copy_to_host(rstd);
    return ms;
  });
}

double add_rmsnorm_fwd(dtype_id t, const void* x, const void* res, const void* w, void* h, void* y,
                       float* rstd, int rows, int cols, float eps) {
  return f32_f16(t, "add_rmsnorm_fwd", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {rows, cols}, x), dres = up<T>("res", {rows, cols}, res);
    auto dw = up<T>("w", {cols}, w);
    auto dh = output<T>("h", {rows, cols});
    auto dy = output<T>("y", {rows, cols});
    auto dr = output<float>("rstd", {rows});
    const double ms = timed([&] { bv::kernels::add_rmsnorm_fwd(dx, dres, dw, dh, dy, dr, eps); });
    dh.copy_to_host(static_cast<T*>(h));
    dy.copy_to_host(static_cast<T*>(y));
    dr.copy_to_host(rstd);
    return ms;
  });
}

double layernorm_fwd(dtype_id t, const void* x, const void* w, const void* b, void* y, float* mean,
                     float* rstd, int rows, int cols, float eps) {
  return f32_f16(t, "layernorm_fwd", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {rows, cols}, x), dw = up<T>("w", {cols}, w), db = up<T>("b", {cols}, b);
    auto dy = output<T>("y", {rows, cols});
    auto dm = output<float>("mean", {rows});
    auto dr = output<float>("rstd", {rows});
    const double ms = timed([&] { bv::kernels::layernorm_fwd(dx, dw, db, dy, dm, dr, eps); });
    dy.copy_to_host(static_cast<T*>(y));
    dm.copy_to_host(mean);
    dr.copy_to_host(rstd);
    return ms;
  });
}

double act_mul_fwd(dtype_id t, bool gelu, const void* x, void* y, int rows, int n) {
  return f32_f16(t, "act_mul_fwd", [&](auto z) {
    using T = decltype(z);
    using bv::kernels::gate_act;
    auto dx = up<T>("x", {rows, 2 * n}, x);
    auto dy = output<T>("y", {rows, n});
    const double ms = timed([&] {
      if (gelu)
        bv::kernels::act_mul_fwd<gate_act::gelu_tanh>(dx, dy);
      else
        bv::kernels::act_mul_fwd<gate_act::silu>(dx, dy);
    });
    dy.copy_to_host(static_cast<T*>(y));
    return ms;
  });
}

double act_mul_bwd(dtype_id t, bool gelu, const void* dy, const void* x, void* dx, int rows,
                   int n) {
  return f32_f16(t, "act_mul_bwd", [&](auto z) {
    using T = decltype(z);
    using bv::kernels::gate_act;
    auto ddy = up<T>("dy", {rows, n}, dy), dxin = up<T>("x", {rows, 2 * n}, x);
    auto ddx = output<T>("dx", {rows, 2 * n});
    const double ms = timed([&] {
      if (gelu)
        bv::kernels::act_mul_bwd<gate_act::gelu_tanh>(ddy, dxin, ddx);
      else
        bv::kernels::act_mul_bwd<gate_act::silu>(ddy, dxin, ddx);
    });
    ddx.copy_to_host(static_cast<T*>(dx));
    return ms;
  });
}

double dropout(dtype_id t, const void* x, void* out, int64_t n, float p, int seed) {
  return f32_f16(t, "dropout", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {n}, x);
    auto dout = output<T>("out", {n});
    const double ms = timed([&] { bv::kernels::dropout(dx, dout, p, seed); });
    dout.copy_to_host(static_cast<T*>(out));
    return ms;
  });
}

double cross_entropy_fwd(dtype_id t, const void* x, const int32_t* target, float* loss, float* lse,
                         int rows, int v) {
  return f32_f16(t, "cross_entropy_fwd", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {rows, v}, x);
    auto dt = device_tensor<int32_t>::from_host("target", {rows}, target);
    auto dl = output<float>("loss", {rows});
    auto ds = output<float>("lse", {rows});
    const double ms = timed([&] { bv::kernels::cross_entropy_fwd(dx, dt, dl, ds); });
    dl.copy_to_host(loss);
    ds.copy_to_host(lse);
    return ms;
  });
}

double cross_entropy_bwd(dtype_id t, const void* x, const int32_t* target, const float* lse,
                         const float* dloss, void* dx, int rows, int v) {
  return f32_f16(t, "cross_entropy_bwd", [&](auto z) {
    using T = decltype(z);
    auto dxin = up<T>("x", {rows, v}, x);
    auto dt = device_tensor<int32_t>::from_host("target", {rows}, target);
    auto ds = device_tensor<float>::from_host("lse", {rows}, lse);
    auto dd = device_tensor<float>::from_host("dloss", {rows}, dloss);
    auto ddx = output<T>("dx", {rows, v});
    const double ms = timed([&] { bv::kernels::cross_entropy_bwd(dxin, dt, ds, dd, ddx); });
    ddx.copy_to_host(static_cast<T*>(dx));
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

// Device benchmarks (bv/gpu/host_bench.hpp): the norms at the Triton peers' shape (f16 8192 x
// 8192: triton_peer.py's RMSNorm, bench/gpu/layernorm_peer.py's LayerNorm); the others at sizes
// that fill an H100.
namespace {
using namespace benchreg;
constexpr int NR = 8192, NC = 8192;
const registrar bench_rmsnorm{
    "rmsnorm", [](int warm, int reps) {
      auto x = random<half>("x", {NR, NC}, 1, -2.0f, 2.0f), w = random<half>("w", {NC}, 2);
      auto y = device_tensor<half>::empty("y", {NR, NC});
      auto r = device_tensor<float>::empty("rstd", {NR});
      bench_figure f{.dtype = "f16", .shape = dims({NR, NC})};
      f.bytes = 2.0 * 2 * NR * NC;
      return median_of(f, warm, reps, [&] { bv::kernels::rmsnorm_fwd(x, w, y, r, 1e-6f); });
    }};
const registrar bench_add_rmsnorm{
    "add_rmsnorm", [](int warm, int reps) {
      auto x = random<half>("x", {NR, NC}, 3), res = random<half>("res", {NR, NC}, 4);
      auto w = random<half>("w", {NC}, 5);
      auto h = device_tensor<half>::empty("h", {NR, NC}),
           y = device_tensor<half>::empty("y", {NR, NC});
      auto r = device_tensor<float>::empty("rstd", {NR});
      bench_figure f{.dtype = "f16", .shape = dims({NR, NC})};
      f.bytes = 4.0 * 2 * NR * NC;
      return median_of(f, warm, reps,
                       [&] { bv::kernels::add_rmsnorm_fwd(x, res, w, h, y, r, 1e-6f); });
    }};
const registrar bench_layernorm{
    "layernorm", [](int warm, int reps) {
      auto x = random<half>("x", {NR, NC}, 6, -2.0f, 2.0f);
      auto w = random<half>("w", {NC}, 7), b = random<half>("b", {NC}, 8);
      auto y = device_tensor<half>::empty("y", {NR, NC});
      auto m = device_tensor<float>::empty("mean", {NR}),
           r = device_tensor<float>::empty("rstd", {NR});
      bench_figure f{.dtype = "f16", .shape = dims({NR, NC})};
      f.bytes = 2.0 * 2 * NR * NC;
      return median_of(f, warm, reps, [&] { bv::kernels::layernorm_fwd(x, w, b, y, m, r, 1e-5f); });
    }};
template <bv::kernels::gate_act A>
bench_figure act_fwd_bench(int warm, int reps) {
  auto x = random<half>("x", {NR, 2 * NC}, 9, -3.0f, 3.0f);
  auto y = device_tensor<half>::empty("y", {NR, NC});
  bench_figure f{.dtype = "f16", .shape = dims({NR, NC}), .note = "x [M, 2N] -> y [M, N]"};
  f.bytes = 2.0 * 3 * NR * NC;
  return median_of(f, warm, reps, [&] { bv::kernels::act_mul_fwd<A>(x, y); });
}
template <bv::kernels::gate_act A>
bench_figure act_bwd_bench(int warm, int reps) {
  auto x = random<half>("x", {NR, 2 * NC}, 10, -3.0f, 3.0f), dy = random<half>("dy", {NR, NC}, 11);
  auto dx = device_tensor<half>::empty("dx", {NR, 2 * NC});
  bench_figure f{.dtype = "f16", .shape = dims({NR, NC}), .note = "dy, x -> dx [M, 2N]"};
  f.bytes = 2.0 * 5 * NR * NC;
  return median_of(f, warm, reps, [&] { bv::kernels::act_mul_bwd<A>(dy, x, dx); });
}
using bv::kernels::gate_act;
const registrar bench_silu{"silu_mul", act_fwd_bench<gate_act::silu>};
const registrar bench_gelu{"gelu_mul", act_fwd_bench<gate_act::gelu_tanh>};
const registrar bench_silu_bwd{"silu_mul_bwd", act_bwd_bench<gate_act::silu>};
const registrar bench_gelu_bwd{"gelu_mul_bwd", act_bwd_bench<gate_act::gelu_tanh>};
const registrar bench_dropout{"dropout", [](int warm, int reps) {
                                const int64_t n = int64_t(1) << 28;
                                auto x = random<float>("x", {n}, 12);
                                auto out = device_tensor<float>::empty("out", {n});
                                bench_figure f{.dtype = "f32", .shape = "2^28", .note = "p = 0.3"};
                                f.bytes = 2.0 * 4 * n;
                                return median_of(f, warm, reps,
                                                 [&] { bv::kernels::dropout(x, out, 0.3f, 1234); });
                              }};
constexpr int CE_R = 4096, CE_V = 32000;
const registrar bench_ce{
    "cross_entropy", [](int warm, int reps) {
      auto x = random<half>("x", {CE_R, CE_V}, 13, -4.0f, 4.0f);
      auto t = random<int32_t>("target", {CE_R}, 14, 0.0f, float(CE_V) - 1.0f);
      auto loss = device_tensor<float>::empty("loss", {CE_R}),
           lse = device_tensor<float>::empty("lse", {CE_R});
      bench_figure f{.dtype = "f16", .shape = dims({CE_R, CE_V})};
      f.bytes = 2.0 * CE_R * CE_V;
      return median_of(f, warm, reps, [&] { bv::kernels::cross_entropy_fwd(x, t, loss, lse); });
    }};
const registrar bench_ce_bwd{
    "cross_entropy_bwd", [](int warm, int reps) {
      auto x = random<half>("x", {CE_R, CE_V}, 15, -4.0f, 4.0f);
      auto t = random<int32_t>("target", {CE_R}, 16, 0.0f, float(CE_V) - 1.0f);
      auto loss = device_tensor<float>::empty("loss", {CE_R}),
           lse = device_tensor<float>::empty("lse", {CE_R});
      auto dloss = random<float>("dloss", {CE_R}, 17);
      auto dx = device_tensor<half>::empty("dx", {CE_R, CE_V});
      bv::kernels::cross_entropy_fwd(x, t, loss, lse);
      bench_figure f{.dtype = "f16", .shape = dims({CE_R, CE_V})};
      f.bytes = 2.0 * 2 * CE_R * CE_V;
      return median_of(f, warm, reps,
                       [&] { bv::kernels::cross_entropy_bwd(x, t, lse, dloss, dx); });
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

}  // namespace

}  // namespace bv::gpu
