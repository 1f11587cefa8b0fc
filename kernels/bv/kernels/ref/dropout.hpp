// Reference for dropout: the same counter-based hash evaluated one element at a time with plain
// 64-bit integers (an independent implementation of the kernel's block arithmetic), then
// keep ? x / (1 - p) : 0 in double. Host only.
#pragma once
#include <cstdint>

#include "bv/kernels/ref/common.hpp"

namespace bv::kernels::ref {

inline bool dropout_keep(int64_t i, float p, int seed) {
  const uint64_t m = 0xffffffffu;
  uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(seed)) & m;
  s = (((s >> 16) ^ s) * 0x2c1b3c6du) & m;
  s = (((s >> 12) ^ s) * 0x297a2d39u) & m;
  s = (s >> 15) ^ s;
  uint64_t x = static_cast<uint64_t>(i) ^ s;
  x = (((x >> 16) ^ x) * 0x45d9f3bu) & m;
  x = (((x >> 16) ^ x) * 0x45d9f3bu) & m;
  x = (x >> 16) ^ x;
  const float u = static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
  return u >= p;
}

template <class T>
std::vector<double> dropout(const tensor<T>& x, float p, int seed) {
  std::vector<double> out(static_cast<size_t>(x.numel()));
  const double scale = 1.0 / (1.0 - static_cast<double>(p));
  for (int64_t i = 0; i < x.numel(); ++i)
    out[static_cast<size_t>(i)] =
        dropout_keep(i, p, seed) ? static_cast<double>(static_cast<float>(x.flat(i))) * scale : 0.0;
  return out;
}

}  // namespace bv::kernels::ref
