// Two kernels of our own, written against the installed blockvec language.
#pragma once
#include <bv/bv.hpp>

namespace my {

// out = alpha * x + y (BLAS's axpy), BLOCK elements per program.
template <int BLOCK>
BV_KERNEL void axpy_kernel(bv::program<> p, float alpha, bv::ptr<const float> x,
                           bv::ptr<const float> y, bv::ptr<float> out, int n) {
  auto offs = p.id(0) * BLOCK + bv::arange<BLOCK>(p);
  auto mask = offs < n;
  bv::store(out + offs, alpha * bv::load(x + offs, mask) + bv::load(y + offs, mask), mask);
}

// out[r] = sum of row r of a rows x cols matrix, ROWS rows per program, columns in chunks.
template <int ROWS, int COLS>
BV_KERNEL void row_sum_kernel(bv::program<> p, bv::ptr<const float> x, bv::ptr<float> out, int rows,
                              int cols, int stride) {
  auto r = p.id(0) * ROWS + bv::arange<ROWS>(p);
  auto c = bv::arange<COLS>(p);
  auto acc = bv::zeros<float, ROWS>(p);
  for (int start = 0; start < cols; start += COLS) {
    auto mask = (r.col() < rows) & (start + c.row() < cols);
    acc += bv::sum<1>(bv::load(x + r.col() * stride + start + c.row(), mask, 0.0f));
  }
  bv::store(out + r, acc, r < rows);
}

}  // namespace my
