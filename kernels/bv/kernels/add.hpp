// Vector add: the first kernel of every GPU course. out = x + y over n elements, BLOCK per program.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/launch_config.hpp"

namespace bv::kernels {

template <class T, int BLOCK, int W = 4>
BV_KERNEL void add_kernel(program<W> p, ptr<const T> x, ptr<const T> y, ptr<T> out, int n) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  store(out + offs, load(x + offs, mask) + load(y + offs, mask), mask);
}

// Launch configurations (bv/launch_config.hpp): 2048 elements a program, 4 waves, on every
// target (the GPU's choice; 8 to 16 elements a thread keeps a streaming kernel's loads
// wide and few).
struct add_configs {
  static constexpr launch_config table[] = {
      {.block = 2048, .waves = 4},
  };
};

template <class T>
launch_result add(const tensor<T>& x, const tensor<T>& y, tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<add_configs>(n, "add", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<add_kernel<T, k.block, k.waves>>(grid(cdiv(n, k.block)), x, y, out, n);
  });
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_ADD_INSTANCES_OF(X, T) \
  X(launch_result add(const tensor<T>&, const tensor<T>&, tensor<T>&))
#define BV_ADD_INSTANCES(X)     \
  BV_ADD_INSTANCES_OF(X, float) \
  BV_ADD_INSTANCES_OF(X, half)
BV_EXTERN_INSTANCES(BV_ADD_INSTANCES)

}  // namespace bv::kernels
