// libblockvec_gpu, second part: the CPU-callable entry points of the library kernels
// (bv/gpu/host_api.hpp), compiled by nvcc (or hipcc) with the launchers of kernels_gpu_lib.hpp.
// Its own translation unit so that it compiles in parallel with host_api.cu.
#include <stdexcept>
#include <string>

#include "bv/gpu/host_api.hpp"
#include "bv/gpu/kernels_gpu_lib.hpp"

namespace bv::gpu {
namespace {
void require() {
  if (device_count() == 0) throw error("blockvec GPU: no GPU device found");
}

// f32 and f16 are instantiated; bf16 is refused rather than silently converted.
template <class F>
double f32_f16(dtype_id t, const char* kernel, F&& f) {
  require();
  if (t == dtype_id::f32) return f(float{});
  if (t == dtype_id::f16) return f(half{});
  throw std::invalid_argument(std::string("blockvec GPU: ") + kernel +
                              ": bf16 is not instantiated in this build (f32, f16)");
}

template <class T>
device_tensor<T> up(const char* name, std::vector<int64_t> shape, const void* host) {
  return device_tensor<T>::from_host(name, std::move(shape), static_cast<const T*>(host));
}

template <class F>
double timed(F&& f) {
  const double ms = time_ms(f);
  synchronize();
  return ms;
}
}  // namespace

double rmsnorm_fwd(dtype_id t, const void* x, const void* w, void* y, float* rstd, int rows,
                   int cols, float eps) {
  return f32_f16(t, "rmsnorm_fwd", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {rows, cols}, x), dw = up<T>("w", {cols}, w);
    auto dy = device_tensor<T>::empty("y", {rows, cols});
    auto dr = device_tensor<float>::empty("rstd", {rows});
    const double ms = timed([&] { kernels::rmsnorm_fwd(dx, dw, dy, dr, eps); });
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
    auto dh = device_tensor<T>::empty("h", {rows, cols});
    auto dy = device_tensor<T>::empty("y", {rows, cols});
    auto dr = device_tensor<float>::empty("rstd", {rows});
    const double ms = timed([&] { kernels::add_rmsnorm_fwd(dx, dres, dw, dh, dy, dr, eps); });
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
    auto dy = device_tensor<T>::empty("y", {rows, cols});
    auto dm = device_tensor<float>::empty("mean", {rows});
    auto dr = device_tensor<float>::empty("rstd", {rows});
    const double ms = timed([&] { kernels::layernorm_fwd(dx, dw, db, dy, dm, dr, eps); });
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
    auto dy = device_tensor<T>::empty("y", {rows, n});
    const double ms = timed([&] {
      if (gelu)
        kernels::act_mul_fwd<gate_act::gelu_tanh>(dx, dy);
      else
        kernels::act_mul_fwd<gate_act::silu>(dx, dy);
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
    auto ddx = device_tensor<T>::empty("dx", {rows, 2 * n});
    const double ms = timed([&] {
      if (gelu)
        kernels::act_mul_bwd<gate_act::gelu_tanh>(ddy, dxin, ddx);
      else
        kernels::act_mul_bwd<gate_act::silu>(ddy, dxin, ddx);
    });
    ddx.copy_to_host(static_cast<T*>(dx));
    return ms;
  });
}

double dropout(dtype_id t, const void* x, void* out, int64_t n, float p, int seed) {
  return f32_f16(t, "dropout", [&](auto z) {
    using T = decltype(z);
    auto dx = up<T>("x", {n}, x);
    auto dout = device_tensor<T>::empty("out", {n});
    const double ms = timed([&] { kernels::dropout(dx, dout, p, seed); });
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
    auto dl = device_tensor<float>::empty("loss", {rows});
    auto ds = device_tensor<float>::empty("lse", {rows});
    const double ms = timed([&] { kernels::cross_entropy_fwd(dx, dt, dl, ds); });
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
    auto ddx = device_tensor<T>::empty("dx", {rows, v});
    const double ms = timed([&] { kernels::cross_entropy_bwd(dxin, dt, ds, dd, ddx); });
    ddx.copy_to_host(static_cast<T*>(dx));
    return ms;
  });
}

double attention_fwd(dtype_id t, const void* q, const void* k, const void* v, void* o, float* lse,
                     int B, int H, int S, int D, bool causal) {
  require();
  if (t != dtype_id::f16)
    throw std::invalid_argument("blockvec GPU: attention_fwd: f16 only in this build");
  if (D != 64) throw std::invalid_argument("blockvec GPU: attention_fwd: head dim 64 only");
  using T = half;
  const std::vector<int64_t> shape{B, H, S, D};
  auto dq = up<T>("q", shape, q), dk = up<T>("k", shape, k), dv = up<T>("v", shape, v);
  auto dout = device_tensor<T>::empty("o", shape);
  auto dl = device_tensor<float>::empty("lse", {int64_t(B) * H, S});
  const double ms = timed([&] { kernels::attention_fwd(dq, dk, dv, dout, dl, causal); });
  dout.copy_to_host(static_cast<T*>(o));
  dl.copy_to_host(lse);
  return ms;
}

}  // namespace bv::gpu
