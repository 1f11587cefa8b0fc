// Reference for col_sum: out[j] = sum_i partial[i, j], in double, row by row. Host only.
#pragma once
#include <cstdint>
#include <vector>

#include "bv/bv.hpp"

namespace bv::kernels::ref {

inline std::vector<double> col_sum(const tensor<float>& partial) {
  const int64_t g = partial.size(0), n = partial.size(1);
  std::vector<double> out(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < g; ++i)
    for (int64_t j = 0; j < n; ++j) out[static_cast<size_t>(j)] += partial(i, j);
  return out;
}

}  // namespace bv::kernels::ref
