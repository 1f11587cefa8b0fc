// Dropout with a counter-based generator: element i is kept iff hash(seed, i) / 2^32 >= p, and
// kept elements are scaled by 1 / (1 - p). The mask is a pure function of (seed, i), so it is the
// same on every schedule, every grid and the GPU, and the backward regenerates it instead of
// storing it (Triton's seeded-dropout tutorial, with tl.rand's role played by hash32 below).
//
// hash32 is Mueller's 32-bit integer mixer ((x >> 16) ^ x) * 0x45d9f3b, twice, over the element
// index xor a mixed seed. It is written in i64 block arithmetic masked to 32 bits: every product
// stays below 2^63, so it is well defined in C++ and bit-identical on any backend, where uint32
// wrap-around would need an unsigned block type the language does not have.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/instances.hpp"
#include "bv/kernels/launch_util.hpp"

namespace bv::kernels {

namespace detail {
inline constexpr int64_t mask32 = 0xffffffffLL;

template <class B>
BV_HD auto hash32(const B& x0) {
  auto x = (((x0 >> 16) ^ x0) * 0x45d9f3bLL) & mask32;
  x = (((x >> 16) ^ x) * 0x45d9f3bLL) & mask32;
  return (x >> 16) ^ x;
}

// The seed, mixed once on the scalar path so that nearby seeds give unrelated masks.
BV_HD inline int64_t mix_seed(int64_t seed) {
  int64_t s = seed & mask32;
  s = (((s >> 16) ^ s) * 0x2c1b3c6dLL) & mask32;
  s = (((s >> 12) ^ s) * 0x297a2d39LL) & mask32;
  return (s >> 15) ^ s;
}
}  // namespace detail

// out = keep ? x / (1 - p) : 0 over n elements. The backward is the same kernel applied to dy.
template <class T, int BLOCK, int W = 4>
BV_KERNEL void dropout_kernel(program<W> p, ptr<const T> x, ptr<T> out, int n, float prob,
                              int seed) {
  auto offs = p.id(0) * BLOCK + arange<BLOCK>(p);
  auto mask = offs < n;
  auto bits = detail::hash32(offs.to(i64) ^ detail::mix_seed(seed));
  // The top 24 bits as a uniform in [0, 1): exact in fp32.
  auto u = (bits >> 8).to(f32) * (1.0f / 16777216.0f);
  auto xv = load(x + offs, mask, 0.0f).to(f32);
  store(out + offs, where(u >= prob, xv * (1.0f / (1.0f - prob)), 0.0f), mask);
}

// Launch configurations (bv/launch_config.hpp): 2048 elements a program, 4 waves, on every
// target (the GPU's choice). The mask is a function of (seed, element index) alone, so
// the block width never changes the result.
struct dropout_configs {
  static constexpr launch_config table[] = {
      {.block = 2048, .waves = 4},
  };
};

// out = dropout(x, p, seed) over every element of a contiguous tensor; p in [0, 1).
template <class T>
launch_result dropout(const tensor<T>& x, tensor<T>& out, float p, int seed) {
  const int n = detail::i32(x.numel());
  return with_config<dropout_configs>(n, "dropout", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<dropout_kernel<T, k.block, k.waves>>(grid(cdiv(n, k.block)), x, out, n, p, seed);
  });
}
// dx = dy * mask / (1 - p) with the forward's mask (same seed).
template <class T>
launch_result dropout_bwd(const tensor<T>& dy, tensor<T>& dx, float p, int seed) {
  return dropout(dy, dx, p, seed);
}

// Built once for the interpreter (bv/kernels/instances.hpp).
#define BV_DROPOUT_INSTANCES_OF(X, T) \
  X(launch_result dropout(const tensor<T>&, tensor<T>&, float, int))
#define BV_DROPOUT_INSTANCES(X)     \
  BV_DROPOUT_INSTANCES_OF(X, float) \
  BV_DROPOUT_INSTANCES_OF(X, half)  \
  BV_DROPOUT_INSTANCES_OF(X, bfloat16)
BV_EXTERN_INSTANCES(BV_DROPOUT_INSTANCES)

}  // namespace bv::kernels
