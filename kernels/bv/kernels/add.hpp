// Vector add: the seed's first kernel. out = x + y over n elements, BLOCK per program.
#pragma once
#include "bv/bv.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void add_kernel(program<W> p, ptr<const T> x, ptr<const T> y, ptr<T> out, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask) + load(y + offs, mask), mask);
}

#if !BV_GPU
template <class T>
launch_result add(const tensor<T>& x, const tensor<T>& y, tensor<T>& out) {
  constexpr int B = 1024;
  const int n = static_cast<int>(out.numel());
  return launch<add_kernel<T, B>>(grid(cdiv(n, B)), x, y, out, n);
}
#endif

}  // namespace bv::kernels
