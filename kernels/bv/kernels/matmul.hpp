// Tiled matmul C = A @ B with Triton's grouped program ordering (GROUP_M rows of tiles share the
// B columns they read, for L2 reuse), masked ragged edges and fp32 accumulation.
#pragma once
#include "bv/bv.hpp"

namespace bv::kernels {

// Triton's grouped ordering: program `pid` of a 1-D grid takes the tile (pid_m, pid_n) so that
// GROUP_M consecutive programs share the columns of B they read (L2 reuse).
struct tile_index {
  int m, n;
};
BV_HD constexpr tile_index grouped_tile(int pid, int M, int N, int BM, int BN, int GROUP_M) {
  const int num_pid_m = cdiv(M, BM), num_pid_n = cdiv(N, BN);
  const int num_in_group = GROUP_M * num_pid_n;
  const int first_m = (pid / num_in_group) * GROUP_M;
  const int group_size = num_pid_m - first_m < GROUP_M ? num_pid_m - first_m : GROUP_M;
  return {first_m + (pid % num_in_group) % group_size, (pid % num_in_group) / group_size};
}

template <class T, class O, int BM, int BN, int BK, int GROUP_M, int W = 4>
BV_KERNEL void matmul_kernel(program<W> p, ptr<const T> a, ptr<const T> b, ptr<O> c, int M, int N,
                             int K, int sam, int sak, int sbk, int sbn, int scm, int scn) {
  const tile_index t = grouped_tile(p.id(0), M, N, BM, BN, GROUP_M);
  const int pid_m = t.m, pid_n = t.n;

  auto rm = pid_m * BM + arange<BM>(p);
  auto rn = pid_n * BN + arange<BN>(p);
  auto rk = arange<BK>(p);
  auto pa = a + (rm.col() * sam + rk.row() * sak);
  auto pb = b + (rk.col() * sbk + rn.row() * sbn);
  auto acc = zeros<float, BM, BN>(p);
  for (int k = 0; k < K; k += BK) {
    auto a_mask = (rm.col() < M) & (rk.row() < K - k);
    auto b_mask = (rk.col() < K - k) & (rn.row() < N);
    acc = dot(load(pa, a_mask, 0.0f), load(pb, b_mask, 0.0f), acc);
    pa += BK * sak;
    pb += BK * sbk;
  }
  store(c + (rm.col() * scm + rn.row() * scn), acc, (rm.col() < M) & (rn.row() < N));
}

#if !BV_GPU
// c = a @ b for 2-D tensors (any strides); c's dtype may differ from the inputs'.
template <int BM = 64, int BN = 64, int BK = 32, int GROUP_M = 8, class T, class O>
launch_result matmul(const tensor<T>& a, const tensor<T>& b, tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  const int programs = cdiv(M, BM) * cdiv(N, BN);
  return launch<matmul_kernel<T, O, BM, BN, BK, GROUP_M>>(
      grid(programs), a, b, c, M, N, K, static_cast<int>(a.stride(0)),
      static_cast<int>(a.stride(1)), static_cast<int>(b.stride(0)), static_cast<int>(b.stride(1)),
      static_cast<int>(c.stride(0)), static_cast<int>(c.stride(1)));
}
#endif

}  // namespace bv::kernels
