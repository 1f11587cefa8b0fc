// Host-side helpers shared by the library's launchers: the launch-configuration tables
// (bv/launch_config.hpp) and int32 casts of tensor sizes and strides (kernels index in int32, as
// in Triton).
#pragma once
#include "bv/bv.hpp"
#include "bv/launch_config.hpp"

#include <stdexcept>
#include <string>

namespace bv::kernels::detail {

inline int i32(int64_t v) {
  if (v > INT32_MAX || v < INT32_MIN)
    throw std::invalid_argument("blockvec kernels index in int32; size " + std::to_string(v) +
                                " does not fit");
  return static_cast<int>(v);
}

}  // namespace bv::kernels::detail
