// Gated activations of a [*, 2N] input: y = act(gate) * up, gate = x[:, :N],
// up = x[:, N:], with act SiLU or GELU's tanh approximation. The tanh is an overflow-safe
// one (clamp to [-10, 10], then (e^2z - 1) / (e^2z + 1)): some ROCm builds lack tl.math.tanh, and
// e^2z for large z is inf/inf = NaN without the clamp. Forward and backward; 2-D grid
// (rows, column blocks), computing in fp32 and casting on store.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

enum class gate_act : int { silu = 0, gelu_tanh = 1 };

namespace detail {
inline constexpr float gelu_k = 0.7978845608028654f;  // sqrt(2 / pi)
inline constexpr float gelu_c = 0.044715f;

// A manual tanh. Past |z| = 10, tanh is 1 - 4e-9 from +-1: the clamp costs nothing.
template <class B>
BV_HD auto safe_tanh(const B& z) {
  auto e = exp(2.0f * maximum(minimum(z, 10.0f), -10.0f));
  return (e - 1.0f) / (e + 1.0f);
}

// act(g) and act'(g), elementwise on fp32 blocks.
template <gate_act A, class B>
BV_HD auto act_value(const B& g) {
  if constexpr (A == gate_act::silu) {
    return g * sigmoid(g);
  } else {
    return 0.5f * g * (1.0f + safe_tanh(gelu_k * (g + gelu_c * g * g * g)));
  }
}
template <gate_act A, class B>
BV_HD auto act_grad(const B& g) {
  if constexpr (A == gate_act::silu) {
    auto s = sigmoid(g);
    return s * (1.0f + g * (1.0f - s));
  } else {
    auto t = safe_tanh(gelu_k * (g + gelu_c * g * g * g));
    return 0.5f * (1.0f + t) + 0.5f * g * (1.0f - t * t) * gelu_k * (1.0f + 3.0f * gelu_c * g * g);
  }
}
}  // namespace detail

template <class T, gate_act A, int BLOCK, int W = 4>
BV_KERNEL void act_mul_fwd_kernel(program<W> p, ptr<const T> x, ptr<T> y, int sx, int sy, int n) {
  const int row = p.id(0);
  auto cols = p.id(1) * BLOCK + arange<BLOCK>(p);
  auto mask = cols < n;
  auto gate = load(x + row * sx + cols, mask, 0.0f).to(f32);
  auto up = load(x + row * sx + n + cols, mask, 0.0f).to(f32);
  store(y + row * sy + cols, detail::act_value<A>(gate) * up, mask);
}

// dgate = dy * up * act'(gate), dup = dy * act(gate), written to dx = [dgate | dup].
template <class T, gate_act A, int BLOCK, int W = 4>
BV_KERNEL void act_mul_bwd_kernel(program<W> p, ptr<const T> dy, ptr<const T> x, ptr<T> dx, int sdy,
                                  int sx, int sdx, int n) {
  const int row = p.id(0);
  auto cols = p.id(1) * BLOCK + arange<BLOCK>(p);
  auto mask = cols < n;
  auto gate = load(x + row * sx + cols, mask, 0.0f).to(f32);
  auto up = load(x + row * sx + n + cols, mask, 0.0f).to(f32);
  auto d = load(dy + row * sdy + cols, mask, 0.0f).to(f32);
  store(dx + row * sdx + cols, d * up * detail::act_grad<A>(gate), mask);
  store(dx + row * sdx + n + cols, d * detail::act_value<A>(gate), mask);
}

// Launch configurations (bv/launch_config.hpp): 1024 columns of a row a program, 4 waves, on
// every target (the GPU's and the interpreter's choice alike).
struct act_mul_configs {
  static constexpr launch_config table[] = {
      {.block = 1024, .waves = 4},
  };
};

// y[M, N] = act(x[:, :N]) * x[:, N:] for x [M, 2N].
template <gate_act A, class T>
launch_result act_mul_fwd(const tensor<T>& x, tensor<T>& y) {
  const int m = detail::i32(x.size(0)), n = detail::i32(y.size(1));
  if (x.size(1) != 2 * y.size(1))
    throw std::invalid_argument("act_mul: x must be [M, 2N] for y [M, N]");
  return with_config<act_mul_configs>(n, "act_mul_fwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<act_mul_fwd_kernel<T, A, k.block, k.waves>>(
        grid(m, cdiv(n, k.block)), x, y, detail::i32(x.stride(0)), detail::i32(y.stride(0)), n);
  });
}

template <gate_act A, class T>
launch_result act_mul_bwd(const tensor<T>& dy, const tensor<T>& x, tensor<T>& dx) {
  const int m = detail::i32(x.size(0)), n = detail::i32(dy.size(1));
  return with_config<act_mul_configs>(n, "act_mul_bwd", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<act_mul_bwd_kernel<T, A, k.block, k.waves>>(
        grid(m, cdiv(n, k.block)), dy, x, dx, detail::i32(dy.stride(0)), detail::i32(x.stride(0)),
        detail::i32(dx.stride(0)), n);
  });
}

template <class T>
launch_result silu_mul_fwd(const tensor<T>& x, tensor<T>& y) {
  return act_mul_fwd<gate_act::silu>(x, y);
}
template <class T>
launch_result gelu_mul_fwd(const tensor<T>& x, tensor<T>& y) {
  return act_mul_fwd<gate_act::gelu_tanh>(x, y);
}
template <class T>
launch_result silu_mul_bwd(const tensor<T>& dy, const tensor<T>& x, tensor<T>& dx) {
  return act_mul_bwd<gate_act::silu>(dy, x, dx);
}
template <class T>
launch_result gelu_mul_bwd(const tensor<T>& dy, const tensor<T>& x, tensor<T>& dx) {
  return act_mul_bwd<gate_act::gelu_tanh>(dy, x, dx);
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_ACT_MUL_INSTANCES_OF(X, A, T)                        \
  X(launch_result act_mul_fwd<A>(const tensor<T>&, tensor<T>&)) \
  X(launch_result act_mul_bwd<A>(const tensor<T>&, const tensor<T>&, tensor<T>&))
#define BV_ACT_MUL_INSTANCES(X)                          \
  BV_ACT_MUL_INSTANCES_OF(X, gate_act::silu, float)      \
  BV_ACT_MUL_INSTANCES_OF(X, gate_act::silu, half)       \
  BV_ACT_MUL_INSTANCES_OF(X, gate_act::silu, bfloat16)   \
  BV_ACT_MUL_INSTANCES_OF(X, gate_act::gelu_tanh, float) \
  BV_ACT_MUL_INSTANCES_OF(X, gate_act::gelu_tanh, half)  \
  BV_ACT_MUL_INSTANCES_OF(X, gate_act::gelu_tanh, bfloat16)
BV_EXTERN_INSTANCES(BV_ACT_MUL_INSTANCES)

}  // namespace bv::kernels
