// Column sums of a [G, N] fp32 matrix of partial results: the second stage of a two-stage
// reduction (the Triton LayerNorm tutorial's _layer_norm_bwd_dwdb). Each program owns BN columns
// and walks the G rows in BG-row tiles, so no two programs touch the same output.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/launch_config.hpp"

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

// Launch configurations (bv/launch_config.hpp): BG rows (bm) by BN columns (bn) a step, 4 waves.
// On sm_90's 32-lane warps the GPU's 32 x 128 tiles. On AMD 64 x 64: each lane reads 4
// contiguous columns (16-byte vectors) of one row a step. Wider tiles (16 x 256, 64 x 128) keep a
// column-bound lane mask per register in SGPR pairs through the row loop and spill them on
// gfx942 (docs/isa_report.md).
struct col_sum_configs {
  // clang-format off
  static constexpr launch_config table[] = {
      // targets                     waves        rows a step  columns
      {.targets = only(target::sm_90), .waves = 4, .bm = 32, .bn = 128},
      {.targets = amd_targets,         .waves = 4, .bm = 64, .bn = 64},
  };
  // clang-format on
};

// out[j] = sum_i partial[i, j].
template <class O>
launch_result col_sum(const tensor<float>& partial, tensor<O>& out) {
  const int g = static_cast<int>(partial.size(0)), n = static_cast<int>(partial.size(1));
  return with_config<col_sum_configs>(n, "col_sum", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<col_sum_kernel<O, k.bm, k.bn, k.waves>>(grid(cdiv(n, k.bn)), partial, out, g, n);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_COL_SUM_INSTANCES_OF(X, O) X(launch_result col_sum(const tensor<float>&, tensor<O>&))
#define BV_COL_SUM_INSTANCES(X)     \
  BV_COL_SUM_INSTANCES_OF(X, float) \
  BV_COL_SUM_INSTANCES_OF(X, half)  \
  BV_COL_SUM_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_COL_SUM_INSTANCES)

}  // namespace bv::kernels
