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

// A tuned launch where the kernel's block pointers get rings of Stages slots (lds bytes of them)
// or the registers are left for MinPrograms programs an SM (a launch_config's stages and
// min_programs); a plain launch otherwise.
template <auto Kernel, int Stages, int MinPrograms, class... A>
launch_result launch_tuned(int lds, const grid& g, A&&... args) {
  if constexpr (Stages > 0 || MinPrograms > 0)
    return launch<Kernel>(gpu_tuning<Stages, MinPrograms>{lds}, g, std::forward<A>(args)...);
  else
    return launch<Kernel>(g, std::forward<A>(args)...);
}

}  // namespace bv::kernels::detail
