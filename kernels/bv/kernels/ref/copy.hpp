// Reference for copy: the elements of x, row-major over the view, in double. Host only.
#pragma once
#include <cstdint>
#include <vector>

#include "bv/bv.hpp"

namespace bv::kernels::ref {

template <class T>
std::vector<double> copy(const tensor<T>& x) {
  std::vector<double> out(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i)
    out[static_cast<size_t>(i)] = static_cast<double>(static_cast<float>(x.flat(i)));
  return out;
}

}  // namespace bv::kernels::ref
