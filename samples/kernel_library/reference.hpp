// The kernel's reference: the same computation in double precision on the host, written for
// clarity, not speed. The tests compare with it, and blockvec bench times it as the "native" side.
#pragma once
#include <bv/bv.hpp>
#include <cstdint>
#include <vector>

namespace my::ref {

inline std::vector<double> row_center(const bv::tensor<float>& x) {
  const int64_t rows = x.size(0), cols = x.size(1);
  std::vector<double> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0;
    for (int64_t c = 0; c < cols; ++c) mean += x(r, c);
    mean /= static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) out[static_cast<size_t>(r * cols + c)] = x(r, c) - mean;
  }
  return out;
}

}  // namespace my::ref
