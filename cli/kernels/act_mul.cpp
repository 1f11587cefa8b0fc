// CLI entries: silu_mul, gelu_mul and their backwards (kernels/bv/kernels/act_mul.hpp).
#include "bv/kernels/act_mul.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/act_mul.hpp"
#include "emu/emu_compare.hpp"
#include "gpu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;

template <kernels::gate_act A>
outcome run_fwd(const std::vector<int64_t>& s, uint64_t seed) {
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto y = output<float>("y", {s[0], s[1]});
  checker c;
  c.launched(launch_warm([&] { return kernels::act_mul_fwd<A>(x, y); }));
  c.add(y, kernels::ref::act_mul_fwd(x, A == kernels::gate_act::gelu_tanh), 1e-5);
  return c.done();
}
template <kernels::gate_act A>
outcome run_bwd(const std::vector<int64_t>& s, uint64_t seed) {
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 1);
  auto dx = output<float>("dx", {s[0], 2 * s[1]});
  checker c;
  c.launched(launch_warm([&] { return kernels::act_mul_bwd<A>(dy, x, dx); }));
  c.add(dx, kernels::ref::act_mul_bwd(dy, x, A == kernels::gate_act::gelu_tanh), 1e-5);
  return c.done();
}

// Native: the same formulas over whole rows with Eigen arrays (vectorised exp), the same
// overflow-safe tanh.
template <kernels::gate_act A>
farr act(const farr& g) {
  if constexpr (A == kernels::gate_act::silu) {
    return g / (1.0f + (-g).exp());
  } else {
    const farr e =
        (2.0f * (0.7978845608028654f * (g + 0.044715f * g.cube())).min(10.0f).max(-10.0f)).exp();
    return 0.5f * g * (1.0f + (e - 1.0f) / (e + 1.0f));
  }
}
template <kernels::gate_act A>
farr act_grad(const farr& g) {
  if constexpr (A == kernels::gate_act::silu) {
    const farr sg = 1.0f / (1.0f + (-g).exp());
    return sg * (1.0f + g * (1.0f - sg));
  } else {
    const float k = 0.7978845608028654f, c = 0.044715f;
    const farr e = (2.0f * (k * (g + c * g.cube())).min(10.0f).max(-10.0f)).exp();
    const farr t = (e - 1.0f) / (e + 1.0f);
    return 0.5f * (1.0f + t) + 0.5f * g * (1.0f - t * t) * k * (1.0f + 3.0f * c * g * g);
  }
}
template <kernels::gate_act A>
double native_fwd(const std::vector<int64_t>& s, uint64_t seed) {
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto y = tensor<float>::empty("y", {s[0], s[1]});
  return time_it([&] {
    famap X(x.data(), s[0], 2 * s[1]), Y(y.data(), s[0], s[1]);
    Y = act<A>(X.leftCols(s[1])) * X.rightCols(s[1]);
  });
}
template <kernels::gate_act A>
double native_bwd(const std::vector<int64_t>& s, uint64_t seed) {
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 1);
  auto dx = tensor<float>::empty("dx", {s[0], 2 * s[1]});
  return time_it([&] {
    famap X(x.data(), s[0], 2 * s[1]), DY(dy.data(), s[0], s[1]), DX(dx.data(), s[0], 2 * s[1]);
    const farr g = X.leftCols(s[1]);
    DX.leftCols(s[1]) = DY * X.rightCols(s[1]) * act_grad<A>(g);
    DX.rightCols(s[1]) = DY * act<A>(g);
  });
}

// GPU against interpreter: the GPU's exp (tanh, sigmoid) differs from the CPU's by an ulp or two,
// so the allowed difference scales with the outputs (dx reaches 20 and more at x of scale 2: an
// absolute 1e-5 failed at 1.3e-5 on an H100, 2026-11-21).
inline double diff_tol(const std::vector<double>& ref) {
  double m = 1;
  for (double v : ref) m = std::max(m, std::abs(v));
  return 1e-5 * m;
}

template <kernels::gate_act A>
gpu_outcome run_fwd_gpu(const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
  constexpr bool gelu = A == kernels::gate_act::gelu_tanh;
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto y = output<float>("y", {s[0], s[1]});
  const double ms = gpu::act_mul_fwd(gpu::dtype_id::f32, gelu, x.data(), y.data(),
                                     static_cast<int>(s[0]), static_cast<int>(s[1]));
  const auto ref = kernels::ref::act_mul_fwd(x, gelu);
  return finish_gpu(y, ms, ref, 1e-5, cpu, diff_tol(ref),
                    [&](tensor<float>& o) { return kernels::act_mul_fwd<A>(x, o); });
}
template <kernels::gate_act A>
gpu_outcome run_bwd_gpu(const std::vector<int64_t>& s, uint64_t seed, bool cpu) {
  constexpr bool gelu = A == kernels::gate_act::gelu_tanh;
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 1);
  auto dx = output<float>("dx", {s[0], 2 * s[1]});
  const double ms = gpu::act_mul_bwd(gpu::dtype_id::f32, gelu, dy.data(), x.data(), dx.data(),
                                     static_cast<int>(s[0]), static_cast<int>(s[1]));
  const auto ref = kernels::ref::act_mul_bwd(dy, x, gelu);
  return finish_gpu(dx, ms, ref, 1e-5, cpu, diff_tol(ref),
                    [&](tensor<float>& o) { return kernels::act_mul_bwd<A>(dy, x, o); });
}

template <kernels::gate_act A>
emu_outcome run_fwd_emu(const std::vector<int64_t>& s, uint64_t seed, target t) {
  constexpr bool gelu = A == kernels::gate_act::gelu_tanh;
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto y = output<float>("y", {s[0], s[1]});
  const auto ref = kernels::ref::act_mul_fwd(x, gelu);
  return emu_compare(gelu ? "gelu_mul" : "silu_mul", t)
      .in(x)
      .cpu([&] { return kernels::act_mul_fwd<A>(x, y); })
      .out(0, y, ref, 1e-5, diff_tol(ref))
      .done();
}
template <kernels::gate_act A>
emu_outcome run_bwd_emu(const std::vector<int64_t>& s, uint64_t seed, target t) {
  constexpr bool gelu = A == kernels::gate_act::gelu_tanh;
  auto x = tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0);
  auto dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 1);
  auto dx = output<float>("dx", {s[0], 2 * s[1]});
  const auto ref = kernels::ref::act_mul_bwd(dy, x, gelu);
  return emu_compare(gelu ? "gelu_mul_bwd" : "silu_mul_bwd", t)
      .in(dy)
      .in(x)
      .cpu([&] { return kernels::act_mul_bwd<A>(dy, x, dx); })
      .out(0, dx, ref, 1e-5, diff_tol(ref))
      .done();
}

constexpr auto silu = kernels::gate_act::silu;
constexpr auto gelu = kernels::gate_act::gelu_tanh;

registrar r1{{.name = "silu_mul",
              .description = "fused SiLU(gate) * up over [M, 2N] -> [M, N], f32",
              .size_help = "ROWS,N",
              .default_size = {33, 1500},
              .bench_size = {256, 2048},
              .run = run_fwd<silu>,
              .native = native_fwd<silu>,
              .run_gpu = run_fwd_gpu<silu>,
              .run_amd_emu = run_fwd_emu<silu>}};
registrar r2{{.name = "gelu_mul",
              .description = "fused GELU-tanh(gate) * up over [M, 2N], overflow-safe tanh, f32",
              .size_help = "ROWS,N",
              .default_size = {33, 1500},
              .bench_size = {256, 2048},
              .run = run_fwd<gelu>,
              .native = native_fwd<gelu>,
              .run_gpu = run_fwd_gpu<gelu>,
              .run_amd_emu = run_fwd_emu<gelu>}};
registrar r3{{.name = "silu_mul_bwd",
              .description = "backward of silu_mul: [dgate | dup] from dy and x, f32",
              .size_help = "ROWS,N",
              .default_size = {33, 1500},
              .bench_size = {256, 2048},
              .run = run_bwd<silu>,
              .native = native_bwd<silu>,
              .run_gpu = run_bwd_gpu<silu>,
              .run_amd_emu = run_bwd_emu<silu>}};
registrar r4{{.name = "gelu_mul_bwd",
              .description = "backward of gelu_mul: [dgate | dup] from dy and x, f32",
              .size_help = "ROWS,N",
              .default_size = {33, 1500},
              .bench_size = {256, 2048},
              .run = run_bwd<gelu>,
              .native = native_bwd<gelu>,
              .run_gpu = run_bwd_gpu<gelu>,
              .run_amd_emu = run_bwd_emu<gelu>}};
}  // namespace
}  // namespace bv::cli
