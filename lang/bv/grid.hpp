// The grid of programs a launch runs: up to three dimensions, as Triton's grid tuple.
#pragma once
#include <cstdint>
#include <type_traits>

namespace bv {

struct grid {
  int x = 1, y = 1, z = 1;
  grid(int x_, int y_ = 1, int z_ = 1) : x(x_), y(y_), z(z_) {}
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, int>) grid(I x_, I y_ = 1, I z_ = 1)
      : x(static_cast<int>(x_)), y(static_cast<int>(y_)), z(static_cast<int>(z_)) {}
  int64_t count() const { return int64_t(x) * y * z; }
};

}  // namespace bv
