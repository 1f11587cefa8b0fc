// Launch recipes for library kernels in the emulator: the GPU launchers' recipes
// (gpu_backend/bv/gpu/kernels_gpu_lib.hpp) on emulated tensors, each in the launch configuration
// the kernel declares for the emulated target. Shared by the emulator's library test and the
// blockvec command's --backend amd-emu, so both run a kernel the same way. Include only from an
// emulated translation unit (one linking blockvec::emu); each recipe instantiates only the
// configurations its table lists.
#pragma once
#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"

namespace bv::emu::lib {

// out = x + y over n = out.numel() elements.
template <class T>
result add(const device_tensor<T>& x, const device_tensor<T>& y, device_tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<kernels::add_configs>(n, "add", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::add_kernel<T, cf.block, cf.waves>>(grid(cdiv(n, cf.block)), x, y, out,
                                                              n);
  });
}

// out = x over n = out.numel() elements.
template <class T>
result copy(const device_tensor<T>& x, device_tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<kernels::copy_configs>(n, "copy", [&](auto c) {
    constexpr launch_config cf = decltype(c)::value;
    return launch<kernels::copy_kernel<T, cf.block, cf.waves>>(grid(cdiv(n, cf.block)), x, out, n);
  });
}

}  // namespace bv::emu::lib
