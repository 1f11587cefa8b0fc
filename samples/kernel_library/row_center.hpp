// The kernel: each row of a [ROWS, COLS] matrix minus its mean, one program per row, the whole
// row in one block. A kernel library's kernel is an ordinary blockvec kernel; only library.cpp
// knows it is in a library.
#pragma once
#include <bv/bv.hpp>
#include <stdexcept>
#include <string>

namespace my {

template <int BLOCK>
BV_KERNEL void row_center_kernel(bv::program<4> p, bv::ptr<const float> x, bv::ptr<float> out,
                                 int stride, int n_cols) {
  const int row = p.id(0);
  auto cols = bv::arange<BLOCK>(p);
  auto mask = cols < n_cols;
  // Masked-off lanes load 0, so the sum is the row's sum.
  auto v = bv::load(x + row * stride + cols, mask, 0.0f);
  const float mean = bv::sum(v) / static_cast<float>(n_cols);
  bv::store(out + row * stride + cols, v - mean, mask);
}

// The widest row one block holds: the library refuses longer rows (library.cpp's `accepts`).
constexpr int max_row_center_cols = 4096;

// out = x - mean(x, axis 1) for contiguous [ROWS, COLS] tensors; the smallest block that holds
// a row.
inline bv::launch_result row_center(const bv::tensor<float>& x, bv::tensor<float>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  if (cols > max_row_center_cols)
    throw std::invalid_argument("row_center: rows of " + std::to_string(cols) +
                                " columns do not fit one block of " +
                                std::to_string(max_row_center_cols));
  const bv::grid g(rows);
  if (cols <= 256) return bv::launch<row_center_kernel<256>>(g, x, out, cols, cols);
  if (cols <= 1024) return bv::launch<row_center_kernel<1024>>(g, x, out, cols, cols);
  return bv::launch<row_center_kernel<4096>>(g, x, out, cols, cols);
}

}  // namespace my
