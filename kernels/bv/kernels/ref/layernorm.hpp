// References for LayerNorm forward and backward, in double. Host only.
#pragma once
#include <cmath>

#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

struct layernorm_result {
  std::vector<double> y, mean, rstd;
};
template <class T>
layernorm_result layernorm_fwd(const tensor<T>& x, const tensor<T>& w, const tensor<T>& b,
                               double eps = 1e-5) {
  const dmat X = as_mat(x);
  const int64_t n = X.cols();
  Eigen::ArrayXd mu = X.rowwise().mean().array();
  darr XC = X.array().colwise() - mu;
  Eigen::ArrayXd r = (XC.square().rowwise().sum() / n + eps).rsqrt();
  darr Y = ((XC.colwise() * r).rowwise() * as_row(w).array()).rowwise() + as_row(b).array();
  return {flat(Y), std::vector<double>(mu.data(), mu.data() + mu.size()),
          std::vector<double>(r.data(), r.data() + r.size())};
}

struct layernorm_grads {
  std::vector<double> dx, dw, db;
};
template <class T>
layernorm_grads layernorm_bwd(const tensor<T>& dy, const tensor<T>& x, const tensor<T>& w,
                              double eps = 1e-5) {
  const dmat X = as_mat(x), DY = as_mat(dy);
  const int64_t n = X.cols();
  Eigen::ArrayXd mu = X.rowwise().mean().array();
  darr XC = X.array().colwise() - mu;
  Eigen::ArrayXd r = (XC.square().rowwise().sum() / n + eps).rsqrt();
  darr XH = XC.colwise() * r;
  darr G = DY.array().rowwise() * as_row(w).array();
  Eigen::ArrayXd c1 = (XH * G).rowwise().sum() / n, c2 = G.rowwise().sum() / n;
  darr DX = ((G - (XH.colwise() * c1)).colwise() - c2).colwise() * r;
  Eigen::RowVectorXd DW = (DY.array() * XH).colwise().sum().matrix();
  Eigen::RowVectorXd DB = DY.colwise().sum();
  return {flat(DX), flat(DW), flat(DB)};
}

}  // namespace bv::kernels::ref
