// Reference for softmax over the last dimension of a 2-D tensor, in double with Eigen. Host only.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "bv/bv.hpp"

namespace bv::kernels::ref {

template <class T>
std::vector<double> softmax(const tensor<T>& x) {
  const int64_t rows = x.size(0), cols = x.size(1);
  using Mat = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Mat m(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m(i, j) = static_cast<double>(static_cast<float>(x(i, j)));
  // Subtracting the row max keeps exp finite, like the kernel; in double it changes nothing else.
  m = (m.colwise() - m.rowwise().maxCoeff()).exp();
  m = m.colwise() / m.rowwise().sum();
  return std::vector<double>(m.data(), m.data() + m.size());
}

}  // namespace bv::kernels::ref
