// Shared helpers of the double-precision references: tensors to Eigen matrices and back to the
// flat row-major vectors the tests compare against. Host only.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "bv/bv.hpp"

namespace bv::kernels::ref {

using dmat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using darr = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The elements of t (any rank, row-major over its view) as a rows x cols matrix.
template <class T>
dmat as_mat(const tensor<T>& t, int64_t rows, int64_t cols) {
  dmat m(rows, cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    m.data()[i] = static_cast<double>(static_cast<float>(t.flat(i)));
  return m;
}
template <class T>
dmat as_mat(const tensor<T>& t) {
  const int64_t cols = t.size(t.dim() - 1);
  return as_mat(t, t.numel() / cols, cols);
}
// A 1-D tensor as a row vector.
template <class T>
Eigen::RowVectorXd as_row(const tensor<T>& t) {
  Eigen::RowVectorXd v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = static_cast<double>(static_cast<float>(t.flat(i)));
  return v;
}
// Evaluated once first: coefficient access on an unevaluated product would recompute the whole
// product for every element (it made the split-K reference take seconds).
template <class D>
std::vector<double> flat(const Eigen::DenseBase<D>& expr) {
  const auto& m = expr.derived().eval();
  std::vector<double> out;
  out.reserve(static_cast<size_t>(m.size()));
  for (int64_t i = 0; i < m.rows(); ++i)
    for (int64_t j = 0; j < m.cols(); ++j) out.push_back(m(i, j));
  return out;
}

}  // namespace bv::kernels::ref
