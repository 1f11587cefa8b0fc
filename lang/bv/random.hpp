// The values of tensor<T>::randn, written once so that every backend's tensors hold the same
// values for the same seed (a kernel compared across backends reads the same inputs): Normal(0,
// scale) for floating types, uniform integers in [-100, 100) otherwise. Host code.
#pragma once
#include <cstdint>
#include <random>

#include "bv/dtype.hpp"

namespace bv::lang {

template <class T>
void fill_random(T* out, int64_t n, uint64_t seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  if constexpr (is_float<T>) {
    std::normal_distribution<double> d(0.0, scale);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(static_cast<float>(d(rng)));
  } else {
    std::uniform_int_distribution<int64_t> d(-100, 99);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(d(rng));
  }
}

}  // namespace bv::lang
