// Copy: the first kernel to write. out[i] = x[i] for i < n, BLOCK per program.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/launch_config.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void copy_kernel(program<W> p, ptr<const T> x, ptr<T> out, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask), mask);
}

// Launch configurations (bv/launch_config.hpp): as add's.
struct copy_configs {
  static constexpr launch_config table[] = {
      {.block = 2048, .waves = 4},
  };
};

template <class T>
launch_result copy(const tensor<T>& x, tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<copy_configs>(n, "copy", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<copy_kernel<T, k.block, k.waves>>(grid(cdiv(n, k.block)), x, out, n);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_COPY_INSTANCES_OF(X, T) X(launch_result copy(const tensor<T>&, tensor<T>&))
#define BV_COPY_INSTANCES(X)        \
  BV_COPY_INSTANCES_OF(X, float)    \
  BV_COPY_INSTANCES_OF(X, half)     \
  BV_COPY_INSTANCES_OF(X, bfloat16) \
  BV_COPY_INSTANCES_OF(X, int32_t)
BV_EXTERN_INSTANCES(BV_COPY_INSTANCES)

}  // namespace bv::kernels
