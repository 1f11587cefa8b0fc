// silu_mul, gelu_mul and their backwards: the kernels (bv/kernels/act_mul.hpp), their references
// (bv/kernels/ref/act_mul.hpp) and one registration each, made by one function of the activation
// and the direction; Eigen arrays time bench's native column.
#include "bv/kernels/act_mul.hpp"

#include "bv/gpu/host_api.hpp"
#include "bv/kernels/ref/act_mul.hpp"
#include "emu/emu_compare.hpp"
#include "lib_common.hpp"

namespace bv::cli {
namespace {
using namespace lib;
using kernels::gate_act;

// x = [gate | up], [M, 2N]. Forward: y [M, N]. Backward: dy [M, N] in, dx [M, 2N] out.
struct io {
  tensor<float> x, dy, out;
  int rows() const { return static_cast<int>(x.size(0)); }
  int n() const { return static_cast<int>(x.size(1) / 2); }
};

// The kernel on a's inputs into `out` (a.out, or the interpreter's copy beside a GPU run).
template <gate_act A, bool Bwd>
launch_result launch_into(const io& a, tensor<float>& out) {
  if constexpr (Bwd)
    return kernels::act_mul_bwd<A>(a.dy, a.x, out);
  else
    return kernels::act_mul_fwd<A>(a.x, out);
}
template <gate_act A, bool Bwd>
doubles reference(const io& a) {
  constexpr bool gelu = A == gate_act::gelu_tanh;
  if constexpr (Bwd)
    return kernels::ref::act_mul_bwd(a.dy, a.x, gelu);
  else
    return kernels::ref::act_mul_fwd(a.x, gelu);
}

// Native: the same formulas over whole rows with Eigen arrays (vectorised exp), the same
// overflow-safe tanh.
template <gate_act A>
farr act(const farr& g) {
  if constexpr (A == gate_act::silu) {
    return g / (1.0f + (-g).exp());
  } else {
    const farr e =
        (2.0f * (0.7978845608028654f * (g + 0.044715f * g.cube())).min(10.0f).max(-10.0f)).exp();
    return 0.5f * g * (1.0f + (e - 1.0f) / (e + 1.0f));
  }
}
template <gate_act A>
farr act_grad(const farr& g) {
  if constexpr (A == gate_act::silu) {
    const farr sg = 1.0f / (1.0f + (-g).exp());
    return sg * (1.0f + g * (1.0f - sg));
  } else {
    const float k = 0.7978845608028654f, c = 0.044715f;
    const farr e = (2.0f * (k * (g + c * g.cube())).min(10.0f).max(-10.0f)).exp();
    const farr t = (e - 1.0f) / (e + 1.0f);
    return 0.5f * (1.0f + t) + 0.5f * g * (1.0f - t * t) * k * (1.0f + 3.0f * c * g * g);
  }
}
template <gate_act A, bool Bwd>
std::function<void()> native(io& a) {
  return [&a, m = int64_t{a.rows()}, n = int64_t{a.n()}] {
    famap X(a.x.data(), m, 2 * n);
    if constexpr (Bwd) {
      famap DY(a.dy.data(), m, n), DX(a.out.data(), m, 2 * n);
      const farr g = X.leftCols(n);
      DX.leftCols(n) = DY * X.rightCols(n) * act_grad<A>(g);
      DX.rightCols(n) = DY * act<A>(g);
    } else {
      famap Y(a.out.data(), m, n);
      Y = act<A>(X.leftCols(n)) * X.rightCols(n);
    }
  };
}

// GPU against interpreter: the GPU's exp (tanh, sigmoid) differs from the CPU's by an ulp or two,
// so the allowed difference scales with the outputs (dx reaches 20 and more at x of scale 2: an
// absolute 1e-5 failed at 1.3e-5 on an H100, 2026-11-21). The emulator's likewise.
inline double diff_tol(const doubles& ref) {
  double m = 1;
  for (double v : ref) m = std::max(m, std::abs(v));
  return 1e-5 * m;
}

template <gate_act A, bool Bwd>
registrar reg(const char* name, const char* description) {
  constexpr bool gelu = A == gate_act::gelu_tanh;
  return registrar{
      kernel<io, doubles>{
          .name = name,
          .description = description,
          .size_help = "ROWS,N",
          .default_size = {33, 1500},
          .bench_size = {256, 2048},
          .make =
              [](const sizes& s, uint64_t seed) {
                io a{tensor<float>::randn("x", {s[0], 2 * s[1]}, seed, 2.0), {}, {}};
                if constexpr (Bwd) {
                  a.dy = tensor<float>::randn("dy", {s[0], s[1]}, seed + 1);
                  a.out = output<float>("dx", {s[0], 2 * s[1]});
                } else {
                  a.out = output<float>("y", {s[0], s[1]});
                }
                return a;
              },
          .launch = [](io& a) { return launch_into<A, Bwd>(a, a.out); },
          .reference = reference<A, Bwd>,
          .compare = [](checker& c, const io& a, const doubles& r) { c.expect(a.out, r, 1e-5); },
          .native = native<A, Bwd>,
      },
      {
          .gpu =
              [](io& a, bool cpu) {
                const double ms = Bwd ? gpu::act_mul_bwd(gpu::dtype_id::f32, gelu, a.dy.data(),
                                                         a.x.data(), a.out.data(), a.rows(), a.n())
                                      : gpu::act_mul_fwd(gpu::dtype_id::f32, gelu, a.x.data(),
                                                         a.out.data(), a.rows(), a.n());
                const doubles ref = reference<A, Bwd>(a);
                return finish_gpu(a.out, ms, ref, 1e-5, cpu, diff_tol(ref),
                                  [&](tensor<float>& o) { return launch_into<A, Bwd>(a, o); });
              },
          .amd_emu =
              [name](io& a, const doubles& ref, target t) {
                emu_compare e(name, t);
                if constexpr (Bwd) e.in(a.dy);
                return e.in(a.x)
                    .cpu([&] { return launch_into<A, Bwd>(a, a.out); })
                    .out(0, a.out, ref, 1e-5, diff_tol(ref))
                    .done();
              },
      }};
}

constexpr auto silu = gate_act::silu;
constexpr auto gelu = gate_act::gelu_tanh;

registrar r1 = reg<silu, false>("silu_mul", "fused SiLU(gate) * up over [M, 2N] -> [M, N], f32");
registrar r2 = reg<gelu, false>("gelu_mul",
                                "fused GELU-tanh(gate) * up over [M, 2N], overflow-safe tanh, f32");
registrar r3 =
    reg<silu, true>("silu_mul_bwd", "backward of silu_mul: [dgate | dup] from dy and x, f32");
registrar r4 =
    reg<gelu, true>("gelu_mul_bwd", "backward of gelu_mul: [dgate | dup] from dy and x, f32");

}  // namespace
}  // namespace bv::cli
