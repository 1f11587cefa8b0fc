// Reference for matmul: a @ b for 2-D tensors of any strides, in double with Eigen. Host only.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "bv/bv.hpp"

namespace bv::kernels::ref {

namespace detail {
template <class T>
Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> to_double(
    const tensor<T>& t) {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m(t.size(0), t.size(1));
  for (int64_t i = 0; i < t.size(0); ++i)
    for (int64_t j = 0; j < t.size(1); ++j)
      m(i, j) = static_cast<double>(static_cast<float>(t(i, j)));
  return m;
}
}  // namespace detail

template <class T, class U>
std::vector<double> matmul(const tensor<T>& a, const tensor<U>& b) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> c =
      detail::to_double(a) * detail::to_double(b);
  return std::vector<double>(c.data(), c.data() + c.size());
}

}  // namespace bv::kernels::ref
