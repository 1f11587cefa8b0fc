// References for the gated activations SiLU*mul and GELU(tanh)*mul over [M, 2N], forward and
// backward, in double with the exact tanh (the kernel's clamped tanh differs by < 1e-8). Host only.
#pragma once
#include <cmath>

#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

namespace detail {
inline double act(bool gelu, double g) {
  if (!gelu) return g / (1.0 + std::exp(-g));
  const double k = 0.7978845608028654, c = 0.044715;
  return 0.5 * g * (1.0 + std::tanh(k * (g + c * g * g * g)));
}
inline double act_grad(bool gelu, double g) {
  if (!gelu) {
    const double s = 1.0 / (1.0 + std::exp(-g));
    return s * (1.0 + g * (1.0 - s));
  }
  const double k = 0.7978845608028654, c = 0.044715;
  const double t = std::tanh(k * (g + c * g * g * g));
  return 0.5 * (1.0 + t) + 0.5 * g * (1.0 - t * t) * k * (1.0 + 3.0 * c * g * g);
}
}  // namespace detail

// y = act(x[:, :N]) * x[:, N:]
template <class T>
std::vector<double> act_mul_fwd(const tensor<T>& x, bool gelu) {
  const dmat X = as_mat(x);
  const int64_t n = X.cols() / 2;
  dmat Y(X.rows(), n);
  for (int64_t i = 0; i < X.rows(); ++i)
    for (int64_t j = 0; j < n; ++j) Y(i, j) = detail::act(gelu, X(i, j)) * X(i, n + j);
  return flat(Y);
}

// dx = [dy * up * act'(gate) | dy * act(gate)]
template <class T>
std::vector<double> act_mul_bwd(const tensor<T>& dy, const tensor<T>& x, bool gelu) {
  const dmat X = as_mat(x), DY = as_mat(dy);
  const int64_t n = X.cols() / 2;
  dmat DX(X.rows(), 2 * n);
  for (int64_t i = 0; i < X.rows(); ++i)
    for (int64_t j = 0; j < n; ++j) {
      DX(i, j) = DY(i, j) * X(i, n + j) * detail::act_grad(gelu, X(i, j));
      DX(i, n + j) = DY(i, j) * detail::act(gelu, X(i, j));
    }
  return flat(DX);
}

}  // namespace bv::kernels::ref
