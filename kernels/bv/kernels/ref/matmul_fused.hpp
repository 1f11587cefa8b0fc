// References for the fused-epilogue matmul act(a @ b + bias) and the split-K matmul, in double.
// Host only.
#pragma once
#include <algorithm>
#include <cmath>

#include "bv/kernels/ref/act_mul.hpp"
#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

// act: 0 none, 1 ReLU, 2 SiLU, 3 GELU-tanh (the order of kernels::epilogue).
template <class T>
std::vector<double> matmul_bias_act(const tensor<T>& a, const tensor<T>& b, const tensor<T>& bias,
                                    int act) {
  dmat c = as_mat(a) * as_mat(b);
  c.rowwise() += as_row(bias);
  for (int64_t i = 0; i < c.size(); ++i) {
    double& z = c.data()[i];
    if (act == 1) z = std::max(z, 0.0);
    if (act == 2) z = detail::act(false, z);
    if (act == 3) z = detail::act(true, z);
  }
  return flat(c);
}

template <class T>
std::vector<double> matmul_splitk(const tensor<T>& a, const tensor<T>& b) {
  return flat(as_mat(a) * as_mat(b));
}

}  // namespace bv::kernels::ref
