// Column sums of a [G, N] fp32 matrix of partial results: the second stage of a two-stage
// reduction (the Triton LayerNorm tutorial's _layer_norm_bwd_dwdb). Each program owns BN columns
// and walks the G rows in BG-row tiles, so no two programs touch the same output.
#pragma once
#include "bv/bv.hpp"

namespace bv::kernels {

template <class O, int BG, int BN, int W = 4>
BV_KERNEL void col_sum_kernel(program<W> p, ptr<const float> partial, ptr<O> out, int g, int n) {
  auto cols = p.id(0) * BN + arange<BN>(p);
  auto rows = arange<BG>(p);
  auto acc = zeros<float, BG, BN>(p);
  for (int r = 0; r < g; r += BG) {
    auto mask = ((r + rows).col() < g) & (cols.row() < n);
    acc += load(partial + ((r + rows).col() * n + cols.row()), mask, 0.0f);
  }
  store(out + cols, sum<0>(acc), cols < n);
}

#if !BV_GPU
// out[j] = sum_i partial[i, j]. 256 columns per program: the 256-element store fills a quarter
// of 4 waves of 64 lanes with 16-byte vectors (128 columns left 12%, which the coalescing check
// rightly reports as low utilisation).
template <class O>
launch_result col_sum(const tensor<float>& partial, tensor<O>& out) {
  const int g = static_cast<int>(partial.size(0)), n = static_cast<int>(partial.size(1));
  return launch<col_sum_kernel<O, 16, 256>>(grid(cdiv(n, 256)), partial, out, g, n);
}
#endif

}  // namespace bv::kernels
