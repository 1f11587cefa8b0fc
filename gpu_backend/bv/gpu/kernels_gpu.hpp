// GPU launchers for the kernels in kernels/ (GPU-compiled translation units only), on device
// tensors: each launches the configuration its kernel declares for the device's target
// (bv/launch_config.hpp; the tables sit next to the kernels), as the interpreter's launchers in
// kernels/ do for theirs. Used by host_api.cu, the GPU tests and bench.
#pragma once
#include <utility>

#include "bv/bv.hpp"
#include "bv/kernels/add.hpp"
#include "bv/kernels/copy.hpp"
#include "bv/kernels/matmul.hpp"
#include "bv/kernels/softmax.hpp"

namespace bv::gpu::kernels {

template <class T>
launch_result add(const device_tensor<T>& x, const device_tensor<T>& y, device_tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<bv::kernels::add_configs>(n, "add", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<bv::kernels::add_kernel<T, k.block, k.waves>>(grid(cdiv(n, k.block)), x, y, out,
                                                                n);
  });
}

template <class T>
launch_result copy(const device_tensor<T>& x, device_tensor<T>& out) {
  const int n = static_cast<int>(out.numel());
  return with_config<bv::kernels::copy_configs>(n, "copy", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    return launch<bv::kernels::copy_kernel<T, k.block, k.waves>>(grid(cdiv(n, k.block)), x, out, n);
  });
}

// softmax over rows of a contiguous rows x cols matrix.
template <class T>
launch_result softmax(const device_tensor<T>& x, device_tensor<T>& out) {
  const int rows = static_cast<int>(x.size(0)), cols = static_cast<int>(x.size(1));
  return with_config<bv::kernels::softmax_configs>(cols, "softmax", [&](auto c) {
    constexpr launch_config k = decltype(c)::value;
    if constexpr (k.variant == 1)
      return launch<bv::kernels::softmax_looped_kernel<T, k.block, k.waves>>(grid(rows), x, out,
                                                                             cols, cols, cols);
    else
      return launch<bv::kernels::softmax_kernel<T, k.block, k.waves>>(grid(rows), x, out, cols,
                                                                      cols, cols);
  });
}

namespace detail {
// Launching with unit arguments fixed: the parameters at the positions in Units (counted after the
// program handle) are compiled as the constant 1, as Triton specialises integer arguments equal
// to 1. A launcher that passes unit strides thus gets kernels whose addresses fold to a row base
// plus immediates: no per-element offsets in registers, no run-time contiguity checks.
template <int... I>
struct units {};
template <class U, int J>
struct is_unit;
template <int... I, int J>
struct is_unit<units<I...>, J> : std::bool_constant<((I == J) || ...)> {};
template <bool Unit, class X>
BV_DI X unit_or(X x) {
  if constexpr (Unit)
    return X(1);
  else
    return x;
}
template <auto K, class U, int Stages, class... P, size_t... J>
BV_DI void call_with_units(std::index_sequence<J...>, P... args) {
  K(program<bv::gpu_lang::detail::kernel_traits<K>::waves>{Stages},
    unit_or<is_unit<U, static_cast<int>(J)>::value>(args)...);
}
// Programs per SM the registers must allow: MinPrograms, or the runtime's default when 0.
template <auto K, int MinPrograms>
inline constexpr int min_programs =
    MinPrograms > 0 ? MinPrograms
                    : bv::gpu_lang::detail::min_programs_per_sm<
                          bv::gpu_lang::detail::kernel_traits<K>::threads>;
template <auto K, class U, int MinPrograms, int Stages, class... P>
__global__ void __launch_bounds__(bv::gpu_lang::detail::kernel_traits<K>::threads,
                                  (min_programs<K, MinPrograms>)) unit_trampoline(P... args) {
  call_with_units<K, U, Stages>(std::index_sequence_for<P...>{}, args...);
}
template <auto K, class U, int MinPrograms, int Stages, class... P, class... A>
launch_result launch_units_impl(std::tuple<P...>*, grid g, int lds_bytes, A&&... args) {
  launch_result r;
  r.kernel = std::string(bv::gpu_lang::detail::kernel_name_of<K>());
  r.programs = g.count();
  r.threads_per_program = bv::gpu_lang::detail::kernel_traits<K>::threads;
  if (g.count() == 0) return r;
  auto* entry = &unit_trampoline<K, U, MinPrograms, Stages, P...>;
  if (lds_bytes > 48 * 1024) {
    static int allowed = 0;  // the largest dynamic LDS this entry was allowed so far
    if (lds_bytes > allowed) {
      gpu::check(
          hipFuncSetAttribute(reinterpret_cast<const void*>(entry),
                              hipFuncAttributeMaxDynamicSharedMemorySize, lds_bytes),
          ("dynamic LDS of " + std::to_string(lds_bytes) + " bytes for " + r.kernel).c_str());
      allowed = lds_bytes;
    }
  }
  entry<<<dim3(g.x, g.y, g.z), dim3(r.threads_per_program), lds_bytes, 0>>>(
      bv::gpu_lang::detail::to_param<P>(args)...);
  gpu::check(hipGetLastError(), ("launch of " + r.kernel).c_str());
  return r;
}
}  // namespace detail

// launch_units<kernel, units<i, j...>>(grid, args...): launch<kernel> with arguments i, j, ...
// (which the caller passes as 1) compiled in as the constant 1; MinPrograms > 0 asks the compiler
// to leave registers for that many programs per SM.
template <auto K, class U, int MinPrograms = 0, class... A>
launch_result launch_units(grid g, A&&... args) {
  using params = typename bv::gpu_lang::detail::kernel_traits<K>::params;
  return detail::launch_units_impl<K, U, MinPrograms, 0>(static_cast<params*>(nullptr), g, 0,
                                                         std::forward<A>(args)...);
}
// launch_pipelined<kernel, units<...>, Stages>(grid, lds_bytes, args...): as launch_units, with
// lds_bytes of dynamic LDS for the block pointers' rings of Stages slots each (block_ptr.hpp;
// block_ptr_lds_bytes<T, R, C, W>(Stages) per block pointer; a block pointer whose ring does not
// fit loads without one).
template <auto K, class U, int Stages, int MinPrograms = 0, class... A>
launch_result launch_pipelined(grid g, int lds_bytes, A&&... args) {
  using params = typename bv::gpu_lang::detail::kernel_traits<K>::params;
  return detail::launch_units_impl<K, U, MinPrograms, Stages>(static_cast<params*>(nullptr), g,
                                                              lds_bytes, std::forward<A>(args)...);
}

// c = a @ b, contiguous row-major: the unit strides sak, sbn, scn are compiled in; the block
// pointers of a and b get rings of Stages slots (Stages 0: none, every tile loaded when used).
template <int BM, int BN, int BK, int W, int Stages = 3, int MinPrograms = 0, int GroupM = 8,
          class T, class O>
launch_result matmul_tiles(const device_tensor<T>& a, const device_tensor<T>& b,
                           device_tensor<O>& c) {
  const int M = static_cast<int>(a.size(0)), K = static_cast<int>(a.size(1));
  const int N = static_cast<int>(b.size(1));
  const int lds =
      Stages ? block_ptr_lds_bytes<T, BM, BK, W>(Stages) + block_ptr_lds_bytes<T, BK, BN, W>(Stages)
             : 0;
  return launch_pipelined<bv::kernels::matmul_kernel<T, O, BM, BN, BK, GroupM, W>,
                          detail::units<7, 9, 11>, Stages, MinPrograms>(
      grid(cdiv(M, BM) * cdiv(N, BN)), lds, a, b, c, M, N, K, K, 1, N, 1, N, 1);
}
// c = a @ b in the configuration matmul_configs (kernels/bv/kernels/matmul.hpp) declares for the
// inputs' element size on the device's target. On an sm_80 build (-DBV_CUDA_ARCH=sm_80) the
// sm_90 tiles run on mma.sync (4.16 ms at 8192^3 on an H100, 2 and 3 stages alike).
template <class T, class O>
launch_result matmul(const device_tensor<T>& a, const device_tensor<T>& b, device_tensor<O>& c) {
  return with_config_for<bv::kernels::matmul_configs, sizeof(T)>("matmul", [&](auto cfg) {
    constexpr launch_config k = decltype(cfg)::value;
    return matmul_tiles<k.bm, k.bn, k.bk, k.waves, k.stages, k.min_programs, k.group_m>(a, b, c);
  });
}

}  // namespace bv::gpu::kernels
