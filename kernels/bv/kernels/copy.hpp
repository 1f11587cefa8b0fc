// Copy: the lecture's first example. out[i] = x[i] for i < n, BLOCK per program.
#pragma once
#include "bv/bv.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void copy_kernel(program<W> p, ptr<const T> x, ptr<T> out, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask), mask);
}

#if !BV_GPU
template <class T>
launch_result copy(const tensor<T>& x, tensor<T>& out) {
  constexpr int B = 1024;
  const int n = static_cast<int>(out.numel());
  return launch<copy_kernel<T, B>>(grid(cdiv(n, B)), x, out, n);
}
#endif

}  // namespace bv::kernels
