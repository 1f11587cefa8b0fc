// References for RMSNorm forward/backward and fused residual add + RMSNorm, in double. Host only.
#pragma once
#include <cmath>

#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

struct rmsnorm_result {
  std::vector<double> y, rstd;
};
template <class T>
rmsnorm_result rmsnorm_fwd(const tensor<T>& x, const tensor<T>& w, double eps = 1e-6) {
  const dmat X = as_mat(x);
  const Eigen::RowVectorXd W = as_row(w);
  Eigen::VectorXd r = ((X.array().square().rowwise().sum() / X.cols()) + eps).rsqrt();
  dmat Y = (X.array().colwise() * r.array()).rowwise() * W.array();
  return {flat(Y), std::vector<double>(r.data(), r.data() + r.size())};
}

// h = x + res, rounded to T as the kernel stores it; y = rmsnorm(h) * w.
struct add_rmsnorm_result {
  std::vector<double> h, y, rstd;
};
template <class T>
add_rmsnorm_result add_rmsnorm_fwd(const tensor<T>& x, const tensor<T>& res, const tensor<T>& w,
                                   double eps = 1e-6) {
  dmat H = as_mat(x) + as_mat(res);
  if constexpr (!std::is_same_v<T, float>)
    for (int64_t i = 0; i < H.size(); ++i)
      H.data()[i] = static_cast<double>(static_cast<float>(static_cast<T>(H.data()[i])));
  const Eigen::RowVectorXd W = as_row(w);
  Eigen::VectorXd r = ((H.array().square().rowwise().sum() / H.cols()) + eps).rsqrt();
  dmat Y = (H.array().colwise() * r.array()).rowwise() * W.array();
  return {flat(H), flat(Y), std::vector<double>(r.data(), r.data() + r.size())};
}

struct rmsnorm_grads {
  std::vector<double> dx, dw;
};
// Gradients of sum(dy * y) for y = rmsnorm(x) * w, rstd recomputed in double.
template <class T>
rmsnorm_grads rmsnorm_bwd(const tensor<T>& dy, const tensor<T>& x, const tensor<T>& w,
                          double eps = 1e-6) {
  const dmat X = as_mat(x), DY = as_mat(dy);
  const Eigen::RowVectorXd W = as_row(w);
  const int64_t n = X.cols();
  Eigen::ArrayXd r = ((X.array().square().rowwise().sum() / n) + eps).rsqrt();
  darr G = DY.array().rowwise() * W.array();
  Eigen::ArrayXd c = (G * X.array()).rowwise().sum() / n;
  darr DX = (G.colwise() * r) - (X.array().colwise() * (r.cube() * c));
  Eigen::RowVectorXd DW = ((DY.array() * X.array()).colwise() * r).colwise().sum().matrix();
  return {flat(DX), flat(DW)};
}

}  // namespace bv::kernels::ref
