// References for cross-entropy forward (loss and lse per row) and backward, in double. Host only.
#pragma once
#include <cmath>

#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

struct cross_entropy_result {
  std::vector<double> loss, lse;
};
template <class T>
cross_entropy_result cross_entropy_fwd(const tensor<T>& x, const tensor<int32_t>& target) {
  const dmat X = as_mat(x);
  cross_entropy_result r;
  for (int64_t i = 0; i < X.rows(); ++i) {
    const double m = X.row(i).maxCoeff();
    const double s = m + std::log((X.row(i).array() - m).exp().sum());
    const int t = target(i);
    r.lse.push_back(s);
    r.loss.push_back(t >= 0 ? s - X(i, t) : 0.0);
  }
  return r;
}

template <class T>
std::vector<double> cross_entropy_bwd(const tensor<T>& x, const tensor<int32_t>& target,
                                      const tensor<float>& dloss) {
  dmat X = as_mat(x);
  for (int64_t i = 0; i < X.rows(); ++i) {
    const int t = target(i);
    if (t < 0) {
      X.row(i).setZero();
      continue;
    }
    const double m = X.row(i).maxCoeff();
    Eigen::RowVectorXd e = (X.row(i).array() - m).exp().matrix();
    e /= e.sum();
    e[t] -= 1.0;
    X.row(i) = e * static_cast<double>(dloss(i));
  }
  return flat(X);
}

}  // namespace bv::kernels::ref
